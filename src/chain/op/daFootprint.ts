/**
 * Jovian DA footprint (specs/protocol/jovian/exec-engine.md "DA Footprint Block Limit"):
 * each non-deposit transaction's estimated compressed size,
 * `max(minTransactionSize, (intercept + fastlzCoef*fastlzSize) // 1e6)` = the Fjord estimate / 1e6,
 * times the block's `daFootprintGasScalar`. The block sum is stored in the header's
 * `blobGasUsed`, limited by the gas limit, and feeds the base fee (`max(gasUsed, blobGasUsed)`).
 *
 * As in op-reth (base/base crates/alloy/evm/src/executor.rs `jovian_da_footprint_estimation`),
 * the scalar is used exactly as read from L1Block storage / the L1-info calldata: the default of
 * 400 for a zero SystemConfig value is applied when the L1-info deposit is built
 * (`effectiveDaFootprintGasScalar` in l1InfoTx.ts), not here.
 */
import { fjordEstimatedSizeScaled, SCALE_1E6 } from "./l1Cost.js";

export { DEFAULT_DA_FOOTPRINT_GAS_SCALAR } from "./l1InfoTx.js";

/** EIP-2718 type byte of deposit transactions, which carry no DA footprint. */
const DEPOSIT_TX_TYPE = 0x7e;

/** Estimated DA usage of `txBytes` in bytes: `max(100, (fastlzSize*836500 - 42585600) / 1e6)`. */
export function txDaUsageEstimate(txBytes: Uint8Array): bigint {
  return fjordEstimatedSizeScaled(txBytes) / SCALE_1E6;
}

/**
 * DA footprint of one transaction: `txDaUsageEstimate(txBytes) * daFootprintGasScalar`.
 * This is also the per-transaction receipt `blobGasUsed` op-reth serves from Jovian on.
 * No deposit check (callers exclude deposits, see {@link blockDaFootprint}).
 */
export function txDaFootprint(txBytes: Uint8Array, daFootprintGasScalar: bigint): bigint {
  return txDaUsageEstimate(txBytes) * daFootprintGasScalar;
}

/**
 * DA footprint of a block: the sum of {@link txDaFootprint} over its non-deposit transactions
 * (EIP-2718 envelopes). Entries whose type byte is 0x7e are skipped, as the spec requires.
 */
export function blockDaFootprint(nonDepositTxs: Uint8Array[], daFootprintGasScalar: bigint): bigint {
  let total = 0n;
  for (const tx of nonDepositTxs) {
    if (tx[0] === DEPOSIT_TX_TYPE) continue;
    total += txDaFootprint(tx, daFootprintGasScalar);
  }
  return total;
}
