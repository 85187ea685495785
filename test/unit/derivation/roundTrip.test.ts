/**
 * The derivation pieces fitted together, in process: a devnet chain of mixed traffic (transfers to
 * new accounts, ERC-20 balances written and cleared, self-destructing creations) is batched the
 * way a batcher does — one span batch over blocks 2..N, a brotli channel, split into small
 * frames, each in its own batcher-transaction data — and derived back: frames parsed, the channel
 * assembled and read, the span batch checked and streamed on the safe head, payload attributes
 * built from each batch and its (simulated) L1 origin. Every derived block's attributes match the
 * block the sequencer built (what makes an unsafe block safe), and a batch with one altered
 * transaction does not.
 */
import { bytesToHex, concatBytes, utf8ToBytes } from "@ethereumjs/util";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Block } from "@ethereumjs/block";
import { envelopeOf } from "../../../src/chain/envelope.js";
import { decodeL1InfoCalldata } from "../../../src/chain/op/l1InfoTx.js";
import { systemConfigFromL2Block } from "../../../src/chain/op/systemConfig.js";
import { DEVNET_L1_BASE_FEE_WEI } from "../../../src/sequencer/constants.js";
import { HoloceneBatchStream, type BatchStreamRules } from "../../../src/derivation/batchStream.js";
import type { L1BlockRef, L2BlockRef } from "../../../src/derivation/batchValidity.js";
import { readChannel, encodeChannel } from "../../../src/derivation/channel.js";
import { ChannelAssembler } from "../../../src/derivation/channelAssembler.js";
import { attributesMatchBlock } from "../../../src/derivation/consolidate.js";
import { channelToFrames, encodeBatcherData, parseBatcherData } from "../../../src/derivation/frame.js";
import type { L1BlockInfo } from "../../../src/derivation/l1Source.js";
import { buildPayloadAttributes, type AttributesParent } from "../../../src/derivation/payloadAttributes.js";
import { spanBatchFromBlocks } from "../../../src/derivation/spanBatch.js";
import { devL1BlockHash } from "../../../src/sequencer/opDevSequencer.js";
import { openDevChain } from "../../helpers/devChain.js";
import { keccak256 } from "../../../src/util/keccak.js";

const BLOCKS = 40;
afterAll(() => {
  vi.useRealTimers();
});

/** The devnet's simulated L1 block `n` as derivation reads it (opDevSequencer.ts defines it). */
function simulatedL1(n: bigint, timestamp: bigint): L1BlockInfo {
  const hash = devL1BlockHash(n);
  return {
    number: n,
    hash,
    parentHash: n === 0n ? new Uint8Array(32) : devL1BlockHash(n - 1n),
    timestamp,
    baseFeePerGas: DEVNET_L1_BASE_FEE_WEI,
    mixHash: keccak256(hash),
    parentBeaconBlockRoot: keccak256(concatBytes(utf8ToBytes("basalt devnet beacon"), hash)),
  };
}

/** A block's L1 origin and sequence number, from its L1-info deposit. */
function l1InfoOf(block: Block): { number: bigint; hash: Uint8Array; timestamp: bigint; sequenceNumber: bigint } {
  const { values } = decodeL1InfoCalldata(block.transactions[0]!.data);
  return { number: values.number, hash: values.hash, timestamp: values.timestamp, sequenceNumber: values.sequenceNumber };
}

