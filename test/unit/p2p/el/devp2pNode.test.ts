/**
 * The devp2p node in-process on a real devnet chain store, with test peers on RLPx
 * (test/helpers/devp2pPeer.ts) and discovery off: eth/69 peers are told the served range as the
 * head moves — one BlockRangeUpdate once the head is 32 blocks past what was announced, none
 * before (EIP-7642: at most once per 32 blocks) — eth/68 peers get none, and an eth/68 peer
 * sending eth/69's BlockRangeUpdate is dropped.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevP2PNode } from "../../../../src/p2p/el/devp2pNode.js";
import { chainForkActivations } from "../../../../src/p2p/el/forkSchedule.js";
import type { DevP2PWorkerData } from "../../../../src/p2p/el/threadProtocol.js";
import { openDevChain, type DevChain } from "../../../helpers/devChain.js";
import { TestEthPeer } from "../../../helpers/devp2pPeer.js";
import { pollUntil } from "../../../helpers/poll.js";

const uint = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString("hex")}`));
const u = (n: bigint): Uint8Array => bigIntToUnpaddedBytes(n);

describe("devp2p node: BlockRangeUpdate", () => {
  let dev: DevChain;
  let node: DevP2PNode;
  let enode = "";
  const peers: TestEthPeer[] = [];

  beforeAll(async () => {
    dev = await openDevChain("basalt-devp2pnode-");
    await dev.traffic.block();
    const { blocks, times } = chainForkActivations(dev.chain);
    const data: DevP2PWorkerData = {
      clientId: "basalt/test",
      addr: "127.0.0.1",
      port: 0,
      discoveryAddr: "127.0.0.1",
      discv4: false,
      discoveryPort: 0,
      discv5: false,
      discv5Port: 0,
      discv5ProtocolId: "basev0",
      externalIp: undefined,
      discv4Bootnodes: [],
      discv5Bootnodes: [],
      trustedPeers: [],
      maxInbound: 10,
      maxOutbound: 10,
      txGossip: false,
      poolTxTypes: [0, 1, 2, 4],
      datadir: "",
      logLevel: "silent",
      logFormat: "json",
      privateKeyHex: "11".repeat(32),
      chainId: dev.chain.chainId.toString(),
      genesisHash: Buffer.from(dev.chain.genesisHash).toString("hex"),
      genesisTime: (dev.chain.getHeaderByHash(dev.chain.genesisHash)?.timestamp ?? 0n).toString(),
      blockForks: blocks.map(String),
      timeForks: times.map(String),
      depositNonceRoot: { regolith: null, canyon: null },
    };
    node = new DevP2PNode(dev.chain.store, data, pino({ level: "silent" }), { forwardTxs: () => undefined, lookupTxs: async () => [] });
    enode = (await node.start()).enode;
  }, 60_000);

  afterAll(async () => {
    for (const p of peers) p.close();
    await node?.stop();
    await dev?.close();
  });

  /** A peer of `version` that completes the Status exchange with the node's own Status (an honest peer at the node's head). */
  async function peer(version: 68 | 69): Promise<{ p: TestEthPeer; status: Uint8Array[] }> {
    const p = await TestEthPeer.connect(enode, 10_000, version);
    peers.push(p);
    p.serve((code, body) => p.request(code, body));
    const status = RLP.decode(await p.next(0x00)) as Uint8Array[];
    p.send(0x00, RLP.encode(status as never));
    return { p, status };
  }

  it("sends eth/69 peers one update once the head is 32 blocks past the announced one, and eth/68 peers none", async () => {
    const { p: p69, status } = await peer(69);
    const { p: p68 } = await peer(68);
    const announced = uint(status[5]!);
    await pollUntil("both peers ready", 10_000, async () => (node.peers().length === 2 ? true : undefined), 50);
    for (let i = 0; i < 40; i++) await dev.traffic.block();
    const update = RLP.decode(await p69.next(0x11, 15_000)) as Uint8Array[];
    const [earliest, latest, latestHash] = [uint(update[0]!), uint(update[1]!), update[2]!];
    expect(earliest).toBe(0n);
    // Never before the head is 32 past the announced block: the update names a head at least that far.
    expect(latest).toBeGreaterThanOrEqual(announced + 32n);
    expect(latest).toBeLessThanOrEqual(announced + 41n);
    expect(Buffer.from(latestHash).equals(Buffer.from(dev.chain.store.getCanonicalHash(latest)!))).toBe(true);
    // The next one waits for 32 more blocks: none for this head.
    await dev.traffic.block();
    const headers = await p69.request(0x03, [u(0n), u(1n), new Uint8Array(0), new Uint8Array(0)]);
    expect(headers).toHaveLength(1);
    expect(node.snapshot().counters["messages:out:BlockRangeUpdate"]).toBe(1);
    // The eth/68 peer got no update and is still up.
    const h68 = await p68.request(0x03, [u(0n), u(1n), new Uint8Array(0), new Uint8Array(0)]);
    expect(h68).toHaveLength(1);
    await expect(p68.next(0x11, 0)).rejects.toThrow(/timed out after 0 ms waiting for eth message 0x11/);
  }, 60_000);

  it("drops an eth/68 peer that sends BlockRangeUpdate", async () => {
    const { p } = await peer(68);
    p.send(0x11, RLP.encode([u(0n), u(1n), new Uint8Array(32).fill(1)]));
    await p.waitClosed(10_000);
    await pollUntil("counted", 5_000, async () => ((node.snapshot().counters["dropped:invalid"] ?? 0) >= 1 ? true : undefined), 50);
  });
});
