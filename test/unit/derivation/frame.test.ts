/**
 * Frames and batcher transaction data. Vectors: op-node `frame_test.go` (truncation points,
 * invalid is_last, ParseFrames cases), op-node `channel_out_test.go` `TestForceCloseTxData` (exact
 * hex), kona `frame.rs` tests and `examples/frames_to_batch.rs` (two real-format frames).
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { codecError } from "../../helpers/derivation.js";
import { MAX_FRAME_LEN } from "../../../src/config/constants.js";
import { FRAME_OVERHEAD_BYTES } from "../../../src/derivation/constants.js";
import { decompressChannel } from "../../../src/derivation/channelCompression.js";
import { DerivationCodecErrorCode } from "../../../src/derivation/codecErrors.js";
import {
  type Frame,
  FRAME_V0_OVERHEAD,
  channelToFrames,
  decodeFrame,
  encodeBatcherData,
  encodeFrame,
  forceCloseTxData,
  frameSize,
  parseBatcherData,
} from "../../../src/derivation/frame.js";


/** kona frame.rs tests' frame: id 0xFF×16, number 0xEE, 50 bytes of 0xDD, last. */
const KONA_FRAME: Frame = { channelId: new Uint8Array(16).fill(0xff), frameNumber: 0xee, data: new Uint8Array(50).fill(0xdd), isLast: true };

/** A frame with `n` bytes of data (a counting pattern) and the given number. */
function frame(n: number, frameNumber = 7, isLast = false): Frame {
  return { channelId: Uint8Array.from({ length: 16 }, (_, i) => i + 1), frameNumber, data: Uint8Array.from({ length: n }, (_, i) => i & 0xff), isLast };
}

