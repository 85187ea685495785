/**
 * Constants of flashblocks ingestion that only this subsystem uses (the shared ones are still in
 * `config/constants.ts`).
 */

/**
 * Longest pause before a crashed flashblocks worker is replaced: the delay doubles from
 * `FLASHBLOCKS_WORKER_RESTART_DELAY_MS` (1 s) at each crash in a row, so a worker that dies at
 * once every time (a bad datadir, a crash on one frame) restarts at most twice a minute instead of
 * every second, while a one-off crash is still replaced after 1 s.
 */
export const FLASHBLOCKS_WORKER_RESTART_MAX_DELAY_MS = 30_000;

/**
 * A flashblocks worker that stayed up this long counts as healthy: its next crash restarts after
 * the initial delay again. One minute is 300 flashblocks (one per 200 ms): a worker that handled
 * that many did not die of what killed its predecessor.
 */
export const FLASHBLOCKS_WORKER_STABLE_MS = 60_000;
