/**
 * L1 blob base fee of the L1-info deposit: EIP-4844 fake_exponential with the update fraction of
 * the L1 fork at the L1 origin's timestamp, the L1 fork tables of mainnet and Sepolia, and the
 * Pectra-blob-schedule rule of Sepolia-era OP chains.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createBlockHeader } from "@ethereumjs/block";
import { Common, Mainnet, Sepolia } from "@ethereumjs/common";
import { describe, expect, it } from "vitest";
import {
  fakeExponential,
  L1_MAINNET_BLOB_SCHEDULE,
  L1_SEPOLIA_BLOB_SCHEDULE,
  l1BlobBaseFee,
  l1BlobScheduleOf,
  l1BlobUpdateFraction,
} from "../../../../src/chain/op/l1BlobFee.js";
import { OP_NETWORKS } from "../../../../src/chain/op/networks.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const CONTEXT = JSON.parse(
  readFileSync(path.join(REPO, "..", "shared", "fixtures", "op", "derivation", "base-mainnet-43127820-context.json"), "utf8"),
) as { l1_origin: { timestamp: number; excess_blob_gas: number }; expected_l1_block_info_jovian: { blob_base_fee: number } };

/** @ethereumjs's own blob price for an L1 header of `chain` at `timestamp`: an independent implementation of the same rule. */
function ethereumjsBlobPrice(chain: typeof Mainnet, timestamp: bigint, excessBlobGas: bigint): bigint {
  const common = new Common({ chain });
  common.setHardforkBy({ blockNumber: 30_000_000n, timestamp });
  return createBlockHeader({ number: 30_000_000n, timestamp, excessBlobGas, blobGasUsed: 0n, parentBeaconBlockRoot: new Uint8Array(32) }, { common }).getBlobGasPrice();
}

describe("fakeExponential", () => {
  // go-ethereum consensus/misc/eip4844/eip4844_test.go TestFakeExponential (also alloy-eips eip4844 `fake_exp`).
  it.each([
    [1n, 0n, 1n, 1n],
    [38493n, 0n, 1000n, 38493n],
    [0n, 1234n, 2345n, 0n],
    [1n, 2n, 1n, 6n],
    [1n, 4n, 2n, 6n],
    [1n, 3n, 1n, 16n],
    [1n, 6n, 2n, 18n],
    [1n, 4n, 1n, 49n],
    [1n, 8n, 2n, 50n],
    [10n, 8n, 2n, 542n],
    [11n, 8n, 2n, 596n],
    [1n, 5n, 1n, 136n],
    [1n, 5n, 2n, 11n],
    [2n, 5n, 2n, 23n],
  ])("fake_exponential(%s, %s, %s) = %s", (factor, numerator, denominator, expected) => {
    expect(fakeExponential(factor, numerator, denominator)).toBe(expected);
  });
});

describe("L1 fork schedules", () => {
  it("looks schedules up by L1 chain id", () => {
    expect(l1BlobScheduleOf(1n)).toBe(L1_MAINNET_BLOB_SCHEDULE);
    expect(l1BlobScheduleOf(11_155_111n)).toBe(L1_SEPOLIA_BLOB_SCHEDULE);
    expect(l1BlobScheduleOf(17_000n)).toBeUndefined();
  });

  it("serves Base mainnet and Base Sepolia from their L1 chain ids", () => {
    expect(l1BlobScheduleOf(OP_NETWORKS["base-mainnet"].l1ChainId)).toBe(L1_MAINNET_BLOB_SCHEDULE);
    expect(l1BlobScheduleOf(OP_NETWORKS["base-sepolia"].l1ChainId)).toBe(L1_SEPOLIA_BLOB_SCHEDULE);
  });

  it.each([
    ["mainnet", L1_MAINNET_BLOB_SCHEDULE, Mainnet],
    ["sepolia", L1_SEPOLIA_BLOB_SCHEDULE, Sepolia],
  ] as const)("%s fork times equal @ethereumjs/common's chain config", (_name, schedule, chain) => {
    const common = new Common({ chain });
    expect(common.hardforkTimestamp("cancun")).toBe(schedule.cancunTime);
    expect(common.hardforkTimestamp("prague")).toBe(schedule.pragueTime);
    expect(common.hardforkTimestamp("osaka")).toBe(schedule.osakaTime);
    expect(schedule.bpoForks.map((f) => [f.name, f.time])).toEqual([
      ["bpo1", common.hardforkTimestamp("bpo1")],
      ["bpo2", common.hardforkTimestamp("bpo2")],
    ]);
  });

  it("mainnet update fraction at each fork boundary", () => {
    const s = L1_MAINNET_BLOB_SCHEDULE;
    expect(l1BlobUpdateFraction(s, s.cancunTime)).toBe(3_338_477n);
    expect(l1BlobUpdateFraction(s, s.pragueTime - 1n)).toBe(3_338_477n);
    expect(l1BlobUpdateFraction(s, s.pragueTime)).toBe(5_007_716n);
    expect(l1BlobUpdateFraction(s, s.osakaTime!)).toBe(5_007_716n);
    expect(l1BlobUpdateFraction(s, 1_765_290_070n)).toBe(5_007_716n);
    expect(l1BlobUpdateFraction(s, 1_765_290_071n)).toBe(8_346_193n);
    expect(l1BlobUpdateFraction(s, 1_767_747_670n)).toBe(8_346_193n);
    expect(l1BlobUpdateFraction(s, 1_767_747_671n)).toBe(11_684_671n);
  });

  it("Sepolia-era OP chains keep Cancun's fraction after L1 Prague until pectra_blob_schedule_time (specs pectra-blob-schedule)", () => {
    const s = L1_SEPOLIA_BLOB_SCHEDULE;
    const fix = OP_NETWORKS["base-sepolia"].pectraBlobScheduleTime!;
    expect(fix).toBe(1_742_486_400n);
    expect(l1BlobUpdateFraction(s, s.pragueTime, fix)).toBe(3_338_477n);
    expect(l1BlobUpdateFraction(s, fix - 1n, fix)).toBe(3_338_477n);
    expect(l1BlobUpdateFraction(s, fix, fix)).toBe(5_007_716n);
    // Without the rollup field (every mainnet chain), Prague's fraction applies from L1 Prague.
    expect(l1BlobUpdateFraction(s, s.pragueTime)).toBe(5_007_716n);
    // The rule only concerns Prague: Osaka and the BPO forks are not delayed.
    expect(l1BlobUpdateFraction(s, s.osakaTime!, 2_000_000_000n)).toBe(5_007_716n);
    expect(l1BlobUpdateFraction(s, 1_761_017_184n, 2_000_000_000n)).toBe(8_346_193n);
    expect(l1BlobUpdateFraction(s, 1_761_607_008n)).toBe(11_684_671n);
  });
});

