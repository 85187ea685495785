/**
 * Constants of the P2P services' worker threads (consensus layer `workers/p2p.ts`, execution
 * layer `workers/devp2p.ts`) on the worker host, each with its reason. (The networks' own limits
 * still live in `config/constants.ts`.)
 */
import type { RestartPolicy } from "../util/workerHost.js";

/**
 * Restart of a crashed P2P or devp2p worker (same identity and ports): the first restart waits
 * 1 s (the fixed delay each service used before the worker host), later ones double up to 30 s so
 * a crash loop stays slow; a worker that stayed up a minute starts over at 1 s.
 */
export const P2P_WORKER_RESTART: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableMs: 60_000 };

/** Shutdown: how long a P2P worker gets to disconnect its peers and close its sockets (and store) after "stop" before it is terminated (the 5 s each service used). */
export const P2P_WORKER_STOP_GRACE_MS = 5_000;

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
/** `--p2p.ban.threshold`: a peer whose gossip score falls below this is disconnected and banned (op-node p2p_flags.go: -100). */
export const DEFAULT_P2P_BAN_THRESHOLD = -100;
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
/** Main-thread calls into the P2P worker (RPC, fetches) fail after this long: the worker is stuck or gone. */
export const P2P_WORKER_CALL_TIMEOUT_MS = 35_000;
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
/** Milliseconds between the worker's counter/peer snapshots to the main thread (metrics, admin_peers, net_peerCount). */
export const P2P_EL_STATUS_INTERVAL_MS = 500;
