/**
 * Frames and batcher transaction data (specs derivation.md "Batcher Transaction Format" and
 * "Frame Format"; op-node `frame.go`, kona `frame.rs`).
 *
 * ```text
 * batcher_data = 0x00 ++ frame ++ frame ++ …
 * frame = channel_id (16) ++ frame_number (u16 BE) ++ frame_data_length (u32 BE) ++ frame_data ++ is_last (0 | 1)
 * ```
 *
 * A frame's data is at most `MAX_FRAME_LEN` bytes; is_last is strictly 0 or 1 (op-node: "invalid
 * byte as is_last"). One bad frame drops every frame of its transaction. Decoded frames are views
 * into the input bytes.
 */
import { bytesToHex } from "@ethereumjs/util";
import { MAX_FRAME_LEN } from "../config/constants.js";
import { FRAME_OVERHEAD_BYTES } from "./constants.js";
import { joinBytes } from "./bytes.js";
import { DerivationCodecError, DerivationCodecErrorCode, invalidEncodeInput } from "./codecErrors.js";

/** Version byte of batcher data that carries frames (`DERIVATION_VERSION_0`). */
const DERIVATION_VERSION_0 = 0x00;
/** Bytes of a channel id. */
export const CHANNEL_ID_LENGTH = 16;
/** Encoded bytes of a frame besides its data: id 16, number 2, length 4, is_last 1 (op-node `FrameV0OverHeadSize`). */
export const FRAME_V0_OVERHEAD = 23;
/** Largest frame number (u16). */
const MAX_FRAME_NUMBER = 0xffff;

/** One frame: a piece of a channel. */
export interface Frame {
  /** 16 bytes. */
  channelId: Uint8Array;
  /** Position in the channel, 0 to 65535. */
  frameNumber: number;
  /** At most `MAX_FRAME_LEN` bytes of the channel. */
  data: Uint8Array;
  /** Whether this frame closes the channel. */
  isLast: boolean;
}

/** A decoded frame and the offset just past it. */
interface DecodedFrame {
  frame: Frame;
  next: number;
}

function truncated(field: string, offset: number, needed: number, available: number): DerivationCodecError {
  return new DerivationCodecError(
    { code: DerivationCodecErrorCode.FRAME_TRUNCATED, field, offset, needed, available: Math.max(0, available) },
    `frame at offset ${offset} is truncated: ${field} needs ${needed} bytes, ${Math.max(0, available)} remain`,
  );
}

/**
 * Decodes the frame at `offset` of `buf`. Throws a {@link DerivationCodecError}: FRAME_TRUNCATED,
 * FRAME_TOO_LARGE (data length over `MAX_FRAME_LEN`), FRAME_INVALID_IS_LAST (a byte other than 0 or 1).
 */
export function decodeFrame(buf: Uint8Array, offset = 0): DecodedFrame {
  const at = (field: string, from: number, n: number) => {
    if (from + n > buf.length) throw truncated(field, offset, n, buf.length - from);
  };
  let p = offset;
  at("channel_id", p, CHANNEL_ID_LENGTH);
  const channelId = buf.subarray(p, p + CHANNEL_ID_LENGTH);
  p += CHANNEL_ID_LENGTH;
  at("frame_number", p, 2);
  const frameNumber = (buf[p]! << 8) | buf[p + 1]!;
  p += 2;
  at("frame_data_length", p, 4);
  const length = ((buf[p]! << 24) | (buf[p + 1]! << 16) | (buf[p + 2]! << 8) | buf[p + 3]!) >>> 0;
  p += 4;
  if (length > MAX_FRAME_LEN) {
    throw new DerivationCodecError(
      { code: DerivationCodecErrorCode.FRAME_TOO_LARGE, offset, length, max: MAX_FRAME_LEN },
      `frame at offset ${offset} declares ${length} bytes of data, more than MAX_FRAME_LEN (${MAX_FRAME_LEN})`,
    );
  }
  at("frame_data", p, length);
  const data = buf.subarray(p, p + length);
  p += length;
  at("is_last", p, 1);
  const isLastByte = buf[p]!;
  if (isLastByte > 1) {
    throw new DerivationCodecError(
      { code: DerivationCodecErrorCode.FRAME_INVALID_IS_LAST, offset, value: isLastByte },
      `frame at offset ${offset} has is_last byte ${isLastByte}, expected 0 or 1`,
    );
  }
  return { frame: { channelId, frameNumber, data, isLast: isLastByte === 1 }, next: p + 1 };
}

/** Checks that `frame` has an encoding (id of 16 bytes, number a u16, data within `MAX_FRAME_LEN`). */
function checkFrame(frame: Frame): void {
  if (frame.channelId.length !== CHANNEL_ID_LENGTH) throw invalidEncodeInput(`channel id is ${frame.channelId.length} bytes, expected ${CHANNEL_ID_LENGTH}`);
  if (!Number.isInteger(frame.frameNumber) || frame.frameNumber < 0 || frame.frameNumber > MAX_FRAME_NUMBER) {
    throw invalidEncodeInput(`frame number ${frame.frameNumber} is not a u16`);
  }
  if (frame.data.length > MAX_FRAME_LEN) throw invalidEncodeInput(`frame data is ${frame.data.length} bytes, more than MAX_FRAME_LEN (${MAX_FRAME_LEN})`);
}

