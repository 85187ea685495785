/**
 * The devnet-l1 producer in process, on a real chain, pool, beacon API (BeaconShim) and blob
 * archive, with a clock the test sets: blocks take their slot's timestamp (missed slots skipped,
 * `evm_mine` ahead of the clock), prevRandao / parentBeaconBlockRoot per slot, safe and finalized
 * at their distances; a blob transaction is mined with its blob gas and its blobs are served at
 * the block's slot and verified by the beacon client; `debug_setHead` unwinds the block and its
 * blobs; a reopened chain serves the blobs again; the retention bounds drop the oldest slots.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { DEVNET_L1_GENESIS_TIMESTAMP, devnetL1Genesis } from "../../../src/chain/devnetL1.js";
import { DEVNET_L1_CHAIN_ID } from "../../../src/chain/constants.js";
import { L1DEV_FINALIZED_DISTANCE, L1DEV_SAFE_DISTANCE } from "../../../src/sequencer/constants.js";
import { BeaconClient } from "../../../src/derivation/beaconClient.js";
import { BlobErrorCode } from "../../../src/derivation/blobErrors.js";
import { BeaconShim } from "../../../src/derivation/beaconShim.js";
import { verifyBlobProof, type CommittedBlob } from "../../../src/derivation/kzg.js";
import { L1BlobArchive, type BlobSink } from "../../../src/sequencer/l1BlobArchive.js";
import { L1DevErrorCode } from "../../../src/sequencer/l1DevErrors.js";
import { devnetL1BeaconRoot, devnetL1PrevRandao, forkchoiceNumbers, L1DevProducer } from "../../../src/sequencer/l1DevProducer.js";
import { SlotClock } from "../../../src/sequencer/l1SlotClock.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { to0x } from "../../../src/util/bytes.js";
import { signedBlobTx, testBlob, type SignedBlobTx } from "../../helpers/blobTx.js";

const silent = pino({ level: "silent" });
const SLOT_SECONDS = 2;
const clock = new SlotClock(DEVNET_L1_GENESIS_TIMESTAMP, SLOT_SECONDS);
/** A slot well after genesis, as a node started today would see. */
const START_SLOT = 50_000_000n;
const acct = devAccounts()[0]!;
const other = devAccounts()[1]!;

/** A beacon-API sink that records what it holds (for the retention tests). */
class RecordingSink implements BlobSink {
  readonly slots = new Map<number, number>();
  putCommitted(slot: number, blobs: readonly CommittedBlob[]): void {
    this.slots.set(slot, blobs.length);
  }
  delete(slot: number): void {
    this.slots.delete(slot);
  }
}

/** An L1 node in process: chain, pool, beacon API, archive and producer on a settable clock. */
interface L1Node {
  chain: Chain;
  pool: TxPool;
  beacon: BeaconShim;
  archive: L1BlobArchive;
  producer: L1DevProducer;
  setSlot(slot: bigint, msIntoSlot?: number): void;
  close(): Promise<void>;
}

const dirs: string[] = [];
const open: L1Node[] = [];

function newDatadir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-l1dev-"));
  dirs.push(d);
  return d;
}

async function openNode(datadir: string, sink?: BlobSink, bounds = { retentionSlots: 4096, maxBlobs: 2048 }): Promise<L1Node> {
  if (!existsSync(path.join(datadir, "chain"))) await Chain.init(datadir, devnetL1Genesis(), { archive: true });
  const chain = Chain.open(datadir, { archive: true, logger: silent });
  const pool = new TxPool(chain, { blobProofCheck: (b, c, p) => verifyBlobProof(b, c, p) });
  const beacon = await BeaconShim.start({ genesisTime: Number(DEVNET_L1_GENESIS_TIMESTAMP), secondsPerSlot: SLOT_SECONDS });
  const archive = L1BlobArchive.open(path.join(datadir, "l1-blobs"), sink ?? beacon, chain.headHeader.number, { ...bounds, clock, logger: silent });
  archive.restore(chain);
  let nowMs = Number(clock.timestampOf(START_SLOT)) * 1000;
  const producer = new L1DevProducer(chain, pool, { clock, archive, logger: silent, now: () => nowMs });
  const node: L1Node = {
    chain,
    pool,
    beacon,
    archive,
    producer,
    setSlot: (slot, msIntoSlot = 500) => void (nowMs = Number(clock.timestampOf(slot)) * 1000 + msIntoSlot),
    close: async () => {
      await producer.stop();
      await beacon.close();
      await chain.close();
      open.splice(open.indexOf(node), 1);
    },
  };
  open.push(node);
  return node;
}

