/**
 * Holocene's strict frame order and single-channel assembly. The frame sequences are kona's
 * `crates/protocol/derive/src/stages/frame_queue.rs` Holocene tests (valid, unordered,
 * non-sequential, unclosed, unstarted channels), checked here by the channels that come out and
 * the frames dropped; then the channel timeout (300 L1 blocks, 50 from Granite), the size limit
 * (data + 200 bytes a frame, 10 MB before Fjord, 100 MB from it) and a channel completing in one frame.
 */
import { bytesToHex } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { ChannelAssembler, channelTimeout, type ChannelRules } from "../../../src/derivation/channelAssembler.js";
import type { Frame } from "../../../src/derivation/frame.js";
import type { L1BlockRef } from "../../../src/derivation/batchValidity.js";

const RULES: ChannelRules = { channelTimeout: 300n, channelTimeoutGranite: 50n, forkTimes: { holocene: 0n, fjord: 0n } };
const frame = (id: number, frameNumber: number, isLast: boolean, data = Uint8Array.of(id, frameNumber)): Frame => ({ channelId: new Uint8Array(16).fill(id), frameNumber, data, isLast });
const at = (number: number, timestamp = number * 12): L1BlockRef => ({ number: BigInt(number), hash: new Uint8Array(32).fill(number), timestamp: BigInt(timestamp) });

/** Feeds `frames` (all from L1 block 1) and returns the channels completed (id byte and frame numbers) and the drops. */
function run(frames: Frame[], rules = RULES) {
  const a = new ChannelAssembler(rules);
  const ready: { id: number; data: string }[] = [];
  const dropped: string[] = [];
  for (const f of frames) {
    const step = a.add(f, at(1));
    if (step.ready) ready.push({ id: step.ready.id[0]!, data: bytesToHex(step.ready.data) });
    for (const d of step.dropped) dropped.push(`${d.reason}:${d.channelId[0]}x${d.frames}`);
  }
  return { ready, dropped };
}

describe("Holocene channel assembly", () => {
  it("assembles a channel of frames 0, 1, 2 (kona test_holocene_valid_frames)", () => {
    expect(run([frame(0xff, 0, false), frame(0xff, 1, false), frame(0xff, 2, true)])).toEqual({ ready: [{ id: 0xff, data: "0xff00ff01ff02" }], dropped: [] });
  });

  it("drops a lone non-first frame (kona test_holocene_single_frame)", () => {
    expect(run([frame(0xff, 1, true)])).toEqual({ ready: [], dropped: ["FRAME_OUT_OF_ORDER:255x1"] });
  });

  it("drops a frame after its channel closed, then assembles the next channel (kona test_holocene_unordered_frames)", () => {
    const r = run([frame(0xee, 0, false), frame(0xee, 1, false), frame(0xee, 2, true), frame(0xee, 3, false), frame(0xff, 0, false), frame(0xff, 1, true)]);
    expect(r.ready.map((c) => c.id)).toEqual([0xee, 0xff]);
    expect(r.dropped).toEqual(["FRAME_OUT_OF_ORDER:238x1"]);
  });

  it("drops frames that skip a number, and the channel never completes (kona test_holocene_non_sequential_frames)", () => {
    const r = run([frame(0xee, 0, false), frame(0xee, 1, false), frame(0xee, 3, true), frame(0xee, 4, false)]);
    expect(r.ready).toEqual([]);
    expect(r.dropped).toEqual(["FRAME_OUT_OF_ORDER:238x1", "FRAME_OUT_OF_ORDER:238x1"]);
  });

  it("drops an unclosed channel when the next one starts (kona test_holocene_unclosed_channel)", () => {
    const r = run([frame(0xee, 0, false), frame(0xee, 1, false), frame(0xee, 2, false), frame(0xee, 3, false), frame(0xff, 0, false), frame(0xff, 1, true)]);
    expect(r.ready.map((c) => c.id)).toEqual([0xff]);
    expect(r.dropped).toEqual(["CHANNEL_SUPERSEDED:238x4"]);
  });

  it("drops frames of a channel that never started (kona test_holocene_unstarted_channel)", () => {
    const r = run([
      frame(0xdd, 0, false), frame(0xdd, 1, false), frame(0xdd, 2, false), frame(0xdd, 3, true),
      frame(0xee, 1, false), frame(0xee, 2, true),
      frame(0xff, 0, false), frame(0xff, 1, true),
    ]);
    expect(r.ready.map((c) => c.id)).toEqual([0xdd, 0xff]);
    expect(r.dropped).toEqual(["FRAME_OUT_OF_ORDER:238x1", "FRAME_OUT_OF_ORDER:238x1"]);
  });

  it("completes a channel of one last frame 0 and records where it opened and closed", () => {
    const a = new ChannelAssembler(RULES);
    expect(a.add(frame(1, 0, false), at(5)).ready).toBeUndefined();
    const step = a.add(frame(1, 1, true), at(7));
    expect(step.ready?.openedAt.number).toBe(5n);
    expect(step.ready?.closedAt.number).toBe(7n);
    expect(a.pending).toBeUndefined();
  });
});

