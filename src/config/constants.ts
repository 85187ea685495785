/**
 * Every default of basalt in one place, each with the reason for its value.
 * Option tables (`src/config/options.ts`) take their defaults from here.
 */
import { availableParallelism } from "node:os";

/** Default HTTP JSON-RPC port: the port every Ethereum tool assumes (geth, reth, anvil). */
export const DEFAULT_HTTP_PORT = 8545;
/** Default listen address: loopback, so a fresh node is never exposed by accident (geth's default). */
export const DEFAULT_HTTP_ADDR = "127.0.0.1";
/** Default authenticated Engine API port: the standard one consensus clients dial (geth/reth 8551). */
export const DEFAULT_AUTHRPC_PORT = 8551;
/** Default WebSocket JSON-RPC port (geth/reth 8546). */
export const DEFAULT_WS_PORT = 8546;
/** Default WebSocket listen address: loopback, like the HTTP server. */
export const DEFAULT_WS_ADDR = "127.0.0.1";
/** Default devnet block time in seconds: Base's own block time is 2 s. */
export const DEFAULT_DEV_BLOCK_TIME_S = 2;

/**
 * Maximum HTTP request body. geth allows 5 MiB; reth 15 MB. A raw blob transaction with
 * six blobs and proofs is ~800 KB, so 5 MiB leaves room for batches while bounding memory.
 */
export const MAX_REQUEST_BODY_BYTES = 5 * 1024 * 1024;
/** Maximum requests in one batch: geth's `BatchRequestLimit` (1000). */
export const MAX_BATCH_LENGTH = 1000;
/** Maximum size of one batch response: geth's `BatchResponseMaxSize` (25 MB). */
export const MAX_BATCH_RESPONSE_BYTES = 25 * 1000 * 1000;
/** Maximum nesting depth of a JSON request; deeper input is rejected before parsing. */
export const MAX_JSON_DEPTH = 64;
/** Gas cap for eth_call / eth_estimateGas / eth_createAccessList: geth and reth use 50,000,000. */
export const RPC_GAS_CAP = 50_000_000n;
/** Wall-clock limit of one eth_call-like execution: geth's `RPCEVMTimeout` (5 s). */
export const RPC_EVM_TIMEOUT_MS = 5_000;
/**
 * Execution pool threads (eth_call, eth_estimateGas, eth_createAccessList): every core but one,
 * which the RPC thread keeps for parsing, routing and serving cached answers (at least one).
 */
export const DEFAULT_EXECUTION_THREADS = Math.max(1, availableParallelism() - 1);
/**
 * Call-family requests allowed to wait for a pool thread, per thread. An ERC-20 call takes
 * 1–3 ms on a worker, so 256 waiting is under a second of queueing per thread — far inside the
 * 5 s timeout — while bounding memory (each waiting request is a few hundred bytes). Beyond it
 * requests are refused with -32005 at once.
 */
export const EXECUTION_QUEUE_PER_THREAD = 256;
/**
 * Heap limit of one execution worker. Calls are capped at 50M gas, whose EVM memory is a few
 * MB; the rest is caches (code, trie nodes). A worker above it is replaced rather than growing.
 */
export const EXECUTION_WORKER_HEAP_MB = 1_024;
/** Transaction fee cap for eth_sendRawTransaction: geth's and reth's 1 ether. */
export const RPC_TX_FEE_CAP_WEI = 10n ** 18n;
/** eth_estimateGas stops bisecting when (hi - lo) / hi < 1.5 % (geth `estimateGasErrorRatio`). */
export const ESTIMATE_GAS_ERROR_RATIO = 0.015;
/** Gas added by the optimistic estimateGas probe: the call stipend (reth `CALL_STIPEND_GAS`). */
export const CALL_STIPEND_GAS = 2_300n;
/** Default of `--rpc.max-blocks-per-filter`: most blocks one eth_getLogs range may span beyond its first (reth's 100k-block filter limit). */
export const MAX_LOGS_BLOCK_RANGE = 100_000;
/** Default of `--rpc.max-logs-per-response`: most logs one eth_getLogs over several blocks may return (reth's 20k). */
export const MAX_LOGS_PER_RESPONSE = 20_000;
/** Most addresses in one log filter (geth `maxAddresses`: "exceed max addresses"); bounds the matching work per log. */
export const MAX_FILTER_ADDRESSES = 1000;
/** Most alternatives at one topic position of a log filter (geth's bound of the same size, "exceed max subtopics"). */
export const MAX_FILTER_SUBTOPICS = 1000;
/** Most blocks one eth_feeHistory request may cover (geth's `maxBlockCount` 1024). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

/**
 * Blocks of history kept for state queries without `--archive`: 128, the depth geth keeps
 * in memory (`TriesInMemory`) and what most tools assume a full node can answer.
 */
export const DEFAULT_STATE_HISTORY_BLOCKS = 128;

/**
 * Older states' tries kept per thread (storage/stateRevert.ts, by head and block): a proof or a
 * witness asked at one block is often asked again (a prover walks several keys), and reverting
 * 64 blocks of Base costs ~100k trie updates.
 */
export const REVERTED_STATES_KEPT = 4;

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

/** Engine API JWT: allowed clock drift of `iat` (execution-apis authentication spec: ±60 s). */
export const JWT_IAT_DRIFT_S = 60;

/** Mempool: most transactions held in total (geth's GlobalSlots 5120 + GlobalQueue 1024). */
export const TXPOOL_MAX_TRANSACTIONS = 6144;
/** Mempool: most transactions per sender (geth's AccountSlots + AccountQueue = 16 + 64). */
export const TXPOOL_MAX_PER_SENDER = 80;

/** The well-known test mnemonic of anvil and hardhat: the devnet's prefunded accounts. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** How many dev accounts are derived (anvil and hardhat both derive ten). */
export const DEV_ACCOUNT_COUNT = 10;
/** Balance of each dev account: 10,000 ether, as anvil and hardhat. */
export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n;
/**
 * Devnet chain id: 845337 ("8453", Base's id, + "37"): an OP Stack chain of its own, distinct
 * from Base (8453), Base Sepolia (84532) and anvil/hardhat's 31337, so wallets keep
 * separate nonces and replay protection holds.
 */
export const DEVNET_CHAIN_ID = 845337n;
/** Devnet block gas limit: Base mainnet's per-block gas limit order (geth dev mode uses 30M+). */
export const DEVNET_GAS_LIMIT = 60_000_000n;

/** Devnet: seconds between simulated L1 blocks (Ethereum's 12 s slot). */
export const DEVNET_L1_BLOCK_TIME_S = 12;
/** Devnet: base fee of the simulated L1 (1 gwei, a typical quiet-mainnet value), the L1 data fee's price input. */
export const DEVNET_L1_BASE_FEE_WEI = 1_000_000_000n;
/** Devnet: L1 base-fee scalar of the L1-attributes deposit — Base mainnet's value in block 21713817 (2269). */
export const DEVNET_BASE_FEE_SCALAR = 2_269n;
/** Devnet: L1 blob-base-fee scalar — Base mainnet's value in block 21713817 (1055762). */
export const DEVNET_BLOB_BASE_FEE_SCALAR = 1_055_762n;
/**
 * Devnet: operator fee scalar (Jovian charges gas × scalar × 100 + constant). 1 → 100 wei per
 * gas: small, but nonzero so the OperatorFeeVault visibly receives fees.
 */
export const DEVNET_OPERATOR_FEE_SCALAR = 1n;
/** Devnet: operator fee constant per transaction (wei); nonzero for the same reason. */
export const DEVNET_OPERATOR_FEE_CONSTANT = 1_000n;
/** Devnet: DA footprint gas scalar; 0 selects the Jovian default 400 (specs jovian/l1-attributes.md). */
export const DEVNET_DA_FOOTPRINT_GAS_SCALAR = 0n;
/**
 * Devnet: Jovian minimum base fee (0.01 gwei). Nonzero so idle blocks cannot decay the base
 * fee to 0 and the BaseFeeVault always receives the base fee of each transaction.
 */
export const DEVNET_MIN_BASE_FEE_WEI = 10_000_000n;
/**
 * Chain id of basalt's local L1 (`--network devnet-l1`, the L1 of `basalt devnet rollup`): 900,
 * the L1 chain id of the OP Stack's own devnets (op-e2e, Kurtosis), so tooling recognizes it.
 */
export const DEVNET_L1_CHAIN_ID = 900n;
/** Chain id anvil and hardhat serve by default; a local rollup may settle on an anvil L1. */
export const ANVIL_CHAIN_ID = 31_337n;
/** Devnet: batcher address in the L1-attributes deposit (no batcher runs; any fixed address). */
export const DEVNET_BATCHER_ADDRESS = "0x000000000000000000000000000000000000ba7c";

/** Client name reported by web3_clientVersion and engine_getClientVersionV1. */
export const CLIENT_NAME = "basalt";
/** Two-letter client code for engine_getClientVersionV1 (not registered; "BA"). */
export const CLIENT_CODE = "BA";

