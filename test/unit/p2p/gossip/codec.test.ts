/**
 * Fixed vectors of the block gossip codec (specs rollup-node-p2p.md "Block encoding", "Block
 * signatures", "Message ID computation"; op-service/eth/ssz.go layout), derived field by field,
 * plus the v1–v4 network vectors of op-alloy (crates/rpc-types-engine/src/envelope.rs tests,
 * compressed by Rust `snap`) and its signing-hash vector.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { devAccounts } from "../../../../src/chain/devnet.js";
import { GossipCodecError } from "../../../../src/p2p/gossip/errors.js";
import { decodeBlockMessage, encodeBlockMessage, gossipMessageId } from "../../../../src/p2p/gossip/message.js";
import { blockSigningHash, recoverBlockSigner, signBlockPayload } from "../../../../src/p2p/gossip/signing.js";
import { snappyUncompress } from "../../../../src/p2p/gossip/snappy.js";
import { encodeSignedBytes } from "../../../../src/p2p/gossip/ssz.js";
import { blocksTopic, blocksVersionAt } from "../../../../src/p2p/gossip/topics.js";
import type { GossipPayload } from "../../../../src/p2p/gossip/payload.js";

const hex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const rep = (byte: string, n: number): string => byte.repeat(n);

const CHAIN_ID = 8453n; // Base mainnet
const DEV0 = devAccounts()[0]!;
const DEV0_KEY = hex(DEV0.privateKey.slice(2));

/** The payload of both vectors (v4 adds withdrawalsRoot = 0x06…06). */
function payload(v4: boolean): GossipPayload {
  const p: GossipPayload = {
    parentHash: hex(rep("01", 32)),
    feeRecipient: hex("4200000000000000000000000000000000000011"),
    stateRoot: hex(rep("02", 32)),
    receiptsRoot: hex(rep("03", 32)),
    logsBloom: new Uint8Array(256),
    prevRandao: hex(rep("04", 32)),
    blockNumber: 42n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: 1_750_000_000n,
    extraData: hex("abcdef"),
    baseFeePerGas: 1_000_000_000n,
    blockHash: hex(rep("05", 32)),
    transactions: [hex("02c0ffee")],
    withdrawals: [],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
  };
  if (v4) p.withdrawalsRoot = hex(rep("06", 32));
  return p;
}
const PARENT_BEACON_ROOT = hex(rep("07", 32));

/**
 * Signed bytes, field by field. v3 fixed part = 508 (v1) + 4 (withdrawals offset) + 16 (blob gas) = 528,
 * v4 adds withdrawalsRoot: 560. Integers little-endian.
 */
function signedBytesHex(v4: boolean): string {
  const fixed = v4 ? 560 : 528;
  const le32 = (n: number): string => toHex(Uint8Array.of(n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24));
  return [
    rep("07", 32), // parentBeaconBlockRoot (v3+: in front of the payload)
    rep("01", 32), // parentHash
    "4200000000000000000000000000000000000011", // feeRecipient
    rep("02", 32), // stateRoot
    rep("03", 32), // receiptsRoot
    rep("00", 256), // logsBloom
    rep("04", 32), // prevRandao
    "2a00000000000000", // blockNumber 42
    "80c3c90100000000", // gasLimit 30,000,000 = 0x01c9c380
    "0852000000000000", // gasUsed 21,000 = 0x5208
    "80e14e6800000000", // timestamp 1,750,000,000 = 0x684ee180
    le32(fixed), // offset(extraData) = end of the fixed part
    "00ca9a3b" + rep("00", 28), // baseFeePerGas 1 gwei = 0x3b9aca00 as u256 LE
    rep("05", 32), // blockHash
    le32(fixed + 3), // offset(transactions) = after 3 bytes of extraData
    le32(fixed + 3 + 8), // offset(withdrawals) = after one 4-byte offset and one 4-byte tx
    "0000000000000000", // blobGasUsed 0
    "0000000000000000", // excessBlobGas 0
    v4 ? rep("06", 32) : "", // withdrawalsRoot (v4)
    "abcdef", // extraData
    "04000000", // transactions: offset of tx 0 inside the list (1 offset × 4 bytes)
    "02c0ffee", // tx 0
    "", // withdrawals: empty list, no bytes
  ].join("");
}

