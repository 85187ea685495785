/**
 * Channels as batch streams (specs derivation.md "Channel Format"; op-node `BatchReader` and
 * `ChannelInReader`): a channel decompresses to consecutive RLP byte strings, each one batch
 * (`batch_type ++ content`). Reading keeps every batch decoded before the first problem — a
 * malformed string, a batch that does not decode, the `MAX_RLP_BYTES_PER_CHANNEL` limit, a corrupt
 * or truncated compressed stream — and stops there, as op-node moves on to the next channel.
 */
import { RLP } from "@ethereumjs/rlp";
import { type Batch, decodeBatch, encodeBatch } from "./batch.js";
import { joinBytes } from "./bytes.js";
import { type ChannelCompression, DerivationCodecError, DerivationCodecErrorCode } from "./codecErrors.js";
import { type CompressChannelOptions, type DecompressChannelOptions, compressChannel, decompressChannel } from "./channelCompression.js";
import { rlpItem } from "./rlp.js";

/** The batches of a decompressed batch stream, up to where reading stopped. */
interface BatchStreamResult {
  /** Every batch decoded before reading stopped, in order. */
  batches: Batch[];
  /** Bytes of the stream those batches take. */
  consumedBytes: number;
  /** Why reading stopped before the end of the stream (undefined: it ended cleanly). */
  error?: DerivationCodecError;
}

/**
 * Decodes a decompressed batch stream. `endError` explains why the stream ends where it does when
 * it was cut (CHANNEL_LIMIT, CORRUPT_COMPRESSION): a batch cut by the end stops reading with that
 * error. Otherwise stops at the first MALFORMED_BATCH_STREAM or batch decoding error. Never throws.
 */
export function decodeBatchStream(data: Uint8Array, endError?: DerivationCodecError): BatchStreamResult {
  const batches: Batch[] = [];
  let p = 0;
  while (p < data.length) {
    const at = p;
    const seen = { cut: false };
    const fail = (reason: string, truncated = false) => {
      seen.cut = truncated;
      return new DerivationCodecError({ code: DerivationCodecErrorCode.MALFORMED_BATCH_STREAM, offset: at, reason }, `malformed batch at offset ${at} of the channel: ${reason}`);
    };
    try {
      const item = rlpItem(data, p, data.length, fail);
      if (item.list) throw fail("an RLP list, expected a byte string holding one batch");
      batches.push(decodeBatch(data.subarray(item.contentStart, item.end)));
      p = item.end;
    } catch (e) {
      if (!(e instanceof DerivationCodecError)) throw e;
      return { batches, consumedBytes: p, error: seen.cut && endError !== undefined ? endError : e };
    }
  }
  return { batches, consumedBytes: p, ...(endError ? { error: endError } : {}) };
}

/** The batch stream of `batches`: each batch encoded and wrapped in an RLP byte string. */
export function encodeBatchStream(batches: readonly Batch[]): Uint8Array {
  return joinBytes(batches.map((b) => RLP.encode(encodeBatch(b))));
}

/** What reading one channel gave. */
interface ChannelReadResult extends BatchStreamResult {
  /** The compression named by the channel's first byte (undefined when it names none). */
  compression: ChannelCompression | undefined;
  /** Decompressed bytes read (at most `MAX_RLP_BYTES_PER_CHANNEL`). */
  decompressedBytes: number;
  /** Bytes the decompressor emitted before it finished or was stopped (at most the limit plus one output chunk). */
  producedBytes: number;
}

/**
 * Reads a channel's batches: decompresses (at most `MAX_RLP_BYTES_PER_CHANNEL` bytes, brotli only
 * with Fjord) and decodes the batch stream, keeping every batch decoded before the first problem,
 * which comes back as `error`. Span batches are returned raw (`deriveSpanBatch` rebuilds their
 * transactions). Never rejects.
 */
export async function readChannel(channel: Uint8Array, opts: DecompressChannelOptions): Promise<ChannelReadResult> {
  const d = await decompressChannel(channel, opts);
  const stream = decodeBatchStream(d.data, d.error);
  return { ...stream, compression: d.compression, decompressedBytes: d.data.length, producedBytes: d.producedBytes };
}

/**
 * The channel bytes of `batches` (the batcher side): the batch stream compressed with zlib, or
 * `0x01 ++` brotli (Fjord and later).
 */
export function encodeChannel(batches: readonly Batch[], opts: CompressChannelOptions): Uint8Array {
  return compressChannel(encodeBatchStream(batches), opts);
}