describe("derivation round trip over a devnet chain", () => {
  it("batches blocks 2..N into a brotli span-batch channel of small frames and derives every one back to a matching block", async () => {
    // Frozen wall clock: the sequencer then gives block k the timestamp of block 1 + (k − 1), a fixed 1 s block time.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T00:00:00Z"));
    const dev = await openDevChain("basalt-derive-");
    const { chain, traffic } = dev;
    try {
      for (let i = 0; i < BLOCKS; i++) await traffic.block();
      const op = chain.op!;
      const blocks = Array.from({ length: BLOCKS + 1 }, (_, n) => chain.getBlockByNumber(BigInt(n))!);
      const infos = blocks.map((b, n) => (n === 0 ? undefined : l1InfoOf(b)));
      const epochs = new Map<bigint, bigint>();
      for (const i of infos) if (i !== undefined && !epochs.has(i.number)) epochs.set(i.number, i.timestamp);
      const lastEpoch = infos[BLOCKS]!.number;
      expect(lastEpoch).toBeGreaterThanOrEqual(2n); // the batch crosses epochs

      const rules: BatchStreamRules & { l1ChainId: bigint } = {
        blockTime: 1n,
        seqWindowSize: 3_600n,
        maxSequencerDrift: 1_800n,
        forkTimes: op.forkTimes,
        chainId: chain.chainId,
        genesis: { l2Time: blocks[0]!.header.timestamp },
        l1ChainId: 900n,
      };

      // The batcher side: blocks 2..N (their non-deposit transactions) in one span batch.
      const elements = blocks.slice(2).map((b, i) => ({
        epochNum: infos[i + 2]!.number,
        timestamp: b.header.timestamp,
        transactions: b.transactions.map((t) => envelopeOf(t)).filter((e) => e[0] !== 0x7e),
      }));
      const build = (els: typeof elements) =>
        encodeChannel([{ type: "span", batch: spanBatchFromBlocks(els, rules, { parentHash: blocks[1]!.hash(), lastEpochHash: devL1BlockHash(lastEpoch), firstBlockStartsEpoch: infos[2]!.sequenceNumber === 0n }) }], { compression: "brotli" });
      const channel = build(elements);
      const frames = channelToFrames(new Uint8Array(16).fill(7), channel, 2_000);
      expect(frames.length).toBeGreaterThan(1);
      const txData = frames.map((f) => encodeBatcherData([f]));

      // The derivation side. L1: the simulated blocks the L2 chain names, then the inclusion block.
      const l1 = [...epochs].map(([n, t]) => simulatedL1(n, t));
      const inclusion = simulatedL1(lastEpoch + 1n, l1[l1.length - 1]!.timestamp + 12n);
      l1.push(inclusion);
      const derive = async (data: Uint8Array[]) => {
        const assembler = new ChannelAssembler({ channelTimeout: 300n, channelTimeoutGranite: 50n, forkTimes: op.forkTimes });
        const stream = new HoloceneBatchStream(rules);
        for (const d of data) {
          const parsed = parseBatcherData(d);
          if (parsed.status !== "frames") throw new Error(`batcher data ${parsed.status}`);
          for (const f of parsed.frames) {
            const step = assembler.add(f, inclusion);
            expect(step.dropped).toEqual([]);
            if (step.ready !== undefined) {
              const read = await readChannel(step.ready.data, { fjord: true });
              expect(read.error).toBeUndefined();
              stream.pushChannel(read.batches, step.ready.closedAt);
            }
          }
        }
        const ref = (b: Block): L2BlockRef & { sequenceNumber: bigint } => {
          const i = l1InfoOf(b);
          return { number: b.header.number, hash: b.hash(), timestamp: b.header.timestamp, l1Origin: { number: i.number, hash: i.hash }, sequenceNumber: i.sequenceNumber };
        };
        let safe = ref(blocks[1]!);
        const results: ReturnType<typeof attributesMatchBlock>[] = [];
        for (;;) {
          const view = { l1Blocks: l1.filter((b: L1BlockRef) => b.number >= safe.l1Origin.number), outOfData: false };
          const step = stream.next(safe, view, (n) => (n >= 1n && n <= BigInt(BLOCKS) ? ref(blocks[Number(n)]!) : undefined));
          if (step.kind !== "batch") break;
          const parentBlock = blocks[Number(safe.number)]!;
          const origin = l1.find((b) => b.number === step.batch.epochNum)!;
          const systemConfig = systemConfigFromL2Block(parentBlock, { forkTimes: op.forkTimes, genesis: { l2: { hash: bytesToHex(blocks[0]!.hash()), number: 0n }, systemConfig: { batcherAddress: "0x" + "00".repeat(20), overhead: "0x0", scalar: "0x0", gasLimit: 0n } } });
          const parent: AttributesParent = safe;
          const { attributes } = buildPayloadAttributes(rules, { parent, l1Origin: origin, systemConfig, deposits: [], transactions: step.batch.transactions });
          const target = blocks[Number(safe.number) + 1]!;
          const m = attributesMatchBlock(attributes, safe.hash, target, op);
          results.push(m);
          if (!m.match) break;
          safe = ref(target);
        }
        return results;
      };

      const results = await derive(txData);
      expect(results.length).toBe(BLOCKS - 1);
      expect(results.every((r) => r.match)).toBe(true);

      // One altered transaction: the derived block no longer matches the sequencer's (it would replace it).
      const altered = elements.map((e, i) => (i === 5 && e.transactions.length > 0 ? { ...e, transactions: e.transactions.slice(1) } : e));
      const bad = await derive(channelToFrames(new Uint8Array(16).fill(8), build(altered), 2_000).map((f) => encodeBatcherData([f])));
      expect(bad.slice(0, 5).every((r) => r.match)).toBe(true);
      expect(bad[5]).toMatchObject({ match: false, field: "transactions" });
    } finally {
      await dev.close();
      vi.useRealTimers();
    }
  }, 120_000);
});
