import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { OpFork, opForkAt } from "../../../../src/chain/op/forks.js";
import { l1BlockInfoFromCalldata } from "../../../../src/chain/op/l1BlockInfo.js";
import { dataGas } from "../../../../src/chain/op/l1Cost.js";
import { encodeL1InfoCalldata, L1InfoCalldataError, decodeL1InfoCalldata } from "../../../../src/chain/op/l1InfoTx.js";
import {
  computeOpReceiptFields,
  depositReceiptFields,
  depositReceiptVersionFor,
  formatF64LikeRust,
  opReceiptFields,
} from "../../../../src/chain/op/receiptFields.js";
import { fromHex } from "../../../../src/util/bytes.js";
import { BASE_MAINNET_OP } from "../../../helpers/opFixtures.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const VECTORS = JSON.parse(readFileSync(path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json"), "utf8"));

/** Base mainnet fork times and EIP-1559 constants (superchain-registry base.toml, shared/reference/derivation.md §2.1). */
const BASE_MAINNET = BASE_MAINNET_OP;

/** kona test_utils.rs L1-info calldata (OP Mainnet values). */
const RAW_BEDROCK_INFO_TX = fromHex(
  "0x015d8eb9000000000000000000000000000000000000000000000000000000000117c4eb0000000000000000000000000000000000000000000000000000000065280377000000000000000000000000000000000000000000000000000000026d05d953392012032675be9f94aae5ab442de73c5f4fb1bf30fa7dd0d2442239899a40fc00000000000000000000000000000000000000000000000000000000000000040000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f3298500000000000000000000000000000000000000000000000000000000000000bc00000000000000000000000000000000000000000000000000000000000a6fe0",
);
const RAW_ISTHMUS_INFO_TX = fromHex(
  "0x098999be00000558000c5fc5000000000000000500000000661c277300000000012bec20000000000000000000000000000000000000000000000000000000026e9f109900000000000000000000000000000000000000000000000000000000000000011c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add30000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f329850000abcd000000000000dcba",
);
const FACADE = fromHex("0xFACADE");

interface RealReceiptVector {
  chain: string;
  block: number;
  timestamp: number;
  txHash: string;
  rawTx: string;
  l1InfoDepositRaw: string;
  expected: { receipt: Record<string, number | null> };
}

function depositCalldata(raw: Uint8Array): Uint8Array {
  return (RLP.decode(raw.subarray(1)) as Uint8Array[])[7]!;
}

/** The JSON op-reth serves for an expected field: numbers as QUANTITY, null as an absent key. */
function expectedJson(receipt: Record<string, number | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(receipt)) if (v !== null) out[k] = "0x" + BigInt(v).toString(16);
  return out;
}

describe("real receipts (op-fee-vectors.json, op-reth receipt.rs)", () => {
  const vectors = (VECTORS.l1_cost_real as RealReceiptVector[]).filter((v) => v.expected.receipt !== undefined);
  it("covers the Base mainnet and the OP mainnet vector", () => {
    expect(vectors.map((v) => v.block).sort((a, b) => a - b)).toEqual([21713817, 124665056]);
  });
  for (const v of vectors) {
    it(`${v.chain} block ${v.block} tx ${v.txHash.slice(0, 10)}: every OP field`, () => {
      // Fork by Base mainnet's schedule (as the upstream test does); both vectors are Fjord-cost blocks.
      const fork = opForkAt(BASE_MAINNET, BigInt(v.timestamp));
      expect(fork).toBeGreaterThanOrEqual(OpFork.fjord);
      expect(fork).toBeLessThan(OpFork.holocene);
      const calldata = depositCalldata(fromHex(v.l1InfoDepositRaw));
      const json = opReceiptFields(calldata, fromHex(v.rawTx), fork);
      expect(json).toEqual(expectedJson(v.expected.receipt));
      for (const [k, val] of Object.entries(v.expected.receipt)) if (val === null) expect(k in json).toBe(false);
      expect("blobGasUsed" in json).toBe(false);
    });
  }

  it("Base block 21713817: exact values", () => {
    const v = vectors.find((x) => x.block === 21713817)!;
    const values = computeOpReceiptFields(l1BlockInfoFromCalldata(depositCalldata(fromHex(v.l1InfoDepositRaw))), fromHex(v.rawTx), OpFork.granite);
    expect(values).toEqual({
      l1GasPrice: 14121491676n,
      l1GasUsed: 1600n,
      l1Fee: 191150293412n,
      l1BaseFeeScalar: 2269n,
      l1BlobBaseFee: 1324954204n,
      l1BlobBaseFeeScalar: 1055762n,
    });
  });

  it("the L1-info deposit's own receipt: l1Fee 0 but l1GasUsed = data gas of the deposit envelope", () => {
    const v = vectors.find((x) => x.block === 21713817)!;
    const deposit = fromHex(v.l1InfoDepositRaw);
    const json = opReceiptFields(depositCalldata(deposit), deposit, OpFork.granite);
    expect(json.l1Fee).toBe("0x0");
    const gas = dataGas(deposit, OpFork.granite);
    expect(gas).toBeGreaterThan(1600n);
    expect(json.l1GasUsed).toBe("0x" + gas.toString(16));
    expect(json.l1GasPrice).toBe("0x" + (14121491676).toString(16));
    expect(json.l1BaseFeeScalar).toBe("0x" + (2269).toString(16));
  });
});

