/**
 * Prometheus metrics of importing gossip blocks on the main thread (the P2P thread counts the
 * messages themselves): what became of each block that passed gossip validation, which source
 * delivered a block first, and the import time.
 */
import { counter, gauge, histogram } from "../util/metrics.js";

/**
 * What became of a validated gossip block: `imported` (extended the head), `reorged` (replaced
 * the unsafe tip), `known` (another source had it first), `stale` (at or below the safe head),
 * `buffered` (parent missing, held), `dropped` (the held-blocks bound pushed it out), `invalid`
 * (failed to rebuild or execute).
 */
export type GossipImportOutcome = "imported" | "reorged" | "known" | "stale" | "buffered" | "dropped" | "invalid";

/** Validated gossip blocks by {@link GossipImportOutcome}. */
export const gossipImportBlocksTotal = counter({ name: "basalt_p2p_gossip_import_blocks_total", help: "Validated gossip blocks by what the import did with them", labelNames: ["outcome"] });

/**
 * New blocks by the source that delivered them first: `p2p` when the gossip copy arrived before
 * the block was stored, `other` when follow mode, derivation or the Engine API had stored it.
 */
export const blocksFirstSeenTotal = counter({ name: "basalt_p2p_blocks_first_seen_total", help: "Blocks by the source that delivered them first (p2p or other)", labelNames: ["source"] });

/** Gossip blocks held now, waiting for their parent. */
export const gossipBufferedBlocks = gauge({ name: "basalt_p2p_gossip_buffered_blocks", help: "Gossip blocks held while their parent is missing" });

/** Blocks fetched by number from peers (req/resp) to close a gap, by result. */
export const gapFetchBlocksTotal = counter({ name: "basalt_p2p_gap_fetch_blocks_total", help: "Blocks asked for by number to close a gap before held gossip blocks, by result", labelNames: ["result"] });

/** Time from a gossip block's arrival at the P2P thread to its commit as the head, in seconds. */
export const gossipImportSeconds = histogram({
  name: "basalt_p2p_gossip_import_seconds",
  help: "Time from receiving a gossip block to committing it, in seconds",
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});
