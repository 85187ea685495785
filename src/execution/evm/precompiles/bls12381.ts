/**
 * The BLS12-381 precompiles of EIP-2537 (Prague): G1ADD (0x0b), G1MSM (0x0c), G2ADD (0x0d),
 * G2MSM (0x0e), PAIRING_CHECK (0x0f), MAP_FP_TO_G1 (0x10), MAP_FP2_TO_G2 (0x11).
 *
 * Encoding (EIP-2537): a base-field element is 64 bytes whose top 16 bytes must be zero and
 * whose value must be < p; an Fp2 element is c0 ‖ c1; a G1 point is x ‖ y (128 bytes), a G2
 * point x ‖ y over Fp2 (256 bytes); all zeros is the point at infinity; a scalar is 32 bytes,
 * any value (reduced mod r). Points must lie on the curve; the MSM and pairing inputs must also
 * lie in the order-r subgroup, the ADD inputs need not.
 *
 * Same checks, order-insensitive, as the reference (@ethereumjs/evm 10.1.3 `precompile0b`…
 * `precompile11` with `NobleBLS`, all on @noble/curves); any failure consumes all the gas
 * given. Two differences in *how*, not *what*: the ADD precompiles test only the curve equation
 * where the reference also runs the subgroup check and ignores its result, and the MSMs of three
 * or more pairs use Pippenger's method where the reference multiplies and adds pair by pair
 * (the same sum).
 */
import type { Common } from "@ethereumjs/common";
import { pippenger } from "@noble/curves/abstract/curve.js";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { G1_MSM_DISCOUNT, G2_MSM_DISCOUNT, msmGas } from "./bls12381Gas.js";
import { isZero, readBigInt, writeBigInt } from "./bytes.js";
import { numberParam } from "./params.js";
import { failure, success } from "./result.js";
import type { Precompile } from "./types.js";

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
/** A BLS12-381 G1 point of @noble/curves. */
type G1Point = ReturnType<typeof G1.fromAffine>;
/** A BLS12-381 G2 point of @noble/curves. */
type G2Point = ReturnType<typeof G2.fromAffine>;
/** An Fp2 element of @noble/curves. */
type Fp2Element = ReturnType<typeof Fp2.create>;

/** Bytes of an encoded base-field element, of which the top 16 must be zero (EIP-2537). */
const FP_BYTES = 64;
/** Leading zero bytes of an encoded base-field element (EIP-2537). */
const FP_PADDING = 16;
/** Bytes of an encoded G1 / G2 point (EIP-2537). */
const G1_BYTES = 2 * FP_BYTES;
const G2_BYTES = 4 * FP_BYTES;
/** Bytes of an encoded scalar (EIP-2537). */
const SCALAR_BYTES = 32;
/** Bytes of one G1MSM / G2MSM / pairing item (EIP-2537). */
const G1_MSM_ITEM_BYTES = G1_BYTES + SCALAR_BYTES;
const G2_MSM_ITEM_BYTES = G2_BYTES + SCALAR_BYTES;
const PAIRING_ITEM_BYTES = G1_BYTES + G2_BYTES;
/** Output of PAIRING_CHECK: the word 1 or 0 (EIP-2537). */
const PAIRING_OUTPUT_BYTES = 32;
/**
 * Pair count from which an MSM uses Pippenger's bucket method rather than one multiplication per
 * pair (one-off node script, the multiplications alone: even at 1–2 pairs, ≈ 1.6× faster at 8,
 * several times at 32 and more).
 */
const PIPPENGER_MIN_PAIRS = 3;

/** Curve coefficients of y² = x³ + a·x + b: G1 over Fp, G2 (the twist) over Fp2 (EIP-2537, "Curve parameters"). */
const G1_CURVE = G1.CURVE();
const G2_CURVE = G2.CURVE();

/** Invalid input: caught at the precompile boundary and turned into a failure. */
class InvalidInput extends Error {}

/** The base-field element at `offset`: top 16 bytes zero and value < p, else throws. */
function readFp(data: Uint8Array, offset: number): bigint {
  if (!isZero(data, offset, FP_PADDING)) throw new InvalidInput("nonzero padding");
  const v = readBigInt(data, offset + FP_PADDING, FP_BYTES - FP_PADDING);
  if (v >= Fp.ORDER) throw new InvalidInput("not in the field");
  return v;
}

/** The Fp2 element c0 ‖ c1 at `offset`. */
function readFp2(data: Uint8Array, offset: number): Fp2Element {
  return Fp2.create({ c0: readFp(data, offset), c1: readFp(data, offset + FP_BYTES) });
}

/** The G1 point at `offset`, on the curve, in the subgroup when `subgroup`; else throws. */
function readG1(data: Uint8Array, offset: number, subgroup: boolean): G1Point {
  const x = readFp(data, offset);
  const y = readFp(data, offset + FP_BYTES);
  if (x === 0n && y === 0n) return G1.ZERO;
  const p = G1.fromAffine({ x, y });
  if (subgroup) p.assertValidity();
  else if (!Fp.eql(Fp.sqr(y), Fp.add(Fp.mul(Fp.add(Fp.sqr(x), G1_CURVE.a), x), G1_CURVE.b))) throw new InvalidInput("not on the curve");
  return p;
}