describe("fields by fork", () => {
  it("pre-Ecotone: l1FeeScalar as a decimal string, l1BaseFeeScalar = Bedrock scalar, overhead in l1GasUsed, no blob fields", () => {
    const json = opReceiptFields(RAW_BEDROCK_INFO_TX, FACADE, OpFork.regolith);
    // dataGas 48 + overhead 188 = 236; fee = 236 * 10419034451 * 684000 / 1e6
    expect(json).toEqual({
      l1GasPrice: "0x" + (10419034451).toString(16),
      l1GasUsed: "0xec",
      l1Fee: "0x" + (1681882217218).toString(16),
      l1FeeScalar: "0.684",
      l1BaseFeeScalar: "0xa6fe0",
    });
    expect(Object.keys(json)).toEqual(["l1GasPrice", "l1GasUsed", "l1Fee", "l1FeeScalar", "l1BaseFeeScalar"]);
  });

  it("Ecotone activation block (Bedrock calldata): no l1FeeScalar, Ecotone formula with the Bedrock scalar (op-reth)", () => {
    const json = opReceiptFields(RAW_BEDROCK_INFO_TX, FACADE, OpFork.ecotone);
    expect(json).toEqual({
      l1GasPrice: "0x" + (10419034451).toString(16),
      l1GasUsed: "0xec",
      l1Fee: "0x" + (342077739095).toString(16),
      l1BaseFeeScalar: "0xa6fe0",
    });
  });

  it("Isthmus: operator fee fields when at least one is non-zero", () => {
    const json = opReceiptFields(RAW_ISTHMUS_INFO_TX, FACADE, OpFork.isthmus);
    expect(json.operatorFeeScalar).toBe("0xabcd");
    expect(json.operatorFeeConstant).toBe("0xdcba");
    expect(json.l1BlobBaseFee).toBe("0x1");
    expect(json.l1BlobBaseFeeScalar).toBe("0x" + (810949).toString(16));
    expect("daFootprintGasScalar" in json).toBe(false);
    expect("blobGasUsed" in json).toBe(false);
    expect("l1FeeScalar" in json).toBe(false);
  });

  it("Isthmus: both operator parameters zero → both omitted; only the constant non-zero → both present", () => {
    const { values } = decodeL1InfoCalldata(RAW_ISTHMUS_INFO_TX);
    const withOperator = (scalar: bigint, constant: bigint): Uint8Array =>
      encodeL1InfoCalldata({ ...values, operatorFeeScalar: scalar, operatorFeeConstant: constant }, "isthmus");
    const zero = opReceiptFields(withOperator(0n, 0n), FACADE, OpFork.isthmus);
    expect("operatorFeeScalar" in zero).toBe(false);
    expect("operatorFeeConstant" in zero).toBe(false);
    const constOnly = opReceiptFields(withOperator(0n, 2n), FACADE, OpFork.isthmus);
    expect(constOnly.operatorFeeScalar).toBe("0x0");
    expect(constOnly.operatorFeeConstant).toBe("0x2");
  });

  it("Jovian: daFootprintGasScalar and blobGasUsed = DA footprint, also for deposits", () => {
    const { values } = decodeL1InfoCalldata(RAW_ISTHMUS_INFO_TX);
    const calldata = encodeL1InfoCalldata({ ...values, daFootprintGasScalar: 10n }, "jovian");
    const json = opReceiptFields(calldata, FACADE, OpFork.jovian);
    expect(json.daFootprintGasScalar).toBe("0xa");
    // FACADE: minimum 100 estimated bytes × 10
    expect(json.blobGasUsed).toBe("0x3e8");
    expect(Object.keys(json)).toEqual([
      "l1GasPrice", "l1GasUsed", "l1Fee", "l1BaseFeeScalar", "l1BlobBaseFee", "l1BlobBaseFeeScalar",
      "operatorFeeScalar", "operatorFeeConstant", "daFootprintGasScalar", "blobGasUsed",
    ]);
    const deposit = opReceiptFields(calldata, fromHex("0x7EFACADE"), OpFork.jovian);
    expect(deposit.l1Fee).toBe("0x0");
    expect(deposit.blobGasUsed).toBe("0x3e8");
  });

  it("Jovian block with Isthmus calldata (activation block): no DA scalar, blobGasUsed 0", () => {
    const json = opReceiptFields(RAW_ISTHMUS_INFO_TX, FACADE, OpFork.jovian);
    expect("daFootprintGasScalar" in json).toBe(false);
    expect(json.blobGasUsed).toBe("0x0");
  });

  it("malformed calldata is a typed error", () => {
    expect(() => opReceiptFields(new Uint8Array(3), FACADE, OpFork.jovian)).toThrow(L1InfoCalldataError);
  });
});

describe("l1FeeScalar formatting (Rust f64 Display)", () => {
  const cases: [number, string][] = [
    [0.684, "0.684"],
    [1, "1"],
    [0, "0"],
    [1.5, "1.5"],
    [1e-7, "0.0000001"],
    [1.5e-7, "0.00000015"],
    [1e21, "1000000000000000000000"],
    [1.234e22, "12340000000000000000000"],
  ];
  for (const [x, s] of cases) it(`${x} → ${s}`, () => expect(formatF64LikeRust(x)).toBe(s));
});

describe("deposit receipt fields", () => {
  it("version 1 from Canyon, absent before", () => {
    expect(depositReceiptVersionFor(OpFork.regolith)).toBeUndefined();
    expect(depositReceiptVersionFor(OpFork.canyon)).toBe(1n);
    expect(depositReceiptVersionFor(OpFork.jovian)).toBe(1n);
  });

  it("formats as QUANTITYs and omits absent values", () => {
    const full = depositReceiptFields({ depositNonce: 0x1234n, depositReceiptVersion: 1n });
    expect(full).toEqual({ depositNonce: "0x1234", depositReceiptVersion: "0x1" });
    expect(depositReceiptFields({ depositNonce: 0n })).toEqual({ depositNonce: "0x0" });
    expect(depositReceiptFields({})).toEqual({});
  });
});
