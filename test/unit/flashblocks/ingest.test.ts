/**
 * The flashblocks consumer pipeline in-process (the worker thread runs the same classes):
 * frames of real devnet blocks are executed on a second node's chain, published through the
 * shared buffer and read back. Execution is checked against the sealed blocks (receipts root,
 * gas, post-state balances), and every fault leaves the last good pending state in place.
 */
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { mkdtempSync, rmSync } from "node:fs";
import { brotliCompressSync } from "node:zlib";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../../src/chain/devnet.js";
import { encodeFlashblock, type FlashblocksPayloadV1 } from "../../../src/flashblocks/codec.js";
import { flashblocksOfBlock } from "../../../src/flashblocks/replay.js";
import { FlashblocksIngest } from "../../../src/flashblocks/ingest.js";
import { IngestStats } from "../../../src/flashblocks/ingestStats.js";
import { allocatePendingBuffer, PendingBufferReader, PendingBufferWriter } from "../../../src/flashblocks/pendingBuffer.js";
import { pendingHead } from "../../../src/flashblocks/pendingSnapshot.js";
import { PendingStateReader, pendingStateIndex } from "../../../src/flashblocks/pendingView.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { fastEvmTestHooks } from "../../../src/execution/evm/transaction.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-fbingest-"));
  dirs.push(d);
  return d;
};
const accounts = devAccounts();
const PAYLOAD_ID = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);

/** Splits a sealed block into flashblocks: index 0 = its deposits, then one frame per other transaction. */
function framesOf(block: Block): FlashblocksPayloadV1[] {
  const frames = flashblocksOfBlock(block, 1, PAYLOAD_ID);
  // Only the last frame's cumulative values are known from the sealed block.
  return frames.map((f, i) =>
    i === frames.length - 1 ? f : { ...f, diff: { ...f.diff, receiptsRoot: new Uint8Array(32), logsBloom: new Uint8Array(256), gasUsed: 0n } },
  );
}

function text(fb: FlashblocksPayloadV1): string {
  return encodeFlashblock(fb, { compress: false }) as string;
}

