/**
 * Batch validity (specs protocol/derivation.md "Batch Queue", holocene/derivation.md "Batch
 * Queue", delta/span-batches.md): whether a singular batch — or the prefix of a span batch, before
 * its blocks are streamed as singular batches (Holocene's partial span-batch validity) — may
 * become the next safe L2 block. Pure functions of the rollup rules, the L1 blocks from the safe
 * head's epoch on, the safe head and the L1 block the batch was included in.
 *
 * Outcomes: `accept`; `drop` (with the rule that failed); `past` (Holocene: a batch at or below
 * the safe head, skipped silently); `future` (pre-Holocene only: kept for later); `undecided`
 * (the next L1 origin is needed to decide).
 */
import { equalsBytes } from "@ethereumjs/util";
import type { OpChainConfig, OpForkName } from "../chain/op/forks.js";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.js";
import { FJORD_MAX_SEQUENCER_DRIFT_SECONDS } from "./constants.js";

/** EIP-7702 set-code transactions (type 4): accepted in batches from Isthmus on. */
const SET_CODE_TX_TYPE = 0x04;

/** An L1 block as derivation sees it. */
export interface L1BlockRef {
  number: bigint;
  hash: Uint8Array;
  timestamp: bigint;
}

/** An L2 block as derivation sees it: with its L1 origin (epoch). */
export interface L2BlockRef {
  number: bigint;
  hash: Uint8Array;
  timestamp: bigint;
  l1Origin: { number: bigint; hash: Uint8Array };
}

/** The rollup rules batch validity depends on (an `OpNetwork` has them all). */
export interface BatchRules {
  /** Seconds between L2 blocks. */
  blockTime: bigint;
  /** L1 blocks within which a batch must be included after its epoch. */
  seqWindowSize: bigint;
  /** Most seconds an L2 block may run ahead of its L1 origin before Fjord. */
  maxSequencerDrift: bigint;
  /** OP fork activation times (L2 timestamps; some rules compare L1 timestamps with them, as the spec does). */
  forkTimes: OpChainConfig["forkTimes"];
}

/** Why a batch is dropped (kona's `BatchDropReason` names, as stable codes). */
export type BatchDropReason =
  | "FUTURE_TIMESTAMP_HOLOCENE"
  | "PAST_TIMESTAMP_PRE_HOLOCENE"
  | "PARENT_HASH_MISMATCH"
  | "INCLUDED_TOO_LATE"
  | "EPOCH_TOO_OLD"
  | "EPOCH_TOO_FAR_IN_FUTURE"
  | "EPOCH_HASH_MISMATCH"
  | "TIMESTAMP_BEFORE_L1_ORIGIN"
  | "SEQUENCER_DRIFT_EXCEEDED"
  | "SEQUENCER_DRIFT_NOT_ADOPTED_NEXT_ORIGIN"
  | "NON_EMPTY_TRANSITION_BLOCK"
  | "EMPTY_TRANSACTION"
  | "DEPOSIT_TRANSACTION"
  | "EIP7702_PRE_ISTHMUS"
  | "SPAN_BATCH_PRE_DELTA"
  | "SPAN_MISALIGNED_TIMESTAMP"
  | "SPAN_PARENT_UNKNOWN";

/** The outcome of a validity check. */
type BatchValidity =
  | { kind: "accept" }
  | { kind: "drop"; reason: BatchDropReason }
  | { kind: "past" }
  | { kind: "future" }
  | { kind: "undecided"; why: string };

/** A singular batch's fields validity looks at. */
export interface SingularBatchFields {
  parentHash: Uint8Array;
  epochNum: bigint;
  epochHash: Uint8Array;
  timestamp: bigint;
  /** EIP-2718 transactions. */
  transactions: Uint8Array[];
}

const ACCEPT: BatchValidity = { kind: "accept" };
const drop = (reason: BatchDropReason): BatchValidity => ({ kind: "drop", reason });

/** Whether `fork` is active at `timestamp`. */
export function forkActive(rules: Pick<BatchRules, "forkTimes">, fork: Exclude<OpForkName, "bedrock">, timestamp: bigint): boolean {
  const t = rules.forkTimes[fork];
  return t !== undefined && timestamp >= t;
}

