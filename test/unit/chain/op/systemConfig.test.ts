/**
 * The SystemConfig: applying ConfigUpdate logs, the genesis config of the built-in networks,
 * rebuilding it from an L2 block (kona crates/protocol/protocol/src/utils.rs `to_system_config`
 * tests, and real OP Sepolia blocks of kona's stateless-executor fixtures), and the payload
 * attribute fields it sets (kona crates/protocol/genesis/src/system/config.rs `eip_1559_params` tests).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createBlockHeader } from "@ethereumjs/block";
import { Common, Mainnet } from "@ethereumjs/common";
import { describe, expect, it } from "vitest";
import { encodeConfigUpdateLog, decodeConfigUpdateLog, ConfigUpdateErrorCode } from "../../../../src/chain/op/configUpdate.js";
import { DepositTransaction } from "../../../../src/chain/op/depositTx.js";
import { Eip1559ParamsError } from "../../../../src/chain/op/eip1559.js";
import type { OpChainConfig } from "../../../../src/chain/op/forks.js";
import { L1InfoCalldataError } from "../../../../src/chain/op/l1InfoTx.js";
import { OP_NETWORKS } from "../../../../src/chain/op/networks.js";
import {
  applyConfigUpdate,
  applyConfigUpdates,
  genesisSystemConfig,
  SystemConfigError,
  SystemConfigErrorCode,
  systemConfigAttributes,
  systemConfigFromL2Block,
  type L2BlockForSystemConfig,
  type SystemConfig,
  type SystemConfigRollupConfig,
} from "../../../../src/chain/op/systemConfig.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";
import { KONA_OP_BATCHER, RAW_BEDROCK_INFO_TX, RAW_ECOTONE_INFO_TX, RAW_ISTHMUS_INFO_TX } from "../../../helpers/konaL1InfoVectors.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const KONA_DIR = path.join(REPO, "..", "shared", "fixtures", "op", "kona-op-sepolia");

const OP_BATCHER = KONA_OP_BATCHER;

/** A bare block for kona's unit vectors: number 1, timestamp 0, gas limit 0, given extraData and first transaction. */
function bareBlock(extraData: string, txs: { type: number; data: Uint8Array }[]): L2BlockForSystemConfig {
  return { header: { number: 1n, timestamp: 0n, gasLimit: 0n, extraData: fromHex(extraData), hash: () => new Uint8Array(32) }, transactions: txs };
}

/** A rollup config whose genesis is block 0 with `genesisHash`; forks as given. */
function rollup(forkTimes: OpChainConfig["forkTimes"], genesisHash = "0x" + "11".repeat(32)): SystemConfigRollupConfig {
  return {
    forkTimes,
    genesis: {
      l2: { number: 0n, hash: genesisHash },
      systemConfig: { batcherAddress: OP_BATCHER, overhead: "0x" + "00".repeat(31) + "bc", scalar: "0x" + "00".repeat(29) + "0a6fe0", gasLimit: 30_000_000n },
    },
  };
}

const deposit = (data: string): { type: number; data: Uint8Array } => ({ type: 0x7e, data: fromHex(data) });

function errorOf<E extends Error>(fn: () => unknown, cls: new (...args: never[]) => E): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof cls) return e;
    throw e;
  }
  throw new Error(`expected a ${cls.name}`);
}

