import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { blockDaFootprint, DEFAULT_DA_FOOTPRINT_GAS_SCALAR, txDaFootprint, txDaUsageEstimate } from "../../../../src/chain/op/daFootprint.js";
import { flzCompressLen } from "../../../../src/chain/op/fastlz.js";
import { OP_FORK_NAMES, OpFork, type OpForkName } from "../../../../src/chain/op/forks.js";
import {
  BASE_FEE_SCALAR_OFFSET,
  DA_FOOTPRINT_GAS_SCALAR_OFFSET,
  ECOTONE_L1_BLOB_BASE_FEE_SLOT,
  ECOTONE_L1_FEE_SCALARS_SLOT,
  L1_BASE_FEE_SLOT,
  L1_BLOCK_ADDRESS,
  L1_OVERHEAD_SLOT,
  L1_SCALAR_SLOT,
  OPERATOR_FEE_SCALARS_SLOT,
  l1BlockInfoFromCalldata,
  loadL1BlockInfo,
  type L1BlockInfo,
} from "../../../../src/chain/op/l1BlockInfo.js";
import {
  dataGas,
  FJORD_FASTLZ_COEF,
  FJORD_INTERCEPT,
  FJORD_MIN_TX_SIZE_SCALED,
  fjordEstimatedSizeScaled,
  l1Cost,
  l1CostUpfront,
  l1GasUsed,
  OPERATOR_FEE_JOVIAN_MULTIPLIER,
  OPERATOR_FEE_SCALAR_DECIMAL,
  operatorFeeCharge,
  operatorFeeRefund,
} from "../../../../src/chain/op/l1Cost.js";
import { L1InfoCalldataError } from "../../../../src/chain/op/l1InfoTx.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const VECTORS = JSON.parse(readFileSync(path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json"), "utf8"));

/** Vector inputs are hex, or "N x 0xBB" for N repetitions of one byte. */
function inputBytes(input: string): Uint8Array {
  const rep = /^(\d+) x 0x([0-9a-fA-F]{2})$/.exec(input);
  if (rep) return new Uint8Array(Number(rep[1])).fill(parseInt(rep[2]!, 16));
  return fromHex(input);
}

/** Fork name of a vector: its first word ("granite (fjord cost function)" → granite). */
function forkOf(name: string): OpFork {
  const word = name.split(" ")[0] as OpForkName;
  const i = OP_FORK_NAMES.indexOf(word);
  if (i < 0) throw new Error(`unknown fork ${name}`);
  return i as OpFork;
}

/** Calldata and source hash of a raw 0x7e deposit envelope. */
function depositParts(raw: Uint8Array): { sourceHash: Uint8Array; data: Uint8Array } {
  const fields = RLP.decode(raw.subarray(1)) as Uint8Array[];
  return { sourceHash: fields[0]!, data: fields[7]! };
}

/** 227 bytes 0,1,2,… contain no repeated 3-byte sequence: FastLZ emits 7 full literal runs + 1 of 3 → 7*33 + 4 = 235. */
function incompressible(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => i);
}

describe("constants (op-fee-vectors.json)", () => {
  it("Fjord regression and operator fee constants match", () => {
    const c = VECTORS.constants;
    expect(-FJORD_INTERCEPT).toBe(BigInt(c.fjord_intercept));
    expect(FJORD_FASTLZ_COEF).toBe(BigInt(c.fjord_fastlz_coef));
    expect(FJORD_MIN_TX_SIZE_SCALED).toBe(BigInt(c.fjord_min_tx_size_scaled));
    expect(OPERATOR_FEE_SCALAR_DECIMAL).toBe(BigInt(c.operator_fee_scalar_decimal_isthmus));
    expect(OPERATOR_FEE_JOVIAN_MULTIPLIER).toBe(BigInt(c.operator_fee_multiplier_jovian));
  });
});

