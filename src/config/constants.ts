/**
 * basalt's shared defaults and limits, each with the reason for its value: option defaults
 * (`src/config/options.ts` takes them from here), JSON-RPC limits, and values used by more than
 * one subsystem. A constant used by one subsystem only lives in that subsystem's `constants.ts`;
 * `scripts/splitConstants.mjs` places each in the lowest layer that uses it.
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
/** Default of `--rpc.max-blocks-per-filter`: most blocks one eth_getLogs range may span beyond its first (reth's 100k-block filter limit). */
export const MAX_LOGS_BLOCK_RANGE = 100_000;
/** Default of `--rpc.max-logs-per-response`: most logs one eth_getLogs over several blocks may return (reth's 20k). */
export const MAX_LOGS_PER_RESPONSE = 20_000;

/**
 * Blocks of history kept for state queries without `--archive`: 128, the depth geth keeps
 * in memory (`TriesInMemory`) and what most tools assume a full node can answer.
 */
export const DEFAULT_STATE_HISTORY_BLOCKS = 128;

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

/**
 * Default EVM engine: the fast core. It passes every EEST state test the reference engine
 * (@ethereumjs/vm) passes and is differentially fuzzed against it; the reference engine still
 * runs whatever the fast one does not support and re-executes any block it gets wrong.
 */
export const DEFAULT_EVM_ENGINE = "fast";

// ---- follow mode and the JSON-RPC client ---------------------------------------------------
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

// ---- polling filters (rpc/filters.ts) ----

/**
 * Default most filters installed at once (`--rpc.max-filters`). geth has no limit; an idle block
 * or log filter costs a few hundred bytes and a pending-transaction filter at most
 * FILTER_MAX_PENDING_TXS references, so 10,000 is well under 200 MB in the worst case.
 */
export const DEFAULT_MAX_FILTERS = 10_000;

// ---- commands: node, import, doctor -------------------------------------------------------
/** `basalt import`: milliseconds between progress lines. */
export const IMPORT_PROGRESS_INTERVAL_MS = 8_000;

// ---------------------------------------------------------------------------------------------
// Derivation: blobs (src/derivation/blobCodec.ts, kzg.ts, beaconClient.ts, beaconShim.ts)
// ---------------------------------------------------------------------------------------------
/**
 * Largest payload of OP blob encoding v0: 1024 rounds of 4 field elements carry 4·31 + 3 = 127 bytes each, less
 * the 4-byte version and length header: (4·31+3)·1024 − 4 = 130,044 (specs ecotone/derivation.md; op-service
 * eth/blob.go MaxBlobDataSize; kona sources/blob_data.rs BLOB_MAX_DATA_SIZE).
 */
export const BLOB_MAX_PAYLOAD_BYTES = 130_044;

// ---- derivation ---------------------------------------------------------------------------
// Protocol limits of the OP Stack derivation codecs (src/derivation/). They are consensus rules,
// not tunables: every rollup node must use these values (sources named on each).
/** Most bytes of data one frame may carry (specs derivation.md "Frame Format"; op-node `MaxFrameLen`; kona `MAX_FRAME_LEN`). */
export const MAX_FRAME_LEN = 1_000_000;
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

// ---- sequencer on a real L1 (local rollup) ------------------------------------------------
/**
 * `--sequencer.l1-confs` default: 0. The L1 a local rollup sequences on is one node whose blocks
 * reorganize only when a test asks it to (and a reorg under the origin is handled: the sequencer
 * waits until the L2 chain is put back on the canonical L1); with 0 a deposit mined on L1 is in
 * the next L2 block. op-node's 4 is for a public L1, where a few blocks can be replaced by chance.
 */
export const DEFAULT_SEQUENCER_L1_CONFS = 0;

// ---- batcher ------------------------------------------------------------------------------
// The batcher (src/batcher/): L2 blocks → span batches → brotli channels → frames → L1 calldata
// or blob transactions to the batch inbox. Facts from op-batcher / op-service txmgr and geth's
// pools are named on each; the rest are choices for a local rollup, with the reason.
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

// ---- L1 devnet (--network devnet-l1: block producer, beacon API, blob archive) --------------

/**
 * devnet-l1: slot length when `--dev.block-time` is not given, Ethereum's SECONDS_PER_SLOT (12).
 * Tests and a quick local rollup pass 1–2 s.
 */
export const L1DEV_DEFAULT_SLOT_SECONDS = 12;
/** devnet-l1: default beacon API port, lighthouse's HTTP API default (5052). */
export const DEFAULT_BEACON_PORT = 5_052;

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
/** `--p2p.ban.duration`: how long a score ban lasts, in seconds (op-node p2p_flags.go: 1 h). */
export const DEFAULT_P2P_BAN_DURATION_S = 3_600;

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

// ---- parity-style tracing (trace_*) ----
/**
 * Most blocks one trace_filter request may span (reth's `--rpc.max-trace-filter-blocks`
 * default, DEFAULT_MAX_TRACE_FILTER_BLOCKS = 100): each block is replayed, so the range bounds the work.
 */
export const TRACE_FILTER_MAX_BLOCKS = 100;
