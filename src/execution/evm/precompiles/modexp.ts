/**
 * MODEXP (0x05, EIP-198, Byzantium): `base ^ exp mod modulus` over big-endian integers of
 * arbitrary length.
 *
 * Input: three 32-byte lengths `Bsize ‖ Esize ‖ Msize`, then `B ‖ E ‖ M`; everything past the
 * input reads as zeros. Output: the result left-padded to `Msize` bytes (all zeros when M = 0).
 * Pricing, by the rules `common` activates:
 * - EIP-198: `mult_complexity(max(Bsize, Msize)) × max(adjusted_exp_len, 1) / 20`;
 * - EIP-2565 (Berlin): `ceil(max / 8)² × max(adjusted_exp_len, 1) / 3`, at least 200;
 * - EIP-7883 (Osaka): `(max ≤ 32 ? 16 : 2 × ceil(max / 8)²) × adjusted_exp_len` with 16 (not 8)
 *   per exponent byte beyond the first 32, at least 500;
 * - EIP-7823 (Osaka): each length above 1,024 bytes fails (after the gas check).
 *
 * Reference quirks kept (@ethereumjs/evm 10.1.3 `precompile05`): before EIP-7823, Bsize = Msize
 * = 0 succeeds with empty output right after the gas check, and a length above 2^31 − 1 fails
 * (unreachable within any block gas limit, as such a length prices far above it).
 */
import type { Common } from "@ethereumjs/common";
import { numberParam } from "./params.js";
import { EMPTY_OUTPUT, failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Bytes of the length header: three 32-byte words (EIP-198). */
const HEADER_BYTES = 96;
/** Bytes of one length word / of the exponent head that prices the exponent (EIP-198). */
const WORD_BYTES = 32;
/** EIP-7823's bound on each of Bsize, Esize, Msize, in bytes. */
const EIP7823_MAX_LENGTH = 1024n;
/** The bound @ethereumjs applies without EIP-7823 (its `setLengthRight` limit, 2^31 − 1). */
const LEGACY_MAX_LENGTH = 2_147_483_647n;
/** EIP-2565 minimum price. */
const EIP2565_MIN_GAS = 200n;
/** EIP-7883 minimum price. */
const EIP7883_MIN_GAS = 500n;
/** EIP-7883 multiplication complexity for max(Bsize, Msize) ≤ 32. */
const EIP7883_SMALL_COMPLEXITY = 16n;
/** Exponent-length multiplier per byte past the first 32: 8 (EIP-198), 16 (EIP-7883). */
const EXP_BYTE_MULTIPLIER_EIP198 = 8n;
const EXP_BYTE_MULTIPLIER_EIP7883 = 16n;

/** The pricing and bounds rules active at a fork. */
interface ModexpRules {
  /** EIP-2565 pricing (Berlin). */
  eip2565: boolean;
  /** EIP-7883 pricing (Osaka). */
  eip7883: boolean;
  /** EIP-7823 length bounds (Osaka). */
  eip7823: boolean;
  /** `modexpGquaddivisorGas`: 20 (EIP-198), 3 (EIP-2565). */
  quadDivisor: bigint;
}

/** The 32-byte big-endian word at `offset` of `input`, zero-extended past its end. */
function readWord(input: Uint8Array, offset: number): bigint {
  return readUint(input, offset, WORD_BYTES);
}

/**
 * The unsigned big-endian integer of `length` bytes at `offset` of `input`, the bytes past the
 * input's end read as zeros (EIP-198). `offset + length` may lie far past the input.
 */
function readUint(input: Uint8Array, offset: number, length: number): bigint {
  if (length === 0 || offset >= input.length) return 0n;
  const end = Math.min(offset + length, input.length);
  const hex = Buffer.from(input.buffer, input.byteOffset + offset, end - offset).toString("hex");
  const value = BigInt("0x" + hex);
  const missing = offset + length - end;
  return missing === 0 || value === 0n ? value : value << BigInt(missing * 8);
}

/** Index of the highest set bit of `x` (0 for 1), −1 for 0. */
function highestBit(x: bigint): number {
  return x === 0n ? -1 : x.toString(2).length - 1;
}

/** EIP-198 `mult_complexity(x)` (before EIP-2565). */
function multComplexityEip198(x: bigint): bigint {
  if (x <= 64n) return x * x;
  if (x <= 1024n) return (x * x) / 4n + 96n * x - 3072n;
  return (x * x) / 16n + 480n * x - 199_680n;
}

/** The price of an input with these lengths; the exponent head is read from `input`. */
function modexpGas(input: Uint8Array, bLen: bigint, eLen: bigint, mLen: bigint, rules: ModexpRules): bigint {
  // The first 32 bytes of the exponent (past the input: zeros), keeping only Esize of them.
  let head = bLen < BigInt(input.length) ? readWord(input, HEADER_BYTES + Number(bLen)) : 0n;
  if (eLen < 32n) head >>= 8n * (32n - eLen);
  const bits = highestBit(head);
  let adjusted = (eLen > 32n ? eLen - 32n : 0n) * (rules.eip7883 ? EXP_BYTE_MULTIPLIER_EIP7883 : EXP_BYTE_MULTIPLIER_EIP198);
  if (bits > 0) adjusted += BigInt(bits);
  if (adjusted < 1n) adjusted = 1n;
  const maxLen = bLen > mLen ? bLen : mLen;
  if (!rules.eip2565) return (adjusted * multComplexityEip198(maxLen)) / rules.quadDivisor;
  const words = (maxLen + 7n) / 8n;
  if (rules.eip7883) {
    const gas = adjusted * (maxLen > 32n ? 2n * words * words : EIP7883_SMALL_COMPLEXITY);
    return gas < EIP7883_MIN_GAS ? EIP7883_MIN_GAS : gas;
  }
  const gas = (adjusted * words * words) / rules.quadDivisor;
  return gas < EIP2565_MIN_GAS ? EIP2565_MIN_GAS : gas;
}

/** Exponent bit length from which each window size pays off (k-ary sliding window; HAC 14.85). */
const WINDOW_THRESHOLDS: readonly (readonly [minBits: number, window: number])[] = [
  [672, 6],
  [240, 5],
  [80, 4],
  [24, 3],
];

/**
 * `base ^ exp mod m` for m ≥ 1: left-to-right sliding-window exponentiation (HAC algorithm
 * 14.85), about a quarter fewer multiplications than square-and-multiply for long exponents.
 */
export function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  if (m === 1n) return 0n;
  if (exp === 0n) return 1n;
  const b = base % m;
  if (b === 0n) return 0n;
  const bits = exp.toString(2);
  const n = bits.length;
  let window = 1;
  for (const [minBits, w] of WINDOW_THRESHOLDS) {
    if (n >= minBits) {
      window = w;
      break;
    }
  }
  // Odd powers b, b^3, …, b^(2^window − 1).
  const odd: bigint[] = [b];
  if (window > 1) {
    const b2 = (b * b) % m;
    for (let i = 1; i < 1 << (window - 1); i++) odd.push((odd[i - 1]! * b2) % m);
  }
  let r = 1n;
  let started = false;
  let i = 0;
  while (i < n) {
    if (bits.charCodeAt(i) === 0x30) {
      if (started) r = (r * r) % m;
      i++;
      continue;
    }
    // The longest window of at most `window` bits starting here that ends in a 1.
    let j = Math.min(i + window, n);
    while (bits.charCodeAt(j - 1) === 0x30) j--;
    let value = 0;
    for (let k = i; k < j; k++) {
      value = value * 2 + (bits.charCodeAt(k) - 0x30);
      if (started) r = (r * r) % m;
    }
    const factor = odd[(value - 1) >> 1]!;
    r = started ? (r * factor) % m : factor;
    started = true;
    i = j;
  }
  return r;
}

