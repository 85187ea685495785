/**
 * The L1 blob base fee an L2 block's L1-info deposit carries (Ecotone and later): EIP-4844
 * `fake_exponential(MIN_BASE_FEE_PER_BLOB_GAS, excess_blob_gas, update_fraction)` of the L1
 * origin header, where the update fraction is that of the **L1 fork active at the L1 origin's
 * timestamp** (specs ecotone/l1-attributes.md; kona / base crates/…/protocol/src/info/variant.rs
 * `try_new`, which looks the blob parameters up in an L1 chain config). An L1 header without blob
 * fields gives 1.
 *
 * Fork order of the lookup (kona variant.rs): the latest blob-parameter-only fork (BPO1, BPO2, …)
 * active at the timestamp; else Osaka; else Prague, but on a rollup with a
 * `pectra_blob_schedule_time` (Sepolia-era OP chains, Base Sepolia included) only once that time
 * has passed (specs pectra-blob-schedule/derivation.md: those chains kept Cancun's fraction after
 * L1 Prague until the fix); else Cancun.
 *
 * The L1 fork times of Ethereum mainnet and Sepolia are in `config/constants.ts` with their sources.
 */
import { ANVIL_CHAIN_ID, DEVNET_L1_CHAIN_ID, BLOB_UPDATE_FRACTION_BPO1, BLOB_UPDATE_FRACTION_BPO2, BLOB_UPDATE_FRACTION_CANCUN, BLOB_UPDATE_FRACTION_PRAGUE, L1_MAINNET_BPO1_TIME, L1_MAINNET_BPO2_TIME, L1_MAINNET_CANCUN_TIME, L1_MAINNET_OSAKA_TIME, L1_MAINNET_PRAGUE_TIME, L1_SEPOLIA_BPO1_TIME, L1_SEPOLIA_BPO2_TIME, L1_SEPOLIA_CANCUN_TIME, L1_SEPOLIA_OSAKA_TIME, L1_SEPOLIA_PRAGUE_TIME, MIN_BLOB_BASE_FEE } from "../constants.js";

/** A blob-parameter-only fork (EIP-7892) of an L1 schedule. */
interface L1BlobParamsFork {
  /** Fork name ("bpo1", "bpo2", …). */
  name: string;
  /** Activation timestamp (seconds). */
  time: bigint;
  /** `BLOB_BASE_FEE_UPDATE_FRACTION` from this fork on. */
  updateFraction: bigint;
}

/** The blob-fee fork schedule of an L1 chain. */
interface L1BlobSchedule {
  /** L1 chain id. */
  chainId: bigint;
  /** Chain name, for messages. */
  name: string;
  cancunTime: bigint;
  pragueTime: bigint;
  osakaTime?: bigint;
  /** Blob-parameter-only forks in activation order. */
  bpoForks: readonly L1BlobParamsFork[];
}

/** Ethereum mainnet's blob schedule. */
export const L1_MAINNET_BLOB_SCHEDULE: L1BlobSchedule = {
  chainId: 1n,
  name: "mainnet",
  cancunTime: L1_MAINNET_CANCUN_TIME,
  pragueTime: L1_MAINNET_PRAGUE_TIME,
  osakaTime: L1_MAINNET_OSAKA_TIME,
  bpoForks: [
    { name: "bpo1", time: L1_MAINNET_BPO1_TIME, updateFraction: BLOB_UPDATE_FRACTION_BPO1 },
    { name: "bpo2", time: L1_MAINNET_BPO2_TIME, updateFraction: BLOB_UPDATE_FRACTION_BPO2 },
  ],
};

