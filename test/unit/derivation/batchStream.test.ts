/**
 * Holocene's batch stream: singular batches become safe blocks one at a time; a span batch is
 * checked as a whole and streamed block by block, each on the safe head before it; the first
 * invalid batch drops the rest of its channel (fast channel invalidation); batches below the safe
 * head are skipped; an undecided batch waits for the next L1 block; and when the safe head's epoch
 * is out of sequencing window with no batch, the empty batch the rules prescribe comes out,
 * keeping or advancing the epoch.
 */
import { describe, expect, it } from "vitest";
import type { Batch } from "../../../src/derivation/batch.js";
import type { L1BlockRef, L2BlockRef } from "../../../src/derivation/batchValidity.js";
import { HoloceneBatchStream, type BatchStreamRules, type BatchStreamStep, type L1View } from "../../../src/derivation/batchStream.js";
import type { SingularBatch } from "../../../src/derivation/singularBatch.js";
import { spanBatchFromBlocks } from "../../../src/derivation/spanBatch.js";

const h = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const l1 = (number: number, timestamp: number): L1BlockRef => ({ number: BigInt(number), hash: h(number), timestamp: BigInt(timestamp) });
const RULES: BatchStreamRules = {
  blockTime: 2n,
  seqWindowSize: 10n,
  maxSequencerDrift: 600n,
  forkTimes: { regolith: 0n, canyon: 0n, delta: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n },
  chainId: 845337n,
  genesis: { l2Time: 0n },
};
/** L1 blocks 10.. every 12 s from t=990. */
const L1 = (from: number, to: number): L1BlockRef[] => Array.from({ length: to - from + 1 }, (_, i) => l1(from + i, 990 + (from + i - 10) * 12));
const VIEW: L1View = { l1Blocks: L1(10, 12), outOfData: false };
const INCLUSION = l1(12, 1014);
const GENESIS_SAFE: L2BlockRef = { number: 100n, hash: h(0xa0), timestamp: 1000n, l1Origin: { number: 10n, hash: h(10) } };

const singular = (parent: Uint8Array, timestamp: number, over: Partial<SingularBatch> = {}): Batch => ({
  type: "singular",
  batch: { parentHash: parent, epochNum: 10n, epochHash: h(10), timestamp: BigInt(timestamp), transactions: [Uint8Array.of(0x02, 0xc0)], ...over },
});

/** Runs the stream from the genesis safe head, making each accepted batch the next safe block; returns the steps. */
function drive(stream: HoloceneBatchStream, view = VIEW, max = 10): BatchStreamStep[] {
  let safe = GENESIS_SAFE;
  const steps: BatchStreamStep[] = [];
  for (let i = 0; i < max; i++) {
    const step = stream.next(safe, view, () => undefined);
    steps.push(step);
    if (step.kind === "wait") break;
    if (step.kind === "batch") safe = { number: safe.number + 1n, hash: h(0xa1 + i), timestamp: step.batch.timestamp, l1Origin: { number: step.batch.epochNum, hash: step.batch.epochHash } };
  }
  return steps;
}
const kinds = (steps: BatchStreamStep[]): string[] => steps.map((s) => (s.kind === "batch" ? `batch@${s.batch.timestamp}${s.empty ? "(empty)" : ""}` : s.kind === "dropped" ? `dropped:${s.reason}` : "wait"));

