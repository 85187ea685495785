/**
 * OP-flavoured receipt JSON (op-reth / base-reth-node form): key order, the OP L1-fee fields of every
 * transaction, deposit nonce/version, Jovian DA footprint. The Base mainnet block 21713817 values come
 * from shared/fixtures/op/op-fee-vectors.json (`l1_cost_real`, taken from base/base's receipt tests).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Block, createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { DepositTransaction } from "../../../src/chain/op/depositTx.js";
import { OpFork } from "../../../src/chain/op/forks.js";
import { l1BlockInfoFromCalldata } from "../../../src/chain/op/l1BlockInfo.js";
import { l1GasUsed } from "../../../src/chain/op/l1Cost.js";
import { encodeL1InfoCalldata, L1InfoCalldataError, type L1InfoValues } from "../../../src/chain/op/l1InfoTx.js";
import { txDaFootprint } from "../../../src/chain/op/daFootprint.js";
import type { StoredReceipt } from "../../../src/storage/types.js";
import { createAddress, formatReceipt, formatReceipts, toData, toQuantity, type RpcReceipt } from "../../../src/chain/json/index.js";
import { fromHex } from "../../../src/util/bytes.js";
import { BASE_MAINNET_OP, allForksGenesis } from "../../helpers/opFixtures.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
interface RealVector {
  chain: string;
  block: number;
  timestamp?: number;
  txHash: string;
  rawTx: string;
  l1InfoDepositRaw?: string;
  l1InfoDepositHash?: string;
  expected: { receipt?: Record<string, number | null> };
}
const VECTORS_FILE = path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json");
const VECTORS = JSON.parse(readFileSync(VECTORS_FILE, "utf8")) as { l1_cost_real: RealVector[] };
const BASE = VECTORS.l1_cost_real.find((v) => v.chain === "Base Mainnet" && v.block === 21713817)!;

/** Base mainnet fork times (superchain-registry base.toml; shared/reference/derivation.md §2.1). */
const BASE_MAINNET = BASE_MAINNET_OP;

/** A small OP genesis (all forks at 0) used only to build headers and decode transactions; chain id 8453. */
const GENESIS: GenesisJson = allForksGenesis();
const COMMON: Common = commonFromGenesis(GENESIS, "op-receipt-test");

const BASE_FEE = 5_000_000n;
const L1_INFO_DEPOSITOR = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const ZERO_BLOOM = toData(new Uint8Array(256));
/** Timestamps of Base mainnet forks used below (Jovian active, Canyon-but-pre-Ecotone). */
const JOVIAN_TIME = 1_765_000_000n;
const CANYON_TIME = 1_705_000_000n;

const userTx = createTxFromRLP(fromHex(BASE.rawTx), { common: COMMON });
const USER_SENDER = userTx.getSenderAddress().bytes;
const USER_TO = "0x2f16386bb37709016023232523ff6d9daf444be3";

function buildBlock(number: bigint, timestamp: bigint, txs: (TypedTransaction | DepositTransaction)[]): Block {
  const header = createBlockHeader({ number, timestamp, baseFeePerGas: BASE_FEE, gasLimit: 30_000_000n }, { common: COMMON });
  return new Block(header, txs as never, [], [], { common: COMMON });
}

function l1InfoDeposit(data: Uint8Array): DepositTransaction {
  return new DepositTransaction({
    sourceHash: new Uint8Array(32).fill(0x11),
    from: new Address(fromHex(L1_INFO_DEPOSITOR)),
    to: new Address(fromHex(L1_BLOCK)),
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: false,
    data,
  });
}

/** A Transfer-style log emitted by the user transaction. */
const USER_LOG = {
  address: fromHex(USER_TO),
  topics: [fromHex("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")],
  data: fromHex("0x01"),
};

function storedReceipts(depositNonce: bigint | undefined, depositReceiptVersion: number | undefined): StoredReceipt[] {
  return [
    { type: 0x7e, status: 1, cumulativeGasUsed: 43_887n, logs: [], bloom: new Uint8Array(256), depositNonce, depositReceiptVersion },
    { type: 2, status: 1, cumulativeGasUsed: 43_887n + 26_000n, logs: [USER_LOG], bloom: new Uint8Array(256) },
  ];
}

