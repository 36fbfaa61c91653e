// The dashboard's API client: it logs in like any client and signs every
// request as the README's "signed requests" rule says:
//   X-Signature = lowercase hex MD5 of token + timestamp + nonce + raw body.
// The token lives in memory and in sessionStorage (so a reload of the tab
// keeps the session); the secret is never stored anywhere.
import { md5Hex } from './md5.js';

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
    sessionStorage.setItem(SESSION_KEY, JSON.stringify({
      token: this.token, clientId: this.clientId, expireAt: this.expireAt, skewMs: this.skewMs,
    }));
  }

  logout() {
    this.token = '';
    this.expireAt = '';
    sessionStorage.removeItem(SESSION_KEY);
  }

  // signedHeaders are the four headers of a signed request for body.
  signedHeaders(body) {
    const ts = String(Math.floor((Date.now() + this.skewMs) / 1000));
    const nonce = randomHex(16);
    return {
      Authorization: `Bearer ${this.token}`,
      'X-Timestamp': ts,
      'X-Nonce': nonce,
      'X-Signature': md5Hex(this.token + ts + nonce + body),
    };
  }

  get(path) {
    return this.request('GET', path, '');
  }

  // request sends a signed request and answers the parsed JSON body. A 401
  // drops the token and asks for a new login, then retries once.
  async request(method, path, body = '', retried = false) {
    if (!this.token) await this.needLogin('Log in to continue.');
    const used = this.token;
    const headers = this.signedHeaders(body);
    if (body) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body || undefined, cache: 'no-store' });
    const json = await readJSON(res);
    if (res.status === 401 && !retried) {
      if (this.token === used) {
        this.logout();
        await this.needLogin(`Session ended (${json.detail || json.message}). Log in again.`);
      }
      return this.request(method, path, body, true);
    }
    if (!res.ok || json.code === 0) {
      throw new ApiError(res.status, json.message || `HTTP ${res.status}`, json.detail);
    }
    return json;
  }
}
