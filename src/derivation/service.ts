/**
 * L1 derivation on the main thread's side: spawns the derivation worker (`workers/derivation.ts`),
 * applies the attributes it derives to the chain through the engine (`engine.ts`, one at a time),
 * moves the safe head back when the worker says the L1 reorganized under it, moves `finalized` with
 * L1 finality, and keeps the worker's last status for `optimism_syncStatus` and the metrics.
 * The worker is restarted after a crash (it resumes from the safe head, as at start).
 *
 * Derived attributes at or after an upgrade basalt does not implement (`Chain.upgrades`) are not
 * answered until the guard's findings change (or the node stops): the worker waits for that
 * answer, so derivation stops at that block instead of resetting and deriving it again in a loop;
 * `optimism_syncStatus` and the metrics report the stall. Once the findings change, derivation
 * resets from the safe head.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { rollupConfigJson, type RollupConfig } from "../chain/op/rollupConfig.js";
import { DERIVATION_WORKER_RESTART_DELAY_MS } from "../config/constants.js";
import type { LogFormat, LogLevel } from "../config/options.js";
import { BasaltError } from "../util/errors.js";
import { UnknownUpgradeError } from "../chain/errors.js";
import { to0x } from "../util/bytes.js";
import { workerUrl } from "../util/workerUrl.js";
import { stopWorker } from "../util/workerStop.js";
import { applyDerivedAttributes, safeHeadOf } from "./engine.js";
import type { L1BlockRef } from "./batchValidity.js";
import { bindDerivationMetrics } from "./metrics.js";
import { attributesFromWire, decodeMessage, encodeMessage, l1RefFromWire, type MainMessage, type StatusWire, type WorkerMessage } from "./protocol.js";

/** Options of a {@link DerivationService}. */
export interface DerivationServiceOptions {
  datadir: string;
  l1Rpc: string;
  l1Beacon?: string;
  /** Seconds between L1 blocks. */
  l1BlockTimeS: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/** Where derivation stands, for `optimism_syncStatus`. */
export interface DerivationStatus {
  currentL1?: L1BlockRef & { parentHash: Uint8Array };
  headL1?: L1BlockRef & { parentHash: Uint8Array };
  safeL1?: L1BlockRef & { parentHash: Uint8Array };
  finalizedL1?: L1BlockRef & { parentHash: Uint8Array };
  stalled?: string;
}

/** Derivation refused to start (wrong L1, missing L1 blocks). */
export class DerivationStartError extends BasaltError<{ reason: string }> {
  constructor(message: string, reason: string) {
    super("DERIVATION_START_FAILED", message, { reason });
  }
}

/** See the module comment. */
export class DerivationService {
  private worker: Worker | undefined;
  private stopped = false;
  private readonly log: Logger;
  private last: StatusWire = { counters: {} };
  /** Attributes are applied one at a time, in order. */
  private applying: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;
  /** Why derivation is halted at an unknown upgrade (undefined while it is not). */
  private halted: string | undefined;
  /** Aborted by {@link stop}: ends a halt. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly chain: Chain,
    private readonly cfg: RollupConfig,
    private readonly opts: DerivationServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "derivation" });
    bindDerivationMetrics(() => this.last.counters, () => this.status());
  }

  /** The worker's last status. */
  status(): DerivationStatus {
    const s: DerivationStatus = {};
    const w = this.last;
    if (w.currentL1 !== undefined) s.currentL1 = l1RefFromWire(w.currentL1);
    if (w.headL1 !== undefined) s.headL1 = l1RefFromWire(w.headL1);
    if (w.safeL1 !== undefined) s.safeL1 = l1RefFromWire(w.safeL1);
    if (w.finalizedL1 !== undefined) s.finalizedL1 = l1RefFromWire(w.finalizedL1);
    if (w.stalled !== undefined) s.stalled = w.stalled;
    if (this.halted !== undefined) s.stalled = this.halted;
    return s;
  }

  /** The worker's counters (see `stats.ts`). */
  counters(): Record<string, number> {
    return { ...this.last.counters };
  }

  /** Spawns the worker; resolves once derivation has started, rejects with why it could not. */
  start(): Promise<void> {
    return this.spawn();
  }

  /** Tells the worker to start over from the safe head (the safe head was moved by someone else). */
  reset(): void {
    this.send({ t: "reset" });
  }

