/**
 * The Common of a plain Ethereum genesis: BPO1–BPO5 (blob-parameter-only forks, EIP-7892) activate
 * at their `bpoNTime` with the target, maximum and update fraction of their `blobSchedule` entry,
 * and a `config` basalt cannot run is refused with a one-line ChainConfigError naming the key.
 */
import { createBlockHeader } from "@ethereumjs/block";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { ChainConfigError } from "../../../src/chain/errors.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { ethereumGenesis } from "../../helpers/ethereumGenesis.js";

/** EIP-4844 gas per blob. */
const GAS_PER_BLOB = 131_072n;

/** Blob parameters per fork: Ethereum's for Cancun–Osaka, then values of our own per BPO fork (distinct, so each is recognizable). */
const SCHEDULE = {
  cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3_338_477 },
  prague: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
  osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 },
  bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8_346_193 },
  bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11_684_671 },
  bpo3: { target: 21, max: 32, baseFeeUpdateFraction: 20_609_697 },
  bpo4: { target: 28, max: 42, baseFeeUpdateFraction: 27_479_596 },
};

/** A plain chain with every fork through Osaka at genesis and BPO1–BPO4 at 100, 200, 300, 400. */
function bpoGenesis(config: Record<string, unknown> = {}): GenesisJson {
  const forks = { shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 0, bpo1Time: 100, bpo2Time: 200, bpo3Time: 300, bpo4Time: 400 };
  return ethereumGenesis(1337, { ...forks, blobSchedule: SCHEDULE, ...config });
}

/** The ChainConfigError `fn` throws (fails the test when it throws anything else or nothing). */
function configError(fn: () => unknown): ChainConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ChainConfigError);
    return e as ChainConfigError;
  }
  throw new Error("expected a ChainConfigError");
}

describe("BPO forks (EIP-7892) on a plain Ethereum chain", () => {
  it("activate BPO1–BPO4 at their times with their blob schedule entries", () => {
    const common = commonFromGenesis(bpoGenesis());
    const at = (timestamp: bigint): string => {
      common.setHardforkBy({ blockNumber: 10n, timestamp });
      return common.hardfork();
    };
    const expectSchedule = (fork: keyof typeof SCHEDULE): void => {
      const e = SCHEDULE[fork];
      expect(common.getBlobGasSchedule(), fork).toEqual({
        targetBlobGasPerBlock: BigInt(e.target) * GAS_PER_BLOB,
        maxBlobGasPerBlock: BigInt(e.max) * GAS_PER_BLOB,
        blobGasPriceUpdateFraction: BigInt(e.baseFeeUpdateFraction),
      });
    };
    expect(at(99n)).toBe("osaka");
    expectSchedule("osaka");
    for (const [i, fork] of (["bpo1", "bpo2", "bpo3", "bpo4"] as const).entries()) {
      const time = BigInt(100 * (i + 1));
      expect(at(time - 1n), `before ${fork}`).not.toBe(fork);
      expect(at(time)).toBe(fork);
      expectSchedule(fork);
      // A BPO fork changes blob parameters only: Osaka's EIPs stay on.
      expect(common.isActivatedEIP(7594)).toBe(true);
    }
    expect(at(10n ** 9n)).toBe("bpo4");
  });

  it("use the BPO fork's parameters in headers: next excess blob gas and the blob base fee", () => {
    const common = commonFromGenesis(bpoGenesis());
    const header = (timestamp: bigint, excessBlobGas: bigint, blobGasUsed: bigint) => {
      const c = common.copy();
      c.setHardforkBy({ blockNumber: 5n, timestamp });
      return createBlockHeader({ number: 5n, timestamp, excessBlobGas, blobGasUsed, baseFeePerGas: 7n, gasLimit: 30_000_000n }, { common: c, skipConsensusFormatValidation: true });
    };
    // A BPO3 parent with 40 blobs against BPO3's target of 21: the excess grows by 19 blobs' gas.
    const bpo3Parent = header(350n, 0n, 40n * GAS_PER_BLOB);
    const childCommon = common.copy();
    childCommon.setHardforkBy({ blockNumber: 6n, timestamp: 351n });
    expect(bpo3Parent.calcNextExcessBlobGas(childCommon)).toBe(19n * GAS_PER_BLOB);
    // BPO4's update fraction prices the same excess lower than BPO3's.
    const excess = 1_000n * GAS_PER_BLOB;
    expect(header(400n, excess, 0n).getBlobGasPrice()).toBeLessThan(header(399n, excess, 0n).getBlobGasPrice());
  });
});

