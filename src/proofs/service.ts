/**
 * The historical proofs extension on the main thread (`--historical-proofs`): runs the proofs
 * worker (`workers/proofs.ts`, the store's only owner) on a {@link WorkerHost}, tells it about
 * every new head, and forwards proof reads to it. Nothing here touches RocksDB or the EVM.
 *
 * The window's ends are read from shared slots without a message (`proofs/stats.ts`); the
 * worker's counters reach `/metrics` through the host's scrape. A worker that dies is not
 * restarted: reads then fail with `PROOFS_UNAVAILABLE` and the follow mode's gate sees the writer
 * stopped.
 */
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { PROOFS_REQUEST_TIMEOUT_MS, PROOFS_WORKER_STOP_MS } from "./constants.js";
import { WorkerHost, WorkerHostError, WorkerHostErrorCode } from "../util/workerHost.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { TrieProofError } from "./trieErrors.js";
import type { RawAccountProof } from "./reader.js";
import { allocateProofsStats, ProofsStats } from "./stats.js";
import { bindProofsStats } from "./metrics.js";

/** Options of {@link ProofsService}. */
interface ProofsServiceOptions {
  datadir: string;
  /** The store's directory (`--proofs.path`, default `<datadir>/proofs`). */
  path: string;
  /** Blocks kept (`--proofs.history-window`). */
  window: number;
  logLevel: string;
  logFormat: "json" | "pretty";
}

/** What the proofs worker (`workers/proofs.ts`) is given at spawn. */
export interface ProofsWorkerData {
  datadir: string;
  path: string;
  window: number;
  /** The shared slots of the window's ends (`proofs/stats.ts`), which the worker writes. */
  stats: SharedArrayBuffer;
  logLevel: string;
  logFormat: "json" | "pretty";
}

function unavailable(reason: string): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.UNAVAILABLE, reason }, `historical proofs unavailable: ${reason}`);
}

/** The main thread's handle on the proofs worker. */
export class ProofsService {
  private readonly host: WorkerHost;
  private readonly statsSab = allocateProofsStats();
  /** The window's ends and the writer's state, read without a message. */
  readonly stats = new ProofsStats(this.statsSab);
  private offHead: (() => void) | undefined;
  /** Listeners of {@link onLatestChange}. */
  private readonly latestListeners = new Set<() => void>();

  constructor(
    private readonly chain: Chain,
    opts: ProofsServiceOptions,
    log: Logger,
  ) {
    bindProofsStats(this.stats);
    const workerData: ProofsWorkerData = { datadir: opts.datadir, path: opts.path, window: opts.window, stats: this.statsSab, logLevel: opts.logLevel, logFormat: opts.logFormat };
    this.host = new WorkerHost({
      entry: "proofs",
      subsystem: "proofs",
      workerData: { ...workerData },
      log,
      stopGraceMs: PROOFS_WORKER_STOP_MS,
      requestTimeoutMs: PROOFS_REQUEST_TIMEOUT_MS,
      // The store's and the trie walk's typed errors come back as themselves (their codes map to JSON-RPC in rpc/errors.ts).
      errors: [ProofsError, TrieProofError],
      onEvent: (name) => {
        if (name === "latest") this.notifyLatest();
      },
      onExit: () => this.notifyLatest(),
      // A head that moved while the worker was setting up was not noted to it: it looks again once ready.
      onReady: () => void this.host.notify("head"),
    });
  }

  /** Starts the worker; resolves once it has opened the store (rejects with the store's refusal: another chain, corruption). */
  async start(): Promise<void> {
    await this.host.start();
    this.offHead ??= this.chain.onHead(() => void this.host.notify("head"));
  }

  private async request<T>(method: string, params: unknown): Promise<T> {
    try {
      return await this.host.request<T>(method, params);
    } catch (e) {
      if (!(e instanceof WorkerHostError)) throw e;
      throw unavailable(e.type.code === WorkerHostErrorCode.TIMEOUT ? `the proofs worker did not answer within ${e.type.timeoutMs} ms` : "the proofs worker is not running");
    }
  }

  /** eth_getProof at block `number` of the window (`PROOFS_NO_STATE` outside it). */
  proof(address: string, slots: string[], number: bigint): Promise<RawAccountProof> {
    return this.request("proof", { address, keys: slots, block: "0x" + number.toString(16) });
  }

  /**
   * debug_proofsSyncStatus, from the shared slots (no message): the window's ends, and
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
    return this.host.running && this.stats.get("writerStopped") === 0;
  }

  /** Calls `listener` whenever the window's latest block moved or the writer stopped; returns the unsubscribe. */
  onLatestChange(listener: () => void): () => void {
    this.latestListeners.add(listener);
    return () => void this.latestListeners.delete(listener);
  }

  private notifyLatest(): void {
    for (const l of this.latestListeners) l();
  }

  /** Stops the head subscription and the worker (bounded wait: it finishes its turn and closes the store). */
  async stop(): Promise<void> {
    this.offHead?.();
    this.offHead = undefined;
    await this.host.stop();
    this.notifyLatest();
  }
}
