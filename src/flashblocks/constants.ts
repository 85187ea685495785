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
/** Flashblocks stream: ping interval; a ping without a pong by the next tick means a half-open connection (base/base PR #77). */
export const FLASHBLOCKS_PING_INTERVAL_MS = 500;
/** Flashblocks stream: first reconnect delay after a failed connect or ping (base/base `subscription.rs`). */
export const FLASHBLOCKS_BACKOFF_INITIAL_MS = 1_000;
/** Flashblocks stream: the reconnect delay doubles up to 10 s (base/base `subscription.rs`). */
export const FLASHBLOCKS_BACKOFF_MAX_MS = 10_000;
/**
 * Size of each of the two SharedArrayBuffer slots holding the serialized pending block. A full
 * Base block (≈ 2,000 transactions with receipts, JSON both ways) serializes to ≈ 10 MB; 64 MiB
 * leaves headroom and is only committed by the OS as it is written.
 */
export const PENDING_SNAPSHOT_SLOT_BYTES = 64 * 1024 * 1024;

// ---- flashblocks --------------------------------------------------------------------------
/** Flashblocks stream: cap on a frame's decoded (decompressed) size: 32 MiB, base/base `MAX_DECOMPRESSED_FLASHBLOCK_BYTES`. */
export const MAX_DECOMPRESSED_FLASHBLOCK_BYTES = 32 * 1024 * 1024;
/** Flashblocks stream: frames are held for blocks at most 5 ahead of the canonical tip (base/base `cache.rs`, PR #973). */
export const MAX_HOLD_AHEAD_BLOCKS = 5n;
/** Pending-block SharedArrayBuffer: reader attempts before giving up on a copy (only reached if the writer laps the reader repeatedly). */
export const PENDING_READ_MAX_ATTEMPTS = 8;
/**
 * Young-generation semi-space of the flashblocks worker, MiB. V8 starts a worker at 1 MiB and
 * the worker's low survival rate never makes it grow, so it collected about once per 5-transfer
 * frame (0.5 MiB of garbage each), 0.8–5 ms per collection on 2 cores: 657 ms of pauses in 330
 * frames. At 16 MiB a collection comes every ~20 frames: 90 ms in the same run. Costs ~32 MiB.
 */
export const FLASHBLOCKS_WORKER_SEMI_SPACE_MB = 16;
/**
 * The flashblocks worker collects its young generation when it goes idle once it is this full
 * (`util/youngGc.ts`): a frame allocates ~0.6 MiB, so at half of 16 MiB no frame fills it.
 */
export const FLASHBLOCKS_IDLE_GC_FRACTION = 0.5;
/** Pause before a crashed flashblocks worker is replaced (avoids a hot crash loop). */
export const FLASHBLOCKS_WORKER_RESTART_DELAY_MS = 1_000;
/** Longest single wait of the RPC thread on the pending buffer's generation counter; bounds how long stopping the flashblocks service takes. */
export const FLASHBLOCKS_WATCH_TIMEOUT_MS = 500;
/** Shutdown: how long the flashblocks worker gets to drain and close its store after "stop" before it is terminated. */
export const FLASHBLOCKS_WORKER_STOP_MS = 5_000;
/**
 * Devnet flashblocks publisher: longest a subscriber may stay unable to take data: 1000 ms, the send timeout after which
 * Base's websocket-proxy disconnects a slow client (reference §1.5).
 */
export const SLOW_SUBSCRIBER_TIMEOUT_MS = 1_000;
/**
 * Devnet flashblocks publisher: largest send buffer a subscriber may accumulate: 16 MiB, more than every frame of a full Base
 * block (≈ 10 MB of JSON, see PENDING_SNAPSHOT_SLOT_BYTES) — a client that far behind is lost.
 */
export const MAX_SUBSCRIBER_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Devnet flashblocks publisher: largest message a subscriber may send, 4 KiB; subscribers send nothing but control frames (Base ignores client messages). */
export const FLASHBLOCKS_MAX_INBOUND_MESSAGE_BYTES = 4 * 1024;
/** Devnet flashblocks publisher: seconds without traffic before uWS pings (then drops) a subscriber: uWS's default of 120 s. */
export const FLASHBLOCKS_SUBSCRIBER_IDLE_TIMEOUT_S = 120;
