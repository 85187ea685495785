import { Bloom } from "@ethereumjs/vm";
import { describe, expect, it } from "vitest";
import { bloomMayContain } from "../../../src/derivation/bloom.js";
import { keccak256 } from "../../../src/util/keccak.js";

describe("logs bloom membership", () => {
  it("finds every item added to an @ethereumjs bloom and rejects nearly all others", () => {
    const bloom = new Bloom();
    const added = Array.from({ length: 8 }, (_, i) => keccak256(new Uint8Array([i])).subarray(12));
    for (const a of added) bloom.add(a);
    for (const a of added) expect(bloomMayContain(bloom.bitvector, a)).toBe(true);
    let falsePositives = 0;
    for (let i = 100; i < 1100; i++) if (bloomMayContain(bloom.bitvector, keccak256(new Uint8Array([i >> 8, i & 255])).subarray(12))) falsePositives++;
    // 24 of 2048 bits set: a random item hits all three with probability ~(24/2048)^3.
    expect(falsePositives).toBeLessThan(5);
    expect(bloomMayContain(new Uint8Array(256), added[0]!)).toBe(false);
    // A bloom of the wrong size says nothing: receipts are fetched.
    expect(bloomMayContain(new Uint8Array(0), added[0]!)).toBe(true);
  });
});
