/**
 * Batch validity, rule by rule, as table tests: the singular-batch cases of kona's
 * `crates/protocol/protocol/src/batch/single.rs` tests (empty L1 blocks, timestamp future/past
 * with and without Holocene, parent hash mismatch, acceptance) and one case per remaining rule of
 * specs derivation.md "Batch Queue" (inclusion window, epoch too old / too far / next epoch
 * unknown, epoch hash, timestamp before origin, drift with and without transactions, the Fjord
 * drift constant, the Jovian transition block, empty/deposit/7702 transactions); then the
 * Holocene span-batch prefix (kona `check_batch_prefix`).
 */
import { describe, expect, it } from "vitest";
import { checkSingularBatch, checkSpanBatchPrefix, maxSequencerDrift, type BatchRules, type L1BlockRef, type L2BlockRef, type SingularBatchFields } from "../../../src/derivation/batchValidity.js";

const h = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const l1 = (number: number, timestamp: number, hash = number): L1BlockRef => ({ number: BigInt(number), hash: h(hash), timestamp: BigInt(timestamp) });

/** Holocene (and everything before it) from genesis; Isthmus and Jovian unscheduled unless set. */
const HOLOCENE: BatchRules = { blockTime: 2n, seqWindowSize: 10n, maxSequencerDrift: 600n, forkTimes: { regolith: 0n, canyon: 0n, delta: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n } };
/** Nothing after Bedrock (kona's `RollupConfig::default()`). */
const PRE_HOLOCENE: BatchRules = { blockTime: 2n, seqWindowSize: 10n, maxSequencerDrift: 600n, forkTimes: {} };

/** Safe head: L2 block 100 at t=1000, epoch L1 block 10 (t=990). */
const SAFE: L2BlockRef = { number: 100n, hash: h(0xaa), timestamp: 1000n, l1Origin: { number: 10n, hash: h(10) } };
const EPOCH = l1(10, 990);
const NEXT = l1(11, 1002);
const INCLUSION = l1(12, 1014);

const batch = (over: Partial<SingularBatchFields> = {}): SingularBatchFields => ({
  parentHash: SAFE.hash,
  epochNum: 10n,
  epochHash: h(10),
  timestamp: 1002n,
  transactions: [Uint8Array.of(0x02, 0xc0)],
  ...over,
});

