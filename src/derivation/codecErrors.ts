/**
 * Typed errors of the derivation codecs (frames, channels, batches): stable codes, metadata per
 * code (numbers as numbers, u64 values and block numbers as decimal strings, bytes as 0x hex) and
 * messages that say what was wrong and what was expected.
 *
 * The decoders throw these for malformed input; the stage-level readers (`parseBatcherData`,
 * `readChannel`) return them as the reason a transaction or channel was dropped, never throw.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link DerivationCodecError}. */
export const DerivationCodecErrorCode = {
  /** A frame ends before one of its fields (channel id, number, length, data, is_last). */
  FRAME_TRUNCATED: "DERIVATION_FRAME_TRUNCATED",
  /** A frame declares more data than `MAX_FRAME_LEN` (1,000,000 bytes). */
  FRAME_TOO_LARGE: "DERIVATION_FRAME_TOO_LARGE",
  /** A frame's is_last byte is neither 0 nor 1. */
  FRAME_INVALID_IS_LAST: "DERIVATION_FRAME_INVALID_IS_LAST",
  /** Batcher data that holds no frame (empty, or the version byte alone). */
  NO_FRAMES: "DERIVATION_NO_FRAMES",
  /** A channel of zero bytes. */
  CHANNEL_EMPTY: "DERIVATION_CHANNEL_EMPTY",
  /** A channel whose first byte names neither zlib (low nibble 8 or 15) nor brotli (0x01). */
  UNKNOWN_COMPRESSION: "DERIVATION_UNKNOWN_COMPRESSION",
  /** A brotli channel (0x01) read while Fjord is not active. */
  BROTLI_BEFORE_FJORD: "DERIVATION_BROTLI_BEFORE_FJORD",
  /** A zlib channel whose 2-byte header Go's zlib reader refuses (method, window, check bits, preset dictionary). */
  BAD_ZLIB_HEADER: "DERIVATION_BAD_ZLIB_HEADER",
  /** The compressed stream is corrupt; reading stopped where the decompressor detected it. */
  CORRUPT_COMPRESSION: "DERIVATION_CORRUPT_COMPRESSION",
  /** The channel decompresses to more than `MAX_RLP_BYTES_PER_CHANNEL`; reading stopped at the limit. */
  CHANNEL_LIMIT: "DERIVATION_CHANNEL_LIMIT",
  /** The decompressed batch stream is not a sequence of canonical RLP byte strings (a list, truncated, or non-canonical). */
  MALFORMED_BATCH_STREAM: "DERIVATION_MALFORMED_BATCH_STREAM",
  /** A batch of zero bytes, or whose type byte is not 0 (singular) or 1 (span). */
  UNKNOWN_BATCH_TYPE: "DERIVATION_UNKNOWN_BATCH_TYPE",
  /** A singular batch that is not `rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list])`. */
  MALFORMED_SINGULAR_BATCH: "DERIVATION_MALFORMED_SINGULAR_BATCH",
  /** A span batch field that is truncated, overflows, or breaks its encoding. */
  MALFORMED_SPAN_BATCH: "DERIVATION_MALFORMED_SPAN_BATCH",
  /** A span batch count over `MAX_SPAN_BATCH_ELEMENT_COUNT` (blocks, transactions, or one tx_data's bytes). */
  SPAN_BATCH_TOO_BIG: "DERIVATION_SPAN_BATCH_TOO_BIG",
  /** A span batch of zero blocks. */
  EMPTY_SPAN_BATCH: "DERIVATION_EMPTY_SPAN_BATCH",
  /** A span batch bitlist with a bit set at or beyond its length. */
  BITLIST_TOO_LONG: "DERIVATION_BITLIST_TOO_LONG",
  /** A span batch transaction that cannot be rebuilt: unknown type, malformed tx_data, a set-code transaction without `to`. */
  INVALID_SPAN_TX: "DERIVATION_INVALID_SPAN_TX",
  /** Expanding a span batch needs the hash of an L1 block the caller does not know. */
  MISSING_EPOCH_HASH: "DERIVATION_MISSING_EPOCH_HASH",
  /** Encoder input that has no valid encoding (a frame field out of range, a transaction of another chain, …). */
  INVALID_ENCODE_INPUT: "DERIVATION_INVALID_ENCODE_INPUT",
} as const;
/** One of the {@link DerivationCodecErrorCode} values. */
export type DerivationCodecErrorCode = (typeof DerivationCodecErrorCode)[keyof typeof DerivationCodecErrorCode];

/** The compressions a channel may use. */
export type ChannelCompression = "zlib" | "brotli";