/** `value` (< 256^length) as `length` big-endian bytes. */
function toBytes(value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  if (value === 0n) return out;
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = "0" + hex;
  out.set(Buffer.from(hex, "hex"), length - hex.length / 2);
  return out;
}

/** The MODEXP precompile under `rules`. */
function createModexp(rules: ModexpRules): Precompile {
  const maxLength = rules.eip7823 ? EIP7823_MAX_LENGTH : LEGACY_MAX_LENGTH;
  return (input, gasLimit) => {
    const bLen = readWord(input, 0);
    const eLen = readWord(input, WORD_BYTES);
    const mLen = readWord(input, 2 * WORD_BYTES);
    const gasBig = modexpGas(input, bLen, eLen, mLen, rules);
    if (gasBig > BigInt(gasLimit)) return failure(gasLimit);
    const gas = Number(gasBig);
    if (!rules.eip7823 && bLen === 0n && mLen === 0n) return success(gas, EMPTY_OUTPUT);
    if (bLen > maxLength || eLen > maxLength || mLen > maxLength) return failure(gasLimit);
    const b = Number(bLen);
    const e = Number(eLen);
    const mBytes = Number(mLen);
    try {
      // A nonzero modulus starts inside the input, so base and exponent lie wholly in it.
      const modulus = readUint(input, HEADER_BYTES + b + e, mBytes);
      if (modulus === 0n) return success(gas, new Uint8Array(mBytes));
      const base = readUint(input, HEADER_BYTES, b);
      const exp = readUint(input, HEADER_BYTES + b, e);
      return success(gas, toBytes(modPow(base, exp, modulus), mBytes));
    } catch {
      // Defensive: nothing above throws for lengths within the bounds (kept so a precompile never throws).
      return failure(gasLimit);
    }
  };
}

/**
 * MODEXP with the rules of `common`: EIP-2565 (Berlin), EIP-7883 and EIP-7823 (Osaka) where
 * active.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 90 µs with 32-byte base, exponent and modulus, ≈ 1.9 ms at 128 bytes, ≈ 11 ms at 256
 * (reference 150 µs, 2.6 ms, 15 ms).
 */
export function modexpPrecompile(common: Common): Precompile {
  return createModexp({
    eip2565: common.isActivatedEIP(2565),
    eip7883: common.isActivatedEIP(7883),
    eip7823: common.isActivatedEIP(7823),
    quadDivisor: BigInt(numberParam(common, "modexpGquaddivisorGas")),
  });
}
