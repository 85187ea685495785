/**
 * The execution pool: piscina worker threads that run the call family (eth_call,
 * eth_estimateGas, eth_createAccessList) — and recover transaction senders for block import —
 * so the RPC thread never runs the EVM. Each worker opens the LMDB store read-only (LMDB serves
 * every thread of the process from one memory map, as reth's MDBX does) and reads the pending
 * SharedArrayBuffer directly; only msgpack bytes cross the thread boundary.
 *
 * Bounds, all options with defaults in config/constants.ts:
 * - `threads` workers (default: the cores minus the one the RPC thread keeps);
 * - `maxQueue` requests waiting for a worker; beyond it a request is refused at once
 *   (`POOL_QUEUE_FULL`, -32005 on the wire) instead of queueing without bound;
 * - `timeoutMs` per request (geth's `--rpc.evmtimeout`), counted, as geth counts it, from
 *   when the request is handed to a worker: one running past it has its worker terminated and
 *   replaced (the EVM cannot be interrupted from inside), and fails with `POOL_TIMEOUT` (geth's
 *   "execution aborted (timeout = …)"). Time in the queue does not count (the queue is bounded
 *   instead), so a worker restart never times out the requests waiting for it.
 * A worker that crashes is replaced by piscina; its in-flight requests fail with
 * `POOL_WORKER_CRASHED` (-32603) and the others continue.
 *
 * Hand-off: requests go to a worker in batches — everything waiting when a worker slot frees
 * up, {@link EXECUTION_BATCH_MAX} at most — so under load one message each way carries many
 * requests instead of one (a message costs tens of µs, a fast-EVM call about as much). An idle
 * pool hands a request over alone, at once. A request that times out while its batch runs
 * terminates that worker; the batch's other requests go back to the front of the queue.
 */
import type { MeterRequest } from "../metering/request.js";
import { METER_MAX_CONCURRENT, METER_MAX_QUEUED, METER_TASK_TIMEOUT_MS, EXECUTION_BATCH_MAX, EXECUTION_IN_FLIGHT_PER_WORKER, WITNESS_MAX_CONCURRENT, WITNESS_MAX_QUEUED, WITNESS_TIMEOUT_MS, TRACE_MAX_CONCURRENT, TRACE_MAX_QUEUED, TRACE_TASK_TIMEOUT_MS } from "../constants.js";
import { Piscina } from "piscina";
import type { Logger } from "pino";
import type { CallRequest, CallService } from "../callRequest.js";
import type { SenderKeyRecoverer } from "../senderRecovery.js";
import { bindPoolGauges, poolBatchRequests, poolTaskSeconds, poolTasksTotal, poolWorkerRestartsTotal, type PoolOutcome } from "./metrics.js";
import { PoolError, PoolErrorCode } from "./errors.js";
import { decodeCallReply, encodeCallRequest, encodeMeterTask, frame, unframe, encodeSendersTask, encodeTraceTask, encodeWitnessTask } from "./protocol.js";
import { errorFromObject } from "../../util/errorRegistry.js";
import { tracerNameOf, type TraceRequest } from "../trace/request.js";
import { traceSeconds } from "../trace/metrics.js";
import type { WitnessRequest } from "../witness/request.js";
import { workerUrl } from "../../util/workerUrl.js";
import type { EvmEngineName } from "../../config/options.js";

/** What every worker is started with (see workers/execution.ts). */
export interface ExecutionWorkerData {
  datadir: string;
  archive: boolean;
  historyBlocks: number;
  /** The flashblocks pending SharedArrayBuffer, when the node ingests a stream. */
  pending?: SharedArrayBuffer;
  logLevel: string;
  logFormat: "json" | "pretty";
  /** The EVM engine calls run on first (`--evm`); default: the worker's default (`BASALT_EVM`, else fast). */
  evm?: EvmEngineName;
}

/** Options of {@link ExecutionPool}. */
export interface ExecutionPoolOptions {
  threads: number;
  maxQueue: number;
  /** Per-request limit in milliseconds; 0 = none. */
  timeoutMs: number;
  /** Heap limit of each worker in MB; a worker above it is replaced. */
  workerHeapMb: number;
  worker: ExecutionWorkerData;
  logger: Logger;
}

/** A call request between acceptance and answer. */
interface Job {
  task: Uint8Array;
  /** queued → running (in a batch) → done; a running job may go back to queued when its batch is aborted for another job. */
  state: "queued" | "running" | "done";
  /** The batch carrying it while running. */
  batch?: Batch;
  settle: { resolve(bytes: Uint8Array): void; reject(e: unknown): void };
}

