/**
 * The OP Stack fields op-reth adds to JSON-RPC transaction receipts (base/base
 * crates/execution/rpc/src/eth/receipt.rs `OpReceiptFieldsBuilder` / `OpReceiptBuilder`, serialized
 * by base/base crates/alloy/rpc-types/src/receipt.rs `L1BlockInfo`):
 *
 * - computed for **every** transaction of the block (deposits included) from the block's L1-info
 *   deposit calldata (`l1BlockInfoFromCalldata`) and the fork at the block timestamp:
 *   `l1GasPrice` = L1 base fee; `l1GasUsed` = data gas + overhead; `l1Fee` = L1 cost (0 for deposits);
 *   `l1FeeScalar` = scalar/1e6 as a decimal **string**, only before Ecotone; `l1BaseFeeScalar` always
 *   (pre-Ecotone it is the Bedrock scalar); `l1BlobBaseFee`/`l1BlobBaseFeeScalar` when the calldata
 *   has them (Ecotone+ layouts); `operatorFeeScalar`/`operatorFeeConstant` only when the calldata has
 *   them (Isthmus+ layouts) and at least one is non-zero; `daFootprintGasScalar` when the calldata
 *   has it (Jovian layout, raw value);
 * - from Jovian, the core receipt field `blobGasUsed` = the transaction's DA footprint
 *   (`fastlz estimate / 1e6 * daFootprintGasScalar`), also for deposits;
 * - every value is a hex QUANTITY string except `l1FeeScalar`; absent values are omitted (never null).
 *
 * `depositNonce` / `depositReceiptVersion` are not derived in op-reth's RPC layer: they are fields of
 * the stored deposit receipt (set by the block executor) and only formatted here.
 */
import { OpFork } from "./forks.js";
import { l1BlockInfoFromCalldata, type L1BlockInfo } from "./l1BlockInfo.js";
import { l1Cost, l1GasUsed } from "./l1Cost.js";
import { txDaFootprint } from "./daFootprint.js";

/** EIP-2718 type byte of deposit transactions. */
const DEPOSIT_TX_TYPE = 0x7e;
/** op-reth stores the fee fields as u128 (`saturating_to`). */
const U128_MAX = (1n << 128n) - 1n;
/** op-reth stores `blobGasUsed` as u64 (saturating arithmetic). */
const U64_MAX = (1n << 64n) - 1n;
/** Decimals of the pre-Ecotone `l1FeeScalar` (reported as `scalar / 1e6`). */
const L1_FEE_SCALAR_DIVISOR = 1_000_000;
/** Deposit receipt version written from Canyon on (op-reth block executor; specs canyon/deposits). */
const CANYON_DEPOSIT_RECEIPT_VERSION = 1n;

/** The OP receipt fields as numbers; `undefined` = omitted from the JSON. */
interface OpReceiptFieldValues {
  l1GasPrice: bigint;
  l1GasUsed: bigint;
  l1Fee: bigint;
  /** Pre-Ecotone only: `l1BaseFeeScalar / 1e6` as an IEEE double. */
  l1FeeScalar?: number;
  l1BaseFeeScalar: bigint;
  l1BlobBaseFee?: bigint;
  l1BlobBaseFeeScalar?: bigint;
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  daFootprintGasScalar?: bigint;
  /** Jovian+: the transaction's DA footprint (core receipt field). */
  blobGasUsed?: bigint;
}

/** The OP receipt fields as op-reth serializes them (keys in op-reth's order; absent keys omitted). */
export interface OpReceiptFieldsJson {
  l1GasPrice?: string;
  l1GasUsed?: string;
  l1Fee?: string;
  l1FeeScalar?: string;
  l1BaseFeeScalar?: string;
  l1BlobBaseFee?: string;
  l1BlobBaseFeeScalar?: string;
  operatorFeeScalar?: string;
  operatorFeeConstant?: string;
  daFootprintGasScalar?: string;
  blobGasUsed?: string;
}

function cap(v: bigint, max: bigint): bigint {
  return v > max ? max : v;
}

function quantity(v: bigint): string {
  return "0x" + v.toString(16);
}

/**
 * Formats a finite double like Rust's `f64` `Display` (which op-reth uses for `l1FeeScalar`):
 * the shortest round-trip digits, never in exponent notation (`0.684`, `1`, `0.0000001`).
 */
export function formatF64LikeRust(x: number): string {
  const s = String(x);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) return s;
  const [, sign, lead, frac = "", expText] = m;
  const digits = lead! + frac;
  const exp = Number(expText);
  const point = 1 + exp;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Computes the OP receipt fields of the transaction `txBytes` (EIP-2718 envelope) in a block whose
 * L1 info is `info` (decoded from its L1-info calldata) and whose timestamp is in `fork`.
 */
