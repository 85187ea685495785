/**
 * Constants of `src/rpc/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/** Maximum size of one batch response: geth's `BatchResponseMaxSize` (25 MB). */
export const MAX_BATCH_RESPONSE_BYTES = 25 * 1000 * 1000;
/** Maximum nesting depth of a JSON request; deeper input is rejected before parsing. */
export const MAX_JSON_DEPTH = 64;
/** Most addresses in one log filter (geth `maxAddresses`: "exceed max addresses"); bounds the matching work per log. */
export const MAX_FILTER_ADDRESSES = 1000;
/** Most alternatives at one topic position of a log filter (geth's bound of the same size, "exceed max subtopics"). */
export const MAX_FILTER_SUBTOPICS = 1000;
/** Most blocks one eth_feeHistory request may cover (geth's `maxBlockCount` 1024). */
export const MAX_FEE_HISTORY_BLOCKS = 1024;

/** Engine API JWT: allowed clock drift of `iat` (execution-apis authentication spec: ±60 s). */
export const JWT_IAT_DRIFT_S = 60;

/** Client name reported by web3_clientVersion and engine_getClientVersionV1. */
export const CLIENT_NAME = "basalt";
/** Two-letter client code for engine_getClientVersionV1 (not registered; "BA"). */
export const CLIENT_CODE = "BA";
/** eth_sendRawTransactionSync (EIP-7966): default and largest wait, 6000 ms (base/base `rpc/eth.rs`). */
export const SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS = 6_000;
/** Most storage keys one eth_getProof may ask for (Base's node and geth: 1,024). */
export const PROOFS_MAX_KEYS = 1_024;

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

// ---- basalt doctor: P2P probes (src/ops/doctor/p2pProbe.ts) ----

/**
 * Call-family answers cached per head (rpc/callCache.ts): 4,096 answers of typically < 1 KiB each
 * bound the cache to a few MiB, and a block's repeated calls (a dapp front end polling the same
 * view functions, wallets re-estimating) repeat within a 2 s block far less often than that.
 */
export const CALL_CACHE_ENTRIES = 4_096;

// ---- tracing (debug_trace*) -------------------------------------------------------------
/** eth_sendBundle: most transactions in one bundle (Base's ingress, base/base v0.6.0-rc.19 `crates/infra/ingress-rpc/src/validation.rs`). */
export const BUNDLE_MAX_TXS = 3;
/** eth_sendBundle: largest total gas limit of a bundle (Base's ingress `MAX_BUNDLE_GAS`). */
export const BUNDLE_MAX_GAS = 25_000_000n;
/** eth_sendBundle: furthest `maxTimestamp` may be ahead of the node's clock, seconds (Base's ingress: one hour). */
export const BUNDLE_MAX_FUTURE_SECONDS = 3600;

// ---- eth_simulateV1 (geth internal/ethapi/simulate.go) ------------------------------------
/** Most calls in one simulated block (geth `maxSimulateCallsPerBlock`). */
export const MAX_SIMULATE_CALLS_PER_BLOCK = 5000;
/** Most calls in one eth_simulateV1 request (geth `maxSimulateTotalCalls`). */
export const MAX_SIMULATE_TOTAL_CALLS = 10000;
/**
 * Gas limit testing_buildBlockV1 steers built blocks toward (geth's miner default `GasCeil`,
 * miner/miner.go), moving from the parent's by at most parent/1024 - 1 (geth `CalcGasLimit`).
 */
export const TESTING_BUILD_GAS_CEIL = 60_000_000n;
/** EIP-1559's bound divisor of a block's gas-limit change (geth `params.GasLimitBoundDivisor`). */
export const GAS_LIMIT_BOUND_DIVISOR = 1024n;
/** Lowest gas limit a block may have (geth `params.MinGasLimit`). */
export const MIN_GAS_LIMIT = 5000n;

// ---- upgrades basalt does not know (src/ops/upgrades, blockchain/upgradeGuard.ts) ----
/**
 * Largest `flashblockIndex` a `{blockNumber, flashblockIndex}` block parameter may name. Base
 * builds 11 flashblocks per 2 s block (indexes 0..10, one per 200 ms); a builder would need
 * 65535 to reach this bound, so a larger index is a malformed request, refused as bad params.
 */
export const FLASHBLOCK_INDEX_MAX = 0xffff;