/**
 * Longest wait for a built-in network's genesis download (`basalt init --network base-mainnet`):
 * the files are ~9 MB, which a slow (1 Mbit/s) link still fetches within two minutes; past that
 * the user is told to download the file and pass `--genesis`.
 */
export const GENESIS_DOWNLOAD_TIMEOUT_MS = 120_000;

/**
 * Devnet flashblock interval: Base's builder publishes a flashblock every 200 ms (10 per 2 s
 * block; docs.base.org "Flashblocks").
 */
export const DEFAULT_FLASHBLOCKS_INTERVAL_MS = 200;
/**
 * Devnet flashblocks WebSocket port: 1111, rollup-boost's default `--flashblocks-port`, the
 * port Base's tooling expects a local flashblocks stream on.
 */
export const DEFAULT_FLASHBLOCKS_PORT = 1111;
/**
 * Follow mode: how often the trusted L2 RPC is polled for its head. Base seals a block every
 * 2 s; 250 ms sees a new block within an eighth of a block time at 4 requests/s to the source.
 */
export const DEFAULT_FOLLOW_POLL_INTERVAL_MS = 250;
/** eth_sendRawTransactionSync (EIP-7966): default and largest wait, 6000 ms (base/base `rpc/eth.rs`). */
export const SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS = 6_000;
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
/**
 * Blocks whose final JSON answers (block with hashes, with full transactions, receipts) are
 * kept ready: 64 covers the ~2 minutes of Base blocks that RPC traffic concentrates on (head,
 * recent receipts) at a few MB per full 200-transaction block.
 */
export const RESPONSE_CACHE_BLOCKS = 64;

/**
 * Consensus-side RPC port (`optimism_syncStatus`, `healthz`): the host port Base's node setup
 * maps to its consensus client (base/node docker-compose 7545 → 8545), which the docs' sync
 * check queries.
 */
export const DEFAULT_ROLLUP_PORT = 7545;
/** Prometheus metrics port: reth's `--metrics` default (9001). */
export const DEFAULT_METRICS_PORT = 9001;
/**
 * Public mode: sustained requests per second per client IP. Public endpoints are rate limited
 * without published figures; 50 req/s keeps one abusive client below ~5 % of the RPC thread's
 * capacity for cached reads while leaving interactive dApps (a few requests per second) untouched.
 */
export const DEFAULT_PUBLIC_RATE_PER_IP = 50;
/** Public mode: burst a client may spend at once (two seconds at the sustained rate). */
export const DEFAULT_PUBLIC_BURST_PER_IP = 100;
/**
 * Public mode: open connections allowed (HTTP keep-alive and WebSocket together). Each costs a
 * socket and a few KiB; 2,048 is far below `LimitNOFILE` in deploy/basalt.service.
 */
export const DEFAULT_PUBLIC_MAX_CONNECTIONS = 2_048;
/**
 * Historical proofs window: 28 days of 2-second blocks, the documented default
 * (specification "Limits": "Default proof history window: 28 days of blocks").
 */
export const DEFAULT_PROOFS_HISTORY_WINDOW = (28 * 24 * 3600) / 2;
/**
 * Follow mode with historical proofs: most blocks the follower imports beyond the proofs store's
 * latest block (`--proofs.max-blocks-ahead`). 512 is Base's consensus default for the same flag
 * (reference proofs-and-sync §1.8): at basalt's ~1.6 ms per forward proofs block it is under a
 * second of catching up, and it keeps a slow or initializing store from being left arbitrarily far behind.
 */
export const DEFAULT_PROOFS_MAX_BLOCKS_AHEAD = 512;
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
 * Execution witnesses (`debug_executionWitness`, `debug_executePayload`) running at once on the
 * execution pool; more wait their turn. Each re-executes a whole block with uncached trie walks,
 * so unbounded they would hold every pool thread and starve eth_call (Base's node guarded these
 * two methods with a semaphore of 3 on machines with many more cores).
 */
export const WITNESS_MAX_CONCURRENT = 2;
/** Witness requests allowed to wait for {@link WITNESS_MAX_CONCURRENT}; more are refused at once (bounded memory). */
export const WITNESS_MAX_QUEUED = 64;
/**
 * Longest a witness may run before its worker is terminated: a block's re-execution is up to
 * ~100× a call's work (a full 30M-gas block of uncached trie walks took well under 10 s here),
 * and a payload of `debug_executePayload` is caller-chosen, so it must be bounded.
 */
export const WITNESS_TIMEOUT_MS = 60_000;
/** Most storage keys one eth_getProof may ask for (Base's node and geth: 1,024). */
export const PROOFS_MAX_KEYS = 1_024;
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
/**
 * Snapshot export: attempts at the read-only open of a proofs store a running node writes. The
 * open reads the list of the store's files, then opens them; a flush or compaction of the writer
 * in between deletes one, and the next attempt reads the new list.
 */
export const PROOFS_SNAPSHOT_OPEN_ATTEMPTS = 3;
/** Graceful shutdown: in-flight requests get this long to finish before they are cut off. */
export const SHUTDOWN_DRAIN_MS = 5_000;

/**
 * Default EVM engine: the fast core. It passes every EEST state test the reference engine
 * (@ethereumjs/vm) passes and is differentially fuzzed against it; the reference engine still
 * runs whatever the fast one does not support and re-executes any block it gets wrong.
 */
export const DEFAULT_EVM_ENGINE = "fast";

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
 * Call contexts (a VM and its overlay state per target) kept per call executor. Calls mostly target the head (and `pending`); a few more
 * cover requests for recent blocks. A head change retires the head's context (its flat-state
 * reads would see the new head).
 */
export const CALL_CONTEXTS_KEPT = 8;
/** Sender recovery: fewest signed transactions worth a thread hop; below it the importing thread recovers them itself. */
export const SENDER_RECOVERY_MIN_POOL_TXS = 16;
/**
 * Execution pool: call requests handed to piscina per worker: the one running and the next, already posted, so
 * a worker never idles waiting for the RPC thread to hand it work (1,440 → 1,900 calls/s).
 */
export const EXECUTION_IN_FLIGHT_PER_WORKER = 2;
/**
 * Execution pool: most call requests handed to a worker in one message. A message each way costs
 * tens of µs, as much as a fast-EVM call; 16 calls of ~50 µs add under 1 ms to the first one's
 * latency while cutting the hand-off cost per call by up to 16×.
 */
export const EXECUTION_BATCH_MAX = 16;
/**
 * Bytecode by code hash kept per thread by the state readers. Code never changes for a hash,
 * and handing out the same array lets the EVM reuse its jump analysis (evmSpeedups.ts).
 * 4096 contracts ≈ a few tens of MB at worst (24 KiB max each), typically far less.
 */
export const CODE_CACHE_ENTRIES = 4096;
/**
 * keccak256 of addresses kept per thread by the state readers (the flat state is keyed by it):
 * 65,536 × ~150 bytes ≈ 10 MB; hashing costs 1.5 µs native, 7.7 µs in JavaScript, per read.
 */
export const HASHED_ADDRESS_CACHE_ENTRIES = 65_536;

/**
 * Fingerprints in the call contexts' admission table (execution/evm/loadAdmission.ts), per
 * execution thread: an account or slot a call read is kept for later calls only when it was read
 * before while its fingerprint was still here. A fingerprint outlives n later first sightings with
 * probability e^(−n/4096): a key read again within a few hundred new keys (a token contract, its
 * busy holders, the sender) is admitted; one read once per 16,384 distinct calls (the bench's
 * corpus, a long tail of recipients) mostly is not, so it dies young instead of being promoted
 * into the old generation. 16 KiB.
 */
export const CALL_STATE_ADMISSION_SLOTS = 4_096;

/**
 * Accounts one call context's EVM state keeps between calls before it starts over. Admitted
 * entries are the hot ones (contracts, their callers); 8,192 accounts with their caches are a
 * few MiB, and starting over costs one LMDB read per entry still in use.
 */
export const CALL_STATE_MAX_ACCOUNTS = 8_192;

/**
 * Storage slots of one account a call context keeps between calls before that account's slots
 * start over: a token read by many distinct holders would otherwise grow without bound while the
 * head stands still (a devnet without blocks, a stalled follower).
 */
export const CALL_STATE_MAX_SLOTS = 16_384;

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

// ---- transaction pool ---------------------------------------------------------------------
/** Mempool: a replacement must pay 10 % more (geth `txpool.PriceBump`). */
export const TXPOOL_PRICE_BUMP_PERCENT = 10n;

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

// ---- devnet sequencer ---------------------------------------------------------------------
/**
 * Devnet sequencer: longest wait between retries after failed block production (e.g. a full disk or read-only
 * datadir: the commit fails). Retries back off from one block time, doubling up to this: a
 * few seconds, so production resumes soon after space is freed without spinning meanwhile.
 */
export const DEV_PRODUCTION_RETRY_MAX_MS = 5_000;

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
/**
 * JSON-RPC client (follow mode, `--sequencer-http`): default time one request may take, connection included. Generous for a block with thousands
 * of transactions on a slow link (Base blocks are a few MB of JSON), yet short enough that a
 * hung peer is noticed within a few block times.
 */