const depositBase = DepositTransaction.fromSerialized(fromHex(BASE.l1InfoDepositRaw!));
const baseBlock = buildBlock(BigInt(BASE.block), BigInt(BASE.timestamp!), [depositBase, userTx]);
const baseReceipts = storedReceipts(21_713_816n, 1);
const baseSenders = [depositBase.from.bytes, USER_SENDER];

describe("OP receipts of the real Base mainnet block 21713817", () => {
  const out = formatReceipts(baseBlock, baseReceipts, baseSenders, { op: BASE_MAINNET });
  const blockHash = toData(baseBlock.hash());

  it("gives the user transaction exactly the expected OP fields (fixture)", () => {
    const expected = BASE.expected.receipt!;
    const user = out[1] as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) {
      if (value === null) expect(key in user, `${key} absent`).toBe(false);
      else expect(user[key], key).toBe(toQuantity(BigInt(value)));
    }
    expect(user.l1Fee).toBe("0x2c817201a4");
  });

  it("formats the user receipt in op-reth's key order", () => {
    const expected = {
      type: "0x2",
      status: "0x1",
      cumulativeGasUsed: "0x110ff",
      logs: [
        {
          address: USER_TO,
          topics: ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"],
          data: "0x01",
          blockHash,
          blockNumber: "0x14b5399",
          blockTimestamp: "0x67210415",
          transactionHash: BASE.txHash,
          transactionIndex: "0x1",
          logIndex: "0x0",
          removed: false,
        },
      ],
      logsBloom: ZERO_BLOOM,
      transactionHash: BASE.txHash,
      transactionIndex: "0x1",
      blockHash,
      blockNumber: "0x14b5399",
      gasUsed: "0x6590",
      effectiveGasPrice: "0x4c4b74",
      from: toData(USER_SENDER),
      to: USER_TO,
      contractAddress: null,
      l1GasPrice: "0x349b4dcdc",
      l1GasUsed: "0x640",
      l1Fee: "0x2c817201a4",
      l1BaseFeeScalar: "0x8dd",
      l1BlobBaseFee: "0x4ef9325c",
      l1BlobBaseFeeScalar: "0x101c12",
    };
    expect(Object.keys(out[1]!)).toEqual(Object.keys(expected));
    expect(Object.keys(out[1]!.logs[0]!)).toEqual(Object.keys(expected.logs[0]!));
    expect(JSON.stringify(out[1])).toBe(JSON.stringify(expected));
  });

  it("formats the L1-info deposit receipt with deposit nonce/version, gas price 0 and L1 fee 0", () => {
    const info = l1BlockInfoFromCalldata(depositBase.data);
    const expected = {
      type: "0x7e",
      status: "0x1",
      cumulativeGasUsed: "0xab6f",
      logs: [],
      depositNonce: "0x14b5398",
      depositReceiptVersion: "0x1",
      logsBloom: ZERO_BLOOM,
      transactionHash: BASE.l1InfoDepositHash,
      transactionIndex: "0x0",
      blockHash,
      blockNumber: "0x14b5399",
      gasUsed: "0xab6f",
      effectiveGasPrice: "0x0",
      from: L1_INFO_DEPOSITOR,
      to: L1_BLOCK,
      contractAddress: null,
      l1GasPrice: "0x349b4dcdc",
      // op-reth reports the data gas of the deposit envelope itself (Granite uses the Fjord estimate).
      l1GasUsed: toQuantity(l1GasUsed(info, depositBase.serialize(), OpFork.granite)),
      l1Fee: "0x0",
      l1BaseFeeScalar: "0x8dd",
      l1BlobBaseFee: "0x4ef9325c",
      l1BlobBaseFeeScalar: "0x101c12",
    };
    expect(Object.keys(out[0]!)).toEqual(Object.keys(expected));
    expect(JSON.stringify(out[0])).toBe(JSON.stringify(expected));
    // The Fjord data gas never falls below 100 bytes * 16.
    expect(BigInt(out[0]!.l1GasUsed!)).toBeGreaterThanOrEqual(1600n);
  });

  it("gives eth_getTransactionReceipt the same objects as eth_getBlockReceipts", () => {
    out.forEach((r, i) => {
      expect(JSON.stringify(formatReceipt(baseBlock, baseReceipts, baseSenders, i, { op: BASE_MAINNET }))).toBe(JSON.stringify(r));
    });
  });

  it("omits depositNonce / depositReceiptVersion when the stored receipt has none", () => {
    const r = formatReceipts(baseBlock, storedReceipts(undefined, undefined), baseSenders, { op: BASE_MAINNET })[0]!;
    expect("depositNonce" in r).toBe(false);
    expect("depositReceiptVersion" in r).toBe(false);
  });

  it("adds nothing on a plain Ethereum chain (geth form)", () => {
    const plain = buildBlock(1n, 1000n, [userTx]);
    const r = formatReceipts(plain, [baseReceipts[1]!], [USER_SENDER])[0]!;
    expect(Object.keys(r)[0]).toBe("blockHash");
    for (const k of ["l1GasPrice", "l1GasUsed", "l1Fee", "l1BaseFeeScalar", "depositNonce"]) expect(k in r).toBe(false);
    expect(Object.keys(r.logs[0]!).slice(3, 5)).toEqual(["blockNumber", "transactionHash"]);
  });

  it("fails like op-reth when the block does not start with L1-info calldata", () => {
    const bad = buildBlock(2n, BigInt(BASE.timestamp!), [userTx]);
    expect(() => formatReceipts(bad, [baseReceipts[1]!], [USER_SENDER], { op: BASE_MAINNET })).toThrow(L1InfoCalldataError);
  });
});

