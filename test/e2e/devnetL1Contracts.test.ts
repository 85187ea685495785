/**
 * End-to-end: the local rollup's L1 contracts on a basalt node as the L1 (`basalt node` on the
 * built-in devnet, 1 s blocks, in a temp datadir) — the same tooling as on anvil, against basalt's
 * own JSON-RPC: deployment, a deposit whose log decodes to what was sent, a SystemConfig change
 * whose log decodes to the value set, a refusal reported with the contract's error (basalt's
 * `eth_estimateGas` revert data), and derivation's scans over `eth_getBlockReceipts`.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { DEVNET_ROLLUP_BATCHER_ACCOUNT, DEVNET_ROLLUP_DEPLOYER_ACCOUNT } from "../../src/devnet/constants.js";
import { configUpdatesOf, l1OriginDeposits } from "../../src/derivation/attributesL1.js";
import { DevnetErrorCode } from "../../src/devnet/errors.js";
import { deployRollupContracts, type RollupContracts } from "../../src/devnet/l1Contracts.js";
import { l1BlockReceipts } from "../../src/devnet/l1Receipt.js";
import { sendL1Deposit } from "../../src/devnet/optimismPortal.js";
import { readSystemConfig, setSystemConfig } from "../../src/devnet/systemConfigContract.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";

const accounts = devAccounts();
const deployer = accounts[DEVNET_ROLLUP_DEPLOYER_ACCOUNT]!;
const batcher = accounts[DEVNET_ROLLUP_BATCHER_ACCOUNT]!;
const user = accounts[0]!;
const bytes = (h: string): Uint8Array => hexToBytes(h as `0x${string}`);

describe("devnet L1 contracts on a basalt node (e2e)", () => {
  let datadir = "";
  let url = "";
  let contracts: RollupContracts;

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-l1contracts-");
    url = (await startNode({ datadir, args: ["--dev.block-time", "1"] })).url;
    contracts = await deployRollupContracts(url, {
      deployerKey: deployer.privateKey,
      systemConfig: { batcher: batcher.address, basefeeScalar: 1368, blobbasefeeScalar: 810_949, gasLimit: 60_000_000n, unsafeBlockSigner: deployer.address },
    });
  }, 120_000);

  afterAll(async () => {
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it("deploys both contracts with the initial SystemConfig state", async () => {
    expect(await readSystemConfig(url, contracts.systemConfig)).toMatchObject({
      owner: deployer.address.toLowerCase(),
      batcher: batcher.address.toLowerCase(),
      gasLimit: 60_000_000n,
      basefeeScalar: 1368,
      blobbasefeeScalar: 810_949,
    });
  });

  it("a deposit's log, found by l1OriginDeposits in the block's receipts, carries what was sent", async () => {
    const receipt = await sendL1Deposit(url, user.privateKey, contracts.optimismPortal, { to: accounts[1]!.address, value: 5n, mint: 10n ** 15n, gasLimit: 100_000n, data: Uint8Array.of(7) });
    const block = await l1BlockReceipts(url, receipt.blockHash);
    const found = l1OriginDeposits(block, bytes(contracts.optimismPortal), bytes(receipt.blockHash));
    expect(found.map((d) => [d.from.toString(), d.to?.toString(), d.mint, d.value, d.gasLimit, bytesToHex(d.data)])).toEqual([
      [user.address.toLowerCase(), accounts[1]!.address.toLowerCase(), 10n ** 15n, 5n, 100_000n, "0x07"],
    ]);
  });

  it("a SystemConfig change's log, found by configUpdatesOf, carries the value set; a refusal names the contract's error", async () => {
    const receipt = await setSystemConfig(url, deployer.privateKey, contracts.systemConfig, { type: "eip1559Params", denominator: 250, elasticity: 6 });
    const updates = configUpdatesOf(await l1BlockReceipts(url, receipt.blockHash), bytes(contracts.systemConfig), { forkTimes: { ecotone: 0n } }, 1n);
    expect(updates.map((u) => (u.kind === "update" ? u.update : u.error.code))).toEqual([{ type: "eip1559Params", denominator: 250, elasticity: 6 }]);
    await expect(sendL1Deposit(url, user.privateKey, contracts.optimismPortal, { to: accounts[1]!.address, isCreation: true, gasLimit: 100_000n })).rejects.toMatchObject({
      code: DevnetErrorCode.CALL_REVERTED,
      meta: { reason: expect.stringContaining("BadTarget") },
    });
    await expect(setSystemConfig(url, user.privateKey, contracts.systemConfig, { type: "minBaseFee", minBaseFee: 1n })).rejects.toMatchObject({
      code: DevnetErrorCode.CALL_REVERTED,
      meta: { reason: expect.stringContaining("caller is not the owner") },
    });
  });
});
