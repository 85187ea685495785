/**
 * Constants of `src/cli/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/** Graceful shutdown: in-flight requests get this long to finish before they are cut off. */
export const SHUTDOWN_DRAIN_MS = 5_000;

// ---- commands: node, import, doctor -------------------------------------------------------
/** Most time given to in-flight work on shutdown before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;
/**
 * Longest wait on shutdown for the execution pool to close after the drain. Piscina's close waits
 * for running tasks (up to 30 s); a call still running has outlived the drain and is abandoned
 * (the workers only read the store, and the process exits right after the store is closed).
 */
export const SHUTDOWN_POOL_WAIT_MS = 1_000;
/**
 * `basalt import`: blocks decoded ahead of the one executing, whose senders the execution pool recovers
 * meanwhile. A 200-transaction block executes in ~170 ms and its senders take ~20 ms of one
 * core, so a few blocks keep the pool ahead at any block size.
 */
export const IMPORT_SENDER_LOOKAHEAD_BLOCKS = 4;
/**
 * `basalt doctor`: time limit of one network probe: an L1 provider or local port that takes longer than 5 s to
 * answer `eth_chainId` is unusable for a node anyway, and the whole doctor stays under ~10 s.
 */
export const DOCTOR_PROBE_TIMEOUT_MS = 5_000;

// ---- basalt devnet rollup (orchestration) ----------------------------------------------------
/**
 * Seconds between L1 blocks of the local rollup's own L1: 2 s, so deposits, batches and finality
 * show within seconds (Ethereum's 12 s would make a local loop wait a minute for a safe head).
 */
export const DEVNET_ROLLUP_L1_BLOCK_TIME_S = 2;
