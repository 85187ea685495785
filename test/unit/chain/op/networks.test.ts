/**
 * The built-in Base networks: the table against the superchain-registry TOML files (shared
 * fixtures), the op-geth style genesis config, and the config filling of genesis files.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../../src/chain/chainSpec.js";
import { OP_FORK_TIME_KEYS, OpFork, opConfigFromGenesisConfig, opForkAt } from "../../../../src/chain/op/forks.js";
import {
  OP_NETWORKS,
  OP_NETWORK_NAMES,
  isOpNetworkName,
  opGenesisConfig,
  opNetwork,
  opNetworkByChainId,
  withNetworkConfig,
  type OpNetworkName,
} from "../../../../src/chain/op/networks.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const FIXTURES = path.join(REPO, "..", "shared", "fixtures", "op", "base-genesis");

/** Flat `section.key → value` view of the (simple) registry TOML: strings unquoted, comments dropped. */
function readToml(file: string): Map<string, string> {
  const out = new Map<string, string>();
  let section = "";
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header !== null) {
      section = `${header[1] as string}.`;
      continue;
    }
    const eq = line.indexOf("=");
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    out.set(section + key, value);
  }
  return out;
}

function get(toml: Map<string, string>, key: string): string {
  const v = toml.get(key);
  if (v === undefined) throw new Error(`TOML fixture lacks ${key}`);
  return v;
}

describe("built-in network table", () => {
  it("lists base-mainnet and base-sepolia with their chain ids", () => {
    expect(OP_NETWORK_NAMES).toEqual(["base-mainnet", "base-sepolia"]);
    expect(opNetwork("base-mainnet").chainId).toBe(8453n);
    expect(opNetwork("base-sepolia").chainId).toBe(84532n);
    expect(opNetwork("base-mainnet").l1ChainId).toBe(1n);
    expect(opNetwork("base-sepolia").l1ChainId).toBe(11155111n);
    expect(opNetworkByChainId(84532n)?.name).toBe("base-sepolia");
    expect(opNetworkByChainId(10n)).toBeUndefined();
    expect(isOpNetworkName("base-mainnet")).toBe(true);
    expect(isOpNetworkName("devnet")).toBe(false);
    expect(() => opNetwork("base-goerli")).toThrow(
      expect.objectContaining({ code: "NETWORK_UNKNOWN", message: expect.stringMatching(/base-goerli.*base-mainnet, base-sepolia/) }),
    );
  });

  for (const name of OP_NETWORK_NAMES) {
    it(`${name} matches the superchain-registry TOML`, () => {
      const toml = readToml(path.join(FIXTURES, `${name}.toml`));
      const n = OP_NETWORKS[name];
      expect(n.chainId).toBe(BigInt(get(toml, "chain_id")));
      expect(n.batchInboxAddress).toBe(get(toml, "batch_inbox_addr"));
      expect(n.blockTime).toBe(BigInt(get(toml, "block_time")));
      expect(n.seqWindowSize).toBe(BigInt(get(toml, "seq_window_size")));
      expect(n.maxSequencerDrift).toBe(BigInt(get(toml, "max_sequencer_drift")));
      for (const fork of ["canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus", "jovian"] as const) {
        expect(n.forkTimes[fork], fork).toBe(BigInt(get(toml, `hardforks.${fork}_time`)));
      }
      const pectra = toml.get("hardforks.pectra_blob_schedule_time");
      expect(n.pectraBlobScheduleTime).toBe(pectra === undefined ? undefined : BigInt(pectra));
      expect(n.eip1559).toEqual({
        eip1559Elasticity: Number(get(toml, "optimism.eip1559_elasticity")),
        eip1559Denominator: Number(get(toml, "optimism.eip1559_denominator")),
        eip1559DenominatorCanyon: Number(get(toml, "optimism.eip1559_denominator_canyon")),
      });
      expect(n.genesis.l2Time).toBe(BigInt(get(toml, "genesis.l2_time")));
      expect(n.genesis.l1).toEqual({ hash: get(toml, "genesis.l1.hash"), number: BigInt(get(toml, "genesis.l1.number")) });
      expect(n.genesis.l2).toEqual({ hash: get(toml, "genesis.l2.hash"), number: BigInt(get(toml, "genesis.l2.number")) });
      expect(n.genesisHash).toBe(get(toml, "genesis.l2.hash"));
      expect(n.genesis.systemConfig).toEqual({
        batcherAddress: get(toml, "genesis.system_config.batcherAddress"),
        overhead: get(toml, "genesis.system_config.overhead"),
        scalar: get(toml, "genesis.system_config.scalar"),
        gasLimit: BigInt(get(toml, "genesis.system_config.gasLimit")),
      });
      expect(n.roles.proxyAdminOwner).toBe(get(toml, "roles.ProxyAdminOwner"));
      expect(n.addresses.l1StandardBridgeProxy).toBe(get(toml, "addresses.L1StandardBridgeProxy"));
      expect(n.addresses.optimismPortalProxy).toBe(get(toml, "addresses.OptimismPortalProxy"));
      expect(n.addresses.systemConfigProxy).toBe(get(toml, "addresses.SystemConfigProxy"));
      expect(n.addresses.disputeGameFactoryProxy).toBe(get(toml, "addresses.DisputeGameFactoryProxy"));
    });
  }

  it("has the implicit loader values and Base's Azul times", () => {
    for (const n of Object.values(OP_NETWORKS)) {
      expect(n.forkTimes.regolith).toBe(0n);
      expect(n.channelTimeout).toBe(300n);
      expect(n.channelTimeoutGranite).toBe(50n);
      expect(n.genesisUrls.length).toBeGreaterThan(0);
      const published = /^https:\/\/raw\.githubusercontent\.com\/base\/node\/[0-9a-f]{40}\/(mainnet|sepolia)\/genesis-l2\.json$/;
      for (const u of n.genesisUrls) expect(u).toMatch(published);
    }
    expect(OP_NETWORKS["base-mainnet"].forkTimes.azul).toBe(1779991200n);
    expect(OP_NETWORKS["base-sepolia"].forkTimes.azul).toBe(1776708000n);
  });
});

