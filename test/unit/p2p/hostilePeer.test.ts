/**
 * Hostile peers against a P2PService (V). Each attack comes from a fresh libp2p node built here with
 * the same libraries (tcp, noise, yamux, gossipsub with StrictNoSign and op-node's message id), so
 * each one's score and ban are its own: invalid signature, wrong signer, malformed snappy,
 * malformed SSZ, a snappy bomb (decompresses past 10 MiB), a flood of future-timestamped blocks,
 * a flood of duplicates, garbage on the payload_by_number stream, raw UDP garbage and a discv5
 * handshake signed with the wrong key. For each: the rule's result and reason are counted, the
 * gossip score of the sender drops below zero and it is banned and disconnected (op-node's peer
 * monitor); V keeps working: a good block the sequencer (S) publishes afterwards arrives, and the
 * worker answers.
 */
import "../../../src/p2p/polyfills.js";
import { createSocket } from "node:dgram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Discv5, createKeypair } from "@chainsafe/discv5";
import { ENR, SignableENR } from "@chainsafe/enr";
import { gossipsub, type GossipSub, type GossipSubComponents } from "@chainsafe/libp2p-gossipsub";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { identify } from "@libp2p/identify";
import type { PrivateKey } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { createLibp2p, type Libp2p } from "libp2p";
import { compress } from "snappyjs";
import type { Block } from "@ethereumjs/block";
import { devAccounts } from "../../../src/chain/devnet.js";
import { blockSigningHash, signBlockPayload } from "../../../src/p2p/gossip/signing.js";
import { encodeBlockMessage, gossipMessageId } from "../../../src/p2p/gossip/message.js";
import { decodeSignedBytes, encodeSignedBytes } from "../../../src/p2p/gossip/ssz.js";
import { blocksTopic, type BlocksVersion } from "../../../src/p2p/gossip/topics.js";
import { payloadByNumberProtocol } from "../../../src/p2p/cl/payloadByNumber.js";
import { registerP2PMetrics } from "../../../src/p2p/metrics.js";
import { scrapeAllMetrics } from "../../../src/util/workerMetrics.js";
import type { GossipBlock, P2PService } from "../../../src/p2p/service.js";
import { openDevChain, type DevChain } from "../../helpers/devChain.js";
import { waitUntil } from "../../helpers/poll.js";
import { SEQUENCER_KEY, gossipBytesOf, sampleValue, startP2P, testP2POptions } from "../../helpers/p2pServices.js";

type Hostile = Libp2p<{ pubsub: GossipSub }>;

const OTHER_KEY = new Uint8Array(Buffer.from(devAccounts()[1]!.privateKey.slice(2), "hex"));
const OTHER_KEY_2 = new Uint8Array(Buffer.from(devAccounts()[2]!.privateKey.slice(2), "hex"));

