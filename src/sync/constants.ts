/**
 * Constants of `src/sync/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

// ---- follow mode and the JSON-RPC client ---------------------------------------------------
/**
 * Follow mode: blocks requested ahead of the one being imported. Hides the source's round-trip time while
 * catching up (8 × a 2 s Base block's JSON is a few MB in flight at most).
 */
export const FOLLOW_FETCH_AHEAD = 8;
/** Follow mode: how often the source's `safe` and `finalized` blocks are read: a few seconds, as they move once per L1 batch. */
export const FOLLOW_TAGS_INTERVAL_MS = 4_000;
/** Follow mode: eth_syncing reports progress only while the node is more than this many blocks behind the source ("a couple"). */
export const FOLLOW_SYNCING_LAG_BLOCKS = 2n;
/** Follow mode: first retry delay after a failed round (network fault, bad block): a quarter second, so blips cost little. */
export const FOLLOW_BACKOFF_INITIAL_MS = 250;
/** Follow mode: largest retry delay (doubling per failure): 10 s, a handful of Base block times. */
export const FOLLOW_BACKOFF_MAX_MS = 10_000;
/** Follow mode: milliseconds between "syncing" progress lines while catching up: as `basalt import`'s, rare enough for info level. */
export const FOLLOW_PROGRESS_INTERVAL_MS = 8_000;
/** Follow mode: most reorg steps in one sync round before the loop re-polls the source (a source that keeps changing). */
export const FOLLOW_MAX_REORG_STEPS_PER_ROUND = 16;
