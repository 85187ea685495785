/**
 * The RPC thread's side of flashblocks ingestion: runs the flashblocks worker on a
 * {@link WorkerHost}, tells it about every canonical head, and serves the pending state it
 * publishes — read straight from the SharedArrayBuffer, no message hop — as the node's
 * {@link PendingSource}.
 *
 * A pending snapshot is only served while its block is ahead of the canonical head; otherwise
 * (stream down and caught up, pending cleared) `pending` answers from `latest`. A worker that
 * dies is replaced after a pause (doubling while it keeps dying); until then the last state is
 * served under the same rule. The worker's counters reach `/metrics` through the host's scrape.
 */
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { setFlagsFromString } from "node:v8";
import { FLASHBLOCKS_WORKER_RESTART_MAX_DELAY_MS, FLASHBLOCKS_WORKER_STABLE_MS, PENDING_SNAPSHOT_SLOT_BYTES, FLASHBLOCKS_WORKER_SEMI_SPACE_MB, FLASHBLOCKS_WORKER_RESTART_DELAY_MS, FLASHBLOCKS_WATCH_TIMEOUT_MS, FLASHBLOCKS_WORKER_STOP_MS } from "./constants.js";
import { registerIngestCounters } from "./ingestStats.js";
import { flashblockExecuteSeconds, flashblockVisibleSeconds, flashblockPublishedSeconds, flashblockDecodeSeconds } from "./ingestMetrics.js";
import { allocatePendingBuffer, PendingBufferReader } from "./pendingBuffer.js";
import type { PendingSnapshot } from "./pendingSnapshot.js";
import { isAheadOfHead, type PendingSource } from "./pendingView.js";
import { nowMs, type StreamClientOptions } from "./streamClient.js";
import { WorkerHost } from "../util/workerHost.js";
import type { EvmEngineName } from "../config/options.js";
import { defaultEvmEngine } from "../execution/evm/engine.js";

/** Options of {@link FlashblocksService}. */
interface FlashblocksServiceOptions {
  datadir: string;
  url: string;
  logLevel: string;
  logFormat: "json" | "pretty";
  /** The EVM engine flashblocks are re-executed on first (`--evm`); default: this thread's default. */
  evm?: EvmEngineName;
  /** Stream timing overrides (tests). */
  stream?: StreamClientOptions;
}

/** What the flashblocks worker (`workers/flashblocks.ts`) is given at spawn. */
export interface FlashblocksWorkerData {
  datadir: string;
  url: string;
  /** The pending block's shared memory, which the worker writes. */
  pending: SharedArrayBuffer;
  logLevel: string;
  logFormat: "json" | "pretty";
  evm: EvmEngineName;
  stream?: StreamClientOptions;
}

/** Flashblocks ingestion as seen from the RPC thread. */
export class FlashblocksService implements PendingSource {
  /** The pending block's shared memory; other workers (the execution pool) read it directly. */
  readonly pendingSab = allocatePendingBuffer(PENDING_SNAPSHOT_SLOT_BYTES);
  private readonly reader = new PendingBufferReader(this.pendingSab);
  private readonly host: WorkerHost;
  private stopped = false;
  private readonly listeners = new Set<(s: PendingSnapshot) => void>();
  private watching: Promise<void> | undefined;
  private offHead: (() => void) | undefined;

  private readonly log: Logger;

  constructor(
    private readonly chain: Chain,
    opts: FlashblocksServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "flashblocks" });
    registerIngestCounters();
    const workerData: FlashblocksWorkerData = {
      datadir: opts.datadir,
      url: opts.url,
      pending: this.pendingSab,
      logLevel: opts.logLevel,
      logFormat: opts.logFormat,
      evm: opts.evm ?? defaultEvmEngine(),
      stream: opts.stream,
    };
    this.host = new WorkerHost({
      entry: "flashblocks",
      subsystem: "flashblocks",
      workerData: { ...workerData },
      log: this.log,
      stopGraceMs: FLASHBLOCKS_WORKER_STOP_MS,
      restart: { initialDelayMs: FLASHBLOCKS_WORKER_RESTART_DELAY_MS, maxDelayMs: FLASHBLOCKS_WORKER_RESTART_MAX_DELAY_MS, stableMs: FLASHBLOCKS_WORKER_STABLE_MS },
      // A head that moved while the worker was setting up was not noted to it: it re-reads the head once ready.
      onReady: () => void this.host.notify("head"),
      // V8 sizes a heap from its flags when the isolate is created (on the worker's thread, before
      // "online"): the worker gets a larger young generation, and the flag is reset once it runs.
      aroundSpawn: {
        before: () => setFlagsFromString(`--min-semi-space-size=${FLASHBLOCKS_WORKER_SEMI_SPACE_MB}`),
        after: () => setFlagsFromString("--min-semi-space-size=0"),
      },
    });
  }

  /** Spawns the worker; resolves once it is subscribed. */
  async start(): Promise<void> {
    this.stopped = false;
    this.offHead ??= this.chain.onHead(() => void this.host.notify("head"));
    await this.host.start();
    this.watching ??= this.watch();
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

  /** Stops the worker (bounded wait: it drains and closes its store), the head subscription and the watcher. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.offHead?.();
    this.offHead = undefined;
    await this.host.stop();
    await this.watching;
  }
}
