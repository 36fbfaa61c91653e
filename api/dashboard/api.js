// The dashboard's API client: it logs in like any client and signs every
// request as docs/security.md's "Signed requests" says: with version 2
// (X-Signature-Version: 2, an HMAC-SHA256 over the method, path, query,
// timestamp, nonce and body; sign.js) when the login answer lists it in
// signature_versions and the page has WebCrypto, else with version 1:
//   X-Signature = lowercase hex MD5 of token + timestamp + nonce + raw body.
// The token lives in memory and in sessionStorage (so a reload of the tab
// keeps the session); the secret is never stored anywhere.
import { md5Hex } from './md5.js';
import { hasWebCrypto, signatureV2 } from './sign.js';

const SESSION_KEY = 'mdqs.session';

// ApiError is a failure answer: the envelope's message and detail.
export class ApiError extends Error {
  constructor(status, message, detail) {
    super(detail ? `${message}: ${detail}` : message);
    this.status = status;
    this.apiMessage = message;
    this.detail = detail || '';
  }
}

function randomHex(bytes) {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

async function readJSON(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(res.status, `HTTP ${res.status}`, 'the answer is not JSON');
  }
}

export class Client {
  // needLogin(reason) is called when there is no valid token; it resolves
  // once the user has logged in again.
  constructor(needLogin) {
    this.needLogin = needLogin;
    this.token = '';
    this.clientId = '';
    this.expireAt = '';
    this.skewMs = 0; // server clock minus ours, when they differ noticeably
    // The signature versions the server accepts (its login answer, or a
    // 401's X-Signature-Versions); null: not known, version 1.
    this.signatureVersions = null;
    try {
      const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null');
      if (s && typeof s.token === 'string') Object.assign(this, s);
    } catch {
      sessionStorage.removeItem(SESSION_KEY);
    }
  }

  get loggedIn() {
    return this.token !== '';
  }

