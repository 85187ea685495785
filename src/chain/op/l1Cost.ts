/**
 * OP Stack L1 data fee and operator fee of a transaction, bit for bit as op-revm computes them
 * (base/base crates/execution/revm/src/l1block.rs; base/base crates/alloy/flz/src/lib.rs):
 * - Bedrock/Regolith: `(dataGas + overhead) * l1BaseFee * scalar / 1e6`
 *   (specs exec-engine.md "L1-Cost fees");
 * - Ecotone: `dataGas * (l1BaseFee*16*baseFeeScalar + blobBaseFee*blobBaseFeeScalar) / 16e6`,
 *   falling back to Bedrock while the Ecotone scalars are unset (specs ecotone/exec-engine.md);
 * - Fjord: `estimatedSize * (l1BaseFee*16*baseFeeScalar + blobBaseFee*blobBaseFeeScalar) / 1e12`,
 *   `estimatedSize = max(100e6, fastlzSize*836500 - 42585600)` (specs fjord/exec-engine.md);
 * - operator fee: Isthmus `gas*scalar/1e6 + constant`, Jovian `gas*scalar*100 + constant`
 *   (specs isthmus/exec-engine.md, jovian/exec-engine.md).
 *
 * `txBytes` is always the full EIP-2718 envelope of the transaction (op-revm `enveloped_tx`).
 * Intermediate products saturate at 2^256-1 like op-revm's U256 `saturating_*` operations.
 */
import { flzCompressLen } from "./fastlz.js";
import { OpFork } from "./forks.js";
import type { L1BlockInfo } from "./l1BlockInfo.js";

/** Gas per non-zero calldata byte; also the per-byte factor of the Ecotone/Fjord formulas (op-revm `NON_ZERO_BYTE_COST`). */
const NON_ZERO_BYTE_COST = 16n;
/** Gas per zero calldata byte (EIP-2028 token cost 4 × 1 token). */
const ZERO_BYTE_COST = 4n;
/** Pre-Regolith, 68 extra non-zero bytes were charged for the missing signature (specs exec-engine.md). */
const PRE_REGOLITH_EXTRA_BYTES = 68n;
/** Fjord linear-regression slope per FastLZ byte, scaled by 1e6 (specs fjord/exec-engine.md; op-geth rollup_cost.go). */
export const FJORD_FASTLZ_COEF = 836_500n;
/** Fjord regression intercept (-42.5856 bytes scaled by 1e6), stored as a positive subtrahend (op-revm `L1_COST_INTERCEPT`). */
export const FJORD_INTERCEPT = 42_585_600n;
/** Fjord minimum estimated transaction size: 100 bytes scaled by 1e6 (op-revm `MIN_TX_SIZE_SCALED`). */
export const FJORD_MIN_TX_SIZE_SCALED = 100_000_000n;
/** Fixed-point scale of the Bedrock scalar and the Fjord size estimate (6 decimals). */
export const SCALE_1E6 = 1_000_000n;
/** Divisor of the Ecotone formula: 16 × 1e6 (calldata gas → compressed bytes, scalar decimals). */
const ECOTONE_DIVISOR = NON_ZERO_BYTE_COST * SCALE_1E6;
/** Divisor of the Fjord formula: 1e6 (size scale) × 1e6 (scalar decimals). */
const FJORD_DIVISOR = 1_000_000_000_000n;
/** Isthmus operator fee scalar decimals: the scalar is a 6-decimal fixed-point number (op-revm `OPERATOR_FEE_SCALAR_DECIMAL`). */
export const OPERATOR_FEE_SCALAR_DECIMAL = 1_000_000n;
/** Jovian operator fee multiplier applied to the scalar (op-revm `OPERATOR_FEE_JOVIAN_MULTIPLIER`). */
export const OPERATOR_FEE_JOVIAN_MULTIPLIER = 100n;
/** EIP-2718 type byte of deposit transactions: they pay no L1 or operator fee. */
const DEPOSIT_TX_TYPE = 0x7e;
/** Largest U256 value: op-revm's saturating arithmetic caps there. */
const U256_MAX = (1n << 256n) - 1n;

function satMul(a: bigint, b: bigint): bigint {
  const p = a * b;
  return p > U256_MAX ? U256_MAX : p;
}

function satAdd(a: bigint, b: bigint): bigint {
  const s = a + b;
  return s > U256_MAX ? U256_MAX : s;
}

/** Whether op-revm charges no L1/operator fee for these bytes: empty input or a deposit (type 0x7e). */
function isFeeExempt(txBytes: Uint8Array): boolean {
  return txBytes.length === 0 || txBytes[0] === DEPOSIT_TX_TYPE;
}

/**
 * Fjord estimated compressed size of `txBytes`, scaled by 1e6:
 * `max(100e6, fastlzSize*836500 - 42585600)` with the subtraction saturating at 0
 * (op-revm `tx_estimated_size_fjord`). Also the basis of the Jovian DA footprint.
 */
export function fjordEstimatedSizeScaled(txBytes: Uint8Array): bigint {
  const product = BigInt(flzCompressLen(txBytes)) * FJORD_FASTLZ_COEF;
  const estimate = product > FJORD_INTERCEPT ? product - FJORD_INTERCEPT : 0n;
  return estimate > FJORD_MIN_TX_SIZE_SCALED ? estimate : FJORD_MIN_TX_SIZE_SCALED;
}

/**
 * L1 data gas of `txBytes` (op-revm `data_gas`): from Fjord `estimatedSize*16/1e6`; before,
 * 16 gas per non-zero and 4 per zero byte, plus 68 non-zero bytes before Regolith.
 */