/** Pinned values of the two vectors (signature: RFC 6979, so any correct secp256k1 signer gives the same). */
const VECTORS = {
  3: {
    signingHash: "1a72a043633011cc4f81c2adeee598c55996a78318c785b7476719fc0e1f43b4",
    signature: "7ea9f5eb455a6a16c1527cefde6799c04e4f78776213be8864db8124e6655afe04f215cdf60a28b1124cf09522ddc45dd4897ddc26df500cc55315588333e89c01",
    // snappy block: uvarint 636 (65 + 571) = fc 04, then literals and copies (snappyjs's compressor; any valid encoding decodes the same).
    message:
      "fc04f0427ea9f5eb455a6a16c1527cefde6799c04e4f78776213be8864db8124e6655afe04f215cdf60a28b1124cf09522ddc45dd4897ddc26df500cc55315588333e89c01070776020000017a01000442004201000411027a010000037a0100425200fe0100fe0100fe0100ba010000047a0100002a2d100c80c3c901010b040852010644000080e14e68000000001002000000ca9a3b010c5e010000057a010010130200001b01483a010028abcdef0400000002c0ffee",
    messageIdNoTopic: "c1b72ade457214115310ffbeb8484613846abfae",
    messageIdTopic: "0ab3ccdaf168982489d29574c3dda5b3301765c8",
  },
  4: {
    signingHash: "d9d4be22bb3d8ac66e75ee808610a5861493f088da39c2e23e31ce915b1ba429",
    signature: "ffdf875d35cb675f373a6e3647f25bd2dc8614dbd48d35286207e5603f38141f0653afc09c14da1862e1d91cc2483565c9918d554bad480ad1f7c7153fbf9b3b00",
    // uvarint 668 (65 + 603) = 9c 05
    message:
      "9c05f042ffdf875d35cb675f373a6e3647f25bd2dc8614dbd48d35286207e5603f38141f0653afc09c14da1862e1d91cc2483565c9918d554bad480ad1f7c7153fbf9b3b00070776020000017a01000442004201000411027a010000037a0100425200fe0100fe0100fe0100ba010000047a0100002a2d100c80c3c901010b040852010644000080e14e68000000003002000000ca9a3b010c5e010000057a010010330200003b01483a010000067a010028abcdef0400000002c0ffee",
    messageIdNoTopic: "002102a5152340690df5478c9c2eb701a5d80932",
    messageIdTopic: "df1e74575e511803ac6c593cc191d67cb8db76a5",
  },
} as const;

describe("block gossip vectors (v3, v4)", () => {
  for (const version of [3, 4] as const) {
    const v4 = version === 4;
    const vec = VECTORS[version];
    it(`v${version}: signed bytes, signing hash, signature, message, message id`, () => {
      const signed = encodeSignedBytes(version, { parentBeaconBlockRoot: PARENT_BEACON_ROOT, payload: payload(v4) });
      expect(toHex(signed)).toBe(signedBytesHex(v4));
      // keccak256(32 zero bytes ‖ chainId as 32 bytes BE ‖ keccak256(signed bytes))
      const manual = keccak_256(new Uint8Array([...new Uint8Array(32), ...hex(CHAIN_ID.toString(16).padStart(64, "0")), ...keccak_256(signed)]));
      expect(toHex(blockSigningHash(CHAIN_ID, signed))).toBe(toHex(manual));
      expect(toHex(manual)).toBe(vec.signingHash);
      const sig = signBlockPayload(DEV0_KEY, CHAIN_ID, signed);
      expect(toHex(sig)).toBe(vec.signature);
      expect(sig[64]).toBeLessThanOrEqual(1);
      expect("0x" + toHex(recoverBlockSigner(CHAIN_ID, signed, sig)!)).toBe(DEV0.address.toLowerCase());
      const msg = encodeBlockMessage(version, sig, signed);
      expect(toHex(msg)).toBe(vec.message);
      // The message decompresses (strictly) to signature ‖ signed bytes.
      expect(toHex(snappyUncompress(hex(vec.message), 1 << 20))).toBe(vec.signature + signedBytesHex(v4));
      // message id: sha256(0x01000000 [‖ u64le(len(topic)) ‖ topic] ‖ decompressed)[:20]
      const plain = hex(vec.signature + signedBytesHex(v4));
      expect(toHex(gossipMessageId(msg))).toBe(toHex(sha256(new Uint8Array([1, 0, 0, 0, ...plain])).slice(0, 20)));
      expect(toHex(gossipMessageId(msg))).toBe(vec.messageIdNoTopic);
      const topic = blocksTopic(CHAIN_ID, version);
      const t = Buffer.from(topic);
      const lenLe = new Uint8Array(8);
      lenLe[0] = t.length;
      expect(toHex(gossipMessageId(msg, topic))).toBe(toHex(sha256(new Uint8Array([1, 0, 0, 0, ...lenLe, ...t, ...plain])).slice(0, 20)));
      expect(toHex(gossipMessageId(msg, topic))).toBe(vec.messageIdTopic);
    });

    it(`v${version}: decoding the vector gives every field back`, () => {
      const m = decodeBlockMessage(version, hex(vec.message));
      expect(m.version).toBe(version);
      expect(toHex(m.signature)).toBe(vec.signature);
      expect(toHex(m.payloadBytes)).toBe(signedBytesHex(v4));
      expect(m.envelope.parentBeaconBlockRoot).toEqual(PARENT_BEACON_ROOT);
      const want = payload(v4);
      const got = m.envelope.payload;
      for (const k of Object.keys(want) as (keyof GossipPayload)[]) expect(got[k], k).toEqual(want[k]);
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    });
  }

  it("invalid snappy data is hashed raw under the 0x00000000 domain", () => {
    const junk = Uint8Array.of(1, 2, 3, 4, 5); // header announces 1 byte, then 4 bytes of garbage
    expect(toHex(gossipMessageId(junk))).toBe(toHex(sha256(new Uint8Array([0, 0, 0, 0, 1, 2, 3, 4, 5])).slice(0, 20)));
    // A valid message under the other domain gets another id.
    expect(toHex(gossipMessageId(junk))).not.toBe(toHex(sha256(new Uint8Array([1, 0, 0, 0, 1, 2, 3, 4, 5])).slice(0, 20)));
  });
});