/** The sequencer drift allowed over an L1 origin with timestamp `originTime`: 1800 s from Fjord on. */
export function maxSequencerDrift(rules: BatchRules, originTime: bigint): bigint {
  return forkActive(rules, "fjord", originTime) ? FJORD_MAX_SEQUENCER_DRIFT_SECONDS : rules.maxSequencerDrift;
}

/** Whether the L2 block at `timestamp` is the first with Jovian active. */
function firstJovianBlock(rules: BatchRules, timestamp: bigint): boolean {
  return forkActive(rules, "jovian", timestamp) && !forkActive(rules, "jovian", timestamp - rules.blockTime);
}

/** The timestamp rule: the next block's timestamp exactly (Holocene: below it is past, above it dropped). */
function checkTimestamp(rules: BatchRules, safeHead: L2BlockRef, inclusion: L1BlockRef, timestamp: bigint): BatchValidity {
  const next = safeHead.timestamp + rules.blockTime;
  const holocene = forkActive(rules, "holocene", inclusion.timestamp);
  if (timestamp > next) return holocene ? drop("FUTURE_TIMESTAMP_HOLOCENE") : { kind: "future" };
  if (timestamp < next) return holocene ? { kind: "past" } : drop("PAST_TIMESTAMP_PRE_HOLOCENE");
  return ACCEPT;
}

/** The transaction rules: none empty, no deposits, no EIP-7702 before Isthmus (by the batch's timestamp). */
function checkTransactions(rules: BatchRules, timestamp: bigint, txs: Uint8Array[]): BatchValidity {
  const isthmus = forkActive(rules, "isthmus", timestamp);
  for (const tx of txs) {
    if (tx.length === 0) return drop("EMPTY_TRANSACTION");
    if (tx[0] === DEPOSIT_TX_TYPE) return drop("DEPOSIT_TRANSACTION");
    if (!isthmus && tx[0] === SET_CODE_TX_TYPE) return drop("EIP7702_PRE_ISTHMUS");
  }
  return ACCEPT;
}

/**
 * Checks a singular batch against the safe head. `l1Blocks` are the L1 blocks from the safe
 * head's epoch (index 0) on, as far as derivation has read.
 */
export function checkSingularBatch(rules: BatchRules, l1Blocks: readonly L1BlockRef[], safeHead: L2BlockRef, inclusion: L1BlockRef, batch: SingularBatchFields): BatchValidity {
  const epoch = l1Blocks[0];
  if (epoch === undefined) return { kind: "undecided", why: "no L1 blocks to check against" };
  const t = checkTimestamp(rules, safeHead, inclusion, batch.timestamp);
  if (t.kind !== "accept") return t;
  if (!equalsBytes(batch.parentHash, safeHead.hash)) return drop("PARENT_HASH_MISMATCH");
  if (batch.epochNum + rules.seqWindowSize < inclusion.number) return drop("INCLUDED_TOO_LATE");
  let origin = epoch;
  if (batch.epochNum < epoch.number) return drop("EPOCH_TOO_OLD");
  if (batch.epochNum === epoch.number + 1n) {
    const next = l1Blocks[1];
    if (next === undefined) return { kind: "undecided", why: "the batch advances the epoch and the next L1 block is not known yet" };
    origin = next;
  } else if (batch.epochNum !== epoch.number) return drop("EPOCH_TOO_FAR_IN_FUTURE");
  if (!equalsBytes(batch.epochHash, origin.hash)) return drop("EPOCH_HASH_MISMATCH");
  if (batch.timestamp < origin.timestamp) return drop("TIMESTAMP_BEFORE_L1_ORIGIN");
  const max = origin.timestamp + maxSequencerDrift(rules, origin.timestamp);
  if (batch.timestamp > max) {
    // Past the drift only an empty batch keeping the epoch may stand, and only while the next origin could not have been adopted.
    if (batch.transactions.length > 0) return drop("SEQUENCER_DRIFT_EXCEEDED");
    if (epoch.number === origin.number) {
      const next = l1Blocks[1];
      if (next === undefined) return { kind: "undecided", why: "an empty batch past the drift: the next L1 block decides" };
      if (batch.timestamp >= next.timestamp) return drop("SEQUENCER_DRIFT_NOT_ADOPTED_NEXT_ORIGIN");
    }
  }
  if (firstJovianBlock(rules, batch.timestamp) && batch.transactions.length > 0) return drop("NON_EMPTY_TRANSITION_BLOCK");
  return checkTransactions(rules, batch.timestamp, batch.transactions);
}

