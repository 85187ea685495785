/**
 * Execution rules shared by the call family and the transaction pool (a layer they both
 * import without an upward import): src/config/constants.ts holds the RPC limits.
 */

/**
 * EIP-7825 per-transaction gas cap (2^24), active on Base from Azul (the Osaka EIPs; revm
 * `TX_GAS_LIMIT_CAP`, geth `params.MaxTxGas`): the pool refuses transactions above it, and calls
 * and estimates lower the RPC gas cap to it where the fork enables the EIP.
 */
export const MAX_TX_GAS_EIP7825 = 16_777_216n;
/**
 * Heap limit of one execution worker. Calls are capped at 50M gas, whose EVM memory is a few
 * MB; the rest is caches (code, trie nodes). A worker above it is replaced rather than growing.
 */
export const EXECUTION_WORKER_HEAP_MB = 1_024;
/** eth_estimateGas stops bisecting when (hi - lo) / hi < 1.5 % (geth `estimateGasErrorRatio`). */
export const ESTIMATE_GAS_ERROR_RATIO = 0.015;
/** Gas added by the optimistic estimateGas probe: the call stipend (reth `CALL_STIPEND_GAS`). */
export const CALL_STIPEND_GAS = 2_300n;
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
/** Seconds between simulated blocks whose timestamp is not given (geth `timestampIncrement`). */
export const SIMULATE_TIMESTAMP_INCREMENT = 12n;
