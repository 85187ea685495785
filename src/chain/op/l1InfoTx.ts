/**
 * The L1-info ("L1 attributes") deposit: the first transaction of every L2 block, a call from
 * the L1-info depositor to the L1Block predeploy carrying the L1 origin's data and the fee
 * parameters (specs/protocol/deposits.md "L1 Attributes Deposited Transaction";
 * specs/protocol/{ecotone,isthmus,jovian}/l1-attributes.md; kona / base
 * crates/consensus/protocol/src/info/{bedrock,ecotone,isthmus,jovian,variant}.rs).
 *
 * Calldata variants (all integers big-endian):
 * - Bedrock `setL1BlockValues` (0x015d8eb9, 260 bytes): 8 ABI words number, timestamp, basefee,
 *   hash, sequenceNumber, batcherHash, l1FeeOverhead, l1FeeScalar;
 * - Ecotone `setL1BlockValuesEcotone` (0x440a5e20, 164 bytes, packed): baseFeeScalar u32 [4,8),
 *   blobBaseFeeScalar u32 [8,12), sequenceNumber u64 [12,20), timestamp u64 [20,28),
 *   number u64 [28,36), basefee u256 [36,68), blobBaseFee u256 [68,100), hash [100,132),
 *   batcherHash [132,164);
 * - Isthmus `setL1BlockValuesIsthmus` (0x098999be, 176 bytes): Ecotone + operatorFeeScalar u32
 *   [164,168) + operatorFeeConstant u64 [168,176);
 * - Jovian `setL1BlockValuesJovian` (0x3db6be2b, 178 bytes): Isthmus + daFootprintGasScalar u16 [176,178).
 */
import { Address } from "@ethereumjs/util";
import { fromHex } from "../../util/bytes.js";
import { TypedError } from "../../util/errors.js";
import { DepositTransaction } from "./depositTx.js";
import { l1InfoSourceHash } from "./sourceHash.js";
import { isActivationBlock, OpFork, opForkAt, type OpForkSchedule } from "./forks.js";

/** The L1Block predeploy, target of the L1-info deposit (specs/protocol/predeploys.md). */
export const L1_BLOCK_ADDRESS = "0x4200000000000000000000000000000000000015";
/** Sender of the L1-info deposit (specs deposits.md "L1 Attributes Depositor Account"). */
export const L1_INFO_DEPOSITOR_ADDRESS = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
/** Gas limit of the L1-info deposit from Regolith on (specs deposits.md; kona `REGOLITH_SYSTEM_TX_GAS`). */
export const L1_INFO_DEPOSIT_GAS = 1_000_000n;
/** Gas limit of the pre-Regolith L1-info system transaction (kona `L1BlockInfoTx::try_new_with_deposit_tx`). */
export const PRE_REGOLITH_L1_INFO_DEPOSIT_GAS = 150_000_000n;
/** DA footprint gas scalar written when the SystemConfig value is 0/unset (specs jovian/l1-attributes.md). */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400n;
/** Version byte of the Ecotone "versioned" SystemConfig scalar that carries a blob scalar (specs system-config.md). */
export const ECOTONE_SCALAR_VERSION = 1;

/** The L1-info calldata formats, in upgrade order. */
export type L1InfoVariant = "bedrock" | "ecotone" | "isthmus" | "jovian";

/** 4-byte selectors: keccak256 of `setL1BlockValues(...)`, `setL1BlockValuesEcotone()`, `…Isthmus()`, `…Jovian()`. */
export const L1InfoSelector: Readonly<Record<L1InfoVariant, Uint8Array>> = {
  bedrock: Uint8Array.of(0x01, 0x5d, 0x8e, 0xb9),
  ecotone: Uint8Array.of(0x44, 0x0a, 0x5e, 0x20),
  isthmus: Uint8Array.of(0x09, 0x89, 0x99, 0xbe),
  jovian: Uint8Array.of(0x3d, 0xb6, 0xbe, 0x2b),
};

/** Total calldata length (selector included) of each variant (kona `L1_INFO_TX_LEN`). */
export const L1_INFO_CALLDATA_LENGTH: Readonly<Record<L1InfoVariant, number>> = {
  bedrock: 4 + 32 * 8,
  ecotone: 4 + 32 * 5,
  isthmus: 4 + 32 * 5 + 4 + 8,
  jovian: 4 + 32 * 5 + 4 + 8 + 2,
};