describe("reference vectors", () => {
  it("op-alloy signature_message: chain 10, payload 0x99…99", () => {
    expect(toHex(blockSigningHash(10n, hex(rep("99", 32))))).toBe("44a0e2b1aba1aae1771eddae1dcd2ad18a8cdac8891517153f03253e49d3f206");
  });

  // op-alloy's network envelopes (mostly-zero payloads compressed by Rust snap), with their asserted timestamps.
  const OP_ALLOY = [
    [1, 1725271882n, "bd04f043128457c6ccf35128497167442bcc0f8cce78cda8b366e6a12e526d938d1e4c1046acffffbfc542a7e212bb7d80d3a4b2f84f7b196d935398a24eb84c519789b401000000fe0300fe0300fe0300fe0300fe0300fe0300a203000c4a8fd56621ad04fc0101067601008ce60be0005b220117c32c0f3b394b346c2aa42cfa8157cd41f891aa0bec485a62fc010000"],
    [2, 1708427627n, "c104f0433805080eb36c0b130a7cc1dc74c3f721af4e249aa6f61bb89d1557143e971bb738a3f3b98df7c457e74048e9d2d7e5cd82bb45e3760467e2270e9db86d1271a700000000fe0300fe0300fe0300fe0300fe0300fe0300a203000c6b89d46525ad000205067201009cda69cb5b9b73fc4eb2458b37d37f04ff507fe6c9cd2ab704a05ea9dae3cd61760002000000020000"],
    [3, 1708427461n, "f104f0434442b9eb38b259f5b23826e6b623e829d2fb878dac70187a1aecf42a3f9bedfd29793d1fcb5822324be0d3e12340a95855553a65d64b83e5579dffb31470df5d010000006a03000412346a1d00fe0100fe0100fe0100fe0100fe0100fe01004201000cc588d465219504100201067601007cfece77b89685f60e3663b6e0faf2de0734674eb91339700c4858c773a8ff921e014401043e0100"],
    [4, 1741842007n, "9105f043cee25401b6853202950d1d8a082f31a80c4fef5782c049a731f5d104b1b9b9aa7618605b420438ae98b44c8aaaebd482854473c2ae57c079286bb634bece5210000000006a03000412346a1d00fe0100fe0100fe0100fe0100fe0100fe01004201000c5766d26721950430020106f6010001440104b60100049876"],
  ] as const;
  for (const [version, timestamp, data] of OP_ALLOY) {
    it(`op-alloy v${version} envelope decodes and re-encodes to the same decompressed bytes`, () => {
      const m = decodeBlockMessage(version, hex(data));
      expect(m.envelope.payload.timestamp).toBe(timestamp);
      expect(m.envelope.parentBeaconBlockRoot !== undefined).toBe(version >= 3);
      const again = decodeBlockMessage(version, encodeBlockMessage(version, m.signature, encodeSignedBytes(version, m.envelope)));
      expect(again.payloadBytes).toEqual(m.payloadBytes);
      expect(again.signature).toEqual(m.signature);
      // The same version's decoder refuses another version's bytes.
      const other = version === 4 ? 3 : ((version + 1) as 2 | 3 | 4);
      expect(() => decodeBlockMessage(other, hex(data))).toThrow(GossipCodecError);
    });
  }
});

describe("topics", () => {
  it("names /optimism/<chainId>/<version-1>/blocks and picks the version by fork", () => {
    expect([1, 2, 3, 4].map((v) => blocksTopic(8453n, v as 1 | 2 | 3 | 4))).toEqual(["/optimism/8453/0/blocks", "/optimism/8453/1/blocks", "/optimism/8453/2/blocks", "/optimism/8453/3/blocks"]);
    const rollup = { forkTimes: { regolith: 0n, canyon: 100n, delta: 100n, ecotone: 200n, fjord: 200n, granite: 250n, holocene: 260n, isthmus: 300n, jovian: 400n } };
    expect([0n, 99n, 100n, 199n, 200n, 299n, 300n, 500n].map((t) => blocksVersionAt(rollup, t))).toEqual([1, 1, 2, 2, 3, 3, 4, 4]);
  });
});
