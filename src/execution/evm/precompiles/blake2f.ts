/**
 * BLAKE2F (0x09, EIP-152, Istanbul): the BLAKE2b compression function F (RFC 7693 §3.2) with a
 * caller-chosen number of rounds.
 *
 * Input exactly 213 bytes: `rounds` (4 bytes, big-endian) ‖ h (8 × 8 bytes) ‖ m (16 × 8 bytes)
 * ‖ t (2 × 8 bytes) ‖ f (1 byte, 0 or 1); the 64-bit words are little-endian. Output: the new
 * h, 64 bytes. Price: `blake2RoundGas` (1) per round. A wrong length or final-block flag fails
 * (all gas consumed), checked before the gas, as @ethereumjs and geth do.
 *
 * The 64-bit words are held as (low, high) 32-bit halves in a Uint32Array; the state and message
 * live in fixed buffers reused by every call.
 */
import type { Common } from "@ethereumjs/common";
import { numberParam } from "./params.js";
import { failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Input length (EIP-152). */
const INPUT_BYTES = 213;
/** Offsets in the input (EIP-152). */
const H_OFFSET = 4;
const M_OFFSET = 68;
const T_OFFSET = 196;
const F_OFFSET = 212;
/** Output length: the state vector h (EIP-152). */
const OUTPUT_BYTES = 64;

/** BLAKE2b initialisation vector (RFC 7693 §2.6) as (low, high) 32-bit halves. */
const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c,
  0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

/** Message word schedule SIGMA (RFC 7693 §2.7); round i uses row i mod 10. */
const SIGMA: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];
/** SIGMA as offsets of (low, high) pairs in the 32-bit message array, flattened (10 × 16). */
const SIGMA2 = new Uint8Array(SIGMA.flatMap((row) => row.map((i) => 2 * i)));

/** The G mixing pattern of one round (RFC 7693 §3.2): columns, then diagonals, as (a, b, c, d) word indices. */
const MIX: readonly (readonly [number, number, number, number])[] = [
  [0, 4, 8, 12],
  [1, 5, 9, 13],
  [2, 6, 10, 14],
  [3, 7, 11, 15],
  [0, 5, 10, 15],
  [1, 6, 11, 12],
  [2, 7, 8, 13],
  [3, 4, 9, 14],
];
/** MIX as offsets of (low, high) pairs, flattened (8 × 4). */
const MIX2 = new Uint8Array(MIX.flatMap((g) => g.map((i) => 2 * i)));

/** Working vector v (16 words), message m (16 words) and state h (8 words), as 32-bit halves. */
const v = new Uint32Array(32);
const m = new Uint32Array(32);
const h = new Uint32Array(16);

/**
 * The G function on words a, b, c, d of `v` with message words x, y (RFC 7693 §3.1); indices
 * are offsets of the low halves. 64-bit additions carry from the low half into the high half.
 */
function mix(a: number, b: number, c: number, d: number, x: number, y: number): void {
  // a = a + b + x
  let lo = v[a]! + v[b]! + m[x]!;
  let hi = v[a + 1]! + v[b + 1]! + m[x + 1]! + Math.floor(lo / 0x100000000);
  v[a] = lo;
  v[a + 1] = hi;
  // d = (d ^ a) >>> 32
  lo = v[d]! ^ v[a]!;
  hi = v[d + 1]! ^ v[a + 1]!;
  v[d] = hi;
  v[d + 1] = lo;
  // c = c + d
  lo = v[c]! + v[d]!;
  hi = v[c + 1]! + v[d + 1]! + Math.floor(lo / 0x100000000);
  v[c] = lo;
  v[c + 1] = hi;
  // b = (b ^ c) >>> 24
  lo = v[b]! ^ v[c]!;
  hi = v[b + 1]! ^ v[c + 1]!;
  v[b] = (lo >>> 24) | (hi << 8);
  v[b + 1] = (hi >>> 24) | (lo << 8);
  // a = a + b + y
  lo = v[a]! + v[b]! + m[y]!;
  hi = v[a + 1]! + v[b + 1]! + m[y + 1]! + Math.floor(lo / 0x100000000);
  v[a] = lo;
  v[a + 1] = hi;
  // d = (d ^ a) >>> 16
  lo = v[d]! ^ v[a]!;
  hi = v[d + 1]! ^ v[a + 1]!;
  v[d] = (lo >>> 16) | (hi << 16);
  v[d + 1] = (hi >>> 16) | (lo << 16);
  // c = c + d
  lo = v[c]! + v[d]!;
  hi = v[c + 1]! + v[d + 1]! + Math.floor(lo / 0x100000000);
  v[c] = lo;
  v[c + 1] = hi;
  // b = (b ^ c) >>> 63, i.e. rotate left by 1
  lo = v[b]! ^ v[c]!;
  hi = v[b + 1]! ^ v[c + 1]!;
  v[b] = (lo << 1) | (hi >>> 31);
  v[b + 1] = (hi << 1) | (lo >>> 31);
}