describe("flzCompressLen", () => {
  for (const v of VECTORS.fastlz_compress_len as { input: string; len: number }[]) {
    const label = v.input.length > 40 ? `${v.input.slice(0, 24)}… (${(v.input.length - 2) / 2} bytes)` : v.input;
    it(`${label} → ${v.len}`, () => {
      expect(flzCompressLen(inputBytes(v.input))).toBe(v.len);
    });
  }

  it("grows strictly as distinct bytes are appended (no repeats to match)", () => {
    let prev = 0;
    for (let n = 1; n <= 256; n++) {
      const len = flzCompressLen(incompressible(n));
      expect(len).toBeGreaterThan(prev);
      prev = len;
    }
  });

  it("compresses a repeated pattern far below its size", () => {
    const pattern = fromHex("0xdeadbeefcafe");
    const data = new Uint8Array(6000);
    for (let i = 0; i < data.length; i++) data[i] = pattern[i % pattern.length]!;
    expect(flzCompressLen(data)).toBeLessThan(200);
    expect(flzCompressLen(incompressible(227))).toBe(235);
  });
});

describe("dataGas", () => {
  for (const v of VECTORS.data_gas as { input: string; bedrock: number; regolith: number; fjord: number; src: string }[]) {
    for (const fork of ["bedrock", "regolith", "fjord"] as const) {
      it(`${v.input} ${fork} → ${v[fork]} (${v.src})`, () => {
        expect(dataGas(fromHex(v.input), forkOf(fork))).toBe(BigInt(v[fork]));
      });
    }
  }

  it("Ecotone and Canyon count bytes like Regolith (16 non-zero, 4 zero)", () => {
    expect(dataGas(fromHex("0xFA00CA00DE"), OpFork.ecotone)).toBe(56n);
    expect(dataGas(fromHex("0xFA00CA00DE"), OpFork.canyon)).toBe(56n);
  });
});

interface SyntheticVector {
  fork: string;
  l1BaseFee: number;
  overhead?: number;
  scalar?: number;
  baseFeeScalar?: number;
  blobBaseFee?: number;
  blobBaseFeeScalar?: number;
  input?: string;
  fastlzSize?: number;
  l1GasUsed?: number;
  l1Fee: number;
  note?: string;
  src?: string;
}

function syntheticInfo(v: SyntheticVector): L1BlockInfo {
  if (v.overhead !== undefined) {
    // Bedrock parameters; in an Ecotone block they only apply while the Ecotone scalars are unset.
    return {
      l1BaseFee: BigInt(v.l1BaseFee),
      l1FeeOverhead: BigInt(v.overhead),
      l1BaseFeeScalar: BigInt(v.scalar!),
      emptyEcotoneScalars: v.fork !== "regolith",
    };
  }
  return {
    l1BaseFee: BigInt(v.l1BaseFee),
    l1BaseFeeScalar: BigInt(v.baseFeeScalar!),
    l1BlobBaseFee: BigInt(v.blobBaseFee!),
    l1BlobBaseFeeScalar: BigInt(v.blobBaseFeeScalar!),
    emptyEcotoneScalars: false,
  };
}

describe("l1Cost — synthetic vectors", () => {
  (VECTORS.l1_cost_synthetic as SyntheticVector[]).forEach((v, i) => {
    const what = v.src ?? v.note ?? "";
    it(`#${i} ${v.fork} ${v.input === undefined ? `fastlz ${v.fastlzSize}` : v.input.slice(0, 12)} → ${v.l1Fee} ${what}`, () => {
      const fork = forkOf(v.fork);
      const tx = v.input !== undefined ? fromHex(v.input) : incompressible(227);
      if (v.fastlzSize !== undefined) expect(flzCompressLen(tx)).toBe(v.fastlzSize);
      const info = syntheticInfo(v);
      expect(l1Cost(info, tx, fork)).toBe(BigInt(v.l1Fee));
      if (v.l1GasUsed !== undefined) expect(l1GasUsed(info, tx, fork)).toBe(BigInt(v.l1GasUsed));
    });
  });

  it("a non-empty Ecotone scalar set does not use the Bedrock overhead", () => {
    const info: L1BlockInfo = {
      l1BaseFee: 1000n,
      l1FeeOverhead: 1000n,
      l1BaseFeeScalar: 1000n,
      l1BlobBaseFee: 1000n,
      l1BlobBaseFeeScalar: 1000n,
      emptyEcotoneScalars: false,
    };
    expect(l1Cost(info, fromHex("0xFACADE"), OpFork.ecotone)).toBe(51n);
  });

  it("Fjord cost is 0 when both fee components are 0", () => {
    const info: L1BlockInfo = { l1BaseFee: 0n, l1BaseFeeScalar: 5n, l1BlobBaseFee: 7n, l1BlobBaseFeeScalar: 0n, emptyEcotoneScalars: false };
    expect(l1Cost(info, fromHex("0xFACADE"), OpFork.fjord)).toBe(0n);
  });
});