describe("channel timeout and size", () => {
  it("times out 300 L1 blocks after the first frame before Granite, 50 from Granite (by the L1 block's time)", () => {
    const pre: ChannelRules = { ...RULES, forkTimes: { ...RULES.forkTimes, granite: 10_000n } };
    expect(channelTimeout(pre, 9_999n)).toBe(300n);
    expect(channelTimeout(pre, 10_000n)).toBe(50n);
    const a = new ChannelAssembler({ ...RULES, forkTimes: { ...RULES.forkTimes, granite: 0n } });
    a.add(frame(1, 0, false), at(100));
    expect(a.advance(at(150))).toEqual({ dropped: [] });
    expect(a.add(frame(1, 1, false), at(150)).dropped).toEqual([]);
    // At block 151 the channel has timed out: it goes, and the frame that came after it with it.
    const late = a.add(frame(1, 2, true), at(151));
    expect(late.dropped.map((d) => d.reason)).toEqual(["CHANNEL_TIMED_OUT", "FRAME_OUT_OF_ORDER"]);
    expect(late.ready).toBeUndefined();
    expect(a.pending).toBeUndefined();
  });

  it("drops a channel whose data plus 200 bytes a frame passes 10 MB before Fjord", () => {
    const a = new ChannelAssembler({ ...RULES, forkTimes: { holocene: 0n } });
    const big = new Uint8Array(5_000_000 - 200);
    expect(a.add(frame(1, 0, false, big), at(1)).dropped).toEqual([]);
    expect(a.add(frame(1, 1, false, big), at(1)).dropped).toEqual([]); // exactly 10,000,000
    expect(a.add(frame(1, 2, true, Uint8Array.of(1)), at(1)).dropped.map((d) => d.reason)).toEqual(["CHANNEL_TOO_LARGE"]);
  });

  it("drops a channel whose frames pass 100 MB from Fjord (100 full frames), then the rest of its frames, and assembles the next channel", () => {
    const a = new ChannelAssembler(RULES);
    // MAX_FRAME_LEN-sized frames: 100 of them (with 200 bytes each of overhead) are exactly 100,000,000 bytes.
    const full = new Uint8Array(1_000_000 - 200);
    for (let i = 0; i < 100; i++) expect(a.add(frame(1, i, false, full), at(1 + Math.floor(i / 10))).dropped, `frame ${i}`).toEqual([]);
    expect(a.pending?.frames).toBe(100);
    const over = a.add(frame(1, 100, false, Uint8Array.of(1)), at(11));
    expect(over.dropped).toEqual([{ reason: "CHANNEL_TOO_LARGE", frames: 101, channelId: new Uint8Array(16).fill(1) }]);
    expect(a.pending).toBeUndefined();
    // The channel's later frames have nothing to join: each is out of order; the closing one completes nothing.
    expect(a.add(frame(1, 101, true), at(11)).dropped.map((d) => d.reason)).toEqual(["FRAME_OUT_OF_ORDER"]);
    const next = a.add(frame(2, 0, true), at(12));
    expect(next.dropped).toEqual([]);
    expect(next.ready?.id[0]).toBe(2);
  });
});
