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
 * - `timeoutMs` per request (geth's `--rpc.evmtimeout`), counted from acceptance: a queued
 *   request that expires leaves the queue; a running one has its worker terminated and
 *   replaced (the EVM cannot be interrupted from inside), and fails with `POOL_TIMEOUT`
 *   (geth's "execution aborted (timeout = …)").
 * A worker that crashes is replaced by piscina; its in-flight request fails with
 * `POOL_WORKER_CRASHED` (-32603) and the others continue.
 */
import { Piscina } from "piscina";
import type { Logger } from "pino";
import type { CallRequest, CallService } from "../callRequest.js";
import type { SenderKeyRecoverer } from "../senderRecovery.js";
import { bindPoolGauges, poolTaskSeconds, poolTasksTotal, poolWorkerRestartsTotal, type PoolOutcome } from "./metrics.js";
import { PoolError, PoolErrorCode } from "./errors.js";
import { decodeCallReply, encodeCallTask, encodeSendersTask, reviveError } from "./protocol.js";
import { workerUrl } from "../../util/workerUrl.js";
import type { EvmEngineName } from "../../config/options.js";
import { EXECUTION_IN_FLIGHT_PER_WORKER } from "../../config/constants.js";

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
  abort: AbortController;
  /** queued → running, or queued → expired (the timeout fired while it waited). */
  state: "queued" | "running" | "expired";
  settle?: { resolve(bytes: Uint8Array): void; reject(e: unknown): void };
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
  /** Call requests handed to piscina (at most {@link EXECUTION_IN_FLIGHT_PER_WORKER} per worker). */
  private running = 0;

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
      // One request per worker: a worker terminated for a timeout never takes another request with it.
      concurrentTasksPerWorker: 1,
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
    return this.waiting.length - this.waitingHead;
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
    const timeoutMs = this.opts.timeoutMs;
    const task = encodeCallTask({ req, deadline: timeoutMs > 0 ? Date.now() + timeoutMs : 0 });
    const job: Job = { task, abort: new AbortController(), state: "queued" };
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            // Waiting: it leaves the queue. Running: its worker is terminated (piscina replaces it).
            if (job.state === "queued") job.state = "expired";
            job.abort.abort();
          }, timeoutMs)
        : undefined;
    let bytes: Uint8Array;
    try {
      bytes = await new Promise<Uint8Array>((resolve, reject) => {
        job.settle = { resolve, reject };
        this.waiting.push(job);
        this.pump();
      });
    } catch (e) {
      if (job.abort.signal.aborted) {
        outcome("timeout");
        throw new PoolError({ code: PoolErrorCode.TIMEOUT, timeoutMs }, timeoutMessage(timeoutMs));
      }
      const msg = (e as Error).message;
      outcome("crashed");
      this.log.warn({ err: e, method: req.method }, "execution worker failed during a request");
      throw new PoolError({ code: PoolErrorCode.WORKER_CRASHED, cause: msg }, `execution worker failed: ${msg}`);
    } finally {
      clearTimeout(timer);
    }
    const reply = decodeCallReply(bytes);
    if ("ok" in reply) {
      outcome("ok");
      return reply.ok;
    }
    outcome(reply.err.code === PoolErrorCode.TIMEOUT ? "timeout" : "error");
    throw reviveError(reply.err);
  }

  /**
   * Hands queued requests to free workers, oldest first. Requests are given to piscina only
   * when a worker is free, so the order is exactly FIFO (piscina's own queue lets a new task
   * overtake waiting ones whose run has an abort signal) and the bound is exact.
   */
  private pump(): void {
    while (this.running < this.opts.threads * EXECUTION_IN_FLIGHT_PER_WORKER && this.waitingHead < this.waiting.length) {
      const job = this.waiting[this.waitingHead]!;
      this.waiting[this.waitingHead++] = undefined as unknown as Job;
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.waitingHead);
        this.waitingHead = 0;
      }
      if (job.state === "expired") {
        job.settle?.reject(new Error("expired in the queue"));
        continue;
      }
      job.state = "running";
      this.running++;
      this.piscina.run(job.task, { name: "call", signal: job.abort.signal }).then(
        (r) => job.settle?.resolve(r as Uint8Array),
        (e: unknown) => job.settle?.reject(e),
      ).finally(() => {
        this.running--;
        this.pump();
      });
    }
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    bindPoolGauges(undefined);
    for (let i = this.waitingHead; i < this.waiting.length; i++) this.waiting[i]?.settle?.reject(new Error("the execution pool is shut down"));
    this.waiting = [];
    this.waitingHead = 0;
    await this.piscina.close({ force: true });
  }
}
