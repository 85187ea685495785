/**
 * The alt_bn128 (BN254) precompiles: ECADD (0x06) and ECMUL (0x07) of EIP-196, the pairing check
 * ECPAIRING (0x08) of EIP-197, all Byzantium, at the prices of EIP-1108 (Istanbul) where the
 * Common has them.
 *
 * Same validation as the reference (@ethereumjs/evm 10.1.3 `NobleBN254` on @noble/curves): a
 * point is 64 bytes `x ‖ y` (all zeros = infinity) with x, y < p on the curve; a G2 point is
 * 128 bytes `x.im ‖ x.re ‖ y.im ‖ y.re` with each coordinate < p, on the twist and in the
 * order-r subgroup. ECADD/ECMUL inputs are right-padded with zeros or truncated to 128 bytes
 * (ECMUL reads 96); the ECMUL scalar is reduced mod r. ECPAIRING needs a multiple of 192
 * bytes; a pair with an infinity on either side is skipped (after both points are checked).
 * Any invalid point is a failure that consumes all the gas given.
 */
import type { Common } from "@ethereumjs/common";
import { bn254 } from "@noble/curves/bn254.js";
import { isZero, readBigInt, writeBigInt } from "./bytes.js";
import { numberParam } from "./params.js";
import { failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** A BN254 G1 point of @noble/curves. */
type G1Point = InstanceType<typeof bn254.G1.Point>;
/** A BN254 G2 point of @noble/curves. */
type G2Point = InstanceType<typeof bn254.G2.Point>;

const { Fp, Fp2, Fp12, Fr } = bn254.fields;
const G1 = bn254.G1.Point;
const G2 = bn254.G2.Point;

/** Bytes of a field element (EIP-196). */
const FIELD_BYTES = 32;
/** Bytes of an encoded G1 point, `x ‖ y` (EIP-196). */
const G1_BYTES = 64;
/** Bytes of an encoded G2 point (EIP-197). */
const G2_BYTES = 128;
/** Bytes of one ECPAIRING pair, G1 then G2 (EIP-197). */
const PAIR_BYTES = G1_BYTES + G2_BYTES;
/** Input bytes ECADD/ECMUL read, the rest zero-padded or ignored (EIP-196). */
const ADD_MUL_INPUT_BYTES = 128;
/** Output bytes of ECPAIRING: the word 1 or 0 (EIP-197). */
const PAIRING_OUTPUT_BYTES = 32;

/** Scratch for a zero-padded ECADD/ECMUL input (the precompiles are synchronous). */
const scratch = new Uint8Array(ADD_MUL_INPUT_BYTES);

/** `input` right-padded with zeros or truncated to 128 bytes, in the shared scratch buffer (or `input` itself when long enough). */
function padded(input: Uint8Array): Uint8Array {
  if (input.length >= ADD_MUL_INPUT_BYTES) return input;
  scratch.set(input);
  scratch.fill(0, input.length);
  return scratch;
}

/** The G1 point at `offset` of `data`; throws when off the curve or a coordinate is ≥ p. */
function readG1(data: Uint8Array, offset: number): G1Point {
  if (isZero(data, offset, G1_BYTES)) return G1.ZERO;
  const p = G1.fromAffine({ x: readBigInt(data, offset, FIELD_BYTES), y: readBigInt(data, offset + FIELD_BYTES, FIELD_BYTES) });
  p.assertValidity();
  return p;
}

/** The field element at `offset`; throws when ≥ p. */
function readFp(data: Uint8Array, offset: number): bigint {
  const v = readBigInt(data, offset, FIELD_BYTES);
  if (v >= Fp.ORDER) throw new RangeError("BN254 coordinate not in the field");
  return v;
}

/** The G2 point at `offset` of `data`; throws when a coordinate is ≥ p, off the twist or outside the subgroup. */
function readG2(data: Uint8Array, offset: number): G2Point {
  if (isZero(data, offset, G2_BYTES)) return G2.ZERO;
  const xIm = readFp(data, offset);
  const xRe = readFp(data, offset + FIELD_BYTES);
  const yIm = readFp(data, offset + 2 * FIELD_BYTES);
  const yRe = readFp(data, offset + 3 * FIELD_BYTES);
  const p = G2.fromAffine({ x: Fp2.create({ c0: xRe, c1: xIm }), y: Fp2.create({ c0: yRe, c1: yIm }) });
  p.assertValidity();
  return p;
}

/** `p` encoded as 64 bytes `x ‖ y` (infinity: zeros). */
function encodeG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(G1_BYTES);
  const { x, y } = p.toAffine();
  writeBigInt(out, 0, FIELD_BYTES, x);
  writeBigInt(out, FIELD_BYTES, FIELD_BYTES, y);
  return out;
}

