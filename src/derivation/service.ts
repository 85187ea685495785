/**
 * L1 derivation on the main thread's side: runs the derivation worker (`workers/derivation.ts`) on
 * the worker host (`util/workerHost.ts`), applies the attributes it derives to the chain through
 * the engine (`engine.ts`, one at a time), moves the safe head back when the worker says the L1
 * reorganized under it, moves `finalized` with L1 finality, and keeps the worker's last status for
 * `optimism_syncStatus` and the status gauges (the worker's counters reach `/metrics` through the
 * host's scrape). The host restarts a crashed worker (it resumes from the safe head, as at start).
 *
 * Derived attributes at or after an upgrade basalt does not implement (`Chain.upgrades`) are not
 * answered until the guard's findings change (or the node stops): the worker waits for that
 * answer, so derivation stops at that block instead of resetting and deriving it again in a loop;
 * `optimism_syncStatus` and the metrics report the stall. Once the findings change, derivation
 * resets from the safe head.
 */
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { rollupConfigJson, type RollupConfig } from "../chain/op/rollupConfig.js";
import type { LogFormat, LogLevel } from "../config/options.js";
import { UnknownUpgradeError } from "../chain/errors.js";
import { to0x } from "../util/bytes.js";
import { WorkerHost } from "../util/workerHost.js";
import { DERIVATION_WORKER_RESTART, DERIVATION_WORKER_STOP_GRACE_MS } from "./constants.js";
import { applyDerivedAttributes, safeHeadOf } from "./engine.js";
import type { L1BlockRef } from "./batchValidity.js";
import { bindDerivationStatus } from "./metrics.js";
import { attributesFromWire, DerivationStartError, l1RefFromWire, type DerivationEvents, type DerivationNotes, type StatusWire } from "./protocol.js";

export { DerivationStartError } from "./protocol.js";

/** Options of a {@link DerivationService}. */
interface DerivationServiceOptions {
  datadir: string;
  l1Rpc: string;
  l1Beacon?: string;
  /** Seconds between L1 blocks. */
  l1BlockTimeS: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/** Where derivation stands, for `optimism_syncStatus`. */
interface DerivationStatus {
  currentL1?: L1BlockRef & { parentHash: Uint8Array };
  headL1?: L1BlockRef & { parentHash: Uint8Array };
  safeL1?: L1BlockRef & { parentHash: Uint8Array };
  finalizedL1?: L1BlockRef & { parentHash: Uint8Array };
  stalled?: string;
}

/** See the module comment. */
export class DerivationService {
  private readonly host: WorkerHost;
  private stopped = false;
  private readonly log: Logger;
  private last: StatusWire = {};
  /** Attributes are applied one at a time, in order. */
  private applying: Promise<void> = Promise.resolve();
  /** Why derivation is halted at an unknown upgrade (undefined while it is not). */
  private halted: string | undefined;
  /** Aborted by {@link stop}: ends a halt. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly chain: Chain,
    cfg: RollupConfig,
    opts: DerivationServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "derivation" });
    bindDerivationStatus(() => ({ ...this.status(), ...(this.last.safeNumber === undefined ? {} : { safeNumber: this.last.safeNumber }) }));
    this.host = new WorkerHost({
      entry: "derivation",
      subsystem: "derivation",
      log: this.log,
      workerData: {
        datadir: opts.datadir,
        rollupConfig: JSON.stringify(rollupConfigJson(cfg)),
        l1Rpc: opts.l1Rpc,
        l1Beacon: opts.l1Beacon,
        l1BlockTimeS: opts.l1BlockTimeS,
        logLevel: opts.logLevel,
        logFormat: opts.logFormat,
      },
      stopGraceMs: DERIVATION_WORKER_STOP_GRACE_MS,
      restart: DERIVATION_WORKER_RESTART,
      errors: [DerivationStartError],
      onEvent: (name, payload) => this.onEvent(name as keyof DerivationEvents, payload),
    });
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

  /** Starts the worker; resolves once derivation has started, rejects with why it could not ({@link DerivationStartError}). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.host.start();
  }

  /** Tells the worker to start over from the safe head (the safe head was moved by someone else). */
  reset(): void {
    this.host.notify("reset");
  }

  private send<K extends keyof DerivationNotes>(name: K, payload: DerivationNotes[K]): void {
    this.host.notify(name, payload);
  }

  private onEvent(name: keyof DerivationEvents, payload: unknown): void {
    switch (name) {
      case "attributes": {
        const m = payload as DerivationEvents["attributes"];
        this.applying = this.applying.then(() => this.apply(m));
        return;
      }
      case "rewind": {
        const m = payload as DerivationEvents["rewind"];
        void this.setPointers(m.safeHash, undefined, `safe head back to ${m.number}`);
        return;
      }
      case "finalized": {
        const m = payload as DerivationEvents["finalized"];
        void this.setPointers(undefined, m.hash, `finalized ${m.number}`);
        return;
      }
      case "status":
        this.last = payload as StatusWire;
        return;
    }
  }

  private async apply(m: DerivationEvents["attributes"]): Promise<void> {
    try {
      const applied = await applyDerivedAttributes(this.chain, attributesFromWire(m.attributes), m.parentHash, this.log);
      if (applied.result === "replaced" && (applied.reorged ?? 0) > 0) {
        this.log.warn({ number: (BigInt(m.parentNumber) + 1n).toString(), reorged: applied.reorged, field: applied.mismatch }, "derivation replaced unsafe blocks");
      }
      const reply: DerivationNotes["applied"] = { id: m.id, result: applied.result };
      if (applied.safeHash !== undefined) reply.safeHash = applied.safeHash;
      this.send("applied", reply);
    } catch (e) {
      if (e instanceof UnknownUpgradeError) {
        // Halted (the guard logged why): the worker waits for this answer until the findings change.
        this.halted = e.message;
        await this.chain.upgrades.changed(this.stopping.signal);
        this.halted = undefined;
        if (this.stopped) return;
        this.send("applied", { id: m.id, result: "reset" });
        return;
      }
      // The chain refused the block (it cannot be built on the safe head): start over from the safe head.
      this.log.error({ err: e, parent: to0x(m.parentHash) }, "derived block could not be applied; derivation resets");
      this.send("applied", { id: m.id, result: "reset" });
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

  /** Stops the worker (it finishes its current step and closes its store). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.host.stop();
    await this.applying;
  }
}
