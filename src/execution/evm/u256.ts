/**
 * 256-bit EVM words as eight 32-bit limbs in a `Uint32Array`, little-endian by limb (limb 0 holds
 * bits 0–31, limb 7 bits 224–255). Every function works in place on `(array, offset)` pairs, so
 * the interpreter's stack (one `Uint32Array` of 1024 words) never allocates per operation.
 *
 * Additions, comparisons, bitwise operations, shifts and byte access work on the limbs directly;
 * multiplication splits limbs into 16-bit halves (every partial product and column sum stays
 * below 2^53, exact in a double). Division, modular and signed arithmetic take a fast path when
 * both operands fit in 53 bits and otherwise go through `bigint` — those opcodes are rare in
 * real contracts and cost 5–10 gas anyway.
 */

/** 2^32 as a double. */
const TWO32 = 4294967296;
const MASK256 = (1n << 256n) - 1n;
const SIGN256 = 1n << 255n;

/** Scratch digits for {@link mul} (16-bit digits of both operands and the product columns). */
const da = new Float64Array(16);
const db = new Float64Array(16);
const dr = new Float64Array(16);

/** True when the word at `o` is zero. */
export function isZero(s: Uint32Array, o: number): boolean {
  return (s[o]! | s[o + 1]! | s[o + 2]! | s[o + 3]! | s[o + 4]! | s[o + 5]! | s[o + 6]! | s[o + 7]!) === 0;
}

/** True when the word at `o` fits in 32 bits (limbs 1–7 are zero). */
export function fitsU32(s: Uint32Array, o: number): boolean {
  return (s[o + 1]! | s[o + 2]! | s[o + 3]! | s[o + 4]! | s[o + 5]! | s[o + 6]! | s[o + 7]!) === 0;
}

/** True when the word at `o` is below 2^53 (exact as a double). */
export function fitsSafe(s: Uint32Array, o: number): boolean {
  return (s[o + 2]! | s[o + 3]! | s[o + 4]! | s[o + 5]! | s[o + 6]! | s[o + 7]!) === 0 && s[o + 1]! < 0x200000;
}

/** The word at `o` as a double (exact only when {@link fitsSafe}). */
export function toSafe(s: Uint32Array, o: number): number {
  return s[o + 1]! * TWO32 + s[o]!;
}

/** Writes a non-negative safe integer `v` (< 2^53) as the word at `o`. */
export function setSafe(s: Uint32Array, o: number, v: number): void {
  s[o] = v >>> 0;
  s[o + 1] = Math.floor(v / TWO32);
  s[o + 2] = 0;
  s[o + 3] = 0;
  s[o + 4] = 0;
  s[o + 5] = 0;
  s[o + 6] = 0;
  s[o + 7] = 0;
}

/** Sets the word at `o` to zero. */
export function setZero(s: Uint32Array, o: number): void {
  s[o] = 0;
  s[o + 1] = 0;
  s[o + 2] = 0;
  s[o + 3] = 0;
  s[o + 4] = 0;
  s[o + 5] = 0;
  s[o + 6] = 0;
  s[o + 7] = 0;
}

/** Copies the word at `from` in `src` to `to` in `dst`. */
export function copyWord(dst: Uint32Array, to: number, src: Uint32Array, from: number): void {
  dst[to] = src[from]!;
  dst[to + 1] = src[from + 1]!;
  dst[to + 2] = src[from + 2]!;
  dst[to + 3] = src[from + 3]!;
  dst[to + 4] = src[from + 4]!;
  dst[to + 5] = src[from + 5]!;
  dst[to + 6] = src[from + 6]!;
  dst[to + 7] = src[from + 7]!;
}

