/**
 * The derivation loop (run in the derivation worker): steps the {@link DerivationPipeline},
 * hands attributes to the engine (the main thread), waits for L1 blocks without polling faster
 * than they come, follows L1 finality, retries what failed on the L1 or beacon side with a
 * backoff, and reports its status.
 *
 * L1 requests: one `eth_getBlockByNumber` (full transactions) per L1 block, `eth_getBlockReceipts`
 * only for blocks whose bloom may hold the portal's or SystemConfig's logs, one beacon request per
 * block with batcher blobs; at the L1 head one poll per expected L1 block; `latest` at most once
 * per L1 block time while catching up; `finalized` every {@link DERIVATION_FINALITY_POLL_L1_BLOCKS}.
 */
import type { Logger } from "pino";
import { equalsBytes } from "@ethereumjs/util";
import { DERIVATION_CRITICAL_RETRY_MS, DERIVATION_FINALITY_POLL_L1_BLOCKS, DERIVATION_HEAD_POLL_MARGIN_MS, DERIVATION_MIN_POLL_MS, DERIVATION_RETRY_MAX_MS, DERIVATION_RETRY_MIN_MS, DERIVATION_STEPS_PER_YIELD, DERIVATION_WARN_INTERVAL_MS } from "./constants.js";
import type { RollupConfig } from "../chain/op/rollupConfig.js";
import { BasaltError } from "../util/errors.js";
import { to0x } from "../util/bytes.js";
import type { L1BlockRef } from "./batchValidity.js";
import { BlobError, BlobErrorCode } from "./blobErrors.js";
import { DerivationError } from "./errors.js";
import { L1InputError } from "./l1InputErrors.js";
import type { L1Block, L1BlockInfo } from "./l1Source.js";
import { l2RefOf } from "./l2Refs.js";
import { DerivationPipeline, type PipelineL1, type PipelineL2, type PipelineStep } from "./pipeline.js";
import type { AppliedResult } from "./protocol.js";
import type { BlobSource } from "./retrieval.js";
import { Counters } from "../util/counters.js";

/** The engine as the driver sees it (the main thread, over messages). */
interface DriverEngine {
  /** Applies one block's attributes on `parentHash`; resolves with the result and the new safe head. */
  apply(step: Extract<PipelineStep, { kind: "attributes" }>): Promise<{ result: AppliedResult; safeHash?: Uint8Array }>;
  /** The safe head went back (L1 reorg) to `hash`. */
  rewind(hash: Uint8Array, number: bigint): void;
  /** L2 block `hash` is final (derived from finalized L1 data). */
  finalize(hash: Uint8Array, number: bigint): void;
}

/** The status the driver reports. */
export interface DriverStatus {
  currentL1?: L1BlockRef & { parentHash: Uint8Array };
  headL1?: L1BlockRef & { parentHash: Uint8Array };
  safeL1?: L1BlockRef & { parentHash?: Uint8Array };
  finalizedL1?: L1BlockRef & { parentHash: Uint8Array };
  stalled?: string;
}

/** Options of a {@link DerivationDriver}. */
interface DriverOptions {
  /** Seconds between L1 blocks (12 on Ethereum; a local L1's slot time). */
  l1BlockTimeS: number;
  logger: Logger;
  /** Called whenever the status changed. */
  onStatus?(status: DriverStatus, counters: Counters): void;
  /** The L1 chain id the RPC serves, checked at start (skipped when undefined). */
  l1ChainId?: () => Promise<bigint>;
}

const refOf = (i: L1BlockInfo): L1BlockRef & { parentHash: Uint8Array } => ({ number: i.number, hash: i.hash, timestamp: i.timestamp, parentHash: i.parentHash });
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });

