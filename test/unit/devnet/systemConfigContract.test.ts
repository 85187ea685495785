/**
 * The devnet SystemConfig on a real L1 (anvil on 127.0.0.1, one per file): its constructor state is
 * the rollup's genesis system config; each setter (update types 0–7) emits a `ConfigUpdate` log
 * that `decodeConfigUpdateLog` (Ecotone active) decodes to exactly the value set, that equals
 * `encodeConfigUpdateLog`'s log, and that derivation's `configUpdatesOf` finds; the getters follow;
 * a non-owner and out-of-bounds values are refused; a transaction the L1 never includes times out
 * with a typed error.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../../bench/scenario/anvil.js";
import { decodeConfigUpdateLog, encodeConfigUpdateLog, type ConfigUpdate } from "../../../src/chain/op/configUpdate.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { applyConfigUpdates, genesisSystemConfig } from "../../../src/chain/op/systemConfig.js";
import { DEVNET_ROLLUP_BATCHER_ACCOUNT, DEVNET_ROLLUP_DEPLOYER_ACCOUNT, DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT } from "../../../src/devnet/constants.js";
import { configUpdatesOf } from "../../../src/derivation/attributesL1.js";
import { DevnetErrorCode } from "../../../src/devnet/errors.js";
import { deployRollupContracts, type RollupContracts } from "../../../src/devnet/l1Contracts.js";
import { l1BlockReceipts, type L1TxReceipt } from "../../../src/devnet/l1Receipt.js";
import { submitL1Transaction, waitForL1Receipt } from "../../../src/devnet/l1Tx.js";
import { configUpdateOfSetting, readSystemConfig, setSystemConfig, type SystemConfigSetting } from "../../../src/devnet/systemConfigContract.js";
import { derivationSystemConfig, ecotoneSystemConfigScalar, rollupGenesisSystemConfig, type SystemConfigInit } from "../../../src/devnet/systemConfigInit.js";
import { HttpRpcClient } from "../../../src/util/rpcClient.js";

const accounts = devAccounts();
const owner = accounts[DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT]!;
const deployer = accounts[DEVNET_ROLLUP_DEPLOYER_ACCOUNT]!;
const batcher = accounts[DEVNET_ROLLUP_BATCHER_ACCOUNT]!;
const stranger = accounts[2]!;
/** Ecotone active from L1 time 0 (the decoder's rule for fee scalars). */
const ECOTONE = { forkTimes: { ecotone: 0n } } as const;

const INIT: SystemConfigInit = {
  batcher: batcher.address,
  basefeeScalar: 1368,
  blobbasefeeScalar: 810_949,
  gasLimit: 60_000_000n,
  unsafeBlockSigner: accounts[7]!.address,
  eip1559Denominator: 250,
  eip1559Elasticity: 6,
  operatorFeeScalar: 3n,
  operatorFeeConstant: 4n,
  minBaseFee: 1_000_000n,
  daFootprintGasScalar: 400n,
};

let anvil: AnvilNode;
let rpc: HttpRpcClient;
let contracts: RollupContracts;

beforeAll(async () => {
  anvil = await startAnvil();
  rpc = new HttpRpcClient(anvil.url);
  await rpc.call("evm_setAutomine", [true]);
  contracts = await deployRollupContracts(rpc, { deployerKey: deployer.privateKey, systemConfigOwner: owner.address, systemConfig: INIT });
}, 120_000);

afterAll(async () => {
  rpc?.close();
  await anvil?.stop();
});

const addr = (a: string): Uint8Array => hexToBytes(a as `0x${string}`);

/** The one ConfigUpdate of `receipt`, decoded under Ecotone rules, after checking it equals the encoder's log of `update`. */
function onlyUpdate(receipt: L1TxReceipt, update: ConfigUpdate): ConfigUpdate {
  const logs = receipt.logs.filter((l) => bytesToHex(l.address) === contracts.systemConfig);
  expect(logs).toHaveLength(1);
  const log = logs[0]!;
  const encoded = encodeConfigUpdateLog(update, addr(contracts.systemConfig));
  expect(encoded.topics.map(bytesToHex)).toEqual(log.topics.map(bytesToHex));
  expect(bytesToHex(encoded.data)).toBe(bytesToHex(log.data));
  const decoded = decodeConfigUpdateLog(log, true);
  if (decoded.kind !== "update") throw decoded.error;
  // What derivation's scan of the receipt finds is the same update, with its block-wide log index.
  expect(configUpdatesOf([receipt], addr(contracts.systemConfig), ECOTONE, 1n)).toEqual([{ ...decoded, logIndex: log.logIndex }]);
  return decoded.update;
}

