/**
 * base_meteredPriorityFeePerGas's estimator (base/base main 98a8db8, March 2026,
 * `crates/client/metering/src/estimator.rs`; no release tag has it yet): for each resource with
 * a configured per-block limit (gas, execution time, state root time, DA bytes), walk the metered
 * block's transactions from the highest priority fee down, keeping each one while the capacity
 * left after it still fits the bundle's demand; the last kept transaction's fee is the
 * threshold, the kept one at `percentile` (counted from the top) the recommendation; when every
 * transaction fits the resource is uncongested and the default fee applies. The answer is the
 * highest recommendation over the resources. Pure arithmetic: runs on the RPC thread.
 *
 * Unlike base/base main (which still feeds zeros, a TODO there), the transactions carry their
 * real effective priority fee and Fjord DA estimate, measured by basalt's block metering.
 * Deposits are left out: they are forced, no fee displaces them.
 */
import { MeteringError, MeteringErrorCode } from "./errors.js";

/** Resources in Base's order, with their camelCase names (JSON) and display names (errors). */
const RESOURCES = [
  { key: "gasUsed", name: "gas" },
  { key: "executionTime", name: "execution time" },
  { key: "stateRootTime", name: "state root time" },
  { key: "dataAvailability", name: "data availability" },
] as const;
/** One resource's camelCase name. */
type ResourceKey = (typeof RESOURCES)[number]["key"];

/** Per-block capacity of each resource; a resource without a limit is not estimated. */
export type ResourceLimits = Partial<Record<ResourceKey, bigint>>;

/** One metered transaction of the sample block. */
export interface FeeSample {
  priorityFeePerGas: bigint;
  usage: Record<ResourceKey, bigint>;
}

/** One resource's estimate (Base `ResourceEstimate`). */
interface ResourceEstimate {
  resource: ResourceKey;
  thresholdPriorityFee: bigint;
  recommendedPriorityFee: bigint;
  cumulativeUsage: bigint;
  thresholdTxCount: number;
  totalTransactions: number;
}

function estimateOne(resource: (typeof RESOURCES)[number], sorted: FeeSample[], demand: bigint, limit: bigint, percentile: number, defaultFee: bigint): ResourceEstimate {
  const key = resource.key;
  if (demand > limit) {
    throw new MeteringError({ code: MeteringErrorCode.ESTIMATE_FAILED }, `Priority fee estimation failed: bundle ${resource.name} demand (${demand}) exceeds capacity limit (${limit})`);
  }
  const uncongested = (usage: bigint, count: number): ResourceEstimate => ({
    resource: key,
    thresholdPriorityFee: defaultFee,
    recommendedPriorityFee: defaultFee,
    cumulativeUsage: usage,
    thresholdTxCount: count,
    totalTransactions: count,
  });
  if (sorted.length === 0 || demand === 0n) return uncongested(0n, 0);
  let remaining = limit;
  let included = 0n;
  let last = -1;
  for (let i = 0; i < sorted.length; i++) {
    const u = sorted[i]!.usage[key];
    if (remaining >= u && remaining - u >= demand) {
      remaining -= u;
      included += u;
      last = i;
    } else break;
  }
  if (last === sorted.length - 1 && remaining >= demand) return uncongested(included, sorted.length);
  if (last < 0) {
    const top = sorted[0]!.priorityFeePerGas;
    return { resource: key, thresholdPriorityFee: top, recommendedPriorityFee: top, cumulativeUsage: included, thresholdTxCount: 0, totalTransactions: sorted.length };
  }
  const threshold = sorted[last]!.priorityFeePerGas;
  const p = Math.min(1, Math.max(0, percentile));
  // Rust `f64::round` rounds half away from zero; the operand is never negative here.
  const pos = last === 0 ? 0 : Math.min(last, Math.floor(last * (1 - p) + 0.5));
  return {
    resource: key,
    thresholdPriorityFee: threshold,
    recommendedPriorityFee: last === 0 ? threshold : sorted[pos]!.priorityFeePerGas,
    cumulativeUsage: included,
    thresholdTxCount: last + 1,
    totalTransactions: sorted.length,
  };
}

/**
 * The estimates for every resource with both a demand and a limit, and the fee to pay (their
 * highest recommendation); undefined when there are no samples or nothing to estimate.
 * @throws MeteringError `ESTIMATE_FAILED` when the bundle's demand exceeds a limit
 */
export function estimatePriorityFee(
  samples: FeeSample[],
  demand: Partial<Record<ResourceKey, bigint>>,
  limits: ResourceLimits,
  percentile: number,
  defaultFee: bigint,
): { estimates: ResourceEstimate[]; priorityFee: bigint } | undefined {
  if (samples.length === 0) return undefined;
  // Stable sort, highest fee first (Base `sort_by_key(Reverse(fee))`, also stable).
  const sorted = [...samples].sort((a, b) => (a.priorityFeePerGas === b.priorityFeePerGas ? 0 : a.priorityFeePerGas > b.priorityFeePerGas ? -1 : 1));
  const estimates: ResourceEstimate[] = [];
  let max = 0n;
  for (const r of RESOURCES) {
    const d = demand[r.key];
    const l = limits[r.key];
    if (d === undefined || l === undefined) continue;
    const e = estimateOne(r, sorted, d, l, percentile, defaultFee);
    if (e.recommendedPriorityFee > max) max = e.recommendedPriorityFee;
    estimates.push(e);
  }
  return estimates.length === 0 ? undefined : { estimates, priorityFee: max };
}
