/**
 * Types of the HTTP load tool (`basalt bench load`): what to run (a {@link LoadPlan} of endpoints
 * and request corpora) and what comes out (a {@link LoadReport}). These shapes are a contract
 * shared with the scenario bench and the report readers: fields may be added, never renamed.
 */

/** A JSON-RPC server under test. */
export interface Endpoint {
  /** short label used in tables and charts, e.g. "basalt" */
  name: string;
  /** JSON-RPC URL (http or https), e.g. "http://127.0.0.1:8545" */
  url: string;
  /** pid of the server process (optional): its RSS is sampled after each step from /proc/<pid>/status */
  pid?: number;
}

/** A set of requests sent to the endpoints, with the check of their answers. */
export interface Corpus {
  /** label, e.g. "eth_getBlockByNumber(full)" */
  name: string;
  /** complete JSON-RPC request texts (one object each, `id` any); sent round-robin */
  bodies: string[];
  /**
   * Extra check of a successful result; returns a failure reason or undefined. A JSON-RPC `error` member is always a
   * failure. `bodyIndex` is the index in `bodies` of the request answered and `elementIndex` its position in a batch
   * body (0 for a single request); both are always passed by the load tool.
   */
  validate?: (result: unknown, bodyIndex?: number, elementIndex?: number) => string | undefined;
  /** restrict this corpus to these endpoint names (default: all endpoints) */
  endpoints?: string[];
}

/** What {@link import("./run.js").runLoad} runs. */
export interface LoadPlan {
  endpoints: Endpoint[];
  corpora: Corpus[];
  /** open-loop fixed rates in req/s; default [1, 4, 16, 64, 256, 512, 2048] */
  steps?: number[];
  /** seconds per open-loop step; default 5 */
  stepSeconds?: number;
  /** closed-loop peak: `concurrency` clients sending back-to-back for `seconds`; omitted = no peak run */
  peak?: { concurrency: number; seconds: number };
  /** requests allowed in flight in open loop before new ones are counted as dropped (bounds the load generator's memory); default 4096 */
  maxInFlight?: number;
  /** sockets the generator opens per endpoint (many connections, as many clients behind a load balancer); default 64 */
  maxSockets?: number;
  /** per-request timeout ms; default 10000 */
  timeoutMs?: number;
  /** progress lines go here (default: none) */
  onProgress?: (line: string) => void;
}

/** Latency percentiles in milliseconds (0 when nothing was answered). */
export interface LatencyStats {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * One open-loop step at a fixed offered rate. `sent`/`dropped` count HTTP requests; `ok`/`failed` count JSON-RPC
 * calls (each element of a batch body counts). Latencies cover every answered or timed-out request, measured from its
 * scheduled send time.
 */
export interface StepResult extends LatencyStats {
  /** offered rate, req/s */
  rate: number;
  seconds: number;
  sent: number;
  ok: number;
  failed: number;
  dropped: number;
  /** failed / (ok + failed), 0..1 */
  errorRate: number;
  /** ok / seconds */
  achievedRps: number;
  /** failure counts by kind, e.g. { "http 429": 3, "timeout": 1 } */
  failures: Record<string, number>;
  /** resident set size of the endpoint's process after the step, MiB */
  rssMiB?: number;
}

/** The closed-loop peak: `concurrency` clients back to back; `rps` = ok / seconds. */
export interface PeakResult extends LatencyStats {
  concurrency: number;
  seconds: number;
  ok: number;
  failed: number;
  rps: number;
  failures: Record<string, number>;
  rssMiB?: number;
}

/** The results of one corpus against one endpoint. */
export interface CorpusResult {
  endpoint: string;
  corpus: string;
  steps: StepResult[];
  peak?: PeakResult;
}

/** Everything one {@link import("./run.js").runLoad} measured, with the machine it ran on. */
export interface LoadReport {
  startedAt: string;
  machine: { cpus: number; cpuModel: string; memGiB: number; node: string };
  plan: { steps: number[]; stepSeconds: number; peak?: { concurrency: number; seconds: number } };
  results: CorpusResult[];
}