/** A {@link DerivationCodecError}'s code with its metadata. */
type DerivationCodecErrorType =
  /** `field`: the frame field that is cut; `offset`: where the frame starts in its input; `needed`/`available`: bytes. */
  | { code: typeof DerivationCodecErrorCode.FRAME_TRUNCATED; field: string; offset: number; needed: number; available: number }
  | { code: typeof DerivationCodecErrorCode.FRAME_TOO_LARGE; offset: number; length: number; max: number }
  | { code: typeof DerivationCodecErrorCode.FRAME_INVALID_IS_LAST; offset: number; value: number }
  | { code: typeof DerivationCodecErrorCode.NO_FRAMES; length: number }
  | { code: typeof DerivationCodecErrorCode.CHANNEL_EMPTY }
  | { code: typeof DerivationCodecErrorCode.UNKNOWN_COMPRESSION; firstByte: number }
  | { code: typeof DerivationCodecErrorCode.BROTLI_BEFORE_FJORD }
  | { code: typeof DerivationCodecErrorCode.BAD_ZLIB_HEADER; reason: string }
  /** `decompressedBytes`: output the decompressor gave before it failed (all of it is read). */
  | { code: typeof DerivationCodecErrorCode.CORRUPT_COMPRESSION; compression: ChannelCompression; reason: string; decompressedBytes: number }
  | { code: typeof DerivationCodecErrorCode.CHANNEL_LIMIT; limit: number }
  /** `offset`: position of the offending batch in the decompressed stream. */
  | { code: typeof DerivationCodecErrorCode.MALFORMED_BATCH_STREAM; offset: number; reason: string }
  /** `batchType`: the type byte, or -1 for an empty batch. */
  | { code: typeof DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE; batchType: number }
  | { code: typeof DerivationCodecErrorCode.MALFORMED_SINGULAR_BATCH; reason: string }
  /** `field`: the span batch field (`rel_timestamp`, `tx_datas`, …). */
  | { code: typeof DerivationCodecErrorCode.MALFORMED_SPAN_BATCH; field: string; reason: string }
  /** `count`: the value found (decimal); `max`: the limit. */
  | { code: typeof DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG; field: string; count: string; max: number }
  | { code: typeof DerivationCodecErrorCode.EMPTY_SPAN_BATCH }
  /** `highestSetBit`: index of the highest set bit, at or beyond `bitLength`. */
  | { code: typeof DerivationCodecErrorCode.BITLIST_TOO_LONG; field: string; bitLength: number; highestSetBit: number }
  /** `index`: the transaction's position in the span batch. */
  | { code: typeof DerivationCodecErrorCode.INVALID_SPAN_TX; index: number; reason: string }
  /** `epoch`: the L1 block number (decimal). */
  | { code: typeof DerivationCodecErrorCode.MISSING_EPOCH_HASH; epoch: string }
  | { code: typeof DerivationCodecErrorCode.INVALID_ENCODE_INPUT; reason: string };

/** An error of the derivation codecs: malformed frames, channels or batches, or input the encoders cannot encode. */
export class DerivationCodecError extends TypedError<DerivationCodecErrorType> {}

/** A {@link DerivationCodecErrorCode.MALFORMED_SPAN_BATCH} error naming the field and what is wrong with it. */
export function malformedSpanBatch(field: string, reason: string): DerivationCodecError {
  return new DerivationCodecError({ code: DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, field, reason }, `malformed span batch ${field}: ${reason}`);
}

/** A {@link DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG} error: `field` counts `count`, over `max`. */
export function spanBatchTooBig(field: string, count: bigint | number, max: number): DerivationCodecError {
  return new DerivationCodecError(
    { code: DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG, field, count: count.toString(), max },
    `span batch ${field} is ${count}, more than MAX_SPAN_BATCH_ELEMENT_COUNT (${max})`,
  );
}

/** A {@link DerivationCodecErrorCode.MALFORMED_SINGULAR_BATCH} error with the reason. */
export function malformedSingularBatch(reason: string): DerivationCodecError {
  return new DerivationCodecError(
    { code: DerivationCodecErrorCode.MALFORMED_SINGULAR_BATCH, reason },
    `malformed singular batch: ${reason}; expected rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list])`,
  );
}

/** A {@link DerivationCodecErrorCode.INVALID_SPAN_TX} error for the transaction at `index`. */
export function invalidSpanTx(index: number, reason: string): DerivationCodecError {
  return new DerivationCodecError({ code: DerivationCodecErrorCode.INVALID_SPAN_TX, index, reason }, `span batch transaction ${index} is invalid: ${reason}`);
}

/** A {@link DerivationCodecErrorCode.INVALID_ENCODE_INPUT} error with the reason. */
export function invalidEncodeInput(reason: string): DerivationCodecError {
  return new DerivationCodecError({ code: DerivationCodecErrorCode.INVALID_ENCODE_INPUT, reason }, `cannot encode: ${reason}`);
}
