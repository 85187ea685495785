/**
 * The wire format of op-node's `payload_by_number` req/resp protocol (op-node/p2p/sync.go; specs
 * rollup-node-p2p.md "payload_by_number"): the request is the block number as a little-endian
 * uint64; the response is a result byte, and on success a little-endian uint32 version and the
 * SSZ payload in snappy's framing format, read to the end of the stream. Pure functions; the
 * streams are in `reqResp.ts`.
 */
import { GOSSIP_MAX_MESSAGE_BYTES } from "../constants.js";
import type { BlocksVersion } from "../gossip/topics.js";
import { decodeSnappyFrames, encodeSnappyFrames } from "./snappyFrames.js";


/** The protocol id for a chain: op-node's `PayloadByNumberProtocolID` (the code has no trailing slash, unlike the spec's text). */
export function payloadByNumberProtocol(chainId: bigint): string {
  return `/opstack/req/payload_by_number/${chainId}/0`;
}

/** Result codes (sync.go ResultCode*); 3 and up are other errors, 128+ reserved. */
export const ResultCode = { success: 0, notFound: 1, invalidRequest: 2, unknownError: 3 } as const;

/** A result code's name for metrics and logs. */
export function resultName(code: number): string {
  switch (code) {
    case ResultCode.success:
      return "success";
    case ResultCode.notFound:
      return "notFound";
    case ResultCode.invalidRequest:
      return "invalidRequest";
    case ResultCode.unknownError:
      return "unknownError";
    default:
      return "otherError";
  }
}

/**
 * The response version of a block version: 0 = ExecutionPayload (Bedrock/Regolith/Canyon: gossip
 * v1 and v2), 1 = ExecutionPayloadEnvelope (Ecotone: v3), 2 = Isthmus (v4; the spec lists it as the
 * Isthmus SSZ, sent like v3 as parent beacon block root ++ payload, as on the v4 gossip topic).
 */
function responseVersionOf(version: BlocksVersion): number {
  return version <= 2 ? 0 : version === 3 ? 1 : 2;
}

/** The block versions a response version may hold, most recent first (version 0 is v2 after Canyon, v1 before it). */
export function blocksVersionsOf(responseVersion: number): BlocksVersion[] {
  switch (responseVersion) {
    case 0:
      return [2, 1];
    case 1:
      return [3];
    case 2:
      return [4];
    default:
      return [];
  }
}

/** The 8-byte request for block `n`. */
export function encodePayloadRequest(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
}

/** The block number of a request; undefined when it is shorter than 8 bytes (Go's binary.Read fails; extra bytes are not read). */
export function decodePayloadRequest(b: Uint8Array): bigint | undefined {
  if (b.length < 8) return undefined;
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
}

/** A success response: result 0, the version, and the payload in snappy frames. */
export function encodeSuccessResponse(version: BlocksVersion, payloadBytes: Uint8Array): Uint8Array {
  const head = new Uint8Array(5);
  new DataView(head.buffer).setUint32(1, responseVersionOf(version), true);
  return Buffer.concat([head, encodeSnappyFrames(payloadBytes)]);
}

/** An error response: the result byte alone. */
export function encodeErrorResponse(code: number): Uint8Array {
  return Uint8Array.of(code);
}

/** A decoded response. */
type PayloadResponse = { result: number } | { result: 0; responseVersion: number; payloadBytes: Uint8Array };

/**
 * Decodes a whole response (read to EOF, at most {@link GOSSIP_MAX_MESSAGE_BYTES} bytes as op-node reads).
 * @throws Error (SnappyFrameError or a plain "truncated") when it does not parse.
 */
export function decodePayloadResponse(b: Uint8Array): PayloadResponse {
  if (b.length < 1) throw new Error("empty response");
  const result = b[0]!;
  if (result !== ResultCode.success) return { result };
  if (b.length < 5) throw new Error("response truncated before its version");
  const responseVersion = new DataView(b.buffer, b.byteOffset + 1, 4).getUint32(0, true);
  const payloadBytes = decodeSnappyFrames(b.subarray(5), GOSSIP_MAX_MESSAGE_BYTES);
  return { result: 0, responseVersion, payloadBytes };
}