/** L1-info values shared by the synthetic blocks below (the Base 21713817 fee parameters). */
const L1_VALUES: L1InfoValues = {
  number: 21_080_470n,
  timestamp: 1_730_216_795n,
  baseFee: 14_121_491_676n,
  hash: new Uint8Array(32).fill(0xaa),
  sequenceNumber: 4n,
  batcherHash: new Uint8Array(32).fill(0xbb),
  baseFeeScalar: 2269n,
  blobBaseFeeScalar: 1_055_762n,
  blobBaseFee: 1_324_954_204n,
};

describe("OP receipts from Jovian", () => {
  function jovianReceipts(values: L1InfoValues): RpcReceipt[] {
    const dep = l1InfoDeposit(encodeL1InfoCalldata(values, "jovian"));
    const block = buildBlock(40_000_000n, JOVIAN_TIME, [dep, userTx]);
    return formatReceipts(block, storedReceipts(7n, 1), [dep.from.bytes, USER_SENDER], { op: BASE_MAINNET });
  }

  it("reports the DA footprint as blobGasUsed (after effectiveGasPrice) and daFootprintGasScalar last", () => {
    const [dep, user] = jovianReceipts({ ...L1_VALUES, daFootprintGasScalar: 400n });
    // The Base tx is small: Fjord size estimate = the 100-byte minimum (its l1GasUsed is 1600 = 100 * 16).
    expect(user!.l1GasUsed).toBe("0x640");
    expect(user!.blobGasUsed).toBe(toQuantity(100n * 400n));
    expect(user!.daFootprintGasScalar).toBe("0x190");
    expect(user!.l1Fee).toBe("0x2c817201a4");
    const keys = Object.keys(user!);
    const at = keys.indexOf("effectiveGasPrice");
    expect(keys.slice(at, at + 3)).toEqual(["effectiveGasPrice", "blobGasUsed", "from"]);
    expect(keys.at(-1)).toBe("daFootprintGasScalar");
    expect("blobGasPrice" in user!).toBe(false);
    // Operator fee parameters both zero: op-reth leaves them out.
    expect("operatorFeeScalar" in user!).toBe(false);
    expect("operatorFeeConstant" in user!).toBe(false);
    // Deposits get a DA footprint too (op-reth computes it for every transaction).
    const depTx = l1InfoDeposit(encodeL1InfoCalldata({ ...L1_VALUES, daFootprintGasScalar: 400n }, "jovian"));
    expect(dep!.blobGasUsed).toBe(toQuantity(txDaFootprint(depTx.serialize(), 400n)));
    expect(dep!.l1Fee).toBe("0x0");
  });

  it("reports both operator fee fields once one is non-zero", () => {
    const [, user] = jovianReceipts({ ...L1_VALUES, operatorFeeScalar: 7n, operatorFeeConstant: 0n, daFootprintGasScalar: 400n });
    const keys = Object.keys(user!);
    expect(keys.slice(-3)).toEqual(["operatorFeeScalar", "operatorFeeConstant", "daFootprintGasScalar"]);
    expect(user!.operatorFeeScalar).toBe("0x7");
    expect(user!.operatorFeeConstant).toBe("0x0");
  });
});

