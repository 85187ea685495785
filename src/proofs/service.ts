/**
 * The historical proofs extension on the main thread (`--historical-proofs`): spawns the proofs
 * worker (`workers/proofs.ts`, the store's only owner), tells it about every new head, and
 * forwards proof reads to it. Nothing here touches RocksDB or the EVM.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { PROOFS_REQUEST_TIMEOUT_MS, PROOFS_WORKER_STOP_MS } from "../config/constants.js";
import { workerUrl } from "../util/workerUrl.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { BasaltError, type BasaltErrorObject } from "../util/errors.js";
import type { RawAccountProof } from "./reader.js";
import { allocateProofsStats, ProofsStats } from "./stats.js";
import { bindProofsStats } from "./metrics.js";

/** Options of {@link ProofsService}. */
export interface ProofsServiceOptions {
  datadir: string;
  /** The store's directory (`--proofs.path`, default `<datadir>/proofs`). */
  path: string;
  /** Blocks kept (`--proofs.history-window`). */
  window: number;
  logLevel: string;
  logFormat: "json" | "pretty";
}

function unavailable(reason: string): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.UNAVAILABLE, reason }, `historical proofs unavailable: ${reason}`);
}

/** An error the worker sent (its `toObject()` form): the store's and the trie walk's typed errors keep their codes. */
function remoteError(o: BasaltErrorObject): BasaltError {
  return o.code.startsWith("PROOFS_") ? ProofsError.fromObject(o) : BasaltError.fromObject(o);
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/** The main thread's handle on the proofs worker. */
export class ProofsService {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly statsSab = allocateProofsStats();
  /** The worker's counters and the window's ends, read without a message. */
  readonly stats = new ProofsStats(this.statsSab);
  private offHead: (() => void) | undefined;
  /** Listeners of {@link onLatestChange}. */
  private readonly latestListeners = new Set<() => void>();
  private running = false;

  constructor(
    private readonly chain: Chain,
    private readonly opts: ProofsServiceOptions,
    private readonly log: Logger,
  ) {
    bindProofsStats(this.stats);
  }

  /** Starts the worker; resolves once it has opened the store (rejects with the store's refusal: another chain, corruption). */
  async start(): Promise<void> {
    const worker = new Worker(workerUrl("proofs"), {
      workerData: { datadir: this.opts.datadir, path: this.opts.path, window: this.opts.window, stats: this.statsSab, logLevel: this.opts.logLevel, logFormat: this.opts.logFormat },
    });
    this.worker = worker;
    this.running = true;
    await new Promise<void>((resolve, reject) => {
      worker.on("message", (m: string) => {
        if (m === "ready") return resolve();
        if (m === "stopped") return;
        if (m === "latest") return this.notifyLatest();
        const msg = JSON.parse(m) as { id?: number; result?: unknown; error?: BasaltErrorObject; fatal?: BasaltErrorObject };
        if (msg.fatal !== undefined) return reject(remoteError(msg.fatal));
        const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
        if (p === undefined) return;
        this.pending.delete(msg.id!);
        clearTimeout(p.timer);
        if (msg.error !== undefined) p.reject(remoteError(msg.error));
        else p.resolve(msg.result);
      });
      worker.on("error", (e) => {
        this.log.error({ err: e }, "proofs worker failed");
        reject(e);
      });
      worker.on("exit", () => {
        for (const [, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(unavailable("the proofs worker is not running"));
        }
        this.pending.clear();
        this.running = false;
        this.notifyLatest();
      });
    });
    this.offHead = this.chain.onHead(() => this.worker?.postMessage("head"));
  }

  private request<T>(body: Record<string, unknown>): Promise<T> {
    const w = this.worker;
    if (w === undefined) return Promise.reject(unavailable("the proofs worker is not running"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(unavailable(`the proofs worker did not answer within ${PROOFS_REQUEST_TIMEOUT_MS} ms`));
      }, PROOFS_REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      w.postMessage(JSON.stringify({ id, ...body }));
    });
  }

  /** eth_getProof at block `number` of the window (`PROOFS_NO_STATE` outside it). */
  proof(address: string, slots: string[], number: bigint): Promise<RawAccountProof> {
    return this.request({ method: "proof", address, keys: slots, block: "0x" + number.toString(16) });
  }

  /**
   * debug_proofsSyncStatus, from the shared counters (no message): the window's ends, and
   * `backfillStoppedAt` when its backward extension stopped there because the main store keeps
   * no older state history.
   */
  status(): { earliest: number | null; latest: number | null; backfillStoppedAt?: number } {
    const e = this.stats.get("earliest");
    const l = this.stats.get("latest");
    const stopped = this.stats.get("backfillStoppedAt");
    return { earliest: e < 0 ? null : e, latest: l < 0 ? null : l, ...(stopped < 0 ? {} : { backfillStoppedAt: stopped }) };
  }

  /** The window's latest block, null while the store initializes (read from the shared slots). */
  latestBlock(): bigint | null {
    const l = this.stats.get("latest");
    return l < 0 ? null : BigInt(l);
  }

  /** Whether the store's writer is running: false once it stopped on an error or the worker exited (the window will not move again). */
  writing(): boolean {
    return this.running && this.stats.get("writerStopped") === 0;
  }

  /** Calls `listener` whenever the window's latest block moved or the writer stopped; returns the unsubscribe. */
  onLatestChange(listener: () => void): () => void {
    this.latestListeners.add(listener);
    return () => void this.latestListeners.delete(listener);
  }

  private notifyLatest(): void {
    for (const l of this.latestListeners) l();
  }

  /** Stops the worker (bounded wait). */
  async stop(): Promise<void> {
    this.offHead?.();
    const w = this.worker;
    this.worker = undefined;
    if (w === undefined) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => void w.terminate().then(() => resolve()), PROOFS_WORKER_STOP_MS);
      w.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
      w.on("message", (m: string) => {
        if (m === "stopped") void w.terminate();
      });
      w.postMessage("stop");
    });
  }
}
