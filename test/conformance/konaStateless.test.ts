/**
 * Proof of OP execution on real blocks: re-executes the seven OP Sepolia blocks of kona's
 * stateless-executor fixtures (Holocene era) from their witnesses alone, starting at the
 * parent header's state root, and asserts the built block hash equals the real one.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import type { GenesisJson } from "../../src/chain/genesis.js";
import { opConfigFromGenesisConfig } from "../../src/chain/op/forks.js";
import { WitnessStore } from "../../src/execution/state/witnessState.js";
import { executeStateless } from "../../src/execution/op/stateless.js";
import { headerFromRpc } from "../../src/sync/blockFromRpc.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DIR = path.join(REPO, "..", "shared", "fixtures", "op", "kona-op-sepolia");

interface KonaFixture {
  fixture: {
    rollup_config: Record<string, unknown> & { l2_chain_id: number; chain_op_config: Record<string, number> };
    parent_header: Record<string, string>;
    executing_payload: {
      timestamp: string;
      prevRandao: string;
      suggestedFeeRecipient: string;
      parentBeaconBlockRoot?: string;
      transactions: string[];
      gasLimit: string;
      eip1559Params?: string;
      minBaseFee?: string;
    };
    expected_block_hash: string;
  };
  preimages: Record<string, string>;
}

/** op-geth-style genesis `config` of a kona rollup config (fork keys `<fork>_time` → `<fork>Time`). */
function genesisOfRollupConfig(rc: KonaFixture["fixture"]["rollup_config"]): GenesisJson {
  const config: Record<string, unknown> = { chainId: rc.l2_chain_id, regolithTime: 0, optimism: rc.chain_op_config };
  for (const fork of ["canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus", "jovian"]) {
    const t = rc[`${fork}_time`];
    if (typeof t === "number") config[`${fork}Time`] = t;
  }
  return { config: config as GenesisJson["config"], gasLimit: "0x0", difficulty: "0x0", nonce: "0x0", extraData: "0x", timestamp: "0x0", alloc: {} };
}

const files = readdirSync(DIR).filter((f) => /^block-\d+\.json$/.test(f)).sort();

describe("kona OP Sepolia fixtures: stateless re-execution", () => {
  it("has the seven fixture blocks", () => {
    expect(files.length).toBe(7);
  });
  for (const f of files) {
    it(`${f}: built block hash equals expected_block_hash`, async () => {
      const data = JSON.parse(readFileSync(path.join(DIR, f), "utf8")) as KonaFixture;
      const { fixture } = data;
      const genesis = genesisOfRollupConfig(fixture.rollup_config);
      const op = opConfigFromGenesisConfig(genesis.config);
      expect(op).toBeDefined();
      const common = commonFromGenesis(genesis);
      const witness = WitnessStore.fromValues(Object.values(data.preimages).map((v) => hexToBytes(v as `0x${string}`)));
      expect(witness.size).toBe(Object.keys(data.preimages).length);
      const rules = {
        op,
        commonAt: (number: bigint, timestamp: bigint) => {
          const c = common.copy();
          c.setHardforkBy({ blockNumber: number, timestamp });
          return c;
        },
      };
      const parent = headerFromRpc(fixture.parent_header, rules, { requireHash: false });
      const p = fixture.executing_payload;
      const built = await executeStateless(
        witness,
        parent,
        {
          timestamp: BigInt(p.timestamp),
          prevRandao: hexToBytes(p.prevRandao as `0x${string}`),
          suggestedFeeRecipient: hexToBytes(p.suggestedFeeRecipient as `0x${string}`),
          parentBeaconBlockRoot: p.parentBeaconBlockRoot === undefined ? undefined : hexToBytes(p.parentBeaconBlockRoot as `0x${string}`),
          transactions: p.transactions.map((t) => hexToBytes(t as `0x${string}`)),
          noTxPool: true,
          gasLimit: BigInt(p.gasLimit),
          eip1559Params: p.eip1559Params === undefined ? undefined : hexToBytes(p.eip1559Params as `0x${string}`),
          minBaseFee: p.minBaseFee === undefined ? undefined : BigInt(p.minBaseFee),
        },
        op!,
        common,
      );
      expect(built.block.transactions.length).toBe(p.transactions.length);
      expect(bytesToHex(built.block.hash())).toBe(fixture.expected_block_hash);
    });
  }
});
