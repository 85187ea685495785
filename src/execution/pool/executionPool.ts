/**
 * The execution pool: piscina worker threads that run the call family (eth_call,
 * eth_estimateGas, eth_createAccessList) — and recover transaction senders for block import —
 * so the RPC thread never runs the EVM. Each worker opens the LMDB store read-only (LMDB serves
 * every thread of the process from one memory map, as reth's MDBX does) and reads the pending
 * SharedArrayBuffer directly; only msgpack bytes cross the thread boundary.
 *
 * Bounds, all options with defaults in config/constants.ts:
 * - `threads` workers (default: the cores minus the one the RPC thread keeps);
 * - `maxQueue` requests waiting for a worker; beyond it a request is refused at once with
 *   -32005 instead of queueing without bound;
 * - `timeoutMs` per request (geth's `--rpc.evmtimeout`), counted from acceptance: a queued
 *   request that expires leaves the queue; a running one has its worker terminated and
 *   replaced (the EVM cannot be interrupted from inside), and answers geth's
 *   "execution aborted (timeout = …)".
 * A worker that crashes is replaced by piscina; its in-flight request answers -32603 and the
 * others continue.
 */
import { Piscina } from "piscina";
import type { Logger } from "pino";
import { InternalError, LimitExceededError, RpcError, ServerError } from "../../rpc/errors.js";
import type { CallRequest, CallService } from "../callRequest.js";
import type { SenderKeyRecoverer } from "../senderRecovery.js";
import { bindPoolGauges, poolTaskSeconds, poolTasksTotal, poolWorkerRestartsTotal, type PoolOutcome } from "./metrics.js";
import { decodeCallReply, encodeCallTask, encodeSendersTask } from "./protocol.js";
import { workerUrl } from "../../util/workerUrl.js";

/** What every worker is started with (see workers/execution.ts). */
export interface ExecutionWorkerData {
  datadir: string;
  archive: boolean;
  historyBlocks: number;
  /** The flashblocks pending SharedArrayBuffer, when the node ingests a stream. */
  pending?: SharedArrayBuffer;
  logLevel: string;
  logFormat: "json" | "pretty";
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

  constructor(private readonly opts: ExecutionPoolOptions) {
    this.log = opts.logger.child({ subsystem: "execution-pool" });
    this.piscina = new Piscina({
      filename: workerUrl("execution").href,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      // Workers stay up: each one's store handles and caches are what make it fast.
      idleTimeout: 2 ** 31 - 1,
      maxQueue: opts.maxQueue,
      // One request per worker: a worker terminated for a timeout never takes another request with it.
      concurrentTasksPerWorker: 1,
      workerData: opts.worker,
      resourceLimits: { maxOldGenerationSizeMb: opts.workerHeapMb },
    });
    this.piscina.on("workerCreate", () => {
      if (this.started && !this.closed) {
        poolWorkerRestartsTotal.inc();
        this.log.warn("execution worker replaced");
      }
    });
    this.piscina.on("error", (e: Error) => this.log.error({ err: e.message }, "execution worker error"));
    bindPoolGauges({
      queueDepth: () => this.piscina.queueSize,
      busyWorkers: () => Math.max(0, this.piscina.threads.length - this.piscina.idleThreads),
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
    return this.piscina.queueSize;
  }

  async execute(req: CallRequest): Promise<string> {
    const started = performance.now();
    const outcome = (o: PoolOutcome): void => {
      poolTasksTotal.inc({ method: req.method, outcome: o });
      poolTaskSeconds.observe({ method: req.method }, (performance.now() - started) / 1000);
    };
    if (this.closed) throw new InternalError("the execution pool is shut down");
    // Refuse at once when every worker is busy and the queue is full: a fast error, bounded memory.
    if (this.piscina.queueSize >= this.opts.maxQueue && this.piscina.idleThreads === 0) {
      outcome("rejected");
      throw new LimitExceededError(`server busy: ${this.piscina.queueSize} execution requests waiting (--rpc.queue ${this.opts.maxQueue}); retry later`);
    }
    const timeoutMs = this.opts.timeoutMs;
    const abort = timeoutMs > 0 ? new AbortController() : undefined;
    const timer = abort === undefined ? undefined : setTimeout(() => abort.abort(), timeoutMs);
    const task = encodeCallTask({ req, deadline: timeoutMs > 0 ? Date.now() + timeoutMs : 0 });
    let bytes: Uint8Array;
    try {
      bytes = (await this.piscina.run(task, { name: "call", signal: abort?.signal ?? null })) as Uint8Array;
    } catch (e) {
      if (abort?.signal.aborted === true) {
        outcome("timeout");
        throw new ServerError(timeoutMessage(timeoutMs));
      }
      const msg = (e as Error).message;
      if (/queue is at limit|No task queue available/i.test(msg)) {
        outcome("rejected");
        throw new LimitExceededError(`server busy: execution queue full (--rpc.queue ${this.opts.maxQueue}); retry later`);
      }
      outcome("crashed");
      this.log.warn({ err: msg, method: req.method }, "execution worker failed during a request");
      throw new InternalError(`execution worker failed: ${msg}`);
    } finally {
      clearTimeout(timer);
    }
    const reply = decodeCallReply(bytes);
    if ("ok" in reply) {
      outcome("ok");
      return reply.ok;
    }
    outcome(reply.err.code === -32000 && /^execution aborted/.test(reply.err.message) ? "timeout" : "error");
    throw new RpcError(reply.err.code, reply.err.message, reply.err.data);
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
    await this.piscina.close({ force: true });
  }
}