interface RealVector {
  chain: string;
  block: number;
  fork: string;
  txHash: string;
  rawTx: string;
  l1InfoDepositRaw?: string;
  l1InfoDepositHash?: string;
  l1BaseFee?: number;
  baseFeeScalar?: number;
  blobBaseFee?: number;
  blobBaseFeeScalar?: number;
  expected: { l1GasUsed?: number; l1Fee?: number; receipt?: { l1GasUsed: number; l1Fee: number } };
}

describe("l1Cost — real transactions", () => {
  for (const v of VECTORS.l1_cost_real as RealVector[]) {
    it(`${v.chain} block ${v.block} tx ${v.txHash.slice(0, 10)} (${v.fork})`, () => {
      const fork = forkOf(v.fork);
      const tx = fromHex(v.rawTx);
      expect(to0x(keccak_256(tx))).toBe(v.txHash);
      let info: L1BlockInfo;
      if (v.l1InfoDepositRaw !== undefined) {
        const deposit = fromHex(v.l1InfoDepositRaw);
        expect(to0x(keccak_256(deposit))).toBe(v.l1InfoDepositHash);
        info = l1BlockInfoFromCalldata(depositParts(deposit).data);
      } else {
        info = {
          l1BaseFee: BigInt(v.l1BaseFee!),
          l1BaseFeeScalar: BigInt(v.baseFeeScalar!),
          l1BlobBaseFee: BigInt(v.blobBaseFee!),
          l1BlobBaseFeeScalar: BigInt(v.blobBaseFeeScalar!),
          emptyEcotoneScalars: false,
        };
      }
      if (v.l1BaseFee !== undefined) {
        expect(info.l1BaseFee).toBe(BigInt(v.l1BaseFee));
        expect(info.l1BaseFeeScalar).toBe(BigInt(v.baseFeeScalar!));
        expect(info.l1BlobBaseFee).toBe(BigInt(v.blobBaseFee!));
        expect(info.l1BlobBaseFeeScalar).toBe(BigInt(v.blobBaseFeeScalar!));
      }
      const expectedGas = v.expected.l1GasUsed ?? v.expected.receipt!.l1GasUsed;
      const expectedFee = v.expected.l1Fee ?? v.expected.receipt!.l1Fee;
      expect(dataGas(tx, fork)).toBe(BigInt(expectedGas));
      expect(l1GasUsed(info, tx, fork)).toBe(BigInt(expectedGas));
      expect(l1Cost(info, tx, fork)).toBe(BigInt(expectedFee));
    });
  }
});

/** L1 info with the operator fee parameters of a vector. */
function operatorInfo(l1BaseFee: bigint, l1BaseFeeScalar: bigint, v: Record<string, number | string>): L1BlockInfo {
  return {
    l1BaseFee,
    l1BaseFeeScalar,
    operatorFeeScalar: BigInt(v.operatorFeeScalar!),
    operatorFeeConstant: BigInt(v.operatorFeeConstant!),
    emptyEcotoneScalars: false,
  };
}

