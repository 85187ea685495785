/**
 * OP Stack EIP-1559: the header `extraData` encodings of Holocene and Jovian and the base fee of
 * the next block, as op-reth / base-reth-node compute it.
 *
 * - Holocene `extraData` (9 bytes): `0x00 ++ denominator u32 ++ elasticity u32`
 *   (specs/protocol/holocene/exec-engine.md "EIP-1559 Parameters in Block Header");
 * - Jovian `extraData` (17 bytes): `0x01 ++ denominator u32 ++ elasticity u32 ++ minBaseFee u64`
 *   (specs/protocol/jovian/exec-engine.md "Minimum Base Fee in Block Header");
 * - encoding from payload attributes: `eip1559Params` all zero → the chain's default parameters
 *   (base/base crates/alloy/consensus/src/extra/{mod,holocene,jovian}.rs);
 * - next base fee: base/base crates/execution/chainspec/src/{spec,basefee}.rs — the rule is chosen
 *   by the **parent's** timestamp (Jovian parent: params + min base fee from the parent's
 *   extraData and `max(gasUsed, blobGasUsed)`; Holocene parent: params from the parent's
 *   extraData; otherwise the chain constants, with the Canyon denominator when Canyon is active
 *   at the child's timestamp). Zero params in the parent's extraData mean the chain constants at
 *   the child's timestamp. The core formula is alloy-eips `calc_next_block_base_fee`.
 */
import { TypedError } from "../../util/errors.js";
import { OpFork, opForkAt, type OpChainConfig } from "./forks.js";

/** Version byte of Holocene `extraData` (specs holocene/exec-engine.md). */
const HOLOCENE_EXTRA_DATA_VERSION = 0;
/** Length of Holocene `extraData`: version + two u32. */
const HOLOCENE_EXTRA_DATA_LENGTH = 9;
/** Version byte of Jovian `extraData` (specs jovian/exec-engine.md). */
const JOVIAN_EXTRA_DATA_VERSION = 1;
/** Length of Jovian `extraData`: Holocene layout + u64 min base fee. */
const JOVIAN_EXTRA_DATA_LENGTH = 17;
/** Length of the `eip1559Params` payload attribute: denominator u32 ++ elasticity u32 (specs holocene/exec-engine.md). */
export const EIP1559_PARAMS_LENGTH = 8;
/** Largest u32 (denominator and elasticity are u32 in extraData). */
const U32_MAX = 0xffffffff;
/** Largest u64 (min base fee is a u64). */
const U64_MAX = (1n << 64n) - 1n;

/** A {@link Eip1559ParamsError}'s stable code with its metadata. */
type Eip1559ParamsErrorType =
  | { code: "OP_EIP1559_PARAMS_INVALID"; minBaseFee?: string; length?: number; denominator?: number; elasticity?: number; gasLimit?: string; gasUsed?: string }
  | { code: "OP_EXTRA_DATA_INVALID_LENGTH"; length: number; expected: number }
  | { code: "OP_EXTRA_DATA_INVALID_VERSION"; version: number; expected: number }
  | { code: "OP_EXTRA_DATA_PRE_HOLOCENE"; fork: number }
  | { code: "OP_MIN_BASE_FEE_NOT_SET" }
  | { code: "OP_MIN_BASE_FEE_MUST_BE_NONE" };

/** Malformed OP `extraData` / `eip1559Params`, or parameters the base-fee formula cannot use. */
export class Eip1559ParamsError extends TypedError<Eip1559ParamsErrorType> {}

/** EIP-1559 parameters decoded from OP `extraData`. */
interface OpExtraDataParams {
  /** Base-fee max change denominator. */
  denominator: number;
  /** Elasticity multiplier (gas target = gas limit / elasticity). */
  elasticity: number;
  /** Jovian minimum base fee (wei); absent for Holocene extraData. */
  minBaseFee?: bigint;
}

/** Default EIP-1559 parameters (chain constants) used when `eip1559Params` is all zero. */
interface Eip1559Defaults {
  denominator: number;
  elasticity: number;
}

function checkU32(name: "denominator" | "elasticity", v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > U32_MAX) {
    throw new Eip1559ParamsError({ code: "OP_EIP1559_PARAMS_INVALID", [name]: v }, `${name} ${v} is not a u32`);
  }
}

function writeU32(out: Uint8Array, offset: number, v: number): void {
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(offset, v, false);
}

function readU32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, false);
}

/** Holocene `extraData`: `0x00 ++ denominator u32 BE ++ elasticity u32 BE` (9 bytes). */
export function encodeHoloceneExtraData(denominator: number, elasticity: number): Uint8Array {
  checkU32("denominator", denominator);
  checkU32("elasticity", elasticity);
  const out = new Uint8Array(HOLOCENE_EXTRA_DATA_LENGTH);
  out[0] = HOLOCENE_EXTRA_DATA_VERSION;
  writeU32(out, 1, denominator);
  writeU32(out, 5, elasticity);
  return out;
}