describe("systemConfigFromL2Block: kona utils.rs vectors", () => {
  it("test_constructs_bedrock_system_config", () => {
    expect(systemConfigFromL2Block(bareBlock("0x", [deposit(RAW_BEDROCK_INFO_TX)]), rollup({}))).toEqual({
      batcherAddress: fromHex(OP_BATCHER),
      overhead: 188n,
      scalar: 684_000n,
      gasLimit: 0n,
    });
  });

  it("test_constructs_ecotone_system_config (Holocene extraData 0x00 0000beef 0000babe)", () => {
    const cfg = systemConfigFromL2Block(bareBlock("0x000000beef0000babe", [deposit(RAW_ECOTONE_INFO_TX)]), rollup({ holocene: 0n }));
    expect(cfg).toEqual({
      batcherAddress: fromHex(OP_BATCHER),
      overhead: 0n,
      scalar: 452312848583266388373324160190187140051835877600158453279134670530344387928n,
      gasLimit: 0n,
      eip1559Denominator: 0xbeef,
      eip1559Elasticity: 0xbabe,
    });
  });

  it("test_constructs_isthmus_system_config", () => {
    const cfg = systemConfigFromL2Block(bareBlock("0x000000beef0000babe", [deposit(RAW_ISTHMUS_INFO_TX)]), rollup({ holocene: 0n, isthmus: 0n }));
    expect(cfg).toMatchObject({ eip1559Denominator: 0xbeef, eip1559Elasticity: 0xbabe, operatorFeeScalar: 0xabcdn, operatorFeeConstant: 0xdcban, overhead: 0n });
    expect(cfg.daFootprintGasScalar).toBeUndefined();
    expect(cfg.minBaseFee).toBeUndefined();
  });

  it("Jovian: min base fee from the 17-byte extraData (Isthmus-layout deposit of an activation block sets no DA scalar)", () => {
    const extra = "0x01" + "000000fa" + "00000006" + "00000000004c4b40";
    const cfg = systemConfigFromL2Block(bareBlock(extra, [deposit(RAW_ISTHMUS_INFO_TX)]), rollup({ holocene: 0n, isthmus: 0n, jovian: 0n }));
    expect(cfg).toMatchObject({ eip1559Denominator: 250, eip1559Elasticity: 6, minBaseFee: 5_000_000n, operatorFeeScalar: 0xabcdn });
    expect(cfg.daFootprintGasScalar).toBeUndefined();
  });

  it("test_to_system_config_from_genesis / _invalid_genesis_hash", () => {
    const genesisHash = "0x" + "22".repeat(32);
    const block: L2BlockForSystemConfig = { header: { number: 0n, timestamp: 0n, gasLimit: 0n, extraData: new Uint8Array(0), hash: () => fromHex(genesisHash) }, transactions: [] };
    expect(systemConfigFromL2Block(block, rollup({}, genesisHash))).toEqual({ batcherAddress: fromHex(OP_BATCHER), overhead: 0xbcn, scalar: 0xa6fe0n, gasLimit: 30_000_000n });
    const e = errorOf(() => systemConfigFromL2Block(block, rollup({})), SystemConfigError);
    expect(e.type).toEqual({ code: SystemConfigErrorCode.GENESIS_HASH_MISMATCH, number: "0", hash: genesisHash, genesisHash: "0x" + "11".repeat(32) });
  });

  it("test_to_system_config_empty_txs / _non_deposit", () => {
    expect(errorOf(() => systemConfigFromL2Block(bareBlock("0x", []), rollup({})), SystemConfigError).type).toEqual({ code: SystemConfigErrorCode.NO_L1_INFO_TX, number: "1" });
    expect(errorOf(() => systemConfigFromL2Block(bareBlock("0x", [{ type: 0, data: new Uint8Array(0) }]), rollup({})), SystemConfigError).type).toEqual({
      code: SystemConfigErrorCode.FIRST_TX_NOT_DEPOSIT,
      number: "1",
      type: 0,
    });
  });

  it("surfaces malformed L1-info calldata and extraData as their own typed errors", () => {
    expect(errorOf(() => systemConfigFromL2Block(bareBlock("0x", [deposit("0xdeadbeef")]), rollup({})), L1InfoCalldataError).code).toBe("L1_INFO_UNKNOWN_SELECTOR");
    expect(errorOf(() => systemConfigFromL2Block(bareBlock("0x00", [deposit(RAW_ECOTONE_INFO_TX)]), rollup({ holocene: 0n })), Eip1559ParamsError).code).toBe(
      "OP_EXTRA_DATA_INVALID_LENGTH",
    );
  });
});

interface KonaBlockFile {
  fixture: {
    rollup_config: Record<string, unknown> & { genesis: { l2: { number: number; hash: string }; system_config: { batcherAddr: string; overhead: string; scalar: string; gasLimit: number } } };
    parent_header: Record<string, string>;
    executing_payload: { timestamp: string; transactions: string[]; gasLimit: string; eip1559Params?: string };
    expected_block_hash: string;
  };
}