export const RPC_CLIENT_TIMEOUT_MS = 10_000;
/** JSON-RPC client: first WebSocket reconnect delay: short, so a restarted peer is picked up within a block. */
export const RPC_CLIENT_WS_RECONNECT_INITIAL_MS = 250;
/** JSON-RPC client: largest WebSocket reconnect delay (the delay doubles per failed attempt up to this). */
export const RPC_CLIENT_WS_RECONNECT_MAX_MS = 10_000;
/** JSON-RPC client: longest excerpt of a bad response body kept in an error (enough to see what came back). */
export const RPC_CLIENT_BODY_EXCERPT_CHARS = 200;

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

// ---- JSON-RPC -----------------------------------------------------------------------------
/**
 * WebSocket JSON-RPC: most bytes a connection may leave unread before it is closed: a client that falls this far
 * behind its notifications is dropped rather than buffered without bound (geth closes a
 * connection whose writes stall). 16 MiB holds several seconds of every subscription kind on Base.
 */
export const WS_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/**
 * WebSocket JSON-RPC idle timeout: uWS pings a connection that has been silent for part of this period and closes
 * one that sent nothing (not even a pong) for all of it. 30 s: geth's WebSocket ping interval
 * and pong timeout.
 */
export const WS_IDLE_TIMEOUT_S = 30;
/**
 * eth_subscribe: most new canonical blocks notified for one head change. A normal head change adds one block;
 * a long jump (catching up after a restart, a follow-mode burst) notifies only its newest blocks,
 * bounding the work done synchronously in the chain's head listener.
 */
export const SUBSCRIPTION_MAX_BLOCKS_PER_HEAD_CHANGE = 1024;
/**
 * eth_subscribe: notifications kept for a subscription whose id is not yet answered. The answer follows within
 * the same request's processing (microseconds to milliseconds), so this only bounds memory if a
 * burst of events arrives in between; later ones are dropped.
 */
export const SUBSCRIPTION_MAX_HELD_NOTIFICATIONS = 10_000;

// ---- polling filters (rpc/filters.ts) ----

/** A filter not polled for this long is removed: geth's and reth's five minutes. */
export const FILTER_TIMEOUT_MS = 5 * 60_000;

/**
 * How often expired filters are looked for. A filter lives between FILTER_TIMEOUT_MS and this
 * much longer (geth checks once per timeout, so up to ten minutes); one minute keeps the bound
 * close at the cost of one pass over the filters a minute.
 */
export const FILTER_SWEEP_INTERVAL_MS = 60_000;

/**
 * Default most filters installed at once (`--rpc.max-filters`). geth has no limit; an idle block
 * or log filter costs a few hundred bytes and a pending-transaction filter at most
 * FILTER_MAX_PENDING_TXS references, so 10,000 is well under 200 MB in the worst case.
 */
export const DEFAULT_MAX_FILTERS = 10_000;

/**
 * Most transactions a pending-transaction filter holds between polls; past it the oldest are
 * dropped (and counted). A client polling every few seconds sees far fewer, even on Base's
 * pre-confirmation stream (a few hundred transactions a second at most).
 */
export const FILTER_MAX_PENDING_TXS = 4096;

/**
 * Pending transactions remembered as already announced (mempool and pre-confirmations report
 * the same transaction; a filter gets it once). Oldest forgotten first; 65,536 covers minutes
 * of Base's traffic.
 */
export const FILTER_ANNOUNCED_MEMORY = 65_536;

/**
 * Most blocks one poll of a block or log filter reads; the cursor moves to the last one read
 * and the next poll goes on. reth's eth_getLogs range limit (config MAX_LOGS_BLOCK_RANGE) is
 * 100,000; a filter unpolled for its five minutes sees at most 1,500 blocks of 200 ms.
 */
export const FILTER_MAX_BLOCKS_PER_POLL = 10_000;
/**
 * eth_sendRawTransaction: how far behind the network (blocks) the node may be and still accept transactions: 8 blocks ≈ 16 s
 * of Base blocks. A transaction built on older state (its nonce read from a lagging node) is likely
 * already superseded, and relaying it earns the user "nonce has already been used".
 */
export const SEND_MAX_SYNC_LAG_BLOCKS = 8n;
/** Engine API: payloads built for a consensus client, kept until fetched (geth keeps 10). */
export const ENGINE_MAX_PAYLOADS = 10;
/** Largest number of slots one eth_getStorageValues request may ask for (geth: 1024). */
export const MAX_STORAGE_VALUES_KEYS = 1024;
/** eth_maxPriorityFeePerGas / eth_gasPrice: blocks sampled for the tip suggestion (geth gas price oracle `Blocks`). */
export const GAS_PRICE_ORACLE_BLOCKS = 20;
/** Gas price oracle: percentile of sampled tips suggested (geth `Percentile`). */
export const GAS_PRICE_ORACLE_PERCENTILE = 60;
/** Gas price oracle: tip suggested when recent blocks carry no priced transactions: 1 wei, as geth's devnet floor. */
export const GAS_PRICE_ORACLE_DEFAULT_TIP_WEI = 1n;
/** dev_sendDeposit: gas of a deposit when the request names none: enough for a transfer or a small call. */
export const DEV_DEPOSIT_DEFAULT_GAS = 100_000n;
/**
 * Public mode: consecutive rate-limited WebSocket messages after which the connection is closed (1008). A
 * client that reads its -32005 answers and backs off is refused a handful of times; a hundred in
 * a row (one default burst) with none admitted in between is a client ignoring them.
 */
export const WS_RATE_LIMIT_CLOSE_AFTER = 100;
/**
 * Public mode rate limit: most client buckets held at once. A bucket is a few dozen bytes, so 65,536 keep the map under
 * ~8 MiB; that is 32× the default connection cap, so a client holding a connection is never
 * evicted by other clients' traffic — only a crowd of distinct short-lived IPs can push out the
 * least recently seen ones (which then start over with a full bucket).
 */
export const RATE_LIMIT_MAX_CLIENTS = 65_536;
/**
 * Public mode rate limit: milliseconds between sweeps of idle buckets. A bucket that has refilled to `burst` behaves
 * exactly like a new one, so dropping it loses nothing; once a minute keeps the sweep (a pass
 * over at most {@link RATE_LIMIT_MAX_CLIENTS} entries) far below 0.1 % of the RPC thread.
 */
export const RATE_LIMIT_SWEEP_INTERVAL_MS = 60_000;

// ---- rollup RPC ---------------------------------------------------------------------------
/**
 * `GET /health`: lag allowed when the query names none: 30 s is 15 Base blocks — a replica that far behind
 * answers `latest` with visibly stale data, while a brief import hiccup stays in service.
 */
export const DEFAULT_HEALTH_MAX_LAG_S = 30;

// ---- commands: node, import, doctor -------------------------------------------------------
/** Most time given to in-flight work on shutdown before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;
/**
 * Longest wait on shutdown for the execution pool to close after the drain. Piscina's close waits
 * for running tasks (up to 30 s); a call still running has outlived the drain and is abandoned
 * (the workers only read the store, and the process exits right after the store is closed).
 */
export const SHUTDOWN_POOL_WAIT_MS = 1_000;
/** `basalt import`: milliseconds between progress lines. */
export const IMPORT_PROGRESS_INTERVAL_MS = 8_000;
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
/**
 * `basalt doctor`: round-trip time of one L1 request above which the check warns: derivation reads every L1 block
 * (12 s slots) with several requests; at more than 1 s each, catching up after downtime crawls.
 */
export const DOCTOR_L1_LATENCY_WARN_MS = 1_000;
/**
 * `basalt doctor`: how long to wait for the first flashblocks frame after the upgrade: Base publishes a flashblock every
 * 200 ms (docs.base.org "Flashblocks"), so 3 s is 15 intervals, more than a whole 2 s block.
 */
export const DOCTOR_FLASHBLOCKS_FIRST_FRAME_TIMEOUT_MS = 3_000;
/** `basalt doctor`: largest frame accepted while probing the flashblocks stream; a compressed flashblock is tens of KB; 16 MiB bounds a hostile server. */
export const DOCTOR_MAX_PROBE_FRAME_BYTES = 16 * 1024 * 1024;
/** `basalt doctor`: largest answer body read from a probed service; a JSON-RPC answer to these calls is a few hundred bytes. */
export const DOCTOR_MAX_PROBE_BODY_BYTES = 1024 * 1024;
/**
 * `basalt doctor`: lag up to which the node counts as in sync: 30 s is 15 Base blocks (2 s each), room for a
 * slow L1 or a short stall, and the `max_lag` the load balancer example (deploy/haproxy.cfg) uses.
 */
export const DOCTOR_SYNC_LAG_OK_S = 30;
/**
 * `basalt doctor`: on a Base network, an unsafe head this far ahead of the local clock means the clock is wrong
 * (block timestamps come from the sequencer's clock): 60 s is far beyond any propagation delay.
 */
