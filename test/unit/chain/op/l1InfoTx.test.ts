import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import type { OpChainConfig } from "../../../../src/chain/op/forks.js";
import {
  batcherHashFromAddress,
  decodeL1InfoCalldata,
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  ecotoneScalarsFromSystemConfig,
  effectiveDaFootprintGasScalar,
  encodeL1InfoCalldata,
  L1_BLOCK_ADDRESS,
  L1_INFO_CALLDATA_LENGTH,
  L1_INFO_DEPOSIT_GAS,
  L1_INFO_DEPOSITOR_ADDRESS,
  L1InfoCalldataError,
  l1InfoVariantFor,
  type L1InfoValues,
  type L1InfoVariant,
} from "../../../../src/chain/op/l1InfoTx.js";
import { l1InfoSourceHash, SourceHashInputError, upgradeSourceHash, userDepositSourceHash } from "../../../../src/chain/op/sourceHash.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";
import { KONA_OP_BATCHER, RAW_BEDROCK_INFO_TX, RAW_ECOTONE_INFO_TX, RAW_ISTHMUS_INFO_TX } from "../../../helpers/konaL1InfoVectors.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const VECTORS = JSON.parse(readFileSync(path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json"), "utf8"));

const OP_BATCHER = fromHex(KONA_OP_BATCHER);

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(L1InfoCalldataError);
    return (e as L1InfoCalldataError).code;
  }
  return undefined;
}