describe("singular batch validity", () => {
  const cases: Array<[string, BatchRules, L1BlockRef[], SingularBatchFields, L1BlockRef, unknown]> = [
    ["no L1 blocks: undecided", HOLOCENE, [], batch(), INCLUSION, { kind: "undecided" }],
    ["the next timestamp, right parent and epoch: accept", HOLOCENE, [EPOCH, NEXT], batch(), INCLUSION, { kind: "accept" }],
    ["a later timestamp, pre-Holocene: future", PRE_HOLOCENE, [EPOCH, NEXT], batch({ timestamp: 1004n }), INCLUSION, { kind: "future" }],
    ["a later timestamp, Holocene: drop", HOLOCENE, [EPOCH, NEXT], batch({ timestamp: 1004n }), INCLUSION, { kind: "drop", reason: "FUTURE_TIMESTAMP_HOLOCENE" }],
    ["an earlier timestamp, pre-Holocene: drop", PRE_HOLOCENE, [EPOCH, NEXT], batch({ timestamp: 1000n }), INCLUSION, { kind: "drop", reason: "PAST_TIMESTAMP_PRE_HOLOCENE" }],
    ["an earlier timestamp, Holocene: past", HOLOCENE, [EPOCH, NEXT], batch({ timestamp: 1000n }), INCLUSION, { kind: "past" }],
    ["another parent: drop", HOLOCENE, [EPOCH, NEXT], batch({ parentHash: h(0xbb) }), INCLUSION, { kind: "drop", reason: "PARENT_HASH_MISMATCH" }],
    ["included after the sequencing window: drop", HOLOCENE, [EPOCH, NEXT], batch(), l1(21, 1200), { kind: "drop", reason: "INCLUDED_TOO_LATE" }],
    ["included on the window's last block: accept", HOLOCENE, [EPOCH, NEXT], batch(), l1(20, 1200), { kind: "accept" }],
    ["an epoch before the safe head's: drop", HOLOCENE, [EPOCH, NEXT], batch({ epochNum: 9n, epochHash: h(9) }), INCLUSION, { kind: "drop", reason: "EPOCH_TOO_OLD" }],
    ["the next epoch, next L1 block unknown: undecided", HOLOCENE, [EPOCH], batch({ epochNum: 11n, epochHash: h(11) }), INCLUSION, { kind: "undecided" }],
    ["the next epoch: accept", HOLOCENE, [EPOCH, NEXT], batch({ epochNum: 11n, epochHash: h(11) }), INCLUSION, { kind: "accept" }],
    ["two epochs ahead: drop", HOLOCENE, [EPOCH, NEXT, l1(12, 1014)], batch({ epochNum: 12n, epochHash: h(12) }), INCLUSION, { kind: "drop", reason: "EPOCH_TOO_FAR_IN_FUTURE" }],
    ["another epoch hash: drop", HOLOCENE, [EPOCH, NEXT], batch({ epochHash: h(0x10) }), INCLUSION, { kind: "drop", reason: "EPOCH_HASH_MISMATCH" }],
    ["a timestamp before the next epoch's L1 time: drop", HOLOCENE, [EPOCH, l1(11, 1010)], batch({ epochNum: 11n, epochHash: h(11) }), INCLUSION, { kind: "drop", reason: "TIMESTAMP_BEFORE_L1_ORIGIN" }],
    ["an empty transaction: drop", HOLOCENE, [EPOCH, NEXT], batch({ transactions: [new Uint8Array(0)] }), INCLUSION, { kind: "drop", reason: "EMPTY_TRANSACTION" }],
    ["a deposit: drop", HOLOCENE, [EPOCH, NEXT], batch({ transactions: [Uint8Array.of(0x7e, 0xc0)] }), INCLUSION, { kind: "drop", reason: "DEPOSIT_TRANSACTION" }],
    ["an EIP-7702 transaction before Isthmus: drop", HOLOCENE, [EPOCH, NEXT], batch({ transactions: [Uint8Array.of(0x04, 0xc0)] }), INCLUSION, { kind: "drop", reason: "EIP7702_PRE_ISTHMUS" }],
    ["an EIP-7702 transaction with Isthmus: accept", { ...HOLOCENE, forkTimes: { ...HOLOCENE.forkTimes, isthmus: 0n } }, [EPOCH, NEXT], batch({ transactions: [Uint8Array.of(0x04, 0xc0)] }), INCLUSION, { kind: "accept" }],
    ["transactions in the first Jovian block: drop", { ...HOLOCENE, forkTimes: { ...HOLOCENE.forkTimes, isthmus: 0n, jovian: 1002n } }, [EPOCH, NEXT], batch(), INCLUSION, { kind: "drop", reason: "NON_EMPTY_TRANSITION_BLOCK" }],
    ["an empty first Jovian block: accept", { ...HOLOCENE, forkTimes: { ...HOLOCENE.forkTimes, isthmus: 0n, jovian: 1002n } }, [EPOCH, NEXT], batch({ transactions: [] }), INCLUSION, { kind: "accept" }],
  ];
  for (const [name, rules, blocks, b, inclusion, want] of cases) {
    it(name, () => expect(checkSingularBatch(rules, blocks, SAFE, inclusion, b)).toMatchObject(want as object));
  }

  describe("sequencer drift", () => {
    // Pre-Fjord drift 600 s over an epoch at t=0: the next block (t=1002) is past it.
    const rules: BatchRules = { ...HOLOCENE, forkTimes: { ...HOLOCENE.forkTimes, fjord: undefined } };
    const oldEpoch = l1(10, 0);
    it("uses the config's drift before Fjord and 1800 s from Fjord on (keyed on the origin's time)", () => {
      expect(maxSequencerDrift(rules, 0n)).toBe(600n);
      expect(maxSequencerDrift(HOLOCENE, 0n)).toBe(1_800n);
      expect(checkSingularBatch(HOLOCENE, [oldEpoch, l1(11, 1100)], SAFE, INCLUSION, batch())).toEqual({ kind: "accept" });
    });
    it("drops a batch with transactions past the drift", () => {
      expect(checkSingularBatch(rules, [oldEpoch, l1(11, 1100)], SAFE, INCLUSION, batch())).toEqual({ kind: "drop", reason: "SEQUENCER_DRIFT_EXCEEDED" });
    });
    it("keeps an empty batch past the drift only while the next origin could not be adopted", () => {
      const empty = batch({ transactions: [] });
      expect(checkSingularBatch(rules, [oldEpoch], SAFE, INCLUSION, empty)).toMatchObject({ kind: "undecided" });
      expect(checkSingularBatch(rules, [oldEpoch, l1(11, 1100)], SAFE, INCLUSION, empty)).toEqual({ kind: "accept" });
      expect(checkSingularBatch(rules, [oldEpoch, l1(11, 1002)], SAFE, INCLUSION, empty)).toEqual({ kind: "drop", reason: "SEQUENCER_DRIFT_NOT_ADOPTED_NEXT_ORIGIN" });
    });
  });
});