describe("frame encoding", () => {
  it("round-trips (kona test_encode_frame_roundtrip) with the documented layout", () => {
    const enc = encodeFrame(KONA_FRAME);
    expect(enc.length).toBe(FRAME_V0_OVERHEAD + 50);
    expect(bytesToHex(enc.subarray(16, 22))).toBe("0x00ee00000032");
    expect(enc[enc.length - 1]).toBe(1);
    const { frame: f, next } = decodeFrame(enc);
    expect(next).toBe(enc.length);
    expect(f).toEqual(KONA_FRAME);
  });

  it("decodes a frame with no data and one at MAX_FRAME_LEN", () => {
    expect(decodeFrame(encodeFrame(frame(0))).frame.data.length).toBe(0);
    const big = frame(MAX_FRAME_LEN, 1, true);
    expect(decodeFrame(encodeFrame(big)).frame.data.length).toBe(MAX_FRAME_LEN);
  });

  // op-node TestFrameUnmarshalNoData / TestFrameUnmarshalTruncated: every cut is an unexpected end.
  it.each([
    ["no data", 0, 0, "channel_id"],
    ["channel_id half", 8, 0, "channel_id"],
    ["frame_number full", 16, 0, "frame_number"],
    ["frame_number half", 17, 0, "frame_number"],
    ["frame_data_length full", 18, 0, "frame_data_length"],
    ["frame_data_length half", 20, 40, "frame_data_length"],
    ["frame_data full", 22, 40, "frame_data"],
    ["frame_data last byte", -2, 40, "frame_data"],
    ["is_last", -1, 40, "is_last"],
  ])("refuses a frame truncated at %s", (_name, cut, dataLen, field) => {
    const enc = encodeFrame(frame(dataLen));
    const bytes = enc.subarray(0, cut < 0 ? enc.length + cut : cut);
    const e = codecError(() => decodeFrame(bytes));
    expect(e.code).toBe(DerivationCodecErrorCode.FRAME_TRUNCATED);
    expect(e.meta).toMatchObject({ field, offset: 0 });
  });

  // op-node TestFrameUnmarshalInvalidIsLast: "invalid byte as is_last".
  it.each([2, 0x80, 0xff])("refuses is_last = %i", (v) => {
    const enc = encodeFrame(frame(16));
    enc[enc.length - 1] = v;
    const e = codecError(() => decodeFrame(enc));
    expect(e.code).toBe(DerivationCodecErrorCode.FRAME_INVALID_IS_LAST);
    expect(e.meta).toEqual({ offset: 0, value: v });
  });

  // kona test_decode_exceeds_max_data_len: a length of MAX_FRAME_LEN + 1 is refused before any data is read.
  it("refuses a declared length over MAX_FRAME_LEN, even with no data behind it", () => {
    const header = encodeFrame(frame(0)).subarray(0, 22);
    new DataView(header.buffer, header.byteOffset).setUint32(18, MAX_FRAME_LEN + 1);
    const e = codecError(() => decodeFrame(header));
    expect(e.code).toBe(DerivationCodecErrorCode.FRAME_TOO_LARGE);
    expect(e.meta).toEqual({ offset: 0, length: MAX_FRAME_LEN + 1, max: MAX_FRAME_LEN });
    new DataView(header.buffer, header.byteOffset).setUint32(18, 0xffffffff);
    expect(codecError(() => decodeFrame(header)).meta).toMatchObject({ length: 0xffffffff });
  });

  // kona test_decode_malicious_data_len: a length one past the data swallows is_last. kona calls it
  // DataTooLarge; op-node (followed here) reads the data and finds is_last missing.
  it("refuses a length that swallows the is_last byte; the right length decodes", () => {
    const enc = encodeFrame(KONA_FRAME);
    const view = new DataView(enc.buffer);
    view.setUint32(18, enc.length - 22);
    const e = codecError(() => decodeFrame(enc));
    expect(e.code).toBe(DerivationCodecErrorCode.FRAME_TRUNCATED);
    expect(e.meta).toMatchObject({ field: "is_last" });
    view.setUint32(18, enc.length - 23);
    expect(decodeFrame(enc).frame).toEqual(KONA_FRAME);
  });

  it("refuses frames that have no encoding", () => {
    for (const bad of [
      { ...frame(1), channelId: new Uint8Array(15) },
      { ...frame(1), frameNumber: 65_536 },
      { ...frame(1), frameNumber: -1 },
      { ...frame(1), frameNumber: 1.5 },
      { ...frame(1), data: new Uint8Array(MAX_FRAME_LEN + 1) },
    ]) {
      expect(codecError(() => encodeFrame(bad)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
    }
  });

  it("weighs a frame as its data plus FRAME_OVERHEAD_BYTES (200)", () => {
    expect(FRAME_OVERHEAD_BYTES).toBe(200);
    expect(frameSize(frame(1000))).toBe(1200);
  });
});

describe("batcher data: all frames or none", () => {
  it("parses several frames (kona test_decode_many, op-node TestParseFrames)", () => {
    const frames = [KONA_FRAME, frame(0, 0), frame(300, 1, true), KONA_FRAME, frame(5, 65_535)];
    const data = encodeBatcherData(frames);
    expect(data[0]).toBe(0);
    const r = parseBatcherData(data);
    expect(r).toEqual({ status: "frames", frames });
  });

  // op-node TestParseFramesNoData / TestParseFramesOnlyVersion.
  it.each([
    ["empty data", "0x"],
    ["the version byte alone", "0x00"],
  ])("drops %s: no frames", (_name, hex) => {
    const r = parseBatcherData(hexToBytes(hex as `0x${string}`));
    if (r.status !== "dropped") throw new Error(`expected dropped, got ${r.status}`);
    expect(r.error.code).toBe(DerivationCodecErrorCode.NO_FRAMES);
  });

  // op-node TestParseFramesInvalidVer; the spec ignores unknown versions, alt-DA (0x01) included.
  it.each([42, 1, 0xff])("ignores data of version %i", (v) => {
    expect(parseBatcherData(Uint8Array.of(v, ...encodeFrame(frame(3))))).toEqual({ status: "ignored", version: v });
  });

  // op-node TestParseFramesTruncated, plus the other ways one frame spoils the transaction.
  it.each([
    ["the last frame truncated by 2 bytes", (d: Uint8Array) => d.subarray(0, d.length - 2), DerivationCodecErrorCode.FRAME_TRUNCATED],
    ["trailing garbage after the last frame", (d: Uint8Array) => Uint8Array.of(...d, 0xde, 0xad), DerivationCodecErrorCode.FRAME_TRUNCATED],
    ["is_last = 2 in the middle frame", (d: Uint8Array) => d.map((b, i) => (i === 1 + 23 + 10 + 23 + 20 - 1 ? 2 : b)), DerivationCodecErrorCode.FRAME_INVALID_IS_LAST],
  ])("drops every frame for %s", (_name, spoil, code) => {
    const data = encodeBatcherData([frame(10, 0), frame(20, 1), frame(30, 2, true)]);
    expect(parseBatcherData(data).status).toBe("frames");
    const r = parseBatcherData(spoil(data));
    if (r.status !== "dropped") throw new Error(`expected dropped, got ${r.status}`);
    expect(r.error.code).toBe(code);
  });

  it("drops the transaction when a frame declares more than MAX_FRAME_LEN", () => {
    const data = encodeBatcherData([frame(10, 0)]);
    new DataView(data.buffer).setUint32(1 + 18, MAX_FRAME_LEN + 1);
    const r = parseBatcherData(data);
    expect(r.status === "dropped" && r.error.code).toBe(DerivationCodecErrorCode.FRAME_TOO_LARGE);
  });

  // kona examples/frames_to_batch.rs: two frames of one channel. Their channel lacks the 0x01
  // brotli version byte (kona's example predates it), so as channel bytes they name no compression.
  it("decodes kona's frames_to_batch example frames; their joined data is not a valid channel", async () => {
    const first = hexToBytes(
      "0x60d54f49b71978b1b09288af847b11d200000000004d1b1301f82f0f6c3734f4821cd090ef3979d71a98e7e483b1dccdd525024c0ef16f425c7b4976a7acc0c94a0514b72c096d4dcc52f0b22dae193c70c86d0790a304a08152c8250031d091063ea000",
    );
    const second = hexToBytes(
      "0x60d54f49b71978b1b09288af847b11d2000100000046b00d00005082edde7ccf05bded2004462b5e80e1c42cd08e307f5baac723b22864cc6cd01ddde84efc7c018d7ada56c2fa8e3c5bedd494c3a7a884439d5771afcecaf196cb3801",
    );
    const a = decodeFrame(first);
    const b = decodeFrame(second);
    expect(a.next).toBe(first.length);
    expect(b.next).toBe(second.length);
    expect(bytesToHex(a.frame.channelId)).toBe("0x60d54f49b71978b1b09288af847b11d2");
    expect(b.frame.channelId).toEqual(a.frame.channelId);
    expect([a.frame.frameNumber, a.frame.data.length, a.frame.isLast]).toEqual([0, 77, false]);
    expect([b.frame.frameNumber, b.frame.data.length, b.frame.isLast]).toEqual([1, 70, true]);
    const channel = Uint8Array.of(...a.frame.data, ...b.frame.data);
    const d = await decompressChannel(channel, { fjord: true });
    expect(d.error?.code).toBe(DerivationCodecErrorCode.UNKNOWN_COMPRESSION);
    expect(d.error?.meta).toEqual({ firstByte: 0x1b });
  });
});

describe("batcher side", () => {
  it("splits a channel into frames of at most the given size, and they join back", () => {
    const id = new Uint8Array(16).fill(9);
    const channel = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff);
    const frames = channelToFrames(id, channel, 23 + 300);
    expect(frames.map((f) => [f.frameNumber, f.data.length, f.isLast])).toEqual([
      [0, 300, false],
      [1, 300, false],
      [2, 300, false],
      [3, 100, true],
    ]);
    for (const f of frames) expect(encodeFrame(f).length).toBeLessThanOrEqual(323);
    const r = parseBatcherData(encodeBatcherData(frames));
    if (r.status !== "frames") throw new Error("expected frames");
    expect(Uint8Array.of(...r.frames.flatMap((f) => [...f.data]))).toEqual(channel);
    expect(channelToFrames(id, new Uint8Array(0), 100)).toEqual([{ channelId: id, frameNumber: 0, data: new Uint8Array(0), isLast: true }]);
    expect(channelToFrames(id, new Uint8Array(MAX_FRAME_LEN + 1), 10 * MAX_FRAME_LEN).map((f) => f.data.length)).toEqual([MAX_FRAME_LEN, 1]);
  });

  it("refuses frame sizes with no room for data, bad ids, and channels needing over 65,536 frames", () => {
    const id = new Uint8Array(16);
    expect(codecError(() => channelToFrames(id, new Uint8Array(10), 23)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
    expect(codecError(() => channelToFrames(new Uint8Array(4), new Uint8Array(10), 100)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
    expect(codecError(() => channelToFrames(id, new Uint8Array(65_537), 24)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
  });

  // op-node channel_out_test.go TestForceCloseTxData, case by case with its exact output.
  describe("forceCloseTxData (op-node TestForceCloseTxData)", () => {
    const id = hexToBytes("0xdeadbeefdeadbeefdeadbeefdeadbeef");
    const zero = new Uint8Array(16);
    const f = (frameNumber: number, isLast: boolean, channelId = id): Frame => ({ channelId, frameNumber, data: new Uint8Array(0), isLast });
    it.each<[string, Frame[], string]>([
      ["{0, open}", [f(0, false)], "0x00deadbeefdeadbeefdeadbeefdeadbeef00000000000001"],
      ["{0, closed}", [f(0, true)], "0x00"],
      ["{1, open}", [f(1, false)], "0x00deadbeefdeadbeefdeadbeefdeadbeef00000000000001"],
      ["{1, closed}", [f(1, true)], "0x00deadbeefdeadbeefdeadbeefdeadbeef00000000000000"],
      ["{2, closed}", [f(2, true)], "0x00deadbeefdeadbeefdeadbeefdeadbeef00000000000000deadbeefdeadbeefdeadbeefdeadbeef00010000000000"],
      ["{1, open}, {3, closed}", [f(1, false), f(3, true)], "0x00deadbeefdeadbeefdeadbeefdeadbeef00000000000000deadbeefdeadbeefdeadbeefdeadbeef00020000000000"],
      ["{1, open}, {3, closed}, {5, closed}", [f(1, false), f(3, true), f(5, true)], "0x00deadbeefdeadbeefdeadbeefdeadbeef00000000000000deadbeefdeadbeefdeadbeefdeadbeef00020000000000"],
    ])("%s gives the expected hex", (_name, frames, hex) => {
      expect(bytesToHex(forceCloseTxData(frames))).toBe(hex);
    });
    it("errors on no frames and on frames of two channels", () => {
      expect(codecError(() => forceCloseTxData([])).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
      expect(codecError(() => forceCloseTxData([f(0, false, zero), f(1, true)])).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
    });
  });
});
