/**
 * The ENR `opstack` entry: op-node's encoding (RLP bytes of uvarint chain id ‖ uvarint version),
 * checked against Base's published bootnode records (base/node .env.mainnet OP_NODE_P2P_BOOTNODES,
 * op-node p2p/config.go DefaultBootnodes) and against records basalt signs, parsed back with
 * @chainsafe/enr.
 */
import { ENR, SignableENR } from "@chainsafe/enr";
import { generateKeyPair } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { describe, expect, it } from "vitest";
import { OP_DEFAULT_BOOTNODES } from "../../../../src/p2p/constants.js";
import { parseNodeRecord } from "../../../../src/p2p/cl/enrText.js";
import { OPSTACK_ENR_KEY, decodeOpStackEntry, encodeOpStackEntry, opStackFilter } from "../../../../src/p2p/cl/opstackEnr.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe("opstack ENR entry", () => {
  it("encodes Base mainnet (8453) and Base Sepolia (84532) as op-node does", () => {
    // 8453 = 0x2105 → uvarint 85 42; 84532 = 0x14a34 → b4 94 05; version 0 → 00.
    expect(hex(encodeOpStackEntry(8453n))).toBe("854200");
    expect(hex(encodeOpStackEntry(84532n))).toBe("b4940500");
    expect(decodeOpStackEntry(encodeOpStackEntry(84532n))).toEqual({ chainId: 84532n, version: 0n });
  });

  it("matches the entry of Base's published bootnode records", () => {
    const base = OP_DEFAULT_BOOTNODES.filter((b) => b.startsWith("enr:"));
    expect(base).toHaveLength(5);
    for (const text of base) {
      const r = ENR.decodeTxt(text);
      expect(hex(r.kvs.get(OPSTACK_ENR_KEY)!)).toBe("854200");
      expect(opStackFilter(r.kvs.get(OPSTACK_ENR_KEY), 8453n)).toBeUndefined();
      expect(opStackFilter(r.kvs.get(OPSTACK_ENR_KEY), 84532n)).toBe("wrongChain");
      expect(r.tcp).toBe(9222);
      expect(r.udp).toBe(9222);
    }
  });

  it("survives a signed record round trip, and the filter refuses what op-node refuses", async () => {
    const key = (await generateKeyPair("secp256k1")) as unknown as PrivateKey;
    const enr = SignableENR.createFromPrivateKey(key);
    enr.ip = "127.0.0.1";
    enr.tcp = 9222;
    enr.udp = 9222;
    enr.set(OPSTACK_ENR_KEY, encodeOpStackEntry(84532n));
    const back = ENR.decodeTxt(enr.encodeTxt());
    expect(hex(back.kvs.get(OPSTACK_ENR_KEY)!)).toBe("b4940500");
    expect(opStackFilter(back.kvs.get(OPSTACK_ENR_KEY), 84532n)).toBeUndefined();
    expect(opStackFilter(undefined, 84532n)).toBe("noEntry");
    expect(opStackFilter(Uint8Array.of(0x80), 84532n)).toBe("badEntry");
    expect(opStackFilter(encodeOpStackEntry(84532n, 1n), 84532n)).toBe("wrongVersion");
  });

  it("parses enode bootnodes into contactable records and refuses junk", () => {
    const enode = OP_DEFAULT_BOOTNODES.find((b) => b.startsWith("enode://"))!;
    const r = parseNodeRecord(enode);
    expect(r.ip).toBe("34.65.67.101");
    expect(r.udp).toBe(30305);
    expect(r.peerId.toString()).toMatch(/^16Uiu2/);
    expect(() => parseNodeRecord("enr:-garbage")).toThrow(/not a valid ENR/);
    expect(() => parseNodeRecord("http://x")).toThrow(/unrecognized format/);
  });
});