function readKona(n: number): KonaBlockFile["fixture"] {
  return (JSON.parse(readFileSync(path.join(KONA_DIR, `block-${n}.json`), "utf8")) as KonaBlockFile).fixture;
}

/** The OP Sepolia rollup config of a kona fixture in basalt's shape (op-node `*_time` fields → fork times). */
function konaRollup(rc: KonaBlockFile["fixture"]["rollup_config"]): SystemConfigRollupConfig {
  const forkTimes: OpChainConfig["forkTimes"] = { regolith: 0n };
  for (const fork of ["canyon", "delta", "ecotone", "fjord", "granite", "holocene", "isthmus", "jovian"] as const) {
    const t = rc[`${fork}_time`];
    if (typeof t === "number") forkTimes[fork] = BigInt(t);
  }
  const sc = rc.genesis.system_config;
  return {
    forkTimes,
    genesis: {
      l2: { number: BigInt(rc.genesis.l2.number), hash: rc.genesis.l2.hash },
      systemConfig: { batcherAddress: sc.batcherAddr, overhead: sc.overhead, scalar: sc.scalar, gasLimit: BigInt(sc.gasLimit) },
    },
  };
}

/**
 * OP Sepolia block `n` as an L2 block: its full header is the `parent_header` of block n+1's
 * fixture (a Cancun-shaped header; its hash is checked against block n's expected hash), its
 * transactions those of block n's payload.
 */
function konaBlock(n: number): L2BlockForSystemConfig & { expectedHash: string; payload: KonaBlockFile["fixture"]["executing_payload"] } {
  const own = readKona(n);
  const h = readKona(n + 1).parent_header;
  const common = new Common({ chain: Mainnet, hardfork: "cancun" });
  const header = createBlockHeader(
    {
      parentHash: h.parentHash as `0x${string}`,
      uncleHash: h.sha3Uncles as `0x${string}`,
      coinbase: h.miner as `0x${string}`,
      stateRoot: h.stateRoot as `0x${string}`,
      transactionsTrie: h.transactionsRoot as `0x${string}`,
      receiptTrie: h.receiptsRoot as `0x${string}`,
      logsBloom: h.logsBloom as `0x${string}`,
      difficulty: BigInt(h.difficulty!),
      number: BigInt(h.number!),
      gasLimit: BigInt(h.gasLimit!),
      gasUsed: BigInt(h.gasUsed!),
      timestamp: BigInt(h.timestamp!),
      extraData: h.extraData as `0x${string}`,
      mixHash: h.mixHash as `0x${string}`,
      nonce: h.nonce as `0x${string}`,
      baseFeePerGas: BigInt(h.baseFeePerGas!),
      withdrawalsRoot: h.withdrawalsRoot as `0x${string}`,
      blobGasUsed: BigInt(h.blobGasUsed!),
      excessBlobGas: BigInt(h.excessBlobGas!),
      parentBeaconBlockRoot: h.parentBeaconBlockRoot as `0x${string}`,
    },
    { common, skipConsensusFormatValidation: true },
  );
  return {
    header,
    // The L1-info deposit, decoded; the rest only by type (systemConfigFromL2Block reads the first).
    transactions: own.executing_payload.transactions.map((t, i) => (i === 0 ? DepositTransaction.fromSerialized(fromHex(t)) : { type: fromHex(t)[0]! < 0x80 ? fromHex(t)[0]! : 0, data: new Uint8Array(0) })),
    expectedHash: own.expected_block_hash,
    payload: own.executing_payload,
  };
}

