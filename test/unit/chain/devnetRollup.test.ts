/**
 * A local rollup's genesis and rollup config: the devnet genesis at the L1 anchor's time (its hash
 * another than the plain devnet's, the same for the same time), and a rollup.json that op-node's
 * reader (`parseRollupConfig`) reads back to the same configuration, with every devnet fork at 0,
 * the devnet's EIP-1559 parameters, the batcher, scalars and gas limit in the genesis system config.
 */
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devnetGenesis, DEVNET_EIP1559_DENOMINATOR_CANYON, DEVNET_EIP1559_ELASTICITY } from "../../../src/chain/devnet.js";
import { devnetRollupConfig, devnetRollupGenesis, devnetSystemConfigScalar } from "../../../src/chain/devnetRollup.js";
import { ecotoneScalarsFromSystemConfig } from "../../../src/chain/op/l1InfoTx.js";
import { parseRollupConfig, RollupConfigError, rollupConfigJson } from "../../../src/chain/op/rollupConfig.js";
import { genesisSystemConfig } from "../../../src/chain/op/systemConfig.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { ANVIL_CHAIN_ID, DEVNET_BASE_FEE_SCALAR, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT, DEVNET_ROLLUP_BLOCK_TIME_S, DEVNET_ROLLUP_SEQ_WINDOW_SIZE } from "../../../src/chain/constants.js";
import { to0x } from "../../../src/util/bytes.js";

async function hashOf(g: GenesisJson): Promise<string> {
  return to0x((await Chain.buildGenesis(g, commonFromGenesis(g))).block.hash());
}

const ANCHOR = { hash: "0x" + "ab".repeat(32), number: 7n, timestamp: 1_760_000_000n };
const params = {
  l1ChainId: ANVIL_CHAIN_ID,
  l1Anchor: ANCHOR,
  l2GenesisHash: "0x" + "cd".repeat(32),
  portal: "0x" + "01".repeat(20),
  systemConfig: "0x" + "02".repeat(20),
  batcher: "0x" + "03".repeat(20),
  batchInbox: "0xff00000000000000000000000000000000000000",
};

describe("local rollup genesis", () => {
  it("is the devnet genesis at the anchor's time: a hash of its own, the same for the same time", async () => {
    const g = devnetRollupGenesis(ANCHOR.timestamp);
    expect(BigInt(g.timestamp as string)).toBe(ANCHOR.timestamp);
    expect({ ...g, timestamp: devnetGenesis().timestamp }).toEqual(devnetGenesis());
    const [a, b, other, plain] = await Promise.all([hashOf(g), hashOf(devnetRollupGenesis(ANCHOR.timestamp)), hashOf(devnetRollupGenesis(ANCHOR.timestamp + 1n)), hashOf(devnetGenesis())]);
    expect(a).toBe(b);
    expect(a).not.toBe(other);
    expect(a).not.toBe(plain);
  });
});

describe("local rollup config", () => {
  it("round-trips through rollup.json and has the devnet's forks, EIP-1559 parameters and genesis system config", () => {
    const cfg = devnetRollupConfig(params);
    expect(parseRollupConfig(JSON.parse(JSON.stringify(rollupConfigJson(cfg))))).toEqual(cfg);
    expect(cfg.chainId).toBe(DEVNET_CHAIN_ID);
    expect(cfg.blockTime).toBe(DEVNET_ROLLUP_BLOCK_TIME_S);
    expect(cfg.seqWindowSize).toBe(DEVNET_ROLLUP_SEQ_WINDOW_SIZE);
    expect(cfg.genesis.l2Time).toBe(ANCHOR.timestamp);
    expect(cfg.genesis.l1).toEqual({ hash: ANCHOR.hash, number: 7n });
    expect(cfg.forkTimes).toEqual({ regolith: 0n, canyon: 0n, delta: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n, isthmus: 0n, jovian: 0n, azul: 0n, beryl: 0n, cobalt: 0n });
    expect(cfg.eip1559).toEqual({ eip1559Elasticity: DEVNET_EIP1559_ELASTICITY, eip1559Denominator: 50, eip1559DenominatorCanyon: DEVNET_EIP1559_DENOMINATOR_CANYON });
    const sc = genesisSystemConfig(cfg.genesis.systemConfig);
    expect(to0x(sc.batcherAddress)).toBe(params.batcher);
    expect(sc.gasLimit).toBe(DEVNET_GAS_LIMIT);
    expect(sc.overhead).toBe(0n);
    expect(ecotoneScalarsFromSystemConfig(sc.scalar)).toEqual({ baseFeeScalar: DEVNET_BASE_FEE_SCALAR, blobBaseFeeScalar: DEVNET_BLOB_BASE_FEE_SCALAR });
    expect(cfg.genesis.systemConfig.scalar).toBe(devnetSystemConfigScalar());
  });

  it("takes its tunables from the caller and refuses what is not an address, a hash or a block time", () => {
    const cfg = devnetRollupConfig({ ...params, blockTime: 1n, seqWindowSize: 10n, maxSequencerDrift: 30n, channelTimeout: 5n, channelTimeoutGranite: 4n });
    expect([cfg.blockTime, cfg.seqWindowSize, cfg.maxSequencerDrift, cfg.channelTimeout, cfg.channelTimeoutGranite]).toEqual([1n, 10n, 30n, 5n, 4n]);
    const field = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(RollupConfigError);
        return (e as RollupConfigError).type.field;
      }
      throw new Error("expected a RollupConfigError");
    };
    expect(field(() => devnetRollupConfig({ ...params, portal: "0x1234" }))).toBe("deposit_contract_address");
    expect(field(() => devnetRollupConfig({ ...params, l2GenesisHash: "0x00" }))).toBe("genesis.l2.hash");
    expect(field(() => devnetRollupConfig({ ...params, blockTime: 0n }))).toBe("block_time");
  });
});
