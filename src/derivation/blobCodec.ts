/**
 * OP Stack blob encoding, version 0 (specs ecotone/derivation.md "Blob Encoding"): how a batcher's
 * data rides in an EIP-4844 blob of 4096 field elements, and back.
 *
 * The logical stream is `version (0x00) ++ length (uint24 big-endian) ++ payload`, zero-padded.
 * It is cut into 1024 rounds of 127 bytes; each round fills 4 field elements A, B, C, D of 32
 * bytes. Bytes 1..31 of each element carry 31 stream bytes; the remaining three stream bytes of
 * the round (x after A's 31, y after B's, z after C's) are split into 6-bit pieces stored in
 * byte 0 of the elements, whose two high bits stay 0 so every element is below the BLS modulus:
 *
 * ```
 * stream of one round: A[1..31] x B[1..31] y C[1..31] z D[1..31]
 * A[0] = x & 0x3f                      B[0] = (x & 0xc0) >> 2 | y & 0x0f
 * C[0] = z & 0x3f                      D[0] = (z & 0xc0) >> 2 | (y & 0xf0) >> 4
 * ```
 *
 * Decoding follows op-service (eth/blob.go `ToData`) and kona (sources/blob_data.rs) rule for
 * rule, since derivation must accept and refuse exactly the blobs they do: version 0, length ≤
 * 130,044, the high bits of byte 0 clear in every decoded field element, every stream byte after
 * the payload in the decoded rounds zero, every blob byte after those rounds zero. One detail of
 * theirs kept on purpose: byte 0 of field element 0 is used through `& 0x3f` and its high bits
 * are not checked (both reference decoders skip that check; such a blob would be refused only by a
 * stricter decoder, splitting consensus), though a blob whose element 0 is ≥ the BLS modulus
 * never gets a commitment.
 */
import { BLOB_MAX_PAYLOAD_BYTES } from "../config/constants.js";
import { BLOB_BYTES } from "../chain/constants.js";
import { BLOB_ENCODING_VERSION } from "./constants.js";
import { BlobError, BlobErrorCode, wrongSize } from "./blobErrors.js";

/** Field elements per round, and bytes of each. */
const ELEMENTS_PER_ROUND = 4;
const ELEMENT_BYTES = 32;
/** Blob bytes one round fills (4 × 32) and stream bytes it carries (4 × 31 + 3). */
const ROUND_BLOB_BYTES = ELEMENTS_PER_ROUND * ELEMENT_BYTES;
const ROUND_STREAM_BYTES = ELEMENTS_PER_ROUND * (ELEMENT_BYTES - 1) + 3;
/** The version byte and the 3-byte length at the start of the stream. */
const HEADER_BYTES = 4;
/** Offsets inside one round's 127 stream bytes of x, y and z, the bytes spread over the four byte 0s. */
const X_AT = 31;
const Y_AT = 63;
const Z_AT = 95;

/** Rounds that carry a stream of `payloadLength` payload bytes: at least one (the header lives there). */
function roundsFor(payloadLength: number): number {
  return Math.max(1, Math.ceil((HEADER_BYTES + payloadLength) / ROUND_STREAM_BYTES));
}

/**
 * Encodes `payload` into a blob (OP blob encoding v0), for a batcher. An empty payload gives the
 * all-zero blob (version 0, length 0).
 * @throws BlobError PAYLOAD_TOO_LARGE for a payload over 130,044 bytes.
 */
export function encodeBlob(payload: Uint8Array): Uint8Array {
  if (payload.length > BLOB_MAX_PAYLOAD_BYTES) {
    throw new BlobError(
      { code: BlobErrorCode.PAYLOAD_TOO_LARGE, length: payload.length, max: BLOB_MAX_PAYLOAD_BYTES },
      `blob payload of ${payload.length} bytes exceeds the ${BLOB_MAX_PAYLOAD_BYTES}-byte capacity of one blob`,
    );
  }
  const blob = new Uint8Array(BLOB_BYTES);
  if (payload.length === 0) return blob;
  const rounds = roundsFor(payload.length);
  const stream = new Uint8Array(rounds * ROUND_STREAM_BYTES);
  stream[0] = BLOB_ENCODING_VERSION;
  stream[1] = (payload.length >>> 16) & 0xff;
  stream[2] = (payload.length >>> 8) & 0xff;
  stream[3] = payload.length & 0xff;
  stream.set(payload, HEADER_BYTES);
  for (let r = 0; r < rounds; r++) {
    const s = r * ROUND_STREAM_BYTES;
    const b = r * ROUND_BLOB_BYTES;
    const x = stream[s + X_AT]!;
    const y = stream[s + Y_AT]!;
    const z = stream[s + Z_AT]!;
    blob[b] = x & 0x3f;
    blob.set(stream.subarray(s, s + X_AT), b + 1);
    blob[b + 32] = ((x & 0xc0) >> 2) | (y & 0x0f);
    blob.set(stream.subarray(s + X_AT + 1, s + Y_AT), b + 33);
    blob[b + 64] = z & 0x3f;
    blob.set(stream.subarray(s + Y_AT + 1, s + Z_AT), b + 65);
    blob[b + 96] = ((z & 0xc0) >> 2) | ((y & 0xf0) >> 4);
    blob.set(stream.subarray(s + Z_AT + 1, s + ROUND_STREAM_BYTES), b + 97);
  }
  return blob;
}