describe("genesis configs basalt refuses (one line, the key, what was expected)", () => {
  const cases: Array<{ what: string; config: Record<string, unknown>; code: string; key: string; message: RegExp }> = [
    { what: "an unknown fork key", config: { amsterdamTime: 500 }, code: "CHAIN_CONFIG_UNKNOWN_FORK", key: "amsterdamTime", message: /^genesis config\.amsterdamTime: unknown fork; basalt runs the Ethereum forks up to Osaka and BPO1–BPO5/ },
    {
      what: "a blob schedule entry of an unknown fork",
      config: { blobSchedule: { ...SCHEDULE, bpo6: SCHEDULE.bpo4 } },
      code: "CHAIN_CONFIG_UNKNOWN_FORK",
      key: "blobSchedule.bpo6",
      message: /^genesis config\.blobSchedule\.bpo6: unknown fork "bpo6"; expected one of cancun, prague, osaka, bpo1, bpo2, bpo3, bpo4, bpo5$/,
    },
    {
      what: "a scheduled BPO fork without its blob parameters",
      config: { blobSchedule: Object.fromEntries(Object.entries(SCHEDULE).filter(([fork]) => fork !== "bpo3")) },
      code: "CHAIN_CONFIG_INVALID",
      key: "blobSchedule.bpo3",
      message: /^genesis config\.bpo3Time is set but config\.blobSchedule has no bpo3 entry; expected its target, max and baseFeeUpdateFraction$/,
    },
    {
      what: "a blob schedule entry with a missing field",
      config: { blobSchedule: { ...SCHEDULE, bpo4: { target: 1, max: 2 } } },
      code: "CHAIN_CONFIG_INVALID",
      key: "blobSchedule.bpo4.baseFeeUpdateFraction",
      message: /^genesis config\.blobSchedule\.bpo4\.baseFeeUpdateFraction is undefined; expected a non-negative integer/,
    },
    { what: "a fork time that is not a number", config: { bpo2Time: "0xc8" }, code: "CHAIN_CONFIG_INVALID", key: "bpo2Time", message: /^genesis config\.bpo2Time is "0xc8"; expected a non-negative integer \(seconds\) or no entry$/ },
    { what: "forks out of order", config: { bpo2Time: 50 }, code: "CHAIN_CONFIG_INVALID", key: "bpo2Time", message: /^genesis config\.bpo2Time \(50\) is before config\.bpo1Time \(100\); expected forks scheduled in order$/ },
    { what: "a fork without its predecessor", config: { pragueTime: null }, code: "CHAIN_CONFIG_INVALID", key: "osakaTime", message: /^genesis config\.osakaTime is set but config\.pragueTime is not; expected every fork before osaka to be scheduled$/ },
    { what: "a BPO fork without Osaka", config: { osakaTime: undefined }, code: "CHAIN_CONFIG_INVALID", key: "bpo1Time", message: /^genesis config\.bpo1Time is set but config\.osakaTime is not; expected BPO forks after Osaka$/ },
    { what: "a block fork that is not a number", config: { londonBlock: "0" }, code: "CHAIN_CONFIG_INVALID", key: "londonBlock", message: /^genesis config\.londonBlock is "0"; expected a non-negative integer \(block number\) or no entry$/ },
    { what: "a config @ethereumjs cannot parse", config: { eip158Block: 1 }, code: "CHAIN_CONFIG_INVALID", key: "config", message: /^genesis config is not usable: .*EIP155 block number must equal EIP 158 block number/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.what}`, () => {
      const e = configError(() => commonFromGenesis(bpoGenesis(c.config)));
      expect(e.code).toBe(c.code);
      expect(e.type.key).toBe(c.key);
      expect(e.message).toMatch(c.message);
      expect(e.message).not.toContain("\n");
    });
  }

  it("accepts an OP chain's config (its own fork keys; the Ethereum forks come from the OP forks)", () => {
    const common = commonFromGenesis(devnetGenesis());
    expect(common.chainId()).toBeGreaterThan(0n);
  });
});