export function computeOpReceiptFields(info: L1BlockInfo, txBytes: Uint8Array, fork: OpFork): OpReceiptFieldValues {
  const isDeposit = txBytes[0] === DEPOSIT_TX_TYPE;
  const out: OpReceiptFieldValues = {
    l1GasPrice: cap(info.l1BaseFee, U128_MAX),
    l1GasUsed: cap(l1GasUsed(info, txBytes, fork), U128_MAX),
    l1Fee: isDeposit ? 0n : cap(l1Cost(info, txBytes, fork), U128_MAX),
    l1BaseFeeScalar: cap(info.l1BaseFeeScalar, U128_MAX),
  };
  if (fork < OpFork.ecotone) out.l1FeeScalar = Number(info.l1BaseFeeScalar) / L1_FEE_SCALAR_DIVISOR;
  if (info.l1BlobBaseFee !== undefined) out.l1BlobBaseFee = cap(info.l1BlobBaseFee, U128_MAX);
  if (info.l1BlobBaseFeeScalar !== undefined) out.l1BlobBaseFeeScalar = cap(info.l1BlobBaseFeeScalar, U128_MAX);
  if ((info.operatorFeeScalar ?? 0n) !== 0n || (info.operatorFeeConstant ?? 0n) !== 0n) {
    if (info.operatorFeeScalar !== undefined) out.operatorFeeScalar = cap(info.operatorFeeScalar, U128_MAX);
    if (info.operatorFeeConstant !== undefined) out.operatorFeeConstant = cap(info.operatorFeeConstant, U128_MAX);
  }
  if (info.daFootprintGasScalar !== undefined) out.daFootprintGasScalar = info.daFootprintGasScalar;
  if (fork >= OpFork.jovian) out.blobGasUsed = cap(txDaFootprint(txBytes, info.daFootprintGasScalar ?? 0n), U64_MAX);
  return out;
}

/** Serializes {@link OpReceiptFieldValues} as op-reth does: QUANTITY strings, `l1FeeScalar` as a decimal string, absent keys omitted. */
function formatOpReceiptFields(v: OpReceiptFieldValues): OpReceiptFieldsJson {
  const out: OpReceiptFieldsJson = {
    l1GasPrice: quantity(v.l1GasPrice),
    l1GasUsed: quantity(v.l1GasUsed),
    l1Fee: quantity(v.l1Fee),
  };
  if (v.l1FeeScalar !== undefined) out.l1FeeScalar = formatF64LikeRust(v.l1FeeScalar);
  out.l1BaseFeeScalar = quantity(v.l1BaseFeeScalar);
  if (v.l1BlobBaseFee !== undefined) out.l1BlobBaseFee = quantity(v.l1BlobBaseFee);
  if (v.l1BlobBaseFeeScalar !== undefined) out.l1BlobBaseFeeScalar = quantity(v.l1BlobBaseFeeScalar);
  if (v.operatorFeeScalar !== undefined) out.operatorFeeScalar = quantity(v.operatorFeeScalar);
  if (v.operatorFeeConstant !== undefined) out.operatorFeeConstant = quantity(v.operatorFeeConstant);
  if (v.daFootprintGasScalar !== undefined) out.daFootprintGasScalar = quantity(v.daFootprintGasScalar);
  if (v.blobGasUsed !== undefined) out.blobGasUsed = quantity(v.blobGasUsed);
  return out;
}

/**
 * The OP receipt fields of a transaction as op-reth's RPC serves them.
 * @param l1Info the block's L1 info: either already decoded, or the raw calldata of its L1-info deposit.
 * @param txBytes the transaction's EIP-2718 envelope.
 * @param fork the OP fork at the block timestamp.
 * @throws L1InfoCalldataError when raw calldata is given and malformed.
 */
export function opReceiptFields(l1Info: L1BlockInfo | Uint8Array, txBytes: Uint8Array, fork: OpFork): OpReceiptFieldsJson {
  const info = l1Info instanceof Uint8Array ? l1BlockInfoFromCalldata(l1Info) : l1Info;
  return formatOpReceiptFields(computeOpReceiptFields(info, txBytes, fork));
}

/** The deposit-only receipt fields as op-reth serializes them (absent keys omitted). */
interface DepositReceiptFieldsJson {
  depositNonce?: string;
  depositReceiptVersion?: string;
}

/** The deposit receipt version the block executor stores for a deposit: 1 from Canyon on, absent before. */
export function depositReceiptVersionFor(fork: OpFork): bigint | undefined {
  return fork >= OpFork.canyon ? CANYON_DEPOSIT_RECEIPT_VERSION : undefined;
}

/**
 * The deposit-only receipt fields (`depositNonce`: the sender's nonce before the deposit, Regolith+;
 * `depositReceiptVersion`: Canyon+), as stored in the consensus receipt, formatted as QUANTITYs;
 * absent values are omitted.
 */
export function depositReceiptFields(f: { depositNonce?: bigint; depositReceiptVersion?: bigint }): DepositReceiptFieldsJson {
  const out: DepositReceiptFieldsJson = {};
  if (f.depositNonce !== undefined) out.depositNonce = quantity(f.depositNonce);
  if (f.depositReceiptVersion !== undefined) out.depositReceiptVersion = quantity(f.depositReceiptVersion);
  return out;
}