  // login exchanges a client id and secret for a token. The secret is only
  // in this request's body.
  async login(clientId, secret) {
    const res = await fetch('/v1/auth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: clientId, client_secret: secret }),
      cache: 'no-store',
    });
    const body = await readJSON(res);
    if (!res.ok || body.code !== 1) throw new ApiError(res.status, body.message || `HTTP ${res.status}`, body.detail);
    const server = Date.parse(res.headers.get('Date') || '');
    const skew = Number.isFinite(server) ? server - Date.now() : 0;
    this.skewMs = Math.abs(skew) > 2000 ? skew : 0;
    this.token = body.data.token;
    this.expireAt = body.data.expire_at;
    this.clientId = clientId;
    this.signatureVersions = Array.isArray(body.data.signature_versions) ? body.data.signature_versions : null;
    this.save();
  }

  save() {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify({
      token: this.token, clientId: this.clientId, expireAt: this.expireAt, skewMs: this.skewMs,
      signatureVersions: this.signatureVersions,
    }));
  }

  // version is the signature version requests are signed with: 2 when the
  // server accepts it and the page has WebCrypto, else 1.
  get version() {
    return (this.signatureVersions || []).includes(2) && hasWebCrypto() ? 2 : 1;
  }

  // switchVersion learns from a 401's X-Signature-Versions; true when the
  // request should be signed again with another version (a session from
  // before the server stopped accepting the one used).
  switchVersion(res, used) {
    const listed = (res.headers.get('X-Signature-Versions') || '').split(',')
      .map((v) => Number(v.trim())).filter((v) => v > 0);
    if (!listed.length || listed.includes(used)) return false;
    this.signatureVersions = listed;
    if (this.token) this.save();
    return this.version !== used;
  }

  logout() {
    this.token = '';
    this.expireAt = '';
    sessionStorage.removeItem(SESSION_KEY);
  }

  // signedHeaders are the headers of a signed request of method to path
  // (with its query) carrying body, signed with version.
  async signedHeaders(method, path, body, version = this.version) {
    const ts = String(Math.floor((Date.now() + this.skewMs) / 1000));
    const nonce = randomHex(16);
    const h = { Authorization: `Bearer ${this.token}`, 'X-Timestamp': ts, 'X-Nonce': nonce };
    if (version !== 2) {
      if (this.signatureVersions && !this.signatureVersions.includes(1)) {
        throw new ApiError(0, 'cannot sign', 'this server accepts signature version 2 only, which needs WebCrypto: '
          + 'open the dashboard over https, or on 127.0.0.1 or localhost');
      }
      h['X-Signature'] = md5Hex(this.token + ts + nonce + body);
      return h;
    }
    // What fetch sends: the path and query of the URL it resolves.
    const url = new URL(path, globalThis.location.href);
    let sig;
    try {
      sig = await signatureV2(this.token, method, url.pathname, url.search.slice(1), ts, nonce, body);
    } catch (e) {
      throw new ApiError(0, 'cannot sign', e.message);
    }
    h['X-Signature-Version'] = '2';
    h['X-Signature'] = sig;
    return h;
  }

  get(path) {
    return this.request('GET', path, '');
  }

  // request sends a signed request and answers the parsed JSON body. A 401
  // drops the token and asks for a new login, then retries once.
  // A 401 that lists signature versions without the one used is signed
  // again, once, with a listed one.
  async request(method, path, body = '', retried = false, switched = false) {
    if (!this.token) await this.needLogin('Log in to continue.');
    const used = this.token;
    const version = this.version;
    const headers = await this.signedHeaders(method, path, body, version);
    if (body) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body || undefined, cache: 'no-store' });
    const json = await readJSON(res);
    if (res.status === 401 && !switched && this.switchVersion(res, version)) {
      return this.request(method, path, body, retried, true);
    }
    if (res.status === 401 && !retried) {
      await this.sessionEnded(used, json.detail || json.message);
      return this.request(method, path, body, true);
    }
    if (!res.ok || json.code === 0) {
      throw new ApiError(res.status, json.message || `HTTP ${res.status}`, json.detail);
    }
    return json;
  }

  // sessionEnded drops the token used, when it is still the current one,
  // and waits for a new login (a request or stream that used an older
  // token just tries again with the current one).
  async sessionEnded(used, why) {
    if (this.token !== used) return;
    this.logout();
    await this.needLogin(`Session ended (${why}). Log in again.`);
  }

  // openStream sends a signed GET for Server-Sent Events (EventSource
  // cannot send the signature headers) and answers the response, whose
  // body the caller reads, and the token it used. A 401 is handled as in
  // request; any other refusal is an ApiError (with retryAfter, seconds).
  async openStream(path, lastEventId, signal, retried = false, switched = false) {
    if (!this.token) await this.needLogin('Log in to continue.');
    const used = this.token;
    const version = this.version;
    const headers = { ...(await this.signedHeaders('GET', path, '', version)), Accept: 'text/event-stream' };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    const res = await fetch(path, { headers, cache: 'no-store', signal });
    if (res.ok && (res.headers.get('Content-Type') || '').startsWith('text/event-stream')) return { res, token: used };
    const json = await readJSON(res);
    if (res.status === 401 && !switched && this.switchVersion(res, version)) {
      return this.openStream(path, lastEventId, signal, retried, true);
    }
    if (res.status === 401 && !retried) {
      await this.sessionEnded(used, json.detail || json.message);
      return this.openStream(path, lastEventId, signal, true);
    }
    const err = new ApiError(res.status, json.message || `HTTP ${res.status}`, json.detail);
    err.retryAfter = Number(res.headers.get('Retry-After')) || 0;
    throw err;
  }
}

// ---- the live feed ------------------------------------------------------

// GET /v1/api/stream read with fetch (the request must be signed, which
// EventSource cannot do) and parsed as Server-Sent Events here. Live
// reconnects with backoff, resuming from the last event id (Last-Event-ID,
// signed afresh each time).

