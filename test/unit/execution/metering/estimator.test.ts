/**
 * base_meteredPriorityFeePerGas's estimator: the walk from the highest fee down, against the
 * scenarios base/base main's estimator tests name (congested, uncongested, demand over the
 * limit, exact fit, a single transaction, no room at all) and the percentile pick.
 */
import { describe, expect, it } from "vitest";
import { MeteringError } from "../../../../src/execution/metering/errors.js";
import { estimatePriorityFee, type FeeSample } from "../../../../src/execution/metering/estimator.js";

const DEFAULT = 1n;
const tx = (fee: bigint, usage: bigint): FeeSample => ({ priorityFeePerGas: fee, usage: { gasUsed: usage, executionTime: usage, stateRootTime: usage, dataAvailability: usage } });
const gasOnly = (samples: FeeSample[], demand: bigint, limit: bigint, percentile = 0.5) => estimatePriorityFee(samples, { gasUsed: demand }, { gasUsed: limit }, percentile, DEFAULT)!.estimates[0]!;

describe("metered priority fee estimator", () => {
  it("congested: the last transaction that leaves room for the bundle sets the threshold", () => {
    const e = gasOnly([tx(2n, 10n), tx(10n, 10n), tx(5n, 10n)], 15n, 30n);
    expect(e).toMatchObject({ thresholdPriorityFee: 10n, recommendedPriorityFee: 10n, cumulativeUsage: 10n, thresholdTxCount: 1, totalTransactions: 3 });
  });

  it("uncongested: every transaction fits beside the bundle, the default fee", () => {
    expect(gasOnly([tx(10n, 10n), tx(5n, 10n), tx(2n, 10n)], 15n, 100n)).toMatchObject({ thresholdPriorityFee: DEFAULT, recommendedPriorityFee: DEFAULT, cumulativeUsage: 30n, thresholdTxCount: 3 });
    expect(gasOnly([tx(10n, 10n)], 15n, 30n)).toMatchObject({ thresholdPriorityFee: DEFAULT, recommendedPriorityFee: DEFAULT });
  });

  it("exact fit and no room at all", () => {
    expect(gasOnly([tx(10n, 10n), tx(5n, 10n)], 20n, 30n)).toMatchObject({ thresholdPriorityFee: 10n, cumulativeUsage: 10n, thresholdTxCount: 1 });
    expect(gasOnly([tx(10n, 10n), tx(5n, 10n)], 20n, 25n)).toMatchObject({ thresholdPriorityFee: 10n, recommendedPriorityFee: 10n, cumulativeUsage: 0n, thresholdTxCount: 0 });
  });

  it("recommends the kept fee at the percentile counted from the top", () => {
    const txs = [tx(50n, 10n), tx(40n, 10n), tx(30n, 10n), tx(20n, 10n), tx(10n, 10n)];
    // Limit 55, demand 10: four kept (fees 50..20), threshold 20; median of the kept: round(3 × 0.5) = 2 → 30.
    expect(gasOnly(txs, 10n, 55n, 0.5)).toMatchObject({ thresholdPriorityFee: 20n, recommendedPriorityFee: 30n, thresholdTxCount: 4 });
    expect(gasOnly(txs, 10n, 55n, 1)).toMatchObject({ recommendedPriorityFee: 50n });
    expect(gasOnly(txs, 10n, 55n, 0)).toMatchObject({ recommendedPriorityFee: 20n });
  });

  it("refuses a demand above a limit with Base's message; answers the highest recommendation over resources", () => {
    expect(() => gasOnly([tx(10n, 10n)], 50n, 30n)).toThrow(MeteringError);
    expect(() => gasOnly([tx(10n, 10n)], 50n, 30n)).toThrow("Priority fee estimation failed: bundle gas demand (50) exceeds capacity limit (30)");
    const r = estimatePriorityFee([tx(10n, 10n), tx(5n, 10n)], { gasUsed: 15n, dataAvailability: 5n }, { gasUsed: 30n, dataAvailability: 100n }, 0.5, DEFAULT)!;
    expect(r.estimates.map((e) => e.resource)).toEqual(["gasUsed", "dataAvailability"]);
    expect(r.priorityFee).toBe(10n);
    expect(estimatePriorityFee([], { gasUsed: 1n }, { gasUsed: 30n }, 0.5, DEFAULT)).toBeUndefined();
  });
});