describe("flashblocks ingestion", () => {
  let producer: Chain;
  let follower: Chain;
  let sealed: Block[];
  let writer: PendingBufferWriter;
  let reader: PendingBufferReader;
  let stats: IngestStats;
  let ingest: FlashblocksIngest;

  const transfer = (from: number, nonce: bigint, to: number, value: bigint) =>
    createFeeMarket1559Tx(
      { chainId: producer.chainId, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 21_000n, to: accounts[to]!.address as `0x${string}`, value },
      { common: producer.commonAt(1n, producer.head.header.timestamp + 1n) },
    ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));

  beforeAll(async () => {
    const a = tmp();
    const b = tmp();
    await Chain.init(a, devnetGenesis(), { archive: true });
    await Chain.init(b, devnetGenesis(), { archive: true });
    producer = Chain.open(a, { logger: silent });
    follower = Chain.open(b, { logger: silent });
    const pool = new TxPool(producer);
    const seq = new OpDevSequencer(producer, pool, 0, silent);
    await pool.addRaw(transfer(0, 0n, 5, 1000n).serialize());
    await pool.addRaw(transfer(1, 0n, 5, 2000n).serialize());
    seq.injectDeposit({ from: new Uint8Array(20).fill(0xaa), to: hexToBytes(accounts[6]!.address as `0x${string}`), mint: 10n ** 18n, value: 7n, gasLimit: 50_000n, data: new Uint8Array(0) });
    await seq.sealOne();
    await pool.addRaw(transfer(0, 1n, 7, 3000n).serialize());
    await seq.sealOne();
    sealed = [producer.getBlockByNumber(1n)!, producer.getBlockByNumber(2n)!];
    expect(sealed[0]!.transactions.length).toBe(4); // L1 info, deposit, 2 transfers
    writer = new PendingBufferWriter(allocatePendingBuffer(4 * 1024 * 1024));
    reader = new PendingBufferReader((writer as unknown as { ctl: Int32Array }).ctl.buffer as SharedArrayBuffer);
    stats = new IngestStats();
    ingest = new FlashblocksIngest(follower, writer, stats, silent);
  }, 60_000);

  afterAll(async () => {
    await producer?.close();
    await follower?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("executes each flashblock on the canonical parent and publishes the growing pending block", async () => {
    const frames = framesOf(sealed[0]!);
    expect(frames.length).toBe(3);
    ingest.onFrame(text(frames[0]!), 1);
    await ingest.drained();
    let s = reader.read()!;
    expect(s.blocks.length).toBe(1);
    expect(pendingHead(s).number).toBe(1);
    expect(pendingHead(s).index).toBe(0);
    expect(pendingHead(s).txs.length).toBe(2);
    const hash0 = pendingHead(s).hash;

    ingest.onFrame(encodeFlashblock(frames[1]!, { compress: true }) as Uint8Array, 2);
    await ingest.drained();
    const fields = ["receipts_root", "gas_used", "logs_bloom"].map((f) => `mismatch:${f}`);
    const mismatchesBefore = fields.map((f) => stats.get(f));
    ingest.onFrame(text(frames[2]!), 3);
    await ingest.drained();
    s = reader.read()!;
    const head = pendingHead(s);
    expect(head.index).toBe(2);
    expect(head.txs.map((t) => t.hash)).toEqual(sealed[0]!.transactions.map((t) => bytesToHex(t.hash())));
    expect(head.newTxCount).toBe(1);
    expect(head.hash).not.toBe(hash0);
    // The last frame carries the sealed block's cumulative values: execution reproduces them exactly.
    expect(fields.map((f) => stats.get(f))).toEqual(mismatchesBefore);
    expect(stats.get("mismatch:receipts_root")).toBe(2); // frames 0 and 1 published zeros
    // The published block hash is the builder's (zero here), so every frame is counted as differing.
    expect(stats.get("mismatch:block_hash")).toBe(3);
    // Every pre-rendered JSON names this partial block.
    const full = JSON.parse(head.blockJsonFull) as { hash: string; number: string; transactions: { blockHash: string; blockNumber: string }[]; gasUsed: string };
    expect(full.hash).toBe(head.hash);
    expect(full.number).toBe("0x1");
    expect(BigInt(full.gasUsed)).toBe(sealed[0]!.header.gasUsed);
    // size: the RLP length of the partial block (same body as the sealed block, its own header).
    const partialHeaderLength = head.headerRlp.length;
    const sealedBody = sealed[0]!.serialize().length - sealed[0]!.header.serialize().length;
    expect(Number((JSON.parse(head.blockJson) as { size: string }).size)).toBe(sealedBody + partialHeaderLength);
    for (const t of full.transactions) expect([t.blockHash, t.blockNumber]).toEqual([head.hash, "0x1"]);
    const receipts = JSON.parse(head.receiptsJson) as { blockHash: string; status: string }[];
    expect(receipts.length).toBe(4);
    for (const r of receipts) expect(r.blockHash).toBe(head.hash);
    expect(JSON.parse(head.txs[3]!.receiptJson)).toEqual(receipts[3]);
    // State: the diff over the follower's canonical state equals the producer's state after block 1.
    const pendingState = new PendingStateReader(follower.stateAt(follower.head.header), pendingStateIndex(s));
    const after = producer.stateAt(sealed[0]!.header);
    for (const i of [0, 1, 5, 6]) {
      const addr = hexToBytes(accounts[i]!.address as `0x${string}`);
      expect(pendingState.account(addr)?.balance).toBe(after.account(addr)?.balance);
      expect(pendingState.account(addr)?.nonce).toBe(after.account(addr)?.nonce);
    }
    expect(stats.get("applied")).toBe(3);
  });

  it("ignores a duplicate and keeps the last good state on malformed, oversized-looking or failing frames", async () => {
    const before = reader.generation();
    const frames = framesOf(sealed[0]!);
    ingest.onFrame(text(frames[2]!), 4);
    ingest.onFrame("{not json", 5);
    ingest.onFrame(new Uint8Array([0xff, 0x00, 0x13]), 6);
    await ingest.drained();
    expect(stats.get("duplicate")).toBe(1);
    expect(stats.get("rejected:malformed")).toBe(2);
    expect(reader.generation()).toBe(before);
    expect(pendingHead(reader.read()!).index).toBe(2);

    // Index 3 replays a transaction already executed: its nonce is too low, execution fails.
    const bad: FlashblocksPayloadV1 = { ...frames[2]!, index: 3, diff: { ...frames[2]!.diff } };
    ingest.onFrame(text(bad), 7);
    await ingest.drained();
    expect(stats.get("rejected:execution")).toBe(1);
    expect(reader.generation()).toBe(before);
    expect(pendingHead(reader.read()!).index).toBe(2);
    // The sequence now waits for the next index 0: a later index of the block is dropped.
    ingest.onFrame(text({ ...bad, index: 4 }), 8);
    await ingest.drained();
    expect(stats.get("dropped:waiting-for-first")).toBe(1);
  });

  it("holds the next block's frames until their parent is canonical, then replays them; catches up on the last", async () => {
    // Restart block 1 from index 0 (pending was cleared by the failure above).
    for (const [i, f] of framesOf(sealed[0]!).entries()) ingest.onFrame(text(f), 10 + i);
    await ingest.drained();
    expect(pendingHead(reader.read()!).index).toBe(2);
    // Block 2's index 0 follows the pending block 1: a second pending block on its post-state.
    const next = framesOf(sealed[1]!);
    ingest.onFrame(text(next[0]!), 20);
    ingest.onFrame(text(next[1]!), 21);
    await ingest.drained();
    let s = reader.read()!;
    expect(s.blocks.map((b) => b.number)).toEqual([1, 2]);
    expect(pendingHead(s).txs.length).toBe(sealed[1]!.transactions.length);
    const addr7 = hexToBytes(accounts[7]!.address as `0x${string}`);
    const pendingState = new PendingStateReader(follower.stateAt(follower.head.header), pendingStateIndex(s));
    expect(pendingState.account(addr7)?.balance).toBe(producer.stateAt(sealed[1]!.header).account(addr7)?.balance);

    // Block 1 becomes canonical on the follower: rebase, block 2 alone on canonical state.
    await follower.insertBlock(sealed[0]!);
    await follower.setHead(sealed[0]!.hash());
    ingest.onCanonical();
    await ingest.drained();
    s = reader.read()!;
    expect(s.blocks.map((b) => b.number)).toEqual([2]);
    expect(s.anchor.number).toBe(1);
    expect(stats.get("canonical:rebase")).toBe(1);

    // Block 2 canonical: caught up, no pending state.
    await follower.insertBlock(sealed[1]!);
    await follower.setHead(sealed[1]!.hash());
    ingest.onCanonical();
    await ingest.drained();
    expect(reader.read()).toBeUndefined();
    expect(stats.get("canonical:catch-up")).toBe(1);
    // A stale frame (block ≤ canonical) is dropped.
    ingest.onFrame(text(next[0]!), 30);
    await ingest.drained();
    expect(stats.get("dropped:stale")).toBe(1);
  });

  it("rejects a frame that decompresses past 32 MiB and keeps the last good state", async () => {
    const before = reader.generation();
    // 33 MiB of JSON whitespace compresses to a few KiB: a decompression bomb.
    const bomb = brotliCompressSync(Buffer.alloc(33 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    ingest.onFrame(new Uint8Array(bomb), 40);
    await ingest.drained();
    expect(stats.get("rejected:oversize")).toBe(1);
    expect(reader.generation()).toBe(before);
  });

  it("converges back to the producer's pending block at the next index 0 after lost and reordered frames", async () => {
    // Fresh follower state: the producer seals a third block on top of block 2.
    const pool = new TxPool(producer);
    const seq = new OpDevSequencer(producer, pool, 0, silent);
    await pool.addRaw(transfer(2, 0n, 8, 1n).serialize());
    await pool.addRaw(transfer(3, 0n, 8, 2n).serialize());
    await pool.addRaw(transfer(4, 0n, 8, 3n).serialize());
    await seq.sealOne();
    const third = producer.head;
    const frames = framesOf(third);
    expect(frames.length).toBe(4);
    const cleared = stats.get("cleared:non-sequential-gap");
    // Frame 1 is lost: frame 2 breaks the sequence and pending state is cleared.
    ingest.onFrame(text(frames[0]!), 50);
    ingest.onFrame(text(frames[2]!), 51);
    await ingest.drained();
    expect(stats.get("cleared:non-sequential-gap")).toBe(cleared + 1);
    expect(reader.read()).toBeUndefined();
    // The late frame 1 and frame 3 cannot apply without their index 0.
    ingest.onFrame(text(frames[1]!), 52);
    ingest.onFrame(text(frames[3]!), 53);
    await ingest.drained();
    expect(reader.read()).toBeUndefined();
    // The producer restarts the block (a stalled stream resumes at the next index 0): converged.
    const rebuilt = Uint8Array.from([9, 9, 9, 9, 9, 9, 9, 9]);
    for (const [i, f] of framesOf(third).entries()) ingest.onFrame(text({ ...f, payloadId: rebuilt }), 60 + i);
    await ingest.drained();
    const s = reader.read()!;
    expect(pendingHead(s).number).toBe(3);
    expect(pendingHead(s).txs.map((t) => t.hash)).toEqual(third.transactions.map((t) => bytesToHex(t.hash())));
    const after = producer.stateAt(third.header);
    const view = new PendingStateReader(follower.stateAt(follower.head.header), pendingStateIndex(s));
    const addr8 = hexToBytes(accounts[8]!.address as `0x${string}`);
    expect(view.account(addr8)?.balance).toBe(after.account(addr8)?.balance);
  });

  it("re-executes a pending block on the reference engine when the fast engine's result differs from it, and serves the reference result", async () => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis(), { archive: true });
    const other = Chain.open(dir, { logger: silent, evmEngine: "fast" });
    const w = new PendingBufferWriter(allocatePendingBuffer(4 * 1024 * 1024));
    const r = new PendingBufferReader((w as unknown as { ctl: Int32Array }).ctl.buffer as SharedArrayBuffer);
    const st = new IngestStats();
    const ing = new FlashblocksIngest(other, w, st, silent);
    let faults = 0;
    // The fast engine gets every user transaction's gas wrong (a test fault).
    fastEvmTestHooks.afterTransaction = (res) => {
      faults++;
      res.gasUsed += 1n;
    };
    try {
      for (const [i, f] of framesOf(sealed[0]!).entries()) ing.onFrame(text(f), 100 + i);
      await ing.drained();
    } finally {
      fastEvmTestHooks.afterTransaction = undefined;
    }
    expect(faults).toBeGreaterThan(0);
    expect(st.get("evmFallbacks")).toBe(1);
    const head = pendingHead(r.read()!);
    expect(head.index).toBe(2);
    // The served block is the reference engine's: the sealed block's gas and receipts.
    const full = JSON.parse(head.blockJsonFull) as { gasUsed: string };
    expect(BigInt(full.gasUsed)).toBe(sealed[0]!.header.gasUsed);
    const receipts = JSON.parse(head.receiptsJson) as { gasUsed: string }[];
    const sealedReceipts = producer.getReceipts(sealed[0]!.hash())!;
    expect(receipts.map((x) => BigInt(x.gasUsed))).toEqual(sealedReceipts.map((x, i) => x.cumulativeGasUsed - (i === 0 ? 0n : sealedReceipts[i - 1]!.cumulativeGasUsed)));
    await other.close();
  });
});
