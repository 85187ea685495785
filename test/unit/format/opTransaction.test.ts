/**
 * OP-flavoured transaction JSON: deposits (type 0x7e) exactly as op-reth (base-reth-node) serves them,
 * and non-deposit transactions on OP chains in op-reth's form. Built on the real Base mainnet block
 * 21713817 transactions from shared/fixtures/op/op-fee-vectors.json (`l1_cost_real`).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Block, createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createLegacyTx, createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { DepositTransaction } from "../../../src/chain/op/depositTx.js";
import { opConfigFromGenesisConfig, type OpChainConfig } from "../../../src/chain/op/forks.js";
import type { StoredReceipt } from "../../../src/storage/types.js";
import { effectiveGasPrice, formatBlock, formatTransaction, toData, type RpcTransaction } from "../../../src/chain/json/index.js";
import { fromHex } from "../../../src/util/bytes.js";
import { allForksGenesis } from "../../helpers/opFixtures.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
interface RealVector {
  chain: string;
  block: number;
  timestamp?: number;
  txHash: string;
  rawTx: string;
  l1InfoDepositRaw?: string;
  l1InfoDepositHash?: string;
}
const VECTORS_FILE = path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json");
const VECTORS = JSON.parse(readFileSync(VECTORS_FILE, "utf8")) as { l1_cost_real: RealVector[] };
const BASE = VECTORS.l1_cost_real.find((v) => v.chain === "Base Mainnet" && v.block === 21713817)!;

/** A small OP genesis: every OP fork (and so every mapped Ethereum fork) at 0, Base mainnet's chain id. */
const GENESIS: GenesisJson = allForksGenesis();
const COMMON: Common = commonFromGenesis(GENESIS, "op-format-test");
const OP: OpChainConfig = opConfigFromGenesisConfig(GENESIS.config)!;

/** Base fee of the test header (any value below the tx's fee cap). */
const BASE_FEE = 5_000_000n;
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
/** The sender recovered from the fixture's user transaction signature. */
const USER_SENDER = "0xd5ea3c0ccc172d4022af3fd39a7ef8a0a2f3a54a";

const deposit = DepositTransaction.fromSerialized(fromHex(BASE.l1InfoDepositRaw!));
const userTx = createTxFromRLP(fromHex(BASE.rawTx), { common: COMMON });
/** The L1-info calldata: field 7 of the deposit's RLP list. */
const depositInput = toData((RLP.decode(fromHex(BASE.l1InfoDepositRaw!).subarray(1)) as Uint8Array[])[7]!);

function opBlock(txs: (TypedTransaction | DepositTransaction)[]): Block {
  const fields = { number: BigInt(BASE.block), timestamp: BigInt(BASE.timestamp!), baseFeePerGas: BASE_FEE, gasLimit: 30_000_000n };
  const header = createBlockHeader(fields, { common: COMMON });
  return new Block(header, txs as never, [], [], { common: COMMON });
}

const block = opBlock([deposit, userTx]);
const blockHash = toData(block.hash());
const senders = [deposit.from.bytes, userTx.getSenderAddress().bytes];
const receipts: StoredReceipt[] = [
  { type: 0x7e, status: 1, cumulativeGasUsed: 43_887n, logs: [], bloom: new Uint8Array(256), depositNonce: 21_713_816n, depositReceiptVersion: 1 },
  { type: 2, status: 1, cumulativeGasUsed: 43_887n + 26_000n, logs: [], bloom: new Uint8Array(256) },
];

function minedCtx(index: number, receipt?: StoredReceipt) {
  return {
    blockHash: block.hash(),
    blockNumber: block.header.number,
    blockTimestamp: block.header.timestamp,
    index,
    baseFee: BASE_FEE,
    sender: senders[index]!,
    receipt,
  };
}

