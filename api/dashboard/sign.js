// Signature version 2 (docs/security.md, "Signed requests"): with
// X-Signature-Version: 2, X-Signature is the lowercase hex HMAC-SHA256,
// keyed with the token, of
//   METHOD \n PATH \n CANONICAL_QUERY \n X-Timestamp \n X-Nonce \n hex(SHA-256(body))
// so the headers are good for one request only (the MD5 of version 1 is
// the same for every GET). PATH is the path as the browser sends it;
// CANONICAL_QUERY is canonicalQuery of the query it sends. The hashes are
// WebCrypto's (crypto.subtle), which a browser gives secure contexts only:
// https, and http on 127.0.0.1 or localhost. Elsewhere hasWebCrypto() is
// false and the dashboard signs with version 1 when the server accepts it.

const enc = new TextEncoder();

function unreserved(b) {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) ||
    b === 0x2d || b === 0x5f || b === 0x2e || b === 0x7e; // - _ . ~
}

function hexValue(b) {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  return -1;
}

const HEX = '0123456789ABCDEF';

// recode form-decodes one name or value (bytes: %XX, + as a space) and
// %-encodes every byte again but the unreserved ones, upper-case hex.
function recode(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    let b = bytes[i];
    if (b === 0x2b) {
      b = 0x20;
    } else if (b === 0x25) {
      const hi = i + 2 < bytes.length ? hexValue(bytes[i + 1]) : -1;
      const lo = hi >= 0 ? hexValue(bytes[i + 2]) : -1;
      if (lo < 0) {
        const esc = new TextDecoder().decode(bytes.subarray(i, i + 3));
        throw new Error(`malformed %-escape "${esc}" in the query string: escape a literal % as %25`);
      }
      b = hi * 16 + lo;
      i += 2;
    }
    out += unreserved(b) ? String.fromCharCode(b) : `%${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  return out;
}

// canonicalQuery is the query string (as sent, without '?') in the form
// version 2 signs: each pair's name and value form-decoded and %-encoded
// again with only A-Z a-z 0-9 - _ . ~ bare, sorted by name then value,
// joined name=value with &. A pair without '=' has an empty value; empty
// pairs are skipped. A malformed %-escape throws: it has no canonical form.
export function canonicalQuery(raw) {
  const bytes = enc.encode(raw);
  const pairs = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x26) continue; // &
    const part = bytes.subarray(start, i);
    start = i + 1;
    if (part.length === 0) continue;
    const eq = part.indexOf(0x3d); // =
    const name = eq < 0 ? part : part.subarray(0, eq);
    const value = eq < 0 ? part.subarray(part.length) : part.subarray(eq + 1);
    pairs.push([recode(name), recode(value)]);
  }
  // Every string is ASCII now: comparing UTF-16 code units is comparing bytes.
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  pairs.sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

function toHex(buf) {
  return Array.from(new Uint8Array(buf), (x) => x.toString(16).padStart(2, '0')).join('');
}

function bytesOf(body) {
  return typeof body === 'string' ? enc.encode(body) : body;
}

// hasWebCrypto: the page may sign with version 2.
export function hasWebCrypto() {
  return Boolean(globalThis.crypto && globalThis.crypto.subtle);
}

// stringToSign is the message version 2's HMAC covers (bodyHash: the
// body's lowercase hex SHA-256).
export function stringToSign(method, path, canonical, timestamp, nonce, bodyHash) {
  return [method, path, canonical, timestamp, nonce, bodyHash].join('\n');
}

// signatureV2 answers X-Signature of version 2 for a request: method and
// path as sent, query as sent without '?', body a string (sent as UTF-8)
// or bytes.
export async function signatureV2(token, method, path, query, timestamp, nonce, body = '') {
  const canonical = canonicalQuery(query);
  const subtle = globalThis.crypto.subtle;
  const bodyHash = toHex(await subtle.digest('SHA-256', bytesOf(body)));
  const key = await subtle.importKey('raw', enc.encode(token), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await subtle.sign('HMAC', key, enc.encode(stringToSign(method, path, canonical, timestamp, nonce, bodyHash)));
  return toHex(mac);
}
