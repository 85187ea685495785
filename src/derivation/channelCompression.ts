/**
 * Channel compression (specs derivation.md "Channel Format", fjord/derivation.md "Brotli Channel
 * Compression"; op-node `channel.go` `BatchReader`, `channel_compressor.go`).
 *
 * A channel is `zlib(rlp_batches)` (RFC 1950, no dictionary: first byte's low nibble 8 or 15) or,
 * once Fjord is active, `0x01 ++ brotli(rlp_batches)` (RFC 7932). Reading keeps at most
 * `MAX_RLP_BYTES_PER_CHANNEL` decompressed bytes (10 MB, 100 MB from Fjord): the channel reads
 * as though it held only those, and the decompressor is stopped one output chunk past the limit,
 * so a decompression bomb is cut off without its output ever being allocated. A truncated stream
 * yields all it decodes; a corrupt one yields what the decompressor gave before it detected the
 * corruption (op-node keeps the batches decoded before an error, `readChannel` does the same).
 *
 * Matching Go's zlib reader, which op-node uses, the zlib header is checked here (method 8, window
 * ≤ 32 KiB, check bits, no preset dictionary: a low nibble of 15 passes the spec's detection but
 * no reader accepts it) and the deflate body inflated raw; the Adler-32 trailer is not checked: Go
 * reports a bad one only after the last byte, when every batch has been read.
 */
import type { Transform } from "node:stream";
import { brotliCompressSync, constants as zc, createBrotliDecompress, createInflateRaw, deflateSync } from "node:zlib";
import { CHANNEL_BROTLI_LGWIN, CHANNEL_BROTLI_QUALITY } from "../config/constants.js";
import { CHANNEL_DECOMPRESS_CHUNK_BYTES, CHANNEL_ZLIB_LEVEL, MAX_RLP_BYTES_PER_CHANNEL_BEDROCK, MAX_RLP_BYTES_PER_CHANNEL_FJORD } from "./constants.js";
import { type ChannelCompression, DerivationCodecError, DerivationCodecErrorCode, invalidEncodeInput } from "./codecErrors.js";

/** First byte of a brotli channel (op-node `ChannelVersionBrotli`). */
export const CHANNEL_VERSION_BROTLI = 0x01;
/** zlib compression method "deflate" (RFC 1950 CM = 8). */
const ZLIB_CM_DEFLATE = 8;
/** zlib CM = 15, reserved: the spec's detection accepts it, though no zlib reader does. */
const ZLIB_CM_RESERVED = 15;
/** Largest zlib CINFO (window 2^(7+8) = 32 KiB). */
const ZLIB_MAX_CINFO = 7;
/** zlib FLG bit: a preset dictionary id follows. */
const ZLIB_FDICT = 0x20;
/** First decompression buffer when the output size is unknown; it doubles up to the limit. */
const INITIAL_OUTPUT_BYTES = 64 * 1024;

/** `MAX_RLP_BYTES_PER_CHANNEL` with Fjord active or not. */
export function maxRlpBytesPerChannel(fjord: boolean): number {
  return fjord ? MAX_RLP_BYTES_PER_CHANNEL_FJORD : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
}

/** The compression a channel's first byte names, or undefined for neither (op-node's detection rule). */
export function channelCompressionOf(firstByte: number): ChannelCompression | undefined {
  const cm = firstByte & 0x0f;
  if (cm === ZLIB_CM_DEFLATE || cm === ZLIB_CM_RESERVED) return "zlib";
  if (firstByte === CHANNEL_VERSION_BROTLI) return "brotli";
  return undefined;
}