describe("Holocene batch stream", () => {
  it("gives a channel's singular batches in order, each on the safe block before it", () => {
    const s = new HoloceneBatchStream(RULES);
    s.pushChannel([singular(h(0xa0), 1002), singular(h(0xa1), 1004), singular(h(0xa2), 1006)], INCLUSION);
    expect(kinds(drive(s))).toEqual(["batch@1002", "batch@1004", "batch@1006", "wait"]);
  });

  it("skips batches at or below the safe head", () => {
    const s = new HoloceneBatchStream(RULES);
    s.pushChannel([singular(h(0x99), 1000), singular(h(0xa0), 1002)], INCLUSION);
    expect(kinds(drive(s))).toEqual(["batch@1002", "wait"]);
  });

  it("drops the rest of the channel at the first invalid batch (fast channel invalidation)", () => {
    const s = new HoloceneBatchStream(RULES);
    s.pushChannel([singular(h(0xa0), 1002), singular(h(0xa1), 1004, { epochHash: h(0x77) }), singular(h(0xa2), 1006)], INCLUSION);
    expect(kinds(drive(s))).toEqual(["batch@1002", "dropped:EPOCH_HASH_MISMATCH", "wait"]);
    expect(s.pending).toEqual({ batches: 0, spanBlocks: 0 });
  });

  it("waits with an undecided batch (next epoch not read yet) and takes it once the L1 block is known", () => {
    const s = new HoloceneBatchStream(RULES);
    s.pushChannel([singular(h(0xa0), 1002, { epochNum: 11n, epochHash: h(11) })], INCLUSION);
    expect(s.next(GENESIS_SAFE, { l1Blocks: L1(10, 10), outOfData: false }, () => undefined).kind).toBe("wait");
    expect(s.pending.batches).toBe(1);
    expect(s.next(GENESIS_SAFE, { l1Blocks: [l1(10, 990), l1(11, 1001)], outOfData: false }, () => undefined)).toMatchObject({ kind: "batch" });
  });

  it("streams a span batch block by block after checking it whole", () => {
    const blocks = [1002, 1004, 1006].map((t) => ({ epochNum: 10n, timestamp: BigInt(t), transactions: [] as Uint8Array[] }));
    const raw = spanBatchFromBlocks(blocks, RULES, { parentHash: GENESIS_SAFE.hash, lastEpochHash: h(10), firstBlockStartsEpoch: false });
    const s = new HoloceneBatchStream(RULES);
    s.pushChannel([{ type: "span", batch: raw }, singular(h(0xa3), 1008)], INCLUSION);
    const steps = drive(s);
    expect(kinds(steps)).toEqual(["batch@1002", "batch@1004", "batch@1006", "batch@1008", "wait"]);
    // Each streamed block's parent is the safe block before it.
    expect(steps.slice(0, 3).map((x) => (x.kind === "batch" ? x.batch.parentHash[0] : 0))).toEqual([0xa0, 0xa1, 0xa2]);
  });

  it("drops a span batch naming another L1 origin, and the rest of its channel", () => {
    const blocks = [1002, 1004].map((t) => ({ epochNum: 10n, timestamp: BigInt(t), transactions: [] as Uint8Array[] }));
    const raw = spanBatchFromBlocks(blocks, RULES, { parentHash: GENESIS_SAFE.hash, lastEpochHash: h(0x66), firstBlockStartsEpoch: false });
    const s = new HoloceneBatchStream(RULES);
    s.pushChannel([{ type: "span", batch: raw }, singular(h(0xa0), 1002)], INCLUSION);
    expect(kinds(drive(s))).toEqual(["dropped:EPOCH_HASH_MISMATCH", "wait"]);
  });

  describe("empty batches at the end of the sequencing window", () => {
    it("waits while the window is open", () => {
      const s = new HoloceneBatchStream(RULES);
      expect(s.next(GENESIS_SAFE, { l1Blocks: L1(10, 20), outOfData: false }, () => undefined).kind).toBe("wait");
      // At the window's last L1 block: forced only once it has no more data.
      expect(s.next(GENESIS_SAFE, { l1Blocks: L1(10, 20), outOfData: true }, () => undefined)).toMatchObject({ kind: "batch", empty: true });
    });

    it("keeps the epoch while the next L1 block is ahead of the next timestamp, then advances to it", () => {
      const s = new HoloceneBatchStream(RULES);
      const view: L1View = { l1Blocks: L1(10, 21), outOfData: false };
      // Next timestamp 1002 < L1 block 11's time 1002? No: equal, so the epoch advances.
      expect(s.next(GENESIS_SAFE, view, () => undefined)).toMatchObject({ kind: "batch", empty: true, batch: { epochNum: 11n, timestamp: 1002n, transactions: [] } });
      const early: L2BlockRef = { ...GENESIS_SAFE, timestamp: 990n };
      expect(s.next(early, view, () => undefined)).toMatchObject({ kind: "batch", empty: true, batch: { epochNum: 10n, timestamp: 992n, parentHash: GENESIS_SAFE.hash } });
    });
  });
});
