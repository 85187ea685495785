/**
 * One channel being filled (op-batcher's channel builder): consecutive L2 blocks go into ONE span
 * batch (specs delta/span-batches.md), compressed with brotli (`0x01 ++ brotli`, Fjord), cut into
 * frames of at most `maxFrameBytes` encoded bytes. The channel is full when its compressed size
 * would pass `targetFrames` frames' worth of data; it is due when it has been open
 * `maxDuration` L1 blocks; the caller closes it then, or at any time (flush).
 *
 * Size is measured, never guessed: a block goes in without compressing again while the last
 * measured size plus an upper estimate of what the new blocks add (their transactions' bytes and
 * the slack constants) stays within the capacity; otherwise the channel is compressed with the
 * block, and the block is refused when the result does not fit. Closing compresses what the
 * channel holds and, should the estimate ever have been short, hands the last blocks back until
 * the rest fits. A single block larger than the capacity goes alone and takes more frames.
 */
import { randomBytes } from "node:crypto";
import { MAX_FRAME_LEN } from "../config/constants.js";
import { BATCHER_CHANNEL_FIXED_SLACK_BYTES, BATCHER_SPAN_BLOCK_SLACK_BYTES, BATCHER_SPAN_TX_SLACK_BYTES } from "./constants.js";
import { CHANNEL_ID_LENGTH, FRAME_V0_OVERHEAD, channelToFrames, type Frame } from "../derivation/frame.js";
import { spanBatchFromBlocks, type SpanBatchRollupConfig } from "../derivation/spanBatch.js";
import type { BatchBlock } from "./batchBlock.js";
import { compressBrotliChannel } from "./compress.js";
import { BatcherError, BatcherErrorCode } from "./errors.js";
import type { ChannelCloseReason } from "./metrics.js";

/** How channels are cut. */
export interface ChannelBuilderConfig {
  /** Chain id, block time and genesis time of the rollup (a `RollupConfig` fits). */
  rollup: SpanBatchRollupConfig;
  /** Most encoded bytes of one frame (23 bytes of frame overhead included). */
  maxFrameBytes: number;
  /** Frames the channel may fill: its capacity is this many frames of data. */
  targetFrames: number;
  /** L1 blocks a channel stays open before it is due (`--batcher.max-channel-duration`). */
  maxDuration: bigint;
}

/** A closed channel, ready to post. */
export interface ClosedChannel {
  /** 16 random bytes. */
  id: Uint8Array;
  reason: ChannelCloseReason;
  /** L1 head when its first block went in. */
  openedAtL1: bigint;
  /** Its blocks, in order (at least one). */
  blocks: BatchBlock[];
  /** Bytes of the compressed channel. */
  compressedBytes: number;
  /** The frames, numbered from 0, the last one closing the channel. */
  frames: Frame[];
}

/** Span-batch bytes a block may add, at most (its transactions plus slack): the estimate that decides when to measure. */
function weightOf(b: BatchBlock): number {
  return b.txBytes + b.element.transactions.length * BATCHER_SPAN_TX_SLACK_BYTES + BATCHER_SPAN_BLOCK_SLACK_BYTES;
}

/** Frame data bytes of one frame of at most `maxFrameBytes` encoded bytes. */
export function frameDataBytes(maxFrameBytes: number): number {
  return Math.min(maxFrameBytes - FRAME_V0_OVERHEAD, MAX_FRAME_LEN);
}

/** One channel being filled (see the module comment). */
export class ChannelBuilder {
  /** The channel id: 16 random bytes. */
  readonly id: Uint8Array = new Uint8Array(randomBytes(CHANNEL_ID_LENGTH));
  /** Compressed bytes the channel may hold: `targetFrames` frames of data. */
  readonly capacity: number;
  private readonly blocks: BatchBlock[] = [];
  /** The last measurement: the compressed channel of the first `count` blocks. */
  private measured: { count: number; bytes: Uint8Array | undefined } = { count: 0, bytes: undefined };
  /** Upper estimate of what the blocks after the measured ones add. */
  private unmeasured = 0;
  private full = false;

  /**
   * @param openedAtL1 the L1 head when the channel opens (its duration counts from there).
   */
  constructor(
    private readonly cfg: ChannelBuilderConfig,
    readonly openedAtL1: bigint,
  ) {
    if (!(cfg.targetFrames >= 1) || !(cfg.maxFrameBytes > FRAME_V0_OVERHEAD)) {
      throw new BatcherError({ code: BatcherErrorCode.INVALID_OPTION, option: "frames", value: `${cfg.targetFrames} × ${cfg.maxFrameBytes}` }, `a channel of ${cfg.targetFrames} frames of at most ${cfg.maxFrameBytes} bytes holds no data`);
    }
    this.capacity = cfg.targetFrames * frameDataBytes(cfg.maxFrameBytes);
  }