/** A {@link L1InfoCalldataError}'s stable code with its metadata. */
type L1InfoCalldataErrorType =
  | { code: "L1_INFO_VALUE_OUT_OF_RANGE"; field?: string; value?: string }
  | { code: "L1_INFO_MISSING_SELECTOR"; length: number }
  | { code: "L1_INFO_UNKNOWN_SELECTOR"; selector: string }
  | { code: "L1_INFO_BAD_LENGTH"; variant: string; length: number };

/** Malformed L1-info calldata, or a value that does not fit its field when encoding. */
export class L1InfoCalldataError extends TypedError<L1InfoCalldataErrorType> {}

/** The values carried by an L1-info deposit; optional fields belong to later variants (missing ones encode as 0). */
export interface L1InfoValues {
  /** L1 origin block number. */
  number: bigint;
  /** L1 origin timestamp. */
  timestamp: bigint;
  /** L1 origin base fee. */
  baseFee: bigint;
  /** L1 origin block hash (32 bytes). */
  hash: Uint8Array;
  /** Position of the L2 block within its epoch. */
  sequenceNumber: bigint;
  /** Batcher address left-padded to 32 bytes (version 0). */
  batcherHash: Uint8Array;
  /** Bedrock only: SystemConfig overhead. */
  l1FeeOverhead?: bigint;
  /** Bedrock only: SystemConfig scalar (raw 32-byte value). */
  l1FeeScalar?: bigint;
  /** Ecotone+: base fee scalar (u32). */
  baseFeeScalar?: bigint;
  /** Ecotone+: blob base fee scalar (u32). */
  blobBaseFeeScalar?: bigint;
  /** Ecotone+: L1 origin blob base fee. */
  blobBaseFee?: bigint;
  /** Isthmus+: operator fee scalar (u32). */
  operatorFeeScalar?: bigint;
  /** Isthmus+: operator fee constant (u64). */
  operatorFeeConstant?: bigint;
  /** Jovian+: DA footprint gas scalar (u16; 0/unset → 400). */
  daFootprintGasScalar?: bigint;
}

/** Bits of each bounded integer field. */
const U16 = 16;
const U32 = 32;
const U64 = 64;
const U256 = 256;

function checkRange(name: string, v: bigint, bits: number): bigint {
  if (v < 0n || v >= 1n << BigInt(bits)) {
    const message = `L1-info field ${name} = ${v} does not fit in uint${bits}`;
    throw new L1InfoCalldataError({ code: "L1_INFO_VALUE_OUT_OF_RANGE", field: name, value: v.toString() }, message);
  }
  return v;
}

function check32(name: string, b: Uint8Array): Uint8Array {
  if (b.length !== 32) {
    throw new L1InfoCalldataError({ code: "L1_INFO_VALUE_OUT_OF_RANGE", field: name }, `L1-info field ${name} is ${b.length} bytes, 32 expected`);
  }
  return b;
}