describe("opGenesisConfig", () => {
  it("is an op-geth config that forks.ts parses back to the table's schedule", () => {
    for (const name of OP_NETWORK_NAMES) {
      const n = OP_NETWORKS[name];
      const config = opGenesisConfig(name);
      expect(config.chainId).toBe(Number(n.chainId));
      expect(config.bedrockBlock).toBe(0);
      expect(config.regolithTime).toBe(0);
      expect(config.optimism).toEqual(n.eip1559);
      const op = opConfigFromGenesisConfig(config);
      expect(op).toBeDefined();
      expect(op?.forkTimes).toEqual(n.forkTimes);
      expect(op?.eip1559Elasticity).toBe(n.eip1559.eip1559Elasticity);
      for (const key of Object.values(OP_FORK_TIME_KEYS)) expect(typeof config[key], key).toBe("number");
    }
    expect(opGenesisConfig("base-sepolia").pectraBlobScheduleTime).toBe(1742486400);
    expect(opGenesisConfig("base-mainnet").pectraBlobScheduleTime).toBeUndefined();
    // fresh object each call
    const a = opGenesisConfig("base-mainnet");
    (a.optimism as Record<string, unknown>).eip1559Elasticity = 99;
    expect((opGenesisConfig("base-mainnet").optimism as Record<string, unknown>).eip1559Elasticity).toBe(6);
  });

  it("activates the OP forks (and their Ethereum forks) at the table's times", () => {
    const n = OP_NETWORKS["base-mainnet"];
    const op = opConfigFromGenesisConfig(opGenesisConfig("base-mainnet"));
    if (op === undefined) throw new Error("not an OP config");
    const t = n.forkTimes;
    expect(opForkAt(op, n.genesis.l2Time)).toBe(OpFork.regolith);
    expect(opForkAt(op, (t.jovian as bigint) - 1n)).toBe(OpFork.isthmus);
    expect(opForkAt(op, t.jovian as bigint)).toBe(OpFork.jovian);
    expect(opForkAt(op, t.azul as bigint)).toBe(OpFork.azul);

    const common = commonFromGenesis(
      withNetworkConfig("base-mainnet", {
        config: null,
        nonce: "0x0",
        timestamp: "0x648a5ce3",
        extraData: "0x",
        gasLimit: "0x1c9c380",
        difficulty: "0x0",
        mixHash: `0x${"00".repeat(32)}`,
        coinbase: "0x4200000000000000000000000000000000000011",
        alloc: {},
      }),
    );
    expect(common.chainId()).toBe(8453n);
    const hfAt = (ts: bigint): string => {
      common.setHardforkBy({ blockNumber: 1n, timestamp: ts });
      return common.hardfork();
    };
    expect(hfAt(n.genesis.l2Time)).toBe("mergeNetsplitBlock"); // London + the merge at genesis
    expect(common.isActivatedEIP(1559)).toBe(true);
    expect(common.isActivatedEIP(4895)).toBe(false);
    expect(hfAt(t.canyon as bigint)).toBe("shanghai");
    expect(hfAt((t.ecotone as bigint) - 1n)).toBe("shanghai");
    expect(hfAt(t.ecotone as bigint)).toBe("cancun");
    expect(hfAt(t.isthmus as bigint)).toBe("prague");
    expect(hfAt(t.azul as bigint)).toBe("osaka");
  });
});