/** Requests handed to one worker as one task. */
interface Batch {
  jobs: Job[];
  /**
   * Shared with the worker: slot 0 of the Int32 view is the index of the job it is running
   * (−1 before it starts the batch), slot 1 the worker's thread id (written before the first
   * index), slot 1 of the Float64 view the epoch ms that job started (written before the index,
   * so a reader that sees the index sees its time).
   */
  progress: BatchProgress;
  /** The watchdog of the running job's time. */
  timer?: ReturnType<typeof setTimeout>;
  /** The batch was aborted for a job that ran past its timeout (its worker is terminated). */
  aborted?: boolean;
}

/** Views of a batch's shared progress record (see {@link Batch.progress}). */
interface BatchProgress {
  /** [0]: the running job's index; [1]: the worker's thread id. */
  index: Int32Array;
  startedAt: Float64Array;
}

/** A fresh progress record (16 bytes of shared memory: the index, the thread id, then the start time). */
function newProgress(): BatchProgress {
  const sab = new SharedArrayBuffer(16);
  const index = new Int32Array(sab, 0, 2);
  index[0] = -1;
  index[1] = -1;
  return { index, startedAt: new Float64Array(sab, 8, 1) };
}

/** geth's wording for a call cut off by `--rpc.evmtimeout`. */
function timeoutMessage(ms: number): string {
  return ms % 1000 === 0 ? `execution aborted (timeout = ${ms / 1000}s)` : `execution aborted (timeout = ${ms}ms)`;
}

/** The worker pool; also the node's {@link CallService}. */
export class ExecutionPool implements CallService, SenderKeyRecoverer {
  private readonly piscina: Piscina;
  private readonly log: Logger;
  private started = false;
  private closed = false;
  /** FIFO of accepted requests waiting for a worker (`waitingHead` is the oldest). */
  private waiting: Job[] = [];
  private waitingHead = 0;
  /** Jobs waiting in {@link waiting}. */
  private queued = 0;
  /** Call requests handed to piscina (at most {@link EXECUTION_IN_FLIGHT_PER_WORKER} per worker). */
  private running = 0;
  /** The batches counted in {@link running}. */
  private readonly inFlight = new Set<Batch>();

  constructor(private readonly opts: ExecutionPoolOptions) {
    this.log = opts.logger.child({ subsystem: "execution-pool" });
    this.piscina = new Piscina({
      filename: workerUrl("execution").href,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      // Workers stay up: each one's store handles and caches are what make it fast.
      idleTimeout: 2 ** 31 - 1,
      // Calls are queued (and bounded) here, not in piscina; only sender recovery waits there, a few blocks at most.
      maxQueue: Number.MAX_SAFE_INTEGER,
      // The running batch and the next one, already posted: the worker starts the next as soon as
      // one ends, without waiting for this thread (it runs them one after the other). A batch
      // lost with its worker before it started goes back to the queue (batchFailed).
      concurrentTasksPerWorker: EXECUTION_IN_FLIGHT_PER_WORKER,
      // The next request waits at the head of piscina's queue, never behind a later one.
      stricterFIFO: true,
      workerData: opts.worker,
      resourceLimits: { maxOldGenerationSizeMb: opts.workerHeapMb },
    });
    this.piscina.on("workerCreate", () => {
      if (this.started && !this.closed) {
        poolWorkerRestartsTotal.inc();
        this.log.warn("execution worker replaced");
      }
    });
    this.piscina.on("error", (e: Error) => this.log.error({ err: e }, "execution worker error"));
    bindPoolGauges({
      queueDepth: () => this.queueDepth,
      busyWorkers: () => Math.min(this.running, this.opts.threads),
      workers: () => this.piscina.threads.length,
    });
  }

  /** Waits until every worker has opened the store (one ping each); resolves with their count. */
  async start(): Promise<number> {
    const pings = Array.from({ length: this.opts.threads }, () => this.piscina.run(new Uint8Array(0), { name: "ping" }) as Promise<string>);
    await Promise.all(pings);
    this.started = true;
    this.log.debug({ threads: this.opts.threads, maxQueue: this.opts.maxQueue, timeoutMs: this.opts.timeoutMs }, "execution pool ready");
    return this.piscina.threads.length;
  }

  /**
   * Resolves once every worker answers a ping (after a timeout replaced one, the replacement
   * has started); resolves with their count.
   */
  async ping(): Promise<number> {
    await Promise.all(Array.from({ length: this.opts.threads }, () => this.piscina.run(new Uint8Array(0), { name: "ping" })));
    return this.piscina.threads.length;
  }