describe("operator fee", () => {
  const charges = (VECTORS.operator_fee as Record<string, number | string>[]).filter((v) => v.isthmus !== undefined);
  const refunds = (VECTORS.operator_fee as Record<string, number | string>[]).filter((v) => v.refund !== undefined);
  for (const v of charges) {
    const info = operatorInfo(0n, 0n, v);
    it(`charge scalar ${v.operatorFeeScalar} const ${v.operatorFeeConstant} gas ${v.gas}: Isthmus ${v.isthmus}, Jovian ${v.jovian}`, () => {
      expect(operatorFeeCharge(info, BigInt(v.gas!), OpFork.isthmus)).toBe(BigInt(v.isthmus!));
      expect(operatorFeeCharge(info, BigInt(v.gas!), OpFork.jovian)).toBe(BigInt(v.jovian!));
      expect(operatorFeeCharge(info, BigInt(v.gas!), OpFork.holocene)).toBe(0n);
    });
  }
  for (const v of refunds) {
    const info = operatorInfo(1055991687n, 5227n, v);
    it(`refund ${v.fork} limit ${v.gasLimit} used ${v.gasUsed} → ${v.refund}`, () => {
      expect(operatorFeeRefund(info, BigInt(v.gasLimit!), BigInt(v.gasUsed!), forkOf(String(v.fork)))).toBe(BigInt(v.refund!));
      expect(operatorFeeRefund(info, BigInt(v.gasLimit!), BigInt(v.gasUsed!), OpFork.holocene)).toBe(0n);
    });
  }

  it("refund is charge(limit) - charge(used) and never negative", () => {
    const info: L1BlockInfo = { l1BaseFee: 0n, l1BaseFeeScalar: 0n, operatorFeeScalar: 3n, operatorFeeConstant: 9n, emptyEcotoneScalars: false };
    // Jovian: 100_000*3*100 - 21_000*3*100 = 23_700_000
    expect(operatorFeeRefund(info, 100_000n, 21_000n, OpFork.jovian)).toBe(23_700_000n);
    expect(operatorFeeRefund(info, 21_000n, 21_000n, OpFork.jovian)).toBe(0n);
    expect(operatorFeeRefund(info, 21_000n, 30_000n, OpFork.jovian)).toBe(0n);
  });

  it("the up-front cost adds the operator fee for the gas limit, but not for deposits or before Isthmus", () => {
    const info: L1BlockInfo = {
      l1BaseFee: 1000n,
      l1BaseFeeScalar: 1000n,
      l1BlobBaseFee: 1000n,
      l1BlobBaseFeeScalar: 1000n,
      operatorFeeScalar: 1000n,
      operatorFeeConstant: 10n,
      emptyEcotoneScalars: false,
    };
    const tx = fromHex("0xFACADE");
    expect(l1CostUpfront(info, tx, 1000n, OpFork.isthmus)).toBe(1700n + 11n);
    expect(l1CostUpfront(info, tx, 1000n, OpFork.jovian)).toBe(1700n + 100_000_010n);
    expect(l1CostUpfront(info, tx, 1000n, OpFork.holocene)).toBe(1700n);
    expect(l1CostUpfront(info, fromHex("0x7EFACADE"), 1000n, OpFork.jovian)).toBe(0n);
  });
});

