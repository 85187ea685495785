/**
 * Base's L1 upgrade signal as basalt reads it: the `ProtocolVersions` ABI (`getSchedule()` →
 * `uint64[]`, `minimumProtocolVersion()` → packed semver), the registration ids
 * (`BaseUpgrade::CONTRACT_VARIANTS`), and the comparison of a schedule with basalt's table — with
 * the schedules Base initialised its registries with (base/contract-deployments
 * `2026-09-21-deploy-protocol-versions` for mainnet, `2026-09-14-cobalt-upgrade` for Sepolia).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { OP_NETWORKS } from "../../../../src/chain/op/networks.js";
import {
  compareEthConfig,
  compareL1Schedule,
  CONTRACT_UPGRADE_NAMES,
  decodeSchedule,
  decodeUint256,
  encodeSchedule,
  formatActivation,
  formatProtocolVersion,
  GET_SCHEDULE_CALLDATA,
  IMPLEMENTED_CONTRACT_UPGRADES,
  MAX_SCHEDULE_ENTRIES,
  MINIMUM_PROTOCOL_VERSION_CALLDATA,
  type KnownUpgradeSchedule,
  type LocalForkView,
} from "../../../../src/chain/op/upgradeSchedule.js";
import { BasaltError } from "../../../../src/util/errors.js";

const CONTRACT = "0x7480Afc8D99a5c645c247dB5A1e4a4f440e6e095";
const mainnet = OP_NETWORKS["base-mainnet"];
const sepolia = OP_NETWORKS["base-sepolia"];
const mainnetKnown: KnownUpgradeSchedule = { forkTimes: mainnet.forkTimes, genesisTime: mainnet.genesis.l2Time };
const sepoliaKnown: KnownUpgradeSchedule = { forkTimes: sepolia.forkTimes, pectraBlobScheduleTime: sepolia.pectraBlobScheduleTime, genesisTime: sepolia.genesis.l2Time };

/** Base mainnet's registry as initialised (ids 0–12; regolith = the genesis time, pectraBlobSchedule unscheduled). */
const MAINNET_SCHEDULE = [1686789347n, 1704992401n, 1708560000n, 1710374401n, 1720627201n, 1726070401n, 1736445601n, 0n, 1746806401n, 1764691201n, 1779991200n, 1782410400n, 1790791200n];
/** Base Sepolia's registry as initialised by the Cobalt task. */
const SEPOLIA_SCHEDULE = [1695768288n, 1699981200n, 1703203200n, 1708534800n, 1716998400n, 1723478400n, 1732633200n, 1742486400n, 1744905600n, 1763568001n, 1776708000n, 1781805600n, 1790186400n];
/** Denim on Base mainnet: 2026-11-05 18:00 UTC (docs.base.org Denim overview). */
const DENIM_MAINNET = 1793901600n;

const selector = (sig: string): string => `0x${Buffer.from(keccak_256(new TextEncoder().encode(sig)).subarray(0, 4)).toString("hex")}`;

describe("the upgrade-signal ABI", () => {
  it("calls getSchedule() and minimumProtocolVersion() by their selectors", () => {
    expect(GET_SCHEDULE_CALLDATA).toBe(selector("getSchedule()"));
    expect(MINIMUM_PROTOCOL_VERSION_CALLDATA).toBe(selector("minimumProtocolVersion()"));
  });

  it("round-trips a uint64[] schedule", () => {
    const encoded = encodeSchedule(MAINNET_SCHEDULE);
    expect(encoded.length).toBe(2 + 64 * (2 + MAINNET_SCHEDULE.length));
    expect(decodeSchedule(encoded)).toEqual(MAINNET_SCHEDULE);
    expect(decodeSchedule(encodeSchedule([]))).toEqual([]);
  });

  it("refuses return data that is not a canonical uint64[]", () => {
    const word = (n: bigint): string => n.toString(16).padStart(64, "0");
    const bad = (hex: string): string => {
      try {
        decodeSchedule(hex);
      } catch (e) {
        expect(e).toBeInstanceOf(BasaltError);
        expect((e as BasaltError).code).toBe("UPGRADE_SIGNAL_DECODE");
        return (e as Error).message;
      }
      throw new Error(`accepted ${hex}`);
    };
    expect(bad("0x")).toMatch(/at least 64/);
    expect(bad(`0x${word(64n)}${word(0n)}`)).toMatch(/offset 64, expected 32/);
    expect(bad(`0x${word(32n)}${word(BigInt(MAX_SCHEDULE_ENTRIES + 1))}`)).toMatch(/257 entries, more than the 256/);
    expect(bad(`0x${word(32n)}${word(2n)}${word(1n)}`)).toMatch(/2 entries need 128 bytes, got 96/);
    expect(bad(`0x${word(32n)}${word(1n)}${word(1n << 64n)}`)).toMatch(/entry 0 does not fit a uint64/);
    expect(bad("0x12z4")).toMatch(/hex/);
  });

  it("reads the minimum protocol version as packed semver", () => {
    // v1.4.1 = 0x00000001_00000004_00000001_00000000 (the mainnet task's PROTOCOL_VERSIONS_MINIMUM_PROTOCOL_VERSION).
    const v = decodeUint256(`0x${(79228162588051313892677124096n).toString(16).padStart(64, "0")}`, "minimumProtocolVersion()");
    expect(formatProtocolVersion(v)).toBe("v1.4.1");
    expect(() => decodeUint256("0x01", "minimumProtocolVersion()")).toThrow(/1 bytes of return data, expected 32/);
  });

  it("names the registration ids as base/base's CONTRACT_VARIANTS", () => {
    expect(CONTRACT_UPGRADE_NAMES.indexOf("azul")).toBe(10);
    expect(CONTRACT_UPGRADE_NAMES.indexOf("beryl")).toBe(11);
    expect(CONTRACT_UPGRADE_NAMES.indexOf("cobalt")).toBe(12);
    expect(CONTRACT_UPGRADE_NAMES.indexOf("denim")).toBe(13);
    expect(IMPLEMENTED_CONTRACT_UPGRADES).toBe(13);
  });
});