  /** Batches handed to workers and not answered yet. */
  get inFlightBatches(): number {
    return this.running;
  }

  /** Requests a worker has started and not finished (tests: a request is known to be running). */
  get startedRequests(): number {
    let n = 0;
    for (const b of this.inFlight) {
      const i = Atomics.load(b.progress.index, 0);
      if (i >= 0 && i < b.jobs.length) n++;
    }
    return n;
  }

  /** Worker threads configured. */
  get threadCount(): number {
    return this.opts.threads;
  }

  /** Worker threads (tests: terminate one to exercise crash handling). */
  get threads(): readonly { terminate(): Promise<number> }[] {
    return this.piscina.threads;
  }

  /** Requests waiting for a worker. */
  get queueDepth(): number {
    return this.queued;
  }

  async execute(req: CallRequest): Promise<string> {
    const started = performance.now();
    const outcome = (o: PoolOutcome): void => {
      poolTasksTotal.inc({ method: req.method, outcome: o });
      poolTaskSeconds.observe({ method: req.method }, (performance.now() - started) / 1000);
    };
    if (this.closed) throw new PoolError({ code: PoolErrorCode.CLOSED }, "the execution pool is shut down");
    // Refuse at once when the queue is full: a fast error, bounded memory.
    const depth = this.queueDepth;
    const maxQueue = this.opts.maxQueue;
    if (depth >= maxQueue) {
      outcome("rejected");
      throw new PoolError({ code: PoolErrorCode.QUEUE_FULL, waiting: depth, maxQueue }, `server busy: ${depth} execution requests waiting (--rpc.queue ${maxQueue}); retry later`);
    }
    const task = encodeCallRequest(req);
    let bytes: Uint8Array;
    try {
      bytes = await new Promise<Uint8Array>((resolve, reject) => {
        this.waiting.push({ task, state: "queued", settle: { resolve, reject } });
        this.queued++;
        this.pump();
      });
    } catch (e) {
      if (e instanceof PoolError && e.type.code === PoolErrorCode.TIMEOUT) {
        outcome("timeout");
        throw e;
      }
      const msg = (e as Error).message;
      outcome("crashed");
      this.log.warn({ err: e, method: req.method }, "execution worker failed during a request");
      throw new PoolError({ code: PoolErrorCode.WORKER_CRASHED, cause: msg }, `execution worker failed: ${msg}`);
    }
    const reply = decodeCallReply(bytes);
    if ("ok" in reply) {
      outcome("ok");
      return reply.ok;
    }
    outcome(reply.err.code === PoolErrorCode.TIMEOUT ? "timeout" : "error");
    throw errorFromObject(reply.err);
  }

  /**
   * The watchdog of a batch: checks the job its worker is running against the timeout, counted
   * from when the worker started that job (time in piscina's queue, or waiting for a replacement
   * worker, does not count). One past it fails with the timeout, and the batch is aborted: its
   * worker is terminated (the EVM cannot be interrupted from inside) and piscina replaces it, so
   * the batch's other unanswered requests go back to the front of the queue. Batches carry no
   * AbortSignal: piscina runs at most one task with a signal per worker (no second batch posted
   * ahead), and an AbortController per batch outlived young-generation GC on the RPC thread.
   */
  private watch(batch: Batch): void {
    const timeoutMs = this.opts.timeoutMs;
    const index = Atomics.load(batch.progress.index, 0);
    if (batch.aborted === true || index >= batch.jobs.length) return;
    let wait = timeoutMs;
    if (index >= 0) {
      const elapsed = Date.now() - batch.progress.startedAt[0]!;
      if (elapsed >= timeoutMs) {
        const job = batch.jobs[index]!;
        if (job.state === "running") {
          job.state = "done";
          // Built only when it happens: an Error per request (its stack captured) cost the RPC
          // thread 7 % of its time under call load.
          job.settle.reject(new PoolError({ code: PoolErrorCode.TIMEOUT, timeoutMs }, timeoutMessage(timeoutMs)));
        }
        batch.aborted = true;
        this.terminateWorker(Atomics.load(batch.progress.index, 1));
        return;
      }
      wait = timeoutMs - elapsed;
    }
    batch.timer = setTimeout(() => this.watch(batch), wait);
  }

