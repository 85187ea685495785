/**
 * The flashblocks pipeline of the worker thread: frames from the stream and canonical blocks
 * from the main thread go through one ordered queue (as base/base's `processor.rs`), the
 * sequencing state machine decides, the builder executes, and each new pending state is
 * published to the shared buffer.
 *
 * Faults never stop the pipeline: a malformed, oversized or unexecutable frame is counted,
 * logged once at warn (then at debug) and leaves the last good pending state in place; the
 * sequencer then waits for the next index 0, so a stalled, lossy or reordered stream converges
 * back to the producer's pending block at the next block.
 */
import type { Logger } from "pino";
import type { ChainReader } from "../blockchain/chainReader.js";
import { to0x } from "../util/bytes.js";
import { decodeFlashblockFrame, type FlashblocksPayloadV1 } from "./codec.js";
import { FlashblockDecodeError, FlashblockErrorCode } from "./errors.js";
import type { IngestStats, RejectReason } from "./ingestStats.js";
import { PendingBufferWriter, PendingSnapshotTooLargeError } from "./pendingBuffer.js";
import { PendingBuildError, FastEngineMismatchError, PendingBuilder, type DiffMismatch } from "./pendingBuilder.js";
import { FlashblockSequencer } from "./sequence.js";
import { nowMs } from "./streamClient.js";

type QueueItem =
  | { kind: "frame"; data: Uint8Array | string; receivedAt: number }
  | { kind: "canonical" }
  | { kind: "replay"; fb: FlashblocksPayloadV1 }
  | { kind: "disconnected" };

/** Logs a recurring fault at warn the first time per key, then at debug. */
class OnceLogger {
  private readonly seen = new Set<string>();
  constructor(private readonly log: Logger) {}
  warn(key: string, fields: Record<string, unknown>, msg: string): void {
    if (this.seen.has(key)) this.log.debug(fields, msg);
    else {
      this.seen.add(key);
      this.log.warn(fields, `${msg} (further occurrences at debug)`);
    }
  }
}

/** Frames → pending state, one at a time. */
export class FlashblocksIngest {
  private readonly sequencer = new FlashblockSequencer();
  private readonly builder: PendingBuilder;
  private readonly queue: QueueItem[] = [];
  private running = false;
  private readonly arrival = new WeakMap<FlashblocksPayloadV1, number>();
  private readonly once: OnceLogger;
  private readonly log: Logger;
  /** Resolves when the queue is drained (tests, shutdown). */
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;

  /**
   * @param onIdle called each time the queue drains: the worker collects its young generation
   *   there when it is filling up, so that no frame pays for a collection (`util/youngGc.ts`).
   */
  constructor(
    private readonly chain: ChainReader,
    private readonly writer: PendingBufferWriter,
    private readonly stats: IngestStats,
    log: Logger,
    private readonly onIdle: () => void = () => undefined,
  ) {
    this.log = log.child({ subsystem: "flashblocks" });
    this.once = new OnceLogger(this.log);
    this.builder = new PendingBuilder(chain, (m) => this.mismatch(m));
  }

  /** A raw frame from the stream. */
  onFrame(data: Uint8Array | string, receivedAt: number): void {
    this.stats.inc("received");
    this.push({ kind: "frame", data, receivedAt });
  }

  /** The canonical head moved (the main thread committed or reorged); the head is re-read from the store. */
  onCanonical(): void {
    this.push({ kind: "canonical" });
  }

  /**
   * The stream went down: the pending state is dropped (answers fall back to `latest`) and,
   * after the reconnect, mid-block frames are ignored until the next index 0 — the producer's
   * pending block cannot be known to be complete across a gap.
   */
  onDisconnected(): void {
    this.push({ kind: "disconnected" });
  }

  /** Resolves once every queued item is processed. */
  drained(): Promise<void> {
    return this.idle;
  }

  private push(item: QueueItem): void {
    this.queue.push(item);
    if (!this.running) {
      this.running = true;
      this.idle = new Promise((r) => (this.markIdle = r));
      void this.run();
    }
  }