// sseParser answers a function taking decoded text chunks; onEvent gets
// each complete event as { id, event, data } (id: the stream's last event
// id, which per the spec carries over events without one), onRetry the
// server's retry field in ms. Lines starting with ':' are comments.
export function sseParser(onEvent, onRetry = () => {}) {
  let buf = '';
  let id = '';
  let event = '';
  let data = [];
  const line = (l) => {
    if (l === '') {
      if (data.length) onEvent({ id, event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (l[0] === ':') return;
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    let value = i < 0 ? '' : l.slice(i + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  };
  return (chunk) => {
    buf += chunk;
    // A CR at the end may be the first half of a CRLF: wait for the rest.
    const keep = buf.endsWith('\r') ? 1 : 0;
    const lines = buf.slice(0, buf.length - keep).split(/\r\n|\r|\n/);
    buf = lines.pop() + buf.slice(buf.length - keep);
    for (const l of lines) line(l);
  };
}

const SILENCE_MS = 45000; // three missed heartbeats (15 s): the connection is dead
const MAX_DELAY_MS = 60000;

// Live keeps one stream open. onEvent(ev) gets every event but the
// heartbeats; onState(state, detail) hears of connecting, open, retrying
// (detail: the delay in ms and why) and stopped.
export class Live {
  constructor(client, { onEvent, onState }) {
    this.client = client;
    this.onEvent = onEvent;
    this.onState = onState;
    this.query = '';
    this.lastId = '';
    this.retryMs = 1000; // the server's retry field replaces it
    this.failures = 0;
    this.abort = null;
    this.wake = null;
    this.running = false;
  }

  // start (or restart with a new query) the stream; the last event id is
  // kept, so a restart misses nothing the new query asks for.
  start(query) {
    this.query = query;
    if (this.abort) this.abort.abort();
    if (this.wake) this.wake();
    if (!this.running) this.loop();
  }

  async loop() {
    this.running = true;
    for (;;) {
      const ctrl = new AbortController();
      this.abort = ctrl;
      const began = Date.now();
      let why = 'disconnected';
      let delay = 0;
      try {
        why = await this.once(ctrl);
      } catch (e) {
        if (ctrl.signal.aborted && this.abort !== ctrl) {
          continue; // restarted with another query: connect at once
        }
        why = e instanceof ApiError ? `${e.status} ${e.apiMessage}` : (ctrl.signal.aborted ? 'no data for 45 s' : 'connection lost');
        if (e instanceof ApiError && e.retryAfter) delay = e.retryAfter * 1000;
        if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429) delay = MAX_DELAY_MS;
      }
      if (this.abort !== ctrl) continue; // restarted meanwhile
      if (why === 'unauthorized') continue; // logged in again: reconnect now
      // A stream that lived a while was healthy: start the backoff over.
      if (Date.now() - began > 10000) this.failures = 0;
      this.failures++;
      if (!delay) {
        const base = Math.min(MAX_DELAY_MS, this.retryMs * 2 ** (this.failures - 1));
        delay = base * (0.8 + 0.4 * Math.random());
      }
      this.onState('retrying', { delay, why });
      await new Promise((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wake = () => { clearTimeout(t); resolve(); };
      });
      this.wake = null;
    }
  }

  // once runs one connection to its end and answers why it ended.
  async once(ctrl) {
    this.onState('connecting', {});
    const path = `/v1/api/stream?${this.query}`;
    const { res, token } = await this.client.openStream(path, this.lastId, ctrl.signal);
    let ended = 'disconnected';
    let endDetail = '';
    let over = false; // an end event: the stream is done, whatever follows
    const parse = sseParser((ev) => {
      if (ev.id) this.lastId = ev.id;
      if (ev.event === 'open') this.onState('open', {});
      if (ev.event === 'end') {
        over = true;
        try {
          const d = JSON.parse(ev.data);
          ended = d.reason || 'ended';
          endDetail = d.detail || '';
        } catch {
          ended = 'ended';
        }
        return;
      }
      let data;
      try {
        data = JSON.parse(ev.data);
      } catch {
        return; // not ours to show
      }
      this.onEvent({ id: ev.id, event: ev.event, data });
    }, (ms) => { this.retryMs = ms; });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let silence = setTimeout(() => ctrl.abort(), SILENCE_MS);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        clearTimeout(silence);
        if (done) break;
        silence = setTimeout(() => ctrl.abort(), SILENCE_MS);
        parse(decoder.decode(value, { stream: true }));
        if (over) break;
      }
    } finally {
      clearTimeout(silence);
      reader.cancel().catch(() => {});
    }
    if (ended === 'unauthorized') {
      // The token expired or was revoked: the login dialog, as for a 401.
      await this.client.sessionEnded(token, endDetail || 'unauthorized');
    }
    return ended;
  }
}
