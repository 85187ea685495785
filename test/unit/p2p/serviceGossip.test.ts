/**
 * Three P2PService workers on 127.0.0.1 (port 0): A is the sequencer (signs and publishes real
 * devnet blocks), B has A as a static peer and its ENR as a bootnode, C knows only B's ENR as a
 * bootnode and must find A through discovery (B's table). Blocks A publishes reach B and C as `block` events with the same bytes;
 * payload_by_number round-trips from C to A's payload source; the opp2p_* answers have op-node's
 * shapes.
 */
import "../../../src/p2p/polyfills.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Block } from "@ethereumjs/block";
import { openDevChain, type DevChain } from "../../helpers/devChain.js";
import { waitUntil } from "../../helpers/poll.js";
import { SEQUENCER_KEY, gossipBytesOf, sampleValue, startP2P, testP2POptions } from "../../helpers/p2pServices.js";
import type { GossipBlock, P2PService } from "../../../src/p2p/service.js";
import { p2pMethods } from "../../../src/rollup/p2pMethods.js";
import { bytesEqual } from "../../../src/util/bytes.js";

describe("P2PService: gossip, discovery, req/resp, opp2p_*", () => {
  let dev: DevChain;
  let a: P2PService;
  let b: P2PService;
  let c: P2PService;
  const got = { b: [] as GossipBlock[], c: [] as GossipBlock[] };
  const blocks: Block[] = [];

  beforeAll(async () => {
    dev = await openDevChain("basalt-p2p-svc-");
    const rollup = dev.chain.op!;
    const chainId = dev.chain.common.chainId();
    a = await startP2P(testP2POptions(chainId, rollup, { sequencerKey: SEQUENCER_KEY }));
    b = await startP2P(testP2POptions(chainId, rollup, { staticPeers: [a.self().addresses[0]!], bootnodes: [a.self().enr] }));
    c = await startP2P(testP2POptions(chainId, rollup, { bootnodes: [b.self().enr] }));
    b.onBlock((x) => got.b.push(x));
    c.onBlock((x) => got.c.push(x));
    a.setPayloadSource(async (n) => {
      const blk = dev.chain.getBlockByNumber(n);
      return blk === undefined ? undefined : gossipBytesOf(blk, rollup);
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    await dev?.close();
  });

  it("binds real ports and reports its identity", () => {
    for (const s of [a, b, c]) {
      const self = s.self();
      expect(self.tcpPort).toBeGreaterThan(0);
      expect(self.udpPort).toBeGreaterThan(0);
      expect(self.enr.startsWith("enr:")).toBe(true);
      expect(self.nodeId).toMatch(/^[0-9a-f]{64}$/);
      expect(self.addresses.some((x) => x.includes(`/tcp/${self.tcpPort}`))).toBe(true);
    }
  });

  it("finds the sequencer through a bootnode's table and connects to it", async () => {
    await waitUntil("C connected to A", 40_000, async () => {
      const dump = (await c.call("peers", [true])) as { peers: Record<string, unknown> };
      return a.self().peerId in dump.peers;
    }, 250);
  }, 45_000);

  it("gossips signed devnet blocks from A to B and C", async () => {
    // Give the meshes a few heartbeats to form (waiting on topic membership, not on time).
    await waitUntil("A sees B and C on the blocks topics", 20_000, async () => {
      const stats = (await a.call("peerStats")) as { blocksTopicV4: number };
      return stats.blocksTopicV4 >= 2;
    }, 100);
    for (let i = 0; i < 3; i++) {
      await dev.traffic.block();
      const blk = dev.chain.head;
      blocks.push(blk);
      const { version, payloadBytes } = gossipBytesOf(blk, dev.chain.op!);
      await a.publish(version, payloadBytes);
    }
    await waitUntil("B and C got the 3 blocks", 20_000, () => got.b.length >= 3 && got.c.length >= 3, 50);
    for (const [i, blk] of blocks.entries()) {
      const { version, payloadBytes } = gossipBytesOf(blk, dev.chain.op!);
      for (const list of [got.b, got.c]) {
        const x = list.find((g) => bytesEqual(g.payloadBytes, payloadBytes));
        expect(x, `block ${i}`).toBeDefined();
        expect(x!.version).toBe(version);
      }
    }
    await waitUntil("accept counted", 5_000, async () => sampleValue(await b.stats(), "gossip_messages", { result: "accept" }) >= 3, 100);
  }, 60_000);

  it("round-trips payload_by_number from C to A", async () => {
    const n = blocks[0]!.header.number;
    const r = await c.fetchPayloadByNumber(n);
    expect(r.peer).toBe(a.self().peerId);
    expect(r.payloadBytes).toEqual(gossipBytesOf(blocks[0]!, dev.chain.op!).payloadBytes);
    await expect(c.fetchPayloadByNumber(10_000n)).rejects.toMatchObject({ code: "P2P_FETCH_FAILED" });
  }, 30_000);

  it("answers the opp2p_* methods in op-node's shapes", async () => {
    const m = p2pMethods(a);
    const ctx = { transport: "rollup" as const };
    const self = (await m.opp2p_self!([], ctx)) as Record<string, unknown>;
    expect(Object.keys(self).sort()).toEqual(
      ["peerID", "nodeID", "userAgent", "protocolVersion", "ENR", "addresses", "protocols", "connectedness", "direction", "protected", "chainID", "latency", "gossipBlocks", "scores"].sort(),
    );
    expect(self.peerID).toBe(a.self().peerId);
    expect(self.ENR).toBe(a.self().enr);
    expect(self.chainID).toBe(Number(dev.chain.common.chainId()));
    const peers = (await m.opp2p_peers!([true], ctx)) as { totalConnected: number; peers: Record<string, Record<string, unknown>>; bannedPeers: string[] };
    expect(peers.totalConnected).toBeGreaterThanOrEqual(2);
    const bInfo = peers.peers[b.self().peerId]!;
    expect(bInfo.connectedness).toBe(1);
    expect(bInfo.userAgent).toBe("basalt-test");
    expect(bInfo.gossipBlocks).toBe(true);
    expect(bInfo.protocols).toContain(`/opstack/req/payload_by_number/${dev.chain.common.chainId()}/0`);
    expect(bInfo.scores).toMatchObject({ gossip: { blocks: { invalidMessageDeliveries: 0 } }, reqResp: { validResponses: 0 } });
    const stats = (await m.opp2p_peerStats!([], ctx)) as Record<string, number>;
    expect(stats).toMatchObject({ connected: expect.any(Number), table: expect.any(Number), blocksTopicV4: expect.any(Number), banned: 0 });
    const table = (await m.opp2p_discoveryTable!([], ctx)) as string[];
    expect(table.every((e) => e.startsWith("enr:"))).toBe(true);
    // block / list / unblock a peer
    await m.opp2p_blockPeer!([c.self().peerId], ctx);
    expect(await m.opp2p_listBlockedPeers!([], ctx)).toEqual([c.self().peerId]);
    await m.opp2p_unblockPeer!([c.self().peerId], ctx);
    expect(await m.opp2p_listBlockedPeers!([], ctx)).toEqual([]);
    await m.opp2p_blockAddr!(["10.1.2.3"], ctx);
    expect(await m.opp2p_listBlockedAddrs!([], ctx)).toEqual(["10.1.2.3"]);
    await m.opp2p_blockSubnet!(["10.0.0.0/8"], ctx);
    expect(await m.opp2p_listBlockedSubnets!([], ctx)).toEqual([{ IP: "10.0.0.0", Mask: "/wAAAA==" }]);
    await expect(Promise.resolve().then(() => m.opp2p_blockPeer!(["not-a-peer"], ctx))).rejects.toThrow(/invalid peer ID/);
  }, 30_000);
});