export function dataGas(txBytes: Uint8Array, fork: OpFork): bigint {
  if (fork >= OpFork.fjord) return (fjordEstimatedSizeScaled(txBytes) * NON_ZERO_BYTE_COST) / SCALE_1E6;
  let zeros = 0n;
  for (const b of txBytes) if (b === 0) zeros++;
  let gas = zeros * ZERO_BYTE_COST + (BigInt(txBytes.length) - zeros) * NON_ZERO_BYTE_COST;
  if (fork < OpFork.regolith) gas += PRE_REGOLITH_EXTRA_BYTES * NON_ZERO_BYTE_COST;
  return gas;
}

function l1CostBedrock(info: L1BlockInfo, txBytes: Uint8Array, fork: OpFork): bigint {
  const gas = satAdd(dataGas(txBytes, fork), info.l1FeeOverhead ?? 0n);
  return satMul(satMul(gas, info.l1BaseFee), info.l1BaseFeeScalar) / SCALE_1E6;
}

/** `l1BaseFee*16*baseFeeScalar + blobBaseFee*blobBaseFeeScalar` (op-revm `calculate_l1_fee_scaled_ecotone`). */
function l1FeeScaledEcotone(info: L1BlockInfo): bigint {
  const calldataCost = satMul(satMul(info.l1BaseFee, NON_ZERO_BYTE_COST), info.l1BaseFeeScalar);
  const blobCost = satMul(info.l1BlobBaseFee ?? 0n, info.l1BlobBaseFeeScalar ?? 0n);
  return satAdd(calldataCost, blobCost);
}

/**
 * L1 data fee (wei) of a transaction (op-revm `calculate_tx_l1_cost`): 0 for empty input and
 * deposits; the Fjord, Ecotone or Bedrock function by `fork`, with the Ecotone function falling
 * back to Bedrock when `info.emptyEcotoneScalars`.
 */
export function l1Cost(info: L1BlockInfo, txBytes: Uint8Array, fork: OpFork): bigint {
  if (isFeeExempt(txBytes)) return 0n;
  if (fork >= OpFork.fjord) {
    const scaled = l1FeeScaledEcotone(info);
    if (scaled === 0n) return 0n;
    return satMul(fjordEstimatedSizeScaled(txBytes), scaled) / FJORD_DIVISOR;
  }
  if (fork >= OpFork.ecotone) {
    if (info.emptyEcotoneScalars) return l1CostBedrock(info, txBytes, fork);
    return satMul(l1FeeScaledEcotone(info), dataGas(txBytes, fork)) / ECOTONE_DIVISOR;
  }
  return l1CostBedrock(info, txBytes, fork);
}

/**
 * The `l1GasUsed` op-reth reports in receipts: `dataGas(txBytes, fork) + (l1FeeOverhead ?? 0)`
 * (base/base crates/execution/rpc/src/eth/receipt.rs). Unlike {@link l1Cost}, deposits are not
 * special-cased (their receipts show the data gas of the deposit envelope).
 */
export function l1GasUsed(info: L1BlockInfo, txBytes: Uint8Array, fork: OpFork): bigint {
  return satAdd(dataGas(txBytes, fork), info.l1FeeOverhead ?? 0n);
}

/**
 * Operator fee for `gas` (op-revm `operator_fee_charge_inner`): 0 before Isthmus; Isthmus
 * `gas*scalar/1e6 + constant`; Jovian `gas*scalar*100 + constant`. Missing parameters count as 0.
 * Callers must not charge it for deposits (see {@link l1CostUpfront}).
 */
export function operatorFeeCharge(info: L1BlockInfo, gas: bigint, fork: OpFork): bigint {
  if (fork < OpFork.isthmus) return 0n;
  const scalar = info.operatorFeeScalar ?? 0n;
  const constant = info.operatorFeeConstant ?? 0n;
  const product =
    fork >= OpFork.jovian ? satMul(satMul(gas, scalar), OPERATOR_FEE_JOVIAN_MULTIPLIER) : satMul(gas, scalar) / OPERATOR_FEE_SCALAR_DECIMAL;
  return satAdd(product, constant);
}

/**
 * Operator fee refunded after execution (op-revm `operator_fee_refund`): 0 before Isthmus, else
 * `charge(gasLimit) - charge(gasUsed)` saturating at 0, where op-revm's used gas is
 * `gas.limit() - (gas.remaining() + gas.refunded())`, i.e. the receipt `gasUsed` after refunds
 * (and after the EIP-7623 floor). Not applied to deposits.
 */
export function operatorFeeRefund(info: L1BlockInfo, gasLimit: bigint, gasUsed: bigint, fork: OpFork): bigint {
  if (fork < OpFork.isthmus) return 0n;
  const atLimit = operatorFeeCharge(info, gasLimit, fork);
  const atUsed = operatorFeeCharge(info, gasUsed, fork);
  return atLimit > atUsed ? atLimit - atUsed : 0n;
}

/**
 * The extra balance op-revm deducts up front from a non-deposit sender (op-revm `tx_cost`):
 * `l1Cost + operatorFeeCharge(gasLimit)` (the latter from Isthmus, not for deposits/empty input).
 */
export function l1CostUpfront(info: L1BlockInfo, txBytes: Uint8Array, gasLimit: bigint, fork: OpFork): bigint {
  const l1 = l1Cost(info, txBytes, fork);
  if (fork < OpFork.isthmus || isFeeExempt(txBytes)) return l1;
  return satAdd(l1, operatorFeeCharge(info, gasLimit, fork));
}