/** The G2 point at `offset`, on the curve, in the subgroup when `subgroup`; else throws. */
function readG2(data: Uint8Array, offset: number, subgroup: boolean): G2Point {
  const x = readFp2(data, offset);
  const y = readFp2(data, offset + 2 * FP_BYTES);
  if (Fp2.is0(x) && Fp2.is0(y)) return G2.ZERO;
  const p = G2.fromAffine({ x, y });
  if (subgroup) p.assertValidity();
  else if (!Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.mul(Fp2.add(Fp2.sqr(x), G2_CURVE.a), x), G2_CURVE.b))) throw new InvalidInput("not on the curve");
  return p;
}

/** The scalar at `offset`, reduced mod r (EIP-2537 scalars may exceed r). */
function readScalar(data: Uint8Array, offset: number): bigint {
  return Fr.create(readBigInt(data, offset, SCALAR_BYTES));
}

/** `p` encoded as 128 bytes (infinity: zeros). */
function encodeG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(G1_BYTES);
  const { x, y } = p.toAffine();
  writeBigInt(out, 0, FP_BYTES, x);
  writeBigInt(out, FP_BYTES, FP_BYTES, y);
  return out;
}

/** `p` encoded as 256 bytes (infinity: zeros). */
function encodeG2(p: G2Point): Uint8Array {
  const out = new Uint8Array(G2_BYTES);
  const { x, y } = p.toAffine();
  writeBigInt(out, 0, FP_BYTES, x.c0);
  writeBigInt(out, FP_BYTES, FP_BYTES, x.c1);
  writeBigInt(out, 2 * FP_BYTES, FP_BYTES, y.c0);
  writeBigInt(out, 3 * FP_BYTES, FP_BYTES, y.c1);
  return out;
}

/** Runs `compute` (which throws on invalid input) as a precompile body charging `gas`. */
function guarded(gas: number, gasLimit: number, compute: () => Uint8Array): ReturnType<Precompile> {
  try {
    return success(gas, compute());
  } catch {
    return failure(gasLimit);
  }
}

/**
 * G1ADD (0x0b) at `gas` (`bls12381G1AddGas`, 375): input exactly 256 bytes.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 65–90 µs (reference 2.6 ms: it runs the subgroup checks and ignores them).
 */
function createG1Add(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas || input.length !== 2 * G1_BYTES) return failure(gasLimit);
    return guarded(gas, gasLimit, () => encodeG1(readG1(input, 0, false).add(readG1(input, G1_BYTES, false))));
  };
}

/**
 * G2ADD (0x0d) at `gas` (`bls12381G2AddGas`, 600): input exactly 512 bytes.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 110–160 µs (reference 4.4 ms).
 */
function createG2Add(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas || input.length !== 2 * G2_BYTES) return failure(gasLimit);
    return guarded(gas, gasLimit, () => encodeG2(readG2(input, 0, false).add(readG2(input, G2_BYTES, false))));
  };
}

/** Σ scalars[i] · points[i]: one multiplication per pair, or Pippenger's method from {@link PIPPENGER_MIN_PAIRS} pairs. */
function msm<P extends G1Point | G2Point>(cons: typeof G1 | typeof G2, points: P[], scalars: bigint[]): P {
  if (points.length >= PIPPENGER_MIN_PAIRS) return pippenger(cons as never, points as never[], scalars) as P;
  let sum = cons.ZERO as P;
  for (let i = 0; i < points.length; i++) sum = sum.add(points[i]!.multiplyUnsafe(scalars[i]!) as never) as P;
  return sum;
}

/**
 * G1MSM (0x0c): k pairs of a G1 point (subgroup-checked) and a scalar, 160 bytes each, k ≥ 1;
 * priced `msmGas(k, bls12381G1MulGas = 12,000)`.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 4–5.5 ms for 1 pair, 24–36 ms for 8, 65–90 ms for 32 (reference 4, 29, 115 ms); the
 * subgroup checks are most of it.
 */
function createG1Msm(perPair: number): Precompile {
  return (input, gasLimit) => {
    if (input.length === 0) return failure(gasLimit);
    const pairs = Math.floor(input.length / G1_MSM_ITEM_BYTES);
    const gas = msmGas(pairs, perPair, G1_MSM_DISCOUNT);
    if (gasLimit < gas || input.length % G1_MSM_ITEM_BYTES !== 0) return failure(gasLimit);
    return guarded(gas, gasLimit, () => {
      const points: G1Point[] = [];
      const scalars: bigint[] = [];
      for (let offset = 0; offset < input.length; offset += G1_MSM_ITEM_BYTES) {
        const point = readG1(input, offset, true);
        const scalar = readScalar(input, offset + G1_BYTES);
        // Terms with the point at infinity or a zero scalar add nothing (but their point is still checked).
        if (scalar !== 0n && !point.is0()) {
          points.push(point);
          scalars.push(scalar);
        }
      }
      return encodeG1(msm(G1, points, scalars));
    });
  };
}

