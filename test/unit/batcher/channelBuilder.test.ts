/**
 * The channel builder (src/batcher/channelBuilder.ts) and the batcher transaction data
 * (txData.ts): channels close on size — the compressed channel never passes its frames' worth —
 * and on duration; frames fit one blob (130,044 bytes of payload with the version byte) or one
 * calldata transaction (120,000 bytes); and the frames of every closed channel, parsed with
 * `parseBatcherData`, assembled by Holocene's channel assembler and read with `readChannel`, give
 * back span batches whose derived blocks are the input blocks: timestamps, L1 origins and every
 * transaction byte. Incompressible blocks (random calldata) fill blobs; a devnet chain of mixed
 * traffic is cut into many small channels and read back whole.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it, vi } from "vitest";
import { batchBlockOf, type BatchBlock } from "../../../src/batcher/batchBlock.js";
import { ChannelBuilder, frameDataBytes, type ChannelBuilderConfig, type ClosedChannel } from "../../../src/batcher/channelBuilder.js";
import { compressBrotliChannel } from "../../../src/batcher/compress.js";
import { BatcherError, BatcherErrorCode } from "../../../src/batcher/errors.js";
import { maxFrameBytesFor, targetFramesFor, txCandidatesOf } from "../../../src/batcher/txData.js";
import { BLOB_MAX_PAYLOAD_BYTES } from "../../../src/config/constants.js";
import { BATCHER_MAX_CALLDATA_BYTES } from "../../../src/batcher/constants.js";
import { BLOB_BYTES } from "../../../src/chain/constants.js";
import { decodeBlob } from "../../../src/derivation/blobCodec.js";
import { encodeChannel } from "../../../src/derivation/channel.js";
import { encodeBatcherData } from "../../../src/derivation/frame.js";
import { spanBatchFromBlocks } from "../../../src/derivation/spanBatch.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { assemble, expectSpanIsChain, spansOf, type BatcherItem } from "../../helpers/batcher.js";
import { openDevChain } from "../../helpers/devChain.js";

const CHAIN_ID = 845337n;
const rollup = { chainId: CHAIN_ID, blockTime: 2n, genesis: { l2Time: 1_000n }, channelTimeout: 300n, channelTimeoutGranite: 50n, forkTimes: {} };
const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
const l1 = { number: 7n, hash: new Uint8Array(32).fill(7), timestamp: 100n };

afterAll(() => {
  vi.useRealTimers();
});

let nonce = 0n;
/** A signed EIP-1559 transaction of the rollup chain carrying `bytes` of random (incompressible) calldata. */
function randomTx(bytes: number): Uint8Array {
  const tx = createFeeMarket1559Tx(
    { chainId: CHAIN_ID, nonce: nonce++, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n, gasLimit: 5_000_000n, to: "0x00000000000000000000000000000000000000aa", data: randomBytes(bytes) },
    { common },
  );
  return tx.sign(KEY).serialize();
}

/** `n` consecutive blocks from `start`, each with `txs` transactions of `bytes` random bytes; a new L1 origin every third block. */
function syntheticBlocks(start: number, n: number, txs: number, bytes: number, parent: Uint8Array = randomBytes(32)): BatchBlock[] {
  const out: BatchBlock[] = [];
  for (let i = start; i < start + n; i++) {
    const epoch = 100n + BigInt(Math.floor(i / 3));
    const transactions = Array.from({ length: txs }, () => randomTx(bytes));
    const hash = new Uint8Array(randomBytes(32));
    out.push({
      number: BigInt(i + 1),
      hash,
      parentHash: parent,
      l1Origin: { number: epoch, hash: keccak256(Uint8Array.of(Number(epoch))) },
      sequenceNumber: BigInt(i % 3),
      element: { epochNum: epoch, timestamp: rollup.genesis.l2Time + 2n * BigInt(i + 1), transactions },
      txBytes: transactions.reduce((a, t) => a + t.length, 0),
    });
    parent = hash;
  }
  return out;
}

/** Fills channels with `blocks` as the submitter does (a refused block starts the next channel); closes the last one. */
async function fill(cfg: ChannelBuilderConfig, blocks: readonly BatchBlock[]): Promise<ClosedChannel[]> {
  const closed: ClosedChannel[] = [];
  let b = new ChannelBuilder(cfg, 1n);
  const queue = [...blocks];
  while (queue.length > 0) {
    const next = queue.shift()!;
    const added = await b.add(next);
    if (added && !b.isFull) continue;
    const { channel, leftover } = await b.close("full");
    closed.push(channel);
    b = new ChannelBuilder(cfg, 1n);
    queue.unshift(...leftover, ...(added ? [] : [next]));
  }
  if (b.blockCount > 0) closed.push((await b.close("flush")).channel);
  return closed;
}

