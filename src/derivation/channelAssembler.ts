/**
 * Holocene's frame queue and channel assembler (specs holocene/derivation.md "Frame Queue",
 * "Channel Bank"): frames are taken strictly in order, one channel at a time. A frame 0 starts a
 * channel (dropping an unfinished one); any other frame must be the next frame of the channel
 * being assembled, or it is dropped; a channel that times out (`CHANNEL_TIMEOUT` L1 blocks after
 * its first frame, 50 from Granite) or outgrows `MAX_RLP_BYTES_PER_CHANNEL` (data plus
 * {@link FRAME_OVERHEAD_BYTES} per frame) is dropped. A channel is ready the moment its last frame
 * arrives. Every drop is reported with its reason, for metrics and a log line.
 */
import { FRAME_OVERHEAD_BYTES } from "./constants.js";
import { equalsBytes } from "@ethereumjs/util";
import { forkActive, type BatchRules, type L1BlockRef } from "./batchValidity.js";
import { maxRlpBytesPerChannel } from "./channelCompression.js";
import type { Frame } from "./frame.js";

/** The channel timeouts of a rollup (in L1 blocks), before and from Granite. */
export interface ChannelRules extends Pick<BatchRules, "forkTimes"> {
  channelTimeout: bigint;
  channelTimeoutGranite: bigint;
}

/** A complete channel: its compressed bytes and where its frames were read. */
export interface ReadyChannel {
  id: Uint8Array;
  data: Uint8Array;
  /** L1 block of its first frame. */
  openedAt: L1BlockRef;
  /** L1 block of its last frame (the batches' inclusion block). */
  closedAt: L1BlockRef;
}

/** Why frames or a channel were dropped. */
type FrameDropReason =
  /** A frame other than 0 with no channel being assembled, of another channel, or not the next number. */
  | "FRAME_OUT_OF_ORDER"
  /** A frame 0 arrived while another channel was unfinished: that channel's frames go. */
  | "CHANNEL_SUPERSEDED"
  /** The channel was open longer than the channel timeout. */
  | "CHANNEL_TIMED_OUT"
  /** The channel's frames passed `MAX_RLP_BYTES_PER_CHANNEL` (with 200 bytes of overhead per frame). */
  | "CHANNEL_TOO_LARGE";

/** Frames dropped together, and why. */
export interface FrameDrop {
  reason: FrameDropReason;
  frames: number;
  channelId: Uint8Array;
}

/** What one frame (or one L1 block) did: a channel may complete; frames may be dropped (a timed-out channel and the frame itself, say). */
interface AssemblerStep {
  ready?: ReadyChannel;
  dropped: FrameDrop[];
}

/** The channel timeout (L1 blocks) for a frame included at L1 time `l1Time`. */
export function channelTimeout(rules: ChannelRules, l1Time: bigint): bigint {
  return forkActive(rules, "granite", l1Time) ? rules.channelTimeoutGranite : rules.channelTimeout;
}

/** The largest channel (compressed bytes plus frame overhead) at L1 time `l1Time`. */
function maxChannelBytes(rules: Pick<BatchRules, "forkTimes">, l1Time: bigint): number {
  return maxRlpBytesPerChannel(forkActive(rules, "fjord", l1Time));
}

interface Staging {
  id: Uint8Array;
  frames: Uint8Array[];
  next: number;
  size: number;
  openedAt: L1BlockRef;
}

/** One channel at a time, strictly ordered (Holocene). */
export class ChannelAssembler {
  private staging: Staging | undefined;

  constructor(private readonly rules: ChannelRules) {}

  /** The channel being assembled, if any (its id and frames so far). */
  get pending(): { id: Uint8Array; frames: number; openedAt: L1BlockRef } | undefined {
    const s = this.staging;
    return s === undefined ? undefined : { id: s.id, frames: s.frames.length, openedAt: s.openedAt };
  }

  /** Drops the channel being assembled (a pipeline reset). */
  reset(): void {
    this.staging = undefined;
  }

  /**
   * Called when derivation reaches L1 block `l1`: drops the channel being assembled if it has
   * timed out by then.
   */
  advance(l1: L1BlockRef): AssemblerStep {
    const s = this.staging;
    if (s === undefined || l1.number <= s.openedAt.number + channelTimeout(this.rules, l1.timestamp)) return { dropped: [] };
    this.staging = undefined;
    return { dropped: [{ reason: "CHANNEL_TIMED_OUT", frames: s.frames.length, channelId: s.id }] };
  }

  /** Takes the next frame, read from L1 block `l1`. */
  add(frame: Frame, l1: L1BlockRef): AssemblerStep {
    const out = this.advance(l1);
    if (frame.frameNumber === 0) {
      const s = this.staging;
      if (s !== undefined) out.dropped.push({ reason: "CHANNEL_SUPERSEDED", frames: s.frames.length, channelId: s.id });
      this.staging = { id: frame.channelId, frames: [], next: 0, size: 0, openedAt: l1 };
    } else {
      const s = this.staging;
      if (s === undefined || !equalsBytes(s.id, frame.channelId) || frame.frameNumber !== s.next) {
        out.dropped.push({ reason: "FRAME_OUT_OF_ORDER", frames: 1, channelId: frame.channelId });
        return out;
      }
    }
    const s = this.staging!;
    s.frames.push(frame.data);
    s.next++;
    s.size += frame.data.length + FRAME_OVERHEAD_BYTES;
    if (s.size > maxChannelBytes(this.rules, l1.timestamp)) {
      this.staging = undefined;
      out.dropped.push({ reason: "CHANNEL_TOO_LARGE", frames: s.frames.length, channelId: s.id });
      return out;
    }
    if (!frame.isLast) return out;
    this.staging = undefined;
    const data = new Uint8Array(s.frames.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of s.frames) {
      data.set(f, at);
      at += f.length;
    }
    out.ready = { id: s.id, data, openedAt: s.openedAt, closedAt: l1 };
    return out;
  }
}
