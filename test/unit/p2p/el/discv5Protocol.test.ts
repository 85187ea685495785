/**
 * discv5 under Base's protocol id `basev0`: the packet codec against the discv5 wire test vector
 * (devp2p discv5-wire-test-vectors.md "Ping message packet"), the associated data binding the
 * protocol id, and live @chainsafe/discv5 nodes on loopback: two `basev0` nodes talk, a `basev0`
 * and a standard `discv5` node do not, two standard nodes in the same process still do (the
 * consensus layer's discv5 is untouched), and a packet of the wrong protocol id is dropped and reported.
 */
import { Discv5 } from "@chainsafe/discv5";
import { SignableENR, type ENR } from "@chainsafe/enr";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { createDecipheriv, randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { associatedData, BASE_PROTOCOL_ID, decodePacket, DISCV5_PROTOCOL_ID, encodePacket, protocolIdBytes, type PacketRefusal } from "../../../../src/p2p/el/discv5Packet.js";
import { ProtocolIdTransport, withProtocolId } from "../../../../src/p2p/el/discv5Transport.js";

const DEST = "bbbb9d047f0488c0b5a93c1c3f2d8bafc7c8ff337024a55434a0d0555de64db9";
const SRC = "aaaa8419e9f49d0083561b48287df592939a8d19947d8c0ef88f2a4856a69fbb";
/** The spec's ping packet (nonce ff…ff, read key 0…0, ping req-id 1, enr-seq 2), as reth's discv5 crate and ethrex test it. */
const PING = "00000000000000000000000000000000088b3d4342774649325f313964a39e55ea96c005ad52be8c7560413a7008f16c9e6d2f43bbea8814a546b7409ce783d34c4f53245d08dab84102ed931f66d1492acb308fa1c6715b9d139b81acbdcc";

/** AES-128-GCM open with a 16-byte tag at the end (discv5-theory.md). */
function open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, ad: Uint8Array): Buffer {
  const d = createDecipheriv("aes-128-gcm", key, nonce);
  d.setAAD(ad);
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
}

describe("discv5 packet codec", () => {
  it("decodes the specification's ping packet and authenticates its message with the header as associated data", () => {
    const p = decodePacket(DEST, Buffer.from(PING, "hex"), protocolIdBytes(DISCV5_PROTOCOL_ID));
    expect(p.header).toMatchObject({ protocolId: "discv5", version: 1, flag: 0, authdataSize: 32 });
    expect(Buffer.from(p.header.nonce).toString("hex")).toBe("ff".repeat(12));
    expect(Buffer.from(p.header.authdata).toString("hex")).toBe(SRC);
    // ping = 0x01 ‖ rlp([req-id 0x00000001, enr-seq 2])
    expect(open(new Uint8Array(16), p.header.nonce, p.message, p.messageAd!).toString("hex")).toBe("01c6840000000102");
    expect(Buffer.from(associatedData(p.maskingIv, p.header, protocolIdBytes("discv5"))).equals(Buffer.from(p.messageAd!))).toBe(true);
    // Re-encoding gives the same bytes.
    expect(Buffer.from(encodePacket(DEST, p, protocolIdBytes("discv5"))).toString("hex")).toBe(PING);
  });

  it("refuses the same packet on a basev0 node as of the wrong protocol, and garbage as malformed", () => {
    const refusal = (data: Uint8Array): PacketRefusal | undefined => {
      try {
        decodePacket(DEST, data, protocolIdBytes(BASE_PROTOCOL_ID));
        return undefined;
      } catch (e) {
        return (e as { meta: { refusal: PacketRefusal } }).meta.refusal;
      }
    };
    expect(refusal(Buffer.from(PING, "hex"))).toBe("wrongProtocol");
    expect(refusal(randomBytes(100))).toBe("malformed");
    expect(refusal(randomBytes(20))).toBe("malformed");
    // The same header under basev0 decodes, and its associated data carries basev0.
    const p = decodePacket(DEST, Buffer.from(PING, "hex"), protocolIdBytes("discv5"));
    const based = decodePacket(DEST, encodePacket(DEST, p, protocolIdBytes(BASE_PROTOCOL_ID)), protocolIdBytes(BASE_PROTOCOL_ID));
    expect(based.header.protocolId).toBe("basev0");
    expect(Buffer.from(based.messageAd!.subarray(16, 22)).toString()).toBe("basev0");
    // A message sealed for discv5 does not open under basev0's associated data: the id is bound in.
    expect(() => open(new Uint8Array(16), based.header.nonce, based.message, based.messageAd!)).toThrow();
  });

  it("accepts only 6-character protocol ids", () => {
    expect(() => protocolIdBytes("base")).toThrow(/6 ASCII/);
    expect(protocolIdBytes("basev0")).toEqual(Uint8Array.from(Buffer.from("basev0")));
  });
});