describe("L1-info deposit constants", () => {
  it("depositor, target and gas (specs deposits.md)", () => {
    expect(L1_INFO_DEPOSITOR_ADDRESS).toBe("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
    expect(L1_BLOCK_ADDRESS).toBe("0x4200000000000000000000000000000000000015");
    expect(L1_INFO_DEPOSIT_GAS).toBe(1_000_000n);
    expect(L1_INFO_CALLDATA_LENGTH).toEqual({ bedrock: 260, ecotone: 164, isthmus: 176, jovian: 178 });
  });
});

describe("decodeL1InfoCalldata — kona vectors", () => {
  it("Bedrock", () => {
    const { variant, values } = decodeL1InfoCalldata(fromHex(RAW_BEDROCK_INFO_TX));
    expect(variant).toBe("bedrock");
    expect(values).toEqual({
      number: 18334955n,
      timestamp: 1697121143n,
      baseFee: 10419034451n,
      hash: fromHex("0x392012032675be9f94aae5ab442de73c5f4fb1bf30fa7dd0d2442239899a40fc"),
      sequenceNumber: 4n,
      batcherHash: batcherHashFromAddress(OP_BATCHER),
      l1FeeOverhead: 188n,
      l1FeeScalar: 684000n,
    });
    expect(to0x(encodeL1InfoCalldata(values, variant))).toBe(RAW_BEDROCK_INFO_TX);
  });

  const ecotoneValues: L1InfoValues = {
    baseFeeScalar: 1368n,
    blobBaseFeeScalar: 810949n,
    sequenceNumber: 5n,
    timestamp: 1713121139n,
    number: 19655712n,
    baseFee: 10445852825n,
    blobBaseFee: 1n,
    hash: fromHex("0x1c4c84c50740386c7dc081efddd644405f04cde73e30a2e381737acce9f5add3"),
    batcherHash: batcherHashFromAddress(OP_BATCHER),
  };

  it("Ecotone", () => {
    const { variant, values } = decodeL1InfoCalldata(fromHex(RAW_ECOTONE_INFO_TX));
    expect(variant).toBe("ecotone");
    expect(values).toEqual(ecotoneValues);
    expect(to0x(encodeL1InfoCalldata(values, variant))).toBe(RAW_ECOTONE_INFO_TX);
  });

  it("Isthmus", () => {
    const { variant, values } = decodeL1InfoCalldata(fromHex(RAW_ISTHMUS_INFO_TX));
    expect(variant).toBe("isthmus");
    expect(values).toEqual({ ...ecotoneValues, operatorFeeScalar: 43981n, operatorFeeConstant: 56506n });
    expect(to0x(encodeL1InfoCalldata(values, variant))).toBe(RAW_ISTHMUS_INFO_TX);
  });
});

describe("real L1-info deposits (op-fee-vectors.json)", () => {
  const all = VECTORS.l1_cost_real as { chain: string; block: number; l1InfoDepositRaw?: string }[];
  const reals = all.filter((v) => v.l1InfoDepositRaw !== undefined);
  for (const v of reals) {
    it(`${v.chain} block ${v.block}: decode, re-encode, and recompute the deposit source hash`, () => {
      const fields = RLP.decode(fromHex(v.l1InfoDepositRaw!).subarray(1)) as Uint8Array[];
      const [sourceHash, from, to, , , gas, , data] = fields;
      expect(to0x(from!)).toBe(L1_INFO_DEPOSITOR_ADDRESS);
      expect(to0x(to!)).toBe(L1_BLOCK_ADDRESS);
      expect(BigInt(to0x(gas!))).toBe(L1_INFO_DEPOSIT_GAS);
      const { variant, values } = decodeL1InfoCalldata(data!);
      expect(variant).toBe("ecotone");
      expect(to0x(encodeL1InfoCalldata(values, variant))).toBe(to0x(data!));
      expect(to0x(l1InfoSourceHash(values.hash, values.sequenceNumber))).toBe(to0x(sourceHash!));
    });
  }

  it("Base mainnet block 21713817 values", () => {
    const base = (VECTORS.l1_cost_real as { block: number; l1InfoDepositRaw: string }[]).find((v) => v.block === 21713817)!;
    const data = (RLP.decode(fromHex(base.l1InfoDepositRaw).subarray(1)) as Uint8Array[])[7]!;
    const { values } = decodeL1InfoCalldata(data);
    expect(values.baseFee).toBe(14121491676n);
    expect(values.blobBaseFee).toBe(1324954204n);
    expect(values.baseFeeScalar).toBe(2269n);
    expect(values.blobBaseFeeScalar).toBe(1055762n);
    expect(values.sequenceNumber).toBe(4n);
    expect(to0x(values.batcherHash)).toBe(to0x(batcherHashFromAddress(fromHex("0x5050f69a9786f081509234f1a7f4684b5e5b76c9"))));
  });
});

describe("round trips of every variant", () => {
  const full: L1InfoValues = {
    number: 21_000_000n,
    timestamp: 1_764_691_199n,
    baseFee: (1n << 200n) + 12345n,
    hash: Uint8Array.from({ length: 32 }, (_, i) => i + 1),
    sequenceNumber: 3n,
    batcherHash: batcherHashFromAddress(fromHex("0x5050f69a9786f081509234f1a7f4684b5e5b76c9")),
    l1FeeOverhead: 188n,
    l1FeeScalar: (1n << 248n) | 684000n,
    baseFeeScalar: 0xfffffffen,
    blobBaseFeeScalar: 1055762n,
    blobBaseFee: (1n << 255n) + 1n,
    operatorFeeScalar: 0xffffffffn,
    operatorFeeConstant: (1n << 64n) - 1n,
    daFootprintGasScalar: 0xffffn,
  };
  const common: (keyof L1InfoValues)[] = ["number", "timestamp", "baseFee", "hash", "sequenceNumber", "batcherHash"];
  const ecotone: (keyof L1InfoValues)[] = [...common, "baseFeeScalar", "blobBaseFeeScalar", "blobBaseFee"];
  const isthmus: (keyof L1InfoValues)[] = [...ecotone, "operatorFeeScalar", "operatorFeeConstant"];
  const fieldsOf: Record<L1InfoVariant, (keyof L1InfoValues)[]> = {
    bedrock: [...common, "l1FeeOverhead", "l1FeeScalar"],
    ecotone,
    isthmus,
    jovian: [...isthmus, "daFootprintGasScalar"],
  };
  for (const variant of ["bedrock", "ecotone", "isthmus", "jovian"] as const) {
    it(variant, () => {
      const data = encodeL1InfoCalldata(full, variant);
      expect(data.length).toBe(L1_INFO_CALLDATA_LENGTH[variant]);
      const decoded = decodeL1InfoCalldata(data);
      expect(decoded.variant).toBe(variant);
      const expected = Object.fromEntries(fieldsOf[variant].map((k) => [k, full[k]]));
      expect(decoded.values).toEqual(expected);
    });
  }

  it("Jovian layout: daFootprintGasScalar in the last 2 bytes; 0/absent encodes (and decodes) as 400", () => {
    const data = encodeL1InfoCalldata({ ...full, daFootprintGasScalar: 0x1234n }, "jovian");
    expect(to0x(data.subarray(176))).toBe("0x1234");
    expect(to0x(data.subarray(0, 176).subarray(4))).toBe(to0x(encodeL1InfoCalldata(full, "isthmus").subarray(4)));
    const { daFootprintGasScalar, ...rest } = full;
    expect(daFootprintGasScalar).toBe(0xffffn);
    expect(decodeL1InfoCalldata(encodeL1InfoCalldata(rest, "jovian")).values.daFootprintGasScalar).toBe(400n);
    expect(to0x(encodeL1InfoCalldata({ ...full, daFootprintGasScalar: 0n }, "jovian").subarray(176))).toBe("0x0190");
    const raw0 = encodeL1InfoCalldata(full, "jovian");
    raw0[176] = 0;
    raw0[177] = 0;
    expect(decodeL1InfoCalldata(raw0).values.daFootprintGasScalar).toBe(DEFAULT_DA_FOOTPRINT_GAS_SCALAR);
    expect(effectiveDaFootprintGasScalar(undefined)).toBe(400n);
    expect(effectiveDaFootprintGasScalar(7n)).toBe(7n);
  });
});

describe("malformed L1-info calldata", () => {
  it("missing selector", () => {
    expect(errorCode(() => decodeL1InfoCalldata(fromHex("0x440a5e")))).toBe("L1_INFO_MISSING_SELECTOR");
  });

  it("unknown selector, named in the message", () => {
    expect(errorCode(() => decodeL1InfoCalldata(fromHex("0xdeadbeef" + "00".repeat(160))))).toBe("L1_INFO_UNKNOWN_SELECTOR");
    expect(() => decodeL1InfoCalldata(fromHex("0xdeadbeef"))).toThrow("unknown L1-info selector 0xdeadbeef");
  });

  it("wrong length for the selector's variant", () => {
    for (const raw of [RAW_BEDROCK_INFO_TX, RAW_ECOTONE_INFO_TX, RAW_ISTHMUS_INFO_TX]) {
      const b = fromHex(raw);
      expect(errorCode(() => decodeL1InfoCalldata(b.subarray(0, b.length - 1)))).toBe("L1_INFO_BAD_LENGTH");
      const longer = new Uint8Array(b.length + 2);
      longer.set(b);
      expect(errorCode(() => decodeL1InfoCalldata(longer))).toBe("L1_INFO_BAD_LENGTH");
    }
    // Isthmus-length data under the Jovian selector.
    const j = fromHex(RAW_ISTHMUS_INFO_TX);
    j.set(fromHex("0x3db6be2b"), 0);
    expect(() => decodeL1InfoCalldata(j)).toThrow("jovian L1-info calldata has 176 bytes, 178 expected");
  });

  it("values that do not fit their field", () => {
    const v = decodeL1InfoCalldata(fromHex(RAW_ISTHMUS_INFO_TX)).values;
    expect(errorCode(() => encodeL1InfoCalldata({ ...v, baseFeeScalar: 1n << 32n }, "ecotone"))).toBe("L1_INFO_VALUE_OUT_OF_RANGE");
    expect(errorCode(() => encodeL1InfoCalldata({ ...v, number: 1n << 64n }, "bedrock"))).toBe("L1_INFO_VALUE_OUT_OF_RANGE");
    expect(errorCode(() => encodeL1InfoCalldata({ ...v, operatorFeeConstant: -1n }, "isthmus"))).toBe("L1_INFO_VALUE_OUT_OF_RANGE");
    expect(errorCode(() => encodeL1InfoCalldata({ ...v, daFootprintGasScalar: 1n << 16n }, "jovian"))).toBe("L1_INFO_VALUE_OUT_OF_RANGE");
    expect(errorCode(() => encodeL1InfoCalldata({ ...v, hash: new Uint8Array(31) }, "ecotone"))).toBe("L1_INFO_VALUE_OUT_OF_RANGE");
    // Fields of later variants are ignored by earlier layouts.
    expect(encodeL1InfoCalldata({ ...v, daFootprintGasScalar: 1n << 16n }, "isthmus").length).toBe(176);
  });
});

describe("l1InfoVariantFor — activation blocks keep the previous format", () => {
  const cfg: OpChainConfig = {
    forkTimes: { regolith: 0n, canyon: 0n, delta: 0n, ecotone: 100n, fjord: 150n, granite: 150n, holocene: 150n, isthmus: 200n, jovian: 300n },
    eip1559Elasticity: 6,
    eip1559Denominator: 50,
    eip1559DenominatorCanyon: 250,
  };
  const cases: [bigint, bigint, L1InfoVariant][] = [
    [98n, 96n, "bedrock"],
    [100n, 98n, "bedrock"],
    [102n, 100n, "ecotone"],
    [200n, 198n, "ecotone"],
    [202n, 200n, "isthmus"],
    [300n, 298n, "isthmus"],
    [302n, 300n, "jovian"],
    [101n, 99n, "bedrock"],
  ];
  for (const [ts, parent, expected] of cases) {
    it(`block at ${ts} (parent ${parent}) → ${expected}`, () => {
      expect(l1InfoVariantFor(cfg, ts, parent)).toBe(expected);
    });
  }

  it("forks active at genesis have no activation block", () => {
    const genesis: OpChainConfig = { ...cfg, forkTimes: { ...cfg.forkTimes, ecotone: 0n, isthmus: 0n, jovian: 0n } };
    expect(l1InfoVariantFor(genesis, 0n)).toBe("jovian");
    expect(l1InfoVariantFor(genesis, 2n, 0n)).toBe("jovian");
  });

  it("Isthmus and Jovian activating in the same block fall back to Ecotone", () => {
    const same: OpChainConfig = { ...cfg, forkTimes: { ...cfg.forkTimes, isthmus: 300n, jovian: 300n } };
    expect(l1InfoVariantFor(same, 300n, 298n)).toBe("ecotone");
    expect(l1InfoVariantFor(same, 302n, 300n)).toBe("jovian");
  });
});

describe("SystemConfig helpers", () => {
  it("Ecotone scalars from a versioned and an unversioned SystemConfig scalar", () => {
    expect(ecotoneScalarsFromSystemConfig(0xa6fe0n)).toEqual({ baseFeeScalar: 684000n, blobBaseFeeScalar: 0n });
    const versioned = BigInt("0x01" + "00".repeat(23) + "000c5fc5" + "00000558");
    expect(ecotoneScalarsFromSystemConfig(versioned)).toEqual({ baseFeeScalar: 1368n, blobBaseFeeScalar: 810949n });
  });

  it("batcher hash is the address left-padded to 32 bytes", () => {
    expect(to0x(batcherHashFromAddress(OP_BATCHER))).toBe("0x0000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f32985");
    expect(() => batcherHashFromAddress(new Uint8Array(19))).toThrow(L1InfoCalldataError);
  });
});

describe("deposit source hashes", () => {
  const l1Hash = fromHex("0x9ba3933dc6ce43c145349770a39c30f9b647f17668f004bd2e05c80a2e7262f7");

  it("user deposit (domain 0)", () => {
    // viem computeSourceHash.test.ts
    expect(to0x(userDepositSourceHash(l1Hash, 196))).toBe("0xd0868c8764d81f1749edb7dec4a550966963540d9fe50aefce8cdb38ea7b2213");
    // optimism contracts Hashing.t.sol test_hashDepositSource
    expect(to0x(userDepositSourceHash(fromHex("0xd25df7858efc1778118fb133ac561b138845361626dfb976699c5287ed0f4959"), 1n))).toBe(
      "0xf923fb07134d7d287cb52c770cc619e17e82606c21a875c92f4c63b65280a5cc",
    );
  });

  it("L1-info deposit (domain 1)", () => {
    expect(to0x(l1InfoSourceHash(l1Hash, 1))).toBe("0x722c43232e2f9dc07ebc07a02a3056993a2ed1328a1c81377ea99d135af39536");
    expect(to0x(l1InfoSourceHash(l1Hash, 1))).not.toBe(to0x(userDepositSourceHash(l1Hash, 1)));
  });

  it("upgrade deposit (domain 2), specs ecotone/derivation.md", () => {
    expect(to0x(upgradeSourceHash("Ecotone: L1 Block Deployment"))).toBe("0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8");
    expect(to0x(upgradeSourceHash("Ecotone: Gas Price Oracle Deployment"))).toBe(
      "0xa312b4510adf943510f05fcc8f15f86995a5066bd83ce11384688ae20e6ecf42",
    );
    expect(to0x(upgradeSourceHash("Ecotone: beacon block roots contract deployment"))).toBe(
      "0x69b763c48478b9dc2f65ada09b3d92133ec592ea715ec65ad6e7f3dc519dc00c",
    );
  });

  it("rejects a block hash that is not 32 bytes and a negative index", () => {
    expect(() => userDepositSourceHash(new Uint8Array(31), 0)).toThrow(SourceHashInputError);
    expect(() => l1InfoSourceHash(l1Hash, -1n)).toThrow(SourceHashInputError);
  });
});
