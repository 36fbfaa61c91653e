// MD5 (RFC 1321) for the request signature: X-Signature is the lowercase
// hex MD5 of token + timestamp + nonce + body, and WebCrypto has no MD5.
// Written for mdqs (no third-party code). MD5 is what the API's signature
// scheme specifies; it is not used here for anything else.

// Per-round shift amounts, four per round.
const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

// K[i] = floor(abs(sin(i + 1)) * 2^32), written out rather than computed so
// the table does not depend on the engine's Math.sin.
const K = new Uint32Array([
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
  0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
  0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
  0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
  0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
  0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
  0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
  0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
]);

// md5Bytes returns the lowercase hex MD5 of a Uint8Array.
export function md5Bytes(bytes) {
  const n = bytes.length;
  // Message + 0x80 + padding + 64-bit length, in whole 64-byte blocks.
  const words = (Math.floor((n + 8) / 64) + 1) * 16;
  const M = new Uint32Array(words);
  for (let i = 0; i < n; i++) M[i >>> 2] |= bytes[i] << ((i & 3) * 8);
  M[n >>> 2] |= 0x80 << ((n & 3) * 8);
  M[words - 2] = (n * 8) >>> 0; // length in bits, little-endian, low word
  M[words - 1] = Math.floor(n / 0x20000000); // high word
  let a0 = 0x67452301;
  let b0 = 0xefcdab89;
  let c0 = 0x98badcfe;
  let d0 = 0x10325476;
  for (let off = 0; off < words; off += 16) {
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      let f;
      let g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const x = (a + f + K[i] + M[off + g]) | 0;
      const s = S[((i >>> 4) << 2) | (i & 3)];
      a = d;
      d = c;
      c = b;
      b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  let hex = '';
  for (const w of [a0, b0, c0, d0]) {
    for (let k = 0; k < 4; k++) hex += ((w >>> (8 * k)) & 0xff).toString(16).padStart(2, '0');
  }
  return hex;
}

const utf8 = new TextEncoder();

// md5Hex returns the lowercase hex MD5 of a string's UTF-8 bytes.
export function md5Hex(text) {
  return md5Bytes(utf8.encode(text));
}

// The test suite of RFC 1321, appendix A.5.
export const RFC1321 = [
  ['', 'd41d8cd98f00b204e9800998ecf8427e'],
  ['a', '0cc175b9c0f1b6a831c399e269772661'],
  ['abc', '900150983cd24fb0d6963f7d28e17f72'],
  ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
  ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
  ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
  ['12345678901234567890123456789012345678901234567890123456789012345678901234567890', '57edf4a22be3c955ac49da2e2107b67a'],
];

// selfTest checks the implementation against RFC 1321's vectors; it returns
// the inputs that failed (none when correct).
export function selfTest() {
  return RFC1321.filter(([input, want]) => md5Hex(input) !== want).map(([input]) => input);
}