/**
 * F(h, m, t, f) with `rounds` rounds (RFC 7693 §3.2, rounds generalised by EIP-152) on the
 * module buffers: reads `h` and `m`, leaves the result in `h`.
 */
function compress(rounds: number, t0: number, t1: number, t2: number, t3: number, last: boolean): void {
  v.set(h, 0);
  v.set(IV, 16);
  v[24] ^= t0;
  v[25] ^= t1;
  v[26] ^= t2;
  v[27] ^= t3;
  if (last) {
    v[28] = ~v[28]!;
    v[29] = ~v[29]!;
  }
  for (let r = 0; r < rounds; r++) {
    const s = (r % 10) * 16;
    for (let g = 0; g < 8; g++) {
      const k = g * 4;
      mix(MIX2[k]!, MIX2[k + 1]!, MIX2[k + 2]!, MIX2[k + 3]!, SIGMA2[s + 2 * g]!, SIGMA2[s + 2 * g + 1]!);
    }
  }
  for (let i = 0; i < 16; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 16]!;
}

/** The little-endian 32-bit word at `offset` of `input`. */
function le32(input: Uint8Array, offset: number): number {
  return (input[offset]! | (input[offset + 1]! << 8) | (input[offset + 2]! << 16) | (input[offset + 3]! << 24)) >>> 0;
}

/**
 * BLAKE2F at `gasPerRound` per round.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 3.6 µs for the 12 rounds of BLAKE2b (reference 12 µs).
 */
function createBlake2f(gasPerRound: number): Precompile {
  return (input, gasLimit) => {
    if (input.length !== INPUT_BYTES) return failure(gasLimit);
    const flag = input[F_OFFSET]!;
    if (flag !== 0 && flag !== 1) return failure(gasLimit);
    const rounds = ((input[0]! << 24) | (input[1]! << 16) | (input[2]! << 8) | input[3]!) >>> 0;
    const gas = rounds * gasPerRound;
    if (gasLimit < gas) return failure(gasLimit);
    for (let i = 0; i < 16; i++) h[i] = le32(input, H_OFFSET + 4 * i);
    for (let i = 0; i < 32; i++) m[i] = le32(input, M_OFFSET + 4 * i);
    compress(rounds, le32(input, T_OFFSET), le32(input, T_OFFSET + 4), le32(input, T_OFFSET + 8), le32(input, T_OFFSET + 12), flag === 1);
    const out = new Uint8Array(OUTPUT_BYTES);
    for (let i = 0; i < 16; i++) {
      const w = h[i]!;
      out[4 * i] = w;
      out[4 * i + 1] = w >>> 8;
      out[4 * i + 2] = w >>> 16;
      out[4 * i + 3] = w >>> 24;
    }
    return success(gas, out);
  };
}

/** BLAKE2F at the price of `common` (`blake2RoundGas`). */
export function blake2fPrecompile(common: Common): Precompile {
  return createBlake2f(numberParam(common, "blake2RoundGas"));
}