/** A span batch's fields its prefix check looks at. */
interface SpanBatchPrefixFields {
  /** Timestamp of the first and of the last block. */
  startTimestamp: bigint;
  finalTimestamp: bigint;
  /** L1 origin number of the first and of the last block. */
  startEpochNum: bigint;
  endEpochNum: bigint;
  /** First 20 bytes of the first block's parent hash. */
  parentCheck: Uint8Array;
  /** First 20 bytes of the last block's L1 origin hash. */
  l1OriginCheck: Uint8Array;
}

/**
 * Holocene's check of a span batch before its blocks are streamed (kona `check_batch_prefix`):
 * the span must start at or before the next timestamp and end after the safe head, build on the
 * right parent (found by timestamp when the span overlaps the safe chain), be included in time,
 * and name the canonical L1 origin. Returns the parent block on `accept`.
 */
export function checkSpanBatchPrefix(
  rules: BatchRules,
  l1Origins: readonly L1BlockRef[],
  safeHead: L2BlockRef,
  inclusion: L1BlockRef,
  span: SpanBatchPrefixFields,
  safeBlockByNumber: (n: bigint) => L2BlockRef | undefined,
): { validity: BatchValidity; parent?: L2BlockRef } {
  const epoch = l1Origins[0];
  if (epoch === undefined) return { validity: { kind: "undecided", why: "no L1 blocks to check against" } };
  const next = safeHead.timestamp + rules.blockTime;
  const holocene = forkActive(rules, "holocene", inclusion.timestamp);
  let batchOrigin = epoch;
  if (span.startEpochNum === epoch.number + 1n) {
    const n = l1Origins[1];
    if (n === undefined) return { validity: { kind: "undecided", why: "the span advances the epoch and the next L1 block is not known yet" } };
    batchOrigin = n;
  }
  if (!forkActive(rules, "delta", batchOrigin.timestamp)) return { validity: drop("SPAN_BATCH_PRE_DELTA") };
  if (span.startTimestamp > next) return { validity: holocene ? drop("FUTURE_TIMESTAMP_HOLOCENE") : { kind: "future" } };
  if (span.finalTimestamp < next) return { validity: holocene ? { kind: "past" } : drop("PAST_TIMESTAMP_PRE_HOLOCENE") };
  let parent = safeHead;
  if (span.startTimestamp < next) {
    // The span overlaps the safe chain: its parent is the safe block just before its first block.
    if (span.startTimestamp > safeHead.timestamp) return { validity: drop("SPAN_MISALIGNED_TIMESTAMP") };
    if ((safeHead.timestamp - span.startTimestamp) % rules.blockTime !== 0n) return { validity: drop("SPAN_MISALIGNED_TIMESTAMP") };
    const parentNumber = safeHead.number - (safeHead.timestamp - span.startTimestamp) / rules.blockTime - 1n;
    const found = safeBlockByNumber(parentNumber);
    if (found === undefined) return { validity: { kind: "undecided", why: `safe block ${parentNumber} (the span's parent) is not available` } };
    parent = found;
  }
  if (!equalsBytes(span.parentCheck, parent.hash.subarray(0, 20))) return { validity: drop("PARENT_HASH_MISMATCH") };
  if (span.startEpochNum + rules.seqWindowSize < inclusion.number) return { validity: drop("INCLUDED_TOO_LATE") };
  if (span.startEpochNum > parent.l1Origin.number + 1n) return { validity: drop("EPOCH_TOO_FAR_IN_FUTURE") };
  const end = l1Origins.find((b) => b.number === span.endEpochNum);
  if (end === undefined) return { validity: { kind: "undecided", why: `L1 block ${span.endEpochNum} (the span's last origin) is not known yet` } };
  if (!equalsBytes(span.l1OriginCheck, end.hash.subarray(0, 20))) return { validity: drop("EPOCH_HASH_MISMATCH") };
  if (span.startEpochNum < parent.l1Origin.number) return { validity: drop("EPOCH_TOO_OLD") };
  return { validity: ACCEPT, parent };
}