/**
 * G2MSM (0x0e): k pairs of a G2 point (subgroup-checked) and a scalar, 288 bytes each, k ≥ 1;
 * priced `msmGas(k, bls12381G2MulGas = 22,500)`.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 10–16 ms for 1 pair, 65–92 ms for 8 (reference 11, 80 ms).
 */
function createG2Msm(perPair: number): Precompile {
  return (input, gasLimit) => {
    if (input.length === 0) return failure(gasLimit);
    const pairs = Math.floor(input.length / G2_MSM_ITEM_BYTES);
    const gas = msmGas(pairs, perPair, G2_MSM_DISCOUNT);
    if (gasLimit < gas || input.length % G2_MSM_ITEM_BYTES !== 0) return failure(gasLimit);
    return guarded(gas, gasLimit, () => {
      const points: G2Point[] = [];
      const scalars: bigint[] = [];
      for (let offset = 0; offset < input.length; offset += G2_MSM_ITEM_BYTES) {
        const point = readG2(input, offset, true);
        const scalar = readScalar(input, offset + G2_BYTES);
        // Terms with the point at infinity or a zero scalar add nothing (but their point is still checked).
        if (scalar !== 0n && !point.is0()) {
          points.push(point);
          scalars.push(scalar);
        }
      }
      return encodeG2(msm(G2, points, scalars));
    });
  };
}

/**
 * PAIRING_CHECK (0x0f): k ≥ 1 pairs of a G1 and a G2 point (both subgroup-checked), 384 bytes
 * each; output the word 1 when the product of the pairings is 1, else 0 (pairs with an
 * infinity contribute 1). Priced `base + perPair × k` (`bls12381PairingBaseGas` 37,700,
 * `bls12381PairingPerPairGas` 32,600).
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 18 ms for 2 pairs (as the reference: same @noble/curves pairing).
 */
function createPairing(base: number, perPair: number): Precompile {
  return (input, gasLimit) => {
    if (input.length === 0 || input.length % PAIRING_ITEM_BYTES !== 0) return failure(gasLimit);
    const gas = base + perPair * (input.length / PAIRING_ITEM_BYTES);
    if (gasLimit < gas) return failure(gasLimit);
    return guarded(gas, gasLimit, () => {
      const pairs: { g1: G1Point; g2: G2Point }[] = [];
      for (let offset = 0; offset < input.length; offset += PAIRING_ITEM_BYTES) {
        const g1 = readG1(input, offset, true);
        const g2 = readG2(input, offset + G1_BYTES, true);
        if (!g1.is0() && !g2.is0()) pairs.push({ g1, g2 });
      }
      const out = new Uint8Array(PAIRING_OUTPUT_BYTES);
      if (Fp12.eql(bls12_381.pairingBatch(pairs, true), Fp12.ONE)) out[PAIRING_OUTPUT_BYTES - 1] = 1;
      return out;
    });
  };
}

/** MAP_FP_TO_G1 / MAP_FP2_TO_G2 map-to-curve functions of @noble/curves (RFC 9380 SSWU + isogeny + cofactor clearing), as the reference calls them. */
const mapToG1 = bls12_381.G1.mapToCurve as unknown as (u: bigint) => G1Point;
const mapToG2 = bls12_381.G2.mapToCurve as unknown as (u: [bigint, bigint]) => G2Point;

/**
 * MAP_FP_TO_G1 (0x10) at `gas` (`bls12381MapG1Gas`, 5,500): input exactly one 64-byte field
 * element.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 2.2–2.6 ms (as the reference).
 */
function createMapFpToG1(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas || input.length !== FP_BYTES) return failure(gasLimit);
    return guarded(gas, gasLimit, () => encodeG1(mapToG1(readFp(input, 0))));
  };
}

/**
 * MAP_FP2_TO_G2 (0x11) at `gas` (`bls12381MapG2Gas`, 23,800): input exactly one 128-byte Fp2
 * element.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 8–11 ms (as the reference).
 */
function createMapFp2ToG2(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas || input.length !== 2 * FP_BYTES) return failure(gasLimit);
    return guarded(gas, gasLimit, () => encodeG2(mapToG2([readFp(input, 0), readFp(input, FP_BYTES)])));
  };
}

/** The seven EIP-2537 precompiles at the prices of `common`, by address. */
export function bls12381Precompiles(common: Common): ReadonlyMap<number, Precompile> {
  return new Map<number, Precompile>([
    [0x0b, createG1Add(numberParam(common, "bls12381G1AddGas"))],
    [0x0c, createG1Msm(numberParam(common, "bls12381G1MulGas"))],
    [0x0d, createG2Add(numberParam(common, "bls12381G2AddGas"))],
    [0x0e, createG2Msm(numberParam(common, "bls12381G2MulGas"))],
    [0x0f, createPairing(numberParam(common, "bls12381PairingBaseGas"), numberParam(common, "bls12381PairingPerPairGas"))],
    [0x10, createMapFpToG1(numberParam(common, "bls12381MapG1Gas"))],
    [0x11, createMapFp2ToG2(numberParam(common, "bls12381MapG2Gas"))],
  ]);
}
