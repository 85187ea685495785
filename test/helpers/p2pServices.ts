/**
 * P2P services for tests: in-process {@link P2PService}s on 127.0.0.1 with port 0, a devnet chain
 * whose real blocks they gossip and serve, and a poll for worker samples.
 */
import pino from "pino";
import { randomBytes } from "node:crypto";
import { devAccounts } from "../../src/chain/devnet.js";
import type { Block } from "@ethereumjs/block";
import type { OpForkSchedule } from "../../src/chain/op/forks.js";
import { envelopeFromBlock } from "../../src/p2p/gossip/envelope.js";
import { blocksVersionAt, type BlocksVersion } from "../../src/p2p/gossip/topics.js";
import { P2PService, type P2PServiceOptions } from "../../src/p2p/service.js";
import type { StatSample } from "../../src/p2p/cl/protocol.js";

/** The devnet's first account: the tests' sequencer key and unsafe block signer. */
export const SEQUENCER_KEY = new Uint8Array(Buffer.from(devAccounts()[0]!.privateKey.slice(2), "hex"));
export const SEQUENCER_ADDRESS = new Uint8Array(Buffer.from(devAccounts()[0]!.address.slice(2), "hex"));

/** Options of a test service: loopback, port 0, discovery on, no bootnodes, fast and silent. */
export function testP2POptions(chainId: bigint, rollup: OpForkSchedule, over: Partial<P2PServiceOptions> = {}): P2PServiceOptions {
  return {
    chainId,
    rollup,
    blockTimeS: 2,
    nodeKey: new Uint8Array(randomBytes(32)),
    signer: SEQUENCER_ADDRESS,
    listenIp: "127.0.0.1",
    tcpPort: 0,
    udpPort: 0,
    bootnodes: [],
    staticPeers: [],
    noDiscovery: false,
    peersLo: 20,
    peersHi: 30,
    banPeers: true,
    banThreshold: -100,
    banDurationS: 3_600,
    userAgent: "basalt-test",
    logLevel: "error",
    logFormat: "json",
    ...over,
  };
}

/** A started service (stop it in afterAll/afterEach). */
export async function startP2P(opts: P2PServiceOptions): Promise<P2PService> {
  const s = new P2PService(opts, pino({ level: "silent" }));
  await s.start();
  return s;
}

/** The gossip version and signed bytes of a chain block. */
export function gossipBytesOf(block: Block, rollup: OpForkSchedule): { version: BlocksVersion; payloadBytes: Uint8Array } {
  const version = blocksVersionAt(rollup, block.header.timestamp);
  return { version, payloadBytes: envelopeFromBlock(block, version) };
}

/** Sum of the samples called `name` whose labels include `labels`. */
export function sampleValue(samples: StatSample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}