/** op-reth's JSON of the fixture's L1-info deposit at index 0 with its receipt (nonce 21713816, version 1). */
const EXPECTED_DEPOSIT = {
  type: "0x7e",
  sourceHash: "0x389e292420bcbf9330741f72074e39562a09ff5a00fd22e4e9eee7e34b81bca4",
  from: L1_INFO_DEPOSITOR,
  to: L1_BLOCK,
  mint: "0x0",
  value: "0x0",
  gas: "0xf4240",
  input: depositInput,
  hash: BASE.l1InfoDepositHash!,
  r: "0x0",
  s: "0x0",
  yParity: "0x0",
  v: "0x0",
  blockHash,
  blockNumber: "0x14b5399",
  transactionIndex: "0x0",
  depositReceiptVersion: "0x1",
  gasPrice: "0x0",
  nonce: "0x14b5398",
};

/** op-reth's JSON of the fixture's EIP-1559 user transaction at index 1. */
const EXPECTED_USER_OP = {
  type: "0x2",
  chainId: "0x2105",
  nonce: "0x0",
  gas: "0x21528",
  maxFeePerGas: "0x9a4ae2",
  maxPriorityFeePerGas: "0x34",
  to: "0x2f16386bb37709016023232523ff6d9daf444be3",
  value: "0x0",
  accessList: [],
  input: "0x1249c58b",
  r: "0x1b927eda2af9b00b52a57be0885e0303c39dd2831732e14051c2336470fd468",
  s: "0x681bf120baf562915841a48601c2b54a6742511e535cf8f71c95115af7ff63bd",
  yParity: "0x0",
  v: "0x0",
  hash: BASE.txHash,
  blockHash,
  blockNumber: "0x14b5399",
  transactionIndex: "0x1",
  from: USER_SENDER,
  // min(maxFeePerGas, baseFee + tip) = 5_000_000 + 52
  gasPrice: "0x4c4b74",
};

describe("deposit transactions (op-reth JSON)", () => {
  it("formats the real Base L1-info deposit with every key, in op-reth's order", () => {
    expect(toData(deposit.hash())).toBe(BASE.l1InfoDepositHash);
    const json = formatTransaction(deposit, minedCtx(0, receipts[0]), undefined, { op: OP });
    expect(Object.keys(json)).toEqual(Object.keys(EXPECTED_DEPOSIT));
    expect(json).toEqual(EXPECTED_DEPOSIT);
    expect(JSON.stringify(json)).toBe(JSON.stringify(EXPECTED_DEPOSIT));
  });

  it("is op-reth's deposit form even without the OP option, and needs no sender", () => {
    const noSender = { ...minedCtx(0, receipts[0]), sender: undefined as unknown as Uint8Array };
    expect(JSON.stringify(formatTransaction(deposit, noSender))).toBe(JSON.stringify(EXPECTED_DEPOSIT));
  });

  it("omits nonce and depositReceiptVersion when the receipt is unknown or pre-Regolith/Canyon", () => {
    const json = formatTransaction(deposit, minedCtx(0), undefined, { op: OP });
    expect("nonce" in json).toBe(false);
    expect("depositReceiptVersion" in json).toBe(false);
    const pre = formatTransaction(deposit, minedCtx(0, { ...receipts[0]!, depositReceiptVersion: undefined }), undefined, { op: OP });
    expect(Object.keys(pre).slice(-2)).toEqual(["gasPrice", "nonce"]);
    expect("depositReceiptVersion" in pre).toBe(false);
  });

  it("omits `to` for a creation and reports isSystemTx only when true", () => {
    const creation = new DepositTransaction({
      sourceHash: new Uint8Array(32).fill(7),
      from: new Address(fromHex("0x1111111111111111111111111111111111111111")),
      mint: 10n ** 18n,
      value: 5n,
      gasLimit: 150_000_000n,
      isSystemTx: true,
      data: fromHex("0x6000"),
    });
    const json = formatTransaction(creation, minedCtx(0, { ...receipts[0]!, depositNonce: 3n }), undefined, { op: OP });
    expect(Object.keys(json)).toEqual([
      "type", "sourceHash", "from", "mint", "value", "gas", "isSystemTx", "input", "hash", "r", "s", "yParity", "v",
      "blockHash", "blockNumber", "transactionIndex", "depositReceiptVersion", "gasPrice", "nonce",
    ]);
    expect(json.mint).toBe("0xde0b6b3a7640000");
    expect(json.value).toBe("0x5");
    expect(json.gas).toBe("0x8f0d180");
    expect(json.isSystemTx).toBe("0x1");
    expect(json.nonce).toBe("0x3");
    expect(deposit.isSystemTx).toBe(false);
    expect("isSystemTx" in formatTransaction(deposit, minedCtx(0), undefined, { op: OP })).toBe(false);
  });

  it("pays an effective gas price of 0", () => {
    expect(effectiveGasPrice(deposit, BASE_FEE)).toBe(0n);
  });
});