/** Jovian `extraData`: `0x01 ++ denominator u32 ++ elasticity u32 ++ minBaseFee u64` (17 bytes, big-endian). */
export function encodeJovianExtraData(denominator: number, elasticity: number, minBaseFee: bigint): Uint8Array {
  checkU32("denominator", denominator);
  checkU32("elasticity", elasticity);
  if (minBaseFee < 0n || minBaseFee > U64_MAX) {
    throw new Eip1559ParamsError({ code: "OP_EIP1559_PARAMS_INVALID", minBaseFee: minBaseFee.toString() }, `minBaseFee ${minBaseFee} is not a u64`);
  }
  const out = new Uint8Array(JOVIAN_EXTRA_DATA_LENGTH);
  out[0] = JOVIAN_EXTRA_DATA_VERSION;
  writeU32(out, 1, denominator);
  writeU32(out, 5, elasticity);
  new DataView(out.buffer).setBigUint64(9, minBaseFee, false);
  return out;
}

function decodeVersioned(extraData: Uint8Array, version: number, length: number, name: string): void {
  if (extraData.length !== length) {
    throw new Eip1559ParamsError({ code: "OP_EXTRA_DATA_INVALID_LENGTH", length: extraData.length, expected: length }, `${name} extraData has ${extraData.length} bytes, exactly ${length} expected (version ${version} layout)`);
  }
  if (extraData[0] !== version) {
    throw new Eip1559ParamsError({ code: "OP_EXTRA_DATA_INVALID_VERSION", version: extraData[0], expected: version }, `${name} extraData has version byte ${extraData[0]}, ${version} expected`);
  }
}

/**
 * Decodes OP `extraData` for a block of fork `fork`: Jovian+ → 17-byte version-1 layout (with
 * `minBaseFee`), Holocene/Isthmus → 9-byte version-0 layout. Like op-alloy, zero parameters are
 * returned as is (they mean "chain defaults" to the base-fee computation).
 * @throws Eip1559ParamsError on a wrong length or version byte, or for a pre-Holocene fork (extraData carries no parameters).
 */
export function decodeOpExtraData(extraData: Uint8Array, fork: OpFork): OpExtraDataParams {
  if (fork >= OpFork.jovian) {
    decodeVersioned(extraData, JOVIAN_EXTRA_DATA_VERSION, JOVIAN_EXTRA_DATA_LENGTH, "Jovian");
    const minBaseFee = new DataView(extraData.buffer, extraData.byteOffset, extraData.byteLength).getBigUint64(9, false);
    return { denominator: readU32(extraData, 1), elasticity: readU32(extraData, 5), minBaseFee };
  }
  if (fork >= OpFork.holocene) {
    decodeVersioned(extraData, HOLOCENE_EXTRA_DATA_VERSION, HOLOCENE_EXTRA_DATA_LENGTH, "Holocene");
    return { denominator: readU32(extraData, 1), elasticity: readU32(extraData, 5) };
  }
  throw new Eip1559ParamsError({ code: "OP_EXTRA_DATA_PRE_HOLOCENE", fork }, "extraData carries EIP-1559 parameters only from Holocene on");
}

/** Decodes the 8-byte `eip1559Params` payload attribute: denominator u32 ++ elasticity u32. */
export function decodeEip1559Params(eip1559Params: Uint8Array): Eip1559Defaults {
  if (eip1559Params.length !== EIP1559_PARAMS_LENGTH) {
    throw new Eip1559ParamsError({ code: "OP_EIP1559_PARAMS_INVALID", length: eip1559Params.length }, `eip1559Params has ${eip1559Params.length} bytes, exactly 8 expected`);
  }
  return { denominator: readU32(eip1559Params, 0), elasticity: readU32(eip1559Params, 4) };
}

/**
 * The block `extraData` for payload attributes (op-alloy `OpPayloadAttributes::get_{holocene,jovian}_extra_data`):
 * all-zero `eip1559Params` → `defaults` (the chain constants at the block timestamp), otherwise the
 * params verbatim; Jovian+ requires `minBaseFee` and appends it, Holocene/Isthmus forbid it.
 * @throws Eip1559ParamsError for a pre-Holocene fork, a wrong params length, or a missing/forbidden `minBaseFee`.
 */
export function extraDataFromEip1559Params(eip1559Params: Uint8Array, defaults: Eip1559Defaults, fork: OpFork, minBaseFee?: bigint): Uint8Array {
  if (fork < OpFork.holocene) throw new Eip1559ParamsError({ code: "OP_EXTRA_DATA_PRE_HOLOCENE", fork }, "eip1559Params must be null before Holocene");
  const decoded = decodeEip1559Params(eip1559Params);
  const params = decoded.denominator === 0 && decoded.elasticity === 0 ? defaults : decoded;
  if (fork >= OpFork.jovian) {
    if (minBaseFee === undefined) throw new Eip1559ParamsError({ code: "OP_MIN_BASE_FEE_NOT_SET" }, "minBaseFee must be set from Jovian on");
    return encodeJovianExtraData(params.denominator, params.elasticity, minBaseFee);
  }
  if (minBaseFee !== undefined) throw new Eip1559ParamsError({ code: "OP_MIN_BASE_FEE_MUST_BE_NONE" }, "minBaseFee must be null before Jovian");
  return encodeHoloceneExtraData(params.denominator, params.elasticity);
}