/**
 * ECADD (0x06) at `gas` (`bn254AddGas`: 500, 150 from EIP-1108).
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 45–50 µs (reference 54 µs).
 */
function createBn254Add(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas) return failure(gasLimit);
    try {
      const data = padded(input);
      return success(gas, encodeG1(readG1(data, 0).add(readG1(data, G1_BYTES))));
    } catch {
      return failure(gasLimit);
    }
  };
}

/**
 * ECMUL (0x07) at `gas` (`bn254MulGas`: 40,000, 6,000 from EIP-1108).
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 1.9–2 ms for a full-size scalar (reference 3.4 ms).
 */
function createBn254Mul(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas) return failure(gasLimit);
    try {
      const data = padded(input);
      const p = readG1(data, 0);
      const scalar = Fr.create(readBigInt(data, G1_BYTES, FIELD_BYTES));
      if (scalar === 0n) return success(gas, new Uint8Array(G1_BYTES));
      // Variable-time multiplication: the inputs are public (the reference uses the constant-time one; same result).
      return success(gas, encodeG1(p.multiplyUnsafe(scalar)));
    } catch {
      return failure(gasLimit);
    }
  };
}

/**
 * ECPAIRING (0x08) at `base` + `perPair` × pairs (`bn254PairingGas` 100,000 / 45,000 and
 * `bn254PairingWordGas` 80,000 / 34,000 before / from EIP-1108).
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 20–25 ms for two pairs (as the reference: same @noble/curves pairing).
 */
function createBn254Pairing(base: number, perPair: number): Precompile {
  return (input, gasLimit) => {
    if (input.length % PAIR_BYTES !== 0) return failure(gasLimit);
    const pairCount = input.length / PAIR_BYTES;
    const gas = base + perPair * pairCount;
    if (gasLimit < gas) return failure(gasLimit);
    try {
      const pairs: { g1: G1Point; g2: G2Point }[] = [];
      for (let offset = 0; offset < input.length; offset += PAIR_BYTES) {
        const g1 = readG1(input, offset);
        const g2 = readG2(input, offset + G1_BYTES);
        if (g1 === G1.ZERO || g2 === G2.ZERO) continue;
        pairs.push({ g1, g2 });
      }
      const out = new Uint8Array(PAIRING_OUTPUT_BYTES);
      if (Fp12.eql(bn254.pairingBatch(pairs), Fp12.ONE)) out[PAIRING_OUTPUT_BYTES - 1] = 1;
      return success(gas, out);
    } catch {
      return failure(gasLimit);
    }
  };
}

/** ECADD at the price of `common`. */
export function bn254AddPrecompile(common: Common): Precompile {
  return createBn254Add(numberParam(common, "bn254AddGas"));
}

/** ECMUL at the price of `common`. */
export function bn254MulPrecompile(common: Common): Precompile {
  return createBn254Mul(numberParam(common, "bn254MulGas"));
}

/** ECPAIRING at the prices of `common`. */
export function bn254PairingPrecompile(common: Common): Precompile {
  return createBn254Pairing(numberParam(common, "bn254PairingGas"), numberParam(common, "bn254PairingWordGas"));
}
