#!/usr/bin/env python3
"""Writes signature-v2-vectors.json. Written by hand, independent of the three
signers: every canonical query below is typed in (worked out by hand from the
rule in docs/security.md), and each signature is python3's hmac/hashlib over
the string to sign assembled here. Run from the repository root:
python3 testdata/signature-v2-vectors.py > testdata/signature-v2-vectors.json"""
import hashlib
import hmac
import json

TOKEN = "0123456789abcdef" * 4
TS = "1795399200"
NONCE = "3f2a9c0e7b1d4a6f8e0c2b4d6f8a0c1e"

# (what it shows, raw query as sent, canonical query typed by hand)
QUERIES = [
    ("no query", "", ""),
    ("pairs sorted by name", "b=2&a=1", "a=1&b=2"),
    ("a repeated name sorted by value, byte-wise", "a=2&a=1&a=10", "a=1&a=10&a=2"),
    ("empty value, and a name without '='", "a=&b", "a=&b="),
    ("empty pairs are skipped", "a=1&&b=2&", "a=1&b=2"),
    ("'+' is a space", "q=a+b", "q=a%20b"),
    ("%20 is a space too", "q=a%20b", "q=a%20b"),
    ("%2B is a plus", "q=a%2Bb", "q=a%2Bb"),
    ("UTF-8 escaped", "name=%E4%B8%AD", "name=%E4%B8%AD"),
    ("lower-case hex in, upper-case out", "name=%e4%b8%ad", "name=%E4%B8%AD"),
    ("raw UTF-8 as sent", "name=\u4e2d", "name=%E4%B8%AD"),
    ("reserved characters are escaped, ~ is not", "path=/a/b&star=*&tilde=~&t2=%7E",
     "path=%2Fa%2Fb&star=%2A&t2=~&tilde=~"),
    ("unreserved characters stay bare", "k=AZaz09-_.~", "k=AZaz09-_.~"),
    ("an escaped unreserved character is decoded", "%41=%61", "A=a"),
    ("an empty name sorts first", "a=1&=v", "=v&a=1"),
    ("'=' in a value", "a=b=c", "a=b%3Dc"),
    ("';' is an ordinary character", "a=1;b=2", "a=1%3Bb%3D2"),
    ("sorted by the escaped form: %C3%A9 before ~", "~=2&%C3%A9=1", "%C3%A9=1&~=2"),
    ("sorted by name, then value (not by name=value)", "a.=3&a-=2&a=1", "a=1&a-=2&a.=3"),
    ("a list of codes", "codes=600519.SH,000001.SZ&fields=price", "codes=600519.SH%2C000001.SZ&fields=price"),
    ("bytes that are not UTF-8, and NUL", "%FF=%00", "%FF=%00"),
    ("an escaped percent", "q=100%25", "q=100%25"),
    ("same name and value twice", "x=1&x=1", "x=1&x=1"),
    ("'?' in a query", "q=what?", "q=what%3F"),
]

# Malformed %-escapes: no canonical form; the server answers 401.
MALFORMED = [
    ("a lone % at the end", "q=100%"),
    ("% followed by non-hex", "q=%zz"),
    ("one hex digit", "q=%4"),
    ("in a name", "%g1=1"),
    ("cut short in a later pair", "a=1&b=%E4%B8%A"),
]

# (what it shows, method, path as sent, raw query, canonical typed by hand, body)
REQUESTS = [
    ("GET without a query", "GET", "/v1/api/whoami", "", "", b""),
    ("the same headers' inputs on another method and path", "POST", "/v1/api/refresh", "", "", b""),
    ("a query, already canonical", "GET", "/v1/api/kline", "code=600519.SH&freq=D&start=2026-01-01",
     "code=600519.SH&freq=D&start=2026-01-01", b""),
    ("the same path, another query", "GET", "/v1/api/kline", "code=000001.SZ&freq=D&start=2026-01-01",
     "code=000001.SZ&freq=D&start=2026-01-01", b""),
    ("a query with + and UTF-8, out of order", "GET", "/v1/api/news/list",
     "q=%E8%B4%B5%E5%B7%9E+%E8%8C%85%E5%8F%B0&page=1", "page=1&q=%E8%B4%B5%E5%B7%9E%20%E8%8C%85%E5%8F%B0", b""),
    ("a POST body with UTF-8", "POST", "/v1/api/screener/queue/submit", "", "",
     '{"expression":"price > ma20","universe":{"block":"\u534a\u5bfc\u4f53"}}'.encode("utf-8")),
    ("a path's escapes are signed as sent, not decoded", "GET", "/v1/api/a%2fb", "x=1", "x=1", b""),
    ("DELETE with a body", "DELETE", "/v1/api/alerts", "", "", b'{"id":"a1"}'),
    ("HEAD with a query", "HEAD", "/v1/api/boards/top50", "top=5", "top=5", b""),
    ("a block name in the query", "GET", "/v1/api/block/members",
     "kind=concept&block=%E5%8D%8A%E5%AF%BC%E4%BD%93", "block=%E5%8D%8A%E5%AF%BC%E4%BD%93&kind=concept", b""),
]


def main():
    out = {
        "_note": ("Known answers of X-Signature-Version 2 (docs/security.md). Computed by hand, independently of "
                  "the signers that check them (internal/auth, the Python client, the dashboard's sign.js): the "
                  "canonical queries are typed in by hand and each signature is python3's hmac.new(token, "
                  "string_to_sign, hashlib.sha256).hexdigest(); testdata/signature-v2-vectors.py writes this file."),
        "canonical_query": [{"what": w, "query": q, "canonical": c} for w, q, c in QUERIES],
        "malformed_query": [{"what": w, "query": q} for w, q in MALFORMED],
        "signatures": [],
    }
    for w, method, path, query, canon, body in REQUESTS:
        sts = "\n".join([method, path, canon, TS, NONCE, hashlib.sha256(body).hexdigest()])
        out["signatures"].append({
            "what": w, "token": TOKEN, "method": method, "path": path, "query": query,
            "timestamp": TS, "nonce": NONCE, "body": body.decode("utf-8"),
            "canonical_query": canon, "string_to_sign": sts,
            "signature": hmac.new(TOKEN.encode(), sts.encode("utf-8"), hashlib.sha256).hexdigest(),
        })
    print(json.dumps(out, ensure_ascii=False, indent=1))


main()