describe("systemConfigFromL2Block: real OP Sepolia blocks (kona stateless-executor fixtures, Holocene era)", () => {
  const rc = konaRollup(readKona(26207960).rollup_config);

  it.each([26207960, 26207961, 26207962])("block %i: fields from its L1-info deposit, gas limit and Holocene extraData", (n) => {
    const block = konaBlock(n);
    expect(to0x(block.header.hash())).toBe(block.expectedHash);
    const cfg = systemConfigFromL2Block(block, rc);
    // The block's own payload attributes carry the same gas limit and EIP-1559 parameters.
    expect(cfg.gasLimit).toBe(BigInt(block.payload.gasLimit));
    expect(cfg.gasLimit).toBe(60_000_000n);
    expect([cfg.eip1559Denominator, cfg.eip1559Elasticity]).toEqual([250, 6]);
    expect(block.payload.eip1559Params).toBe("0x000000fa00000006");
    // Ecotone-layout deposit: batcher 0x8f23…e98c, base fee scalar 7600 (0x1db0), blob base fee scalar 862000 (0xd2730), as a version-1 scalar.
    expect(to0x(cfg.batcherAddress)).toBe("0x8f23bb38f531600e5d8fddaaec41f13fab46e98c");
    expect(cfg.scalar).toBe((1n << 248n) | (862_000n << 32n) | 7_600n);
    expect(cfg.overhead).toBe(0n);
    // Isthmus (1744905600) and Jovian are after these blocks.
    expect(cfg.operatorFeeScalar).toBeUndefined();
    expect(cfg.minBaseFee).toBeUndefined();
    expect(cfg.daFootprintGasScalar).toBeUndefined();
  });

  it("the rebuilt config gives the next block's payload-attribute fields", () => {
    const cfg = systemConfigFromL2Block(konaBlock(26207960), rc);
    const next = readKona(26207961).executing_payload;
    const attrs = systemConfigAttributes(cfg, rc, BigInt(readKona(26207961).parent_header.timestamp!), BigInt(next.timestamp));
    expect(attrs.gasLimit).toBe(BigInt(next.gasLimit));
    expect(to0x(attrs.eip1559Params!)).toBe(next.eip1559Params);
    expect(attrs.minBaseFee).toBeUndefined();
  });
});

describe("genesisSystemConfig", () => {
  it("Base mainnet genesis (superchain-registry base.toml)", () => {
    expect(genesisSystemConfig(OP_NETWORKS["base-mainnet"].genesis.systemConfig)).toEqual({
      batcherAddress: fromHex("0x5050f69a9786f081509234f1a7f4684b5e5b76c9"),
      overhead: 0xbcn,
      scalar: 0xa6fe0n,
      gasLimit: 30_000_000n,
    });
  });

  it("rejects a batcher address of the wrong size", () => {
    const bad = { ...OP_NETWORKS["base-sepolia"].genesis.systemConfig, batcherAddress: "0x1234" };
    expect(errorOf(() => genesisSystemConfig(bad), SystemConfigError).type).toEqual({ code: SystemConfigErrorCode.INVALID_GENESIS, field: "batcherAddress", value: "0x1234" });
  });
});