describe("hostile peers against the P2P worker", () => {
  let dev: DevChain;
  let s: P2PService;
  let v: P2PService;
  let chainId: bigint;
  let block: Block;
  let version: BlocksVersion;
  let payloadBytes: Uint8Array;
  const got: GossipBlock[] = [];
  const hostiles: Hostile[] = [];

  beforeAll(async () => {
    dev = await openDevChain("basalt-p2p-hostile-");
    chainId = dev.chain.common.chainId();
    const rollup = dev.chain.op!;
    s = await startP2P(testP2POptions(chainId, rollup, { sequencerKey: SEQUENCER_KEY, noDiscovery: true }));
    v = await startP2P(testP2POptions(chainId, rollup, { staticPeers: [s.self().addresses[0]!] }));
    v.onBlock((b) => got.push(b));
    await dev.traffic.block();
    block = dev.chain.head;
    ({ version, payloadBytes } = gossipBytesOf(block, rollup));
  }, 60_000);

  afterAll(async () => {
    for (const h of hostiles) {
      try {
        await h.stop();
      } catch {
        // stopped already
      }
    }
    await Promise.all([s?.stop(), v?.stop()]);
    await dev?.close();
  });

  async function hostile(): Promise<Hostile> {
    const h = await createLibp2p({
      addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      services: {
        identify: identify(),
        pubsub: gossipsub({
          globalSignaturePolicy: "StrictNoSign",
          msgIdFn: (m) => gossipMessageId(m.data, m.topic),
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: true,
          floodPublish: true,
          maxOutboundBufferSize: 64 * 1024 * 1024,
        }) as (c: GossipSubComponents) => GossipSub,
      },
    });
    hostiles.push(h as unknown as Hostile);
    for (let i = 1; i <= 4; i++) h.services.pubsub.subscribe(blocksTopic(chainId, i as BlocksVersion));
    await h.dial(multiaddr(v.self().addresses[0]!));
    const vid = v.self().peerId;
    await waitUntil("V subscribed as seen by the hostile peer", 10_000, () => h.services.pubsub.getSubscribers(blocksTopic(chainId, version)).some((p) => p.toString() === vid), 50);
    return h as unknown as Hostile;
  }

  /**
   * Sends `messages` from a fresh hostile peer; waits until V counted `reason` `count` more times; checks score, ban and
   * disconnection. Rejecting cases send two distinct offences: one invalid message scores exactly -100 (op-node's
   * invalid-delivery weight -1000 × topic weight 0.1), the ban needs a score below -100 (op-node's default threshold).
   */
  async function attack(name: string, reason: string, result: string, messages: Uint8Array[], count = 1): Promise<void> {
    const before = sampleValue(await v.stats(), "gossip_messages", { reason, result });
    const h = await hostile();
    const hid = h.peerId.toString();
    for (const m of messages) await h.services.pubsub.publish(blocksTopic(chainId, version), m).catch(() => undefined);
    await waitUntil(`${name}: V counted ${reason}`, 15_000, async () => sampleValue(await v.stats(), "gossip_messages", { reason, result }) >= before + count, 50);
    if (result === "reject") {
      await waitUntil(`${name}: hostile banned`, 10_000, async () => ((await v.call("listBlockedPeers")) as string[]).includes(hid), 100);
      expect((await v.call("scoreOf", [hid])) as number, name).toBeLessThan(-40);
      await waitUntil(`${name}: hostile disconnected`, 10_000, () => h.getConnections().length === 0, 50);
      // A redial may finish its own handshake, but V refuses the connection once the peer is known.
      await h.dial(multiaddr(v.self().addresses[0]!)).catch(() => undefined);
      await waitUntil(`${name}: redial refused`, 10_000, () => h.getConnections().length === 0, 50);
    }
    await h.stop();
  }

  it("rejects a block with an invalid signature", async () => {
    // r = s = 0: no key recovers from it.
    const sig = new Uint8Array(65);
    const sig2 = new Uint8Array(65);
    sig2[31] = 1; // r = 1, s = 0: no key recovers from it either
    await attack("invalid signature", "bad_signature", "reject", [encodeBlockMessage(version, sig, payloadBytes), encodeBlockMessage(version, sig2, payloadBytes)], 2);
  }, 60_000);

  it("rejects a block signed by another key", async () => {
    await attack(
      "wrong signer",
      "wrong_signer",
      "reject",
      [OTHER_KEY, OTHER_KEY_2].map((k) => encodeBlockMessage(version, signBlockPayload(k, chainId, payloadBytes), payloadBytes)),
      2,
    );
  }, 60_000);

  it("rejects malformed snappy", async () => {
    await attack("malformed snappy", "bad_snappy", "reject", [Uint8Array.of(0x50, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02), Uint8Array.of(0x50, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x03, 0x04)], 2);
  }, 60_000);

  it("rejects malformed SSZ", async () => {
    await attack("malformed SSZ", "malformed", "reject", [compress(new Uint8Array(65 + 600).fill(0xab)), compress(new Uint8Array(65 + 600).fill(0xcd))], 2);
  }, 60_000);

  it("rejects a snappy bomb that decompresses past 10 MiB", async () => {
    await attack("snappy bomb", "too_large", "reject", [compress(new Uint8Array(11 * 1024 * 1024)), compress(new Uint8Array(11 * 1024 * 1024).fill(1))], 2);
  }, 60_000);

  it("rejects a flood of future-timestamped blocks (counted; the sender is banned by its second)", async () => {
    const env = decodeSignedBytes(version, payloadBytes);
    const msgs: Uint8Array[] = [];
    for (let i = 0; i < 20; i++) {
      env.payload.timestamp = BigInt(Math.floor(Date.now() / 1000) + 100 + i);
      const bytes = encodeSignedBytes(version, env);
      msgs.push(encodeBlockMessage(version, signBlockPayload(SEQUENCER_KEY, chainId, bytes), bytes));
    }
    await attack("future flood", "future", "reject", msgs, 1);
  }, 60_000);

  it("delivers a block once and ignores re-signed duplicates of it", async () => {
    await waitUntil("S and V meshed", 15_000, async () => ((await s.call("peerStats")) as { blocksTopicV4: number }).blocksTopicV4 >= 1, 100);
    await s.publish(version, payloadBytes);
    await waitUntil("V got the block", 10_000, () => got.length >= 1, 50);
    // The same block under other valid signatures (random nonces): other message ids, same block hash.
    const hash = blockSigningHash(chainId, payloadBytes);
    const dups: Uint8Array[] = [];
    for (let i = 0; i < 10; i++) {
      const rec = secp256k1.sign(hash, SEQUENCER_KEY, { prehash: false, format: "recovered", extraEntropy: true });
      const sig = new Uint8Array(65);
      sig.set(rec.subarray(1, 65), 0);
      sig[64] = rec[0]!;
      dups.push(encodeBlockMessage(version, sig, payloadBytes), encodeBlockMessage(version, sig, payloadBytes));
    }
    await attack("duplicate flood", "duplicate", "ignore", dups, 10);
    expect(got.filter((g) => Buffer.from(g.payloadBytes).equals(payloadBytes))).toHaveLength(1);
  }, 60_000);

  it("answers garbage on the payload_by_number stream with an error code and survives", async () => {
    const before = sampleValue(await v.stats(), "reqresp_requests", { side: "server", result: "invalidRequest" });
    const h = await hostile();
    for (const garbage of [Uint8Array.of(1, 2, 3), new Uint8Array(100_000).fill(0xee)]) {
      const stream = await h.dialProtocol(multiaddr(v.self().addresses[0]!), payloadByNumberProtocol(chainId));
      await stream.sink([garbage]).catch(() => undefined);
      const answer: Uint8Array[] = [];
      try {
        for await (const c of stream.source) answer.push(c.subarray());
      } catch {
        // the server may reset an oversized request
      }
      if (answer.length > 0) expect(answer[0]![0]).toBeGreaterThan(0);
    }
    await waitUntil("server counted the bad requests", 10_000, async () => sampleValue(await v.stats(), "reqresp_requests", { side: "server" }) >= before + 2, 50);
    await h.stop();
  }, 60_000);

  it("drops raw UDP garbage and a discv5 handshake signed with the wrong key", async () => {
    const before = sampleValue(await v.stats(), "discovery_packets", { result: "malformed" });
    const sock = createSocket("udp4");
    for (let i = 0; i < 20; i++) sock.send(new Uint8Array(100 + i).fill(i), v.self().udpPort, "127.0.0.1");
    await waitUntil("malformed packets counted", 10_000, async () => sampleValue(await v.stats(), "discovery_packets", { result: "malformed" }) >= before + 20, 50);
    sock.close();
    // A node whose record is signed by one key but whose handshakes are signed by another.
    const recordKey = (await generateKeyPair("secp256k1")) as unknown as PrivateKey;
    const handshakeKey = (await generateKeyPair("secp256k1")) as unknown as PrivateKey;
    const enr = SignableENR.createFromPrivateKey(recordKey);
    enr.ip = "127.0.0.1";
    const decodedBefore = sampleValue(await v.stats(), "discovery_packets", { result: "decoded" });
    const liar = Discv5.create({ enr, privateKey: recordKey, bindAddrs: { ip4: multiaddr("/ip4/127.0.0.1/udp/0") } });
    (liar.sessionService as unknown as { keypair: unknown }).keypair = createKeypair({ type: "secp256k1", privateKey: handshakeKey.raw });
    await liar.start();
    // The ping's handshake fails (it may never answer): wait for V to decode the liar's packets instead.
    void liar.sendPing(ENR.decodeTxt(v.self().enr)).catch(() => undefined);
    // The liar's packets reached V and decoded; its handshake did not put it in the table.
    await waitUntil("liar's packets seen", 5_000, async () => sampleValue(await v.stats(), "discovery_packets", { result: "decoded" }) > decodedBefore, 50);
    await liar.stop();
    const table = (await v.call("discoveryTable")) as string[];
    expect(table.map((t) => ENR.decodeTxt(t).nodeId)).not.toContain(enr.nodeId);
  }, 60_000);

  it("keeps working: a good block still arrives, metrics count every reason, the worker answers", async () => {
    await dev.traffic.block();
    const next = gossipBytesOf(dev.chain.head, dev.chain.op!);
    await s.publish(next.version, next.payloadBytes);
    await waitUntil("V got the good block", 15_000, () => got.some((g) => Buffer.from(g.payloadBytes).equals(next.payloadBytes)), 50);
    expect(v.running).toBe(true);
    const self = (await v.call("self")) as { peerID: string };
    expect(self.peerID).toBe(v.self().peerId);
    registerP2PMetrics();
    await waitUntil("counted", 5_000, async () => sampleValue(await v.stats(), "gossip_messages", { reason: "ok" }) >= 2, 100);
    // The worker's own registry, scraped by the worker host into the exposition.
    const { text } = await scrapeAllMetrics();
    for (const reason of ["bad_signature", "wrong_signer", "bad_snappy", "malformed", "too_large", "future", "duplicate", "ok"]) {
      expect(text, reason).toContain(`reason="${reason}"`);
    }
    expect(text).toMatch(/\nbasalt_p2p_peer_bans_total [1-9]/);
    expect(text).toMatch(/\nbasalt_p2p_running_workers\{worker="p2p"\} 1/);
  }, 60_000);
});
