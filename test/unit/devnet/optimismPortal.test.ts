/**
 * The devnet OptimismPortal on a real L1 (anvil on 127.0.0.1, one per file): deployed with
 * `deployRollupContracts`, deposits from an EOA and through a contract (aliased sender), with and
 * without creation, with mint and value, and through `receive`; every `TransactionDeposited` log
 * decodes (`decodeDepositLog`) to exactly what was sent and equals `encodeDepositLog`'s log for the
 * same fields; the portal's refusals revert; and derivation's `l1OriginDeposits` over a block with
 * two deposits and an unrelated log gives the deposits with block-wide log indexes.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { createContract } from "micro-eth-signer/abi.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../../bench/scenario/anvil.js";
import { decodeDepositLog, encodeDepositLog, type DepositLogFields } from "../../../src/chain/op/depositLog.js";
import type { DepositTransaction } from "../../../src/chain/op/depositTx.js";
import { userDepositSourceHash } from "../../../src/chain/op/sourceHash.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { DEVNET_ROLLUP_BATCHER_ACCOUNT, DEVNET_ROLLUP_DEPLOYER_ACCOUNT } from "../../../src/devnet/constants.js";
import { l1OriginDeposits } from "../../../src/derivation/attributesL1.js";
import { applyL1ToL2Alias } from "../../../src/devnet/aliasing.js";
import { compileSolidity } from "../../../src/devnet/contracts/compile.js";
import { DevnetError, DevnetErrorCode } from "../../../src/devnet/errors.js";
import { deployRollupContracts, type RollupContracts } from "../../../src/devnet/l1Contracts.js";
import { l1BlockReceipts, type L1ReceiptLog, type L1TxReceipt } from "../../../src/devnet/l1Receipt.js";
import { sendL1Transaction, submitL1Transaction, successfulL1Receipt } from "../../../src/devnet/l1Tx.js";
import { depositTransactionCalldata, MAX_DEPOSIT_DATA_BYTES, sendL1Deposit, type L1Deposit } from "../../../src/devnet/optimismPortal.js";
import { setSystemConfig } from "../../../src/devnet/systemConfigContract.js";
import { HttpRpcClient } from "../../../src/util/rpcClient.js";
import { waitUntil } from "../../helpers/poll.js";

/** A contract that calls `target` with its calldata and value, bubbling a revert: deposits made by a contract. */
const FORWARDER_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract Forwarder {
    function forward(address target, bytes calldata data) external payable {
        (bool ok, bytes memory ret) = target.call{value: msg.value}(data);
        if (!ok) assembly { revert(add(ret, 32), mload(ret)) }
    }
}
`;

const accounts = devAccounts();
const user = accounts[0]!;
const deployer = accounts[DEVNET_ROLLUP_DEPLOYER_ACCOUNT]!;
const batcher = accounts[DEVNET_ROLLUP_BATCHER_ACCOUNT]!;
const ETHER = 10n ** 18n;

let anvil: AnvilNode;
let rpc: HttpRpcClient;
let contracts: RollupContracts;
let forwarder: string;
const forwarderAbi = compileSolidity({ "Forwarder.sol": FORWARDER_SOURCE }).Forwarder!;
const forwarderContract = createContract(forwarderAbi.abi as never) as unknown as Record<string, { encodeInput(args: unknown): Uint8Array }>;

beforeAll(async () => {
  anvil = await startAnvil();
  rpc = new HttpRpcClient(anvil.url);
  await rpc.call("evm_setAutomine", [true]);
  contracts = await deployRollupContracts(anvil.url, {
    deployerKey: deployer.privateKey,
    systemConfig: { batcher: batcher.address, basefeeScalar: 1368, blobbasefeeScalar: 810_949, gasLimit: 60_000_000n, unsafeBlockSigner: deployer.address },
  });
  const created = await sendL1Transaction(rpc, user.privateKey, { data: hexToBytes(forwarderAbi.bytecode as `0x${string}`) });
  forwarder = created.contractAddress!;
}, 120_000);

afterAll(async () => {
  rpc?.close();
  await anvil?.stop();
});

/** The portal's logs of `receipt`. */
function portalLogs(receipt: L1TxReceipt): L1ReceiptLog[] {
  return receipt.logs.filter((l) => bytesToHex(l.address) === contracts.optimismPortal);
}

/** The one deposit of `receipt`, decoded, after checking that re-encoding its fields gives the same log. */
function onlyDeposit(receipt: L1TxReceipt): DepositTransaction {
  const logs = portalLogs(receipt);
  expect(logs).toHaveLength(1);
  const log = logs[0]!;
  const tx = decodeDepositLog(log, hexToBytes(receipt.blockHash as `0x${string}`), log.logIndex);
  const fields: DepositLogFields = { from: tx.from, to: tx.to, mint: tx.mint, value: tx.value, gasLimit: tx.gasLimit, data: tx.data };
  const encoded = encodeDepositLog(fields, log.address);
  expect(encoded.topics.map(bytesToHex)).toEqual(log.topics.map(bytesToHex));
  expect(bytesToHex(encoded.data)).toBe(bytesToHex(log.data));
  expect(bytesToHex(tx.sourceHash)).toBe(bytesToHex(userDepositSourceHash(hexToBytes(receipt.blockHash as `0x${string}`), log.logIndex)));
  expect(tx.isSystemTx).toBe(false);
  return tx;
}

/** The fields of a decoded deposit, addresses as lowercase hex. */
function fieldsOf(tx: DepositTransaction): Record<string, unknown> {
  return { from: tx.from.toString(), to: tx.to?.toString(), mint: tx.mint, value: tx.value, gasLimit: tx.gasLimit, data: bytesToHex(tx.data) };
}

/** Sends `deposit` through the forwarder contract (so the portal sees a contract caller). */
function depositThroughContract(deposit: L1Deposit): Promise<L1TxReceipt> {
  const data = forwarderContract.forward!.encodeInput({ target: contracts.optimismPortal, data: depositTransactionCalldata(deposit) });
  return sendL1Transaction(rpc, user.privateKey, { to: forwarder, data, value: deposit.mint ?? 0n });
}

describe("OptimismPortal deposits", () => {
  it("deploys both contracts, reporting the block from which both exist", async () => {
    for (const address of [contracts.optimismPortal, contracts.systemConfig]) {
      const code = await rpc.call<string>("eth_getCode", [address, `0x${contracts.deployedAt.number.toString(16)}`]);
      expect(code.length).toBeGreaterThan(2);
    }
    const block = await rpc.call<{ hash: string }>("eth_getBlockByNumber", [`0x${contracts.deployedAt.number.toString(16)}`, false]);
    expect(block.hash).toBe(contracts.deployedAt.hash);
  });

  it("an EOA's call deposit: every field as sent, sender not aliased", async () => {
    const deposit = { to: accounts[3]!.address, value: 7n * ETHER, mint: 2n * ETHER + 5n, gasLimit: 250_000n, data: Uint8Array.of(0xde, 0xad, 0xbe, 0xef) };
    const receipt = await sendL1Deposit(anvil.url, user.privateKey, contracts.optimismPortal, deposit);
    expect(fieldsOf(onlyDeposit(receipt))).toEqual({
      from: user.address.toLowerCase(),
      to: deposit.to.toLowerCase(),
      mint: deposit.mint,
      value: deposit.value,
      gasLimit: deposit.gasLimit,
      data: "0xdeadbeef",
    });
    // The mint stays locked in the portal.
    expect(BigInt(await rpc.call<string>("eth_getBalance", [contracts.optimismPortal, "latest"]))).toBeGreaterThanOrEqual(deposit.mint);
  });

  it("an EOA's creation deposit: no recipient, the init code as data", async () => {
    const initCode = hexToBytes("0x600a600c600039600a6000f3602a60005260206000f3");
    const deposit = { isCreation: true, mint: 1n, value: 0n, gasLimit: 1_000_000n, data: initCode };
    const tx = onlyDeposit(await sendL1Deposit(rpc, user.privateKey, contracts.optimismPortal, deposit));
    expect(fieldsOf(tx)).toEqual({ from: user.address.toLowerCase(), to: undefined, mint: 1n, value: 0n, gasLimit: 1_000_000n, data: bytesToHex(initCode) });
  });

  it("a contract's deposits come from its alias (call and creation)", async () => {
    const alias = applyL1ToL2Alias(forwarder);
    expect(alias).not.toBe(forwarder);
    const call = { to: accounts[4]!.address, value: 3n, mint: ETHER, gasLimit: 21_000n + 16n * 3n, data: Uint8Array.of(1, 2, 3) };
    expect(fieldsOf(onlyDeposit(await depositThroughContract(call)))).toEqual({
      from: alias,
      to: call.to.toLowerCase(),
      mint: ETHER,
      value: 3n,
      gasLimit: call.gasLimit,
      data: "0x010203",
    });
    const creation = { isCreation: true, value: 0n, mint: 0n, gasLimit: 500_000n, data: Uint8Array.of(0x60, 0x00) };
    expect(fieldsOf(onlyDeposit(await depositThroughContract(creation)))).toMatchObject({ from: alias, to: undefined, data: "0x6000", gasLimit: 500_000n });
  });

  it("ether sent to the portal deposits it to the sender with the default 100,000 gas (aliased from a contract)", async () => {
    const fromEoa = await sendL1Transaction(rpc, user.privateKey, { to: contracts.optimismPortal, data: new Uint8Array(), value: 42n });
    const addr = user.address.toLowerCase();
    expect(fieldsOf(onlyDeposit(fromEoa))).toEqual({ from: addr, to: addr, mint: 42n, value: 42n, gasLimit: 100_000n, data: "0x" });
    const viaContract = await sendL1Transaction(rpc, user.privateKey, {
      to: forwarder,
      data: forwarderContract.forward!.encodeInput({ target: contracts.optimismPortal, data: new Uint8Array() }),
      value: 9n,
    });
    expect(fieldsOf(onlyDeposit(viaContract))).toEqual({ from: applyL1ToL2Alias(forwarder), to: forwarder, mint: 9n, value: 9n, gasLimit: 100_000n, data: "0x" });
  });

  it("refuses a creation with a target, a gas limit below 21,000 + 16 per byte, and calldata over 120,000 bytes", async () => {
    const refusal = (deposit: L1Deposit) => sendL1Deposit(rpc, user.privateKey, contracts.optimismPortal, deposit);
    await expect(refusal({ to: accounts[1]!.address, isCreation: true, gasLimit: 100_000n, data: Uint8Array.of(0x60) })).rejects.toMatchObject({
      code: DevnetErrorCode.CALL_REVERTED,
      meta: { reason: expect.stringContaining("BadTarget") },
    });
    // 4 bytes: the minimum is 21,064; one gas below is refused, the minimum itself is accepted.
    await expect(refusal({ to: accounts[1]!.address, gasLimit: 21_063n, data: new Uint8Array(4) })).rejects.toMatchObject({
      code: DevnetErrorCode.CALL_REVERTED,
      meta: { reason: expect.stringContaining("SmallGasLimit") },
    });
    expect(onlyDeposit(await refusal({ to: accounts[1]!.address, gasLimit: 21_064n, data: new Uint8Array(4) })).gasLimit).toBe(21_064n);
    await expect(refusal({ to: accounts[1]!.address, gasLimit: 30_000_000n, data: new Uint8Array(MAX_DEPOSIT_DATA_BYTES + 1) })).rejects.toMatchObject({
      code: DevnetErrorCode.CALL_REVERTED,
      meta: { reason: expect.stringContaining("LargeCalldata") },
    });
    // Through a contract the refusal is the same; sent without an estimate, it is a reverted transaction.
    await expect(depositThroughContract({ to: accounts[1]!.address, isCreation: true, gasLimit: 100_000n })).rejects.toMatchObject({ code: DevnetErrorCode.CALL_REVERTED });
    const reverted = sendL1Deposit(rpc, user.privateKey, contracts.optimismPortal, { to: accounts[1]!.address, gasLimit: 100n }, { l1GasLimit: 200_000n });
    await expect(reverted).rejects.toBeInstanceOf(DevnetError);
    await expect(reverted).rejects.toMatchObject({ code: DevnetErrorCode.TX_REVERTED });
  });

  it("l1OriginDeposits over a block with two deposits and an unrelated log: the deposits, with block-wide log indexes", async () => {
    await rpc.call("evm_setAutomine", [false]);
    let hashes: string[];
    try {
      const first = await submitL1Transaction(rpc, user.privateKey, {
        to: contracts.optimismPortal,
        data: depositTransactionCalldata({ to: accounts[5]!.address, value: 1n, gasLimit: 50_000n }),
        value: 11n,
      });
      // The unrelated log: a ConfigUpdate of the SystemConfig, between the two deposits.
      const unrelated = setSystemConfig(rpc, deployer.privateKey, contracts.systemConfig, { type: "gasLimit", gasLimit: 45_000_000n }, { receiptTimeoutMs: 30_000 });
      await waitForPending(2);
      const second = await submitL1Transaction(rpc, accounts[1]!.privateKey, {
        to: contracts.optimismPortal,
        data: depositTransactionCalldata({ isCreation: true, gasLimit: 90_000n, data: Uint8Array.of(0x00) }),
      });
      await rpc.call("evm_mine", []);
      const config = await unrelated;
      hashes = [first.hash, config.transactionHash, second.hash];
    } finally {
      await rpc.call("evm_setAutomine", [true]);
    }
    const receipts = await Promise.all(hashes.map((h) => successfulL1Receipt(rpc, h)));
    const blockHash = receipts[0]!.blockHash;
    expect(receipts.every((r) => r.blockHash === blockHash)).toBe(true);
    const bh = hexToBytes(blockHash as `0x${string}`);
    const blockReceipts = await l1BlockReceipts(rpc, blockHash);
    // Equal tips: anvil orders the block by arrival, so the unrelated log sits between the deposits.
    expect(blockReceipts.map((r) => r.transactionHash)).toEqual(hashes);
    expect(blockReceipts.map((r) => r.logs.map((l) => l.logIndex))).toEqual([[0], [1], [2]]);

    const deposits = l1OriginDeposits(blockReceipts, hexToBytes(contracts.optimismPortal as `0x${string}`), bh);
    expect(deposits.map(fieldsOf)).toEqual([
      { from: user.address.toLowerCase(), to: accounts[5]!.address.toLowerCase(), mint: 11n, value: 1n, gasLimit: 50_000n, data: "0x" },
      { from: accounts[1]!.address.toLowerCase(), to: undefined, mint: 0n, value: 0n, gasLimit: 90_000n, data: "0x00" },
    ]);
    // Source hashes over the block-wide indexes 0 and 2 (the ConfigUpdate log counts).
    expect(deposits.map((d) => bytesToHex(d.sourceHash))).toEqual([bytesToHex(userDepositSourceHash(bh, 0)), bytesToHex(userDepositSourceHash(bh, 2))]);
  });
});

/** Waits until anvil's pool holds `n` pending transactions (the setter is sent asynchronously). */
async function waitForPending(n: number): Promise<void> {
  await waitUntil(`anvil's pool to hold ${n} pending transactions`, 5_000, async () => BigInt((await rpc.call<{ pending: string }>("txpool_status", [])).pending) >= BigInt(n));
}