describe("loadL1BlockInfo (L1Block storage, op-revm try_fetch)", () => {
  /** A 32-byte slot word with `value` (byteLen bytes) at big-endian byte offset `offset`. */
  function at(offset: number, byteLen: number, value: bigint): bigint {
    return value << BigInt((32 - offset - byteLen) * 8);
  }
  function storage(slots: Record<string, bigint>): { read: (slot: bigint) => Promise<bigint>; reads: bigint[] } {
    const reads: bigint[] = [];
    return {
      reads,
      read: async (slot: bigint) => {
        reads.push(slot);
        return slots[slot.toString()] ?? 0n;
      },
    };
  }
  const base = {
    [L1_BASE_FEE_SLOT.toString()]: 7_000_000_000n,
    [ECOTONE_L1_FEE_SCALARS_SLOT.toString()]: at(BASE_FEE_SCALAR_OFFSET, 4, 1368n) | at(20, 4, 810949n) | at(24, 8, 5n),
    [L1_OVERHEAD_SLOT.toString()]: 188n,
    [L1_SCALAR_SLOT.toString()]: 684000n,
    [ECOTONE_L1_BLOB_BASE_FEE_SLOT.toString()]: 12n,
    [OPERATOR_FEE_SCALARS_SLOT.toString()]: at(DA_FOOTPRINT_GAS_SCALAR_OFFSET, 2, 400n) | at(20, 4, 20000n) | at(24, 8, 500n),
  };

  it("uses the L1Block predeploy address", () => {
    expect(L1_BLOCK_ADDRESS).toBe("0x4200000000000000000000000000000000000015");
  });

  it("pre-Ecotone: base fee, scalar (slot 6) and overhead (slot 5)", async () => {
    const s = storage(base);
    const info = await loadL1BlockInfo(s.read, OpFork.regolith);
    expect(info).toEqual({ l1BaseFee: 7_000_000_000n, l1BaseFeeScalar: 684000n, l1FeeOverhead: 188n, emptyEcotoneScalars: false });
    expect(s.reads.sort()).toEqual([1n, 5n, 6n]);
  });

  it("Ecotone: packed scalars from slot 3, blob base fee from slot 7, no overhead", async () => {
    const s = storage(base);
    expect(await loadL1BlockInfo(s.read, OpFork.granite)).toEqual({
      l1BaseFee: 7_000_000_000n,
      l1BaseFeeScalar: 1368n,
      l1BlobBaseFee: 12n,
      l1BlobBaseFeeScalar: 810949n,
      emptyEcotoneScalars: false,
    });
    expect(s.reads).not.toContain(L1_OVERHEAD_SLOT);
    expect(s.reads).not.toContain(OPERATOR_FEE_SCALARS_SLOT);
  });

  it("first Ecotone block: empty scalars → overhead loaded and the Bedrock formula used (with op-revm's zero scalar)", async () => {
    const s = storage({ ...base, [ECOTONE_L1_FEE_SCALARS_SLOT.toString()]: at(24, 8, 3n), [ECOTONE_L1_BLOB_BASE_FEE_SLOT.toString()]: 0n });
    const info = await loadL1BlockInfo(s.read, OpFork.ecotone);
    expect(info).toEqual({
      l1BaseFee: 7_000_000_000n,
      l1BaseFeeScalar: 0n,
      l1BlobBaseFee: 0n,
      l1BlobBaseFeeScalar: 0n,
      l1FeeOverhead: 188n,
      emptyEcotoneScalars: true,
    });
    expect(s.reads).toContain(L1_OVERHEAD_SLOT);
    expect(s.reads).not.toContain(L1_SCALAR_SLOT);
  });

  it("one non-zero Ecotone scalar is enough to leave the fallback", async () => {
    const s = storage({ ...base, [ECOTONE_L1_FEE_SCALARS_SLOT.toString()]: at(20, 4, 1n) });
    const info = await loadL1BlockInfo(s.read, OpFork.ecotone);
    expect(info.emptyEcotoneScalars).toBe(false);
    expect(info.l1FeeOverhead).toBeUndefined();
  });

  it("Isthmus adds the operator fee parameters from slot 8", async () => {
    const info = await loadL1BlockInfo(storage(base).read, OpFork.isthmus);
    expect(info.operatorFeeScalar).toBe(20000n);
    expect(info.operatorFeeConstant).toBe(500n);
    expect(info.daFootprintGasScalar).toBeUndefined();
  });

  it("Jovian adds the DA footprint gas scalar (slot 8, bytes 18..20)", async () => {
    const info = await loadL1BlockInfo(storage(base).read, OpFork.jovian);
    expect(info.daFootprintGasScalar).toBe(400n);
    expect(info.operatorFeeScalar).toBe(20000n);
    expect(info.operatorFeeConstant).toBe(500n);
  });
});