/** True when the words are equal. */
export function eqWords(a: Uint32Array, ao: number, b: Uint32Array, bo: number): boolean {
  return (
    a[ao] === b[bo] &&
    a[ao + 1] === b[bo + 1] &&
    a[ao + 2] === b[bo + 2] &&
    a[ao + 3] === b[bo + 3] &&
    a[ao + 4] === b[bo + 4] &&
    a[ao + 5] === b[bo + 5] &&
    a[ao + 6] === b[bo + 6] &&
    a[ao + 7] === b[bo + 7]
  );
}

/** Unsigned comparison: negative, zero or positive as a <, =, > b. */
export function cmp(s: Uint32Array, a: number, b: number): number {
  for (let i = 7; i >= 0; i--) {
    const x = s[a + i]!;
    const y = s[b + i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Signed (two's complement) comparison. */
export function scmp(s: Uint32Array, a: number, b: number): number {
  const sa = s[a + 7]! >>> 31;
  const sb = s[b + 7]! >>> 31;
  if (sa !== sb) return sa === 1 ? -1 : 1;
  return cmp(s, a, b);
}

/** out = a + b (mod 2^256). `out` may alias `a` or `b`. */
export function add(s: Uint32Array, a: number, b: number, out: number): void {
  let c = 0;
  for (let i = 0; i < 8; i++) {
    const v = s[a + i]! + s[b + i]! + c;
    s[out + i] = v;
    c = v >= TWO32 ? 1 : 0;
  }
}

/** out = a − b (mod 2^256). `out` may alias `a` or `b`. */
export function sub(s: Uint32Array, a: number, b: number, out: number): void {
  let borrow = 0;
  for (let i = 0; i < 8; i++) {
    const v = s[a + i]! - s[b + i]! - borrow;
    s[out + i] = v;
    borrow = v < 0 ? 1 : 0;
  }
}

/** out = a · b (mod 2^256). `out` may alias `a` or `b`. */
export function mul(s: Uint32Array, a: number, b: number, out: number): void {
  let na = 0;
  let nb = 0;
  for (let i = 0; i < 8; i++) {
    const x = s[a + i]!;
    const y = s[b + i]!;
    da[2 * i] = x & 0xffff;
    da[2 * i + 1] = x >>> 16;
    db[2 * i] = y & 0xffff;
    db[2 * i + 1] = y >>> 16;
    if (x !== 0) na = 2 * i + 2;
    if (y !== 0) nb = 2 * i + 2;
  }
  dr.fill(0);
  for (let i = 0; i < na; i++) {
    const x = da[i]!;
    if (x === 0) continue;
    const lim = 16 - i < nb ? 16 - i : nb;
    for (let j = 0; j < lim; j++) dr[i + j] += x * db[j]!;
  }
  let carry = 0;
  for (let k = 0; k < 16; k += 2) {
    const lo = dr[k]! + carry;
    const loDigit = lo % 65536;
    const hi = dr[k + 1]! + (lo - loDigit) / 65536;
    const hiDigit = hi % 65536;
    carry = (hi - hiDigit) / 65536;
    s[out + (k >> 1)] = loDigit + hiDigit * 65536;
  }
}

/** The word at `o` as a bigint. */
export function toBig(s: Uint32Array, o: number): bigint {
  if (fitsSafe(s, o)) return BigInt(toSafe(s, o));
  let hex = "0x";
  for (let i = 7; i >= 0; i--) hex += s[o + i]!.toString(16).padStart(8, "0");
  return BigInt(hex);
}

/** Writes `v` (taken mod 2^256, negative values in two's complement) as the word at `o`. */
export function fromBig(s: Uint32Array, o: number, v: bigint): void {
  if (v < 0n || v > MASK256) v &= MASK256;
  if (v < 9007199254740992n) {
    setSafe(s, o, Number(v));
    return;
  }
  const hex = v.toString(16).padStart(64, "0");
  for (let i = 0; i < 8; i++) s[o + i] = parseInt(hex.slice(56 - 8 * i, 64 - 8 * i), 16);
}

/** The word at `o` as a signed bigint. */
function toSigned(s: Uint32Array, o: number): bigint {
  const v = toBig(s, o);
  return v >= SIGN256 ? v - (1n << 256n) : v;
}

/** out = a / b, 0 when b = 0 (DIV). */
export function div(s: Uint32Array, a: number, b: number, out: number): void {
  if (isZero(s, b)) return setZero(s, out);
  if (fitsSafe(s, a) && fitsSafe(s, b)) return setSafe(s, out, Math.floor(toSafe(s, a) / toSafe(s, b)));
  fromBig(s, out, toBig(s, a) / toBig(s, b));
}

/** out = a mod b, 0 when b = 0 (MOD). */
export function mod(s: Uint32Array, a: number, b: number, out: number): void {
  if (isZero(s, b)) return setZero(s, out);
  if (fitsSafe(s, a) && fitsSafe(s, b)) return setSafe(s, out, toSafe(s, a) % toSafe(s, b));
  fromBig(s, out, toBig(s, a) % toBig(s, b));
}

/** Signed division truncating toward zero, 0 when b = 0, −2^255 / −1 = −2^255 (SDIV). */
export function sdiv(s: Uint32Array, a: number, b: number, out: number): void {
  if (isZero(s, b)) return setZero(s, out);
  if ((s[a + 7]! | s[b + 7]!) >>> 31 === 0) return div(s, a, b, out);
  fromBig(s, out, toSigned(s, a) / toSigned(s, b));
}

/** Signed modulo with the sign of the dividend, 0 when b = 0 (SMOD). */
export function smod(s: Uint32Array, a: number, b: number, out: number): void {
  if (isZero(s, b)) return setZero(s, out);
  if ((s[a + 7]! | s[b + 7]!) >>> 31 === 0) return mod(s, a, b, out);
  fromBig(s, out, toSigned(s, a) % toSigned(s, b));
}

/** out = (a + b) mod n in full precision, 0 when n = 0 (ADDMOD). */
export function addmod(s: Uint32Array, a: number, b: number, n: number, out: number): void {
  if (isZero(s, n)) return setZero(s, out);
  fromBig(s, out, (toBig(s, a) + toBig(s, b)) % toBig(s, n));
}

/** out = (a · b) mod n in full precision, 0 when n = 0 (MULMOD). */
export function mulmod(s: Uint32Array, a: number, b: number, n: number, out: number): void {
  if (isZero(s, n)) return setZero(s, out);
  fromBig(s, out, (toBig(s, a) * toBig(s, b)) % toBig(s, n));
}

/** out = a ^ e (mod 2^256) (EXP). */
export function exp(s: Uint32Array, a: number, e: number, out: number): void {
  if (isZero(s, e)) {
    setSafe(s, out, 1);
    return;
  }
  if (fitsU32(s, a) && s[a]! <= 1) {
    const base = s[a]!;
    setSafe(s, out, base);
    return;
  }
  if (fitsU32(s, a) && s[a] === 2) {
    const n = fitsU32(s, e) ? s[e]! : 256;
    setZero(s, out);
    if (n < 256) s[out + (n >>> 5)] = 1 << (n & 31);
    return;
  }
  let base = toBig(s, a);
  let ex = toBig(s, e);
  let r = 1n;
  while (ex > 0n) {
    if ((ex & 1n) === 1n) r = (r * base) & MASK256;
    ex >>= 1n;
    if (ex > 0n) base = (base * base) & MASK256;
  }
  fromBig(s, out, r);
}

/** Sign-extends a from byte b (SIGNEXTEND: `b` is the byte index from the low end). */
export function signextend(s: Uint32Array, b: number, x: number, out: number): void {
  if (!fitsU32(s, b) || s[b]! >= 31) {
    copyWord(s, out, s, x);
    return;
  }
  const byteIndex = s[b]!;
  const bit = byteIndex * 8 + 7;
  const limb = bit >>> 5;
  const within = bit & 31;
  const negative = (s[x + limb]! >>> within) & 1;
  copyWord(s, out, s, x);
  if (negative === 1) {
    s[out + limb] = within === 31 ? s[out + limb]! : s[out + limb]! | (~0 << (within + 1));
    for (let i = limb + 1; i < 8; i++) s[out + i] = 0xffffffff;
  } else {
    s[out + limb] = within === 31 ? s[out + limb]! : s[out + limb]! & ((1 << (within + 1)) - 1);
    for (let i = limb + 1; i < 8; i++) s[out + i] = 0;
  }
}

/** out = the byte of x at index i counted from the most significant end, 0 when i ≥ 32 (BYTE). */
export function byteAt(s: Uint32Array, i: number, x: number, out: number): void {
  let v = 0;
  if (fitsU32(s, i) && s[i]! < 32) {
    const fromLow = 31 - s[i]!;
    v = (s[x + (fromLow >>> 2)]! >>> ((fromLow & 3) * 8)) & 0xff;
  }
  setSafe(s, out, v);
}

/** out = x << shift (SHL; 0 when shift ≥ 256). */
export function shl(s: Uint32Array, sh: number, x: number, out: number): void {
  if (!fitsU32(s, sh) || s[sh]! >= 256) return setZero(s, out);
  const n = s[sh]!;
  const limbs = n >>> 5;
  const bits = n & 31;
  for (let i = 7; i >= 0; i--) {
    const src = i - limbs;
    let v = 0;
    if (src >= 0) {
      v = bits === 0 ? s[x + src]! : (s[x + src]! << bits) | (src > 0 ? s[x + src - 1]! >>> (32 - bits) : 0);
    }
    s[out + i] = v;
  }
}

/** out = x >> shift, logical (SHR; 0 when shift ≥ 256). */
export function shr(s: Uint32Array, sh: number, x: number, out: number): void {
  if (!fitsU32(s, sh) || s[sh]! >= 256) return setZero(s, out);
  const n = s[sh]!;
  const limbs = n >>> 5;
  const bits = n & 31;
  for (let i = 0; i < 8; i++) {
    const src = i + limbs;
    let v = 0;
    if (src < 8) {
      v = bits === 0 ? s[x + src]! : (s[x + src]! >>> bits) | (src < 7 ? s[x + src + 1]! << (32 - bits) : 0);
    }
    s[out + i] = v;
  }
}

/** out = x >> shift, arithmetic (SAR; all sign bits when shift ≥ 256). */
export function sar(s: Uint32Array, sh: number, x: number, out: number): void {
  const negative = s[x + 7]! >>> 31 === 1;
  if (!fitsU32(s, sh) || s[sh]! >= 256) {
    const fill = negative ? 0xffffffff : 0;
    for (let i = 0; i < 8; i++) s[out + i] = fill;
    return;
  }
  const n = s[sh]!;
  const limbs = n >>> 5;
  const bits = n & 31;
  const fill = negative ? 0xffffffff : 0;
  for (let i = 0; i < 8; i++) {
    const src = i + limbs;
    const lo = src < 8 ? s[x + src]! : fill;
    const hi = src + 1 < 8 ? s[x + src + 1]! : fill;
    s[out + i] = bits === 0 ? lo : (lo >>> bits) | (hi << (32 - bits));
  }
}

/** out = number of leading zero bits of x, 256 for zero (CLZ, EIP-7939). */
export function clz(s: Uint32Array, x: number, out: number): void {
  let n = 256;
  for (let i = 7; i >= 0; i--) {
    const v = s[x + i]!;
    if (v !== 0) {
      n = (7 - i) * 32 + Math.clz32(v);
      break;
    }
  }
  setSafe(s, out, n);
}

/** Reads 32 big-endian bytes of `b` at `off` (zero beyond its end) into the word at `o`. */
export function loadBE(s: Uint32Array, o: number, b: Uint8Array, off: number): void {
  if (off + 32 <= b.length) {
    for (let i = 0; i < 8; i++) {
      const p = off + 28 - 4 * i;
      s[o + i] = (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
    }
    return;
  }
  for (let i = 0; i < 8; i++) {
    const p = off + 28 - 4 * i;
    let v = 0;
    for (let k = 0; k < 4; k++) v = (v << 8) | (p + k < b.length && p + k >= 0 ? b[p + k]! : 0);
    s[o + i] = v;
  }
}

/** Reads `len` (≤ 32) big-endian bytes of `b` at `off` as an unsigned number into the word at `o` (PUSH). */
export function loadBytesBE(s: Uint32Array, o: number, b: Uint8Array, off: number, len: number): void {
  setZero(s, o);
  for (let k = 0; k < len; k++) {
    const bitPos = (len - 1 - k) * 8;
    s[o + (bitPos >>> 5)] |= b[off + k]! << (bitPos & 31);
  }
}

/** Writes the word at `o` as 32 big-endian bytes into `b` at `off` (which must fit). */
export function storeBE(s: Uint32Array, o: number, b: Uint8Array, off: number): void {
  for (let i = 0; i < 8; i++) {
    const v = s[o + i]!;
    const p = off + 28 - 4 * i;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
  }
}

/** The word at `o` as 32 big-endian bytes (a new array). */
export function toBytes32(s: Uint32Array, o: number): Uint8Array {
  const b = new Uint8Array(32);
  storeBE(s, o, b, 0);
  return b;
}

/** A word (new 8-limb array) from big-endian bytes of any length ≤ 32 (storage values). */
export function wordFromBytes(b: Uint8Array): Uint32Array {
  const w = new Uint32Array(8);
  if (b.length > 0) loadBytesBE(w, 0, b, 0, b.length);
  return w;
}

/** The big-endian bytes of a word without leading zeros (empty for zero): storage values as stored. */
export function strippedBytes(w: Uint32Array, o = 0): Uint8Array {
  const b = toBytes32(w, o);
  let i = 0;
  while (i < 32 && b[i] === 0) i++;
  return b.subarray(i);
}

/**
 * A compact string key of a word (16 UTF-16 code units of 16 bits each): storage-slot keys of
 * the state's maps. Equal words give equal keys; building it does not go through hex.
 */
export function wordKey(s: Uint32Array, o: number): string {
  return String.fromCharCode(
    s[o]! & 0xffff,
    s[o]! >>> 16,
    s[o + 1]! & 0xffff,
    s[o + 1]! >>> 16,
    s[o + 2]! & 0xffff,
    s[o + 2]! >>> 16,
    s[o + 3]! & 0xffff,
    s[o + 3]! >>> 16,
    s[o + 4]! & 0xffff,
    s[o + 4]! >>> 16,
    s[o + 5]! & 0xffff,
    s[o + 5]! >>> 16,
    s[o + 6]! & 0xffff,
    s[o + 6]! >>> 16,
    s[o + 7]! & 0xffff,
    s[o + 7]! >>> 16,
  );
}

/** The address (low 20 bytes) of the word at `o`, as bytes. */
export function toAddress(s: Uint32Array, o: number): Uint8Array {
  const b = new Uint8Array(20);
  for (let i = 0; i < 5; i++) {
    const v = s[o + i]!;
    const p = 16 - 4 * i;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
  }
  return b;
}

/** Writes a 20-byte address as the word at `o`. */
export function setAddress(s: Uint32Array, o: number, a: Uint8Array): void {
  for (let i = 0; i < 5; i++) {
    const p = 16 - 4 * i;
    s[o + i] = (a[p]! << 24) | (a[p + 1]! << 16) | (a[p + 2]! << 8) | a[p + 3]!;
  }
  s[o + 5] = 0;
  s[o + 6] = 0;
  s[o + 7] = 0;
}