  private send(m: MainMessage): void {
    this.worker?.postMessage(encodeMessage(m));
  }

  private spawn(): Promise<void> {
    const worker = new Worker(workerUrl("derivation"), {
      workerData: {
        datadir: this.opts.datadir,
        rollupConfig: JSON.stringify(rollupConfigJson(this.cfg)),
        l1Rpc: this.opts.l1Rpc,
        l1Beacon: this.opts.l1Beacon,
        l1BlockTimeS: this.opts.l1BlockTimeS,
        logLevel: this.opts.logLevel,
        logFormat: this.opts.logFormat,
      },
    });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on("message", (bytes: Uint8Array) => {
        const m = decodeMessage<WorkerMessage>(bytes);
        switch (m.t) {
          case "ready":
            started = true;
            resolve();
            break;
          case "fatal":
            if (!started) reject(new DerivationStartError(`derivation cannot start: ${m.message}`, m.code ?? "unknown"));
            else this.log.error({ reason: m.message }, "derivation stopped");
            break;
          case "attributes":
            this.applying = this.applying.then(() => this.apply(m));
            break;
          case "rewind":
            void this.setPointers(m.safeHash, undefined, `safe head back to ${m.number}`);
            break;
          case "finalized":
            void this.setPointers(undefined, m.hash, `finalized ${m.number}`);
            break;
          case "status":
            this.last = m.status;
            break;
          case "stopped":
            break;
        }
      });
      worker.on("error", (e) => {
        this.log.error({ err: e }, "derivation worker failed");
        if (!started) reject(e);
      });
      worker.on("exit", (code) => {
        if (this.worker === worker) this.worker = undefined;
        if (this.stopped || !started) return;
        this.log.error({ code }, "derivation worker exited; restarting");
        this.restartTimer = setTimeout(() => {
          if (!this.stopped) this.spawn().catch((e: unknown) => this.log.error({ err: e }, "derivation worker restart failed"));
        }, DERIVATION_WORKER_RESTART_DELAY_MS);
      });
    });
  }

  private async apply(m: Extract<WorkerMessage, { t: "attributes" }>): Promise<void> {
    try {
      const applied = await applyDerivedAttributes(this.chain, attributesFromWire(m.attributes), m.parentHash, this.log);
      if (applied.result === "replaced" && (applied.reorged ?? 0) > 0) {
        this.log.warn({ number: (BigInt(m.parentNumber) + 1n).toString(), reorged: applied.reorged, field: applied.mismatch }, "derivation replaced unsafe blocks");
      }
      const reply: MainMessage = { t: "applied", id: m.id, result: applied.result };
      if (applied.safeHash !== undefined) reply.safeHash = applied.safeHash;
      this.send(reply);
    } catch (e) {
      if (e instanceof UnknownUpgradeError) {
        // Halted (the guard logged why): the worker waits for this answer until the findings change.
        this.halted = e.message;
        await this.chain.upgrades.changed(this.stopping.signal);
        this.halted = undefined;
        if (this.stopped) return;
        this.send({ t: "applied", id: m.id, result: "reset" });
        return;
      }
      // The chain refused the block (it cannot be built on the safe head): start over from the safe head.
      this.log.error({ err: e, parent: to0x(m.parentHash) }, "derived block could not be applied; derivation resets");
      this.send({ t: "applied", id: m.id, result: "reset" });
    }
  }

  private async setPointers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined, what: string): Promise<void> {
    await this.applying;
    try {
      // Finality never passes the safe head.
      if (finalized !== undefined) {
        const fin = this.chain.getHeaderByHash(finalized);
        if (fin === undefined || !this.chain.isCanonical(finalized) || fin.number > safeHeadOf(this.chain).number) return;
      }
      await this.chain.setHead(this.chain.headHash, safe, finalized);
      this.log.debug({ what }, "derivation moved a pointer");
    } catch (e) {
      this.log.warn({ err: e, what }, "derivation could not move a pointer");
    }
  }

  /** Stops the worker (it finishes its current step). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    const w = this.worker;
    if (w === undefined) return;
    await stopWorker(w, encodeMessage({ t: "stop" }), (bytes) => decodeMessage<WorkerMessage>(bytes).t === "stopped");
    await this.applying;
  }
}