  /**
   * Terminates the worker with thread id `threadId`: piscina then fails its tasks (batchFailed)
   * and starts a replacement. A worker already gone is left alone.
   */
  private terminateWorker(threadId: number): void {
    const worker = this.piscina.threads.find((w) => w.threadId === threadId);
    if (worker !== undefined) void worker.terminate();
  }

  /**
   * Hands queued requests to free worker slots, oldest first, in batches of up to
   * {@link EXECUTION_BATCH_MAX}. Work is given to piscina only when a slot is free, so the order
   * is exactly FIFO (piscina's own queue lets a new task overtake waiting ones whose run has an
   * abort signal) and the queue bound is exact.
   */
  private pump(): void {
    while (this.running < this.opts.threads * EXECUTION_IN_FLIGHT_PER_WORKER && this.waitingHead < this.waiting.length) {
      const jobs: Job[] = [];
      while (jobs.length < EXECUTION_BATCH_MAX && this.waitingHead < this.waiting.length) {
        const job = this.waiting[this.waitingHead]!;
        this.waiting[this.waitingHead++] = undefined as unknown as Job;
        if (job.state === "queued") {
          this.queued--;
          jobs.push(job);
        }
      }
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.waitingHead);
        this.waitingHead = 0;
      }
      if (jobs.length === 0) continue;
      const batch: Batch = { jobs, progress: newProgress() };
      for (const j of jobs) {
        j.state = "running";
        j.batch = batch;
      }
      if (this.opts.timeoutMs > 0) batch.timer = setTimeout(() => this.watch(batch), this.opts.timeoutMs);
      this.running++;
      this.inFlight.add(batch);
      poolBatchRequests.observe(jobs.length);
      this.piscina
        .run({ tasks: frame(jobs.map((j) => j.task)), progress: batch.progress.index.buffer }, { name: "call" })
        .then(
          (r) => {
            const replies = unframe(r as Uint8Array);
            jobs.forEach((j, i) => this.answer(j, replies[i]!));
          },
          (e: unknown) => this.batchFailed(batch, e),
        )
        .finally(() => {
          clearTimeout(batch.timer);
          this.running--;
          this.inFlight.delete(batch);
          this.pump();
        });
    }
  }

  private answer(job: Job, reply: Uint8Array): void {
    if (job.state !== "running") return;
    job.state = "done";
    job.settle.resolve(reply);
  }

  /**
   * A batch ended without answers: aborted for a timed-out request, or lost with its worker
   * before it started (its unanswered requests go back to the front of the queue, in order:
   * reads are safe to run again), or lost with its worker while running (they all fail).
   */
  private batchFailed(batch: Batch, e: unknown): void {
    const pending = batch.jobs.filter((j) => j.state === "running");
    // Not started when its worker went (terminated for another batch's timeout, or crashed on
    // another batch): none of its requests ran, so they run again like an aborted batch's.
    const started = Atomics.load(batch.progress.index, 0) >= 0;
    if (batch.aborted !== true && started) {
      for (const j of pending) {
        j.state = "done";
        j.settle.reject(e);
      }
      return;
    }
    for (const j of pending) {
      j.state = "queued";
      j.batch = undefined;
    }
    this.queued += pending.length;
    this.waiting.splice(this.waitingHead, 0, ...pending);
  }

  /**
   * Recovers the senders' public keys (64 bytes each) of one block's raw transactions on a
   * worker, in order. Used by import to recover the next blocks' senders while the current one
   * executes. Rejects when a signature is invalid.
   */
  async recoverSenders(number: bigint, timestamp: bigint, txs: Uint8Array[]): Promise<Uint8Array[]> {
    const task = encodeSendersTask({ number: number.toString(), timestamp: timestamp.toString(), txs });
    const out = (await this.piscina.run(task, { name: "senders" })) as Uint8Array;
    const keys: Uint8Array[] = [];
    for (let i = 0; i < txs.length; i++) keys.push(out.subarray(i * 64, i * 64 + 64));
    return keys;
  }

  /** Long tasks (witnesses, traces) running and those waiting for a turn, per kind. */
  private readonly lanes = new Map<string, { running: number; turns: Array<() => void> }>();

  /**
   * One long task on a worker (`name` is the worker's export): at most `maxConcurrent` of its
   * kind run at once so calls keep the other threads, `maxQueued` more wait, others are refused;
   * one running past `timeoutMs` has its worker terminated (piscina aborts the task). Resolves
   * with the reply's JSON text.
   */
  private async runLong(name: string, method: string, task: Uint8Array, limits: { maxConcurrent: number; maxQueued: number; timeoutMs: number; what: string }): Promise<string> {
    const started = performance.now();
    const outcome = (o: PoolOutcome): void => {
      poolTasksTotal.inc({ method, outcome: o });
      poolTaskSeconds.observe({ method }, (performance.now() - started) / 1000);
    };
    if (this.closed) throw new PoolError({ code: PoolErrorCode.CLOSED }, "the execution pool is shut down");
    let lane = this.lanes.get(name);
    if (lane === undefined) this.lanes.set(name, (lane = { running: 0, turns: [] }));
    if (lane.running >= limits.maxConcurrent) {
      if (lane.turns.length >= limits.maxQueued) {
        outcome("rejected");
        throw new PoolError(
          { code: PoolErrorCode.QUEUE_FULL, waiting: lane.turns.length, maxQueue: limits.maxQueued },
          `server busy: ${lane.turns.length} ${limits.what} waiting; retry later`,
        );
      }
      await new Promise<void>((resolve) => lane.turns.push(resolve));
    }
    lane.running++;
    let bytes: Uint8Array;
    try {
      bytes = (await this.piscina.run(task, { name, signal: AbortSignal.timeout(limits.timeoutMs) })) as Uint8Array;
    } catch (e) {
      const timedOut = (e as Error).name === "AbortError";
      outcome(timedOut ? "timeout" : "crashed");
      if (timedOut) throw new PoolError({ code: PoolErrorCode.TIMEOUT, timeoutMs: limits.timeoutMs }, "execution aborted (timeout = " + limits.timeoutMs / 1000 + "s)");
      throw new PoolError({ code: PoolErrorCode.WORKER_CRASHED, cause: (e as Error).message }, `execution worker failed: ${(e as Error).message}`);
    } finally {
      lane.running--;
      lane.turns.shift()?.();
    }
    const reply = decodeCallReply(bytes);
    if ("ok" in reply) {
      outcome("ok");
      return reply.ok;
    }
    outcome("error");
    throw errorFromObject(reply.err);
  }

  /**
   * An execution witness (debug_executionWitness, debug_executePayload) on a worker. At most
   * {@link WITNESS_MAX_CONCURRENT} run at once so calls keep the other threads; a witness running
   * past {@link WITNESS_TIMEOUT_MS} has its worker terminated (piscina aborts the task).
   */
  witness(req: WitnessRequest): Promise<string> {
    const method = req.kind === "block" ? "debug_executionWitness" : "debug_executePayload";
    return this.runLong("witness", method, encodeWitnessTask(req), {
      maxConcurrent: WITNESS_MAX_CONCURRENT,
      maxQueued: WITNESS_MAX_QUEUED,
      timeoutMs: WITNESS_TIMEOUT_MS,
      what: "execution witnesses",
    });
  }

  /**
   * A trace (debug_traceTransaction, debug_traceBlock*) on a worker: at most
   * {@link TRACE_MAX_CONCURRENT} at once, {@link TRACE_TASK_TIMEOUT_MS} each; its time is
   * observed in `basalt_execution_trace_seconds` by tracer.
   */
  async trace(method: string, req: TraceRequest): Promise<string> {
    const started = performance.now();
    try {
      return await this.runLong("trace", method, encodeTraceTask(req), {
        maxConcurrent: TRACE_MAX_CONCURRENT,
        maxQueued: TRACE_MAX_QUEUED,
        timeoutMs: TRACE_TASK_TIMEOUT_MS,
        what: "traces",
      });
    } finally {
      traceSeconds.observe({ tracer: tracerNameOf(req) }, (performance.now() - started) / 1000);
    }
  }

  /**
   * A metering (base_meterBundle, base_meterBlockBy*) on a worker: at most
   * {@link METER_MAX_CONCURRENT} at once, {@link METER_TASK_TIMEOUT_MS} each.
   */
  meter(method: string, req: MeterRequest): Promise<string> {
    return this.runLong("meter", method, encodeMeterTask(req), {
      maxConcurrent: METER_MAX_CONCURRENT,
      maxQueued: METER_MAX_QUEUED,
      timeoutMs: METER_TASK_TIMEOUT_MS,
      what: "meterings",
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    bindPoolGauges(undefined);
    for (let i = this.waitingHead; i < this.waiting.length; i++) {
      const j = this.waiting[i];
      if (j !== undefined && j.state === "queued") {
        j.state = "done";
        j.settle.reject(new Error("the execution pool is shut down"));
      }
    }
    this.queued = 0;
    this.waiting = [];
    this.waitingHead = 0;
    await this.piscina.close({ force: true });
  }
}