/** Sepolia's blob schedule. */
export const L1_SEPOLIA_BLOB_SCHEDULE: L1BlobSchedule = {
  chainId: 11_155_111n,
  name: "sepolia",
  cancunTime: L1_SEPOLIA_CANCUN_TIME,
  pragueTime: L1_SEPOLIA_PRAGUE_TIME,
  osakaTime: L1_SEPOLIA_OSAKA_TIME,
  bpoForks: [
    { name: "bpo1", time: L1_SEPOLIA_BPO1_TIME, updateFraction: BLOB_UPDATE_FRACTION_BPO1 },
    { name: "bpo2", time: L1_SEPOLIA_BPO2_TIME, updateFraction: BLOB_UPDATE_FRACTION_BPO2 },
  ],
};

/**
 * A local L1's blob schedule (basalt's `devnet-l1`, anvil): Cancun and Prague from genesis, no
 * blob-parameter-only forks — what both run (Osaka keeps Prague's update fraction).
 */
function localBlobSchedule(chainId: bigint, name: string): L1BlobSchedule {
  return { chainId, name, cancunTime: 0n, pragueTime: 0n, bpoForks: [] };
}

/** The blob schedules basalt knows, by L1 chain id. */
const L1_BLOB_SCHEDULES: readonly L1BlobSchedule[] = [
  L1_MAINNET_BLOB_SCHEDULE,
  L1_SEPOLIA_BLOB_SCHEDULE,
  localBlobSchedule(DEVNET_L1_CHAIN_ID, "basalt devnet-l1"),
  localBlobSchedule(ANVIL_CHAIN_ID, "anvil"),
];

/** The blob schedule of L1 chain `chainId` (Ethereum mainnet or Sepolia), or undefined for any other chain. */
export function l1BlobScheduleOf(chainId: bigint): L1BlobSchedule | undefined {
  return L1_BLOB_SCHEDULES.find((s) => s.chainId === chainId);
}

/**
 * The blob base fee update fraction at L1 timestamp `l1Timestamp`: the latest active BPO fork's,
 * else Osaka's or Prague's (5,007,716; Prague only once `pectraBlobScheduleTime`, when the rollup
 * has one, has passed), else Cancun's (3,338,477), as kona variant.rs chooses it.
 */
export function l1BlobUpdateFraction(schedule: L1BlobSchedule, l1Timestamp: bigint, pectraBlobScheduleTime?: bigint): bigint {
  for (let i = schedule.bpoForks.length - 1; i >= 0; i--) {
    const fork = schedule.bpoForks[i]!;
    if (l1Timestamp >= fork.time) return fork.updateFraction;
  }
  if (schedule.osakaTime !== undefined && l1Timestamp >= schedule.osakaTime) return BLOB_UPDATE_FRACTION_PRAGUE;
  const pectraFixActive = pectraBlobScheduleTime === undefined || l1Timestamp >= pectraBlobScheduleTime;
  if (l1Timestamp >= schedule.pragueTime && pectraFixActive) return BLOB_UPDATE_FRACTION_PRAGUE;
  return BLOB_UPDATE_FRACTION_CANCUN;
}

/** The L1 header fields the blob base fee depends on. */
interface L1BlobFeeHeader {
  timestamp: bigint;
  /** EIP-4844 header field; absent before Cancun. */
  excessBlobGas?: bigint;
}

/**
 * The blob base fee of L1 header `header` for the L1-info deposit: 1 when the header has no blob
 * fields, else `fake_exponential(1, excessBlobGas, l1BlobUpdateFraction(…))`.
 */
export function l1BlobBaseFee(header: L1BlobFeeHeader, schedule: L1BlobSchedule, pectraBlobScheduleTime?: bigint): bigint {
  if (header.excessBlobGas === undefined) return MIN_BLOB_BASE_FEE;
  return fakeExponential(MIN_BLOB_BASE_FEE, header.excessBlobGas, l1BlobUpdateFraction(schedule, header.timestamp, pectraBlobScheduleTime));
}

/** EIP-4844 `fake_exponential(factor, numerator, denominator)`: the integer approximation of `factor * e^(numerator / denominator)`. */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i++;
  }
  return output / denominator;
}
