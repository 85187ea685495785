import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { opNetwork } from "../../../../src/chain/op/networks.js";
import { parseRollupConfig, rollupConfigForChain, rollupConfigJson, rollupConfigOfNetwork, RollupConfigError } from "../../../../src/chain/op/rollupConfig.js";

describe("rollup config (rollup.json)", () => {
  const base = rollupConfigOfNetwork(opNetwork("base-mainnet"));

  it("round-trips Base mainnet's configuration through op-node's rollup.json", () => {
    const json = rollupConfigJson(base);
    expect(json.batch_inbox_address).toBe("0xFf00000000000000000000000000000000008453");
    expect(json.deposit_contract_address).toBe("0x49048044D57e1C92A77f79988d21Fa8fAF74E97e");
    expect(json.seq_window_size).toBe(3600);
    expect(json.jovian_time).toBe(1764691201);
    const back = parseRollupConfig(JSON.parse(JSON.stringify(json)));
    expect(back.chainId).toBe(8453n);
    expect(back.forkTimes).toEqual(base.forkTimes);
    expect(back.genesis.l1).toEqual({ hash: base.genesis.l1.hash, number: base.genesis.l1.number });
    expect(back.genesis.systemConfig.batcherAddress).toBe(base.genesis.systemConfig.batcherAddress.toLowerCase());
    expect(back.depositContractAddress).toBe(base.depositContractAddress.toLowerCase());
    expect(back.channelTimeoutGranite).toBe(50n);
  });

  it("names the missing or malformed field", () => {
    const json = rollupConfigJson(base) as Record<string, unknown>;
    delete json.seq_window_size;
    expect(() => parseRollupConfig(json)).toThrow(/seq_window_size is missing/);
    const bad = { ...rollupConfigJson(base), batch_inbox_address: "0x1234" };
    try {
      parseRollupConfig(bad);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(RollupConfigError);
      expect((e as RollupConfigError).meta.field).toBe("batch_inbox_address");
    }
  });

  it("finds the built-in network by chain id and genesis, and checks a file against the datadir's chain", () => {
    expect(rollupConfigForChain(8453n, base.genesis.l2.hash)?.batchInboxAddress).toBe(base.batchInboxAddress);
    expect(rollupConfigForChain(8453n, "0x" + "00".repeat(32))).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), "rollupcfg-"));
    const file = join(dir, "rollup.json");
    writeFileSync(file, JSON.stringify(rollupConfigJson(base)));
    expect(rollupConfigForChain(8453n, base.genesis.l2.hash, file)?.l1ChainId).toBe(1n);
    expect(() => rollupConfigForChain(84532n, base.genesis.l2.hash, file)).toThrow(/is for chain 8453/);
    expect(() => rollupConfigForChain(8453n, "0x" + "11".repeat(32), file)).toThrow(/names L2 genesis/);
    rmSync(dir, { recursive: true, force: true });
  });
});
