"""The mdqs client: tokens, request signing (specification part 5, and the
version 2 signature that binds the request), retries, and one function per
endpoint family."""

import datetime as _dt
import hashlib
import hmac
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import MdqsError

__all__ = ["Client", "canonical_query", "parse_sse", "signature_v2", "token_cache_dir", "token_cache_path"]

_SHANGHAI = _dt.timezone(_dt.timedelta(hours=8))  # every time the API writes is Asia/Shanghai (no DST)

# 401 details that a new token cures (auth.TokenRenewable on the server);
# any other 401 (signature, nonce, clock, api-key) would fail the same way.
_RENEWABLE = ("unknown, expired or revoked token", "token expired")
_EVICTED_PREFIX = "token evicted:"

# Columns kept as nullable integers in frames; every other numeric column is float64.
_INT_COLUMNS = frozenset({
    "volume", "count", "rank", "signal_rank", "heat", "up", "down", "id", "type",
    "category", "sectors_up", "sectors_down", "stocks_up", "stocks_down", "movers",
    "event_ms", "updated_ms", "alert_id_num", "total_shares", "float_shares",
})

Params = Mapping[str, Any]


def _renewable(detail: str) -> bool:
    return detail in _RENEWABLE or detail.startswith(_EVICTED_PREFIX)


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _normalize_base(addr: str) -> str:
    addr = addr.strip().rstrip("/")
    if "://" not in addr:
        addr = "http://" + addr
    return addr


def _parse_time(s: str) -> float:
    """'YYYY-MM-DD HH:MM:SS' in Asia/Shanghai -> epoch seconds."""
    return _dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S").replace(tzinfo=_SHANGHAI).timestamp()


def _user_cache_dir() -> str:
    """Go's os.UserCacheDir, so the files are the ones ``mdqs call`` uses."""
    if sys.platform == "win32":
        d = os.environ.get("LocalAppData") or os.environ.get("LOCALAPPDATA")
        if not d:
            raise OSError("%LocalAppData% is not defined")
        return d
    if sys.platform == "darwin":
        home = os.environ.get("HOME")
        if not home:
            raise OSError("$HOME is not defined")
        return os.path.join(home, "Library", "Caches")
    d = os.environ.get("XDG_CACHE_HOME")
    if d:
        if not os.path.isabs(d):
            raise OSError("path in $XDG_CACHE_HOME is relative")
        return d
    home = os.environ.get("HOME")
    if not home:
        raise OSError("neither $XDG_CACHE_HOME nor $HOME are defined")
    return os.path.join(home, ".cache")


def token_cache_dir() -> str:
    """The folder of the token files: ``<user cache dir>/mdqs/tokens``."""
    return os.path.join(_user_cache_dir(), "mdqs", "tokens")


def token_cache_path(base_url: str, client_id: str, folder: Optional[str] = None) -> str:
    """The token file of one base URL (as :class:`Client` normalizes it, e.g.
    ``http://127.0.0.1:8080``) and client: the file ``mdqs call`` uses too."""
    name = hashlib.sha256((base_url + "\n" + client_id).encode("utf-8")).hexdigest()[:32] + ".json"
    return os.path.join(folder or token_cache_dir(), name)


_TOKEN_RE = re.compile(r"^[0-9a-f]{64}$")
_RFC3339_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$")


def _parse_rfc3339(s: str) -> float:
    """Go's time.Time JSON (RFC 3339, up to nanoseconds) -> epoch seconds."""
    m = _RFC3339_RE.match(s.strip())
    if not m:
        raise ValueError("not an RFC 3339 time: %r" % s)
    day, hms, frac, zone = m.groups()
    zone = "+00:00" if zone in ("Z", "z") else zone
    t = _dt.datetime.fromisoformat(day + "T" + hms + zone).timestamp()
    return t + (float("0." + frac) if frac else 0.0)


def _format_rfc3339(epoch: float) -> str:
    return _dt.datetime.fromtimestamp(epoch, _SHANGHAI).isoformat()


def _versions(v: Any) -> Optional[List[int]]:
    """A list of signature versions as a token answer or cache file gives it; None when not one."""
    if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return list(v)
    return None