/**
 * EIP-1559 next base fee (alloy-eips `calc_next_block_base_fee`): target = gasLimit / elasticity;
 * above target `baseFee + max(1, baseFee*(used-target) / (target*denominator))`, below target
 * `baseFee - baseFee*(target-used) / (target*denominator)` (saturating at 0), at target unchanged.
 * @throws Eip1559ParamsError where the Rust code would divide by zero (zero elasticity/denominator, or a zero target with gas used).
 */
export function calcNextBaseFee(gasUsed: bigint, gasLimit: bigint, baseFee: bigint, denominator: number, elasticity: number): bigint {
  if (elasticity === 0 || denominator === 0) {
    const message = `EIP-1559 parameters must be non-zero, got denominator ${denominator}, elasticity ${elasticity}`;
    throw new Eip1559ParamsError({ code: "OP_EIP1559_PARAMS_INVALID", denominator, elasticity }, message);
  }
  const target = gasLimit / BigInt(elasticity);
  if (gasUsed === target) return baseFee;
  if (target === 0n) {
    const message = `gas target is 0 (gas limit ${gasLimit} < elasticity ${elasticity}) but ${gasUsed} gas was used`;
    throw new Eip1559ParamsError({ code: "OP_EIP1559_PARAMS_INVALID", gasLimit: gasLimit.toString(), gasUsed: gasUsed.toString() }, message);
  }
  const divisor = target * BigInt(denominator);
  if (gasUsed > target) {
    const delta = (baseFee * (gasUsed - target)) / divisor;
    return baseFee + (delta > 1n ? delta : 1n);
  }
  const delta = (baseFee * (target - gasUsed)) / divisor;
  return baseFee > delta ? baseFee - delta : 0n;
}

/** The parent header fields the OP base-fee rule reads. */
export interface OpBaseFeeParent {
  gasUsed: bigint;
  gasLimit: bigint;
  /** Absent only on pre-London headers, which OP chains never have (read as 0). */
  baseFeePerGas?: bigint;
  extraData: Uint8Array;
  /** Jovian: the parent's DA footprint (header `blobGasUsed`). */
  blobGasUsed?: bigint;
  timestamp: bigint;
}

/** The chain-constant EIP-1559 parameters at `timestamp`: the Canyon denominator once Canyon is active. */
export function opDefaultEip1559Params(cfg: OpChainConfig, timestamp: bigint): Eip1559Defaults {
  const canyon = opForkAt(cfg, timestamp) >= OpFork.canyon;
  return { denominator: canyon ? cfg.eip1559DenominatorCanyon : cfg.eip1559Denominator, elasticity: cfg.eip1559Elasticity };
}

/**
 * Base fee of the child of `parent` at `childTimestamp` (base-reth-node `OpChainSpec::next_block_base_fee`):
 * - parent Jovian: parameters and `minBaseFee` from the parent's 17-byte extraData (zero params →
 *   chain constants at `childTimestamp`), gas used `max(gasUsed, blobGasUsed)`, result floored at `minBaseFee`;
 * - parent Holocene (incl. Isthmus): parameters from the parent's 9-byte extraData (zero → constants);
 * - otherwise (also for the first Holocene block, whose parent is pre-Holocene): chain constants at
 *   `childTimestamp` (pre-Canyon denominator, Canyon denominator from Canyon on).
 * @throws Eip1559ParamsError on malformed parent extraData or unusable parameters.
 */
export function opNextBaseFee(parent: OpBaseFeeParent, cfg: OpChainConfig, childTimestamp: bigint): bigint {
  const parentFork = opForkAt(cfg, parent.timestamp);
  const defaults = opDefaultEip1559Params(cfg, childTimestamp);
  if (parentFork >= OpFork.holocene) {
    const decoded = decodeOpExtraData(parent.extraData, parentFork);
    const params = decoded.denominator === 0 && decoded.elasticity === 0 ? defaults : decoded;
    if (parentFork >= OpFork.jovian) {
      const blobGasUsed = parent.blobGasUsed ?? 0n;
      const gasUsed = blobGasUsed > parent.gasUsed ? blobGasUsed : parent.gasUsed;
      const next = calcNextBaseFee(gasUsed, parent.gasLimit, (parent.baseFeePerGas ?? 0n), params.denominator, params.elasticity);
      const floor = decoded.minBaseFee ?? 0n;
      return next < floor ? floor : next;
    }
    return calcNextBaseFee(parent.gasUsed, parent.gasLimit, (parent.baseFeePerGas ?? 0n), params.denominator, params.elasticity);
  }
  return calcNextBaseFee(parent.gasUsed, parent.gasLimit, (parent.baseFeePerGas ?? 0n), defaults.denominator, defaults.elasticity);
}
