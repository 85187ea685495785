/**
 * The load generator of one endpoint × corpus: several worker threads (node:worker_threads), each
 * with its own engine and keep-alive connections, sharing each run (open-loop schedule or
 * closed-loop connections) and returning their counts, which are merged here — failure kinds
 * summed, latency histograms added (never percentiles averaged). A corpus whose validator is a
 * bare function (no {@link import("./types.js").ValidatorRef}) runs on the main thread instead.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { engineCorpus, execute, type Command, type CommandResult, type ThreadInit } from "./commands.js";
import type { HttpOutcome } from "./client.js";
import { Engine, type ShardResult } from "./engine.js";
import { LoadError } from "./errors.js";
import { checkClosedLoop } from "./closedLoop.js";
import { checkOpenLoop, openLoopTotal } from "./openLoop.js";
import { Tally } from "./stats.js";
import type { Corpus, PeakResult, StepResult } from "./types.js";
import { compiledUrl } from "./validator.js";

/**
 * Default generator threads: half the cores, at least 2 (at most the cores). Measured on the
 * 2-core development machine against a bare uWebSockets.js handler (paired runs, 6 rounds, the
 * machine shared): with the peak's pipelining, 2 threads answered 2.2× what 1 did on small
 * answers (one thread saturates); without it, and on ~120 KB answers, 2 threads reached 0.9× of
 * 1 (the second thread's CPU comes out of the server's share); 3 threads lowered every figure
 * (twice the CPU per answer, ~52 against ~25 µs). On larger machines the other half of the cores
 * is left to the server under test.
 */
export const DEFAULT_THREADS = Math.min(availableParallelism(), Math.max(2, Math.floor(availableParallelism() / 2)));
/**
 * Default pipelining of the peak: 4 requests per connection. Enough to halve the generator's
 * per-request syscalls on small answers; the peak keeps the same number of requests in flight on
 * fewer connections, so the server's queueing is unchanged.
 */
export const DEFAULT_PIPELINE = 4;
/**
 * Answers up to 2 KiB are always parsed and checked; larger ones one in ceil(size / 2 KiB), so
 * parsing costs per answer about what a 2 KiB answer costs. `JSON.parse` of a ~122 KB block takes
 * ~560 µs (~220 MB/s, measured), which capped the previous generator near 1,100 req/s; with an
 * 8 KiB budget the sampled parses still cost ~37 µs per such answer, as much as a third of the
 * generator's whole cost per answer. Every JSON-RPC error answer (small) is still parsed, and
 * every answer's status and framing checked.
 */
export const SAMPLE_BYTES = 2 * 1024;
/** Lead time given to threads before a run starts (the command must reach every thread first). */
const START_LEAD_MS = 50;

/** Options of {@link LoadGenerator.start}. */
export interface GeneratorOptions {
  url: string;
  corpus: Corpus;
  /** worker threads (0: the main thread) */
  threads: number;
  timeoutMs: number;
  /** see {@link SAMPLE_BYTES}; Infinity parses every answer */
  sampleBytes: number;
  /** the body index the validator is told for every answer (calibration) */
  validateAs?: number;
}

/** One thread's side of the generator. */
interface Shard {
  call(cmd: Command): Promise<CommandResult>;
  close(): Promise<void>;
}

/** A shard on the main thread. */
class LocalShard implements Shard {
  constructor(private readonly engine: Engine) {}
  call(cmd: Command): Promise<CommandResult> {
    return execute(this.engine, cmd);
  }
  close(): Promise<void> {
    this.engine.close();
    return Promise.resolve();
  }
}

