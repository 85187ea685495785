/**
 * Constants of `src/storage/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/**
 * Writes per LMDB transaction of a bulk load (storage/bulkLoad.ts): large enough that commits
 * (an fsync each) are a small part of the time, small enough that a kill loses seconds of work
 * and a transaction's dirty pages (~100 MB) stay well within memory.
 */
export const BULK_LOAD_TXN_WRITES = 200_000;

/**
 * LMDB's initial memory map: 1 TiB of address space (sparse; only written pages use disk). Not a
 * limit: lmdb-js's LMDB grows the map (to twice the pages in use) when a write needs pages beyond
 * it, and readers in other threads and processes remap at their next transaction
 * (test/unit/storage/mapGrowth.test.ts). Large so that growth, a remap, is rare: Base mainnet's
 * full state is a few hundred GB in this layout.
 */
export const LMDB_MAP_SIZE = 1024 ** 4;

/**
 * Trie nodes cached per thread by path, validated by the parent's hash (storage/stateTrieSource.ts):
 * 98,304 nodes of ≤ 535 bytes is at most ~50 MiB of node bytes. The account trie's first five
 * levels are ~70 k nodes (1 + 16 + 256 + 4,096 + 65,536) and every block's state root walks them.
 */
export const TRIE_PATH_CACHE_NODES = 98_304;
/**
 * Deepest account-trie path whose stored node the path cache keeps (nibbles): the full first five
 * levels of a 30 M-account trie. Deeper nodes and leaves are read about once per change and would
 * only push them out.
 */
export const TRIE_CACHE_ACCOUNT_DEPTH = 5;
/** Deepest storage-trie path whose stored node the path cache keeps: the top of large contracts' tries (a token's). */
export const TRIE_CACHE_STORAGE_DEPTH = 2;

// ---- execution ----------------------------------------------------------------------------
/**
 * keccak256 of addresses kept per thread by the state readers (the flat state is keyed by it):
 * 65,536 × ~150 bytes ≈ 10 MB; hashing costs 1.5 µs native, 7.7 µs in JavaScript, per read.
 */
export const HASHED_ADDRESS_CACHE_ENTRIES = 65_536;

// ---- storage ------------------------------------------------------------------------------
/** Snapshot files: largest header accepted; the JSON is ~500 bytes, anything far larger is a corrupt length. */
export const SNAPSHOT_MAX_HEADER_BYTES = 64 * 1024;
/**
 * Snapshot files: payload compression, brotli quality 4. Measured on a devnet datadir after a 5-minute soak
 * (8.6 MiB compacted LMDB copy): gzip-1 2.87 MiB in 103 ms, gzip-6 2.77 MiB in 191 ms,
 * brotli-4 1.35 MiB in 120 ms — half of gzip's size at gzip-1's speed (higher brotli qualities
 * cost several times more time for a few percent).
 */
export const SNAPSHOT_BROTLI_QUALITY = 4;
/**
 * Database-size gauge: directory levels searched below the datadir for LMDB environments: the chain store is
 * `<datadir>/chain`, and 3 levels leave room for nested stores (e.g. `<datadir>/proofs/<db>`)
 * without walking arbitrary trees a user may have put there.
 */
export const DB_SIZE_SEARCH_DEPTH = 3;
