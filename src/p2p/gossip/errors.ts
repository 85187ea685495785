/**
 * Typed errors of the OP Stack block gossip codec (snappy block compression, the SSZ payload and
 * envelope, the signed message): stable codes `P2P_GOSSIP_*`, metadata per code, messages that
 * say what was wrong and what was expected. The validator turns them into gossip results; nothing
 * here reaches JSON-RPC.
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link GossipCodecError}. */
export const GossipCodecErrorCode = {
  /** The snappy block stream is corrupt (bad length header, copy before the start, short or long output). */
  BAD_SNAPPY: "P2P_GOSSIP_BAD_SNAPPY",
  /** A message or its decompressed form is larger than the 10 MiB gossip limit. */
  TOO_LARGE: "P2P_GOSSIP_TOO_LARGE",
  /** A decompressed message is shorter than a signature and one payload byte (66 bytes). */
  TOO_SMALL: "P2P_GOSSIP_TOO_SMALL",
  /** The SSZ execution payload (or envelope) does not decode as the topic's version. */
  MALFORMED_SSZ: "P2P_GOSSIP_MALFORMED_SSZ",
  /** A value cannot be encoded in the requested version (a missing field, one out of range). */
  UNENCODABLE: "P2P_GOSSIP_UNENCODABLE",
  /** A signature that is not 65 bytes, or a private key that is not 32. */
  BAD_KEY_OR_SIGNATURE: "P2P_GOSSIP_BAD_KEY_OR_SIGNATURE",
} as const;
/** One of the {@link GossipCodecErrorCode} values. */
export type GossipCodecErrorCode = (typeof GossipCodecErrorCode)[keyof typeof GossipCodecErrorCode];

/** A {@link GossipCodecError}'s code with its metadata. */
type GossipCodecErrorType =
  | { code: typeof GossipCodecErrorCode.BAD_SNAPPY; reason: string }
  | { code: typeof GossipCodecErrorCode.TOO_LARGE; what: string; length: number; max: number }
  | { code: typeof GossipCodecErrorCode.TOO_SMALL; length: number; min: number }
  | { code: typeof GossipCodecErrorCode.MALFORMED_SSZ; version: number; reason: string }
  | { code: typeof GossipCodecErrorCode.UNENCODABLE; version: number; field: string; reason: string }
  | { code: typeof GossipCodecErrorCode.BAD_KEY_OR_SIGNATURE; what: string; length: number; expected: number };

/** A gossip message, payload or key that cannot be decoded or encoded. */
export class GossipCodecError extends TypedError<GossipCodecErrorType> {}

/** A {@link GossipCodecErrorCode.BAD_SNAPPY} error. */
export function badSnappy(reason: string): GossipCodecError {
  return new GossipCodecError({ code: GossipCodecErrorCode.BAD_SNAPPY, reason }, `invalid snappy block data: ${reason}`);
}

/** A {@link GossipCodecErrorCode.MALFORMED_SSZ} error for a payload of block version `version`. */
export function malformedSsz(version: number, reason: string): GossipCodecError {
  return new GossipCodecError({ code: GossipCodecErrorCode.MALFORMED_SSZ, version, reason }, `malformed blocks v${version} payload: ${reason}`);
}

/** A {@link GossipCodecErrorCode.UNENCODABLE} error: `field` cannot be encoded in version `version`. */
export function unencodable(version: number, field: string, reason: string): GossipCodecError {
  return new GossipCodecError({ code: GossipCodecErrorCode.UNENCODABLE, version, field, reason }, `cannot encode ${field} in a blocks v${version} payload: ${reason}`);
}