/** A shard on a worker thread. */
class ThreadShard implements Shard {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (r: CommandResult) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on("message", (m: { id: number; result?: CommandResult; error?: string }) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new LoadError("BENCH_LOAD_GENERATOR", `generator thread: ${m.error}`));
      else w.resolve(m.result!);
    });
    const fail = (e: Error): void => {
      this.failure = e;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    worker.on("error", (e) => fail(new LoadError("BENCH_LOAD_GENERATOR", `generator thread failed: ${e.message}`, {}, { cause: e })));
    worker.on("exit", (code) => fail(new LoadError("BENCH_LOAD_GENERATOR", `generator thread exited (code ${code})`)));
  }

  /** Starts a thread and waits until its engine is built. */
  static start(init: ThreadInit): Promise<ThreadShard> {
    const url = compiledUrl(import.meta.url.replace(/generator\.(ts|js)$/, "worker.$1"));
    const worker = new Worker(new URL(url), { workerData: init });
    return new Promise((resolve, reject) => {
      const onExit = (code: number): void => reject(new LoadError("BENCH_LOAD_GENERATOR", `generator thread exited (code ${code}) while starting`));
      worker.once("exit", onExit);
      worker.once("error", (e) => reject(new LoadError("BENCH_LOAD_GENERATOR", `generator thread failed to start: ${e.message}`, {}, { cause: e })));
      worker.once("message", (m: { ready?: true; fatal?: string }) => {
        worker.off("exit", onExit);
        if (m.ready === true) return resolve(new ThreadShard(worker));
        void worker.terminate();
        reject(new LoadError("BENCH_LOAD_GENERATOR", `generator thread failed to start: ${m.fatal ?? "unexpected message"}`));
      });
    });
  }

  call(cmd: Command): Promise<CommandResult> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, cmd });
    });
  }

  async close(): Promise<void> {
    this.worker.postMessage({ close: true });
    await this.worker.terminate();
  }
}

/** `n` split into `parts` integers as even as possible (the first ones get the remainder). */
export function split(n: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(n / parts) + (i < n % parts ? 1 : 0));
}

/** Epoch milliseconds comparable across threads. */
function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The merged counts of the shards of one run. */
export interface Merged {
  tally: Tally;
  sent: number;
  dropped: number;
  busy: number;
  cpu: number;
}

