/**
 * The discv5 packet header (devp2p discv5-wire.md "Packet Encoding") with a protocol id of the
 * caller's choice: `masking-iv ‖ masked-header ‖ message`, where the header is the static header
 * `protocol-id (6) ‖ version (2) ‖ flag (1) ‖ nonce (12) ‖ authdata-size (2)` followed by the
 * authdata, masked with AES-128-CTR under the first 16 bytes of the destination node id and the
 * masking IV. The unmasked `masking-iv ‖ header` is the message's AES-GCM associated data and,
 * for a WHOAREYOU packet, its challenge data — so the protocol id is bound into every session key
 * and message tag, and nodes of different protocol ids cannot talk. Base's execution-layer nodes
 * use `basev0` (base/base node.rs `BASE_V0_PROTOCOL_VERSION`); the standard is `discv5`.
 *
 * @chainsafe/discv5 11 hard-codes `discv5` and does not export its packet codec; this module is
 * the codec the `basev0` transport (`discv5Transport.ts`) uses, written from the specification.
 */
import { createCipheriv, createDecipheriv } from "node:crypto";
import { TypedError } from "../../util/errors.js";

/** Bytes of the masking IV. */
export const MASKING_IV_BYTES = 16;
/** Bytes of the static header (protocol id 6, version 2, flag 1, nonce 12, authdata size 2). */
const STATIC_HEADER_BYTES = 23;
/** Smallest and largest packets the specification allows (discv5-wire.md). */
const MIN_PACKET_BYTES = 63;
export const MAX_PACKET_BYTES = 1280;
/** The protocol version every discv5 network uses. */
const VERSION = 1;
/** Flags: 0 message, 1 WHOAREYOU, 2 handshake. */
const MAX_FLAG = 2;

/** Base's execution-layer discv5 protocol id (base/base crates/execution/node/src/node.rs). */
export const BASE_PROTOCOL_ID = "basev0";
/** The standard protocol id. */
export const DISCV5_PROTOCOL_ID = "discv5";

/** A packet header as @chainsafe/discv5 holds it (`IHeader`). */
interface PacketHeader {
  protocolId: string;
  version: number;
  flag: number;
  nonce: Uint8Array;
  authdataSize: number;
  authdata: Uint8Array;
}

/** A packet as @chainsafe/discv5 holds it (`IPacket`): `messageAd` is set on decoded packets. */
export interface Packet {
  maskingIv: Uint8Array;
  header: PacketHeader;
  message: Uint8Array;
  messageAd?: Uint8Array;
}

/** Why a datagram is not a packet of this protocol id: `wrongProtocol` for a well-formed header of another id. */
export type PacketRefusal = "wrongProtocol" | "malformed";

/** Stable code of {@link Discv5PacketError}. */
const Discv5PacketErrorCode = { DISCV5_BAD_PACKET: "P2P_DISCV5_BAD_PACKET" } as const;
/** A {@link Discv5PacketError}'s code with its metadata. */
type Discv5PacketErrorType = { code: typeof Discv5PacketErrorCode.DISCV5_BAD_PACKET; refusal: PacketRefusal };

/** A datagram that does not decode. */
export class Discv5PacketError extends TypedError<Discv5PacketErrorType> {
  constructor(refusal: PacketRefusal, message: string) {
    super({ code: Discv5PacketErrorCode.DISCV5_BAD_PACKET, refusal }, message);
  }
}

/** The 6 bytes of a protocol id. @throws Discv5PacketError unless it is 6 ASCII characters. */
export function protocolIdBytes(id: string): Uint8Array {
  const b = Buffer.from(id, "latin1");
  if (b.length !== 6 || id.length !== 6) throw new Discv5PacketError("malformed", `protocol id ${JSON.stringify(id)}: expected 6 ASCII characters`);
  return Uint8Array.from(b);
}