/** What decompressing one channel gave. */
interface DecompressedChannel {
  /** The compression named by the first byte (undefined when it names none). */
  compression: ChannelCompression | undefined;
  /** The decompressed bytes, at most {@link limit}. */
  data: Uint8Array;
  /** `MAX_RLP_BYTES_PER_CHANNEL` that applied. */
  limit: number;
  /** Bytes the decompressor emitted before it finished or was stopped: at most `limit + CHANNEL_DECOMPRESS_CHUNK_BYTES`. */
  producedBytes: number;
  /**
   * Why decompression stopped before a clean end: CHANNEL_EMPTY, UNKNOWN_COMPRESSION,
   * BROTLI_BEFORE_FJORD, BAD_ZLIB_HEADER (no data), CORRUPT_COMPRESSION (data up to the
   * corruption), CHANNEL_LIMIT (data = the first `limit` bytes).
   */
  error?: DerivationCodecError;
}

/** Options of {@link decompressChannel}. */
export interface DecompressChannelOptions {
  /** Whether Fjord is active (op-node: at the L1 origin): allows brotli and raises the limit to 100 MB. */
  fjord: boolean;
}

/**
 * Decompresses one channel, keeping at most `MAX_RLP_BYTES_PER_CHANNEL` bytes. Never rejects:
 * malformed input comes back as {@link DecompressedChannel.error} with whatever was decoded.
 */
export async function decompressChannel(channel: Uint8Array, opts: DecompressChannelOptions): Promise<DecompressedChannel> {
  const limit = maxRlpBytesPerChannel(opts.fjord);
  const none = (compression: ChannelCompression | undefined, error: DerivationCodecError): DecompressedChannel => ({
    compression,
    data: new Uint8Array(0),
    limit,
    producedBytes: 0,
    error,
  });
  if (channel.length === 0) {
    return none(undefined, new DerivationCodecError({ code: DerivationCodecErrorCode.CHANNEL_EMPTY }, "channel is empty; expected a zlib stream or 0x01 ++ brotli stream"));
  }
  const compression = channelCompressionOf(channel[0]!);
  if (compression === undefined) {
    return none(
      undefined,
      new DerivationCodecError(
        { code: DerivationCodecErrorCode.UNKNOWN_COMPRESSION, firstByte: channel[0]! },
        `channel starts with 0x${channel[0]!.toString(16).padStart(2, "0")}, which names no compression; expected zlib (low nibble 8 or 15) or 0x01 (brotli)`,
      ),
    );
  }
  if (compression === "brotli") {
    if (!opts.fjord) {
      return none(
        compression,
        new DerivationCodecError({ code: DerivationCodecErrorCode.BROTLI_BEFORE_FJORD }, "channel is brotli-compressed (0x01), which is valid only once Fjord is active"),
      );
    }
    return decompressBounded(createBrotliDecompress({ chunkSize: CHANNEL_DECOMPRESS_CHUNK_BYTES, finishFlush: zc.BROTLI_OPERATION_FLUSH }), channel.subarray(1), limit, compression);
  }
  const bad = zlibHeaderProblem(channel);
  if (bad !== undefined) {
    return none(compression, new DerivationCodecError({ code: DerivationCodecErrorCode.BAD_ZLIB_HEADER, reason: bad }, `channel has an invalid zlib header: ${bad}`));
  }
  return decompressBounded(createInflateRaw({ chunkSize: CHANNEL_DECOMPRESS_CHUNK_BYTES, finishFlush: zc.Z_SYNC_FLUSH }), channel.subarray(2), limit, compression);
}

/** Why Go's `zlib.NewReader` refuses this header, or undefined when it accepts it. */
function zlibHeaderProblem(channel: Uint8Array): string | undefined {
  if (channel.length < 2) return "the 2-byte header is truncated";
  const cmf = channel[0]!;
  const flg = channel[1]!;
  if ((cmf & 0x0f) !== ZLIB_CM_DEFLATE) return `compression method ${cmf & 0x0f}, expected 8 (deflate)`;
  if (cmf >> 4 > ZLIB_MAX_CINFO) return `window size field ${cmf >> 4}, expected at most ${ZLIB_MAX_CINFO}`;
  if (((cmf << 8) | flg) % 31 !== 0) return "header check bits do not make the header a multiple of 31";
  if ((flg & ZLIB_FDICT) !== 0) return "a preset dictionary is required, and channels use none";
  return undefined;
}

