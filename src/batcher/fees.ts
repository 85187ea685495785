/**
 * Fees of batcher transactions: what to offer from the L1's suggestion, and what a replacement
 * must offer. The suggestion is the next block's base fee and blob base fee (`eth_feeHistory`)
 * and the tip (`eth_maxPriorityFeePerGas`), floored at op-service txmgr's minimums. A replacement
 * of a pending transaction must raise every fee by geth's bump (+10 % for the legacy pool; +100 %
 * for the blob pool, which applies it to the tip, the fee cap and the blob fee cap alike), and is
 * held back when that would pass the fee limit (5× the suggestion above 100 gwei).
 */
import { BATCHER_BASE_FEE_MULTIPLIER, BATCHER_BLOB_BASE_FEE_MULTIPLIER, BATCHER_BLOB_PRICE_BUMP_PERCENT, BATCHER_FEE_LIMIT_MULTIPLIER, BATCHER_FEE_LIMIT_THRESHOLD_WEI, BATCHER_MIN_BASE_FEE_WEI, BATCHER_MIN_TIP_WEI, BATCHER_PRICE_BUMP_PERCENT } from "./constants.js";

/** The L1's fee suggestion for the next block, in wei. */
export interface FeeSuggestion {
  baseFee: bigint;
  blobBaseFee: bigint;
  tip: bigint;
}

/** Fees of one transaction, in wei (`blobFeeCap` for blob transactions only). */
export interface TxFees {
  tip: bigint;
  feeCap: bigint;
  blobFeeCap?: bigint;
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** The fees to offer now: tip ≥ 1 gwei; fee cap 2× the base fee (≥ 1 gwei) + tip; blob fee cap 2× the blob base fee. */
export function feesFor(s: FeeSuggestion, blobs: boolean): TxFees {
  const tip = maxOf(s.tip, BATCHER_MIN_TIP_WEI);
  const feeCap = BATCHER_BASE_FEE_MULTIPLIER * maxOf(s.baseFee, BATCHER_MIN_BASE_FEE_WEI) + tip;
  return blobs ? { tip, feeCap, blobFeeCap: BATCHER_BLOB_BASE_FEE_MULTIPLIER * maxOf(s.blobBaseFee, 1n) } : { tip, feeCap };
}

/** The percent a replacement must add to each fee: geth's blob-pool bump for blob transactions, its legacy-pool bump otherwise. */
function bumpPercentFor(blobs: boolean): bigint {
  return BigInt(blobs ? BATCHER_BLOB_PRICE_BUMP_PERCENT : BATCHER_PRICE_BUMP_PERCENT);
}

/** `fee` raised by `percent`, rounded up and by at least 1 wei (geth compares with `old × (100 + bump) / 100`). */
export function bumpFee(fee: bigint, percent: bigint): bigint {
  const bumped = (fee * (100n + percent) + 99n) / 100n;
  return bumped > fee ? bumped : fee + 1n;
}

/** The fees of a replacement for a transaction that offered `previous`: each fee bumped, or the current offer where that is higher. */
export function replacementFees(previous: TxFees, now: TxFees): TxFees {
  const blobs = previous.blobFeeCap !== undefined || now.blobFeeCap !== undefined;
  const pct = bumpPercentFor(blobs);
  const tip = maxOf(bumpFee(previous.tip, pct), now.tip);
  // The fee cap must cover the tip too (EIP-1559: maxFeePerGas ≥ maxPriorityFeePerGas).
  const feeCap = maxOf(maxOf(bumpFee(previous.feeCap, pct), now.feeCap), tip);
  if (!blobs) return { tip, feeCap };
  return { tip, feeCap, blobFeeCap: maxOf(bumpFee(previous.blobFeeCap ?? 0n, pct), now.blobFeeCap ?? 0n) };
}

/**
 * Whether `fees` stay within the fee limit of the current offer `now` (op-service txmgr's rule):
 * each fee at most 5× its counterpart, unless it is below the 100 gwei threshold.
 */
export function withinFeeLimit(fees: TxFees, now: TxFees): boolean {
  const ok = (fee: bigint, suggested: bigint): boolean => fee <= BATCHER_FEE_LIMIT_THRESHOLD_WEI || fee <= BATCHER_FEE_LIMIT_MULTIPLIER * suggested;
  return ok(fees.tip, now.tip) && ok(fees.feeCap, now.feeCap) && (fees.blobFeeCap === undefined || ok(fees.blobFeeCap, now.blobFeeCap ?? 0n));
}