interface TestNode {
  dv5: Discv5;
  enr: ENR;
  refused: PacketRefusal[];
  port: number;
  stop(): Promise<void>;
}

const nodes: TestNode[] = [];

/** A discv5 node on loopback: under `protocolId` through the basalt transport, or the library's own (`undefined`). */
async function node(protocolId: string | undefined): Promise<TestNode> {
  const key = privateKeyFromRaw(randomBytes(32).fill(1, 0, 1));
  const enr = SignableENR.createFromPrivateKey(key as never);
  enr.ip = "127.0.0.1";
  const bindAddr = multiaddr("/ip4/127.0.0.1/udp/0");
  const refused: PacketRefusal[] = [];
  const transport = protocolId === undefined ? undefined : new ProtocolIdTransport({ bindAddr, nodeId: enr.nodeId, protocolId, onRefused: (r) => refused.push(r) });
  const dv5 = Discv5.create({ enr, privateKey: key as never, bindAddrs: { ip4: bindAddr }, transport: transport?.asService(), config: { enrUpdate: false, requestTimeout: 1_000, requestRetries: 0, sessionEstablishTimeout: 1_000 } });
  const undo = transport === undefined ? () => undefined : withProtocolId(dv5, protocolId!);
  await dv5.start();
  const port = transport?.port ?? ((dv5.sessionService.transport as unknown as { ip4: { socket: { address(): { port: number } } } }).ip4.socket.address().port);
  dv5.enr.udp = port;
  const n: TestNode = {
    dv5,
    enr: dv5.enr.toENR(),
    refused,
    port,
    stop: async () => {
      undo();
      await dv5.stop();
    },
  };
  nodes.push(n);
  return n;
}

/** Whether `a` gets a PONG from `b`. */
async function pings(a: TestNode, b: TestNode): Promise<boolean> {
  try {
    await a.dv5.sendPing(b.dv5.enr.toENR());
    return true;
  } catch {
    return false;
  }
}

afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop();
});

describe("basev0 discv5 between live nodes", () => {
  it("two basev0 nodes complete the handshake both ways and find each other", async () => {
    const a = await node(BASE_PROTOCOL_ID);
    const b = await node(BASE_PROTOCOL_ID);
    expect(await pings(a, b)).toBe(true);
    expect(await pings(b, a)).toBe(true);
    // b learned a's record in the handshake: a lookup from a third basev0 node through b finds a.
    const c = await node(BASE_PROTOCOL_ID);
    c.dv5.addEnr(b.dv5.enr.toENR());
    const found = await c.dv5.findNode(a.dv5.enr.nodeId);
    expect(found.map((r) => r.nodeId)).toContain(a.dv5.enr.nodeId);
    expect([...a.refused, ...b.refused, ...c.refused]).toEqual([]);
  });

  it("a basev0 node and a standard discv5 node do not see each other; the wrong-id packets are counted", async () => {
    const based = await node(BASE_PROTOCOL_ID);
    const standard = await node(undefined);
    expect(await pings(standard, based)).toBe(false);
    expect(based.refused).toContain("wrongProtocol");
    expect(await pings(based, standard)).toBe(false);
    expect(standard.dv5.kadValues().map((r) => r.nodeId)).not.toContain(based.dv5.enr.nodeId);
    expect(based.dv5.kadValues().map((r) => r.nodeId)).not.toContain(standard.dv5.enr.nodeId);
  });

  it("leaves standard instances in the same process as they were", async () => {
    const a = await node(undefined);
    const b = await node(undefined);
    await node(BASE_PROTOCOL_ID);
    expect(await pings(a, b)).toBe(true);
  });

  it("counts a garbage datagram as malformed and keeps answering", async () => {
    const a = await node(BASE_PROTOCOL_ID);
    const b = await node(BASE_PROTOCOL_ID);
    const udp = createSocket("udp4");
    await new Promise<void>((resolve) => udp.send(randomBytes(80), a.port, "127.0.0.1", () => resolve()));
    udp.close();
    expect(await pings(b, a)).toBe(true);
    expect(a.refused).toContain("malformed");
  });
});
