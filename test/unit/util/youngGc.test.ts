/**
 * Idle-time young-generation collection (`util/youngGc.ts`, the flashblocks worker's): collects
 * only past its fill threshold, and a collection empties the young generation.
 */
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { IdleYoungGc } from "../../../src/util/youngGc.js";

const youngUsed = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_used_size;

describe("IdleYoungGc", () => {
  it("collects once the young generation is past its threshold, and not before", () => {
    const never = new IdleYoungGc(2); // a generation can never be twice full
    expect(never.available).toBe(true);
    expect(never.maybeCollect()).toBe(false);
    expect(never.collections).toBe(0);

    const always = new IdleYoungGc(0);
    const garbage: unknown[] = [];
    for (let i = 0; i < 20_000; i++) garbage.push({ i, s: `x${i}` });
    garbage.length = 0;
    const before = youngUsed();
    expect(always.maybeCollect()).toBe(true);
    expect(always.collections).toBe(1);
    expect(youngUsed()).toBeLessThan(before);
  });
});
