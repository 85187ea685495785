/**
 * The block builder's operator limits, set at run time with `miner_setGasLimit` and
 * `miner_setMaxDASize` (op-geth's and base/base's miner API; base/base v0.6.0-rc.19
 * `crates/execution/payload/src/config.rs` `OpDAConfig`/`OpGasLimitConfig` and
 * `builder.rs` `is_tx_over_limits`):
 *
 * - gas limit: pool transactions are selected as if the block's gas limit were
 *   `min(limit, header gasLimit)` (a transaction is skipped when the gas used so far plus its gas
 *   limit exceeds it). The header's gasLimit itself is unchanged: it comes from the payload
 *   attributes (SystemConfig), as in Base's builder.
 * - max DA size per transaction / per block: a pool transaction whose estimated DA size (Fjord's
 *   FastLZ-based `max(100, (flzLen*836500 - 42585600)/1e6)` bytes, as op-reth's pool caches it)
 *   exceeds the per-transaction limit, or that would bring the block's total estimate over the
 *   per-block limit, is skipped.
 *
 * 0 means "no limit" for each value, as in Base. Forced (attributes) transactions are never
 * limited. One instance per node, shared by the RPC (which sets it) and every builder (which
 * reads it at each candidate).
 */
import { txDaUsageEstimate } from "../../chain/op/daFootprint.js";
import { counter } from "../../util/metrics.js";

/** Pool candidates a builder skipped because of the operator limits, by limit (`gas`, `daTx`, `daBlock`). */
const builderLimitSkippedTotal = counter({
  name: "basalt_sequencer_builder_limit_skipped_total",
  help: "pool transactions skipped by the block builder because of miner_setGasLimit / miner_setMaxDASize, by limit",
  labelNames: ["limit"],
});

/** The builder limits in force; 0 = unlimited. */
export class BuilderLimits {
  /** miner_setGasLimit: gas available to pool transactions per block (0: the header's gasLimit). */
  gasLimit = 0n;
  /** miner_setMaxDASize: largest estimated DA size of one transaction, bytes (0: no limit). */
  maxDaTxSize = 0n;
  /** miner_setMaxDASize: largest estimated DA size of a block's pool transactions, bytes (0: no limit). */
  maxDaBlockSize = 0n;

  /** miner_setGasLimit(gasLimit). */
  setGasLimit(gasLimit: bigint): void {
    this.gasLimit = gasLimit;
  }

  /** miner_setMaxDASize(maxTxSize, maxBlockSize). */
  setMaxDaSize(maxTxSize: bigint, maxBlockSize: bigint): void {
    this.maxDaTxSize = maxTxSize;
    this.maxDaBlockSize = maxBlockSize;
  }

  /** Whether any limit is set (the builders then check each candidate). */
  get active(): boolean {
    return this.gasLimit > 0n || this.limitsDa;
  }

  /** Whether any DA limit is set (the builders then estimate each candidate's DA size). */
  get limitsDa(): boolean {
    return this.maxDaTxSize > 0n || this.maxDaBlockSize > 0n;
  }
}

/** Where a builder stands when it considers one pool candidate. */
interface CandidateFit {
  /** The candidate's EIP-2718 envelope (asked only when a DA limit is set). */
  envelope: () => Uint8Array;
  /** The candidate's gas limit. */
  txGasLimit: bigint;
  /** Gas used by the block so far. */
  gasUsed: bigint;
  /** The block header's gas limit. */
  headerGasLimit: bigint;
  /** Estimated DA bytes of the pool transactions included so far. */
  daUsed: bigint;
}

/**
 * Whether `c` is over `limits` (Base's `is_tx_over_limits` for the operator limits) and, when it
 * is not, its estimated DA size (to add to the block's running total once it applies).
 */
export function fitsBuilderLimits(limits: BuilderLimits | undefined, c: CandidateFit): { fits: false; reason: "gas" | "daTx" | "daBlock" } | { fits: true; da: bigint } {
  if (limits === undefined || !limits.active) return { fits: true, da: 0n };
  let da = 0n;
  if (limits.limitsDa) {
    da = txDaUsageEstimate(c.envelope());
    if (limits.maxDaTxSize > 0n && da > limits.maxDaTxSize) return skipped("daTx");
    if (limits.maxDaBlockSize > 0n && c.daUsed + da > limits.maxDaBlockSize) return skipped("daBlock");
  }
  if (limits.gasLimit > 0n) {
    const cap = limits.gasLimit < c.headerGasLimit ? limits.gasLimit : c.headerGasLimit;
    if (c.gasUsed + c.txGasLimit > cap) return skipped("gas");
  }
  return { fits: true, da };
}

function skipped(reason: "gas" | "daTx" | "daBlock"): { fits: false; reason: "gas" | "daTx" | "daBlock" } {
  builderLimitSkippedTotal.inc({ limit: reason });
  return { fits: false, reason };
}
