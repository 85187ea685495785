/**
 * Holocene's batch stream and validator (specs holocene/derivation.md "Batch Queue", "Span
 * Batches"; derivation.md "Batch Queue" for empty batches): the batches of one channel, taken in
 * order, become the next safe blocks one at a time. A span batch is checked as a whole first
 * (its prefix), then streamed block by block; each block is checked as a singular batch on the
 * safe head it would extend. The first invalid batch drops the rest of its span batch **and the
 * rest of its channel** (fast channel invalidation); batches at or below the safe head are
 * skipped. When no batch can come and the safe head's epoch has run out of sequencing window, an
 * empty batch (deposits only) is made.
 */
import type { Batch } from "./batch.js";
import { checkSingularBatch, checkSpanBatchPrefix, type BatchDropReason, type BatchRules, type L1BlockRef, type L2BlockRef } from "./batchValidity.js";
import type { SingularBatch } from "./singularBatch.js";
import { deriveSpanBatch, expandSpanBatch, type SpanBatchRollupConfig, type SpanBlockBatch } from "./spanBatch.js";

/** The rollup rules of the stage. */
export type BatchStreamRules = BatchRules & SpanBatchRollupConfig;

/** What the stage gives next. */
export type BatchStreamStep =
  /** The next safe block's batch. */
  | { kind: "batch"; batch: SingularBatch; empty: boolean }
  /** A batch (and with it the rest of its channel) was dropped; ask again. */
  | { kind: "dropped"; reason: BatchDropReason | "SPAN_BATCH_UNREADABLE"; blocks: number }
  /** Nothing to give until more L1 data is read (or the next L1 block is known). */
  | { kind: "wait"; why: string };

/** Where derivation stands on L1, for the stage. */
export interface L1View {
  /** L1 blocks from the safe head's epoch (index 0) up to the current L1 origin of the pipeline. */
  l1Blocks: readonly L1BlockRef[];
  /** Whether every batch up to the last of `l1Blocks` has been read (no more data at this L1 origin). */
  outOfData: boolean;
}

/** One channel's batches at a time, each included at the channel's closing L1 block. */
export class HoloceneBatchStream {
  private batches: Batch[] = [];
  private inclusion: L1BlockRef | undefined;
  /** The expanded blocks of the span batch being streamed. */
  private span: SpanBlockBatch[] = [];

  constructor(private readonly rules: BatchStreamRules) {}

  /** Batches waiting (of the current channel), and blocks of a span batch not yet given. */
  get pending(): { batches: number; spanBlocks: number } {
    return { batches: this.batches.length, spanBlocks: this.span.length };
  }

  /** Takes a ready channel's batches, included at L1 block `inclusion` (the channel's closing frame's). */
  pushChannel(batches: readonly Batch[], inclusion: L1BlockRef): void {
    this.batches.push(...batches);
    this.inclusion = inclusion;
  }

  /** Forgets everything (a pipeline reset). */
  reset(): void {
    this.batches = [];
    this.span = [];
    this.inclusion = undefined;
  }

  /** Drops the rest of the channel (fast channel invalidation). */
  private flush(reason: BatchDropReason | "SPAN_BATCH_UNREADABLE", blocks: number): BatchStreamStep {
    this.batches = [];
    this.span = [];
    return { kind: "dropped", reason, blocks };
  }

