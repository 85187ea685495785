/**
 * The wire form of a gossiped block (specs rollup-node-p2p.md "Block encoding", "Message
 * compression and limits", "Message ID computation"; op-node p2p/gossip.go): snappy block
 * compression of `signature (65) ‖ signed bytes`, at most 10 MiB compressed and decompressed;
 * and the gossipsub message id of any message on these topics.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { GOSSIP_MAX_MESSAGE_BYTES, GOSSIP_MIN_MESSAGE_BYTES } from "../constants.js";
import type { GossipEnvelope } from "./payload.js";
import { GossipCodecError, GossipCodecErrorCode } from "./errors.js";
import { BLOCK_SIGNATURE_BYTES } from "./signing.js";
import { snappyCompress, snappyDecodedLength, snappyUncompress } from "./snappy.js";
import { decodeSignedBytes } from "./ssz.js";
import type { BlocksVersion } from "./topics.js";

/** A decoded block message; nothing in it has been validated beyond its encoding. */
interface DecodedBlockMessage {
  version: BlocksVersion;
  /** `r ‖ s ‖ yParity`, 65 bytes. */
  signature: Uint8Array;
  /** The signed bytes: the SSZ payload (v1, v2) or parent beacon block root ‖ SSZ payload (v3, v4). */
  payloadBytes: Uint8Array;
  envelope: GossipEnvelope;
}

/** Message-id domain of data that decompresses (op-node `MessageDomainValidSnappy`, as on L1). */
const MESSAGE_DOMAIN_VALID_SNAPPY = Uint8Array.of(1, 0, 0, 0);
/** Message-id domain of data that does not (op-node `MessageDomainInvalidSnappy`). */
const MESSAGE_DOMAIN_INVALID_SNAPPY = Uint8Array.of(0, 0, 0, 0);
/** Bytes of a message id (the first 20 of the SHA-256). */
const GOSSIP_MESSAGE_ID_BYTES = 20;

function tooLarge(what: string, length: number): GossipCodecError {
  return new GossipCodecError(
    { code: GossipCodecErrorCode.TOO_LARGE, what, length, max: GOSSIP_MAX_MESSAGE_BYTES },
    `${what} is ${length} bytes, more than the gossip limit of ${GOSSIP_MAX_MESSAGE_BYTES}`,
  );
}

/**
 * The wire bytes of a block message: snappy block compression of `signature ‖ payloadBytes`.
 * Throws {@link GossipCodecError} for a signature that is not 65 bytes or a message over 10 MiB.
 */
export function encodeBlockMessage(version: BlocksVersion, signature: Uint8Array, payloadBytes: Uint8Array): Uint8Array {
  if (signature.length !== BLOCK_SIGNATURE_BYTES) {
    throw new GossipCodecError(
      { code: GossipCodecErrorCode.BAD_KEY_OR_SIGNATURE, what: "signature", length: signature.length, expected: BLOCK_SIGNATURE_BYTES },
      `blocks v${version} signature is ${signature.length} bytes, expected ${BLOCK_SIGNATURE_BYTES}`,
    );
  }
  const plain = new Uint8Array(BLOCK_SIGNATURE_BYTES + payloadBytes.length);
  plain.set(signature, 0);
  plain.set(payloadBytes, BLOCK_SIGNATURE_BYTES);
  if (plain.length > GOSSIP_MAX_MESSAGE_BYTES) throw tooLarge("the decompressed message", plain.length);
  const out = snappyCompress(plain);
  if (out.length > GOSSIP_MAX_MESSAGE_BYTES) throw tooLarge("the compressed message", out.length);
  return out;
}

/**
 * The decompressed message, after the size checks op-node makes in this order: the wire size,
 * the length the snappy header announces (above 10 MiB: TOO_LARGE, before allocating; below
 * 66 bytes: TOO_SMALL), then the snappy data itself (BAD_SNAPPY).
 */
function decompressBlockMessage(data: Uint8Array): Uint8Array {
  if (data.length > GOSSIP_MAX_MESSAGE_BYTES) throw tooLarge("the compressed message", data.length);
  const header = snappyDecodedLength(data);
  if (header === undefined) return snappyUncompress(data, GOSSIP_MAX_MESSAGE_BYTES); // throws BAD_SNAPPY
  if (header.length > GOSSIP_MAX_MESSAGE_BYTES) throw tooLarge("the decompressed message", header.length);
  if (header.length < GOSSIP_MIN_MESSAGE_BYTES) {
    throw new GossipCodecError(
      { code: GossipCodecErrorCode.TOO_SMALL, length: header.length, min: GOSSIP_MIN_MESSAGE_BYTES },
      `the decompressed message is ${header.length} bytes, less than a signature and a payload (${GOSSIP_MIN_MESSAGE_BYTES})`,
    );
  }
  return snappyUncompress(data, GOSSIP_MAX_MESSAGE_BYTES);
}

/**
 * Decodes a message received on the `version` topic: decompression with its size checks, then
 * the 65-byte signature and the signed bytes, decoded as the version's SSZ. Throws only
 * {@link GossipCodecError}.
 */
export function decodeBlockMessage(version: BlocksVersion, data: Uint8Array): DecodedBlockMessage {
  const plain = decompressBlockMessage(data);
  const signature = plain.subarray(0, BLOCK_SIGNATURE_BYTES);
  const payloadBytes = plain.subarray(BLOCK_SIGNATURE_BYTES);
  return { version, signature, payloadBytes, envelope: decodeSignedBytes(version, payloadBytes) };
}

/**
 * The gossipsub message id of `data` (20 bytes): SHA-256 of a 4-byte domain and the content,
 * truncated. When `data` is valid snappy announcing at most 10 MiB the domain is 0x01000000 and
 * the content the decompressed data, else 0x00000000 and the raw data.
 *
 * With `topic` the content is preceded by the topic's length (u64 little-endian) and the topic,
 * as op-node's `BuildMsgIdFn` computes it (and the L1 consensus spec from Altair); without it,
 * the formula of the rollup-node-p2p spec text and of base/base (`compute_message_id`). Peers use
 * ids in IHAVE/IWANT, so the libp2p layer should use the variant of the peers it talks to:
 * op-node's, with the topic.
 */
export function gossipMessageId(data: Uint8Array, topic?: string): Uint8Array {
  let content = data;
  let domain = MESSAGE_DOMAIN_INVALID_SNAPPY;
  const header = snappyDecodedLength(data);
  if (header !== undefined && header.length <= GOSSIP_MAX_MESSAGE_BYTES) {
    try {
      content = snappyUncompress(data, GOSSIP_MAX_MESSAGE_BYTES);
      domain = MESSAGE_DOMAIN_VALID_SNAPPY;
    } catch {
      // invalid snappy: hash the raw data under the invalid domain
    }
  }
  const h = sha256.create();
  h.update(domain);
  if (topic !== undefined) {
    const t = Buffer.from(topic, "utf8");
    const len = new Uint8Array(8);
    new DataView(len.buffer).setBigUint64(0, BigInt(t.length), true);
    h.update(len);
    h.update(t);
  }
  h.update(content);
  return h.digest().slice(0, GOSSIP_MESSAGE_ID_BYTES);
}
