import { BasaltError } from "../util/errors.js";

/** Stable codes of flashblock frame decoding errors (base/base `Flashblock::try_decode_message` failure classes). */
export const FlashblockErrorCode = {
  /** The frame (after decompression) is not valid UTF-8. */
  BAD_UTF8: "FB_BAD_UTF8",
  /** The frame is neither JSON text nor a valid brotli stream. */
  BAD_COMPRESSION: "FB_BAD_COMPRESSION",
  /** The decoded frame is larger than `MAX_DECOMPRESSED_FLASHBLOCK_BYTES`. */
  TOO_LARGE: "FB_TOO_LARGE",
  /** The text is not parseable JSON or its top level is not an object. */
  MALFORMED_JSON: "FB_MALFORMED_JSON",
  /** A field is missing, has the wrong JSON type or encoding, or breaks a cross-field rule. */
  BAD_FIELD: "FB_BAD_FIELD",
} as const;
/** One of the {@link FlashblockErrorCode} values. */
export type FlashblockErrorCodeT = (typeof FlashblockErrorCode)[keyof typeof FlashblockErrorCode];

/** A flashblocks wire frame that could not be decoded; `meta.field` names the offending JSON path when there is one. */
export class FlashblockDecodeError extends BasaltError<{ field?: string }> {
  constructor(code: FlashblockErrorCodeT, message: string, meta: { field?: string } = {}, options?: { cause?: unknown }) {
    super(code, message, meta, options);
  }
}