describe("comparing an L1 schedule with basalt's", () => {
  it("finds nothing in Base mainnet's and Base Sepolia's schedules through Cobalt", () => {
    expect(compareL1Schedule(mainnetKnown, MAINNET_SCHEDULE, CONTRACT)).toEqual({ findings: [], unsignalled: [] });
    expect(compareL1Schedule(sepoliaKnown, SEPOLIA_SCHEDULE, CONTRACT)).toEqual({ findings: [], unsignalled: [] });
  });

  it("reports Denim (id 13) as an upgrade basalt does not implement", () => {
    const { findings } = compareL1Schedule(mainnetKnown, [...MAINNET_SCHEDULE, DENIM_MAINNET], CONTRACT);
    expect(findings).toEqual([
      { source: "l1", upgrade: "denim", activation: DENIM_MAINNET, kind: "unknown", detail: expect.stringContaining("denim (id 13) at 2026-11-05 18:00:00 UTC (1793901600)") },
    ]);
  });

  it("names ids beyond its list by number, and ignores unscheduled later ids", () => {
    const schedule = [...MAINNET_SCHEDULE, 0n, 0n, 1800000000n];
    const { findings } = compareL1Schedule(mainnetKnown, schedule, CONTRACT);
    expect(findings.map((f) => [f.upgrade, f.activation, f.kind])).toEqual([["upgrade id 15", 1800000000n, "unknown"]]);
  });

  it("reports a known upgrade scheduled at another time as a conflict from the earlier time", () => {
    const later = [...MAINNET_SCHEDULE];
    later[12] = 1790791200n + 3600n;
    const a = compareL1Schedule(mainnetKnown, later, CONTRACT).findings;
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ upgrade: "cobalt", kind: "conflict", activation: 1790791200n });
    expect(a[0]!.detail).toContain("basalt schedules it at 2026-09-30 18:00:00 UTC (1790791200)");
    const earlier = [...MAINNET_SCHEDULE];
    earlier[11] = 1782410400n - 60n;
    expect(compareL1Schedule(mainnetKnown, earlier, CONTRACT).findings[0]).toMatchObject({ upgrade: "beryl", kind: "conflict", activation: 1782410400n - 60n });
    // An upgrade basalt implements but this chain's table does not schedule.
    const pectra = [...MAINNET_SCHEDULE];
    pectra[7] = 1742486400n;
    expect(compareL1Schedule(mainnetKnown, pectra, CONTRACT).findings[0]).toMatchObject({ upgrade: "pectraBlobSchedule", kind: "conflict", activation: 1742486400n });
  });

  it("takes a 0 entry as not scheduled (listed as unsignalled), and any time at or before genesis as genesis", () => {
    const noCobalt = [...MAINNET_SCHEDULE];
    noCobalt[12] = 0n;
    expect(compareL1Schedule(mainnetKnown, noCobalt, CONTRACT)).toEqual({ findings: [], unsignalled: ["cobalt"] });
    // basalt writes Regolith at 0 on mainnet; the registry writes the genesis time, or anything before it.
    expect(mainnet.forkTimes.regolith).toBe(0n);
    const early = [...MAINNET_SCHEDULE];
    early[0] = 1n;
    expect(compareL1Schedule(mainnetKnown, early, CONTRACT).findings).toEqual([]);
  });

  it("formats activation times in UTC with the raw value", () => {
    expect(formatActivation(1790791200n)).toBe("2026-09-30 18:00:00 UTC (1790791200)");
  });
});

describe("comparing eth_config with basalt's forks", () => {
  /** Forks at genesis (100) and at 1000, with fork ids made up for the comparison. */
  const local: LocalForkView = { genesisTime: 100n, times: [0n, 1000n], forkIdAt: (t) => (t < 1000n ? "0x11111111" : "0x22222222") };
  const fork = (activationTime: number, forkId: string): Record<string, unknown> => ({ activationTime, forkId, chainId: "0x1" });

  it("finds nothing when every fork is basalt's", () => {
    expect(compareEthConfig({ current: fork(0, "0x11111111"), next: fork(1000, "0x22222222"), last: null }, local, "http://src")).toEqual([]);
    expect(compareEthConfig({ current: fork(1000, "0x22222222"), next: null, last: fork(50, "0x11111111") }, local, "http://src")).toEqual([]);
  });

  it("reports a fork at a time basalt has none at, and a fork id that differs at a known time", () => {
    const found = compareEthConfig({ current: fork(1000, "0x33333333"), next: fork(2000, "0xAAAAAAAA"), last: fork(0, "0x11111111") }, local, "http://src");
    expect(found).toEqual([
      { source: "follow-rpc", upgrade: "fork 0x33333333", activation: 1000n, kind: "conflict", detail: expect.stringContaining("basalt's fork id there is 0x22222222") },
      { source: "follow-rpc", upgrade: "fork 0xaaaaaaaa", activation: 2000n, kind: "unknown", detail: expect.stringContaining("basalt has no fork at that time") },
    ]);
  });

  it("refuses an answer that is not eth_config", () => {
    for (const bad of [null, [], { current: 5 }, { current: { activationTime: -1, forkId: "0x11111111" } }, { next: { activationTime: 1, forkId: "0x1" } }]) {
      expect(() => compareEthConfig(bad, local, "http://src")).toThrow(/eth_config/);
    }
  });
});