export const DOCTOR_CLOCK_AHEAD_FAIL_S = 60;
// ---- basalt doctor: P2P probes (src/ops/doctor/p2pProbe.ts) ----
/**
 * `basalt doctor`: how much longer than the probe's own time limit the discovery libraries' request timeouts are
 * set, so that a silent port is always reported by the probe ("no PONG within N ms") rather than by a library error.
 */
export const DOCTOR_P2P_LIBRARY_GRACE_MS = 1_000;
/**
 * `basalt doctor`: interval of the discovery libraries' background work (discv5 pings of table entries, DPT table
 * refresh) in the throw-away probe nodes: an hour, far beyond a probe's life, so none runs while it is open.
 */
export const DOCTOR_P2P_BACKGROUND_INTERVAL_MS = 3_600_000;

/**
 * Call-family answers cached per head (rpc/callCache.ts): 4,096 answers of typically < 1 KiB each
 * bound the cache to a few MiB, and a block's repeated calls (a dapp front end polling the same
 * view functions, wallets re-estimating) repeat within a 2 s block far less often than that.
 */
export const CALL_CACHE_ENTRIES = 4_096;

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

// ---- Derivation: L1 inputs ----------------------------------------------------------------
/**
 * Topic 0 of the OptimismPortal's deposit event: keccak256("TransactionDeposited(address,address,uint256,bytes)")
 * (specs deposits.md "Deposit Contract"; kona crates/protocol/protocol/src/deposits.rs `DEPOSIT_EVENT_ABI_HASH`).
 */
export const TRANSACTION_DEPOSITED_TOPIC = "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32";
/** The only `TransactionDeposited` version derivation accepts (topic 3 = uint256 0; op-node deposit_log.go `DepositEventVersion0`). */
export const DEPOSIT_EVENT_VERSION_0 = 0n;
/**
 * Shortest version-0 `opaqueData`: mint uint256 (32) + value uint256 (32) + gasLimit uint64 (8) + isCreation uint8 (1);
 * the calldata is the rest (op-node deposit_log.go `unmarshalDepositVersion0`; kona deposits.rs).
 */
export const DEPOSIT_OPAQUE_DATA_V0_MIN_LENGTH = 73;
/**
 * Topic 0 of the SystemConfig's update event: keccak256("ConfigUpdate(uint256,uint8,bytes)")
 * (specs system-config.md; kona crates/protocol/genesis/src/system/mod.rs `CONFIG_UPDATE_TOPIC`).
 */
export const CONFIG_UPDATE_TOPIC = "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be";
/** The only `ConfigUpdate` version derivation accepts (topic 1 = uint256 0; specs system-config.md `CONFIG_VERSION`). */
export const CONFIG_UPDATE_VERSION_0 = 0n;
/** EIP-4844 `MIN_BASE_FEE_PER_BLOB_GAS`, also the L1-info blob base fee of an L1 header without blob fields (kona info/variant.rs `unwrap_or(1)`). */
export const MIN_BLOB_BASE_FEE = 1n;
/** EIP-4844 `BLOB_BASE_FEE_UPDATE_FRACTION` of Cancun (alloy-eips eip7840 `BlobParams::cancun`). */
export const BLOB_UPDATE_FRACTION_CANCUN = 3_338_477n;
/** EIP-7691 update fraction of Prague, kept by Osaka (alloy-eips eip7840 `BlobParams::prague` / `::osaka`). */
export const BLOB_UPDATE_FRACTION_PRAGUE = 5_007_716n;
/** Update fraction of the first blob-parameter-only fork, BPO1 (EIP-7892; alloy-eips eip7840 `BlobParams::bpo1`, target 10, max 15). */
export const BLOB_UPDATE_FRACTION_BPO1 = 8_346_193n;
/** Update fraction of BPO2 (EIP-7892; alloy-eips eip7840 `BlobParams::bpo2`, target 14, max 21). */
export const BLOB_UPDATE_FRACTION_BPO2 = 11_684_671n;
/** Ethereum mainnet Cancun activation (alloy-hardforks ethereum/mainnet.rs `MAINNET_CANCUN_TIMESTAMP`). */
export const L1_MAINNET_CANCUN_TIME = 1_710_338_135n;
/** Ethereum mainnet Prague activation (alloy-hardforks `MAINNET_PRAGUE_TIMESTAMP`). */
export const L1_MAINNET_PRAGUE_TIME = 1_746_612_311n;
/** Ethereum mainnet Osaka activation, epoch 411392 (alloy-hardforks `MAINNET_OSAKA_TIMESTAMP`). */
export const L1_MAINNET_OSAKA_TIME = 1_764_798_551n;
/**
 * Ethereum mainnet BPO1 activation, epoch 412672 (EIP-7892 schedule; go-ethereum-style mainnet chain configs and
 * fork-id tests; shared/reference derivation.md §1.10). One indexed alloy-hardforks snapshot still has 1765978199.
 */
export const L1_MAINNET_BPO1_TIME = 1_765_290_071n;
/** Ethereum mainnet BPO2 activation, epoch 419072 (alloy-hardforks `MAINNET_BPO2_TIMESTAMP`; go-ethereum-style mainnet configs). */
export const L1_MAINNET_BPO2_TIME = 1_767_747_671n;
/** Sepolia Cancun activation (alloy-hardforks ethereum/sepolia.rs `SEPOLIA_CANCUN_TIMESTAMP`). */
export const L1_SEPOLIA_CANCUN_TIME = 1_706_655_072n;
/** Sepolia Prague activation (alloy-hardforks `SEPOLIA_PRAGUE_TIMESTAMP`). */
export const L1_SEPOLIA_PRAGUE_TIME = 1_741_159_776n;
/** Sepolia Osaka activation (op-node `fallbackToOsakaCellProofTimeIfKnown` test; geth `SepoliaChainConfig`). */
export const L1_SEPOLIA_OSAKA_TIME = 1_760_427_360n;
/** Sepolia BPO1 activation (kona crates/protocol/registry/src/l1/mod.rs `SEPOLIA_BPO1_TIMESTAMP`; geth `SepoliaChainConfig`). */
export const L1_SEPOLIA_BPO1_TIME = 1_761_017_184n;
/** Sepolia BPO2 activation (kona registry l1/mod.rs `SEPOLIA_BPO2_TIMESTAMP`; geth `SepoliaChainConfig`). */
export const L1_SEPOLIA_BPO2_TIME = 1_761_607_008n;

// ---------------------------------------------------------------------------------------------
// Derivation: blobs (src/derivation/blobCodec.ts, kzg.ts, beaconClient.ts, beaconShim.ts)
// ---------------------------------------------------------------------------------------------

/** Bytes of one EIP-4844 blob: FIELD_ELEMENTS_PER_BLOB (4096) × BYTES_PER_FIELD_ELEMENT (32) (EIP-4844; consensus-specs deneb polynomial-commitments.md). */
export const BLOB_BYTES = 131_072;
/** Bytes of a KZG commitment and of a KZG proof: one compressed BLS12-381 G1 point (EIP-4844 `KZGCommitment`, `KZGProof`). */
export const KZG_POINT_BYTES = 48;
/** First byte of a versioned hash: EIP-4844 VERSIONED_HASH_VERSION_KZG (`0x01 ++ sha256(commitment)[1:]`). */
export const VERSIONED_HASH_VERSION_KZG = 0x01;
/** OP blob encoding version byte (byte 1 of field element 0): the only one defined (specs ecotone/derivation.md "Blob Encoding"; op-service eth/blob.go EncodingVersion). */
export const BLOB_ENCODING_VERSION = 0;
/**
 * Largest payload of OP blob encoding v0: 1024 rounds of 4 field elements carry 4·31 + 3 = 127 bytes each, less
 * the 4-byte version and length header: (4·31+3)·1024 − 4 = 130,044 (specs ecotone/derivation.md; op-service
 * eth/blob.go MaxBlobDataSize; kona sources/blob_data.rs BLOB_MAX_DATA_SIZE).
 */
export const BLOB_MAX_PAYLOAD_BYTES = 130_044;
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
/** Most bytes of data one frame may carry (specs derivation.md "Frame Format"; op-node `MaxFrameLen`; kona `MAX_FRAME_LEN`). */
export const MAX_FRAME_LEN = 1_000_000;
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
/** Brotli quality of channels the batcher side compresses: op-node's `GetBrotliLevel` makes `brotli` (level 10) the default. */
export const CHANNEL_BROTLI_QUALITY = 10;
/**
 * Brotli window (log2) of channels the batcher side compresses: 22, Brotli's own default
 * (`BROTLI_DEFAULT_WINDOW`). The window only trades memory for ratio; a reader decodes any window.
 */
export const CHANNEL_BROTLI_LGWIN = 22;

