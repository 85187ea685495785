/**
 * The sequencer's origin rule on a real L1, as a table: stay on the parent's origin, move to the
 * next L1 block once it is confirmed and not after the new L2 block, waive the confirmations past
 * the drift, keep the origin without mempool transactions past the drift when no next block is
 * known (or the next one is still in the future), and report a next block that does not build on
 * the origin as a reorg. The drift is the rollup's before Fjord and 1,800 s from Fjord, keyed on
 * the origin's timestamp.
 */
import { describe, expect, it } from "vitest";
import { isPastDrift, selectOrigin, type OriginCandidate, type OriginDecision } from "../../../src/sequencer/l1Origins.js";

const h = (b: number): Uint8Array => new Uint8Array(32).fill(b);
type Rules = Parameters<typeof selectOrigin>[0]["rules"];
/** Fjord from L1/L2 time 0: drift 1,800 s. */
const FJORD: Rules = { maxSequencerDrift: 600n, forkTimes: { fjord: 0n } };
/** Before Fjord: the rollup's 600 s. */
const PRE_FJORD: Rules = { maxSequencerDrift: 600n, forkTimes: {} };

const current = { number: 10n, hash: h(10), timestamp: 1_000n };
const child = (timestamp: bigint, parentHash = current.hash): OriginCandidate => ({ number: 11n, hash: h(11), parentHash, timestamp });

type Row = [name: string, next: OriginCandidate | undefined, confirmed: boolean, l2Time: bigint, expected: OriginDecision, rules?: Rules];
const rows: Row[] = [
  ["no next block: stay", undefined, false, 1_002n, { kind: "stay", reason: "no-next", pastDrift: false }],
  ["next confirmed and not after the L2 block: move", child(1_002n), true, 1_002n, { kind: "move", pastDrift: false }],
  ["next confirmed, L2 block well after it: move", child(1_001n), true, 1_050n, { kind: "move", pastDrift: false }],
  ["next after the L2 block: stay", child(1_003n), true, 1_002n, { kind: "stay", reason: "next-in-future", pastDrift: false }],
  ["next not confirmed yet: stay", child(1_001n), false, 1_002n, { kind: "stay", reason: "unconfirmed", pastDrift: false }],
  ["exactly at the drift (1,800 s): not past it", undefined, false, 2_800n, { kind: "stay", reason: "no-next", pastDrift: false }],
  ["past the drift, no next block: keep the origin, no mempool", undefined, false, 2_802n, { kind: "stay", reason: "no-next", pastDrift: true }],
  ["past the drift, next in the future: keep the origin, no mempool", child(2_900n), true, 2_802n, { kind: "stay", reason: "next-in-future", pastDrift: true }],
  ["past the drift, next unconfirmed: the confirmations are waived", child(1_001n), false, 2_802n, { kind: "move", pastDrift: true }],
  ["past the drift over the next origin too: move, no mempool", child(1_001n), true, 2_900n, { kind: "move", pastDrift: true }],
  ["next does not build on the origin: reorg", child(1_001n, h(99)), true, 1_002n, { kind: "reorg" }],
  ["next does not build on the origin, unconfirmed: still a reorg", child(1_001n, h(99)), false, 1_002n, { kind: "reorg" }],
  ["pre-Fjord drift 600 s: past it at 1,602", undefined, false, 1_602n, { kind: "stay", reason: "no-next", pastDrift: true }, PRE_FJORD],
  ["pre-Fjord drift 600 s: not past it at 1,600", undefined, false, 1_600n, { kind: "stay", reason: "no-next", pastDrift: false }, PRE_FJORD],
];

describe("origin selection on a real L1", () => {
  it.each(rows)("%s", (_name, next, nextConfirmed, nextL2Timestamp, expected, rules = FJORD) => {
    expect(selectOrigin({ rules, current, next, nextConfirmed, nextL2Timestamp })).toEqual(expected);
  });

  it("keys the drift on the origin's timestamp: Fjord active at the origin gives 1,800 s", () => {
    const fjordLater = { maxSequencerDrift: 600n, forkTimes: { fjord: 1_500n } };
    expect(isPastDrift(fjordLater, 1_000n, 1_700n)).toBe(true); // origin before Fjord: 600 s
    expect(isPastDrift(fjordLater, 1_500n, 3_200n)).toBe(false); // origin at Fjord: 1,800 s
    expect(isPastDrift(fjordLater, 1_500n, 3_301n)).toBe(true);
  });
});
