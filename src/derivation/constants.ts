/**
 * Constants of the derivation service (main thread) and its worker, each with its reason.
 * (The pipeline's own limits still live in `config/constants.ts`.)
 */
import type { RestartPolicy } from "../util/workerHost.js";

/**
 * Restart of a crashed derivation worker: it resumes from the safe head, as at start. The first
 * restart waits 1 s (the fixed delay before the worker host), later ones double up to 30 s so a
 * crash loop stays slow; a worker that stayed up a minute starts over at 1 s.
 */
export const DERIVATION_WORKER_RESTART: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableMs: 60_000 };

/** Shutdown: how long the worker gets to finish its step and close the store after "stop" before it is terminated (the worker host's stop grace). */
export const DERIVATION_WORKER_STOP_GRACE_MS = 5_000;

// ---- Derivation: batch validity ------------------------------------------------------------

/**
 * Sequencer drift from Fjord on, whatever the rollup config says (specs fjord/derivation.md
 * "Constant Maximum Sequencer Drift"): an L2 block may run at most 30 minutes ahead of its L1
 * origin, keyed on the origin's timestamp.
 */
export const FJORD_MAX_SEQUENCER_DRIFT_SECONDS = 1_800n;

// ---- Derivation: L1 source -----------------------------------------------------------------

/**
 * L1 blocks the L1 source keeps by hash: a sequencing window's worth on Base (3,600) would be
 * the most derivation looks back at, but it reads each block once in order and re-reads only
 * the few around a reorg or a span batch's origins, so 256 (about 50 minutes of L1) suffices.
 */
export const L1_SOURCE_CACHE_BLOCKS = 256;

// ---------------------------------------------------------------------------------------------
// Derivation: blobs (src/derivation/blobCodec.ts, kzg.ts, beaconClient.ts, beaconShim.ts)
// ---------------------------------------------------------------------------------------------
/** OP blob encoding version byte (byte 1 of field element 0): the only one defined (specs ecotone/derivation.md "Blob Encoding"; op-service eth/blob.go EncodingVersion). */
export const BLOB_ENCODING_VERSION = 0;
/**
 * Beacon API: time limit of one request, body included. A local beacon node answers a block's blobs in well under a
 * second (a Fulu block's 21 blobs are ~5.5 MB of JSON); 10 s stays below one 12 s L1 slot, so a stuck node is noticed
 * before derivation falls a slot behind, and a slow remote provider still gets room.
 */
export const BEACON_REQUEST_TIMEOUT_MS = 10_000;
/**
 * Beacon API: largest response body read. One blob is 262,146 characters of hex in JSON (a sidecar ~3 KB more); 64 MiB
 * holds 128 blobs with their sidecar fields twice over (mainnet's BPO2 maximum is 21 per block), and bounds what a
 * hostile or broken server can make the node buffer.
 */
export const BEACON_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Beacon API shim (local rollups, tests): seconds per slot it reports unless told otherwise, Ethereum mainnet's SECONDS_PER_SLOT (12). */
export const BEACON_SHIM_SECONDS_PER_SLOT = 12;

// ---- derivation ---------------------------------------------------------------------------
// Protocol limits of the OP Stack derivation codecs (src/derivation/). They are consensus rules,
// not tunables: every rollup node must use these values (sources named on each).
/**
 * Bytes a frame adds to its channel's size on top of its data, for channel-size accounting (specs
 * derivation.md "Channel Bank" pruning; the Holocene channel assembler drops a channel over
 * `MAX_RLP_BYTES_PER_CHANNEL` counted this way). Not the frame's encoded overhead (23 bytes).
 */
export const FRAME_OVERHEAD_BYTES = 200;
/** Most decompressed bytes read from one channel before Fjord (specs fjord/derivation.md; op-node `MaxRLPBytesPerChannel`). */
export const MAX_RLP_BYTES_PER_CHANNEL_BEDROCK = 10_000_000;
/** Most decompressed bytes read from one channel from Fjord on (specs fjord/derivation.md "Increase MAX_RLP_BYTES_PER_CHANNEL"). */
export const MAX_RLP_BYTES_PER_CHANNEL_FJORD = 100_000_000;
/**
 * Most elements of one kind in a span batch: blocks, transactions of a block, transactions in all,
 * and bytes of one transaction's `tx_data` (specs derivation.md `MAX_SPAN_BATCH_ELEMENT_COUNT`;
 * op-node `MaxSpanBatchElementCount`).
 */
export const MAX_SPAN_BATCH_ELEMENT_COUNT = 10_000_000;
/**
 * Output chunk of the channel decompressor: zlib's default (`Z_DEFAULT_CHUNK`, 16 KiB). The
 * decompressor stops within one chunk past `MAX_RLP_BYTES_PER_CHANNEL`, so this bounds the overshoot
 * of a decompression bomb; it is also the most output a corrupt stream can lose before the point
 * where the decoder detects the corruption (Node's zlib drops the output of the failing step).
 */
export const CHANNEL_DECOMPRESS_CHUNK_BYTES = 16 * 1024;
/** zlib level of channels the batcher side compresses: op-batcher's `zlib.BestCompression` (9). */
export const CHANNEL_ZLIB_LEVEL = 9;

// ---- derivation pipeline (the worker's loop) ------------------------------------------------
/**
 * After the L1 head's slot time, wait this long before asking for the next block: blocks reach
 * an RPC a few hundred ms into their slot, and asking too early costs a request for nothing.
 */
export const DERIVATION_HEAD_POLL_MARGIN_MS = 500;
/** Shortest wait between two polls of the L1 head (a local L1 with 1 s blocks polls at most 4 times a second). */
export const DERIVATION_MIN_POLL_MS = 250;
/** First retry after an L1 or beacon error; doubles per failure. */
export const DERIVATION_RETRY_MIN_MS = 500;
/** Longest retry interval: one Ethereum slot, so an outage costs at most a block's latency once it ends. */
export const DERIVATION_RETRY_MAX_MS = 12_000;
/**
 * A critical error (a malformed deposit log: nothing after its L1 block can be derived) is
 * retried from a reset this often — only an L1 reorg can remove the cause.
 */
export const DERIVATION_CRITICAL_RETRY_MS = 30_000;
/**
 * Ask L1 for its finalized block every this many L1 blocks: finality moves once per 32-slot
 * epoch on Ethereum, so 8 blocks (~96 s) sees each step within a quarter epoch for 1/8 request per block.
 */
export const DERIVATION_FINALITY_POLL_L1_BLOCKS = 8;
/** Pipeline steps between yields to the event loop (messages from the main thread are read between). */
export const DERIVATION_STEPS_PER_YIELD = 64;
/** A repeated warning (the same drop reason, the same outage) is logged at most once per this interval; every one is counted. */
export const DERIVATION_WARN_INTERVAL_MS = 60_000;
/** Status messages from the derivation worker at most this often (a sync derives many blocks a second). */
export const DERIVATION_STATUS_INTERVAL_MS = 200;
