/**
 * Typed errors of L1 blob handling: OP blob encoding v0 (`blobCodec.ts`), KZG (`kzg.ts`) and the
 * beacon-API client (`beaconClient.ts`). Stable codes, metadata per code (slots and timestamps
 * decimal, hashes 0x hex), messages that say what was wrong and what was expected.
 *
 * What derivation does with each (specs ecotone/derivation.md "Blob Retrieval"): an invalid
 * encoding ({@link isInvalidBlobEncoding}) means "ignore this blob"; {@link BlobErrorCode.KZG_MISMATCH}
 * means the source served a wrong blob (count it, try again or elsewhere); {@link BlobErrorCode.SLOT_NOT_FOUND}
 * means a missed or orphaned beacon slot (reset, as base/base does); the other beacon codes are
 * transient transport failures.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link BlobError}. */
export const BlobErrorCode = {
  /** An input of the wrong length: a blob not 131,072 bytes, a commitment or proof not 48, a versioned hash not 32. */
  WRONG_SIZE: "BLOB_WRONG_SIZE",
  /** Decode: the version byte (byte 1 of field element 0) is not 0. */
  INVALID_VERSION: "BLOB_INVALID_VERSION",
  /** Decode: the length prefix exceeds 130,044 bytes. */
  INVALID_LENGTH: "BLOB_INVALID_LENGTH",
  /** Decode: a decoded field element has one of the two high bits of its byte 0 set. */
  INVALID_FIELD_ELEMENT: "BLOB_INVALID_FIELD_ELEMENT",
  /** Decode: a non-zero byte after the payload inside the decoded rounds (op-service ErrBlobExtraneousDataFieldElement). */
  EXTRANEOUS_FIELD_ELEMENT_DATA: "BLOB_EXTRANEOUS_FIELD_ELEMENT_DATA",
  /** Decode: a non-zero byte in the blob after the last decoded round (op-service ErrBlobExtraneousData). */
  EXTRANEOUS_DATA: "BLOB_EXTRANEOUS_DATA",
  /** Encode: a payload longer than 130,044 bytes. */
  PAYLOAD_TOO_LARGE: "BLOB_PAYLOAD_TOO_LARGE",
  /** KZG: the library refused an input (a field element ≥ the BLS modulus, bytes that are no G1 point). */
  KZG_INVALID_INPUT: "BLOB_KZG_INVALID_INPUT",
  /** A blob that does not verify against its versioned hash (recomputed commitment, or commitment and proof). */
  KZG_MISMATCH: "BLOB_KZG_MISMATCH",
  /** Beacon API: HTTP 404 for the slot, a missed or orphaned beacon block whose blobs will never come. */
  SLOT_NOT_FOUND: "BLOB_SLOT_NOT_FOUND",
  /** Beacon API: the slot answered, but without a blob of a requested versioned hash (pruned, or a partial answer). */
  NOT_SERVED: "BLOB_NOT_SERVED",
  /** Beacon API: no answer: connection refused or reset, DNS failure, or the request timed out. */
  BEACON_UNREACHABLE: "BLOB_BEACON_UNREACHABLE",
  /** Beacon API: an HTTP status other than 200 (and other than the 404 of a missing slot). */
  BEACON_HTTP_ERROR: "BLOB_BEACON_HTTP_ERROR",
  /** Beacon API: a 200 whose body is not what the API defines (bad JSON, missing fields, bad hex, too large). */
  BEACON_BAD_RESPONSE: "BLOB_BEACON_BAD_RESPONSE",
  /** An L1 timestamp before the beacon chain's genesis: no slot holds it. */
  BEFORE_GENESIS: "BLOB_BEFORE_GENESIS",
} as const;
/** One of the {@link BlobErrorCode} values. */
export type BlobErrorCode = (typeof BlobErrorCode)[keyof typeof BlobErrorCode];

/** A {@link BlobError}'s code with its metadata. */
type BlobErrorType =
  /** `what`: which input ("blob", "commitment", "proof", "versioned hash"). */
  | { code: typeof BlobErrorCode.WRONG_SIZE; what: string; expected: number; got: number }
  | { code: typeof BlobErrorCode.INVALID_VERSION; version: number }
  | { code: typeof BlobErrorCode.INVALID_LENGTH; length: number; max: number }
  /** `fieldElement`: index 0–4095 of the offending field element; `byte`: its byte 0. */
  | { code: typeof BlobErrorCode.INVALID_FIELD_ELEMENT; fieldElement: number; byte: number }
  /** `offset`: offset in the decoded stream (payload offset + 4) of the first non-zero byte past the payload. */
  | { code: typeof BlobErrorCode.EXTRANEOUS_FIELD_ELEMENT_DATA; offset: number; length: number }
  /** `offset`: blob byte offset of the first non-zero byte past the decoded rounds. */
  | { code: typeof BlobErrorCode.EXTRANEOUS_DATA; offset: number; length: number }
  | { code: typeof BlobErrorCode.PAYLOAD_TOO_LARGE; length: number; max: number }
  /** `operation`: the KZG function; `reason`: the library's own message. */
  | { code: typeof BlobErrorCode.KZG_INVALID_INPUT; operation: string; reason: string }
  /** `slot` when the blob came from a beacon API; `reason` says what did not match. */
  | { code: typeof BlobErrorCode.KZG_MISMATCH; versionedHash: string; slot?: string; reason: string }
  | { code: typeof BlobErrorCode.SLOT_NOT_FOUND; slot: string; url: string }
  | { code: typeof BlobErrorCode.NOT_SERVED; slot: string; versionedHash: string; url: string }
  | { code: typeof BlobErrorCode.BEACON_UNREACHABLE; url: string; reason: string }
  /** `body`: the first few hundred characters of the answer. */
  | { code: typeof BlobErrorCode.BEACON_HTTP_ERROR; url: string; status: number; body: string }
  | { code: typeof BlobErrorCode.BEACON_BAD_RESPONSE; url: string; reason: string }
  | { code: typeof BlobErrorCode.BEFORE_GENESIS; timestamp: string; genesisTime: string };

/** An error of L1 blob decoding, KZG verification or beacon-API retrieval. */
export class BlobError extends TypedError<BlobErrorType> {}

/** Codes that mean "the blob's OP encoding is invalid": derivation ignores such a blob (specs ecotone/derivation.md). */
const INVALID_ENCODING: ReadonlySet<string> = new Set<BlobErrorCode>([
  BlobErrorCode.INVALID_VERSION,
  BlobErrorCode.INVALID_LENGTH,
  BlobErrorCode.INVALID_FIELD_ELEMENT,
  BlobErrorCode.EXTRANEOUS_FIELD_ELEMENT_DATA,
  BlobErrorCode.EXTRANEOUS_DATA,
]);

/** Whether `e` says a blob's OP encoding v0 is invalid (the blob is ignored, derivation goes on). */
export function isInvalidBlobEncoding(e: unknown): e is BlobError {
  return e instanceof BlobError && INVALID_ENCODING.has(e.code);
}

/** A {@link BlobErrorCode.WRONG_SIZE} error for an input of the wrong length. */
export function wrongSize(what: string, expected: number, got: number): BlobError {
  return new BlobError({ code: BlobErrorCode.WRONG_SIZE, what, expected, got }, `${what} must be ${expected} bytes, got ${got}`);
}
