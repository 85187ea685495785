/**
 * Base mainnet and Base Sepolia genesis: the published allocations (superchain-registry files,
 * `config: null`, in the shared fixtures) with the built-in network config give exactly the
 * genesis state roots and block hashes of the networks.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../../src/chain/chainSpec.js";
import { genesisHashOf } from "../../../../src/blockchain/genesisSource.js";
import { OP_NETWORKS, withNetworkConfig, type OpNetworkName } from "../../../../src/chain/op/networks.js";
import { to0x } from "../../../../src/util/bytes.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const FIXTURES = path.join(REPO, "..", "shared", "fixtures", "op", "base-genesis");

/** Known genesis values (superchain-registry base.toml genesis.l2.hash; mainnet state root from shared/reference). */
const KNOWN: Record<OpNetworkName, { hash: string; stateRoot: string; accounts: number }> = {
  "base-mainnet": {
    hash: "0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd",
    stateRoot: "0xb2afcb88cd1d0ab228f0415d99b0fb90a18e8515daf5eb31f55b5c4697e18328",
    accounts: 2064,
  },
  "base-sepolia": {
    hash: "0x0dcc9e089e30b90ddfc55be9a37dd15bc551aeee999d2e2b51414c54eaf934e4",
    stateRoot: "0x907f339ca16b3e45a89a7f4cc29d4430c8d4178d73b370ec9180e04a0dd7fcf3",
    accounts: 2322,
  },
};

function fixture(name: OpNetworkName): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(FIXTURES, `${name}-genesis.json`), "utf8")) as Record<string, unknown>;
}

describe("Base genesis blocks", () => {
  for (const name of ["base-mainnet", "base-sepolia"] as const) {
    it(`${name}: the published alloc + built-in config give the known state root and hash`, async () => {
      const file = fixture(name);
      expect(file.config).toBeNull();
      const g = withNetworkConfig(name, file);
      expect(Object.keys(g.alloc)).toHaveLength(KNOWN[name].accounts);
      const { block } = await Chain.buildGenesis(g, commonFromGenesis(g));
      expect(to0x(block.header.stateRoot)).toBe(KNOWN[name].stateRoot);
      expect(to0x(block.hash())).toBe(KNOWN[name].hash);
      expect(to0x(block.hash())).toBe(OP_NETWORKS[name].genesisHash);
      expect(to0x(block.header.stateRoot)).toBe(OP_NETWORKS[name].genesisStateRoot);
      // Bedrock genesis header: London-era 16 fields (base fee, no withdrawals root before Canyon).
      expect(block.header.raw()).toHaveLength(16);
      expect(block.header.baseFeePerGas).toBe(1_000_000_000n);
      expect(block.header.withdrawalsRoot).toBeUndefined();
      expect(block.header.timestamp).toBe(OP_NETWORKS[name].genesis.l2Time);
      expect(block.header.gasLimit).toBe(OP_NETWORKS[name].genesis.systemConfig.gasLimit);
      expect(to0x(block.header.coinbase.bytes)).toBe("0x4200000000000000000000000000000000000011");
    }, 60_000);
  }

  it("a one-wei change of one balance changes the genesis hash", async () => {
    const file = fixture("base-sepolia");
    const alloc = file.alloc as Record<string, { balance?: string }>;
    const [first] = Object.keys(alloc);
    const account = alloc[first as string] as { balance?: string };
    account.balance = `0x${(BigInt(account.balance ?? "0x0") + 1n).toString(16)}`;
    const hash = await genesisHashOf(withNetworkConfig("base-sepolia", file));
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(hash).not.toBe(KNOWN["base-sepolia"].hash);
  }, 60_000);
});
