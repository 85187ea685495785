/**
 * The RPC thread's side of flashblocks ingestion: spawns the flashblocks worker, tells it about
 * every canonical head, and serves the pending state it publishes — read straight from the
 * SharedArrayBuffer, no message hop — as the node's {@link PendingSource}.
 *
 * A pending snapshot is only served while its block is ahead of the canonical head; otherwise
 * (stream down and caught up, pending cleared) `pending` answers from `latest`. A worker that
 * dies is replaced after a pause; until then the last state is served under the same rule.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { setFlagsFromString } from "node:v8";
import { PENDING_SNAPSHOT_SLOT_BYTES, FLASHBLOCKS_WORKER_SEMI_SPACE_MB, FLASHBLOCKS_WORKER_RESTART_DELAY_MS, FLASHBLOCKS_WATCH_TIMEOUT_MS, FLASHBLOCKS_WORKER_STOP_MS } from "../config/constants.js";
import { allocateIngestStats, IngestStats } from "./ingestStats.js";
import { bindIngestStats, flashblockExecuteSeconds, flashblockVisibleSeconds, flashblockPublishedSeconds, flashblockDecodeSeconds } from "./ingestMetrics.js";
import { allocatePendingBuffer, PendingBufferReader } from "./pendingBuffer.js";
import type { PendingSnapshot } from "./pendingSnapshot.js";
import { isAheadOfHead, type PendingSource } from "./pendingView.js";
import { nowMs, type StreamClientOptions } from "./streamClient.js";
import { workerUrl } from "../util/workerUrl.js";
import type { EvmEngineName } from "../config/options.js";
import { defaultEvmEngine } from "../execution/evm/engine.js";

/** Options of {@link FlashblocksService}. */
export interface FlashblocksServiceOptions {
  datadir: string;
  url: string;
  logLevel: string;
  logFormat: "json" | "pretty";
  /** The EVM engine flashblocks are re-executed on first (`--evm`); default: this thread's default. */
  evm?: EvmEngineName;
  /** Stream timing overrides (tests). */
  stream?: StreamClientOptions;
}

/** Flashblocks ingestion as seen from the RPC thread. */
export class FlashblocksService implements PendingSource {
  /** The pending block's shared memory; other workers (the execution pool) read it directly. */
  readonly pendingSab = allocatePendingBuffer(PENDING_SNAPSHOT_SLOT_BYTES);
  private readonly statsSab = allocateIngestStats();
  private readonly reader = new PendingBufferReader(this.pendingSab);
  readonly stats = new IngestStats(this.statsSab);
  private worker: Worker | undefined;
  private stopped = false;
  private readonly listeners = new Set<(s: PendingSnapshot) => void>();
  private watching: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  private readonly log: Logger;

  constructor(
    private readonly chain: Chain,
    private readonly opts: FlashblocksServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "flashblocks" });
    bindIngestStats(this.stats);
    chain.onHead(() => this.worker?.postMessage("head"));
  }

  /** Spawns the worker; resolves once it is subscribed. */
  async start(): Promise<void> {
    await this.spawn();
    this.watching ??= this.watch();
  }

  private spawn(): Promise<void> {
    // V8 sizes a heap from its flags when the isolate is created (on the worker's thread, before
    // "online"): the worker gets a larger young generation, and the flag is reset once it runs.
    setFlagsFromString(`--min-semi-space-size=${FLASHBLOCKS_WORKER_SEMI_SPACE_MB}`);
    const worker = new Worker(workerUrl("flashblocks"), {
      workerData: {
        datadir: this.opts.datadir,
        url: this.opts.url,
        pending: this.pendingSab,
        stats: this.statsSab,
        logLevel: this.opts.logLevel,
        logFormat: this.opts.logFormat,
        evm: this.opts.evm ?? defaultEvmEngine(),
        stream: this.opts.stream,
      },
    });
    this.worker = worker;
    const resetHeapFlag = (): void => setFlagsFromString("--min-semi-space-size=0");
    worker.once("online", resetHeapFlag);
    worker.once("exit", resetHeapFlag);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on("message", (m: string) => {
        if (m === "ready") {
          ready = true;
          resolve();
        }
      });
      worker.on("error", (e) => {
        this.log.error({ err: e }, "flashblocks worker failed");
        if (!ready) reject(e);
      });
      worker.on("exit", (code) => {
        if (this.worker === worker) this.worker = undefined;
        if (this.stopped) return;
        this.log.error({ code }, "flashblocks worker exited; restarting");
        this.restartTimer = setTimeout(() => {
          if (!this.stopped) this.spawn().catch((e: unknown) => this.log.error({ err: e }, "flashblocks worker restart failed"));
        }, FLASHBLOCKS_WORKER_RESTART_DELAY_MS);
      });
    });
  }

  /** Follows the generation counter and notifies listeners of each new snapshot ahead of the head. */
  private async watch(): Promise<void> {
    let gen = this.reader.generation();
    while (!this.stopped) {
      const next = await this.reader.waitForChange(gen, FLASHBLOCKS_WATCH_TIMEOUT_MS);
      if (next === gen) continue;
      gen = next;
      const s = this.reader.read();
      if (s === undefined) continue;
      const now = nowMs();
      flashblockExecuteSeconds.observe(Math.max(0, s.executedAt - s.receivedAt) / 1000);
      flashblockVisibleSeconds.observe(Math.max(0, now - s.receivedAt) / 1000);
      const pub = this.reader.lastPublication;
      if (pub !== undefined) {
        flashblockPublishedSeconds.observe(Math.max(0, pub.publishedAt - s.receivedAt) / 1000);
        flashblockDecodeSeconds.observe(pub.decodeMs / 1000);
      }
      if (!this.ahead(s)) continue;
      for (const l of this.listeners) {
        try {
          l(s);
        } catch (e) {
          this.log.debug({ err: e }, "pending snapshot listener failed");
        }
      }
    }
  }

  private ahead(s: PendingSnapshot): boolean {
    return isAheadOfHead(s, this.chain.head.header.number);
  }

  current(): PendingSnapshot | undefined {
    const s = this.reader.read();
    return s !== undefined && this.ahead(s) ? s : undefined;
  }

  /** When the snapshot last handed to listeners was published, and the RPC thread's decode time of it (ms). */
  get lastPublication(): { publishedAt: number; decodeMs: number } | undefined {
    return this.reader.lastPublication;
  }

  onSnapshot(listener: (s: PendingSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the worker (bounded wait) and the watcher. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    const w = this.worker;
    if (w !== undefined) {
      const done = new Promise<void>((resolve) => {
        const t = setTimeout(() => void w.terminate().then(() => resolve()), FLASHBLOCKS_WORKER_STOP_MS);
        w.once("exit", () => {
          clearTimeout(t);
          resolve();
        });
        w.on("message", (m: string) => {
          if (m === "stopped") void w.terminate();
        });
      });
      w.postMessage("stop");
      await done;
    }
    await this.watching;
  }
}
