/**
 * Constants of `src/blockchain/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/**
 * Older states' tries kept per thread (storage/stateRevert.ts, by head and block): a proof or a
 * witness asked at one block is often asked again (a prover walks several keys), and reverting
 * 64 blocks of Base costs ~100k trie updates.
 */
export const REVERTED_STATES_KEPT = 4;

/**
 * Longest wait for a built-in network's genesis download (`basalt init --network base-mainnet`):
 * the files are ~9 MB, which a slow (1 Mbit/s) link still fetches within two minutes; past that
 * the user is told to download the file and pass `--genesis`.
 */
export const GENESIS_DOWNLOAD_TIMEOUT_MS = 120_000;
/**
 * Decoded blocks kept in memory by hash (`Chain.getBlockByHash`). A decoded block is heavy: each
 * @ethereumjs transaction keeps its own `Common` copy, ~16 KiB per transaction measured (a 20-tx
 * block 0.32 MiB, a 200-tx Base block ~3 MiB). 64 blocks — the response cache's window, where
 * block reads concentrate — bounds it near 200 MiB on Base; older blocks decode from LMDB.
 */
export const BLOCK_CACHE_BLOCKS = 64;
/**
 * Decoded headers kept by hash (a header is ~2 KiB decoded): parent lookups, canonical checks and
 * state views decode the same recent headers again and again (the flashblocks worker decoded
 * its anchor's header three times per block, 60 µs each). 1,024 headers: ~2 MiB.
 */
export const HEADER_CACHE_HEADERS = 1_024;

// ---- chain service ------------------------------------------------------------------------
/**
 * Engine API: blocks executed by `engine_newPayload` (or built for a payload) on top of the head
 * but not yet canonical, kept with their execution result so a forkchoice update to one of them
 * commits without executing it again; an evicted one is re-executed from the store. 64, as many
 * as the decoded-block cache ({@link BLOCK_CACHE_BLOCKS}).
 */
export const EXECUTED_BLOCKS_KEPT = 64;
/**
 * Without `--archive`, state history older than `--history.blocks` is pruned when that floor
 * reaches a multiple of this many blocks: one pruning transaction per 16 blocks instead of one
 * per block; a failed pruning is retried at the next multiple.
 */
export const HISTORY_PRUNE_INTERVAL_BLOCKS = 16n;