  private async run(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item !== undefined; item = this.queue.shift()) {
        try {
          if (item.kind === "frame") await this.frame(item.data, item.receivedAt);
          else if (item.kind === "replay") await this.offer(item.fb);
          else if (item.kind === "disconnected") this.reset();
          else await this.canonical();
        } catch (e) {
          // Nothing from the stream may stop the pipeline; an unexpected error drops pending state.
          this.once.warn(`unexpected:${(e as Error).message}`, { err: e }, "flashblocks pipeline error; pending state cleared");
          this.reset();
        }
      }
    } finally {
      this.running = false;
      this.markIdle();
      this.onIdle();
    }
  }

  private reject(reason: RejectReason, detail: Record<string, unknown>, why?: string): void {
    this.stats.inc(`rejected:${reason}`);
    this.once.warn(`reject:${reason}`, { reason, ...detail, why }, "flashblock rejected");
  }

  private mismatch(m: DiffMismatch): void {
    this.stats.inc(`mismatch:${m.field}`);
    this.once.warn(`mismatch:${m.field}`, { field: m.field, block: m.block.toString(), index: m.index, published: m.published, computed: m.computed }, "flashblock diff differs from re-execution; serving the executed value");
  }

  private async frame(data: Uint8Array | string, receivedAt: number): Promise<void> {
    let fb: FlashblocksPayloadV1;
    try {
      fb = decodeFlashblockFrame(data);
    } catch (e) {
      const oversize = e instanceof FlashblockDecodeError && e.code === FlashblockErrorCode.TOO_LARGE;
      // The decoder's message may quote the frame: untrusted input is logged at debug only.
      this.log.debug({ why: (e as Error).message.slice(0, 200) }, "flashblock frame does not decode");
      const detail = e instanceof FlashblockDecodeError ? { code: e.code, field: e.meta.field } : {};
      this.reject(oversize ? "oversize" : "malformed", detail);
      return;
    }
    this.arrival.set(fb, receivedAt);
    this.log.debug({ block: fb.metadata.blockNumber.toString(), index: fb.index, txs: fb.diff.transactions.length }, "flashblock received");
    await this.offer(fb);
  }

  private async offer(fb: FlashblocksPayloadV1): Promise<void> {
    const d = this.sequencer.offer(fb, { number: this.chain.headHeader.number, hash: this.chain.headHash });
    switch (d.kind) {
      case "duplicate":
        this.stats.inc("duplicate");
        return;
      case "held":
        this.stats.inc("held");
        return;
      case "dropped":
        this.stats.inc(`dropped:${d.reason}`);
        this.log.debug({ block: fb.metadata.blockNumber.toString(), index: fb.index, reason: d.reason }, "flashblock dropped");
        return;
      case "cleared":
        this.stats.inc(`cleared:${d.reason}`);
        this.once.warn(`clear:${d.reason}`, { block: fb.metadata.blockNumber.toString(), index: fb.index, reason: d.reason }, "flashblock sequence broken; pending state cleared until the next index 0");
        this.reset();
        return;
      case "replaced":
        this.stats.inc("replaced");
        await this.build(fb, () => this.builder.rebuild(this.sequencer.pendingBlocks().flatMap((b) => b.frames)));
        return;
      case "append":
        await this.build(fb, () => this.builder.apply(fb));
        return;
    }
  }

  /** Runs one build step and publishes; on failure keeps the last published state and waits for the next index 0. */
  private async build(fb: FlashblocksPayloadV1, step: () => Promise<void>): Promise<void> {
    try {
      try {
        await step();
      } catch (e) {
        if (!(e instanceof FastEngineMismatchError)) throw e;
        await this.referenceCheck(fb, e);
      }
    } catch (e) {
      if (!(e instanceof PendingBuildError)) throw e;
      this.reject(e.reason, { block: fb.metadata.blockNumber.toString(), index: fb.index }, e.message.slice(0, 300));
      this.sequencer.clear();
      this.builder.clear();
      return;
    }
    this.stats.inc("applied");
    this.stats.inc("transactionsExecuted", fb.diff.transactions.length);
    this.publish(fb);
  }

  /**
   * The fast EVM's result differs from the producer's diff: the pending block is re-executed on
   * the reference engine. If the reference computes the same values, the producer's diff is the
   * odd one out (counted as a diff mismatch, as before); if not,
   * the fast engine was wrong (`basalt_flashblocks_evm_fallbacks_total`, warned once) and the
   * block stays on the reference engine.
   */
  private async referenceCheck(fb: FlashblocksPayloadV1, e: FastEngineMismatchError): Promise<void> {
    const block = fb.metadata.blockNumber;
    const frames = this.sequencer.pendingBlocks().flatMap((b) => b.frames);
    this.builder.useReferenceFor(block);
    await this.builder.recheck(frames);
    const reference = new Map(this.builder.lastMismatches.map((m) => [m.field, m.computed]));
    // The producer's diff is the odd one out (both engines computed the same): no engine fault.
    // The rest of this block stays on the reference engine; the next block runs on the fast one.
    if (e.mismatches.every((m) => reference.get(m.field) === m.computed)) return;
    this.stats.inc("evmFallbacks");
    this.once.warn("fast-evm-mismatch", { block: block.toString(), index: fb.index, err: e }, "fast EVM result differs from the reference engine's; pending block served from the reference engine");
  }

  private publish(fb: FlashblocksPayloadV1): void {
    const s = this.builder.snapshot(fb, this.arrival.get(fb) ?? nowMs(), nowMs());
    if (s === undefined) return;
    try {
      this.writer.publishPrepared(s);
    } catch (e) {
      if (!(e instanceof PendingSnapshotTooLargeError)) throw e;
      this.reject("snapshot-too-large", { block: fb.metadata.blockNumber.toString(), index: fb.index }, e.message);
      return;
    }
    this.stats.set("pendingBlock", s.flashblock.block);
    this.stats.set("pendingIndex", s.flashblock.index);
  }

  private reset(): void {
    this.sequencer.clear();
    this.builder.clear();
    this.writer.clear();
  }

  private async canonical(): Promise<void> {
    // The head's header and its transactions' hashes from the body bytes: decoding the block's
    // transactions into objects would cost about as much as executing a frame.
    const head = this.chain.refreshHeadHeader();
    const txHashes = this.chain.transactionHashesOf(head.hash) ?? [];
    const out = this.sequencer.onCanonical({ number: head.header.number, hash: head.hash, txHashes });
    this.stats.inc(`canonical:${out.kind}`);
    this.log.debug({ number: head.header.number.toString(), hash: to0x(head.hash), outcome: out.kind, replay: out.replay.length }, "canonical block reconciled");
    switch (out.kind) {
      case "catch-up":
      case "reorg":
        this.builder.clear();
        this.writer.clear();
        break;
      case "rebase": {
        const frames = this.sequencer.pendingBlocks().flatMap((b) => b.frames);
        const last = frames.at(-1);
        if (last !== undefined) await this.build(last, () => this.builder.rebuild(frames));
        break;
      }
      default:
        break;
    }
    // Held frames whose parent just became canonical go first, before newer arrivals.
    this.queue.unshift(...out.replay.map((fb) => ({ kind: "replay" as const, fb })));
  }
}