describe("span batch prefix (Holocene)", () => {
  const prefix = (over: Partial<Parameters<typeof checkSpanBatchPrefix>[4]> = {}) => ({
    startTimestamp: 1002n,
    finalTimestamp: 1010n,
    startEpochNum: 10n,
    endEpochNum: 11n,
    parentCheck: SAFE.hash.subarray(0, 20),
    l1OriginCheck: h(11).subarray(0, 20),
    ...over,
  });
  /** The safe chain: blocks 96..100 at t=992..1000, all in epoch 10, hashes 0xa6.. 0xaa. */
  const safeBlock = (n: bigint): L2BlockRef | undefined =>
    n >= 96n && n <= 100n ? { number: n, hash: h(0xa0 + Number(n - 90n)), timestamp: 1000n - (100n - n) * 2n, l1Origin: { number: 10n, hash: h(10) } } : undefined;
  const check = (p: ReturnType<typeof prefix>, blocks = [EPOCH, NEXT], rules = HOLOCENE, inclusion = INCLUSION) => checkSpanBatchPrefix(rules, blocks, SAFE, inclusion, p, safeBlock);

  it("accepts a span starting at the next timestamp on the safe head, naming the canonical origins", () => {
    expect(check(prefix())).toEqual({ validity: { kind: "accept" }, parent: SAFE });
  });
  it("finds the parent of a span that overlaps the safe chain by timestamp", () => {
    const r = check(prefix({ startTimestamp: 996n, parentCheck: h(0xa7).subarray(0, 20) }));
    expect(r.validity).toEqual({ kind: "accept" });
    expect(r.parent?.number).toBe(97n);
  });
  const cases: Array<[string, ReturnType<typeof prefix>, unknown, L1BlockRef[]?, BatchRules?]> = [
    ["a gap after the safe head: drop", prefix({ startTimestamp: 1004n }), { kind: "drop", reason: "FUTURE_TIMESTAMP_HOLOCENE" }],
    ["a gap after the safe head, pre-Holocene: future", prefix({ startTimestamp: 1004n }), { kind: "future" }, undefined, { ...PRE_HOLOCENE, forkTimes: { delta: 0n } }],
    ["nothing after the safe head: past", prefix({ startTimestamp: 990n, finalTimestamp: 1000n }), { kind: "past" }],
    ["misaligned overlap: drop", prefix({ startTimestamp: 997n }), { kind: "drop", reason: "SPAN_MISALIGNED_TIMESTAMP" }],
    ["another parent: drop", prefix({ parentCheck: h(0xbb).subarray(0, 20) }), { kind: "drop", reason: "PARENT_HASH_MISMATCH" }],
    ["another last origin: drop", prefix({ l1OriginCheck: h(0x11).subarray(0, 20) }), { kind: "drop", reason: "EPOCH_HASH_MISMATCH" }],
    ["last origin not read yet: undecided", prefix({ endEpochNum: 12n }), { kind: "undecided" }],
    ["starting two epochs ahead: drop", prefix({ startEpochNum: 12n, endEpochNum: 12n }), { kind: "drop", reason: "EPOCH_TOO_FAR_IN_FUTURE" }, [EPOCH, NEXT, l1(12, 1014)]],
    ["before Delta: drop", prefix(), { kind: "drop", reason: "SPAN_BATCH_PRE_DELTA" }, undefined, { ...HOLOCENE, forkTimes: { holocene: 0n } }],
  ];
  for (const [name, p, want, blocks, rules] of cases) it(name, () => expect(check(p, blocks, rules).validity).toMatchObject(want as object));
  it("drops a span included after its first epoch's sequencing window", () => {
    expect(check(prefix(), [EPOCH, NEXT], HOLOCENE, l1(21, 1200)).validity).toEqual({ kind: "drop", reason: "INCLUDED_TOO_LATE" });
  });
});
