/**
 * Where the sequencer's L1 origins come from, and the rule that picks the next block's origin.
 *
 * An {@link L1OriginSource} plans the forced part of the next block — its L1 origin and sequence
 * number, the L1-attributes deposit, the origin's user deposits when the epoch changes, upgrade
 * deposits — and whether the block may take mempool transactions. Two implementations:
 * - the built-in devnet's simulated L1 (`simulatedL1.ts`: deterministic L1 hashes, deposits
 *   injected with `dev_sendDeposit`, blocks timed by the wall clock);
 * - a real L1 read over JSON-RPC (`l1RpcOrigins.ts`: `--l1.rpc` with a `--rollup.config`), whose
 *   blocks fall at exact multiples of the rollup's block time.
 *
 * {@link selectOrigin} is the origin rule of a real L1, after op-node's sequencer
 * (op-node rollup/sequencing/origin_selector.go `FindL1Origin`, sequencer.go
 * `startBuildingBlock`): stay on the parent's origin; move to the next L1 block once it is known
 * with its confirmations and its timestamp is not after the new L2 block's; past the drift
 * (origin time + `max_sequencer_drift`, 1,800 s from Fjord) the block takes no mempool
 * transactions.
 */
import type { Block } from "@ethereumjs/block";
import { bytesEqual } from "../util/bytes.js";
import type { DepositTransaction } from "../chain/op/depositTx.js";
import { maxSequencerDrift, type BatchRules } from "../derivation/batchValidity.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";

/** An L1 block an L2 block names as its origin (what its L1-attributes deposit carries of it). */
export interface SequencerOrigin {
  number: bigint;
  hash: Uint8Array;
  timestamp: bigint;
}

/** The forced part of the next block, as an {@link L1OriginSource} planned it. */
export interface PlannedBlock {
  /** Payload attributes: timestamp, L1-attributes deposit, user deposits, upgrade deposits; `noTxPool` when it must take no mempool transaction. */
  attrs: OpPayloadAttributes;
  /** The block's L1 origin. */
  origin: SequencerOrigin;
  /** The block's position in its epoch (0 when the origin moved). */
  sequenceNumber: bigint;
  /** The user deposits included (the origin's, on an epoch's first block). */
  deposits: DepositTransaction[];
  /** The block is past the sequencer drift of its origin, so it takes no mempool transaction. */
  pastDrift: boolean;
}

/** What the sequencer asks of its L1 (see the module comment). */
export interface L1OriginSource {
  /**
   * Seconds between blocks when the rollup config fixes block times (block n at genesis time +
   * n × block time, never built before that time); undefined when each block takes the wall
   * clock's time (the simulated L1).
   */
  readonly blockTime: bigint | undefined;
  /** Whether a committed block is at once safe and finalized (the simulated L1: nothing derives it); else derivation moves those pointers. */
  readonly sealsFinal: boolean;
  /**
   * Plans the block after `head`. Undefined when no block can be built on `head` now (a real L1
   * reorganized under its origin): the sequencer waits and asks again.
   */
  plan(head: Block): Promise<PlannedBlock | undefined>;
  /** `block` was committed as the new head: what it included is consumed. */
  committed(block: PlannedBlock): void;
  /** `block` was abandoned (its build failed, or the head moved under it): what it included is planned again. */
  abandoned(block: PlannedBlock): void;
}

/** An L1 block as origin selection sees it. */
export interface OriginCandidate extends SequencerOrigin {
  parentHash: Uint8Array;
}

/** What {@link selectOrigin} decides from. */
interface OriginSelectionInputs {
  /** Drift rules: `max_sequencer_drift` and the fork times (Fjord: 1,800 s). */
  rules: Pick<BatchRules, "maxSequencerDrift" | "forkTimes">;
  /** The parent L2 block's origin. */
  current: SequencerOrigin;
  /** The L1 block after `current` when it is known; undefined when the L1 does not have it (yet). */
  next: OriginCandidate | undefined;
  /** Whether `next` has the required confirmations (`--sequencer.l1-confs` blocks on top of it). */
  nextConfirmed: boolean;
  /** The timestamp of the L2 block being planned. */
  nextL2Timestamp: bigint;
}

/** Why the origin stays. */
type StayReason = "no-next" | "unconfirmed" | "next-in-future";

/** The origin of the next L2 block. */
export type OriginDecision =
  /** Keep the parent's origin; `pastDrift`: the block takes no mempool transaction. */
  | { kind: "stay"; reason: StayReason; pastDrift: boolean }
  /** Move to the next L1 block; `pastDrift` (over the next origin): no mempool transaction. */
  | { kind: "move"; pastDrift: boolean }
  /** The next L1 block does not build on the current origin: the L1 reorganized under it, no block can follow the parent. */
  | { kind: "reorg" };

/** Whether an L2 block at `l2Timestamp` is past the drift allowed over an origin at `originTimestamp`. */
export function isPastDrift(rules: Pick<BatchRules, "maxSequencerDrift" | "forkTimes">, originTimestamp: bigint, l2Timestamp: bigint): boolean {
  return l2Timestamp > originTimestamp + maxSequencerDrift(rules as BatchRules, originTimestamp);
}

/**
 * The origin of the next L2 block (see the module comment): a next L1 block that does not build on
 * the current origin is a reorg; the next block becomes the origin when its timestamp is not after
 * the L2 block's and it has its confirmations — waived once the current origin is past the drift,
 * since staying then forces a block without mempool transactions (op-node's comment on its
 * confirmation depth names the same trade); otherwise the origin stays, past the drift without
 * mempool transactions. An empty block kept on the current origin past the drift is valid while
 * the next origin's timestamp is after it (specs derivation.md batch rules), which waiting for a
 * next block that is not yet known does not guarantee: op-node waits there, this keeps producing.
 */
export function selectOrigin(i: OriginSelectionInputs): OriginDecision {
  const { current, next, nextL2Timestamp: t } = i;
  if (next !== undefined && !bytesEqual(next.parentHash, current.hash)) return { kind: "reorg" };
  const pastCurrent = isPastDrift(i.rules, current.timestamp, t);
  if (next === undefined) return { kind: "stay", reason: "no-next", pastDrift: pastCurrent };
  if (next.timestamp > t) return { kind: "stay", reason: "next-in-future", pastDrift: pastCurrent };
  if (!i.nextConfirmed && !pastCurrent) return { kind: "stay", reason: "unconfirmed", pastDrift: false };
  return { kind: "move", pastDrift: isPastDrift(i.rules, next.timestamp, t) };
}