afterEach(async () => {
  for (const n of [...open]) await n.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The chain's Common (Prague). */
const common = commonFromGenesis(devnetL1Genesis());

async function blobTx(nonce: bigint, seeds: number[]): Promise<SignedBlobTx> {
  return signedBlobTx({ common, chainId: DEVNET_L1_CHAIN_ID, nonce, privateKey: acct.privateKey, to: other.address, blobs: seeds.map(testBlob) });
}

describe("L1DevProducer: the slot clock", () => {
  it("builds each block at its slot's start, skips missed slots, and seals ahead of the clock for evm_mine", async () => {
    const n = await openNode(newDatadir());
    n.setSlot(START_SLOT);
    await n.producer.sealOne();
    expect(n.chain.headHeader.timestamp).toBe(clock.timestampOf(START_SLOT));
    // The slot has a block: evm_mine seals in the next slot, ahead of the clock.
    await n.producer.sealOne();
    expect(n.chain.headHeader.timestamp).toBe(clock.timestampOf(START_SLOT + 1n));
    // Four slots later (three missed): the block takes the slot under way.
    n.setSlot(START_SLOT + 5n, 1999);
    await n.producer.sealOne();
    const head = n.chain.headHeader;
    expect(head.number).toBe(3n);
    expect(head.timestamp).toBe(clock.timestampOf(START_SLOT + 5n));
    expect((head.timestamp - DEVNET_L1_GENESIS_TIMESTAMP) % BigInt(SLOT_SECONDS)).toBe(0n);
    expect(bytesToHex(head.mixHash)).toBe(bytesToHex(devnetL1PrevRandao(START_SLOT + 5n)));
    expect(bytesToHex(head.parentBeaconBlockRoot!)).toBe(bytesToHex(devnetL1BeaconRoot(START_SLOT + 5n)));
    expect(n.producer.newestSlot).toBe(START_SLOT + 5n);
  });

  it("moves safe and finalized behind the head at their distances", async () => {
    expect(forkchoiceNumbers(1n)).toEqual({ safe: 0n, finalized: 0n });
    expect(forkchoiceNumbers(20n)).toEqual({ safe: 20n - L1DEV_SAFE_DISTANCE, finalized: 20n - L1DEV_FINALIZED_DISTANCE });
    const n = await openNode(newDatadir());
    for (let i = 0n; i < 12n; i++) {
      n.setSlot(START_SLOT + i);
      await n.producer.sealOne();
    }
    expect(n.chain.headHeader.number).toBe(12n);
    expect(n.chain.pointer("safe")!.header.number).toBe(12n - L1DEV_SAFE_DISTANCE);
    expect(n.chain.pointer("finalized")!.header.number).toBe(12n - L1DEV_FINALIZED_DISTANCE);
  });
});

describe("L1DevProducer: blob transactions and the beacon API", () => {
  it("mines a blob transaction with its blob gas and serves its blobs at the block's slot", async () => {
    const n = await openNode(newDatadir());
    const tx = await blobTx(0n, [11, 12]);
    const pooled = await n.pool.addRaw(tx.raw);
    expect(to0x(pooled.hash)).toBe(tx.hash);
    expect(pooled.sidecar?.blobs).toHaveLength(2);
    n.setSlot(START_SLOT + 3n);
    await n.producer.sealOne();
    const block = n.chain.head;
    expect(block.transactions.map((t) => to0x(t.hash()))).toEqual([tx.hash]);
    expect(block.header.blobGasUsed).toBe(2n * 131_072n);
    expect(n.pool.size).toBe(0);
    // The next block's excess blob gas follows (2 blobs, below Prague's target of 6: stays 0).
    n.setSlot(START_SLOT + 4n);
    await n.producer.sealOne();
    expect(n.chain.head.header.excessBlobGas).toBe(0n);

    const client = new BeaconClient({ url: n.beacon.url });
    expect(await client.slotAt(block.header.timestamp)).toBe(Number(START_SLOT + 3n));
    const hashes = tx.blobs.map((b, index) => ({ index, hash: b.versionedHash }));
    const blobs = await client.blobsForBlock(block.header.timestamp, hashes);
    expect(blobs.map(to0x)).toEqual(tx.blobs.map((b) => to0x(b.blob)));
    // A slot with a block but no blobs answers an empty list; a missed slot 404s.
    expect(await (await fetch(`${n.beacon.url}/eth/v1/beacon/blobs/${START_SLOT + 4n}`)).json()).toEqual(expect.objectContaining({ data: [] }));
    expect((await fetch(`${n.beacon.url}/eth/v1/beacon/blobs/${START_SLOT + 2n}`)).status).toBe(404);
  }, 60_000);

  it("unwinds with debug_setHead: blobs gone, transactions not pooled again, production continues at a later slot", async () => {
    const n = await openNode(newDatadir());
    n.setSlot(START_SLOT);
    await n.producer.sealOne();
    const tx = await blobTx(0n, [21]);
    await n.pool.addRaw(tx.raw);
    n.setSlot(START_SLOT + 1n);
    await n.producer.sealOne();
    const unwound = n.chain.head;
    const files = readdirSync(n.archive.dir).filter((f) => f.endsWith(".blobs"));
    expect(files).toEqual([`2-${bytesToHex(unwound.hash()).slice(2)}.blobs`]);
    for (const i of [2n, 3n]) {
      n.setSlot(START_SLOT + i);
      await n.producer.sealOne();
    }

    await expect(n.producer.setHead(9n)).rejects.toThrow(expect.objectContaining({ code: L1DevErrorCode.SET_HEAD_ABOVE_HEAD }));
    await n.producer.setHead(1n);
    expect(n.chain.headHeader.number).toBe(1n);
    expect(n.chain.getBlockByNumber(2n)).toBeUndefined();
    expect(n.chain.pointer("safe")!.header.number).toBe(0n);
    expect(n.pool.size).toBe(0);
    expect(readdirSync(n.archive.dir).filter((f) => f.endsWith(".blobs"))).toEqual([]);
    const client = new BeaconClient({ url: n.beacon.url });
    await expect(client.blobsForBlock(unwound.header.timestamp, [{ hash: tx.blobs[0]!.versionedHash }])).rejects.toThrow(
      expect.objectContaining({ code: BlobErrorCode.SLOT_NOT_FOUND }),
    );

    // Still in slot START+3: the next block goes to the slot after the newest built, a different chain.
    await n.producer.sealOne();
    expect(n.chain.headHeader.number).toBe(2n);
    expect(n.chain.headHeader.timestamp).toBe(clock.timestampOf(START_SLOT + 4n));
    expect(bytesToHex(n.chain.head.hash())).not.toBe(bytesToHex(unwound.hash()));
    expect(n.chain.head.transactions).toHaveLength(0);
  }, 60_000);

  it("serves the blobs again after a restart and removes files of blocks that are not canonical", async () => {
    const datadir = newDatadir();
    const first = await openNode(datadir);
    const tx = await blobTx(0n, [31]);
    await first.pool.addRaw(tx.raw);
    first.setSlot(START_SLOT + 7n);
    await first.producer.sealOne();
    const ts = first.chain.headHeader.timestamp;
    await first.close();
    // A file left by a block that was never committed (a crash between the write and the commit).
    const orphan = path.join(datadir, "l1-blobs", `2-${"ab".repeat(32)}.blobs`);
    writeFileSync(orphan, new Uint8Array(131_168));

    const second = await openNode(datadir);
    expect(existsSync(orphan)).toBe(false);
    const blobs = await new BeaconClient({ url: second.beacon.url }).blobsForBlock(ts, [{ hash: tx.blobs[0]!.versionedHash }]);
    expect(blobs.map(to0x)).toEqual([to0x(tx.blobs[0]!.blob)]);
  }, 60_000);

  it("refuses to reopen a datadir with another slot length", async () => {
    const datadir = newDatadir();
    const n = await openNode(datadir);
    await n.producer.sealOne();
    const head = n.chain.headHeader.number;
    const other = new SlotClock(DEVNET_L1_GENESIS_TIMESTAMP, 12);
    expect(() => L1BlobArchive.open(n.archive.dir, new RecordingSink(), head, { retentionSlots: 4096, maxBlobs: 2048, clock: other })).toThrow(
      expect.objectContaining({ code: L1DevErrorCode.SLOT_LENGTH_CHANGED }),
    );
  });

  it("keeps the newest slots within the slot and blob bounds, on disk and after a restart", async () => {
    const datadir = newDatadir();
    const sink = new RecordingSink();
    const bounds = { retentionSlots: 4, maxBlobs: 3 };
    const n = await openNode(datadir, sink, bounds);
    // Slots START..START+5, one blob each from START+1 (slot START holds an empty block).
    n.setSlot(START_SLOT);
    await n.producer.sealOne();
    for (let i = 1n; i <= 5n; i++) {
      await n.pool.addRaw((await blobTx(i - 1n, [40 + Number(i)])).raw);
      n.setSlot(START_SLOT + i);
      await n.producer.sealOne();
    }
    // The blob bound (3) keeps the three newest slots; the slot bound (4 back from START+5) alone would keep START+1….
    const kept = [3n, 4n, 5n].map((i) => Number(START_SLOT + i));
    expect([...sink.slots.keys()]).toEqual(kept);
    expect(n.archive.blobsHeld).toBe(3);
    expect(readdirSync(n.archive.dir).filter((f) => f.endsWith(".blobs"))).toHaveLength(3);
    await n.close();

    const sink2 = new RecordingSink();
    const reopened = await openNode(datadir, sink2, bounds);
    expect([...sink2.slots.keys()]).toEqual(kept);
    expect(reopened.archive.slotsHeld).toEqual(kept);
    // Empty slots past the slot bound go too: eight empty blocks push every blob slot out.
    for (let i = 6n; i <= 13n; i++) {
      reopened.setSlot(START_SLOT + i);
      await reopened.producer.sealOne();
    }
    expect([...sink2.slots.keys()]).toEqual([9n, 10n, 11n, 12n, 13n].map((i) => Number(START_SLOT + i)));
    expect(readdirSync(reopened.archive.dir).filter((f) => f.endsWith(".blobs"))).toEqual([]);
  }, 120_000);
});

describe("L1DevProducer: plain transfers", () => {
  it("includes an EIP-1559 transfer signed by a dev account", async () => {
    const n = await openNode(newDatadir());
    const tx = createFeeMarket1559Tx(
      { chainId: DEVNET_L1_CHAIN_ID, nonce: 0n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 21_000n, to: other.address as `0x${string}`, value: 5n },
      { common },
    ).sign(hexToBytes(acct.privateKey as `0x${string}`));
    await n.pool.addRaw(tx.serialize());
    await n.producer.sealOne();
    expect(n.chain.head.transactions.map((t) => bytesToHex(t.hash()))).toEqual([bytesToHex(tx.hash())]);
    expect(n.chain.head.header.blobGasUsed).toBe(0n);
  });
});
