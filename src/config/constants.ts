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
/** Most blocks one eth_getLogs may scan (reth's 100k-block filter limit). */
export const MAX_LOGS_BLOCK_RANGE = 100_000;
/** Most logs one eth_getLogs may return (reth's 20k). */
export const MAX_LOGS_PER_RESPONSE = 20_000;
/** Most blocks one eth_feeHistory request may cover (geth's `maxBlockCount` 1024). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

/**
 * Blocks of history kept for state queries without `--archive`: 128, the depth geth keeps
 * in memory (`TriesInMemory`) and what most tools assume a full node can answer.
 */
export const DEFAULT_STATE_HISTORY_BLOCKS = 128;

/** LMDB map size: 1 TiB of address space (sparse; only written pages use disk). */
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
/** Graceful shutdown: in-flight requests get this long to finish before they are cut off. */
export const SHUTDOWN_DRAIN_MS = 5_000;

/**
 * Default EVM engine: the fast core. It passes every EEST state test the reference engine
 * (@ethereumjs/vm) passes and is differentially fuzzed against it; the reference engine still
 * runs whatever the fast one does not support and re-executes any block it gets wrong.
 */
export const DEFAULT_EVM_ENGINE = "fast";

/**
 * Trie nodes cached per thread (content-addressed, so valid forever): 32,768 nodes of ≤ 532 bytes
 * is at most ~17 MiB of node bytes, enough for the upper levels of a large account trie, which
 * every block's state root walks (LMDB reads and hex decoding were ~15 % of import).
 */
export const TRIE_NODE_CACHE_NODES = 32_768;