  /**
   * The next batch for `safeHead`, or why there is none. `safeBlockByNumber` looks up safe blocks
   * below the head (a span batch that overlaps the safe chain).
   */
  next(safeHead: L2BlockRef, view: L1View, safeBlockByNumber: (n: bigint) => L2BlockRef | undefined): BatchStreamStep {
    for (;;) {
      const inclusion = this.inclusion;
      let candidate: SingularBatch | undefined;
      /** Puts the candidate back where it came from (an undecided batch waits for the next L1 block). */
      let putBack = (): void => undefined;
      if (this.span.length > 0 && inclusion !== undefined) {
        const b = this.span.shift()!;
        // A streamed span block builds on whatever is safe now.
        candidate = { ...b, parentHash: safeHead.hash };
        putBack = () => this.span.unshift(b);
      } else if (this.batches.length > 0 && inclusion !== undefined) {
        const batch = this.batches.shift()!;
        putBack = () => this.batches.unshift(batch);
        if (batch.type === "singular") candidate = batch.batch;
        else {
          let span;
          try {
            span = deriveSpanBatch(batch.batch, this.rules);
          } catch {
            return this.flush("SPAN_BATCH_UNREADABLE", 0);
          }
          const first = span.blocks[0]!;
          const last = span.blocks[span.blocks.length - 1]!;
          const prefix = checkSpanBatchPrefix(
            this.rules,
            view.l1Blocks,
            safeHead,
            inclusion,
            { startTimestamp: first.timestamp, finalTimestamp: last.timestamp, startEpochNum: first.epochNum, endEpochNum: last.epochNum, parentCheck: span.parentCheck, l1OriginCheck: span.l1OriginCheck },
            safeBlockByNumber,
          );
          const v = prefix.validity;
          if (v.kind === "undecided") {
            this.batches.unshift(batch);
            return { kind: "wait", why: v.why };
          }
          if (v.kind === "past") continue;
          if (v.kind === "drop") return this.flush(v.reason, span.blocks.length);
          if (v.kind === "future") return this.flush("FUTURE_TIMESTAMP_HOLOCENE", span.blocks.length);
          const byNumber = new Map(view.l1Blocks.map((b) => [b.number, b.hash]));
          try {
            this.span = expandSpanBatch(span, (n) => byNumber.get(n)).filter((b) => b.timestamp > safeHead.timestamp);
          } catch {
            // An epoch of the span the view does not hold: wait for more L1 blocks.
            this.batches.unshift(batch);
            return { kind: "wait", why: "the span batch names L1 origins not read yet" };
          }
          continue;
        }
      }
      if (candidate === undefined) return this.emptyBatch(safeHead, view);
      const v = checkSingularBatch(this.rules, view.l1Blocks, safeHead, inclusion!, candidate);
      switch (v.kind) {
        case "accept":
          return { kind: "batch", batch: candidate, empty: false };
        case "past":
          continue;
        case "undecided":
          putBack();
          return { kind: "wait", why: v.why };
        case "drop":
          return this.flush(v.reason, 1 + this.span.length);
        case "future":
          return this.flush("FUTURE_TIMESTAMP_HOLOCENE", 1);
      }
    }
  }

  /**
   * The empty batch the rules force once the safe head's epoch is out of sequencing window (all
   * batches up to L1 block `epoch + seqWindowSize` read, op-node's `forceEmptyBatches`): it keeps
   * the epoch while the next L1 block is still ahead of the next timestamp, else moves to it.
   */
  private emptyBatch(safeHead: L2BlockRef, view: L1View): BatchStreamStep {
    const [epoch, nextEpoch] = view.l1Blocks;
    const current = view.l1Blocks[view.l1Blocks.length - 1];
    if (epoch === undefined || current === undefined) return { kind: "wait", why: "no L1 blocks read yet" };
    const expiry = epoch.number + this.rules.seqWindowSize;
    // op-node batch_queue.go: past the window's last L1 block, or at it once it has no more data.
    const force = expiry < current.number || (expiry === current.number && view.outOfData);
    if (!force) return { kind: "wait", why: `no batch for the next block; the sequencing window of epoch ${epoch.number} runs to L1 block ${expiry}` };
    if (nextEpoch === undefined) return { kind: "wait", why: "the next L1 block decides the empty batch's epoch" };
    const timestamp = safeHead.timestamp + this.rules.blockTime;
    const origin = timestamp < nextEpoch.timestamp ? epoch : nextEpoch;
    return { kind: "batch", batch: { parentHash: safeHead.hash, epochNum: origin.number, epochHash: origin.hash, timestamp, transactions: [] }, empty: true };
  }
}