describe("withNetworkConfig", () => {
  const alloc = { "4200000000000000000000000000000000000011": { balance: "0x1" } };
  const header = { gasLimit: "0x1c9c380", timestamp: "0x648a5ce3", extraData: "0x424544524f434b", baseFeePerGas: "0x3b9aca00" };

  it("fills a null or absent config and keeps the rest", () => {
    for (const config of [null, undefined]) {
      const g = withNetworkConfig("base-sepolia", { ...header, config, alloc });
      expect(g.config).toEqual(opGenesisConfig("base-sepolia"));
      expect(g.alloc).toEqual(alloc);
      expect(g.extraData).toBe(header.extraData);
    }
    const noKey = withNetworkConfig("base-mainnet", { ...header, alloc });
    expect(noKey.config.chainId).toBe(8453);
  });

  it("replaces an older config of the same chain (base/node genesis-l2.json)", () => {
    const old = { chainId: 84532, bedrockBlock: 0, regolithTime: 0, optimism: { eip1559Elasticity: 10, eip1559Denominator: 50 } };
    const g = withNetworkConfig("base-sepolia", { ...header, config: old, alloc });
    expect(g.config).toEqual(opGenesisConfig("base-sepolia"));
    expect(g.config.canyonTime).toBe(1699981200);
  });

  it("refuses a config of another chain and malformed files", () => {
    const n: OpNetworkName = "base-mainnet";
    expect(() => withNetworkConfig(n, { ...header, config: { chainId: 84532 }, alloc })).toThrow(/config\.chainId is 84532, expected 8453/);
    expect(() => withNetworkConfig(n, { ...header, config: { chainId: "0x2105" }, alloc })).not.toThrow();
    expect(() => withNetworkConfig(n, { ...header, config: { chainId: "nope" }, alloc })).toThrow(/expected 8453/);
    expect(() => withNetworkConfig(n, [])).toThrow(expect.objectContaining({ code: "GENESIS_INVALID" }));
    expect(() => withNetworkConfig(n, { ...header, config: null })).toThrow(/missing `alloc`/);
    expect(() => withNetworkConfig("base-goerli" as OpNetworkName, { ...header, alloc })).toThrow(/unknown network/);
  });
});