// ---- derivation pipeline (the worker's loop) ------------------------------------------------
/** Seconds between L1 blocks when not told otherwise: Ethereum's 12 s slot (mainnet and Sepolia). */
export const DEFAULT_L1_BLOCK_TIME_S = 12;
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
/** Wait before restarting a crashed derivation worker (it resumes from the safe head; a crash loop stays slow). */
export const DERIVATION_WORKER_RESTART_DELAY_MS = 1_000;
// ---- devnet rollup ----------------------------------------------------------------------------
// The local rollup's L1 side (`basalt devnet rollup`, src/devnet/): who deploys and owns its L1
// contracts, who posts batches and where, and how long its L1 transactions are waited for.
/**
 * Dev account (index into `devAccounts()`) that deploys the L1 contracts: 8, outside 0–7, the
 * accounts users and tests send with, so a deploy never takes a nonce a user's transaction expects.
 */
export const DEVNET_ROLLUP_DEPLOYER_ACCOUNT = 8;
/** Dev account that owns the SystemConfig: the deployer's (8), for the same reason; it sends every SystemConfig setter. */
export const DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT = 8;
/**
 * Dev account of the batcher: 9, its own account, so the batcher's back-to-back batch transactions
 * never race a deploy, a SystemConfig change or a user for a nonce.
 */
export const DEVNET_ROLLUP_BATCHER_ACCOUNT = 9;
/**
 * Batch inbox of the local rollup: OP's convention, `0xff` then zeros then the L2 chain id in
 * decimal digits (Base mainnet's is 0xff…008453), here the devnet's 845337. An address nobody
 * holds a key for, so only batches land there.
 */
export const DEVNET_ROLLUP_BATCH_INBOX = "0xff00000000000000000000000000000000845337";
/**
 * Interval between `eth_getTransactionReceipt` polls while waiting for an L1 transaction: 100 ms.
 * Local L1s mine within a block time of 1–12 s (anvil at once), and a poll on loopback costs
 * nothing, so a deploy waits at most a tenth of a second past its block.
 */
export const DEVNET_L1_RECEIPT_POLL_MS = 100;
/**
 * How long an L1 transaction is waited for before giving up: 60 s, five 12-second L1 slots. A local
 * L1 includes a transaction with enough fee in the next block; beyond that it is not mining.
 */
export const DEVNET_L1_RECEIPT_TIMEOUT_MS = 60_000;
/**
 * Tip of the devnet's L1 transactions: 1 gwei (geth's default suggested tip). The max fee is twice
 * the latest base fee plus the tip, so a transaction stays includable through six full blocks of
 * base-fee rise (1.125^6 ≈ 2).
 */
export const DEVNET_L1_PRIORITY_FEE_WEI = 1_000_000_000n;
/**
 * Gas added to an L1 transaction's estimate, in percent: 20. The estimate is taken on the latest
 * state; when other transactions land first in the same block (two SystemConfig setters writing a
 * slot that was zero), the transaction may need more (a cold or zero-to-nonzero SSTORE, 20,000 gas).
 */
export const DEVNET_L1_GAS_MARGIN_PERCENT = 20n;
// ---- sequencer on a real L1 (local rollup) ------------------------------------------------
/**
 * Local rollup (`basalt devnet rollup`): seconds between L2 blocks, Base's 2 s, so the devnet's
 * flashblocks cadence (200 ms) gives the ten flashblocks per block Base publishes.
 */
export const DEVNET_ROLLUP_BLOCK_TIME_S = 2n;
/**
 * Local rollup: sequencing window in L1 blocks. 30: on a local L1 mining every 1–2 s the window
 * of an epoch runs out 30–60 s after its L1 block, so a test that stops the batcher sees the
 * verifier force empty batches within a minute or two; and it is still several times what a
 * batcher posting every few L1 blocks needs to land its batches in time (Base uses 3,600, 12 h).
 */
export const DEVNET_ROLLUP_SEQ_WINDOW_SIZE = 30n;
/**
 * Local rollup: `max_sequencer_drift` of rollup.json, 600 s (Base's and op-node's devnet value).
 * With Fjord active from genesis the protocol's 1,800 s applies instead; the field is written
 * because op-node tooling requires it.
 */
export const DEVNET_ROLLUP_MAX_SEQUENCER_DRIFT_S = 600n;
/** Local rollup: pre-Granite channel timeout in L1 blocks, 300 (Base's). Unused while Granite is active from genesis. */
export const DEVNET_ROLLUP_CHANNEL_TIMEOUT = 300n;
/** Local rollup: Granite channel timeout in L1 blocks, 50 (the protocol value op-node defaults `granite_channel_timeout` to). */
export const DEVNET_ROLLUP_CHANNEL_TIMEOUT_GRANITE = 50n;
/**
 * `--sequencer.l1-confs` default: 0. The L1 a local rollup sequences on is one node whose blocks
 * reorganize only when a test asks it to (and a reorg under the origin is handled: the sequencer
 * waits until the L2 chain is put back on the canonical L1); with 0 a deposit mined on L1 is in
 * the next L2 block. op-node's 4 is for a public L1, where a few blocks can be replaced by chance.
 */
export const DEFAULT_SEQUENCER_L1_CONFS = 0;
/**
 * Sequencer on a real L1: least milliseconds between two reads of the L1 head. 500: a local L1
 * mines every 1–2 s (Ethereum 12 s), so a new L1 block is seen within half a block, for at most
 * two requests a second; the origin's block and receipts are read only when the origin moves.
 */
export const SEQUENCER_L1_POLL_INTERVAL_MS = 500;
/**
 * Sequencer on a real L1: milliseconds before trying again to build a block that could not be
 * planned (the L1 reorganized under the origin, or the L1 RPC did not answer): one poll interval,
 * since nothing changes before the L1 head is read again.
 */
export const SEQUENCER_L1_WAIT_RETRY_MS = SEQUENCER_L1_POLL_INTERVAL_MS;

// ---- basalt devnet rollup (orchestration) ----------------------------------------------------
/**
 * Seconds between L1 blocks of the local rollup's own L1: 2 s, so deposits, batches and finality
 * show within seconds (Ethereum's 12 s would make a local loop wait a minute for a safe head).
 */
export const DEVNET_ROLLUP_L1_BLOCK_TIME_S = 2;
/** Longest wait for a process of the local rollup to answer JSON-RPC (a first start initializes its datadir). */
export const DEVNET_ROLLUP_READY_TIMEOUT_MS = 60_000;
/** A process of the local rollup still running this long after SIGTERM is killed. */
export const DEVNET_ROLLUP_STOP_TIMEOUT_MS = 15_000;
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
/**
 * Default `--batcher.max-channel-duration`: L1 blocks a channel stays open before it is closed
 * and posted, full or not. 1 on a local rollup: the safe head then trails the unsafe head by
 * about one L1 block plus inclusion and confirmation, and a channel per L1 block costs nothing on
 * a local L1. It must stay far below the Granite channel timeout (50 L1 blocks, specs
 * granite/derivation.md): a channel whose frames land more than that apart is dropped.
 * (op-batcher's own default, 0, means "no limit" and suits mainnet fee economics, not a devnet.)
 */
export const DEFAULT_BATCHER_MAX_CHANNEL_DURATION = 1;
/** Default `--batcher.num-confirmations`: 1, a tx is final once included (a local L1 does not reorg on its own; op-batcher's default is 10 for mainnet). */
export const DEFAULT_BATCHER_NUM_CONFIRMATIONS = 1;
/** Default `--batcher.blobs-per-tx`: 6, op-batcher's multi-blob setting (`--target-num-frames=6`) and the per-transaction cap from Osaka (EIP-7594). */
export const DEFAULT_BATCHER_BLOBS_PER_TX = 6;
/** Most blobs one batcher transaction may carry: EIP-7594's `MAX_BLOBS_PER_TX` (6), also within Prague's 9 per block. */
export const BATCHER_MAX_BLOBS_PER_TX = 6;
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
// ---- L1 devnet (--network devnet-l1: block producer, beacon API, blob archive) --------------

/**
 * devnet-l1: slot length when `--dev.block-time` is not given, Ethereum's SECONDS_PER_SLOT (12).
 * Tests and a quick local rollup pass 1–2 s.
 */
export const L1DEV_DEFAULT_SLOT_SECONDS = 12;
/**
 * devnet-l1 block gas limit: the L2 devnet's 60M, room to deploy a rollup's L1 contracts (a few
 * million gas each) several to a block.
 */
export const L1DEV_GAS_LIMIT = 60_000_000n;
/**
 * devnet-l1: the `safe` block trails the head by this many blocks. A local L1 has no attestations
 * (on Ethereum "safe" is the justified checkpoint, about an epoch back); 2 keeps an unsafe tip that
 * derivation's confirmation depth sees, and lets a test reorganize the two newest blocks
 * (`debug_setHead`) without going below "safe".
 */
export const L1DEV_SAFE_DISTANCE = 2n;
/**
 * devnet-l1: the `finalized` block trails the head by this many blocks. Ethereum finalizes after two
 * epochs (64 slots, ~13 min); a local rollup should see its L2 blocks finalize within a minute: 8
 * slots are 16 s at 2 s slots (96 s at the default 12 s), and leave 6 blocks between safe and
 * finalized for reorg tests.
 */