function putUint(out: Uint8Array, offset: number, bytes: number, v: bigint): void {
  let x = v;
  for (let i = offset + bytes - 1; i >= offset; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function getUint(data: Uint8Array, start: number, end: number): bigint {
  let v = 0n;
  for (let i = start; i < end; i++) v = (v << 8n) | BigInt(data[i]!);
  return v;
}

/** The DA footprint gas scalar the L1-info deposit carries for a SystemConfig value: 0/unset → 400 (specs jovian/l1-attributes.md). */
export function effectiveDaFootprintGasScalar(configured: bigint | undefined): bigint {
  return configured === undefined || configured === 0n ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : configured;
}

/**
 * Ecotone fee scalars of a SystemConfig `scalar` (bytes32 as bigint): `baseFeeScalar` = bytes
 * [28,32); `blobBaseFeeScalar` = bytes [24,28) when byte 0 is version 1, else 0
 * (specs system-config.md "Post-Ecotone Scalar Encoding"; kona variant.rs).
 */
export function ecotoneScalarsFromSystemConfig(scalar: bigint): { baseFeeScalar: bigint; blobBaseFeeScalar: bigint } {
  const version = Number((scalar >> 248n) & 0xffn);
  return {
    baseFeeScalar: scalar & 0xffffffffn,
    blobBaseFeeScalar: version === ECOTONE_SCALAR_VERSION ? (scalar >> 32n) & 0xffffffffn : 0n,
  };
}

/** The version-0 batcher hash of a 20-byte batcher address: the address left-padded to 32 bytes (specs system-config.md). */
export function batcherHashFromAddress(address: Uint8Array): Uint8Array {
  if (address.length !== 20) throw new L1InfoCalldataError({ code: "L1_INFO_VALUE_OUT_OF_RANGE" }, `batcher address is ${address.length} bytes, 20 expected`);
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

/**
 * Encodes the L1-info calldata of `variant` (selector included). Later-variant fields that are
 * absent encode as 0, except `daFootprintGasScalar`, which encodes 0/absent as the default 400
 * (specs jovian/l1-attributes.md). Fields belonging to other variants are ignored.
 * @throws L1InfoCalldataError when a value does not fit its field.
 */
export function encodeL1InfoCalldata(values: L1InfoValues, variant: L1InfoVariant): Uint8Array {
  const out = new Uint8Array(L1_INFO_CALLDATA_LENGTH[variant]);
  out.set(L1InfoSelector[variant], 0);
  const number = checkRange("number", values.number, U64);
  const timestamp = checkRange("timestamp", values.timestamp, U64);
  const baseFee = checkRange("baseFee", values.baseFee, U256);
  const sequenceNumber = checkRange("sequenceNumber", values.sequenceNumber, U64);
  const hash = check32("hash", values.hash);
  const batcherHash = check32("batcherHash", values.batcherHash);
  if (variant === "bedrock") {
    putUint(out, 4, 32, number);
    putUint(out, 36, 32, timestamp);
    putUint(out, 68, 32, baseFee);
    out.set(hash, 100);
    putUint(out, 132, 32, sequenceNumber);
    out.set(batcherHash, 164);
    putUint(out, 196, 32, checkRange("l1FeeOverhead", values.l1FeeOverhead ?? 0n, U256));
    putUint(out, 228, 32, checkRange("l1FeeScalar", values.l1FeeScalar ?? 0n, U256));
    return out;
  }
  putUint(out, 4, 4, checkRange("baseFeeScalar", values.baseFeeScalar ?? 0n, U32));
  putUint(out, 8, 4, checkRange("blobBaseFeeScalar", values.blobBaseFeeScalar ?? 0n, U32));
  putUint(out, 12, 8, sequenceNumber);
  putUint(out, 20, 8, timestamp);
  putUint(out, 28, 8, number);
  putUint(out, 36, 32, baseFee);
  putUint(out, 68, 32, checkRange("blobBaseFee", values.blobBaseFee ?? 0n, U256));
  out.set(hash, 100);
  out.set(batcherHash, 132);
  if (variant === "ecotone") return out;
  putUint(out, 164, 4, checkRange("operatorFeeScalar", values.operatorFeeScalar ?? 0n, U32));
  putUint(out, 168, 8, checkRange("operatorFeeConstant", values.operatorFeeConstant ?? 0n, U64));
  if (variant === "isthmus") return out;
  putUint(out, 176, 2, checkRange("daFootprintGasScalar", effectiveDaFootprintGasScalar(values.daFootprintGasScalar), U16));
  return out;
}

function variantOfSelector(data: Uint8Array): L1InfoVariant | undefined {
  for (const v of ["bedrock", "ecotone", "isthmus", "jovian"] as const) {
    const s = L1InfoSelector[v];
    if (data[0] === s[0] && data[1] === s[1] && data[2] === s[2] && data[3] === s[3]) return v;
  }
  return undefined;
}

/**
 * Decodes L1-info calldata of any variant, strictly (kona `L1BlockInfoTx::decode_calldata`):
 * the selector must be one of the four and the length must be exactly the variant's.
 * Integer fields are returned in full (no truncation). As in kona, a Jovian
 * `daFootprintGasScalar` of 0 decodes as the default 400.
 * @throws L1InfoCalldataError on a missing/unknown selector or a wrong length.
 */
export function decodeL1InfoCalldata(data: Uint8Array): { variant: L1InfoVariant; values: L1InfoValues } {
  if (data.length < 4) {
    const message = `L1-info calldata has ${data.length} bytes, at least a 4-byte selector expected`;
    throw new L1InfoCalldataError({ code: "L1_INFO_MISSING_SELECTOR", length: data.length }, message);
  }
  const variant = variantOfSelector(data);
  if (variant === undefined) {
    const sel = Buffer.from(data.subarray(0, 4)).toString("hex");
    throw new L1InfoCalldataError({ code: "L1_INFO_UNKNOWN_SELECTOR", selector: `0x${sel}` }, `unknown L1-info selector 0x${sel}; expected 0x015d8eb9 (Bedrock), 0x440a5e20 (Ecotone), 0x098999be (Isthmus) or 0x3db6be2b (Jovian)`);
  }
  const expected = L1_INFO_CALLDATA_LENGTH[variant];
  if (data.length !== expected) {
    throw new L1InfoCalldataError({ code: "L1_INFO_BAD_LENGTH", variant, length: data.length }, `${variant} L1-info calldata has ${data.length} bytes, ${expected} expected`);
  }
  if (variant === "bedrock") {
    return {
      variant,
      values: {
        number: getUint(data, 4, 36),
        timestamp: getUint(data, 36, 68),
        baseFee: getUint(data, 68, 100),
        hash: data.slice(100, 132),
        sequenceNumber: getUint(data, 132, 164),
        batcherHash: data.slice(164, 196),
        l1FeeOverhead: getUint(data, 196, 228),
        l1FeeScalar: getUint(data, 228, 260),
      },
    };
  }
  const values: L1InfoValues = {
    baseFeeScalar: getUint(data, 4, 8),
    blobBaseFeeScalar: getUint(data, 8, 12),
    sequenceNumber: getUint(data, 12, 20),
    timestamp: getUint(data, 20, 28),
    number: getUint(data, 28, 36),
    baseFee: getUint(data, 36, 68),
    blobBaseFee: getUint(data, 68, 100),
    hash: data.slice(100, 132),
    batcherHash: data.slice(132, 164),
  };
  if (variant !== "ecotone") {
    values.operatorFeeScalar = getUint(data, 164, 168);
    values.operatorFeeConstant = getUint(data, 168, 176);
  }
  if (variant === "jovian") values.daFootprintGasScalar = effectiveDaFootprintGasScalar(getUint(data, 176, 178));
  return { variant, values };
}

/**
 * The L1-info calldata variant of the L2 block at `timestamp` (parent at `parentTimestamp`;
 * undefined for genesis). The activation block of Ecotone, Isthmus and Jovian keeps the previous
 * format, because the L1Block contract is only upgraded by deposits later in that block
 * (specs {ecotone,isthmus,jovian}/l1-attributes.md; kona info/variant.rs `try_new`).
 */
export function l1InfoVariantFor(cfg: OpForkSchedule, timestamp: bigint, parentTimestamp?: bigint): L1InfoVariant {
  const fork = opForkAt(cfg, timestamp);
  if (fork < OpFork.ecotone || isActivationBlock(cfg, "ecotone", timestamp, parentTimestamp)) return "bedrock";
  if (fork >= OpFork.jovian && !isActivationBlock(cfg, "jovian", timestamp, parentTimestamp)) return "jovian";
  if (fork >= OpFork.isthmus && !isActivationBlock(cfg, "isthmus", timestamp, parentTimestamp)) return "isthmus";
  return "ecotone";
}

/**
 * The L1-info deposit transaction carrying `values` in the `variant` calldata (specs deposits.md
 * "L1 Attributes Deposited Transaction"; kona info/variant.rs `try_new_with_deposit_tx`): from the
 * L1-info depositor to the L1Block predeploy, no mint or value, source hash domain 1 over
 * (`values.hash`, `values.sequenceNumber`); gas 1,000,000 and `isSystemTx` false from Regolith on,
 * 150,000,000 and true before.
 * @throws L1InfoCalldataError when a value does not fit its field.
 */
export function l1InfoDepositTx(values: L1InfoValues, variant: L1InfoVariant, regolith = true): DepositTransaction {
  const data = encodeL1InfoCalldata(values, variant);
  return new DepositTransaction({
    sourceHash: l1InfoSourceHash(values.hash, values.sequenceNumber),
    from: new Address(fromHex(L1_INFO_DEPOSITOR_ADDRESS)),
    to: new Address(fromHex(L1_BLOCK_ADDRESS)),
    mint: 0n,
    value: 0n,
    gasLimit: regolith ? L1_INFO_DEPOSIT_GAS : PRE_REGOLITH_L1_INFO_DEPOSIT_GAS,
    isSystemTx: !regolith,
    data,
  });
}
