import { TypedError } from "../util/errors.js";

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
/** A {@link FlashblockDecodeError}'s code with its metadata. */
type FlashblockDecodeErrorType =
  | { code: typeof FlashblockErrorCode.BAD_FIELD; field: string }
  | { code: typeof FlashblockErrorCode.MALFORMED_JSON }
  | { code: typeof FlashblockErrorCode.TOO_LARGE }
  | { code: typeof FlashblockErrorCode.BAD_COMPRESSION }
  | { code: typeof FlashblockErrorCode.BAD_UTF8 };

/** A flashblocks wire frame that could not be decoded; `meta.field` names the offending JSON path when there is one. */
export class FlashblockDecodeError extends TypedError<FlashblockDecodeErrorType> {}

/** Stable codes of a request for the pending state as of one flashblock (`{blockNumber, flashblockIndex}`, base/base issue #508). */
export const FlashblockPositionErrorCode = {
  /** This node has not applied that flashblock yet (another node may have): retry elsewhere or later. */
  NOT_YET: "FB_POSITION_NOT_YET",
  /** The block is pending here but that index is no longer retained (a new build of the block replaced it). */
  NOT_RETAINED: "FB_POSITION_NOT_RETAINED",
} as const;

/** A flashblock position: block number and flashblock index. */
export interface FlashblockPosition {
  blockNumber: number;
  flashblockIndex: number;
}

/** The position named, and this node's flashblock height (null without pending data): the JSON-RPC error's `data`. */
interface FlashblockPositionMeta extends Record<string, unknown> {
  blockNumber: string;
  flashblockIndex: string;
  height: { blockNumber: string; flashblockIndex: string } | null;
}

const q = (n: number): string => "0x" + n.toString(16);

/** The JSON form (hex quantities) of a flashblock height, as `base_flashblockHeight` and `eth_subscribe("flashblockHeight")` answer it. */
export function heightJson(h: FlashblockPosition): { blockNumber: string; flashblockIndex: string } {
  return { blockNumber: q(h.blockNumber), flashblockIndex: q(h.flashblockIndex) };
}

/** A {@link FlashblockPositionError}'s code with its metadata. */
type FlashblockPositionErrorType = { code: (typeof FlashblockPositionErrorCode)[keyof typeof FlashblockPositionErrorCode] } & FlashblockPositionMeta;

/**
 * The pending state at `{blockNumber, flashblockIndex}` cannot be served by this node: not yet
 * received ({@link FlashblockPositionErrorCode.NOT_YET}) or no longer retained. The message
 * names the position and this node's height as `<block>-<index>` (base/base's flashblock id
 * form, `prev_flashblock_id`).
 */
export class FlashblockPositionError extends TypedError<FlashblockPositionErrorType> {
  constructor(code: (typeof FlashblockPositionErrorCode)[keyof typeof FlashblockPositionErrorCode], at: FlashblockPosition, height: FlashblockPosition | undefined) {
    const here = height === undefined ? "no pending block" : `${height.blockNumber}-${height.flashblockIndex}`;
    const what = code === FlashblockPositionErrorCode.NOT_YET ? "not yet received" : "no longer retained";
    super({ code, blockNumber: q(at.blockNumber), flashblockIndex: q(at.flashblockIndex), height: height === undefined ? null : heightJson(height) }, `flashblock ${at.blockNumber}-${at.flashblockIndex} ${what} (this node is at ${here})`);
  }
}