export const L1DEV_FINALIZED_DISTANCE = 8n;
/**
 * devnet-l1: slots whose blobs the beacon API keeps (in memory, and under `<datadir>/l1-blobs` for
 * restarts). Ethereum keeps blobs for 4,096 epochs (MIN_EPOCHS_FOR_BLOB_SIDECARS_REQUESTS, ~18
 * days); a local L1 keeps 4,096 slots, 32× less, since nobody syncs it weeks later. It is more than
 * a sequencing window (Base's 3,600 L1 blocks), so a verifier restarting from a safe head whose L1
 * origin is still inside its sequencing window finds the blobs after it: 13.6 h at 12 s slots,
 * 2.3 h at 2 s.
 */
export const L1DEV_BLOB_RETENTION_SLOTS = 4_096;
/**
 * devnet-l1: most blobs the beacon API holds at once (128 KiB each, in memory and on disk). 2,048
 * blobs are 256 MiB; past it the oldest slots go first. A local batcher posts far below one blob
 * per slot, so {@link L1DEV_BLOB_RETENTION_SLOTS} is the bound in use; this one caps memory when a
 * test fills every slot with blobs.
 */
export const L1DEV_BLOB_RETENTION_MAX_BLOBS = 2_048;
/** devnet-l1: default beacon API port, lighthouse's HTTP API default (5052). */
export const DEFAULT_BEACON_PORT = 5_052;

// ---- P2P: importing unsafe blocks received over gossip (main thread) ----
/**
 * Gossip blocks held while their parent is missing (a gap being fetched, or blocks arriving out of
 * order). 256 blocks are 8.5 minutes of Base at 2 s; a longer gap is catch-up sync's business
 * (req/resp, `--follow-rpc` or L1 derivation fill it) and the oldest held blocks go first. op-node
 * bounds the same queue by memory (500 MB of payloads); a count bounds it here, since a block's
 * size is already bounded by the gossip message limit.
 */
export const GOSSIP_IMPORT_MAX_BUFFERED_BLOCKS = 256;
/**
 * Most missing blocks asked for by number (req/resp `payload_by_number`) to close one gap before
 * importing the held gossip blocks: the same 256, since a larger gap cannot be held anyway.
 */
export const GOSSIP_GAP_FETCH_MAX_BLOCKS = 256;
/**
 * Devnet: dev account (index into `devAccounts()`) whose key signs the sequencer's gossip blocks by
 * default (`--p2p.sequencer.key`), and whose address is the devnet's unsafe block signer: 8, the
 * account `basalt devnet rollup` deploys SystemConfig with and names `unsafeBlockSigner` there, so
 * the built-in devnet and a local rollup agree with what L1 says.
 */
export const DEVNET_P2P_SEQUENCER_ACCOUNT = 8;
/**
 * How often the unsafe block signer is read again from L1's SystemConfig (`unsafeBlockSigner()`)
 * when an L1 RPC is configured: op-node reloads its runtime config every 10 minutes
 * (`--l1.runtime-config-reload-interval`, default 10m).
 */
export const P2P_SIGNER_RELOAD_MS = 10 * 60_000;

// ---------------------------------------------------------------------------------------------
// Consensus-layer P2P (src/p2p/cl, workers/p2p.ts): op-node's values unless said otherwise.
// Sources: ethereum-optimism/optimism op-node/flags/p2p_flags.go (flag defaults),
// op-node/p2p/{gossip.go,peer_params.go,app_params.go,sync.go,discovery.go,config.go,monitor/},
// ethereum-optimism/specs specs/protocol/rollup-node-p2p.md.
// ---------------------------------------------------------------------------------------------
/** `--p2p.listen.ip`: op-node binds libp2p and discv5 to every interface (p2p_flags.go). */
export const DEFAULT_P2P_LISTEN_IP = "0.0.0.0";
/** `--p2p.listen.tcp`: op-node's libp2p TCP port (p2p_flags.go). */
export const DEFAULT_P2P_LISTEN_TCP_PORT = 9_222;
/** `--p2p.listen.udp`: 0 = the TCP port, as op-node ("Same as TCP port if left 0", p2p_flags.go). */
export const DEFAULT_P2P_LISTEN_UDP_PORT = 0;
/** `--p2p.peers.lo`: low tide, below it the node dials discovered peers (op-node p2p_flags.go). */
export const DEFAULT_P2P_PEERS_LO = 20;
/** `--p2p.peers.hi`: high tide, the most connections libp2p keeps (op-node p2p_flags.go). */
export const DEFAULT_P2P_PEERS_HI = 30;
/** `--p2p.priv.path` default file name inside the datadir, op-node's name (p2p_flags.go "opnode_p2p_priv.txt"). */
export const P2P_PRIV_FILE_NAME = "opnode_p2p_priv.txt";
/** `--p2p.ban.threshold`: a peer whose gossip score falls below this is disconnected and banned (op-node p2p_flags.go: -100). */
export const DEFAULT_P2P_BAN_THRESHOLD = -100;
/** `--p2p.ban.duration`: how long a score ban lasts, in seconds (op-node p2p_flags.go: 1 h). */
export const DEFAULT_P2P_BAN_DURATION_S = 3_600;
/** Peer monitor period: op-node checks peer scores for bans every second (monitor/peer_monitor.go checkInterval). */
export const P2P_PEER_MONITOR_INTERVAL_MS = 1_000;
/** libp2p identify user agent; op-node says "optimism" (p2p_flags.go), Base's nodes "base"; basalt names itself. */
export const P2P_USER_AGENT = "basalt";
/** GossipSub heartbeat: 500 ms (gossip.go gossipHeartbeat; spec "heartbeat_interval 0.5"). */
export const P2P_GOSSIP_HEARTBEAT_MS = 500;
/** GossipSub seen-message TTL: 130 heartbeats = 65 s (gossip.go seenMessagesTTL; spec "seen_ttl"). */
export const P2P_GOSSIP_SEEN_TTL_MS = 130 * 500;
/** GossipSub fanout TTL: 24 s (gossip.go BuildGlobalGossipParams; spec "fanout_ttl"). */
export const P2P_GOSSIP_FANOUT_TTL_MS = 24_000;
/** GossipSub mesh degree D / Dlo / Dhi / Dlazy: 8 / 6 / 12 / 6 (gossip.go DefaultMesh*; spec). */
export const P2P_GOSSIP_MESH = { D: 8, Dlo: 6, Dhi: 12, Dlazy: 6 } as const;
/** GossipSub message cache: 12 windows kept for IWANT, 3 gossiped (gossip.go HistoryLength / HistoryGossip; spec mcache_len / mcache_gossip). */
export const P2P_GOSSIP_HISTORY = { length: 12, gossip: 3 } as const;
/** Slot for score decay when the chain's block time is unknown: op-node falls back to 2 s (peer_params.go, app_params.go). */
export const P2P_SCORE_DEFAULT_SLOT_S = 2;
/** Timeout of opening a req/resp stream: 5 s (sync.go streamTimeout). */
export const P2P_REQRESP_STREAM_TIMEOUT_MS = 5_000;
/** Client: write request and read response within 10 s each (sync.go clientWriteRequestTimeout / clientReadResponsetimeout). */
export const P2P_REQRESP_CLIENT_TIMEOUT_MS = 10_000;
/** Server: read the request and write the response within 10 s each (sync.go serverReadRequestTimeout / serverWriteChunkTimeout). */
export const P2P_REQRESP_SERVER_TIMEOUT_MS = 10_000;
/** Server: the longest a request waits for the rate limiters: 20 s (sync.go maxThrottleDelay). */
export const P2P_REQRESP_MAX_THROTTLE_MS = 20_000;
/** Server rate limit over all peers: 20 payloads/s, burst 40 (sync.go globalServerBlocksRateLimit / Burst). */
export const P2P_REQRESP_GLOBAL_RATE = { perSecond: 20, burst: 40 } as const;
/** Server rate limit per peer: 4 payloads/s, burst 15 (sync.go peerServerBlocksRateLimit / Burst). */
export const P2P_REQRESP_PEER_RATE = { perSecond: 4, burst: 15 } as const;
/** Server: peers whose rate limiters are remembered (sync.go: an LRU of 1000). */
export const P2P_REQRESP_PEER_LIMITERS = 1_000;
/** Discovery: dial attempt timeout, 10 s (discovery.go connectWorker). */
export const P2P_DIAL_TIMEOUT_MS = 10_000;
/** Discovery: peering tick while below low tide / at or above it: 5 s / 20 s (discovery.go connectionIntervalFast/Slow). */
export const P2P_PEERING_INTERVAL_MS = { fast: 5_000, slow: 20_000 } as const;
/** Discovery: random-node lookups while below low tide / otherwise: every 5 s / 20 s (discovery.go discoverIntervalFast/Slow). */
export const P2P_DISCOVER_INTERVAL_MS = { fast: 5_000, slow: 20_000 } as const;
/** Discovery: most concurrent dials of discovered peers (discovery.go connectionWorkerCount). */
export const P2P_DIAL_CONCURRENCY = 4;
/** Static peers: redial a disconnected static peer this often (op-node redials static peers on disconnect; 5 s as the fast peering tick). */
export const P2P_STATIC_REDIAL_MS = 5_000;
/** Wait before restarting a crashed P2P worker (as the derivation worker; a crash loop stays slow). */
export const P2P_WORKER_RESTART_DELAY_MS = 1_000;
/** Main-thread calls into the P2P worker (RPC, fetches) fail after this long: the worker is stuck or gone. */
export const P2P_WORKER_CALL_TIMEOUT_MS = 35_000;
/** The worker's counters are sent to the main thread at most this often (metrics need no more). */
export const P2P_STATS_INTERVAL_MS = 1_000;
/** Blocks a main-thread answer to a payload request may take before the server answers "unknown error" (sync.go maxThrottleDelay bounds the whole request). */
export const P2P_PAYLOAD_SOURCE_TIMEOUT_MS = 5_000;
/**
 * op-node's default consensus bootnodes (op-node/p2p/config.go DefaultBootnodes: OP Labs, Base and
 * Conduit), used for base-mainnet and base-sepolia when `--p2p.bootnodes` is not given. The five
 * Base ENRs are also OP_NODE_P2P_BOOTNODES in base/node's .env.mainnet (and .env.sepolia).
 */
