/**
 * GossipImporter on real devnet chains: a producer chain seals blocks, a follower chain imports
 * them as gossip would deliver them (in order, out of order, with a gap closed by fetching by
 * number against the hash chain, a competing branch above and below the safe head, duplicates and junk).
 * The payload bytes here are the blocks' RLP: the gossip codec has its own tests; this one checks the import rules.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../../src/chain/blockCodec.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { GossipImporter, type FetchedPayload } from "../../../src/p2p/gossipImport.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { waitUntil } from "../../helpers/poll.js";
import { ProofsTraffic } from "../../helpers/proofs.js";
import { to0x } from "../../../src/util/bytes.js";

const silent = pino({ level: "silent" });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function openChain(prefix: string): Promise<{ chain: Chain; seq: OpDevSequencer; traffic: ProofsTraffic }> {
  const datadir = mkdtempSync(path.join(os.tmpdir(), prefix));
  await Chain.init(datadir, devnetGenesis());
  const chain = Chain.open(datadir, { logger: silent });
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, silent);
  const traffic = new ProofsTraffic({ submit: async (raw) => void (await pool.addRaw(raw)), seal: async () => void (await seq.sealOne()) });
  cleanups.push(async () => {
    await chain.close();
    rmSync(datadir, { recursive: true, force: true });
  });
  return { chain, seq, traffic };
}

function bytesOf(chain: Chain, n: bigint): Uint8Array {
  return chain.getBlockByNumber(n)!.serialize();
}

function importer(follower: Chain, fetchByNumber?: (n: bigint) => Promise<FetchedPayload | undefined>): GossipImporter {
  const imp = new GossipImporter(follower, { toBlock: async (_v, bytes) => decodeBlockFromRlp(follower, bytes), fetchByNumber, logger: silent });
  cleanups.unshift(() => imp.stop());
  return imp;
}

/** Waits until `cond` holds (when given), then until the importer's queue is idle (tasks it queued meanwhile included). */
async function imported(imp: GossipImporter, cond?: () => boolean): Promise<void> {
  if (cond !== undefined) await waitUntil("the importer to reach the expected head", 4_000, cond);
  const queue = imp as unknown as { work: Promise<void> };
  for (let w = queue.work; ; w = queue.work) {
    await w;
    if (w === queue.work) return;
  }
}

const msg = (payloadBytes: Uint8Array) => ({ version: 3, payloadBytes, from: "peer", receivedAtMs: Date.now() });

describe("GossipImporter", () => {
  it("imports blocks in order and out of order, and ignores duplicates and junk", async () => {
    const producer = await openChain("gi-prod-");
    const follower = await openChain("gi-fol-");
    for (let i = 0; i < 4; i++) await producer.traffic.block();
    const imp = importer(follower.chain);
    imp.receive(msg(bytesOf(producer.chain, 1n)));
    imp.receive(msg(bytesOf(producer.chain, 3n)));
    imp.receive(msg(bytesOf(producer.chain, 2n)));
    await imported(imp, () => follower.chain.head.header.number === 3n);
    expect(follower.chain.head.hash()).toEqual(producer.chain.getBlockByNumber(3n)!.hash());
    imp.receive(msg(bytesOf(producer.chain, 3n)));
    imp.receive(msg(Uint8Array.of(0xc0, 1, 2, 3)));
    imp.receive(msg(bytesOf(producer.chain, 4n)));
    await imported(imp, () => follower.chain.head.header.number === 4n);
    expect(to0x(follower.chain.head.hash())).toBe(to0x(producer.chain.getBlockByNumber(4n)!.hash()));
    expect(imp.heldCount()).toBe(0);
    expect(imp.imported).toBe(4);
  }, 60_000);

  it("closes a gap backwards by fetching by number, refusing answers off the signed block's hash chain", async () => {
    const producer = await openChain("gi-prod-");
    const other = await openChain("gi-other-");
    const follower = await openChain("gi-fol-");
    for (let i = 0; i < 5; i++) await producer.traffic.block();
    await other.seq.sealOne();
    await other.seq.sealOne();
    await other.seq.sealOne();
    let lying = true;
    const fetches: bigint[] = [];
    const imp = importer(follower.chain, async (n) => {
      fetches.push(n);
      // First a peer answering from another chain: its block is not the parent the signed block names.
      const src = lying ? other.chain : producer.chain;
      const b = src.getBlockByNumber(n);
      return b === undefined ? undefined : { version: 3, payloadBytes: b.serialize() };
    });
    imp.receive(msg(bytesOf(producer.chain, 4n)));
    await imported(imp, () => fetches.length >= 1);
    expect(follower.chain.head.header.number).toBe(0n);
    expect(imp.heldCount()).toBe(1);
    lying = false;
    imp.receive(msg(bytesOf(producer.chain, 5n)));
    await imported(imp, () => follower.chain.head.header.number === 5n);
    expect(follower.chain.head.hash()).toEqual(producer.chain.getBlockByNumber(5n)!.hash());
    expect(imp.heldCount()).toBe(0);
  }, 60_000);

  it("moves the unsafe head to a competing branch above the safe head, never below it", async () => {
    const a = await openChain("gi-a-");
    const b = await openChain("gi-b-");
    const follower = await openChain("gi-fol-");
    for (let i = 0; i < 3; i++) await a.traffic.block();
    await b.seq.sealOne();
    await b.seq.sealOne();
    const imp = importer(follower.chain);
    for (const n of [1n, 2n, 3n]) imp.receive(msg(bytesOf(a.chain, n)));
    await imported(imp, () => follower.chain.head.header.number === 3n);
    // Branch b forks at genesis; with the safe head at genesis its block 2 becomes the head.
    imp.receive(msg(bytesOf(b.chain, 1n)));
    imp.receive(msg(bytesOf(b.chain, 2n)));
    await imported(imp, () => follower.chain.head.hash().every((x, i) => x === b.chain.getBlockByNumber(2n)!.hash()[i]));
    expect(follower.chain.head.hash()).toEqual(b.chain.getBlockByNumber(2n)!.hash());
    // Back to branch a, then mark a's block 1 safe: b's branch (forking at 0) is refused.
    imp.receive(msg(bytesOf(a.chain, 3n)));
    await imported(imp, () => follower.chain.head.header.number === 3n);
    await follower.chain.setHead(follower.chain.headHash, a.chain.getBlockByNumber(1n)!.hash());
    await b.seq.sealOne();
    imp.receive(msg(bytesOf(b.chain, 3n)));
    imp.receive(msg(bytesOf(b.chain, 1n)));
    await imported(imp);
    expect(follower.chain.head.hash()).toEqual(a.chain.getBlockByNumber(3n)!.hash());
  }, 60_000);
});
