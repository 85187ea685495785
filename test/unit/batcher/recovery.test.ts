/**
 * The batcher's timeout-based recovery rules (src/batcher/recovery.ts): a channel whose frames
 * are not all included within the channel timeout of its first inclusion (Holocene's assembler
 * would drop it), and a safe head that stops moving for a channel timeout after the channel
 * following it was confirmed — measured from that channel, not from later ones.
 */
import { describe, expect, it } from "vitest";
import { channelTimedOut, safeHeadStalled, type PostedChannel } from "../../../src/batcher/recovery.js";

/** Granite at 100: 300 L1 blocks before, 50 from then. */
const rules = { channelTimeout: 300n, channelTimeoutGranite: 50n, forkTimes: { granite: 100n } };
const inc = (n: bigint) => ({ number: n });

describe("channel timeout", () => {
  const ch: PostedChannel = { inclusions: [inc(10n), undefined, undefined], lastBlock: 5n, confirmed: false };
  it("fires once the L1 head is past the first inclusion plus the timeout with a frame still missing", () => {
    expect(channelTimedOut(ch, 60n, 200n, rules)).toBe(false);
    expect(channelTimedOut(ch, 61n, 200n, rules)).toBe(true);
  });
  it("uses the pre-Granite timeout before Granite", () => {
    expect(channelTimedOut(ch, 61n, 50n, rules)).toBe(false);
    expect(channelTimedOut(ch, 311n, 50n, rules)).toBe(true);
  });
  it("never fires for a complete channel or one with nothing included", () => {
    expect(channelTimedOut({ ...ch, inclusions: [inc(10n), inc(70n)] }, 500n, 200n, rules)).toBe(false);
    expect(channelTimedOut({ ...ch, inclusions: [undefined, undefined] }, 500n, 200n, rules)).toBe(false);
  });
});

describe("safe head stall", () => {
  const channels: PostedChannel[] = [
    { inclusions: [inc(20n)], lastBlock: 10n, confirmed: true },
    { inclusions: [inc(40n)], lastBlock: 20n, confirmed: true },
  ];
  const view = { armed: true, safe: 0n, safeMovedAtL1: 5n, channels, l1Head: 70n, l1Time: 200n };
  it("fires a channel timeout after the channel following the safe head landed, though later ones keep landing", () => {
    expect(safeHeadStalled(view, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, l1Head: 71n }, rules)).toBe(true);
  });
  it("counts from the last move of the safe head when that is later", () => {
    expect(safeHeadStalled({ ...view, l1Head: 71n, safeMovedAtL1: 30n }, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, l1Head: 81n, safeMovedAtL1: 30n }, rules)).toBe(true);
  });
  it("looks at the first channel past the safe head", () => {
    expect(safeHeadStalled({ ...view, safe: 10n, l1Head: 71n }, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, safe: 10n, l1Head: 91n }, rules)).toBe(true);
  });
  it("stays off while unarmed, while that channel is unconfirmed, and when nothing is past the safe head", () => {
    expect(safeHeadStalled({ ...view, armed: false, l1Head: 1000n }, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, channels: [{ ...channels[0]!, confirmed: false }], l1Head: 1000n }, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, safe: 20n, l1Head: 1000n }, rules)).toBe(false);
  });
});

describe("safe head stall with derivation's L1 position known", () => {
  const channels: PostedChannel[] = [{ inclusions: [inc(20n), inc(22n)], lastBlock: 10n, confirmed: true }];
  it("fires once derivation has read past the channel's last inclusion while its blocks are not safe (op-batcher's rule), armed or not", () => {
    const view = { armed: false, safe: 0n, safeMovedAtL1: 0n, channels, l1Head: 30n, l1Time: 200n };
    expect(safeHeadStalled({ ...view, derivedL1: 22n }, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, derivedL1: 23n }, rules)).toBe(true);
    expect(safeHeadStalled({ ...view, derivedL1: 23n, safe: 10n }, rules)).toBe(false);
    expect(safeHeadStalled({ ...view, derivedL1: 23n, channels: [{ ...channels[0]!, confirmed: false }] }, rules)).toBe(false);
  });
});