/** Encodes one frame (an INVALID_ENCODE_INPUT error for a frame that has no valid encoding). */
export function encodeFrame(frame: Frame): Uint8Array {
  checkFrame(frame);
  const out = new Uint8Array(FRAME_V0_OVERHEAD + frame.data.length);
  out.set(frame.channelId, 0);
  const view = new DataView(out.buffer);
  view.setUint16(CHANNEL_ID_LENGTH, frame.frameNumber);
  view.setUint32(CHANNEL_ID_LENGTH + 2, frame.data.length);
  out.set(frame.data, CHANNEL_ID_LENGTH + 6);
  out[out.length - 1] = frame.isLast ? 1 : 0;
  return out;
}

/** What one batcher transaction's data yields. */
type BatcherDataResult =
  /** Version 0 data whose frames all parse (at least one). */
  | { status: "frames"; frames: Frame[] }
  /** Data of another version (alt-DA 0x01, or unknown): not frames, ignored by the rules. */
  | { status: "ignored"; version: number }
  /** Version 0 data that fails to parse: none of its frames count. */
  | { status: "dropped"; error: DerivationCodecError };

/**
 * Parses one batcher transaction's data (calldata, or one decoded blob) into frames: all of them
 * or none (op-node `ParseFrames`: a bad frame, trailing bytes or no frame at all drop the whole
 * transaction). Never throws.
 */
export function parseBatcherData(data: Uint8Array): BatcherDataResult {
  if (data.length === 0 || (data[0] === DERIVATION_VERSION_0 && data.length === 1)) {
    return {
      status: "dropped",
      error: new DerivationCodecError(
        { code: DerivationCodecErrorCode.NO_FRAMES, length: data.length },
        `batcher data of ${data.length} byte(s) holds no frame; expected the version byte 0x00 and at least one frame`,
      ),
    };
  }
  if (data[0] !== DERIVATION_VERSION_0) return { status: "ignored", version: data[0]! };
  const frames: Frame[] = [];
  try {
    for (let p = 1; p < data.length; ) {
      const { frame, next } = decodeFrame(data, p);
      frames.push(frame);
      p = next;
    }
  } catch (e) {
    if (e instanceof DerivationCodecError) return { status: "dropped", error: e };
    throw e;
  }
  return { status: "frames", frames };
}

/** Batcher transaction data for `frames`: the version byte 0x00 and the frames in order. */
export function encodeBatcherData(frames: readonly Frame[]): Uint8Array {
  return joinBytes([Uint8Array.of(DERIVATION_VERSION_0), ...frames.map(encodeFrame)]);
}

/** A frame's weight in its channel's size (data + `FRAME_OVERHEAD_BYTES`), as the channel assembler counts it. */
export function frameSize(frame: Frame): number {
  return frame.data.length + FRAME_OVERHEAD_BYTES;
}

/**
 * Splits channel bytes into frames of at most `maxFrameBytes` encoded bytes each (data up to
 * `maxFrameBytes - 23`, and up to `MAX_FRAME_LEN`), numbered from 0, the last one closing the
 * channel. An empty channel is one empty closing frame.
 */
export function channelToFrames(channelId: Uint8Array, channel: Uint8Array, maxFrameBytes: number): Frame[] {
  if (channelId.length !== CHANNEL_ID_LENGTH) throw invalidEncodeInput(`channel id is ${channelId.length} bytes, expected ${CHANNEL_ID_LENGTH}`);
  if (!(maxFrameBytes > FRAME_V0_OVERHEAD)) throw invalidEncodeInput(`a frame of at most ${maxFrameBytes} bytes holds no data (the frame overhead is ${FRAME_V0_OVERHEAD})`);
  const per = Math.min(Math.floor(maxFrameBytes) - FRAME_V0_OVERHEAD, MAX_FRAME_LEN);
  const count = Math.max(1, Math.ceil(channel.length / per));
  if (count > MAX_FRAME_NUMBER + 1) throw invalidEncodeInput(`a channel of ${channel.length} bytes needs ${count} frames of ${per} bytes, more than ${MAX_FRAME_NUMBER + 1}`);
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) {
    frames.push({ channelId, frameNumber: i, data: channel.subarray(i * per, (i + 1) * per), isLast: i === count - 1 });
  }
  return frames;
}

/**
 * Batcher data that force-closes a channel (op-node `ForceCloseTxData`), given every frame of it
 * already posted, in L1 order: when none closed it, one empty frame 0 that closes it; otherwise
 * empty frames for each number missing below the first closing frame. An INVALID_ENCODE_INPUT
 * error for no frames or frames of different channels.
 */
export function forceCloseTxData(frames: readonly Frame[]): Uint8Array {
  if (frames.length === 0) throw invalidEncodeInput("force-closing a channel needs at least one of its frames");
  const channelId = frames[0]!.channelId;
  const seen = new Set<number>();
  let closeNumber: number | undefined;
  frames.forEach((f, i) => {
    if (bytesToHex(f.channelId) !== bytesToHex(channelId)) {
      throw invalidEncodeInput(`frame ${i} belongs to channel ${bytesToHex(f.channelId)}, the first to ${bytesToHex(channelId)}`);
    }
    if (closeNumber === undefined && f.isLast) closeNumber = f.frameNumber;
    seen.add(f.frameNumber);
  });
  const empty = new Uint8Array(0);
  if (closeNumber === undefined) return encodeBatcherData([{ channelId, frameNumber: 0, data: empty, isLast: true }]);
  const missing: Frame[] = [];
  for (let n = 0; n <= closeNumber; n++) {
    if (!seen.has(n)) missing.push({ channelId, frameNumber: n, data: empty, isLast: false });
  }
  return encodeBatcherData(missing);
}