  /** Blocks in the channel. */
  get blockCount(): number {
    return this.blocks.length;
  }

  /** The last block in the channel, if any. */
  get lastBlock(): BatchBlock | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  /** Whether a block was refused for size (or one block alone passed the capacity): close it as "full". */
  get isFull(): boolean {
    return this.full;
  }

  /** Whether the channel has been open `maxDuration` L1 blocks at L1 head `l1Head`. */
  isDue(l1Head: bigint): boolean {
    return this.blocks.length > 0 && l1Head >= this.openedAtL1 + this.cfg.maxDuration;
  }

  /**
   * Adds the next block; false (and the channel is full) when it does not fit — it starts the
   * next channel. The first block always goes in.
   * @throws BatcherError BLOCK_NOT_CONTIGUOUS for a block a span batch cannot carry after the last one.
   */
  async add(b: BatchBlock): Promise<boolean> {
    if (this.full) return false;
    this.checkFollows(b);
    const weight = weightOf(b);
    const measuredBytes = this.measured.bytes?.length ?? 0;
    if (measuredBytes + this.unmeasured + weight + BATCHER_CHANNEL_FIXED_SLACK_BYTES <= this.capacity) {
      this.blocks.push(b);
      this.unmeasured += weight;
      return true;
    }
    const bytes = await this.compress([...this.blocks, b]);
    if (bytes.length > this.capacity && this.blocks.length > 0) {
      this.full = true;
      return false;
    }
    this.blocks.push(b);
    this.measured = { count: this.blocks.length, bytes };
    this.unmeasured = 0;
    if (bytes.length > this.capacity) this.full = true;
    return true;
  }

  /**
   * Closes the channel: compresses what it holds and cuts the frames. Blocks that would push it
   * past its capacity (only when the size estimate was short; never the first) come back as
   * `leftover`, for the next channel.
   */
  async close(reason: ChannelCloseReason): Promise<{ channel: ClosedChannel; leftover: BatchBlock[] }> {
    if (this.blocks.length === 0) throw new BatcherError({ code: BatcherErrorCode.INVALID_OPTION, option: "channel", value: "empty" }, "closing a channel that holds no block");
    let n = this.blocks.length;
    let bytes = this.measured.count === n && this.measured.bytes !== undefined ? this.measured.bytes : await this.compress(this.blocks);
    while (bytes.length > this.capacity && n > 1) {
      n--;
      bytes = await this.compress(this.blocks.slice(0, n));
    }
    const blocks = this.blocks.slice(0, n);
    const frames = channelToFrames(this.id, bytes, this.cfg.maxFrameBytes);
    return {
      channel: { id: this.id, reason, openedAtL1: this.openedAtL1, blocks, compressedBytes: bytes.length, frames },
      leftover: this.blocks.slice(n),
    };
  }

  /** The brotli channel of one span batch over `blocks`. */
  private compress(blocks: readonly BatchBlock[]): Promise<Uint8Array> {
    const first = blocks[0]!;
    const last = blocks[blocks.length - 1]!;
    const batch = spanBatchFromBlocks(
      blocks.map((b) => b.element),
      this.cfg.rollup,
      { parentHash: first.parentHash, lastEpochHash: last.l1Origin.hash, firstBlockStartsEpoch: first.sequenceNumber === 0n },
    );
    return compressBrotliChannel([{ type: "span", batch }]);
  }

  /** Checks that a span batch can carry `b` after the channel's last block: the next timestamp, the same or the next L1 origin. */
  private checkFollows(b: BatchBlock): void {
    const fail = (reason: string): never => {
      throw new BatcherError({ code: BatcherErrorCode.BLOCK_NOT_CONTIGUOUS, number: b.number.toString(), reason }, `L2 block ${b.number} cannot be batched: ${reason}`);
    };
    const { rollup } = this.cfg;
    if (b.element.timestamp < rollup.genesis.l2Time) fail(`its timestamp ${b.element.timestamp} is before the rollup's genesis time ${rollup.genesis.l2Time}`);
    const prev = this.lastBlock;
    if (prev === undefined) return;
    if (b.element.timestamp !== prev.element.timestamp + rollup.blockTime) {
      fail(`its timestamp ${b.element.timestamp} is not one block time (${rollup.blockTime} s) after block ${prev.number}'s (${prev.element.timestamp})`);
    }
    const step = b.element.epochNum - prev.element.epochNum;
    if (step !== 0n && step !== 1n) fail(`its L1 origin ${b.element.epochNum} is neither block ${prev.number}'s (${prev.element.epochNum}) nor the next one`);
  }
}