export const OP_DEFAULT_BOOTNODES: readonly string[] = [
  "enode://869d07b5932f17e8490990f75a3f94195e9504ddb6b85f7189e5a9c0a8fff8b00aecf6f3ac450ecba6cdabdb5858788a94bde2b613e0f2d82e9b395355f76d1a@34.65.67.101:30305",
  "enode://2d4e7e9d48f4dd4efe9342706dd1b0024681bd4c3300d021f86fc75eab7865d4e0cbec6fbc883f011cfd6a57423e7e2f6e104baad2b744c3cafaec6bc7dc92c1@34.65.43.171:30305",
  "enode://9d7a3efefe442351217e73b3a593bcb8efffb55b4807699972145324eab5e6b382152f8d24f6301baebbfb5ecd4127bd3faab2842c04cd432bdf50ba092f6645@34.65.109.126:30305",
  "enr:-J24QNz9lbrKbN4iSmmjtnr7SjUMk4zB7f1krHZcTZx-JRKZd0kA2gjufUROD6T3sOWDVDnFJRvqBBo62zuF-hYCohOGAYiOoEyEgmlkgnY0gmlwhAPniryHb3BzdGFja4OFQgCJc2VjcDI1NmsxoQKNVFlCxh_B-716tTs-h1vMzZkSs1FTu_OYTNjgufplG4N0Y3CCJAaDdWRwgiQG",
  "enr:-J24QH-f1wt99sfpHy4c0QJM-NfmsIfmlLAMMcgZCUEgKG_BBYFc6FwYgaMJMQN5dsRBJApIok0jFn-9CS842lGpLmqGAYiOoDRAgmlkgnY0gmlwhLhIgb2Hb3BzdGFja4OFQgCJc2VjcDI1NmsxoQJ9FTIv8B9myn1MWaC_2lJ-sMoeCDkusCsk4BYHjjCq04N0Y3CCJAaDdWRwgiQG",
  "enr:-J24QDXyyxvQYsd0yfsN0cRr1lZ1N11zGTplMNlW4xNEc7LkPXh0NAJ9iSOVdRO95GPYAIc6xmyoCCG6_0JxdL3a0zaGAYiOoAjFgmlkgnY0gmlwhAPckbGHb3BzdGFja4OFQgCJc2VjcDI1NmsxoQJwoS7tzwxqXSyFL7g0JM-KWVbgvjfB8JA__T7yY_cYboN0Y3CCJAaDdWRwgiQG",
  "enr:-J24QHmGyBwUZXIcsGYMaUqGGSl4CFdx9Tozu-vQCn5bHIQbR7On7dZbU61vYvfrJr30t0iahSqhc64J46MnUO2JvQaGAYiOoCKKgmlkgnY0gmlwhAPnCzSHb3BzdGFja4OFQgCJc2VjcDI1NmsxoQINc4fSijfbNIiGhcgvwjsjxVFJHUstK9L1T8OTKUjgloN0Y3CCJAaDdWRwgiQG",
  "enr:-J24QG3ypT4xSu0gjb5PABCmVxZqBjVw9ca7pvsI8jl4KATYAnxBmfkaIuEqy9sKvDHKuNCsy57WwK9wTt2aQgcaDDyGAYiOoGAXgmlkgnY0gmlwhDbGmZaHb3BzdGFja4OFQgCJc2VjcDI1NmsxoQIeAK_--tcLEiu7HvoUlbV52MspE0uCocsx1f_rYvRenIN0Y3CCJAaDdWRwgiQG",
  "enode://9d7a3efefe442351217e73b3a593bcb8efffb55b4807699972145324eab5e6b382152f8d24f6301baebbfb5ecd4127bd3faab2842c04cd432bdf50ba092f6645@34.65.109.126:30305",
];
// ── P2P block gossip (OP Stack `blocks` topics; specs protocol/rollup-node-p2p.md, op-node p2p/gossip.go) ──
/**
 * Largest gossip message, compressed or decompressed: 10 MiB (op-node `maxGossipSize`
 * = 10 × 2^20, also the gossipsub max transmit size; spec "constrained to 10 MiB").
 */
export const GOSSIP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/**
 * Smallest decompressed block message: a 65-byte signature and at least one payload byte
 * (op-node `minGossipSize` = 66, "at least some data to validate the signature against").
 */
export const GOSSIP_MIN_MESSAGE_BYTES = 66;
/** A gossiped block older than this many seconds is rejected (spec "Block validation", op-node `now-60`). */
export const GOSSIP_BLOCK_MAX_AGE_SECONDS = 60n;
/** A gossiped block more than this many seconds in the future is rejected (spec, op-node `now+5`). */
export const GOSSIP_BLOCK_MAX_FUTURE_SECONDS = 5n;
/**
 * Different blocks seen at one height after which further ones are rejected: op-node rejects when
 * more than 5 are already recorded (`count > 5`), so the 7th distinct block at a height is the
 * first refused (spec: "more than 5 different blocks").
 */
export const GOSSIP_MAX_BLOCKS_PER_HEIGHT = 5;
/** Heights whose seen block hashes are remembered (op-node's block-height LRU of 1000; base/base `SEEN_HASH_CACHE_SIZE`). */
export const GOSSIP_SEEN_HEIGHTS = 1_000;
// ---- execution-layer networking (devp2p: discovery v4/v5 + RLPx eth/68–69, src/p2p/el) -----------

/** Default RLPx TCP port (reth/geth `--port`, the specification's port table: 30303 TCP). */
export const DEFAULT_P2P_EL_PORT = 30_303;
/** Default discovery v4 UDP port (reth `--discovery.port`: 30303 UDP, same number as RLPx). */
export const DEFAULT_P2P_EL_DISCOVERY_PORT = 30_303;
/**
 * Default discovery v5 UDP port of the execution layer (reth `--discovery.v5.port`,
 * `DEFAULT_DISCOVERY_V5_PORT`: 9200; base/base node.rs tests expect 9200 with default arguments,
 * and Base's execution bootnodes listen for `basev0` discv5 on 9200).
 */
export const DEFAULT_P2P_EL_DISCV5_PORT = 9_200;
/** Default listen address of RLPx and discovery (reth `--addr` / `--discovery.addr`: all IPv4 interfaces). */
export const DEFAULT_P2P_EL_ADDR = "0.0.0.0";
/** Most outbound RLPx peers (reth `DEFAULT_MAX_COUNT_PEERS_OUTBOUND`, crates/net/network-types/src/peers/config.rs). */
export const DEFAULT_P2P_EL_MAX_OUTBOUND = 100;
/** Most inbound RLPx peers (reth `DEFAULT_MAX_COUNT_PEERS_INBOUND`). */
export const DEFAULT_P2P_EL_MAX_INBOUND = 30;
/** File name of the node key in the datadir (reth keeps `discovery-secret` in its datadir; created once, reused). */
export const P2P_EL_SECRET_FILE = "discovery-secret";
/** Most headers served per GetBlockHeaders (reth `MAX_HEADERS_SERVE`, geth `maxHeadersServe`: 1024). */
export const ETH_MAX_HEADERS_SERVE = 1_024;
/** Most bodies served per GetBlockBodies (reth `MAX_BODIES_SERVE`, geth `maxBodiesServe`: 1024). */
export const ETH_MAX_BODIES_SERVE = 1_024;
/** Most blocks' receipts served per GetReceipts (reth `MAX_RECEIPTS_SERVE`, geth `maxReceiptsServe`: 1024). */
export const ETH_MAX_RECEIPTS_SERVE = 1_024;
/** Soft byte limit of one response: stop adding items past it (reth `SOFT_RESPONSE_LIMIT`, geth `softResponseLimit`: 2 MiB). */
export const ETH_SOFT_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Largest eth message accepted, compressed or not (reth `MAX_MESSAGE_SIZE`, crates/net/eth-wire-types/src/message.rs: 10 MiB). */
export const ETH_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Most hashes in one NewPooledTransactionHashes (reth `SOFT_LIMIT_COUNT_HASHES_IN_NEW_POOLED_TRANSACTIONS_BROADCAST_MESSAGE`: 4096). */
export const ETH_MAX_ANNOUNCED_HASHES = 4_096;
/** Most hashes asked per GetPooledTransactions (reth `SOFT_LIMIT_COUNT_HASHES_IN_GET_POOLED_TRANSACTIONS_REQUEST`: 256). */
export const ETH_MAX_POOLED_TX_REQUEST = 256;
/** Soft byte limit of a PooledTransactions answer (reth `SOFT_LIMIT_BYTE_SIZE_POOLED_TRANSACTIONS_RESPONSE`: 2 MiB). */
export const ETH_SOFT_POOLED_TX_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Transaction hashes a peer session remembers as seen (reth `DEFAULT_MAX_COUNT_TRANSACTIONS_SEEN_BY_PEER`: 10 * 1024 / 32 = 320). */
export const ETH_SEEN_TX_HASHES = 320;
/** Transaction hashes the node remembers as fetched or being fetched, across peers (so one announcement from many peers is fetched once). */
export const ETH_KNOWN_TX_HASHES = 16_384;
/**
 * Milliseconds an RLPx connection may take from TCP accept to a completed eth Status exchange
 * (reth `HANDSHAKE_TIMEOUT`, crates/net/ecies/src/stream.rs and eth-wire p2pstream.rs: 10 s). A
 * socket that never finishes the handshake is dropped.
 */