function idKey(nodeIdHex: string): Buffer {
  return Buffer.from(nodeIdHex, "hex").subarray(0, 16);
}

/** `static-header ‖ authdata` of `header`, under `protocolId` (whatever `header.protocolId` says). */
function headerBytes(header: PacketHeader, protocolId: Uint8Array): Uint8Array {
  const out = Buffer.alloc(STATIC_HEADER_BYTES + header.authdata.length);
  out.set(protocolId, 0);
  out.writeUInt16BE(header.version, 6);
  out[8] = header.flag;
  out.set(header.nonce, 9);
  out.writeUInt16BE(header.authdata.length, 21);
  out.set(header.authdata, STATIC_HEADER_BYTES);
  return out;
}

/** The associated data of a packet's message, and a WHOAREYOU's challenge data: `masking-iv ‖ header`. */
export function associatedData(maskingIv: Uint8Array, header: PacketHeader, protocolId: Uint8Array): Uint8Array {
  return Buffer.concat([maskingIv, headerBytes(header, protocolId)]);
}

/** Encodes a packet to `destIdHex` under `protocolId`. */
export function encodePacket(destIdHex: string, packet: Packet, protocolId: Uint8Array): Uint8Array {
  const mask = createCipheriv("aes-128-ctr", idKey(destIdHex), packet.maskingIv);
  const masked = mask.update(headerBytes(packet.header, protocolId));
  return Buffer.concat([packet.maskingIv, masked, mask.final(), packet.message]);
}

/**
 * Decodes a datagram sent to the node `localIdHex` under `protocolId`.
 * @throws Discv5PacketError "wrongProtocol" when it unmasks to a version-1 header of another
 *   protocol id (e.g. `discv5` sent to a `basev0` node), "malformed" for anything else.
 */
export function decodePacket(localIdHex: string, data: Uint8Array, protocolId: Uint8Array): Packet {
  if (data.length < MIN_PACKET_BYTES || data.length > MAX_PACKET_BYTES) throw new Discv5PacketError("malformed", `a datagram of ${data.length} bytes: expected ${MIN_PACKET_BYTES} to ${MAX_PACKET_BYTES}`);
  const maskingIv = data.subarray(0, MASKING_IV_BYTES);
  const unmask = createDecipheriv("aes-128-ctr", idKey(localIdHex), maskingIv);
  const fixed = unmask.update(data.subarray(MASKING_IV_BYTES, MASKING_IV_BYTES + STATIC_HEADER_BYTES));
  const version = fixed.readUInt16BE(6);
  const flag = fixed[8]!;
  const authdataSize = fixed.readUInt16BE(21);
  const id = fixed.subarray(0, 6);
  if (version !== VERSION || flag > MAX_FLAG) throw new Discv5PacketError("malformed", `header version ${version} flag ${flag}: not a discv5 packet to this node`);
  if (!id.equals(Buffer.from(protocolId))) {
    throw new Discv5PacketError("wrongProtocol", `protocol id ${JSON.stringify(id.toString("latin1"))}: expected ${JSON.stringify(Buffer.from(protocolId).toString("latin1"))}`);
  }
  const end = MASKING_IV_BYTES + STATIC_HEADER_BYTES + authdataSize;
  if (end > data.length) throw new Discv5PacketError("malformed", `authdata of ${authdataSize} bytes runs past the ${data.length}-byte datagram`);
  const authdata = unmask.update(data.subarray(MASKING_IV_BYTES + STATIC_HEADER_BYTES, end));
  const header: PacketHeader = { protocolId: id.toString("latin1"), version, flag, nonce: Uint8Array.from(fixed.subarray(9, 21)), authdataSize, authdata: Uint8Array.from(authdata) };
  return {
    maskingIv: Uint8Array.from(maskingIv),
    header,
    message: Uint8Array.from(data.subarray(end)),
    messageAd: Buffer.concat([maskingIv, fixed, authdata]),
  };
}