describe("OP receipts before Ecotone", () => {
  it("adds l1FeeScalar as a decimal string and the Bedrock fee from the overhead", () => {
    const overhead = 188n;
    const scalar = 684_000n;
    const dep = l1InfoDeposit(encodeL1InfoCalldata({ ...L1_VALUES, l1FeeOverhead: overhead, l1FeeScalar: scalar }, "bedrock"));
    const block = buildBlock(10_000_000n, CANYON_TIME, [dep, userTx]);
    const [, user] = formatReceipts(block, storedReceipts(7n, 1), [dep.from.bytes, USER_SENDER], { op: BASE_MAINNET });
    // Bedrock data gas (post-Regolith): 4 per zero byte, 16 per non-zero byte, plus the overhead.
    const bytes = userTx.serialize();
    const zeros = BigInt(bytes.filter((b) => b === 0).length);
    const gas = zeros * 4n + (BigInt(bytes.length) - zeros) * 16n + overhead;
    expect(user!.l1GasUsed).toBe(toQuantity(gas));
    expect(user!.l1Fee).toBe(toQuantity((gas * L1_VALUES.baseFee * scalar) / 1_000_000n));
    expect(user!.l1GasPrice).toBe(toQuantity(L1_VALUES.baseFee));
    expect(user!.l1FeeScalar).toBe("0.684");
    expect(user!.l1BaseFeeScalar).toBe(toQuantity(scalar));
    expect(Object.keys(user!).slice(-5)).toEqual(["l1GasPrice", "l1GasUsed", "l1Fee", "l1FeeScalar", "l1BaseFeeScalar"]);
    expect("l1BlobBaseFee" in user!).toBe(false);
  });
});

describe("deposit contract creations", () => {
  it("derive contractAddress with nonce 0, as op-reth does (TxDeposit::nonce() = 0), not the deposit nonce", () => {
    const info = l1InfoDeposit(encodeL1InfoCalldata(L1_VALUES, "ecotone"));
    const creator = new Address(fromHex("0x1111111111111111111111111111111111111111"));
    const creation = new DepositTransaction({
      sourceHash: new Uint8Array(32).fill(0x22),
      from: creator,
      mint: 0n,
      value: 0n,
      gasLimit: 500_000n,
      isSystemTx: false,
      data: fromHex("0x6000"),
    });
    const block = buildBlock(10_000_000n, BigInt(BASE.timestamp!), [info, creation]);
    const receipts: StoredReceipt[] = [
      { type: 0x7e, status: 1, cumulativeGasUsed: 40_000n, logs: [], bloom: new Uint8Array(256), depositNonce: 1n, depositReceiptVersion: 1 },
      { type: 0x7e, status: 1, cumulativeGasUsed: 100_000n, logs: [], bloom: new Uint8Array(256), depositNonce: 5n, depositReceiptVersion: 1 },
    ];
    const r = formatReceipt(block, receipts, [info.from.bytes, creator.bytes], 1, { op: BASE_MAINNET });
    expect(r.to).toBeNull();
    expect(r.contractAddress).toBe(toData(createAddress(creator.bytes, 0n)));
    expect(r.contractAddress).not.toBe(toData(createAddress(creator.bytes, 5n)));
    expect(r.depositNonce).toBe("0x5");
    expect(r.gasUsed).toBe(toQuantity(60_000n));
  });
});