describe("l1BlockInfoFromCalldata (op-reth parse_l1_info)", () => {
  it("decodes a Bedrock L1-info deposit (base/base evm l1.rs sanity_l1_block)", () => {
    const raw = fromHex(
      "0x7ef9015aa044bae9d41b8380d781187b426c6fe43df5fb2fb57bd4466ef6a701e1f01e015694deaddeaddeaddeaddeaddeaddeaddeaddead000194420000000000000000000000000000000000001580808408f0d18001b90104015d8eb900000000000000000000000000000000000000000000000000000000008057650000000000000000000000000000000000000000000000000000000063d96d10000000000000000000000000000000000000000000000000000000000009f35273d89754a1e0387b89520d989d3be9c37c1f32495a88faf1ea05c61121ab0d1900000000000000000000000000000000000000000000000000000000000000010000000000000000000000002d679b567db6187c0c8323fa982cfb88b74dbcc7000000000000000000000000000000000000000000000000000000000000083400000000000000000000000000000000000000000000000000000000000f4240",
    );
    const info = l1BlockInfoFromCalldata(depositParts(raw).data);
    expect(info).toEqual({ l1BaseFee: 652_114n, l1FeeOverhead: 2100n, l1BaseFeeScalar: 1_000_000n, emptyEcotoneScalars: false });
  });

  it("decodes Isthmus and Jovian calldata (base/base evm l1.rs parse_l1_info_isthmus/jovian)", () => {
    const isthmus = fromHex(
      "0x098999be00000558000c5fc500000000000000030000000067a9f765000000000000002900000000000000000000000000000000000000000000000000000000006a6d09000000000000000000000000000000000000000000000000000000000000000172fcc8e8886636bdbe96ba0e4baab67ea7e7811633f52b52e8cf7a5123213b6f000000000000000000000000d3f2c5afb2d76f5579f326b0cd7da5f5a4126c3500004e2000000000000001f4",
    );
    const common = {
      l1BaseFee: 6974729n,
      l1BaseFeeScalar: 1368n,
      l1BlobBaseFee: 1n,
      l1BlobBaseFeeScalar: 810949n,
      operatorFeeScalar: 20000n,
      operatorFeeConstant: 500n,
      emptyEcotoneScalars: false,
    };
    expect(l1BlockInfoFromCalldata(isthmus)).toEqual(common);
    const jovian = new Uint8Array(178);
    jovian.set(isthmus);
    jovian.set(fromHex("0x3db6be2b"), 0);
    jovian.set(fromHex("0xdead"), 176);
    expect(l1BlockInfoFromCalldata(jovian)).toEqual({ ...common, daFootprintGasScalar: 0xdeadn });
  });

  it("rejects short calldata and wrong lengths with typed errors", () => {
    expect(() => l1BlockInfoFromCalldata(fromHex("0x440a5e"))).toThrow(L1InfoCalldataError);
    try {
      l1BlockInfoFromCalldata(new Uint8Array([0x44, 0x0a, 0x5e, 0x20, 1, 2, 3]));
      expect.unreachable();
    } catch (e) {
      expect((e as L1InfoCalldataError).code).toBe("L1_INFO_BAD_LENGTH");
      expect((e as Error).message).toContain("164 expected");
    }
    // Like op-reth, an unrecognised selector is read as Bedrock and fails on the Bedrock length.
    expect(() => l1BlockInfoFromCalldata(new Uint8Array(100))).toThrow(/bedrock L1-info calldata has 100 bytes, 260 expected/);
  });
});

describe("Jovian DA footprint", () => {
  const sample = fromHex(VECTORS.l1_cost_synthetic[6].input);

  it("per-transaction usage is max(100, fjord estimate / 1e6)", () => {
    expect(txDaUsageEstimate(fromHex("0xFACADE"))).toBe(100n);
    // fastlz 202: (202*836500 - 42585600) / 1e6 = 126.3874 → 126
    expect(fjordEstimatedSizeScaled(sample)).toBe(126_387_400n);
    expect(txDaUsageEstimate(sample)).toBe(126n);
  });

  it("footprint = usage × scalar; the default scalar is 400", () => {
    expect(DEFAULT_DA_FOOTPRINT_GAS_SCALAR).toBe(400n);
    expect(txDaFootprint(sample, 400n)).toBe(50_400n);
    expect(txDaFootprint(fromHex("0xFACADE"), 7n)).toBe(700n);
    expect(txDaFootprint(sample, 0n)).toBe(0n);
  });

  it("block footprint sums non-deposit transactions only", () => {
    const deposit = fromHex("0x7EFACADE");
    expect(blockDaFootprint([sample, fromHex("0xFACADE"), deposit], 400n)).toBe(50_400n + 40_000n);
    expect(blockDaFootprint([], 400n)).toBe(0n);
  });
});