describe("SystemConfig", () => {
  it("starts in the state of its initial values, which is the rollup's genesis system config, each value announced by a ConfigUpdate", async () => {
    const state = await readSystemConfig(rpc, contracts.systemConfig);
    expect(state).toEqual({
      ...INIT,
      batcher: batcher.address.toLowerCase(),
      unsafeBlockSigner: accounts[7]!.address.toLowerCase(),
      owner: owner.address.toLowerCase(),
      batcherHash: `0x${"00".repeat(12)}${batcher.address.slice(2).toLowerCase()}`,
      overhead: 0n,
      scalar: (1n << 248n) | (810_949n << 32n) | 1368n,
    });
    expect(genesisSystemConfig(rollupGenesisSystemConfig(INIT))).toEqual({
      batcherAddress: addr(batcher.address),
      overhead: 0n,
      scalar: state.scalar,
      gasLimit: state.gasLimit,
    });
    // The deployment's ConfigUpdates (in the block of the SystemConfig's creation), applied by derivation, give the same config.
    const updates = configUpdatesOf(await l1BlockReceipts(rpc, contracts.deployedAt.hash), addr(contracts.systemConfig), ECOTONE, 1n);
    expect(updates.map((u) => (u.kind === "update" ? u.update.type : u.error.code))).toEqual([
      "batcher",
      "feeScalars",
      "gasLimit",
      "unsafeBlockSigner",
      "eip1559Params",
      "operatorFee",
      "minBaseFee",
      "daFootprintGasScalar",
    ]);
    const blank = { batcherAddress: new Uint8Array(20), overhead: 0n, scalar: 0n, gasLimit: 0n };
    expect(applyConfigUpdates(blank, updates)).toEqual(derivationSystemConfig(INIT));
  });

  const settings: { setting: SystemConfigSetting; update: ConfigUpdate; getter: Record<string, unknown> }[] = [
    {
      setting: { type: "batcher", batcherAddress: addr(accounts[6]!.address) },
      update: { type: "batcher", batcherAddress: addr(accounts[6]!.address) },
      getter: { batcher: accounts[6]!.address.toLowerCase() },
    },
    {
      setting: { type: "feeScalars", basefeeScalar: 0xabcdef, blobbasefeeScalar: 0xffffffff },
      update: { type: "feeScalars", overhead: 0n, scalar: 0x010000000000000000000000000000000000000000000000ffffffff00abcdefn },
      getter: { basefeeScalar: 0xabcdef, blobbasefeeScalar: 0xffffffff, scalar: ecotoneSystemConfigScalar(0xabcdef, 0xffffffff) },
    },
    { setting: { type: "gasLimit", gasLimit: 150_000_000n }, update: { type: "gasLimit", gasLimit: 150_000_000n }, getter: { gasLimit: 150_000_000n } },
    {
      setting: { type: "unsafeBlockSigner", unsafeBlockSigner: addr(accounts[5]!.address) },
      update: { type: "unsafeBlockSigner", unsafeBlockSigner: addr(accounts[5]!.address) },
      getter: { unsafeBlockSigner: accounts[5]!.address.toLowerCase() },
    },
    {
      setting: { type: "eip1559Params", denominator: 50, elasticity: 0xfffffffe },
      update: { type: "eip1559Params", denominator: 50, elasticity: 0xfffffffe },
      getter: { eip1559Denominator: 50, eip1559Elasticity: 0xfffffffe },
    },
    {
      setting: { type: "operatorFee", operatorFeeScalar: 0xffffffffn, operatorFeeConstant: (1n << 64n) - 1n },
      update: { type: "operatorFee", operatorFeeScalar: 0xffffffffn, operatorFeeConstant: (1n << 64n) - 1n },
      getter: { operatorFeeScalar: 0xffffffffn, operatorFeeConstant: (1n << 64n) - 1n },
    },
    { setting: { type: "minBaseFee", minBaseFee: 123_456_789n }, update: { type: "minBaseFee", minBaseFee: 123_456_789n }, getter: { minBaseFee: 123_456_789n } },
    {
      setting: { type: "daFootprintGasScalar", daFootprintGasScalar: 0xffffn },
      update: { type: "daFootprintGasScalar", daFootprintGasScalar: 0xffffn },
      getter: { daFootprintGasScalar: 0xffffn },
    },
  ];

  it.each(settings)("setter $setting.type: the log decodes to the value set and equals the encoder's log; the getter follows", async ({ setting, update, getter }) => {
    expect(configUpdateOfSetting(setting)).toEqual(update);
    const receipt = await setSystemConfig(anvil.url, owner.privateKey, contracts.systemConfig, setting);
    expect(onlyUpdate(receipt, update)).toEqual(update);
    expect(await readSystemConfig(rpc, contracts.systemConfig)).toMatchObject(getter);
  });

  it("refuses a non-owner, and values out of the contract's bounds", async () => {
    for (const setting of settings.map((s) => s.setting)) {
      await expect(setSystemConfig(rpc, stranger.privateKey, contracts.systemConfig, setting)).rejects.toMatchObject({
        code: DevnetErrorCode.CALL_REVERTED,
        meta: { reason: expect.stringContaining("caller is not the owner") },
      });
    }
    const refused = (setting: SystemConfigSetting) => setSystemConfig(rpc, owner.privateKey, contracts.systemConfig, setting);
    await expect(refused({ type: "gasLimit", gasLimit: 20_999_999n })).rejects.toMatchObject({ meta: { reason: expect.stringContaining("gas limit too low") } });
    await expect(refused({ type: "gasLimit", gasLimit: 500_000_001n })).rejects.toMatchObject({ meta: { reason: expect.stringContaining("gas limit too high") } });
    await expect(refused({ type: "eip1559Params", denominator: 0, elasticity: 6 })).rejects.toMatchObject({ meta: { reason: expect.stringContaining("denominator") } });
    await expect(refused({ type: "eip1559Params", denominator: 250, elasticity: 0 })).rejects.toMatchObject({ meta: { reason: expect.stringContaining("elasticity") } });
    // Sent anyway (no estimate), the non-owner's call is a reverted transaction.
    await expect(setSystemConfig(rpc, stranger.privateKey, contracts.systemConfig, { type: "minBaseFee", minBaseFee: 1n }, { l1GasLimit: 100_000n })).rejects.toMatchObject({
      code: DevnetErrorCode.TX_REVERTED,
    });
    // Values that do not fit the setter's types never reach the L1.
    await expect(refused({ type: "daFootprintGasScalar", daFootprintGasScalar: 1n << 16n })).rejects.toMatchObject({ code: DevnetErrorCode.INVALID_ARGUMENT });
    await expect(refused({ type: "feeScalars", basefeeScalar: -1, blobbasefeeScalar: 0 })).rejects.toMatchObject({ code: DevnetErrorCode.INVALID_ARGUMENT });
  });

  it("a deployment with half-set EIP-1559 parameters is refused before anything is sent", async () => {
    await expect(
      deployRollupContracts(rpc, { deployerKey: deployer.privateKey, systemConfig: { ...INIT, eip1559Denominator: 250, eip1559Elasticity: 0 } }),
    ).rejects.toMatchObject({ code: DevnetErrorCode.INVALID_ARGUMENT });
  });

  it("a transaction the L1 does not include times out with DEVNET_L1_RECEIPT_TIMEOUT", async () => {
    await rpc.call("evm_setAutomine", [false]);
    try {
      const sent = await submitL1Transaction(rpc, stranger.privateKey, { to: stranger.address, data: new Uint8Array() });
      await expect(waitForL1Receipt(rpc, sent.hash, { receiptTimeoutMs: 300, pollIntervalMs: 50 })).rejects.toMatchObject({
        code: DevnetErrorCode.RECEIPT_TIMEOUT,
        meta: { txHash: sent.hash, timeoutMs: 300 },
      });
      await rpc.call("evm_mine", []);
      expect((await waitForL1Receipt(rpc, sent.hash)).status).toBe(1);
    } finally {
      await rpc.call("evm_setAutomine", [true]);
    }
  });
});