/**
 * Runs `input` through the decompressor `stream`, keeping the first `limit` bytes of output and
 * destroying the stream once its output passes the limit.
 */
function decompressBounded(stream: Transform, input: Uint8Array, limit: number, compression: ChannelCompression): Promise<DecompressedChannel> {
  return new Promise((resolve) => {
    let out = new Uint8Array(Math.min(limit, Math.max(INITIAL_OUTPUT_BYTES, input.length * 4)));
    let kept = 0;
    let produced = 0;
    let done = false;
    const finish = (error?: DerivationCodecError) => {
      if (done) return;
      done = true;
      resolve({ compression, data: out.subarray(0, kept), limit, producedBytes: produced, ...(error ? { error } : {}) });
    };
    stream.on("data", (chunk: Buffer) => {
      if (done) return;
      produced += chunk.length;
      const take = Math.min(chunk.length, limit - kept);
      if (take > 0) {
        if (kept + take > out.length) {
          const grown = new Uint8Array(Math.min(limit, Math.max(out.length * 2, kept + take)));
          grown.set(out.subarray(0, kept));
          out = grown;
        }
        out.set(chunk.subarray(0, take), kept);
        kept += take;
      }
      if (produced > limit) {
        finish(
          new DerivationCodecError(
            { code: DerivationCodecErrorCode.CHANNEL_LIMIT, limit },
            `channel decompresses to more than MAX_RLP_BYTES_PER_CHANNEL (${limit} bytes); it reads as its first ${limit} bytes`,
          ),
        );
        stream.destroy();
      }
    });
    stream.on("error", (e: Error) => {
      finish(
        new DerivationCodecError(
          { code: DerivationCodecErrorCode.CORRUPT_COMPRESSION, compression, reason: e.message, decompressedBytes: kept },
          `channel's ${compression} stream is corrupt after ${kept} decompressed bytes: ${e.message}`,
          { cause: e },
        ),
      );
    });
    stream.on("end", () => finish());
    stream.end(input);
  });
}

/** Options of {@link compressChannel}. */
export interface CompressChannelOptions {
  /** zlib (any fork) or brotli (Fjord and later). */
  compression: ChannelCompression;
  /** zlib level 0-9 (default `CHANNEL_ZLIB_LEVEL`) or brotli quality 0-11 (default `CHANNEL_BROTLI_QUALITY`). */
  level?: number;
}

/**
 * Compresses a batch stream (`rlp_batches`) into channel bytes: a zlib stream, or `0x01 ++` a
 * brotli stream. The batcher side of {@link decompressChannel}.
 */
export function compressChannel(rlpBatches: Uint8Array, opts: CompressChannelOptions): Uint8Array {
  if (opts.compression === "zlib") {
    const level = opts.level ?? CHANNEL_ZLIB_LEVEL;
    if (!Number.isInteger(level) || level < 0 || level > 9) throw invalidEncodeInput(`zlib level ${level}, expected 0 to 9`);
    return new Uint8Array(deflateSync(rlpBatches, { level }));
  }
  if (opts.compression !== "brotli") throw invalidEncodeInput(`unknown compression ${String(opts.compression)}, expected zlib or brotli`);
  const quality = opts.level ?? CHANNEL_BROTLI_QUALITY;
  if (!Number.isInteger(quality) || quality < 0 || quality > 11) throw invalidEncodeInput(`brotli quality ${quality}, expected 0 to 11`);
  const body = brotliCompressSync(rlpBatches, {
    params: { [zc.BROTLI_PARAM_QUALITY]: quality, [zc.BROTLI_PARAM_LGWIN]: CHANNEL_BROTLI_LGWIN, [zc.BROTLI_PARAM_SIZE_HINT]: rlpBatches.length },
  });
  const out = new Uint8Array(1 + body.length);
  out[0] = CHANNEL_VERSION_BROTLI;
  out.set(body, 1);
  return out;
}