def _load_cached_token(path: str) -> Optional[Tuple[str, float, Optional[List[int]]]]:
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        tok, exp = doc["token"], _parse_rfc3339(doc["expires"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(tok, str) or not _TOKEN_RE.match(tok):
        return None
    return tok, exp, _versions(doc.get("signature_versions"))


def _save_cached_token(path: str, token: str, expires: float, versions: Optional[List[int]] = None) -> None:
    """Replace the file whole (a temporary file renamed over it), 0600 in a 0700 folder."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)  # a folder made earlier by something else may be wider
    doc: Dict[str, Any] = {"token": token, "expires": _format_rfc3339(expires)}
    if versions:
        doc["signature_versions"] = versions
    raw = json.dumps(doc, separators=(",", ":")).encode()
    fd, tmp = tempfile.mkstemp(prefix=".token-", dir=folder)  # created 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")


def _recode(s: bytes) -> str:
    """Form-decode one name or value (%XX, + as a space), then %-encode every
    byte but the unreserved ones, upper-case hex."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x2B:  # +
            c = 0x20
        elif c == 0x25:  # %
            esc = s[i + 1:i + 3]
            if len(esc) < 2 or not all(x in _HEX_DIGITS for x in esc):
                raise ValueError("malformed %%-escape %r in the query string: escape a literal %% as %%25"
                                 % s[i:i + 3].decode("utf-8", "replace"))
            c = int(esc, 16)
            i += 2
        if c in _UNRESERVED:
            out.append(c)
        else:
            out += b"%%%02X" % c
        i += 1
    return out.decode("ascii")


def canonical_query(raw: str) -> str:
    """The query string (as sent, without ``?``) in the form signature
    version 2 signs: each pair's name and value form-decoded and %-encoded
    again with only ``A-Z a-z 0-9 - _ . ~`` bare, sorted by name then value,
    joined ``name=value`` with ``&``. A pair without ``=`` has an empty
    value; empty pairs are skipped. Raises ValueError for a malformed
    %-escape, which has no canonical form."""
    pairs = []
    for part in raw.encode("utf-8").split(b"&"):
        if part:
            name, _, value = part.partition(b"=")
            pairs.append((_recode(name), _recode(value)))
    pairs.sort()
    return "&".join(n + "=" + v for n, v in pairs)


def signature_v2(token: str, method: str, path: str, query: str, timestamp: str, nonce: str, body: bytes = b"") -> str:
    """X-Signature of version 2: lowercase hex HMAC-SHA256, keyed with the
    token, of method, path (as sent), canonical query, timestamp, nonce and
    the lowercase hex SHA-256 of the body, one per line."""
    msg = "\n".join([method, path, canonical_query(query), timestamp, nonce, hashlib.sha256(body).hexdigest()])
    return hmac.new(token.encode("utf-8"), msg.encode("utf-8"), hashlib.sha256).hexdigest()


def _parse_versions(header: Optional[str]) -> Optional[List[int]]:
    """X-Signature-Versions (``1, 2``) as a list; None when absent or unreadable."""
    out = []
    for f in (header or "").split(","):
        try:
            out.append(int(f.strip()))
        except ValueError:
            pass
    return out or None


def parse_sse(lines: Iterable[Union[bytes, str]]) -> Iterator[Dict[str, Any]]:
    """Server-Sent Events from lines (bytes or str, with or without their line
    ends): one dict ``{"id", "event", "data"}`` per event, ``data`` parsed as
    JSON when it is JSON (else the text). Comments (``: hb``) and ``retry:``
    are skipped; an event is dispatched at its blank line, as the SSE
    specification says (an unterminated last event is dropped)."""
    ev_id: Optional[str] = None
    event = ""
    data: List[str] = []
    seen = False
    for line in lines:
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        line = line.rstrip("\r\n")
        if line == "":
            if seen and data:
                text = "\n".join(data)
                try:
                    value: Any = json.loads(text)
                except ValueError:
                    value = text
                yield {"id": ev_id, "event": event or "message", "data": value}
            event, data, seen = "", [], False
            continue
        if line.startswith(":"):
            continue
        field, _, value_s = line.partition(":")
        if value_s.startswith(" "):
            value_s = value_s[1:]
        if field == "data":
            data.append(value_s)
            seen = True
        elif field == "event":
            event = value_s
            seen = True
        elif field == "id":
            if "\0" not in value_s:
                ev_id = value_s
            seen = True


def _join(v: Union[str, Sequence[str], None]) -> Optional[str]:
    if v is None or isinstance(v, str):
        return v
    return ",".join(v)


class Client:
    """A client of one mdqs server.

    Every argument falls back to the environment ``mdqs call`` reads:
    ``MDQS_ADDR`` (host:port or URL, default ``127.0.0.1:8080``),
    ``MDQS_CLIENT_ID``, ``MDQS_CLIENT_SECRET`` and ``MDQS_API_KEY``. With no
    credentials and a loopback address it uses the demo client
    (``demo`` / ``demo-secret``).

    One token serves every call; it is renewed a minute before its
    ``expire_at`` and once when the server says it is unknown, expired or
    evicted. Requests are signed with signature version 2 (an HMAC that
    binds method, path, query and body) when the token answer lists it in
    ``signature_versions``, else with the specification's MD5 (version 1);
    ``signature_version`` forces one. 429 and 503 answers with ``Retry-After`` are retried up to
    ``max_retries`` times, waiting at most ``max_wait`` seconds each.
    Failures raise :class:`MdqsError`.

    With ``token_cache`` (the default, as for ``mdqs call``) the token is
    kept in ``<user cache dir>/mdqs/tokens/<hash>.json``, the very file
    ``mdqs call`` reads and writes for the same address and client, so
    consecutive scripts share one token instead of each asking for a new one
    (the token endpoint is rate limited, and each new token evicts the
    client's oldest once it holds 20). A string is a folder to use instead;
    ``False`` keeps the token in memory only.
    """

    def __init__(self, base_url: Optional[str] = None, client_id: Optional[str] = None,
                 client_secret: Optional[str] = None, api_key: Optional[str] = None,
                 timeout: float = 30, max_retries: int = 3, max_wait: float = 10,
                 token_cache: Union[bool, str] = True, signature_version: Optional[int] = None) -> None:
        env = os.environ
        self.base_url = _normalize_base(base_url or env.get("MDQS_ADDR") or "127.0.0.1:8080")
        client_id = client_id or env.get("MDQS_CLIENT_ID") or None
        client_secret = client_secret or env.get("MDQS_CLIENT_SECRET") or None
        if client_id is None and client_secret is None:
            host = urllib.parse.urlsplit(self.base_url).hostname or ""
            if not _is_loopback(host):
                raise MdqsError(0, "no credentials",
                                "give client_id and client_secret (or MDQS_CLIENT_ID and MDQS_CLIENT_SECRET); "
                                "the demo client is only used on a loopback address")
            client_id, client_secret = "demo", "demo-secret"
        if not client_id or not client_secret:
            raise MdqsError(0, "no credentials", "give both client_id and client_secret")
        self.client_id: str = client_id
        self._secret: str = client_secret
        self.api_key: Optional[str] = api_key if api_key is not None else (env.get("MDQS_API_KEY") or None)
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_wait = max_wait
        self._token: Optional[str] = None
        self._token_expires: float = 0.0
        #: Forces a signature version (1 or 2); None chooses (2 when the server accepts it).
        self.signature_version = signature_version
        #: The signature versions the server accepts, from its token answer
        #: (or a 401's X-Signature-Versions); None when not known: version 1.
        self.signature_versions: Optional[List[int]] = None
        self._lock = threading.Lock()
        #: How many tokens this client has obtained (one for many calls).
        self.tokens_issued = 0
        #: The token file shared with ``mdqs call`` (None when not caching).
        self.token_cache_path: Optional[str] = None
        if token_cache:
            try:
                folder = token_cache if isinstance(token_cache, str) else token_cache_dir()
                self.token_cache_path = token_cache_path(self.base_url, self.client_id, folder)
            except OSError:
                self.token_cache_path = None  # no cache folder: tokens live in memory only
        self._refused: Optional[str] = None  # a token the server refused: never load it again
        #: How many times an answer was retried after a 429/503.
        self.retries = 0

    def __repr__(self) -> str:
        return f"mdqs.Client({self.base_url!r}, client_id={self.client_id!r})"

    # ------------------------------------------------------------------ transport

    def _send(self, method: str, url: str, body: bytes, headers: Dict[str, str]) -> Tuple[int, Dict[str, str], bytes]:
        req = urllib.request.Request(url, data=body if body else None, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return r.status, dict(r.headers.items()), r.read()
        except urllib.error.HTTPError as e:
            try:
                data = e.read()
            finally:
                e.close()
            return e.code, dict(e.headers.items()), data
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise MdqsError(0, "transport error", f"{method} {url}: {reason}") from e

    @staticmethod
    def _error(status: int, headers: Mapping[str, str], raw: bytes) -> MdqsError:
        try:
            doc = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            doc = {}
        if not isinstance(doc, dict):
            doc = {}
        ra = None
        for k, v in headers.items():
            if k.lower() == "retry-after":
                try:
                    ra = float(v)
                except ValueError:
                    ra = None
        message = doc.get("message") or (raw[:200].decode("utf-8", "replace") if raw else f"HTTP {status}")
        return MdqsError(status, str(message), str(doc.get("detail") or ""), ra, doc or None)

    def _with_retries(self, method: str, url: str, body: bytes, make_headers) -> Tuple[int, Dict[str, str], bytes]:
        """Send, retrying 429/503 answers that carry Retry-After; headers are
        made afresh for every attempt (a new nonce and timestamp)."""
        attempt = 0
        while True:
            status, headers, raw = self._send(method, url, body, make_headers())
            if status in (429, 503) and attempt < self.max_retries:
                err = self._error(status, headers, raw)
                if err.retry_after is not None:
                    attempt += 1
                    self.retries += 1
                    time.sleep(max(0.0, min(err.retry_after, self.max_wait)))
                    continue
            return status, headers, raw

    # ------------------------------------------------------------------ tokens

    def _new_token(self) -> None:
        body = json.dumps({"client_id": self.client_id, "client_secret": self._secret}).encode()
        status, headers, raw = self._with_retries(
            "POST", self.base_url + "/v1/auth/token", body, lambda: {"Content-Type": "application/json"})
        if status != 200:
            raise self._error(status, headers, raw)
        data = json.loads(raw)["data"]
        self._token = data["token"]
        self.signature_versions = _versions(data.get("signature_versions"))
        try:
            self._token_expires = _parse_time(data["expire_at"])
        except (KeyError, ValueError):
            self._token_expires = time.time() + 3600
        self.tokens_issued += 1

    def _from_cache(self) -> bool:
        if self.token_cache_path is None:
            return False
        got = _load_cached_token(self.token_cache_path)
        if got is None or got[0] == self._refused or time.time() >= got[1] - 60:
            return False
        self._token, self._token_expires, self.signature_versions = got
        return True

    def _to_cache(self) -> None:
        if self.token_cache_path is None or self._token is None:
            return
        try:
            _save_cached_token(self.token_cache_path, self._token, self._token_expires, self.signature_versions)
        except OSError:
            pass  # not cached: the next process asks for a new token

    def _drop_cache(self, token: str) -> None:
        """Forget a token the server no longer takes (only if the file still holds it)."""
        self._refused = token
        if self.token_cache_path is None:
            return
        got = _load_cached_token(self.token_cache_path)
        if got is not None and got[0] == token:
            try:
                os.remove(self.token_cache_path)
            except OSError:
                pass

    def token(self, renew: bool = False) -> str:
        """The current access token: the cached one while it has more than a
        minute left, else a new one (always a new one with ``renew=True``)."""
        with self._lock:
            if renew or self._token is None or time.time() >= self._token_expires - 60:
                if renew or not self._from_cache():
                    self._new_token()
                    self._to_cache()
            assert self._token is not None
            return self._token

    @property
    def token_expires_at(self) -> float:
        """Epoch seconds at which the cached token expires (0 when none)."""
        return self._token_expires

    # ------------------------------------------------------------------ signed calls

    @property
    def version(self) -> int:
        """The signature version requests are signed with: ``signature_version``
        when set, else 2 when the server accepts it, else 1."""
        if self.signature_version:
            return self.signature_version
        return 2 if 2 in (self.signature_versions or ()) else 1

    def _switch_version(self, status: int, headers: Mapping[str, str], used: int) -> bool:
        """Learn from a 401's X-Signature-Versions; True when the request
        should be signed again with another version (the server stopped
        accepting the one used, e.g. for a token cached before)."""
        if status != 401 or self.signature_version:
            return False
        listed = _parse_versions(next((v for k, v in headers.items() if k.lower() == "x-signature-versions"), None))
        if not listed or used in listed:
            return False
        self.signature_versions = listed
        self._to_cache()
        return self.version != used

    def sign(self, token: str, body: bytes = b"", method: Optional[str] = None, target: Optional[str] = None,
             version: Optional[int] = None) -> Dict[str, str]:
        """The signature headers of one request. Version 2 (``method`` and
        ``target``, the path and query as sent, are needed): X-Signature is
        :func:`signature_v2`. Version 1, the specification's part 5 (also
        when no ``method`` and ``target`` are given): md5(token + timestamp
        + nonce + body), lowercase hex. ``version`` defaults to
        :attr:`version`."""
        ts = str(int(time.time()))
        nonce = secrets.token_hex(16)
        if version is None:
            version = self.version if method is not None and target is not None else 1
        h = {"Authorization": "Bearer " + token, "X-Timestamp": ts, "X-Nonce": nonce, "Accept": "application/json"}
        if version == 2:
            if method is None or target is None:
                raise ValueError("signature version 2 signs the method and the target: give both")
            path, _, query = target.partition("?")
            h["X-Signature-Version"] = "2"
            h["X-Signature"] = signature_v2(token, method, path, query, ts, nonce, body)
        else:
            h["X-Signature"] = hashlib.md5(token.encode() + ts.encode() + nonce.encode() + body).hexdigest()
        if body:
            h["Content-Type"] = "application/json"
        if self.api_key:
            h["api-key"] = self.api_key
        return h

    def request(self, method: str, path: str, params: Optional[Params] = None, body: Any = None,
                headers: Optional[Mapping[str, str]] = None) -> Any:
        """One signed call; returns the parsed JSON answer (the whole envelope).

        ``params`` become the query string (``None`` values are left out, lists
        joined by commas); ``body`` is JSON-encoded unless it is already
        ``bytes`` (sent as given: the bytes sent are the bytes signed).
        ``headers`` are applied after signing (tests use it to tamper)."""
        _, raw = self._call(method, path, params, body, headers)
        return json.loads(raw.decode("utf-8")) if raw else None

    def _call(self, method: str, path: str, params: Optional[Params] = None, body: Any = None,
              headers: Optional[Mapping[str, str]] = None) -> Tuple[Dict[str, str], bytes]:
        """One signed call; the answer's headers and bytes (a failure raises)."""
        query = {}
        for k, v in (params or {}).items():
            if v is None:
                continue
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif isinstance(v, (list, tuple)):
                v = ",".join(str(x) for x in v)
            query[k] = str(v)
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        target = urllib.request.Request(url).selector  # the request target urllib sends
        if body is None:
            raw_body = b""
        elif isinstance(body, (bytes, bytearray)):
            raw_body = bytes(body)
        else:
            raw_body = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

        renewed = switched = False
        while True:
            tok = self.token()
            version = self.version

            def make_headers() -> Dict[str, str]:
                try:
                    h = self.sign(tok, raw_body, method, target, version)
                except ValueError as e:
                    raise MdqsError(0, "cannot sign the request", f"{method} {target}: {e}") from None
                if headers:
                    h.update(headers)
                return h

            status, rh, raw = self._with_retries(method, url, raw_body, make_headers)
            if 200 <= status < 300:
                return rh, raw
            if not switched and self._switch_version(status, rh, version):
                switched = True
                continue
            err = self._error(status, rh, raw)
            if status == 401 and not renewed and _renewable(err.detail):
                renewed = True
                self._forget(tok)
                continue
            raise err

    def _forget(self, tok: str) -> None:
        with self._lock:
            self._drop_cache(tok)
            if self._token == tok:  # nobody renewed it meanwhile
                self._token = None

    # ------------------------------------------------------------------ the stream

    def stream(self, topics: Union[str, Sequence[str], None] = ("ranking", "movements"),
               codes: Union[str, Sequence[str], None] = None, last_event_id: Optional[str] = None,
               timeout: Optional[float] = 60) -> Iterator[Dict[str, Any]]:
        """The live stream (GET /v1/api/stream, Server-Sent Events) as a
        generator of ``{"id", "event", "data"}`` dicts, ``data`` parsed JSON.

        The first event is ``open`` (its data lists the topics and codes).
        Heartbeat comments are skipped. The generator returns when the
        server sends ``end`` (which is yielded first) or closes the
        connection; ``close()`` it (or leave a ``for`` loop) to hang up.
        ``topics`` are ranking, movements, quotes and alerts (quotes needs
        ``codes``; ``None`` is the server's default); ``last_event_id``
        resumes after an event's ``id``. ``timeout`` is the longest wait for
        a line (heartbeats come every 15 s) and raises MdqsError when
        exceeded; ``None`` waits for ever."""
        query = {}
        for k, v in (("topics", _join(topics)), ("codes", _join(codes)), ("last_event_id", last_event_id)):
            if v:
                query[k] = v
        url = self.base_url + "/v1/api/stream" + ("?" + urllib.parse.urlencode(query) if query else "")
        target = urllib.request.Request(url).selector
        renewed = switched = False
        while True:
            tok = self.token()
            version = self.version
            h = self.sign(tok, b"", "GET", target, version)
            h["Accept"] = "text/event-stream"
            req = urllib.request.Request(url, method="GET", headers=h)
            try:
                resp = urllib.request.urlopen(req, timeout=timeout)
                break
            except urllib.error.HTTPError as e:
                try:
                    raw = e.read()
                finally:
                    e.close()
                if not switched and self._switch_version(e.code, dict(e.headers.items()), version):
                    switched = True
                    continue
                err = self._error(e.code, dict(e.headers.items()), raw)
                if e.code == 401 and not renewed and _renewable(err.detail):
                    renewed = True
                    self._forget(tok)
                    continue
                raise err from None
            except (urllib.error.URLError, OSError) as e:
                raise MdqsError(0, "transport error", f"GET {url}: {getattr(e, 'reason', e)}") from e

        def lines() -> Iterator[bytes]:
            while True:
                try:
                    line = resp.readline()
                except (socket.timeout, TimeoutError) as e:
                    raise MdqsError(0, "stream timed out", f"no line from {url} in {timeout}s") from e
                except OSError as e:
                    raise MdqsError(0, "transport error", f"GET {url}: {e}") from e
                if not line:
                    return
                yield line

        try:
            for ev in parse_sse(lines()):
                yield ev
                if ev["event"] == "end":
                    return
        finally:
            resp.close()

    def get(self, path: str, **params: Any) -> Any:
        """GET ``path`` and return the envelope's ``data``."""
        return self.request("GET", path, params)["data"]

    def post(self, path: str, body: Any = None) -> Any:
        """POST a JSON body to ``path`` and return the envelope's ``data``."""
        return self.request("POST", path, None, body)["data"]

    # ------------------------------------------------------------------ CSV

    def csv(self, path: str, bom: bool = False, **params: Any) -> Tuple[bytes, Dict[str, str]]:
        """GET ``path`` as CSV (``format=csv``; every endpoint that answers a
        list answers it so): the answer's bytes, UTF-8, a header row of the
        rows' JSON field names, then the rows as the JSON has them; and its
        provenance, the ``X-Mdqs-*`` headers by field name (``source``,
        ``as_of``, ``total``, ``page_size`` ...; the server's %-escapes
        undone). ``bom=True`` is the form for Excel on Windows: a UTF-8 byte
        order mark, text cells that start with = + - @ defused. A failure
        raises MdqsError as every call does (it is the JSON envelope)."""
        params = dict(params, format="csv")
        if bom:
            params["bom"] = "1"
        headers, raw = self._call("GET", path, params)
        meta = {}
        for k, v in headers.items():
            if k.lower().startswith("x-mdqs-") and k.lower() != "x-mdqs-instance":
                meta[k[len("x-mdqs-"):].lower().replace("-", "_")] = urllib.parse.unquote(v)
        return raw, meta

    def save_csv(self, file: Any, path: str, bom: bool = False, **params: Any) -> Dict[str, str]:
        """Write ``path``'s rows as CSV to ``file`` (a file name, or a binary
        file object) and return their provenance (see ``csv``): a file
        Excel, DuckDB or pandas.read_csv opens. Written whole once the answer
        is in: a failure leaves no file."""
        raw, meta = self.csv(path, bom=bom, **params)
        if hasattr(file, "write"):
            file.write(raw)
        else:
            with open(file, "wb") as f:
                f.write(raw)
        return meta

    def csv_frame(self, path: str, **params: Any) -> Any:
        """``path``'s rows as CSV read by pandas: a DataFrame whose columns are
        the JSON's field names, with the provenance in ``attrs``. (Parquet
        would need pyarrow or fastparquet, which Debian does not package:
        write Parquet with ``mdqs export``, or ``to_parquet`` where pyarrow is
        installed.)"""
        import io
        pd = self._pandas()
        raw, meta = self.csv(path, **params)
        df = pd.read_csv(io.BytesIO(raw), dtype={"code": str, "stock_code": str, "board_code": str, "leader_code": str})
        df.attrs.update(meta)
        return df

    # ------------------------------------------------------------------ frames

    @staticmethod
    def _pandas():
        try:
            import pandas  # type: ignore
        except ImportError as e:  # pragma: no cover - depends on the machine
            raise MdqsError(0, "pandas is not installed", "pip install 'mdqs[pandas]' for as_frame=True") from e
        return pandas

    @classmethod
    def to_frame(cls, rows: Iterable[Mapping[str, Any]], time_index: bool = False) -> Any:
        """Rows (dicts) as a pandas DataFrame: numbers as float64, counts and
        volumes as nullable Int64, and with ``time_index`` a DatetimeIndex in
        Asia/Shanghai from ``ts`` (epoch seconds) named ``time``."""
        pd = cls._pandas()
        rows = list(rows)
        df = pd.DataFrame.from_records(rows) if rows else pd.DataFrame()
        for col in list(df.columns):
            s = df[col]
            vals = [v for v in s.tolist() if v is not None and not (isinstance(v, float) and v != v)]
            if not vals or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
                continue
            if col in _INT_COLUMNS and all(isinstance(v, int) or float(v).is_integer() for v in vals):
                df[col] = pd.array([None if v is None or (isinstance(v, float) and v != v) else int(v)
                                    for v in s.tolist()], dtype="Int64")
            elif col != "ts":
                df[col] = pd.to_numeric(s, errors="coerce").astype("float64")
        if time_index and "ts" in df.columns:
            idx = pd.to_datetime(df["ts"].astype("int64"), unit="s", utc=True).dt.tz_convert("Asia/Shanghai")
            df = df.drop(columns=["ts"])
            df.index = pd.DatetimeIndex(idx, name="time")
            if "time" in df.columns:
                df = df.drop(columns=["time"])
            df = df.sort_index()
        return df

    def _rows(self, data: Any, key: str, as_frame: bool, time_index: bool = False) -> Any:
        if not as_frame:
            return data
        rows = (data.get(key) or []) if isinstance(data, dict) else (data or [])
        df = self.to_frame(rows, time_index=time_index)
        if isinstance(data, dict):
            df.attrs.update({k: v for k, v in data.items() if k != key})
        return df

    # ------------------------------------------------------------------ diagnostics

    def whoami(self) -> Dict[str, Any]:
        """The token's client, scopes and expiry (checks your signing)."""
        return self.get("/v1/api/whoami")

    def health_sources(self) -> Dict[str, Any]:
        """Each upstream's state, the jobs and calendar coverage (public)."""
        return self.get("/v1/api/health/sources")

    # ------------------------------------------------------------------ sectors

    def top50(self, day: Optional[str] = None, top: Optional[int] = None, refresh: Optional[bool] = None,
              as_frame: bool = False) -> Any:
        """The sector ranking (GET /v1/api/boards/top50; ``day`` YYYYMMDD).
        A dict with industry, concept, *_out, sectors, sectors_out lists; with
        ``as_frame`` one DataFrame of every list with a ``list`` column."""
        doc = self.request("GET", "/v1/api/boards/top50", {"day": day, "top": top, "refresh": refresh})
        if not as_frame:
            return doc
        rows = []
        for name in ("sectors", "sectors_out", "industry", "industry_out", "concept", "concept_out"):
            for r in doc.get(name) or []:
                rows.append(dict(r, list=name))
        df = self.to_frame(rows)
        df.attrs.update({k: doc.get(k) for k in ("ts", "day", "source", "updated_ms")})
        return df

    def boards(self, kind: str = "industry", as_frame: bool = False, **filters: Any) -> Any:
        """The latest snapshot of a family, ``kind`` industry or concept
        (filters: source, top, sort, order, min_amount, min_turnover,
        min_main_net, excode, code/board_code, name/board_name)."""
        if kind not in ("industry", "concept"):
            raise ValueError("kind is industry or concept")
        return self._rows(self.get("/v1/api/boards/" + kind, **filters), "", as_frame)

    def movements(self, type: Optional[str] = None, as_frame: bool = False, **filters: Any) -> Any:
        """A family's rows plus the market turnover analysis: a dict
        ``{"rows": [...], "analysis": {...}}`` (a frame with
        ``attrs["analysis"]`` with ``as_frame``). Filters as :meth:`boards`."""
        doc = self.request("GET", "/v1/api/market/movements", dict(filters, type=type))
        out = {"rows": doc.get("data") or [], "analysis": doc.get("analysis")}
        if not as_frame:
            return out
        df = self.to_frame(out["rows"])
        df.attrs["analysis"] = out["analysis"]
        return df

    def movement_events(self, since: Union[str, int, None] = None, type: Optional[str] = None,
                        day: Optional[str] = None, as_frame: bool = False, **filters: Any) -> Any:
        """The movement timeline of a day (today unless ``day`` YYYYMMDD):
        ``data`` with ``day``, ``items`` oldest first and ``next_since``;
        pass ``since=data["next_since"]`` to pull only what came after."""
        data = self.get("/v1/api/market/movements/events", since=since, type=type, day=day, **filters)
        return self._rows(data, "items", as_frame)

    def market_stats(self, start: Optional[str] = None, end: Optional[str] = None, top: Optional[int] = None) -> Any:
        """Top sector names per trading day (GET /v1/api/market/stats/range)."""
        return self.get("/v1/api/market/stats/range", start=start, end=end, top=top)

    def auction_today(self) -> Any:
        """The auction view built on the ranking."""
        return self.get("/v1/api/strategy/auction/today")

    # ------------------------------------------------------------------ K-lines

    def kline(self, code: str, freq: str, start: str, end: str, fields: Union[str, Sequence[str], None] = None,
              indicators: Union[str, Sequence[str], None] = None, adj: Optional[str] = None,
              source: Optional[str] = None, as_frame: bool = False) -> Any:
        """Bars of ``code`` (freq D, 1m or 5m) between ``start`` and ``end``:
        the data dict (``rows`` oldest first, count, final_through, ...), or a
        DataFrame indexed by time in Asia/Shanghai."""
        data = self.get("/v1/api/kline", code=code, freq=freq, start=start, end=end, fields=_join(fields),
                        indicators=_join(indicators), adj=adj, source=source)
        return self._rows(data, "rows", as_frame, time_index=True)

    def kline_adjusted(self, code: str, freq: str, start: str, end: str, mode: str = "qfq",
                       anchor: Optional[str] = None, fields: Union[str, Sequence[str], None] = None,
                       indicators: Union[str, Sequence[str], None] = None, as_frame: bool = False) -> Any:
        """前复权 (``mode="qfq"``) or 后复权 (``"hfq"``) bars."""
        data = self.get("/v1/api/kline/adjusted", code=code, freq=freq, mode=mode, anchor=anchor, start=start,
                        end=end, fields=_join(fields), indicators=_join(indicators))
        return self._rows(data, "rows", as_frame, time_index=True)

    def kline_with_realtime(self, code: str, freq: str, page_size: int = 100,
                            max_pages: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        """Every bar of ``code``, newest first, today's provisional bars
        included: an iterator that asks for page after page until
        ``has_more`` is false (or ``max_pages`` pages)."""
        page = 1
        while True:
            data = self.get("/v1/api/kline/with_realtime", code=code, freq=freq, page=page, page_size=page_size)
            rows = data.get("rows") or []
            for r in rows:
                yield r
            if not data.get("has_more") or not rows or (max_pages is not None and page >= max_pages):
                return
            page += 1

    def kline_with_realtime_df(self, code: str, freq: str, page_size: int = 500,
                               max_pages: Optional[int] = None) -> Any:
        """:meth:`kline_with_realtime` collected into one DataFrame, oldest first."""
        return self.to_frame(self.kline_with_realtime(code, freq, page_size, max_pages), time_index=True)

    def intraday_kline(self, code: str, freq: str = "1m", as_frame: bool = False) -> Any:
        """Today's intraday bars (GET /v1/api/intraday/kline)."""
        return self._rows(self.get("/v1/api/intraday/kline", code=code, freq=freq), "rows", as_frame, True)

    def corporate_actions(self, code: str, start: Optional[str] = None, end: Optional[str] = None,
                          as_frame: bool = False) -> Any:
        """The corporate actions (除权除息, share changes) behind adjusted bars."""
        return self._rows(self.get("/v1/api/corporate_actions", code=code, start=start, end=end), "items", as_frame)

    def securities(self, date: Optional[str] = None, type: Optional[str] = None, board: Optional[str] = None,
                   st: Optional[bool] = None, as_frame: bool = False) -> Any:
        """The universe as it was on ``date`` (default: the last recorded day):
        codes delisted since included, each with its name, ST status,
        suspension and total and float shares of that day (null without a
        share record by then). ``data`` with ``items`` (a frame of them with
        ``as_frame``, the rest in ``attrs``)."""
        flag = None if st is None else ("true" if st else "false")
        data = self.get("/v1/api/securities", date=date, type=type, board=board, st=flag)
        return self._rows(data, "items", as_frame)

    def archive_status(self, as_frame: bool = False) -> Any:
        """What the minute archive holds (``docs/archive.md``): per day the
        codes ``archived``, ``flagged`` and missing (``gaps``), the bars and
        the ``derived_opens``; the days ``due`` and ``pending``; ``bars``,
        ``store_bytes`` and ``bytes_per_bar``. ``data`` (a frame of
        ``days`` with ``as_frame``, the rest in ``attrs``)."""
        return self._rows(self.get("/v1/api/archive/status"), "days", as_frame)

    def quality(self, date: Optional[str] = None, as_frame: bool = False) -> Any:
        """One day's measured data quality (default: the last complete
        trading day): the universe and what the archive did with it
        (``archived``, ``flagged``, ``gaps``, ``missing``), and per field
        how often a code's minutes and its daily bar, from two sources,
        disagree (``fields``, each with ``rate`` and its ``worst`` cases);
        the pairs read from the terminal's files are in ``comparisons``
        (see ``quality_comparisons``). ``data`` (a frame of ``fields`` with
        ``as_frame``, the rest in ``attrs``)."""
        return self._rows(self.get("/v1/api/quality", date=date), "fields", as_frame)

    def quality_comparisons(self, date: Optional[str] = None, as_frame: bool = False) -> Any:
        """The pairs of ``quality(date)`` read from the terminal's files,
        when the server has a terminal folder: ``terminal_day`` (its .day
        bar against the store's daily bar) and ``terminal_minutes`` (its
        .lc1 minutes against the archive's, minute by minute). A list of
        comparisons, each naming its sides ``a`` and ``b`` with their
        ``sources`` and per-field ``fields`` like ``quality``'s; empty
        without a terminal (``terminal_error`` in ``quality`` says why a
        configured one could not be read). With ``as_frame``, one row per
        comparison and field (``comparison``, ``a``, ``b``, then the field's
        columns), the rest of the answer in ``attrs``."""
        data = self.get("/v1/api/quality", date=date)
        pairs = data.get("comparisons") or []
        if not as_frame:
            return pairs
        rows = [{"comparison": c["name"], "a": c["a"], "b": c["b"], **f} for c in pairs for f in c["fields"]]
        df = self.to_frame(rows)
        df.attrs.update({k: v for k, v in data.items() if k != "comparisons"})
        df.attrs["comparisons"] = [{k: v for k, v in c.items() if k != "fields"} for c in pairs]
        return df

    def bars_daily(self, date: str, codes: Optional[Sequence[str]] = None, type: Optional[str] = None,
                   as_frame: bool = False, page_size: int = 10000) -> Any:
        """Every security listed on ``date`` with its daily bar of that day,
        as Tushare's ``daily(trade_date=)``: codes delisted since included,
        each under its name of that day; null prices where it did not trade.
        All pages are read and joined. A list of items (a frame with
        ``as_frame``, the rest of the answer in ``attrs``)."""
        return self._cross_section("/v1/api/bars/daily", as_frame, page_size, date=date, codes=codes, type=type)

    def bars_minute(self, date: str, time: str, codes: Optional[Sequence[str]] = None, type: Optional[str] = None,
                    as_frame: bool = False, page_size: int = 10000) -> Any:
        """Every security listed on ``date`` with its 1-minute bar ending at
        ``time`` (``HH:MM``: 09:31 to 11:30 or 13:01 to 15:00; the 09:31 bar
        holds the 09:25 auction), from the server's minute store: codes
        delisted since included, null prices where no bar is stored;
        ``prev_close`` is the minute before's close. All pages are read and
        joined. A list of items (a frame with ``as_frame``, the rest of the
        answer in ``attrs``)."""
        return self._cross_section("/v1/api/bars/minute", as_frame, page_size, date=date, time=time, codes=codes, type=type)

    def _cross_section(self, path: str, as_frame: bool, page_size: int, codes: Optional[Sequence[str]] = None,
                       **params: Any) -> Any:
        joined = ",".join(codes) if codes else None
        items: List[Any] = []
        page = 1
        while True:
            data = self.get(path, codes=joined, page=page, page_size=page_size, **params)
            items.extend(data["items"])
            if len(items) >= data["total"] or not data["items"]:
                break
            page += 1
        data = dict(data, items=items, page=1, page_size=len(items))
        return self._rows(data, "items", as_frame)

    def security_history(self, code: str, as_frame: bool = False) -> Any:
        """One code's timeline: its listed spans, names (曾用名), ST spells and
        suspensions with their days, and its share-count records (``shares``).
        ``data`` with ``spans`` (a frame of them with ``as_frame``, the
        shares in ``attrs``)."""
        return self._rows(self.get("/v1/api/securities/history", code=code), "spans", as_frame)

    def index_members(self, code: str, date: Optional[str] = None, as_frame: bool = False) -> Any:
        """An index's members on ``date`` (default: its latest observed day),
        from mdqs's recorded history of the index's member list
        (``docs/index-members.md``): ``code``, ``name`` and ``since`` (the
        first observation of the member's current span). ``as_of`` is the
        observation the list rests on (the latest on or before ``date``),
        ``note`` says so in words; ``weights`` is None (no source gives
        them, ``weights_note``). ``code`` is ``000300.SH``, ``000300`` or the
        block name ``沪深300``. ``data`` (a frame of ``members`` with
        ``as_frame``, the rest in ``attrs``); a day before the history is a
        404 MdqsError naming the day it starts."""
        return self._rows(self.get("/v1/api/index/members", code=code, date=date), "members", as_frame)

    def index_changes(self, code: str, start: Optional[str] = None, end: Optional[str] = None,
                      as_frame: bool = False) -> Any:
        """An index's ins and outs between its observations, oldest first:
        ``date`` (the first observation showing the change), ``change``
        (``in``/``out``), ``code``, ``name``, ``after`` (the observation
        before it) and ``file``. ``data`` (a frame of ``changes`` with
        ``as_frame``, with these columns even when there are none; the rest
        in ``attrs``)."""
        data = self.get("/v1/api/index/changes", code=code, start=start, end=end)
        df = self._rows(data, "changes", as_frame)
        if as_frame and len(df.columns) == 0:
            for col in ("date", "change", "code", "name", "after", "file", "observed"):
                df[col] = []
        return df

    def security_names(self, code: str, as_frame: bool = False) -> Any:
        """Every name ``code`` is known to have had (曾用名 included), oldest
        first, from its history: ``name``, ``from``, ``to`` and ``source``
        (``quotes``, or ``demo``, is the daily record; ``szse`` SZSE's list of
        short-name changes, which reaches back before the record). ``from``
        is None where no source says since when, ``to`` while the name is
        current. A list of dicts, or a frame of them with ``as_frame``."""
        names = self.get("/v1/api/securities/history", code=code).get("names") or []
        return self.to_frame(names) if as_frame else names

    def macd_bs(self, code: str, freq: str = "D", start: Optional[str] = None, end: Optional[str] = None,
                limit: Optional[int] = None) -> Any:
        """MACD buy/sell/add marks (GET /v1/api/indicators/macd_bs)."""
        return self.get("/v1/api/indicators/macd_bs", code=code, freq=freq, start=start, end=end, limit=limit)

    def micro_momentum(self, code: str, freq: str = "D") -> Any:
        """micro_vol_ratio, vol_acc, time_adjusted_vol_ratio, price_speed_ratio."""
        return self.get("/v1/api/indicators/micro_momentum", code=code, freq=freq)

    def chip_metrics(self, **params: Any) -> Any:
        """The chip-metric snapshot (window_days, market, code, day, sort,
        order, page, page_size)."""
        return self.get("/v1/api/monitor/chip_metrics", **params)

    # ------------------------------------------------------------------ quotes, rank, news, reports

    def quotes(self, codes: Union[str, Sequence[str]], as_frame: bool = False) -> Any:
        """Current quotes of up to 100 codes: a list of quote dicts."""
        data = self.get("/v1/api/quotes", codes=_join(codes))
        quotes = data.get("quotes") or []
        return self.to_frame(quotes) if as_frame else quotes

    def etfs(self, category: Optional[str] = None, sort: Optional[str] = None, order: Optional[str] = None,
             limit: Optional[int] = None, as_frame: bool = True) -> Any:
        """The ETF list (``docs/etfs.md``): a frame of the funds, one row each
        with ``code``, ``name``, ``category``, ``last``, ``iopv``,
        ``premium_pct`` (mdqs's (last - iopv) / iopv x 100), ``discount_pct``
        (the source's own rate, as sent), ``volume`` (shares), ``amount``,
        ``turnover_rate``, ``market_value``, ``shares`` and ``data_date``;
        unknown figures are NaN/<NA>, never 0. ``attrs`` hold ``source``,
        ``as_of``, ``data_date``, ``stale``, ``partial``, ``total``.
        ``category`` is a_share, money, cross_border, gold, commodity or
        other; ``sort`` a figure (premium, amount, ...) or code; ``order``
        asc or desc. ``as_frame=False`` gives the answer's data."""
        data = self.get("/v1/api/etfs", category=category, sort=sort, order=order, limit=limit)
        return self._rows(data, "etfs", as_frame)

    def limit_pool(self, kind: str = "up", date: Optional[str] = None, as_frame: bool = False) -> Any:
        """A day's limit pool (``docs/limit-pools.md``), derived by mdqs for
        every stock of the day's universe: ``kind`` is ``up`` (sealed at the
        limit-up at the close), ``broken`` (炸板: touched, not sealed),
        ``down``, ``yesterday`` (sealed the day before) or ``strong``
        (强势股池: a 60-day high or two limit-ups within the 涨停统计 window,
        with ``new_high``, ``prev_high_60`` and ``reason`` 1/2/3). Rows carry
        ``code``, ``name``, ``close``, ``limit_price``, ``first_seal``,
        ``last_seal``, ``opened_times`` (None where the day's minutes are
        not held), ``seal_fund`` (封单资金, where the published pool gives
        it), ``boards`` (连板) and ``count_up``/``count_days``
        (涨停统计). ``date`` defaults to the latest day; today's pool is
        provisional until the close (``final``). ``data`` (a frame of
        ``items`` with ``as_frame``, the rest in ``attrs``)."""
        return self._rows(self.get("/v1/api/limit_pool", kind=kind, date=date), "items", as_frame)

    def limit_ladder(self, date: Optional[str] = None, as_frame: bool = False) -> Any:
        """A day's 连板 ladder: ``levels``, highest first, each with
        ``boards``, ``count``, its stocks (``items``) and the promotion
        from the day before (``yesterday``, ``promoted``,
        ``promotion_rate``, a fraction). With ``as_frame`` a frame of one
        row per stock with its level's ``boards`` and ``promotion_rate``,
        the answer's other fields in ``attrs``."""
        data = self.get("/v1/api/limit_ladder", date=date)
        if not as_frame:
            return data
        rows = []
        for level in data.get("levels") or []:
            for it in level.get("items") or []:
                rows.append(dict(it, level=level.get("boards"), promotion_rate=level.get("promotion_rate")))
        df = self.to_frame(rows)
        df.attrs.update({k: v for k, v in data.items() if k != "levels"})
        return df

    def hot_rank(self, date: Optional[str] = None, page: Optional[int] = None, size: Optional[int] = None,
                 stock_code: Union[str, Sequence[str], None] = None, start_date: Optional[str] = None,
                 end_date: Optional[str] = None, as_frame: bool = False) -> Any:
        """The popularity rank: data with ``items`` (a frame of them with ``as_frame``)."""
        data = self.get("/v1/api/hot_rank", date=date, page=page, size=size, stock_code=_join(stock_code),
                        start_date=start_date, end_date=end_date)
        return self._rows(data, "items", as_frame)

    def hot_rank_detail(self, stock_code: str, start_date: Optional[str] = None, end_date: Optional[str] = None) -> Any:
        """One code's rank history."""
        return self.get("/v1/api/hot_rank/detail", stock_code=stock_code, start_date=start_date, end_date=end_date)

    def hot_rank_list(self, top: Optional[int] = None, date: Optional[str] = None) -> Any:
        """The day's top of the hot rank."""
        return self.get("/v1/api/hot_rank_list", top=top, date=date)

    def news(self, page: Optional[int] = None, page_size: Optional[int] = None, type: Optional[int] = None,
             date: Optional[str] = None, q: Optional[str] = None, stock_code: Optional[str] = None,
             as_frame: bool = False) -> Any:
        """The news list (``q`` full-text search); data with ``items``."""
        data = self.get("/v1/api/news/list", page=page, page_size=page_size, type=type, date=date, q=q,
                        stock_code=stock_code)
        return self._rows(data, "items", as_frame)

    def news_view(self, id: int) -> Any:
        """One news item with its full text."""
        return self.get("/v1/api/news/view", id=id)

    def financial_reports(self, stock_code: Optional[str] = None, period: Optional[str] = None,
                          start_period: Optional[str] = None, end_period: Optional[str] = None,
                          page: Optional[int] = None, page_size: Optional[int] = None,
                          as_frame: bool = False) -> Any:
        """Reports per code and period (e.g. ``2026Q3``); data with ``items``."""
        data = self.get("/v1/api/financial-reports", stock_code=stock_code, period=period,
                        start_period=start_period, end_period=end_period, page=page, page_size=page_size)
        return self._rows(data, "items", as_frame)

    # ------------------------------------------------------------------ the dragon-tiger list (龙虎榜)

    def lhb(self, date: Optional[str] = None, code: Optional[str] = None, start: Optional[str] = None,
            end: Optional[str] = None, seats: bool = False, as_frame: bool = False) -> Any:
        """The dragon-tiger list: ``date`` gives one day's listed stocks
        (``seats=True`` adds each stock's buying and selling seats), ``code``
        with ``start``/``end`` one stock's listings with seats over a range.
        Data with ``items`` (one per stock-day, each with its ``reasons``);
        with ``as_frame`` a frame of one row per stock-day and reason
        (amounts in yuan, ``*_pct`` in percent), the answer's other fields
        (status, source, imported_at or the range's coverage) in ``attrs``.
        A day not imported raises MdqsError 404 saying why; a day without a
        list has ``status`` ``no_list``."""
        data = self.get("/v1/api/lhb", date=date, code=code, start=start, end=end, seats="1" if seats else None)
        if not as_frame:
            return data
        rows = []
        for it in data.get("items") or []:
            base = {k: v for k, v in it.items() if k not in ("reasons", "buy_seats", "sell_seats")}
            for r in it.get("reasons") or []:
                rows.append(dict(base, **{("billboard_" + k if k in ("buy", "sell", "net", "deal") else k): v
                                          for k, v in r.items()}))
        df = self.to_frame(rows)
        df.attrs.update({k: v for k, v in data.items() if k != "items"})
        return df

    def lhb_stock_seats(self, code: str, start: Optional[str] = None, end: Optional[str] = None,
                        as_frame: bool = False) -> Any:
        """One stock's seats over ``start``..``end``: a list of seat dicts
        (or a frame), one per stock-day, side (``buy`` or ``sell``) and seat,
        with ``date``, ``code``, ``side`` and the seat's ``rank``, amounts
        and ``reasons`` (a seat repeated per listing reason is one row)."""
        data = self.get("/v1/api/lhb", code=code, start=start, end=end)
        rows = []
        for it in data.get("items") or []:
            for side in ("buy", "sell"):
                for st in it.get(side + "_seats") or []:
                    rows.append(dict(st, date=it["date"], code=it["code"], name=it["name"], side=side))
        if not as_frame:
            return rows
        df = self.to_frame(rows)
        df.attrs.update({k: v for k, v in data.items() if k != "items"})
        return df

    def lhb_seat(self, name: str, start: Optional[str] = None, end: Optional[str] = None,
                 page: Optional[int] = None, page_size: Optional[int] = None, as_frame: bool = False) -> Any:
        """A seat's activity: every stock-day a seat whose name contains
        ``name`` (拉萨, 机构专用) was among the top buyers or sellers; data
        with ``items`` and ``totals`` (a frame of the items with
        ``as_frame``, totals and coverage in ``attrs``)."""
        data = self.get("/v1/api/lhb/seats", name=name, start=start, end=end, page=page, page_size=page_size)
        return self._rows(data, "items", as_frame)

    # ------------------------------------------------------------------ screens and alerts

    def screener_fields(self) -> Any:
        """The fields a screen expression may use."""
        return self.get("/v1/api/screener/fields")

    def screen(self, expression: str, universe: Optional[Mapping[str, Any]] = None, sort: Optional[str] = None,
               limit: Optional[int] = None, timeout: float = 60, poll_interval: float = 0.2,
               as_frame: bool = False, page_size: int = 500) -> Any:
        """Submit a screen, wait for it and return every matching item (a
        list of dicts, or a DataFrame). ``universe`` is e.g.
        ``{"market": "SH"}``, ``{"block": "半导体"}`` or ``{"codes": [...]}``,
        with ``"date": "2026-04-21"`` to screen that past day's close over
        the stocks listed then (delisted ones included); ``sort`` a field, ``-`` for descending. A screen that fails raises
        MdqsError; one still running after ``timeout`` seconds is canceled.
        The result is read ``page_size`` items a page (at most 500)."""
        body: Dict[str, Any] = {"expression": expression}
        if universe:
            body["universe"] = dict(universe)
        if sort:
            body["sort"] = sort
        if limit is not None:
            body["limit"] = limit
        job = self.post("/v1/api/screener/queue/submit", body)
        jid = job["id"]
        deadline = time.monotonic() + timeout
        # A screen over the demo or a small universe is done in tens of
        # milliseconds: start polling at 10 ms and double up to poll_interval,
        # so a quick screen is not kept waiting and a slow one is not hammered.
        wait = min(poll_interval, 0.01)
        while job.get("state") in ("queued", "running"):
            if time.monotonic() > deadline:
                try:
                    self.post("/v1/api/screener/queue/cancel", {"id": jid})
                finally:
                    raise MdqsError(0, "screen timed out", f"screen {jid} still {job.get('state')} after {timeout}s")
            time.sleep(wait)
            wait = min(wait * 2, max(poll_interval, 0.01), 1.0)
            job = self.get("/v1/api/screener/queue/status", id=jid)
        if job.get("state") != "succeeded":
            raise MdqsError(0, "screen " + str(job.get("state")), job.get("error") or "")
        items: List[Dict[str, Any]] = []
        page = 1
        while True:
            res = self.get("/v1/api/screener/queue/result", id=jid, page=page, page_size=page_size)
            got = res.get("items") or []
            items.extend(got)
            if not got or len(items) >= int(res.get("total") or 0):
                break
            page += 1
        return self.to_frame(items) if as_frame else items

    def create_alert(self, expression: str, universe: Optional[Mapping[str, Any]] = None,
                     cooldown: Optional[str] = None, name: Optional[str] = None,
                     webhook: Optional[Mapping[str, Any]] = None) -> Any:
        """A standing screen that fires events (cooldown e.g. ``"15m"``).

        ``webhook`` also sends each firing to a chat robot or receiver:
        ``{"url": ..., "format": "generic" | "dingtalk" | "wecom" | "feishu",
        "secret": ...}`` (docs/screens-and-alerts.md#webhooks).
        """
        body: Dict[str, Any] = {"expression": expression}
        if universe:
            body["universe"] = dict(universe)
        if cooldown:
            body["cooldown"] = cooldown
        if name:
            body["name"] = name
        if webhook:
            body["webhook"] = dict(webhook)
        return self.post("/v1/api/alerts", body)

    def alert_deliveries(self, id: str, limit: Optional[int] = None) -> Any:
        """An alert's webhook messages, newest first, each with its tries."""
        return self.get("/v1/api/alerts/deliveries", id=id, limit=limit)

    def test_webhook(self, id: str) -> Any:
        """Send a sample message to an alert's webhook now; data ``ok`` says
        whether the receiver took it, ``message`` what it said."""
        return self.post("/v1/api/alerts/webhook_test", {"id": id})

    def alerts(self, id: Optional[str] = None) -> Any:
        """The client's alerts (or one with ``id``)."""
        return self.get("/v1/api/alerts", id=id)

    def delete_alert(self, id: str) -> Any:
        """Delete an alert."""
        return self.request("DELETE", "/v1/api/alerts", {"id": id}).get("data")

    def alert_events(self, since: Optional[int] = None, limit: Optional[int] = None) -> Any:
        """Alert events after ``since`` (data ``next_since`` continues)."""
        return self.get("/v1/api/alerts/events", since=since, limit=limit)

    # ------------------------------------------------------------------ the terminal bridge

    def stocks(self, market: Optional[str] = None, type: Optional[str] = None, keyword: Optional[str] = None,
               page: Optional[int] = None, page_size: Optional[int] = None) -> Any:
        """The terminal's securities (GET /v1/api/meta/stocks)."""
        return self.get("/v1/api/meta/stocks", market=market, type=type, keyword=keyword, page=page,
                        page_size=page_size)

    def blocks(self, kind: Optional[str] = None, keyword: Optional[str] = None) -> Any:
        """The terminal's blocks."""
        return self.get("/v1/api/blocks", kind=kind, keyword=keyword)

    def block_members(self, block: str, kind: Optional[str] = None) -> Any:
        """The codes of one block."""
        return self.get("/v1/api/block/members", block=block, kind=kind)

    def minutes(self, code: str, freq: Optional[str] = None, day: Optional[str] = None,
                start: Optional[str] = None, end: Optional[str] = None) -> Any:
        """Minute bars from the terminal (GET /v1/api/minutes)."""
        return self.get("/v1/api/minutes", code=code, freq=freq, day=day, start=start, end=end)