describe("non-deposit transactions on OP chains (op-reth JSON)", () => {
  it("formats the real Base EIP-1559 transaction in op-reth's key order, without blockTimestamp", () => {
    expect(toData(userTx.hash())).toBe(BASE.txHash);
    expect(toData(userTx.getSenderAddress().bytes)).toBe(USER_SENDER);
    const json = formatTransaction(userTx, minedCtx(1), undefined, { op: OP });
    expect(Object.keys(json)).toEqual(Object.keys(EXPECTED_USER_OP));
    expect(JSON.stringify(json)).toBe(JSON.stringify(EXPECTED_USER_OP));
  });

  it("keeps geth's form for the same transaction on a plain Ethereum chain", () => {
    const json = formatTransaction(userTx, minedCtx(1));
    expect(Object.keys(json).slice(0, 4)).toEqual(["blockHash", "blockNumber", "blockTimestamp", "from"]);
    expect(json.blockTimestamp).toBe("0x67210415");
    // Same values, other order.
    const { blockTimestamp: _ts, ...rest } = json;
    void _ts;
    expect(rest).toEqual(EXPECTED_USER_OP);
  });

  it("formats pending transactions with null block fields and maxFeePerGas as gasPrice", () => {
    const json = formatTransaction(userTx, null, senders[1], { op: OP }) as RpcTransaction;
    expect(json.blockHash).toBeNull();
    expect(json.blockNumber).toBeNull();
    expect(json.transactionIndex).toBeNull();
    expect("blockTimestamp" in json).toBe(false);
    expect(json.gasPrice).toBe("0x9a4ae2");
    expect(Object.keys(json).slice(-5)).toEqual(["blockHash", "blockNumber", "transactionIndex", "from", "gasPrice"]);
  });

  it("puts a legacy transaction's own gasPrice first and has no yParity (EIP-155 v)", () => {
    const key = new Uint8Array(32).fill(0x42);
    const fields = { nonce: 9n, gasPrice: 7n, gasLimit: 21_000n, to: new Uint8Array(20).fill(1), value: 3n };
    const legacy = createLegacyTx(fields, { common: COMMON }).sign(key);
    const json = formatTransaction(legacy, { ...minedCtx(1), sender: legacy.getSenderAddress().bytes }, undefined, { op: OP });
    expect(Object.keys(json)).toEqual([
      "type", "chainId", "nonce", "gasPrice", "gas", "to", "value", "input", "r", "s", "v", "hash",
      "blockHash", "blockNumber", "transactionIndex", "from",
    ]);
    expect(json.type).toBe("0x0");
    expect(json.chainId).toBe("0x2105");
    expect(json.gasPrice).toBe("0x7");
    // EIP-155: v = chainId * 2 + 35 + parity
    expect([8453n * 2n + 35n, 8453n * 2n + 36n]).toContain(BigInt(json.v));
  });
});

describe("blocks with full transactions on OP chains", () => {
  it("formats the deposit with its receipt's nonce and the user tx in op-reth's form", () => {
    const json = formatBlock(block, { fullTransactions: true, senders, receipts, op: OP });
    const txs = json.transactions as RpcTransaction[];
    expect(JSON.stringify(txs[0])).toBe(JSON.stringify(EXPECTED_DEPOSIT));
    expect(JSON.stringify(txs[1])).toBe(JSON.stringify(EXPECTED_USER_OP));
  });

  it("omits the deposit nonce when no receipts are given and lists hashes otherwise", () => {
    const json = formatBlock(block, { fullTransactions: true, senders, op: OP });
    expect("nonce" in (json.transactions as RpcTransaction[])[0]!).toBe(false);
    expect(formatBlock(block, { fullTransactions: false, senders: [] }).transactions).toEqual([BASE.l1InfoDepositHash, BASE.txHash]);
  });
});
