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
  /**
   * The same check as `validate`, as a reference the generator's worker threads can rebuild it from
   * (see bench/load/validator.ts). A corpus with `validate` but no `validator` is sent from the main
   * thread alone (a function cannot cross threads), which caps the generator lower.
   */
  validator?: ValidatorRef;
  /** shown next to the corpus's figures, e.g. "repetitive: one body repeated, not a target" */
  note?: string;
}

/** A validator factory: the export `name` of module `module` (a file URL), called with `args` (structured-cloneable). */
export interface ValidatorRef {
  module: string;
  name: string;
  args: unknown[];
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
  /** generator worker threads; default: see DEFAULT_THREADS in bench/load/generator.ts; 0 = the main thread only */
  threads?: number;
  /**
   * requests in flight per connection in the peak (HTTP/1.1 pipelining; 1 = off). The peak keeps
   * `concurrency` requests in flight on ceil(concurrency / pipeline) connections, and falls back to
   * 1 for an endpoint that does not answer a pipelined probe correctly. Default: DEFAULT_PIPELINE.
   */
  pipeline?: number;
  /** parse and check every answer (default: answers over SAMPLE_BYTES are sampled, see bench/load/engine.ts) */
  checkAll?: boolean;
  /** the generator's calibration against a bare server (default on); false skips it (figures are then not marked) */
  calibration?: CalibrationPlan | false;
  /** progress lines go here (default: none) */
  onProgress?: (line: string) => void;
}

/** How the generator's own ceiling is measured (see bench/load/calibrate.ts). */
export interface CalibrationPlan {
  /** seconds of each calibration run (generator, then wrk); default DEFAULT_CALIBRATION_SECONDS */
  seconds?: number;
  /** also run wrk when it is on PATH (default true) */
  wrk?: boolean;
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
  /** ok calls accepted on status and framing alone (large answers outside the checked sample) */
  unchecked?: number;
  /** the generator process's CPU during the step, cores (all its threads) */
  generatorCpu?: number;
  /** the busiest generator thread's event-loop utilization during the step, 0..1 */
  generatorBusy?: number;
  /** achievedRps is at least GENERATOR_BOUND_FRACTION of the generator's calibrated ceiling: the figure may be the generator's */
  generatorBound?: boolean;
}

/**
 * The closed-loop peak: `concurrency` requests in flight (`pipeline` per connection on
 * `connections` connections) back to back; `rps` = ok / seconds.
 */
export interface PeakResult extends LatencyStats {
  concurrency: number;
  seconds: number;
  ok: number;
  failed: number;
  rps: number;
  failures: Record<string, number>;
  rssMiB?: number;
  connections?: number;
  /** requests in flight per connection (1: no pipelining) */
  pipeline?: number;
  /** why pipelining was not used for this endpoint, when it was asked for */
  pipelineNote?: string;
  unchecked?: number;
  generatorCpu?: number;
  generatorBusy?: number;
  /** rps is at least GENERATOR_BOUND_FRACTION of the generator's calibrated ceiling: the figure may be the generator's */
  generatorBound?: boolean;
}

/** The results of one corpus against one endpoint. */
export interface CorpusResult {
  endpoint: string;
  corpus: string;
  steps: StepResult[];
  peak?: PeakResult;
  /** median size of this endpoint's successful answers in the warm-up, bytes */
  answerBytes?: number;
  /** the calibration size class of answerBytes, e.g. "64 KiB–256 KiB" */
  sizeClass?: string;
  /** generator threads used (0: the main thread, for a validator that cannot cross threads) */
  threads?: number;
  /** the corpus's note (e.g. repetitive) */
  note?: string;
}

/** One calibration run: the generator (and wrk) against a bare server answering captured bytes with no work. */
export interface Calibration {
  sizeClass: string;
  /** the bytes served: an answer of `corpus` captured from `endpoint` */
  answerBytes: number;
  corpus: string;
  endpoint: string;
  connections: number;
  pipeline: number;
  seconds: number;
  /** the generator's ok answers per second: its ceiling for this size class and pipelining */
  rps: number;
  failed: number;
  generatorCpu: number;
  generatorBusy: number;
  /** wrk against the same server, bytes, connections, pipelining and duration, one thread per core (when wrk is on PATH) */
  wrk?: { rps: number; threads: number; errors: number };
  /** why wrk did not run or failed */
  wrkNote?: string;
}

/** The generator of a report: how it ran and its calibrated ceilings. */
export interface GeneratorReport {
  threads: number;
  /** peak pipelining asked for */
  pipeline: number;
  /** answers up to this size are all parsed, larger ones sampled; null: every answer parsed */
  sampleBytes: number | null;
  /** figures at or above this fraction of the ceiling are marked generatorBound */
  boundFraction: number;
  calibration: Calibration[];
  /** why there is no calibration (e.g. disabled) */
  calibrationNote?: string;
}

/** Everything one {@link import("./run.js").runLoad} measured, with the machine it ran on. */
export interface LoadReport {
  startedAt: string;
  machine: { cpus: number; cpuModel: string; memGiB: number; node: string };
  plan: { steps: number[]; stepSeconds: number; peak?: { concurrency: number; seconds: number } };
  results: CorpusResult[];
  generator?: GeneratorReport;
}
