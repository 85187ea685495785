/**
 * Batcher fees (src/batcher/fees.ts): what is offered from the L1's suggestion (op-service
 * txmgr's 1 gwei floors, 2× margins), and what a replacement offers — geth's bump of +10 % on the
 * tip and fee cap of a non-blob transaction, +100 % on the tip, fee cap and blob fee cap of a blob
 * transaction (blobpool `PriceBump`), rounded up — within the fee limit (5× above 100 gwei).
 */
import { describe, expect, it } from "vitest";
import { bumpFee, feesFor, replacementFees, withinFeeLimit } from "../../../src/batcher/fees.js";

const GWEI = 1_000_000_000n;

describe("batcher fees", () => {
  it("offers the tip and base fee floored at 1 gwei, the fee cap at 2× the base fee plus the tip, the blob fee cap at 2× the blob base fee", () => {
    expect(feesFor({ baseFee: 7n, blobBaseFee: 1n, tip: 0n }, false)).toEqual({ tip: GWEI, feeCap: 3n * GWEI });
    expect(feesFor({ baseFee: 30n * GWEI, blobBaseFee: 5n, tip: 2n * GWEI }, true)).toEqual({ tip: 2n * GWEI, feeCap: 62n * GWEI, blobFeeCap: 10n });
    // A zero blob base fee still offers something a replacement can double.
    expect(feesFor({ baseFee: 0n, blobBaseFee: 0n, tip: 0n }, true).blobFeeCap).toBe(2n);
  });

  it("bumps by the percent rounded up, and by at least 1 wei", () => {
    expect(bumpFee(100n, 10n)).toBe(110n);
    expect(bumpFee(101n, 10n)).toBe(112n); // 111.1 → 112: geth compares with old × 110 / 100
    expect(bumpFee(3n, 10n)).toBe(4n);
    expect(bumpFee(0n, 10n)).toBe(1n);
    expect(bumpFee(7n, 100n)).toBe(14n);
  });

  it("replaces a calldata transaction with +10 % on the tip and fee cap, or the current offer where higher", () => {
    const prev = { tip: 10n * GWEI, feeCap: 30n * GWEI };
    expect(replacementFees(prev, { tip: GWEI, feeCap: 3n * GWEI })).toEqual({ tip: 11n * GWEI, feeCap: 33n * GWEI });
    expect(replacementFees(prev, { tip: GWEI, feeCap: 200n * GWEI })).toEqual({ tip: 11n * GWEI, feeCap: 200n * GWEI });
  });

  it("replaces a blob transaction with +100 % on all three fees (geth's blob pool)", () => {
    const prev = { tip: 2n * GWEI, feeCap: 5n * GWEI, blobFeeCap: 3n };
    expect(replacementFees(prev, { tip: GWEI, feeCap: 3n * GWEI, blobFeeCap: 2n })).toEqual({ tip: 4n * GWEI, feeCap: 10n * GWEI, blobFeeCap: 6n });
  });

  it("keeps the fee cap at least the tip", () => {
    const r = replacementFees({ tip: 10n * GWEI, feeCap: 10n * GWEI }, { tip: 50n * GWEI, feeCap: 20n * GWEI });
    expect(r.feeCap >= r.tip).toBe(true);
  });

  it("holds back fees past 5× the suggestion, but never below 100 gwei", () => {
    const now = { tip: 30n * GWEI, feeCap: 100n * GWEI };
    expect(withinFeeLimit({ tip: 150n * GWEI, feeCap: 500n * GWEI }, now)).toBe(true);
    expect(withinFeeLimit({ tip: 151n * GWEI, feeCap: 500n * GWEI }, now)).toBe(false);
    expect(withinFeeLimit({ tip: GWEI, feeCap: 99n * GWEI }, { tip: 1n, feeCap: 1n })).toBe(true);
    expect(withinFeeLimit({ tip: GWEI, feeCap: 2n * GWEI, blobFeeCap: 101n * GWEI }, { tip: GWEI, feeCap: GWEI, blobFeeCap: 20n * GWEI })).toBe(false);
  });
});