/** A channel's frames, read back through batcher data, the assembler and the channel reader. */
async function readBack(ch: ClosedChannel, items: (frameData: Uint8Array) => Uint8Array = (d) => d) {
  const data: BatcherItem[] = ch.frames.map((f) => ({ data: items(encodeBatcherData([f])), l1 }));
  const { channels, dropped } = assemble(data, rollup);
  expect(dropped).toEqual([]);
  expect(channels).toHaveLength(1);
  expect(bytesToHex(channels[0]!.id)).toBe(bytesToHex(ch.id));
  return spansOf(channels[0]!.data, rollup);
}

/** The derived span's blocks are exactly the channel's input blocks. */
function expectSameBlocks(derived: { epochNum: bigint; timestamp: bigint; transactions: Uint8Array[] }[], input: readonly BatchBlock[]): void {
  expect(derived.map((b) => [b.epochNum, b.timestamp, b.transactions.map(bytesToHex)])).toEqual(input.map((b) => [b.element.epochNum, b.element.timestamp, b.element.transactions.map(bytesToHex)]));
}

describe("channel builder", () => {
  it("compresses on the thread pool to the bytes encodeChannel gives", async () => {
    const blocks = syntheticBlocks(0, 4, 2, 300);
    const batch = spanBatchFromBlocks(blocks.map((b) => b.element), rollup, { parentHash: blocks[0]!.parentHash, lastEpochHash: blocks[3]!.l1Origin.hash, firstBlockStartsEpoch: true });
    expect(bytesToHex(await compressBrotliChannel([{ type: "span", batch }]))).toBe(bytesToHex(encodeChannel([{ type: "span", batch }], { compression: "brotli" })));
  });

  it("closes on size for blobs: at most blobs-per-tx frames, each one blob's payload, read back to the same blocks", async () => {
    const cfg = { rollup, maxFrameBytes: maxFrameBytesFor("blobs"), targetFrames: 2, maxDuration: 1n };
    // ~9 KB of random calldata per block: a 2-blob channel (260,086 bytes) takes ~28 blocks.
    const blocks = syntheticBlocks(0, 40, 3, 3_000);
    const channels = await fill(cfg, blocks);
    expect(channels.length).toBeGreaterThanOrEqual(2);
    expect(channels.flatMap((c) => c.blocks)).toEqual(blocks);
    const first = channels[0]!;
    expect(first.frames).toHaveLength(2);
    expect(first.compressedBytes).toBeLessThanOrEqual(2 * frameDataBytes(cfg.maxFrameBytes));
    // Full means full: the channel holds more than one frame's worth less a block.
    expect(first.compressedBytes).toBeGreaterThan(2 * frameDataBytes(cfg.maxFrameBytes) - 10_000);
    for (const ch of channels) {
      const candidates = txCandidatesOf(ch.frames, "blobs", 2);
      expect(candidates.length).toBe(Math.ceil(ch.frames.length / 2));
      for (const c of candidates) {
        if (c.kind !== "blobs") throw new Error("expected blobs");
        for (const blob of c.blobs) expect(blob.length).toBe(BLOB_BYTES);
      }
      for (const f of ch.frames) expect(encodeBatcherData([f]).length).toBeLessThanOrEqual(BLOB_MAX_PAYLOAD_BYTES);
      // Through the blob encoding and back, as derivation reads blobs.
      const blobs = candidates.flatMap((c) => (c.kind === "blobs" ? c.blobs : []));
      const items = ch.frames.map((_, i) => decodeBlob(blobs[i]!));
      const spans = await readBack(ch, (d) => {
        const item = items.shift()!;
        expect(bytesToHex(item)).toBe(bytesToHex(d));
        return item;
      });
      expect(spans).toHaveLength(1);
      expectSameBlocks(spans[0]!.blocks, ch.blocks);
    }
  }, 60_000);

  it("closes on size for calldata: one frame of at most 120,000 bytes of batcher data per channel", async () => {
    const cfg = { rollup, maxFrameBytes: maxFrameBytesFor("calldata"), targetFrames: targetFramesFor("calldata", 6), maxDuration: 1n };
    const blocks = syntheticBlocks(0, 30, 2, 4_000);
    const channels = await fill(cfg, blocks);
    expect(channels.length).toBeGreaterThanOrEqual(2);
    expect(channels.flatMap((c) => c.blocks)).toEqual(blocks);
    for (const ch of channels) {
      expect(ch.frames).toHaveLength(1);
      const [c] = txCandidatesOf(ch.frames, "calldata", 6);
      expect(c!.kind === "calldata" && c!.data.length).toBeLessThanOrEqual(BATCHER_MAX_CALLDATA_BYTES);
      expectSameBlocks((await readBack(ch))[0]!.blocks, ch.blocks);
    }
  }, 60_000);

  it("is due after max-channel-duration L1 blocks from its opening", async () => {
    const b = new ChannelBuilder({ rollup, maxFrameBytes: 10_000, targetFrames: 1, maxDuration: 2n }, 50n);
    expect(b.isDue(60n)).toBe(false); // empty: never due
    await b.add(syntheticBlocks(0, 1, 1, 10)[0]!);
    expect(b.isDue(51n)).toBe(false);
    expect(b.isDue(52n)).toBe(true);
    const { channel } = await b.close("duration");
    expect(channel).toMatchObject({ reason: "duration", openedAtL1: 50n });
    expect(channel.id).toHaveLength(16);
    expect(bytesToHex(new ChannelBuilder({ rollup, maxFrameBytes: 10_000, targetFrames: 1, maxDuration: 2n }, 0n).id)).not.toBe(bytesToHex(channel.id));
  });

  it("lets a block larger than the capacity go alone, over several frames", async () => {
    const b = new ChannelBuilder({ rollup, maxFrameBytes: 1_000, targetFrames: 1, maxDuration: 1n }, 0n);
    const [big, next] = syntheticBlocks(0, 2, 1, 5_000);
    expect(await b.add(big!)).toBe(true);
    expect(b.isFull).toBe(true);
    expect(await b.add(next!)).toBe(false);
    const { channel, leftover } = await b.close("full");
    expect(leftover).toEqual([]);
    expect(channel.frames.length).toBeGreaterThan(5);
    // A frame of at most 1,000 bytes, and the version byte.
    for (const f of channel.frames) expect(encodeBatcherData([f]).length).toBeLessThanOrEqual(1_001);
    expectSameBlocks((await readBack(channel))[0]!.blocks, [big!]);
  });

  it("refuses a block a span batch cannot carry after the last one", async () => {
    const b = new ChannelBuilder({ rollup, maxFrameBytes: 10_000, targetFrames: 1, maxDuration: 1n }, 0n);
    const [a, c] = syntheticBlocks(0, 2, 1, 10);
    await b.add(a!);
    const gap = { ...c!, element: { ...c!.element, timestamp: c!.element.timestamp + 2n } };
    await expect(b.add(gap)).rejects.toSatisfy((e) => e instanceof BatcherError && e.code === BatcherErrorCode.BLOCK_NOT_CONTIGUOUS);
    const skip = { ...c!, element: { ...c!.element, epochNum: a!.element.epochNum + 2n } };
    await expect(b.add(skip)).rejects.toSatisfy((e) => e instanceof BatcherError && e.code === BatcherErrorCode.BLOCK_NOT_CONTIGUOUS);
  });

  it("cuts a devnet chain of mixed traffic into many small channels that read back to every block", async () => {
    // Frozen wall clock: the devnet sequencer then gives consecutive blocks consecutive timestamps, as a span batch needs.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T00:00:00Z"));
    const dev = await openDevChain("basalt-batcher-cb-");
    try {
      for (let i = 0; i < 40; i++) await dev.traffic.block();
      const { chain } = dev;
      const genesis = chain.getBlockByNumber(0n)!;
      const cfgRollup = { chainId: chain.chainId, blockTime: 1n, genesis: { l2Time: genesis.header.timestamp } };
      const blocks = Array.from({ length: 40 }, (_, i) => batchBlockOf(chain.getBlockByNumber(BigInt(i + 1))!));
      const cfg = { rollup: cfgRollup, maxFrameBytes: 600, targetFrames: 2, maxDuration: 1n };
      const channels = await fill(cfg, blocks);
      expect(channels.length).toBeGreaterThan(3);
      expect(channels.flatMap((c) => c.blocks.map((b) => b.number))).toEqual(blocks.map((b) => b.number));
      const covered: bigint[] = [];
      for (const ch of channels) {
        expect(ch.frames.length).toBeLessThanOrEqual(2);
        const data: BatcherItem[] = ch.frames.map((f) => ({ data: encodeBatcherData([f]), l1 }));
        const { channels: ready } = assemble(data, { ...rollup, forkTimes: {} });
        const spans = await spansOf(ready[0]!.data, cfgRollup);
        const block1 = chain.getBlockByNumber(1n)!.header.timestamp;
        for (const s of spans) covered.push(...expectSpanIsChain(s, (n) => chain.getBlockByNumber(n), (ts) => ts - block1 + 1n));
      }
      expect(covered).toEqual(blocks.map((b) => b.number));
    } finally {
      await dev.close();
      vi.useRealTimers();
    }
  }, 120_000);
});