describe("applyConfigUpdate", () => {
  const start: SystemConfig = genesisSystemConfig(OP_NETWORKS["base-sepolia"].genesis.systemConfig);
  const SC = fromHex(OP_NETWORKS["base-sepolia"].addresses.systemConfigProxy);

  it("applies each type to its field and leaves the rest (kona system/config.rs test_system_config_update_*_log)", () => {
    let cfg = applyConfigUpdate(start, { type: "batcher", batcherAddress: fromHex("0x000000000000000000000000000000000000beef") });
    expect(to0x(cfg.batcherAddress)).toBe("0x000000000000000000000000000000000000beef");
    cfg = applyConfigUpdate(cfg, { type: "feeScalars", overhead: 0xbaben, scalar: 0xbeefn });
    cfg = applyConfigUpdate(cfg, { type: "gasLimit", gasLimit: 0xbeefn });
    cfg = applyConfigUpdate(cfg, { type: "unsafeBlockSigner", unsafeBlockSigner: new Uint8Array(20) });
    cfg = applyConfigUpdate(cfg, { type: "eip1559Params", denominator: 0xbabe, elasticity: 0xbeef });
    cfg = applyConfigUpdate(cfg, { type: "operatorFee", operatorFeeScalar: 0xbaben, operatorFeeConstant: 0xbeefn });
    cfg = applyConfigUpdate(cfg, { type: "minBaseFee", minBaseFee: 0xbeefn });
    cfg = applyConfigUpdate(cfg, { type: "daFootprintGasScalar", daFootprintGasScalar: 139n });
    expect(cfg).toEqual({
      batcherAddress: fromHex("0x000000000000000000000000000000000000beef"),
      overhead: 0xbaben,
      scalar: 0xbeefn,
      gasLimit: 0xbeefn,
      eip1559Denominator: 0xbabe,
      eip1559Elasticity: 0xbeef,
      operatorFeeScalar: 0xbaben,
      operatorFeeConstant: 0xbeefn,
      minBaseFee: 0xbeefn,
      daFootprintGasScalar: 139n,
    });
    // The input is not changed.
    expect(start.gasLimit).toBe(25_000_000n);
  });

  it("applyConfigUpdates applies decoded logs in order and skips the rest", () => {
    const logs = [
      encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 1n }, SC),
      { ...encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 2n }, SC), data: new Uint8Array(0) },
      encodeConfigUpdateLog({ type: "gasLimit", gasLimit: 3n }, SC),
      encodeConfigUpdateLog({ type: "daFootprintGasScalar", daFootprintGasScalar: 0n }, SC),
    ];
    const decoded = logs.map((l) => decodeConfigUpdateLog(l, true));
    expect(decoded[1]!.kind === "skipped" && decoded[1]!.error.code).toBe(ConfigUpdateErrorCode.BAD_DATA_LENGTH);
    const cfg = applyConfigUpdates(start, decoded);
    expect(cfg.gasLimit).toBe(3n);
    expect(cfg.daFootprintGasScalar).toBe(0n);
  });
});

describe("systemConfigAttributes (kona system/config.rs eip_1559_params tests)", () => {
  const sc: SystemConfig = { batcherAddress: new Uint8Array(20), overhead: 0n, scalar: 0n, gasLimit: 30_000_000n };

  it("test_eip_1559_params_from_system_config_none / _pre_holocene: no params before Holocene", () => {
    expect(systemConfigAttributes({ ...sc, eip1559Denominator: 1, eip1559Elasticity: 2 }, { forkTimes: {} }, 0n, 0n)).toEqual({ gasLimit: 30_000_000n });
  });

  it("test_eip_1559_params_from_system_config_some: unset elasticity reads 0", () => {
    expect(to0x(systemConfigAttributes({ ...sc, eip1559Denominator: 1 }, { forkTimes: { holocene: 0n } }, 0n, 0n).eip1559Params!)).toBe("0x0000000100000000");
  });

  it("test_eip_1559_params_from_system_config", () => {
    expect(to0x(systemConfigAttributes({ ...sc, eip1559Denominator: 1, eip1559Elasticity: 2 }, { forkTimes: { holocene: 0n } }, 0n, 0n).eip1559Params!)).toBe("0x0000000100000002");
  });

  it("test_default_eip_1559_params_from_system_config: unset params read zero", () => {
    expect(to0x(systemConfigAttributes(sc, { forkTimes: { holocene: 0n } }, 0n, 0n).eip1559Params!)).toBe("0x0000000000000000");
  });

  it("test_default_eip_1559_params_first_block_holocene: all zero on the first Holocene block", () => {
    expect(to0x(systemConfigAttributes({ ...sc, eip1559Denominator: 1, eip1559Elasticity: 2 }, { forkTimes: { holocene: 2n } }, 0n, 2n).eip1559Params!)).toBe("0x0000000000000000");
  });

  it("Jovian: the minimum base fee, 0 when never set", () => {
    const forks = { forkTimes: { holocene: 0n, jovian: 10n } };
    expect(systemConfigAttributes(sc, forks, 8n, 9n).minBaseFee).toBeUndefined();
    expect(systemConfigAttributes(sc, forks, 9n, 10n).minBaseFee).toBe(0n);
    expect(systemConfigAttributes({ ...sc, minBaseFee: 5_000_000n }, forks, 10n, 11n).minBaseFee).toBe(5_000_000n);
  });
});