export const P2P_EL_HANDSHAKE_TIMEOUT_MS = 10_000;
/** Milliseconds a GetPooledTransactions request waits for its answer before its hashes may be asked again (reth's eth request timeout is 20 s, `INITIAL_REQUEST_TIMEOUT`; half of it keeps a silent peer from holding hashes long). */
export const ETH_REQUEST_TIMEOUT_MS = 10_000;
/** Milliseconds the main thread has to answer a worker's pooled-transactions lookup before the peer gets an empty answer. */
export const P2P_EL_POOL_LOOKUP_TIMEOUT_MS = 5_000;
/** Milliseconds before a crashed devp2p worker is started again (as the derivation worker's restart delay). */
export const P2P_EL_WORKER_RESTART_DELAY_MS = 1_000;
/** Milliseconds between the worker's counter/peer snapshots to the main thread (metrics, admin_peers, net_peerCount). */
export const P2P_EL_STATUS_INTERVAL_MS = 500;

// ---- tracing (debug_trace*) -------------------------------------------------------------
/** Per-transaction trace time limit when the request names none: geth's `defaultTraceTimeout` (eth/tracers/api.go, 5 s). */
export const TRACE_DEFAULT_TIMEOUT_MS = 5_000;
/**
 * Cap on the JSON text of one struct-log trace. A 30M-gas loop logs ~10M steps of ~150 bytes
 * (1.5 GB with stacks), more than an execution worker's heap (EXECUTION_WORKER_HEAP_MB); 128 MiB
 * of text, held twice while the answer is assembled and sent, stays well inside it. Past it the
 * trace fails with an error naming the cap and the `limit` option.
 */
export const TRACE_STRUCT_LOG_MAX_BYTES = 128 * 1024 * 1024;
/** eth_sendBundle: most transactions in one bundle (Base's ingress, base/base v0.6.0-rc.19 `crates/infra/ingress-rpc/src/validation.rs`). */
export const BUNDLE_MAX_TXS = 3;
/** eth_sendBundle: largest total gas limit of a bundle (Base's ingress `MAX_BUNDLE_GAS`). */
export const BUNDLE_MAX_GAS = 25_000_000n;
/** eth_sendBundle: furthest `maxTimestamp` may be ahead of the node's clock, seconds (Base's ingress: one hour). */
export const BUNDLE_MAX_FUTURE_SECONDS = 3600;
/** Metering tasks (base_meterBundle, base_meterBlockBy*) running at once on the execution pool, so eth_call keeps the other threads (as traces). */
export const METER_MAX_CONCURRENT = 2;
/** Metering requests allowed to wait for {@link METER_MAX_CONCURRENT}; more are refused at once (bounded memory). */
export const METER_MAX_QUEUED = 64;
/**
 * Run time after which a metering task's worker is terminated: a block of 30M gas re-executes
 * in seconds on the fast engine; a bundle is at most a few transactions.
 */
export const METER_TASK_TIMEOUT_MS = 60_000;
/** Trace tasks running at once on the execution pool, so eth_call keeps the other threads (as witnesses). */
export const TRACE_MAX_CONCURRENT = 2;
/** Trace requests allowed to wait for {@link TRACE_MAX_CONCURRENT}; more are refused at once (bounded memory). */
export const TRACE_MAX_QUEUED = 64;
/**
 * Wall-clock limit of one trace task on a worker (a whole block's replay), after which the worker
 * is terminated: a block of 30M gas replays in seconds on the reference engine; the per-transaction
 * `timeout` (default 5 s) ends slow tracers first.
 */
export const TRACE_TASK_TIMEOUT_MS = 120_000;
// ---- eth_simulateV1 (geth internal/ethapi/simulate.go) ------------------------------------

/** Most blocks one eth_simulateV1 request may simulate (geth `maxSimulateBlocks`), gaps included. */
export const MAX_SIMULATE_BLOCKS = 256;
/** Most calls in one simulated block (geth `maxSimulateCallsPerBlock`). */
export const MAX_SIMULATE_CALLS_PER_BLOCK = 5000;
/** Most calls in one eth_simulateV1 request (geth `maxSimulateTotalCalls`). */
export const MAX_SIMULATE_TOTAL_CALLS = 10000;
/** Seconds between simulated blocks whose timestamp is not given (geth `timestampIncrement`). */
export const SIMULATE_TIMESTAMP_INCREMENT = 12n;
/**
 * Gas limit testing_buildBlockV1 steers built blocks toward (geth's miner default `GasCeil`,
 * miner/miner.go), moving from the parent's by at most parent/1024 - 1 (geth `CalcGasLimit`).
 */
export const TESTING_BUILD_GAS_CEIL = 60_000_000n;
/** EIP-1559's bound divisor of a block's gas-limit change (geth `params.GasLimitBoundDivisor`). */
export const GAS_LIMIT_BOUND_DIVISOR = 1024n;
/** Lowest gas limit a block may have (geth `params.MinGasLimit`). */
export const MIN_GAS_LIMIT = 5000n;

// ---- parity-style tracing (trace_*) ----
/**
 * Most blocks one trace_filter request may span (reth's `--rpc.max-trace-filter-blocks`
 * default, DEFAULT_MAX_TRACE_FILTER_BLOCKS = 100): each block is replayed, so the range bounds the work.
 */
export const TRACE_FILTER_MAX_BLOCKS = 100;

// ---- upgrades basalt does not know (src/ops/upgrades, blockchain/upgradeGuard.ts) ----
/**
 * L1 upgrade signal: milliseconds between reads of Base's `ProtocolVersions` schedule, by the L1
 * block tag read at. As base/base (#4244, `UpgradeSignalBlockTag::poll_interval`): how often the
 * tag moves — `finalized` every ~2 epochs (15 min), `safe` every epoch (6 min 24 s), `latest`
 * every slot (12 s). Upgrades are scheduled days ahead, so even the slowest learns of one long
 * before it activates; the first read is at start.
 */
export const UPGRADE_SIGNAL_POLL_MS: Readonly<Record<"finalized" | "safe" | "latest", number>> = {
  finalized: 15 * 60_000,
  safe: 384_000,
  latest: 12_000,
};
/** L1 upgrade signal: first retry delay after a failed read (base/base `READ_BACKOFF`, 2 s), doubling up to the poll interval. */
export const UPGRADE_SIGNAL_BACKOFF_INITIAL_MS = 2_000;
/** L1 upgrade signal: time one JSON-RPC request may take (base/base `UpgradeSignalDefaults::REQUEST_TIMEOUT`, 15 s). */
export const UPGRADE_SIGNAL_REQUEST_TIMEOUT_MS = 15_000;
/**
 * Follow mode: milliseconds between reads of the trusted RPC's eth_config. One small request a
 * minute: the source announces an upgrade as soon as its operator installs a release that
 * schedules it (days ahead), and a minute is a small part of any notice period.
 */
export const FOLLOW_ETH_CONFIG_POLL_MS = 60_000;
/** Follow mode: first retry delay after a failed eth_config read, doubling up to {@link FOLLOW_ETH_CONFIG_POLL_MS}. */
export const FOLLOW_ETH_CONFIG_BACKOFF_INITIAL_MS = 2_000;
/**
 * Largest `flashblockIndex` a `{blockNumber, flashblockIndex}` block parameter may name. Base
 * builds 11 flashblocks per 2 s block (indexes 0..10, one per 200 ms); a builder would need
 * 65535 to reach this bound, so a larger index is a malformed request, refused as bad params.
 */
export const FLASHBLOCK_INDEX_MAX = 0xffff;