/** Byte 0 of field element `fe`, refused when one of its two high bits is set. */
function checkedHighByte(blob: Uint8Array, fe: number): number {
  const v = blob[fe * ELEMENT_BYTES]!;
  if ((v & 0xc0) !== 0) {
    throw new BlobError(
      { code: BlobErrorCode.INVALID_FIELD_ELEMENT, fieldElement: fe, byte: v },
      `blob field element ${fe} has byte 0 0x${v.toString(16).padStart(2, "0")}: its two high bits must be 0`,
    );
  }
  return v;
}

/**
 * Decodes a blob into its payload (OP blob encoding v0), with every validity rule of the
 * reference decoders (see the module comment).
 * @throws BlobError WRONG_SIZE for a blob not 131,072 bytes; INVALID_VERSION, INVALID_LENGTH,
 * INVALID_FIELD_ELEMENT, EXTRANEOUS_FIELD_ELEMENT_DATA or EXTRANEOUS_DATA for an invalid encoding
 * ({@link isInvalidBlobEncoding} is true for these: derivation ignores the blob).
 */
export function decodeBlob(blob: Uint8Array): Uint8Array {
  if (blob.length !== BLOB_BYTES) throw wrongSize("blob", BLOB_BYTES, blob.length);
  const version = blob[1]!;
  if (version !== BLOB_ENCODING_VERSION) {
    throw new BlobError({ code: BlobErrorCode.INVALID_VERSION, version }, `blob encoding version is ${version}, expected ${BLOB_ENCODING_VERSION}`);
  }
  const length = (blob[2]! << 16) | (blob[3]! << 8) | blob[4]!;
  if (length > BLOB_MAX_PAYLOAD_BYTES) {
    throw new BlobError(
      { code: BlobErrorCode.INVALID_LENGTH, length, max: BLOB_MAX_PAYLOAD_BYTES },
      `blob length prefix ${length} exceeds the maximum payload of ${BLOB_MAX_PAYLOAD_BYTES} bytes`,
    );
  }
  const rounds = roundsFor(length);
  const stream = new Uint8Array(rounds * ROUND_STREAM_BYTES);
  for (let r = 0; r < rounds; r++) {
    const s = r * ROUND_STREAM_BYTES;
    const b = r * ROUND_BLOB_BYTES;
    const fe = r * ELEMENTS_PER_ROUND;
    // Element 0's byte 0 is masked, not checked, as in op-service and kona (module comment).
    const a = r === 0 ? blob[0]! : checkedHighByte(blob, fe);
    const bb = checkedHighByte(blob, fe + 1);
    const c = checkedHighByte(blob, fe + 2);
    const d = checkedHighByte(blob, fe + 3);
    stream.set(blob.subarray(b + 1, b + 32), s);
    stream[s + X_AT] = (a & 0x3f) | ((bb & 0x30) << 2);
    stream.set(blob.subarray(b + 33, b + 64), s + X_AT + 1);
    stream[s + Y_AT] = (bb & 0x0f) | ((d & 0x0f) << 4);
    stream.set(blob.subarray(b + 65, b + 96), s + Y_AT + 1);
    stream[s + Z_AT] = (c & 0x3f) | ((d & 0x30) << 2);
    stream.set(blob.subarray(b + 97, b + 128), s + Z_AT + 1);
  }
  const end = HEADER_BYTES + length;
  for (let i = end; i < stream.length; i++) {
    if (stream[i] !== 0) {
      throw new BlobError(
        { code: BlobErrorCode.EXTRANEOUS_FIELD_ELEMENT_DATA, offset: i, length },
        `blob has non-zero data at stream offset ${i}, after its ${length}-byte payload`,
      );
    }
  }
  for (let i = rounds * ROUND_BLOB_BYTES; i < BLOB_BYTES; i++) {
    if (blob[i] !== 0) {
      throw new BlobError(
        { code: BlobErrorCode.EXTRANEOUS_DATA, offset: i, length },
        `blob has non-zero byte at offset ${i}, past the ${rounds} round(s) its ${length}-byte payload fills`,
      );
    }
  }
  return stream.slice(HEADER_BYTES, end);
}
