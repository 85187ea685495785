/**
 * Constants of `src/batcher/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

// ---- batcher ------------------------------------------------------------------------------
// The batcher (src/batcher/): L2 blocks → span batches → brotli channels → frames → L1 calldata
// or blob transactions to the batch inbox. Facts from op-batcher / op-service txmgr and geth's
// pools are named on each; the rest are choices for a local rollup, with the reason.

/**
 * Milliseconds between two rounds of the batcher loop (L1 polled, new L2 blocks loaded, frames
 * sent). 1 s: the floor the batcher never polls L1 faster than. A local L1 makes a block every
 * 1–12 s, so a second's delay is small beside one L1 block; a round costs one request
 * (`eth_getBlockByNumber latest`) when nothing changed, so a remote L1 RPC sees ~1 request/s.
 */
export const BATCHER_POLL_INTERVAL_MS = 1_000;
/** Largest calldata batcher transaction's data: op-batcher's `--max-l1-tx-size-bytes` default (120,000), below geth's 128 KiB transaction size limit. */
export const BATCHER_MAX_CALLDATA_BYTES = 120_000;
/**
 * L1 blocks a sent transaction may stay unincluded before it is resubmitted with bumped fees.
 * 4: op-service txmgr's `--resubmission-timeout` default is 48 s, four 12 s slots; counted in
 * blocks so a correctly priced transaction on a fast local L1 is not bumped by wall-clock time.
 */
export const BATCHER_RESUBMIT_AFTER_L1_BLOCKS = 4;
/**
 * Batcher transactions sent and not yet included at once. Nonces keep them in order on L1, so
 * several may be in flight; 4 lets a channel of several transactions go out in one L1 block
 * while staying far below geth's per-account blob-pool limit (16).
 */
export const BATCHER_MAX_PENDING_TXS = 4;
/** Fee bump (percent) to replace a pending non-blob transaction: geth's legacy pool `PriceBump` (10), on both the tip and the fee cap. */
export const BATCHER_PRICE_BUMP_PERCENT = 10;
/**
 * Fee bump (percent) to replace a pending blob transaction: geth's blob pool `PriceBump` (100),
 * which it applies to the tip, the fee cap and the blob fee cap alike (blobpool.go: replacements
 * "should be aggressively discouraged"); op-service txmgr's `blobPriceBump` is 100 too.
 */
export const BATCHER_BLOB_PRICE_BUMP_PERCENT = 100;
/** Fee cap = this × the next block's base fee + tip: the base fee can rise 12.5 % a block, so 2× covers six full blocks in a row. */
export const BATCHER_BASE_FEE_MULTIPLIER = 2n;
/** Blob fee cap = this × the next block's blob base fee (same margin as the execution fee). */
export const BATCHER_BLOB_BASE_FEE_MULTIPLIER = 2n;
/** A resubmission's fees may reach this multiple of the current suggestion and no more (op-service txmgr's `--fee-limit-multiplier` default, 5): beyond, it waits for the market. */
export const BATCHER_FEE_LIMIT_MULTIPLIER = 5n;
/** Fees below this (wei) are never held back by {@link BATCHER_FEE_LIMIT_MULTIPLIER}: op-service txmgr's `--txmgr.fee-limit-threshold` default, 100 gwei, so cheap local and test L1s bump freely. */
export const BATCHER_FEE_LIMIT_THRESHOLD_WEI = 100_000_000_000n;
/** Least tip (wei) a batcher transaction offers: op-service txmgr's `--txmgr.min-tip-cap` default, 1 gwei. */
export const BATCHER_MIN_TIP_WEI = 1_000_000_000n;
/** Least base fee (wei) the fee cap assumes: op-service txmgr's `--txmgr.min-basefee` default, 1 gwei. */
export const BATCHER_MIN_BASE_FEE_WEI = 1_000_000_000n;
/**
 * L1 block headers the batcher remembers to find where an L1 reorg forked. 64 = two beacon
 * epochs, after which Ethereum blocks are final; a local L1 reorgs only on request.
 */
export const BATCHER_L1_REORG_WINDOW_BLOCKS = 64;
/** Most L1 blocks read in one round (each one request); a batcher far behind catches up over several rounds. */
export const BATCHER_MAX_L1_BLOCKS_PER_ROUND = 64;
/** Most L2 blocks loaded into channels in one round, so one round's compression work stays bounded after a long pause. */
export const BATCHER_MAX_L2_BLOCKS_PER_ROUND = 512;
/**
 * Span-batch bytes one transaction may take beyond its EIP-2718 bytes (a nonce or gas uvarint
 * one byte longer than its RLP, the creation/parity/protected bits), and bytes per block (its
 * transaction count, its origin bit). Only decides when a channel is worth compressing again to
 * see whether it is full; the final size is always measured.
 */
export const BATCHER_SPAN_TX_SLACK_BYTES = 8;
/** See {@link BATCHER_SPAN_TX_SLACK_BYTES}: per block. */
export const BATCHER_SPAN_BLOCK_SLACK_BYTES = 16;
/**
 * Bytes a channel takes besides its blocks' share: the span batch prefix and counts (relative
 * timestamp, origin number, two 20-byte checks), the RLP string and batch type around it, the
 * brotli stream's header and last block, the channel version byte. Like the slack above, it only
 * decides when to measure again.
 */
export const BATCHER_CHANNEL_FIXED_SLACK_BYTES = 256;
/**
 * Most time the batcher's part of a shutdown takes (`BatchSubmitter.shutdown`): closing the open
 * channel and handing its transactions to L1 (a KZG commitment and proof per blob, ~0.1 s each,
 * and a few requests), then the end of its round. Past it the batcher's L1 requests are cut off.
 * 3 s fits in SHUTDOWN_GRACE_MS (10 s) after the RPC drain (SHUTDOWN_DRAIN_MS, 5 s).
 */
export const BATCHER_SHUTDOWN_MS = 3_000;
