/**
 * The devnet-l1 slot clock: slot of a time and of a timestamp, a slot's timestamp, the wait until
 * a slot, and the slot lengths it refuses.
 */
import { describe, expect, it } from "vitest";
import { SlotClock } from "../../../src/sequencer/l1SlotClock.js";
import { L1DevErrorCode } from "../../../src/sequencer/l1DevErrors.js";

const GENESIS = 1_735_689_600n;
const ms = (seconds: bigint, extraMs = 0): number => Number(seconds) * 1000 + extraMs;

describe("SlotClock", () => {
  it("maps times to slots: slot s runs from genesis + s × length (inclusive) to the next slot's start", () => {
    const c = new SlotClock(GENESIS, 12);
    expect(c.slotAt(ms(GENESIS))).toBe(0n);
    expect(c.slotAt(ms(GENESIS + 11n, 999))).toBe(0n);
    expect(c.slotAt(ms(GENESIS + 12n))).toBe(1n);
    expect(c.slotAt(ms(GENESIS + 12n * 1000n + 5n))).toBe(1000n);
    // Before genesis the clock stands at slot 0.
    expect(c.slotAt(ms(GENESIS - 100n))).toBe(0n);
  });

  it("gives a slot's timestamp and a timestamp's slot, inverse on slot boundaries", () => {
    const c = new SlotClock(GENESIS, 2);
    for (const slot of [0n, 1n, 7n, 123_456_789n]) {
      expect(c.timestampOf(slot)).toBe(GENESIS + 2n * slot);
      expect(c.slotOf(c.timestampOf(slot))).toBe(slot);
      // The beacon API's rule: (timestamp − genesis) / SECONDS_PER_SLOT, rounded down.
      expect(c.slotOf(c.timestampOf(slot) + 1n)).toBe(slot);
    }
    expect(c.slotOf(GENESIS - 5n)).toBe(0n);
  });

  it("counts the milliseconds until a slot starts, 0 once it has", () => {
    const c = new SlotClock(GENESIS, 1);
    expect(c.msUntil(10n, ms(GENESIS + 9n, 250))).toBe(750);
    expect(c.msUntil(10n, ms(GENESIS + 10n))).toBe(0);
    expect(c.msUntil(10n, ms(GENESIS + 11n))).toBe(0);
  });

  it("refuses slot lengths that are not whole seconds ≥ 1", () => {
    for (const bad of [0, -1, 0.5, 1.5, Number.NaN]) {
      expect(() => new SlotClock(GENESIS, bad)).toThrow(expect.objectContaining({ code: L1DevErrorCode.INVALID_SLOT_LENGTH }));
    }
  });
});
