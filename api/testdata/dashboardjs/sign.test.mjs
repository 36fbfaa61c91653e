// node --test over the dashboard's signing: sign.js against the known
// answers every signer shares (testdata/signature-v2-vectors.json, computed
// by hand with python3's hmac), and api.js's Client choosing the version
// and signing what fetch sends, checked with node:crypto's HMAC. Run by
// TestDashboardSigningInNode (api/dashboard_sign_test.go), which copies the
// dashboard's modules beside this file; MDQS_VECTORS names the vectors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { canonicalQuery, signatureV2, stringToSign } from './sign.js';
import { Client } from './api.js';

const vectors = JSON.parse(readFileSync(process.env.MDQS_VECTORS, 'utf8'));

test('canonical queries', () => {
  assert.ok(vectors.canonical_query.length > 10);
  for (const c of vectors.canonical_query) {
    assert.equal(canonicalQuery(c.query), c.canonical, c.what);
  }
});

test('malformed queries have no canonical form', () => {
  for (const c of vectors.malformed_query) {
    assert.throws(() => canonicalQuery(c.query), /%25/, c.what);
  }
});

test('whole signatures', async () => {
  assert.ok(vectors.signatures.length > 5);
  for (const c of vectors.signatures) {
    const bodyHash = createHash('sha256').update(c.body, 'utf8').digest('hex');
    assert.equal(stringToSign(c.method, c.path, c.canonical_query, c.timestamp, c.nonce, bodyHash), c.string_to_sign, c.what);
    assert.equal(await signatureV2(c.token, c.method, c.path, c.query, c.timestamp, c.nonce, c.body), c.signature, c.what);
    assert.equal(await signatureV2(c.token, c.method, c.path, c.query, c.timestamp, c.nonce, new TextEncoder().encode(c.body)), c.signature, c.what);
  }
});

// A browser-like page for api.js: sessionStorage, location, and a fetch
// that answers as the server would.
const store = new Map();
globalThis.sessionStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => store.set(k, String(v)),
  removeItem: (k) => store.delete(k),
};
globalThis.location = { href: 'http://127.0.0.1:8080/' };
const TOKEN = 'ab'.repeat(32);

function server({ versions, refuseV1 }) {
  const seen = [];
  globalThis.fetch = async (path, init = {}) => {
    const url = new URL(path, globalThis.location.href);
    const json = (status, body, headers = {}) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
    if (url.pathname === '/v1/auth/token') {
      return json(200, { code: 1, message: 'OK', data: { token: TOKEN, expire_at: '2099-01-01 00:00:00', signature_versions: versions } });
    }
    const h = init.headers;
    const body = init.body || '';
    const listed = refuseV1 ? '2' : '1, 2';
    if (h['X-Signature-Version'] === '2') {
      // Independent of sign.js: node:crypto, over a query the test wrote canonical.
      const bodyHash = createHash('sha256').update(body, 'utf8').digest('hex');
      const msg = [init.method || 'GET', url.pathname, url.search.slice(1), h['X-Timestamp'], h['X-Nonce'], bodyHash].join('\n');
      if (createHmac('sha256', TOKEN).update(msg, 'utf8').digest('hex') !== h['X-Signature']) {
        return json(401, { code: 0, message: 'unauthorized', detail: 'signature mismatch' }, { 'X-Signature-Versions': listed });
      }
      seen.push(`v2 ${init.method || 'GET'} ${url.pathname}${url.search}`);
    } else {
      const md5 = createHash('md5').update(TOKEN + h['X-Timestamp'] + h['X-Nonce'] + body, 'utf8').digest('hex');
      if (refuseV1 || md5 !== h['X-Signature']) {
        return json(401, { code: 0, message: 'unauthorized', detail: 'version 1 refused' }, { 'X-Signature-Versions': listed });
      }
      seen.push(`v1 ${init.method || 'GET'} ${url.pathname}${url.search}`);
    }
    return json(200, { code: 1, message: 'OK', data: {} });
  };
  return seen;
}

test('the client signs with the version the login answer lists', async () => {
  for (const [versions, want] of [[[1, 2], 'v2'], [[2], 'v2'], [undefined, 'v1']]) {
    store.clear();
    const seen = server({ versions, refuseV1: false });
    const c = new Client(async () => { throw new Error('no login expected'); });
    await c.login('demo', 'demo-secret');
    await c.get('/v1/api/kline?code=600519.SH&end=2026-11-20&freq=D&start=2026-11-02');
    await c.request('POST', '/v1/api/screener/queue/submit', JSON.stringify({ expression: 'price > ma20', universe: { block: '半导体' } }));
    assert.deepEqual(seen, [
      `${want} GET /v1/api/kline?code=600519.SH&end=2026-11-20&freq=D&start=2026-11-02`,
      `${want} POST /v1/api/screener/queue/submit`,
    ], `versions ${versions}`);
    // The session keeps the versions: a reloaded tab signs the same way.
    assert.equal(new Client(() => {}).version, want === 'v2' ? 2 : 1);
  }
});

test('a session from before version 2 switches on the 401', async () => {
  store.clear();
  const seen = server({ versions: [2], refuseV1: true });
  sessionStorage.setItem('mdqs.session', JSON.stringify({ token: TOKEN, clientId: 'demo', expireAt: '2099-01-01 00:00:00', skewMs: 0 }));
  const c = new Client(async () => { throw new Error('no login expected'); });
  assert.equal(c.version, 1);
  await c.get('/v1/api/whoami');
  assert.deepEqual(seen, ['v2 GET /v1/api/whoami']);
  assert.equal(c.version, 2);
  assert.deepEqual(JSON.parse(sessionStorage.getItem('mdqs.session')).signatureVersions, [2]);
});