/** Whether an error is the L1's or the beacon's (retry), rather than derivation's own. */
function kindOf(e: unknown): "critical" | "fatal" | "beacon" | "kzg" | "l1" {
  if (e instanceof L1InputError && e.type.code === "L1_INPUT_BAD_DEPOSIT_LOG") return "critical";
  if (e instanceof DerivationError) return "fatal";
  if (e instanceof BlobError) return e.code === BlobErrorCode.KZG_MISMATCH ? "kzg" : "beacon";
  if (e instanceof BasaltError && e.code === "DERIVATION_NO_BEACON") return "beacon";
  return "l1";
}

/** See the module comment. */
export class DerivationDriver {
  readonly counters = new Counters();
  private readonly pipeline: DerivationPipeline;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private readonly status: DriverStatus = {};
  private lastHeadCheck = 0;
  private lastFinalityL1 = -1n;
  private lastWarn = new Map<string, number>();
  private running: Promise<void> | undefined;
  private resetRequested: string | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: PipelineL1,
    blobs: BlobSource | undefined,
    private readonly l2: PipelineL2,
    private readonly engine: DriverEngine,
    private readonly opts: DriverOptions,
  ) {
    this.log = opts.logger.child({ subsystem: "derivation" });
    const c = this.counters;
    this.pipeline = new DerivationPipeline(cfg, l1, blobs, l2, {
      l1BlockRead: (_l1, receipts) => {
        c.inc("l1Blocks");
        if (!receipts) c.inc("receiptsSkipped");
      },
      retrieved: (l1, d) => {
        c.inc("frames:read", d.frames.length);
        c.inc("blobs", d.blobs);
        c.inc("batcherItems", d.items);
        c.inc("ignoredItems", d.ignored);
        if (d.unauthorized > 0) {
          c.inc("unauthorizedTxs", d.unauthorized);
          this.warnOnce("unauthorized", { l1: l1.number.toString(), count: d.unauthorized }, "batch inbox transactions from a sender other than the batcher ignored");
        }
        for (const drop of d.dropped) {
          c.inc(`itemsDropped:${drop.reason}`);
          this.warnOnce(`item:${drop.reason}`, { l1: l1.number.toString(), kind: drop.kind, reason: drop.reason }, "batcher data dropped");
          this.log.debug({ l1: l1.number.toString(), message: drop.message }, "batcher data dropped: detail");
        }
      },
      framesDropped: (drop, l1) => {
        c.inc(`channels:${drop.reason}`);
        c.inc("frames:dropped", drop.frames);
        this.warnOnce(`channel:${drop.reason}`, { l1: l1.number.toString(), reason: drop.reason, frames: drop.frames, channel: to0x(drop.channelId) }, "channel frames dropped");
      },
      channelRead: (outcome, batches, error) => {
        c.inc(`channels:${outcome === "ready" ? "read" : "readError"}`);
        c.inc("batches:read", batches);
        if (error !== undefined) {
          this.warnOnce("channelReadError", { batches }, "channel read stopped early: keeping the batches before the problem");
          this.log.debug({ error }, "channel read error: detail");
        }
      },
      batchDropped: (reason, blocks) => {
        c.inc(`batchesDropped:${reason}`);
        this.warnOnce(`batch:${reason}`, { reason, blocks }, "batch dropped (and the rest of its channel)");
      },
    });
  }

  /** Logs at warn once per key and interval (drops are counted every time). */
  private warnOnce(key: string, fields: Record<string, unknown>, msg: string): void {
    const now = Date.now();
    const last = this.lastWarn.get(key);
    if (last !== undefined && now - last < DERIVATION_WARN_INTERVAL_MS) return;
    this.lastWarn.set(key, now);
    this.log.warn(fields, msg);
  }

  private report(): void {
    this.opts.onStatus?.({ ...this.status }, this.counters);
  }

  /** Starts the loop (resolves once the first reset succeeded, or rejects with a fatal error). */
  async start(): Promise<void> {
    if (this.opts.l1ChainId !== undefined) {
      const id = await this.opts.l1ChainId();
      if (id !== this.cfg.l1ChainId) {
        throw new DerivationError({ code: "DERIVATION_WRONG_L1_CHAIN", expected: this.cfg.l1ChainId.toString(), got: id.toString() }, `--l1.rpc serves chain ${id}, but the rollup settles on L1 chain ${this.cfg.l1ChainId}`);
      }
    }
    await this.resetWithRetry(true, "start");
    this.running = this.loop().catch((e: unknown) => this.log.error({ err: e }, "derivation stopped"));
  }

  /** Asks for a reset at the next step (the safe head was moved by someone else). */
  requestReset(): void {
    this.resetRequested = "requested";
    this.wake?.();
  }

  /** Stops the loop after the current step. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async resetWithRetry(first: boolean, cause: string): Promise<void> {
    let delay = DERIVATION_RETRY_MIN_MS;
    for (;;) {
      try {
        const r = await this.pipeline.reset();
        this.counters.inc(`resets:${cause}`);
        if (r.rewound) {
          this.log.warn({ safe: r.safe.number.toString(), hash: to0x(r.safe.hash) }, "L1 reorganized under the safe chain: the safe head goes back");
          this.engine.rewind(r.safe.hash, r.safe.number);
        }
        // A safe head this run did not derive was derived from L1 blocks at or below today's L1 head.
        if (this.pipeline.derivedFromOf(r.safe.number) === undefined) {
          const head = await this.l1.blockByNumber("latest");
          if (head !== undefined) this.pipeline.recordDerivedFrom(r.safe, refOf(head.info));
        }
        this.status.currentL1 = this.pipeline.currentL1;
        this.status.safeL1 = this.pipeline.derivedFromOf(r.safe.number);
        if (first) this.log.info({ safe: r.safe.number.toString(), l1Start: r.start.number.toString() }, "derivation started");
        else this.log.debug({ safe: r.safe.number.toString(), l1Start: r.start.number.toString() }, "derivation reset");
        delete this.status.stalled;
        this.report();
        return;
      } catch (e) {
        if (kindOf(e) === "fatal" && first) throw e;
        this.counters.inc(`errors:${kindOf(e)}`);
        this.status.stalled = (e as Error).message;
        this.report();
        this.warnOnce(`reset:${kindOf(e)}`, { err: e }, "derivation reset failed; retrying");
        await sleep(delay, this.abort.signal);
        if (this.abort.signal.aborted) return;
        delay = Math.min(delay * 2, DERIVATION_RETRY_MAX_MS);
      }
    }
  }

  private async loop(): Promise<void> {
    let delay = DERIVATION_RETRY_MIN_MS;
    let steps = 0;
    while (!this.abort.signal.aborted) {
      if (this.resetRequested !== undefined) {
        const cause = this.resetRequested;
        this.resetRequested = undefined;
        await this.resetWithRetry(false, cause);
        continue;
      }
      let step: PipelineStep;
      const originBefore = this.pipeline.currentL1?.number;
      try {
        step = await this.pipeline.step();
        delay = DERIVATION_RETRY_MIN_MS;
        if (this.status.stalled !== undefined) {
          delete this.status.stalled;
          this.log.info("derivation resumed");
        }
      } catch (e) {
        const kind = kindOf(e);
        this.counters.inc(`errors:${kind}`);
        if (kind === "kzg") this.counters.inc("kzgFailures");
        this.status.stalled = (e as Error).message;
        this.report();
        if (kind === "critical") {
          this.warnOnce("critical", { err: e }, "derivation cannot go past this L1 block (critical); retrying from a reset later");
          await sleep(DERIVATION_CRITICAL_RETRY_MS, this.abort.signal);
          this.resetRequested = "critical";
          continue;
        }
        this.warnOnce(`step:${kind}`, { err: e }, kind === "l1" ? "L1 RPC request failed; retrying" : "blobs unavailable from the beacon API; retrying");
        await sleep(delay, this.abort.signal);
        delay = Math.min(delay * 2, DERIVATION_RETRY_MAX_MS);
        continue;
      }
      switch (step.kind) {
        case "attributes": {
          const res = await this.engine.apply(step);
          if (res.result === "reset" || res.safeHash === undefined) {
            this.resetRequested = "engine";
            break;
          }
          const block = this.l2.getBlockByHash(res.safeHash);
          if (block === undefined) {
            this.resetRequested = "engine";
            break;
          }
          const safe = l2RefOf(block, this.cfg);
          this.pipeline.onSafeHead(safe, step.systemConfig, step.derivedFrom, res.result === "depositsOnly");
          this.counters.inc(`blocks:${res.result}`);
          if (step.empty) this.counters.inc("blocks:emptyBatch");
          this.status.safeL1 = step.derivedFrom;
          this.counters.set("safeNumber", Number(safe.number));
          this.report();
          break;
        }
        case "reset":
          this.log.warn({ reason: step.reason }, "derivation resets");
          this.resetRequested = "l1Reorg";
          break;
        case "idle":
          this.status.currentL1 = this.pipeline.currentL1;
          this.status.headL1 = this.pipeline.currentL1;
          this.report();
          await this.waitForNextL1();
          break;
        case "progress":
          break;
      }
      const origin = this.pipeline.currentL1;
      if (origin !== undefined && origin.number !== originBefore) {
        this.status.currentL1 = origin;
        await this.checkHead(origin);
        await this.checkFinality();
        this.report();
      }
      if (++steps % DERIVATION_STEPS_PER_YIELD === 0) await new Promise((r) => setImmediate(r));
    }
  }

  /** While catching up: the L1 head, at most once per L1 block time. */
  private async checkHead(origin: L1BlockRef & { parentHash: Uint8Array }): Promise<void> {
    const now = Date.now();
    if (this.status.headL1 !== undefined && this.status.headL1.number > origin.number && now - this.lastHeadCheck < this.opts.l1BlockTimeS * 1000) return;
    this.lastHeadCheck = now;
    try {
      const head = await this.l1.blockByNumber("latest");
      if (head !== undefined) this.status.headL1 = refOf(head.info);
    } catch {
      // The next check retries; the status keeps the last head.
    }
  }

  /** The finalized L1 block every few L1 blocks, and the L2 blocks it makes final. */
  private async checkFinality(): Promise<void> {
    const origin = this.pipeline.currentL1;
    if (origin === undefined) return;
    if (this.lastFinalityL1 >= 0n && origin.number - this.lastFinalityL1 < BigInt(DERIVATION_FINALITY_POLL_L1_BLOCKS)) return;
    this.lastFinalityL1 = origin.number;
    let fin: L1Block | undefined;
    try {
      fin = await this.l1.blockByNumber("finalized");
    } catch {
      return;
    }
    if (fin === undefined) return;
    const prev = this.status.finalizedL1;
    if (prev !== undefined && prev.number === fin.info.number && equalsBytes(prev.hash, fin.info.hash)) return;
    this.status.finalizedL1 = refOf(fin.info);
    const l2 = this.pipeline.newestDerivedAtOrBelow(fin.info.number);
    if (l2 !== undefined) {
      this.engine.finalize(l2.hash, l2.number);
      this.pipeline.forgetUpTo(l2.number - 1n);
      this.counters.set("finalizedNumber", Number(l2.number));
    }
  }

  /** Sleeps until the next L1 block is due (its slot after the origin's), at least the minimum poll interval. */
  private async waitForNextL1(): Promise<void> {
    const origin = this.pipeline.currentL1;
    const slotMs = this.opts.l1BlockTimeS * 1000;
    let wait = slotMs;
    if (origin !== undefined) {
      const due = (Number(origin.timestamp) + this.opts.l1BlockTimeS) * 1000 + DERIVATION_HEAD_POLL_MARGIN_MS;
      wait = due - Date.now();
      // Overdue (a missed slot, or clocks apart): poll a few times per slot.
      if (wait <= 0) wait = slotMs / 4;
    }
    wait = Math.min(Math.max(wait, DERIVATION_MIN_POLL_MS), slotMs);
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      void sleep(wait, this.abort.signal).then(resolve);
    });
    this.wake = undefined;
  }
}
