/**
 * Constants of `src/proofs/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/** Trie nodes per write of the proofs baseline (init): a batch of ~100 B–500 B nodes stays a few MiB, and a kill loses at most one. */
export const PROOFS_BASELINE_BATCH_NODES = 20_000;
/** Canonical blocks the proofs writer writes before it looks at backfill and pruning again (Base's node: 50 per turn). */
export const PROOFS_FORWARD_BLOCKS_PER_TURN = 50;
/** Blocks the window is extended backwards per turn of the writer, between forward-sync checks (so the tip never waits long). */
export const PROOFS_BACKFILL_BLOCKS_PER_TURN = 25;
/** Pruning cadence of the proofs window (Base's node: 15 s; larger batches stalled its writer). */
export const PROOFS_PRUNE_INTERVAL_MS = 15_000;
/** Blocks pruned per prune call (Base's node: 200), so a shrunk window prunes gradually instead of stalling. */
export const PROOFS_PRUNE_BATCH_BLOCKS = 200;
/** Longest wait of an RPC request for the proofs worker's answer before it fails. */
export const PROOFS_REQUEST_TIMEOUT_MS = 30_000;
/** Longest wait for the proofs worker to finish its write and close the store at shutdown. */
export const PROOFS_WORKER_STOP_MS = 10_000;
/**
 * Paths whose version ranges the proofs store keeps in memory (proofs/versionCache.ts). Every
 * proof walks the upper levels of the account trie: its top four levels on a Base-mainnet-sized
 * trie are 1 + 16 + 256 + 4,096 = 4,369 nodes, so this holds them, the hot storage tries' upper
 * levels and the recently proven paths below.
 */
export const PROOFS_VERSION_CACHE_PATHS = 32_768;
/**
 * Known ranges kept per path: enough for proofs around `latest` and a few historical blocks asked
 * for at once (a challenger's output-root block). With {@link PROOFS_VERSION_CACHE_PATHS} and
 * 100–532-byte nodes (off the V8 heap: RocksDB's buffers), at most ~70 MB.
 */
export const PROOFS_VERSION_CACHE_RANGES = 4;
/**
 * Trie levels an eth_getProof read starts at once for each key (root included): a trie of 10^8
 * accounts is about log16(10^8) ≈ 7 levels deep, so 8 covers a Base mainnet path with one round
 * of RocksDB reads; deeper levels are read as the walk reaches them.
 */
export const PROOFS_PREFETCH_LEVELS = 8;
/**
 * Proofs store: most version seeks a write (pruneTo, stepBack) keeps in flight at once. Each
 * seek is a job on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), the
 * same pool the store's readers (eth_getProof) and file I/O use; 2 overlaps the seeks' latency
 * while leaving half the pool to readers, so serving proofs never queues behind a prune.
 */
export const PROOFS_WRITE_READ_CONCURRENCY = 2;
/**
 * Proofs sync (forward and backfill, proofs/trieStep.ts): node reads of one block's step kept in
 * flight at once. A step reads every changed key's path level by level (a Base block: a few
 * thousand nodes, most of the upper levels from the store's version cache without a seek); each
 * seek is a job on libuv's 4-thread pool, which eth_getProof's reads share, so 8 keeps every
 * thread busy with one job queued behind it, and a proof read waits behind at most 8 seeks.
 */
export const PROOFS_SYNC_READ_CONCURRENCY = 8;
/** Proofs store dump (snapshot export): bytes gathered before each write to the compressor; few large writes instead of one per entry, at 1 MiB of memory. */
export const PROOFS_DUMP_CHUNK_BYTES = 1024 * 1024;
/** Proofs store restore (snapshot import): bytes of keys and values per write batch; a batch is built in memory, and 4 MiB keeps it small while each write stays large. */
export const PROOFS_RESTORE_BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Proofs store check (snapshot export and import): accounts proven at each end of the window. The
 * fee vaults and L1Block, which every OP block writes, then the block's senders and recipients;
 * 8 walks the account trie's upper levels along several paths and each takes about a millisecond.
 */
export const PROOFS_CHECK_ACCOUNTS = 8;