/** Merges the shards' results of one run (histograms added) with the process CPU spent over `wallMs`. */
export function mergeShards(results: ShardResult[], cpuMicros: number, wallMs: number): Merged {
  const tally = new Tally();
  let sent = 0;
  let dropped = 0;
  let busy = 0;
  for (const r of results) {
    tally.merge(r.tally);
    sent += r.sent;
    dropped += r.dropped;
    busy = Math.max(busy, r.busy);
  }
  return { tally, sent, dropped, busy: round2(busy), cpu: round2(wallMs > 0 ? cpuMicros / 1000 / wallMs : 0) };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** The generator (see the module comment). Call {@link close} when done. */
export class LoadGenerator {
  private constructor(
    private readonly shards: Shard[],
    /** worker threads (0: the main thread) */
    readonly threads: number,
    readonly bodies: number,
  ) {}

  /** Starts the threads (or the main-thread engine) for `opts.corpus` against `opts.url`. */
  static async start(opts: GeneratorOptions): Promise<LoadGenerator> {
    if (!Number.isInteger(opts.threads) || opts.threads < 0) {
      throw new LoadError("BENCH_LOAD_PLAN", `threads ${opts.threads} is invalid: expected an integer >= 0`);
    }
    const { corpus } = opts;
    const threads = corpus.validate !== undefined && corpus.validator === undefined ? 0 : opts.threads;
    const count = Math.max(1, threads);
    const base = { url: opts.url, timeoutMs: opts.timeoutMs, sampleBytes: opts.sampleBytes, stride: count };
    if (threads === 0) {
      const engine = new Engine({ ...base, first: 0, corpus: engineCorpus(corpus, opts.validateAs) });
      return new LoadGenerator([new LocalShard(engine)], 0, corpus.bodies.length);
    }
    const wire = { name: corpus.name, bodies: corpus.bodies, ...(corpus.validator !== undefined ? { validator: corpus.validator } : {}) };
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, first) =>
        ThreadShard.start({ ...base, first, corpus: wire, ...(opts.validateAs !== undefined ? { validateAs: opts.validateAs } : {}) }),
      ),
    );
    const shards = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed !== undefined) {
      await Promise.all(shards.map((s) => s.close()));
      throw failed.reason;
    }
    return new LoadGenerator(shards, threads, corpus.bodies.length);
  }

  /** Runs `cmds[i]` on shard i (fewer commands: the other shards idle) and merges the run results. */
  private async runAll(cmds: Command[]): Promise<Merged> {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const results = await Promise.all(cmds.map((c, i) => this.shards[i]!.call(c)));
    const cpu = process.cpuUsage(cpu0);
    const shardResults = results.map((r) => (r.kind === "run" ? r.result : undefined)).filter((r): r is ShardResult => r !== undefined);
    return mergeShards(shardResults, cpu.user + cpu.system, performance.now() - t0);
  }

  /**
   * Sends `count` bodies once each (the last ones of the corpus, which round-robin reaches last),
   * unmeasured; returns the merged counts and, per body answered ok, its answer size.
   */
  async warm(count: number): Promise<{ tally: Tally; sizes: Array<[number, number]> }> {
    const n = Math.min(count, this.bodies);
    const indices = Array.from({ length: n }, (_, k) => this.bodies - n + k);
    const parts = this.shards.map((_, s) => indices.filter((_i, k) => k % this.shards.length === s));
    const results = await Promise.all(parts.map((p, s) => (p.length === 0 ? undefined : this.shards[s]!.call({ kind: "warm", indices: p }))));
    const tally = new Tally();
    const sizes: Array<[number, number]> = [];
    for (const r of results) {
      if (r?.kind !== "warm") continue;
      tally.merge(r.tally);
      sizes.push(...r.sizes);
    }
    return { tally, sizes };
  }

  /** Sends body `bodyIndex` once and returns the answer with its body, and whether it checked ok. */
  async capture(bodyIndex: number): Promise<{ outcome: HttpOutcome; ok: boolean }> {
    const r = await this.shards[0]!.call({ kind: "capture", bodyIndex });
    if (r.kind !== "capture") throw new LoadError("BENCH_LOAD_GENERATOR", `capture answered ${r.kind}`);
    return { outcome: r.outcome, ok: r.ok };
  }

  /** Undefined when the endpoint answers `depth` pipelined requests correctly, else why not. */
  async probePipeline(depth: number): Promise<string | undefined> {
    const r = await this.shards[0]!.call({ kind: "probe", depth });
    if (r.kind !== "probe") throw new LoadError("BENCH_LOAD_GENERATOR", `probe answered ${r.kind}`);
    return r.failure;
  }

  /**
   * One open-loop step of `rate` req/s for `seconds`, split over the threads (request i on thread
   * i mod T); `maxInFlight` and `maxSockets` are split too. Without `rssMiB`.
   */
  async open(opts: { rate: number; seconds: number; maxInFlight: number; maxSockets: number }): Promise<StepResult> {
    const { rate, seconds } = opts;
    checkOpenLoop(rate, seconds);
    // Each thread needs at least one request, one in-flight slot and one socket.
    const used = Math.max(1, Math.min(this.shards.length, openLoopTotal(rate, seconds), opts.maxInFlight, opts.maxSockets));
    const inFlight = split(opts.maxInFlight, used);
    const sockets = split(opts.maxSockets, used);
    const startAt = epochNow() + START_LEAD_MS;
    const m = await this.runAll(
      Array.from({ length: used }, (_, first): Command => ({
        kind: "open",
        rate,
        seconds,
        startAt,
        first,
        stride: used,
        maxInFlight: inFlight[first]!,
        maxSockets: sockets[first]!,
      })),
    );
    return {
      rate,
      seconds,
      sent: m.sent,
      ok: m.tally.ok,
      failed: m.tally.failed,
      dropped: m.dropped,
      errorRate: m.tally.errorRate(),
      achievedRps: m.tally.ok / seconds,
      failures: m.tally.failures,
      ...m.tally.stats(),
      unchecked: m.tally.unchecked,
      generatorCpu: m.cpu,
      generatorBusy: m.busy,
    };
  }

  /**
   * The closed-loop peak: `concurrency` requests in flight, `pipeline` per connection on
   * ceil(concurrency / pipeline) connections split over the threads, for `seconds`. Without `rssMiB`.
   */
  async closed(opts: { concurrency: number; pipeline: number; seconds: number }): Promise<PeakResult> {
    const { concurrency, pipeline, seconds } = opts;
    checkClosedLoop(concurrency, pipeline, seconds);
    const connections = Math.ceil(concurrency / pipeline);
    // Exactly `concurrency` in flight: per connection `pipeline`, or one less on some.
    const depths = split(concurrency, connections);
    const used = Math.min(this.shards.length, connections);
    let from = 0;
    const perThread = split(connections, used).map((n) => depths.slice(from, (from += n)));
    const startAt = epochNow() + START_LEAD_MS;
    const m = await this.runAll(perThread.map((d): Command => ({ kind: "closed", depths: d, seconds, startAt })));
    return {
      concurrency,
      seconds,
      ok: m.tally.ok,
      failed: m.tally.failed,
      rps: m.tally.ok / seconds,
      failures: m.tally.failures,
      ...m.tally.stats(),
      connections,
      pipeline,
      unchecked: m.tally.unchecked,
      generatorCpu: m.cpu,
      generatorBusy: m.busy,
    };
  }

  /** Stops the threads (their connections are destroyed). */
  async close(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.close()));
  }
}