describe("l1BlobBaseFee", () => {
  it("is 1 for an L1 header without blob fields", () => {
    expect(l1BlobBaseFee({ timestamp: 1_700_000_000n }, L1_MAINNET_BLOB_SCHEDULE)).toBe(1n);
    expect(l1BlobBaseFee({ timestamp: 1_773_044_795n }, L1_MAINNET_BLOB_SCHEDULE)).toBe(1n);
  });

  it("Base mainnet block 43,127,820: BPO2 blob base fee of its L1 origin 24,618,713 is 2,135,385", () => {
    const { timestamp, excess_blob_gas } = CONTEXT.l1_origin;
    const fee = l1BlobBaseFee({ timestamp: BigInt(timestamp), excessBlobGas: BigInt(excess_blob_gas) }, L1_MAINNET_BLOB_SCHEDULE);
    expect(fee).toBe(2_135_385n);
    expect(fee).toBe(BigInt(CONTEXT.expected_l1_block_info_jovian.blob_base_fee));
    // Another fork's fraction would give another fee: the fork choice matters.
    expect(fakeExponential(1n, BigInt(excess_blob_gas), 8_346_193n)).not.toBe(fee);
  });

  // go-ethereum eip4844_test.go TestCalcBlobFee / alloy-eips `test_calc_blob_fee_cancun` (Cancun fraction).
  it.each([
    [0n, 1n],
    [2_314_057n, 1n],
    [2_314_058n, 2n],
    [10n * 1024n * 1024n, 23n],
    [148_099_578n, 18_446_739_238_971_471_609n],
    [148_099_579n, 18_446_744_762_204_311_910n],
    [161_087_488n, 902_580_055_246_494_526_580n],
  ])("Cancun: excess blob gas %s gives %s", (excessBlobGas, expected) => {
    const t = L1_MAINNET_BLOB_SCHEDULE.cancunTime;
    expect(l1BlobBaseFee({ timestamp: t, excessBlobGas }, L1_MAINNET_BLOB_SCHEDULE)).toBe(expected);
  });

  it("Prague: the same excess gives a lower fee with the larger fraction", () => {
    const t = L1_MAINNET_BLOB_SCHEDULE.pragueTime;
    expect(l1BlobBaseFee({ timestamp: t, excessBlobGas: 2_314_058n }, L1_MAINNET_BLOB_SCHEDULE)).toBe(1n);
    expect(l1BlobBaseFee({ timestamp: t, excessBlobGas: 10n * 1024n * 1024n }, L1_MAINNET_BLOB_SCHEDULE)).toBe(fakeExponential(1n, 10n * 1024n * 1024n, 5_007_716n));
  });

  it.each([
    ["mainnet Cancun", Mainnet, L1_MAINNET_BLOB_SCHEDULE, 1_720_000_000n],
    ["mainnet Prague", Mainnet, L1_MAINNET_BLOB_SCHEDULE, 1_750_000_000n],
    ["mainnet Osaka", Mainnet, L1_MAINNET_BLOB_SCHEDULE, 1_765_000_000n],
    ["mainnet BPO1", Mainnet, L1_MAINNET_BLOB_SCHEDULE, 1_766_000_000n],
    ["mainnet BPO2", Mainnet, L1_MAINNET_BLOB_SCHEDULE, 1_773_044_795n],
    ["sepolia Cancun", Sepolia, L1_SEPOLIA_BLOB_SCHEDULE, 1_720_000_000n],
    ["sepolia Prague", Sepolia, L1_SEPOLIA_BLOB_SCHEDULE, 1_745_000_000n],
    ["sepolia BPO2", Sepolia, L1_SEPOLIA_BLOB_SCHEDULE, 1_770_000_000n],
  ] as const)("%s agrees with @ethereumjs's header blob price", (_name, chain, schedule, timestamp) => {
    for (const excessBlobGas of [0n, 3_338_477n, 50_000_000n, 170_294_236n]) {
      expect(l1BlobBaseFee({ timestamp, excessBlobGas }, schedule)).toBe(ethereumjsBlobPrice(chain, timestamp, excessBlobGas));
    }
  });
});
