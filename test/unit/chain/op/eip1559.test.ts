import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  calcNextBaseFee,
  decodeEip1559Params,
  decodeOpExtraData,
  Eip1559ParamsError,
  encodeHoloceneExtraData,
  encodeJovianExtraData,
  extraDataFromEip1559Params,
  opDefaultEip1559Params,
  opNextBaseFee,
  type OpBaseFeeParent,
} from "../../../../src/chain/op/eip1559.js";
import { OpFork, type OpChainConfig } from "../../../../src/chain/op/forks.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const VECTORS = JSON.parse(readFileSync(path.join(REPO, "..", "shared", "fixtures", "op", "op-fee-vectors.json"), "utf8"));

/** Base Sepolia fork times and EIP-1559 constants (superchain-registry base.toml, shared/reference/derivation.md §2.2). */
const BASE_SEPOLIA: OpChainConfig = {
  forkTimes: {
    regolith: 0n,
    canyon: 1699981200n,
    delta: 1703203200n,
    ecotone: 1708534800n,
    fjord: 1716998400n,
    granite: 1723478400n,
    holocene: 1732633200n,
    isthmus: 1744905600n,
    jovian: 1763568001n,
  },
  eip1559Elasticity: 10,
  eip1559Denominator: 50,
  eip1559DenominatorCanyon: 250,
};

/** A synthetic chain: Canyon at 1000, Holocene at 2000, Jovian at 3000 (Base mainnet constants 50/250/6). */
const CHAIN: OpChainConfig = {
  forkTimes: {
    regolith: 0n,
    canyon: 1000n,
    delta: 1000n,
    ecotone: 1000n,
    fjord: 1000n,
    granite: 1000n,
    holocene: 2000n,
    isthmus: 2500n,
    jovian: 3000n,
  },
  eip1559Elasticity: 6,
  eip1559Denominator: 50,
  eip1559DenominatorCanyon: 250,
};

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Eip1559ParamsError);
    return (e as Eip1559ParamsError).code;
  }
  return undefined;
}

describe("extraData vectors (op-alloy eip1559.rs)", () => {
  interface Vector {
    fork: string;
    eip1559Params: string;
    defaults?: { denominator: number; elasticity: number };
    minBaseFee?: number;
    extraData: string;
  }
  const vectors = VECTORS.extra_data as Vector[];
  vectors.forEach((v, i) => {
    it(`#${i} ${v.fork} params ${v.eip1559Params} → ${v.extraData}`, () => {
      const fork = v.fork === "jovian" ? OpFork.jovian : OpFork.holocene;
      // The Holocene vector with explicit params carries no defaults: any defaults must be ignored.
      const defaults = v.defaults ?? { denominator: 123, elasticity: 45 };
      const minBaseFee = v.minBaseFee === undefined ? undefined : BigInt(v.minBaseFee);
      const extra = extraDataFromEip1559Params(fromHex(v.eip1559Params), defaults, fork, minBaseFee);
      expect(to0x(extra)).toBe(v.extraData);
      const decoded = decodeOpExtraData(extra, fork);
      const params = decodeEip1559Params(fromHex(v.eip1559Params));
      const expected = params.denominator === 0 && params.elasticity === 0 ? defaults : params;
      expect(decoded.denominator).toBe(expected.denominator);
      expect(decoded.elasticity).toBe(expected.elasticity);
      expect(decoded.minBaseFee).toBe(minBaseFee);
    });
  });
});

describe("extraData encoding", () => {
  it("Holocene: 9 bytes, version 0, big-endian u32s; round trip", () => {
    const e = encodeHoloceneExtraData(250, 10);
    expect(to0x(e)).toBe("0x00000000fa0000000a");
    expect(decodeOpExtraData(e, OpFork.holocene)).toEqual({ denominator: 250, elasticity: 10 });
    expect(decodeOpExtraData(encodeHoloceneExtraData(0xffffffff, 1), OpFork.isthmus)).toEqual({ denominator: 0xffffffff, elasticity: 1 });
  });

  it("Jovian: 17 bytes, version 1, min base fee u64; round trip", () => {
    const e = encodeJovianExtraData(250, 6, 0x0102030405060708n);
    expect(to0x(e)).toBe("0x01000000fa000000060102030405060708");
    expect(decodeOpExtraData(e, OpFork.jovian)).toEqual({ denominator: 250, elasticity: 6, minBaseFee: 0x0102030405060708n });
    expect(decodeOpExtraData(encodeJovianExtraData(1, 2, (1n << 64n) - 1n), OpFork.azul).minBaseFee).toBe((1n << 64n) - 1n);
  });

  it("rejects values that do not fit", () => {
    expect(errorCode(() => encodeHoloceneExtraData(2 ** 32, 1))).toBe("OP_EIP1559_PARAMS_INVALID");
    expect(errorCode(() => encodeHoloceneExtraData(-1, 1))).toBe("OP_EIP1559_PARAMS_INVALID");
    expect(errorCode(() => encodeJovianExtraData(1, 1, 1n << 64n))).toBe("OP_EIP1559_PARAMS_INVALID");
  });

  it("payload attributes: minBaseFee required from Jovian, forbidden before; params length 8; none before Holocene", () => {
    const zero = new Uint8Array(8);
    const defaults = { denominator: 250, elasticity: 6 };
    expect(errorCode(() => extraDataFromEip1559Params(zero, defaults, OpFork.jovian))).toBe("OP_MIN_BASE_FEE_NOT_SET");
    expect(errorCode(() => extraDataFromEip1559Params(zero, defaults, OpFork.holocene, 0n))).toBe("OP_MIN_BASE_FEE_MUST_BE_NONE");
    expect(errorCode(() => extraDataFromEip1559Params(new Uint8Array(7), defaults, OpFork.holocene))).toBe("OP_EIP1559_PARAMS_INVALID");
    expect(errorCode(() => extraDataFromEip1559Params(zero, defaults, OpFork.granite))).toBe("OP_EXTRA_DATA_PRE_HOLOCENE");
    // Only an all-zero params value selects the defaults; a partly-zero one is kept as is (op-alloy).
    expect(to0x(extraDataFromEip1559Params(fromHex("0x0000000000000006"), defaults, OpFork.holocene))).toBe("0x000000000000000006");
  });
});

describe("extraData decoding errors", () => {
  it("wrong length", () => {
    expect(errorCode(() => decodeOpExtraData(fromHex("0x00000000fa000000"), OpFork.holocene))).toBe("OP_EXTRA_DATA_INVALID_LENGTH");
    expect(errorCode(() => decodeOpExtraData(new Uint8Array(0), OpFork.holocene))).toBe("OP_EXTRA_DATA_INVALID_LENGTH");
    // Jovian extraData is not valid Holocene extraData and vice versa.
    expect(errorCode(() => decodeOpExtraData(encodeJovianExtraData(250, 6, 0n), OpFork.isthmus))).toBe("OP_EXTRA_DATA_INVALID_LENGTH");
    expect(errorCode(() => decodeOpExtraData(encodeHoloceneExtraData(250, 6), OpFork.jovian))).toBe("OP_EXTRA_DATA_INVALID_LENGTH");
  });

  it("wrong version, with the reason in the message", () => {
    const bad = encodeHoloceneExtraData(250, 6);
    bad[0] = 1;
    expect(errorCode(() => decodeOpExtraData(bad, OpFork.holocene))).toBe("OP_EXTRA_DATA_INVALID_VERSION");
    expect(() => decodeOpExtraData(bad, OpFork.holocene)).toThrow("version byte 1, 0 expected");
    const badJ = encodeJovianExtraData(250, 6, 1n);
    badJ[0] = 0;
    expect(errorCode(() => decodeOpExtraData(badJ, OpFork.jovian))).toBe("OP_EXTRA_DATA_INVALID_VERSION");
  });

  it("no parameters before Holocene", () => {
    expect(errorCode(() => decodeOpExtraData(encodeHoloceneExtraData(250, 6), OpFork.granite))).toBe("OP_EXTRA_DATA_PRE_HOLOCENE");
  });
});

describe("calcNextBaseFee (alloy-eips vectors)", () => {
  const baseFee = [1000000000, 1000000000, 1000000000, 1072671875, 1059263476, 1049238967, 1049238967, 0, 1, 2];
  const gasUsed = [10000000, 10000000, 10000000, 9000000, 10001000, 0, 10000000, 10000000, 10000000, 10000000];
  const gasLimit = [10000000, 12000000, 14000000, 10000000, 14000000, 2000000, 18000000, 18000000, 18000000, 18000000];
  const cases: [string, number, number, number[]][] = [
    ["ethereum (8, 2)", 8, 2, [1125000000, 1083333333, 1053571428, 1179939062, 1116028649, 918084097, 1063811730, 1, 2, 3]],
    ["optimism (50, 6)", 50, 6, [1100000048, 1080000000, 1065714297, 1167067046, 1128881311, 1028254188, 1098203452, 1, 2, 3]],
    ["optimism canyon (250, 6)", 250, 6, [1020000009, 1016000000, 1013142859, 1091550909, 1073187043, 1045042012, 1059031864, 1, 2, 3]],
    ["base sepolia (50, 10)", 50, 10, [1180000000, 1146666666, 1122857142, 1244299375, 1189416692, 1028254188, 1144836295, 1, 2, 3]],
  ];
  for (const [name, denominator, elasticity, expected] of cases) {
    it(name, () => {
      for (let i = 0; i < baseFee.length; i++) {
        expect(calcNextBaseFee(BigInt(gasUsed[i]!), BigInt(gasLimit[i]!), BigInt(baseFee[i]!), denominator, elasticity)).toBe(BigInt(expected[i]!));
      }
    });
  }

  it("rejects parameters the Rust formula would divide by zero with", () => {
    expect(errorCode(() => calcNextBaseFee(1n, 10n, 1n, 250, 0))).toBe("OP_EIP1559_PARAMS_INVALID");
    expect(errorCode(() => calcNextBaseFee(1n, 10n, 1n, 0, 6))).toBe("OP_EIP1559_PARAMS_INVALID");
    expect(errorCode(() => calcNextBaseFee(1n, 5n, 1n, 250, 6))).toBe("OP_EIP1559_PARAMS_INVALID");
    expect(calcNextBaseFee(0n, 5n, 7n, 250, 6)).toBe(7n);
  });
});

describe("opNextBaseFee fork boundaries", () => {
  const parent = (over: Partial<OpBaseFeeParent>): OpBaseFeeParent => ({
    gasUsed: 10_000_000n,
    gasLimit: 10_000_000n,
    baseFeePerGas: 1_000_000_000n,
    extraData: new Uint8Array(0),
    timestamp: 0n,
    ...over,
  });

  it("pre-Canyon: denominator 50", () => {
    expect(opDefaultEip1559Params(CHAIN, 500n)).toEqual({ denominator: 50, elasticity: 6 });
    expect(opNextBaseFee(parent({ timestamp: 500n }), CHAIN, 502n)).toBe(1100000048n);
  });

  it("Canyon denominator is chosen by the child's timestamp (first Canyon block)", () => {
    expect(opNextBaseFee(parent({ timestamp: 998n }), CHAIN, 1000n)).toBe(1020000009n);
    expect(opNextBaseFee(parent({ timestamp: 1500n }), CHAIN, 1502n)).toBe(1020000009n);
  });

  it("first Holocene block: parent is pre-Holocene, so its (empty) extraData is not read", () => {
    expect(opNextBaseFee(parent({ timestamp: 1998n, extraData: fromHex("0xdeadbeef") }), CHAIN, 2000n)).toBe(1020000009n);
  });

  it("Holocene parent: parameters from its extraData", () => {
    expect(opNextBaseFee(parent({ timestamp: 2000n, extraData: encodeHoloceneExtraData(8, 2) }), CHAIN, 2002n)).toBe(1125000000n);
    expect(opNextBaseFee(parent({ timestamp: 2600n, extraData: encodeHoloceneExtraData(50, 6) }), CHAIN, 2602n)).toBe(1100000048n);
  });

  it("Holocene parent with zero parameters: chain constants (Canyon denominator)", () => {
    expect(opNextBaseFee(parent({ timestamp: 2000n, extraData: encodeHoloceneExtraData(0, 0) }), CHAIN, 2002n)).toBe(1020000009n);
  });

  it("Holocene parent with malformed extraData is an error", () => {
    expect(errorCode(() => opNextBaseFee(parent({ timestamp: 2000n }), CHAIN, 2002n))).toBe("OP_EXTRA_DATA_INVALID_LENGTH");
    expect(errorCode(() => opNextBaseFee(parent({ timestamp: 2000n, extraData: encodeHoloceneExtraData(250, 0) }), CHAIN, 2002n))).toBe(
      "OP_EIP1559_PARAMS_INVALID",
    );
  });

  it("real Base Sepolia block 19773628 (Holocene extraData 250/10) → 507", () => {
    const p = parent({
      baseFeePerGas: 507n,
      gasUsed: 4847634n,
      gasLimit: 60000000n,
      extraData: fromHex("0x00000000fa0000000a"),
      timestamp: 1735315544n,
    });
    expect(opNextBaseFee(p, BASE_SEPOLIA, 1735315546n)).toBe(507n);
  });

  it("first Jovian block: Isthmus parent uses the Holocene rule (9-byte extraData, no minimum)", () => {
    const p = parent({ timestamp: 2998n, baseFeePerGas: 1n, gasUsed: 0n, extraData: encodeHoloceneExtraData(250, 6) });
    expect(opNextBaseFee(p, CHAIN, 3000n)).toBe(1n);
    const jovianExtra = { ...p, extraData: encodeJovianExtraData(250, 6, 10n) };
    expect(errorCode(() => opNextBaseFee(jovianExtra, CHAIN, 3000n))).toBe("OP_EXTRA_DATA_INVALID_LENGTH");
  });

  it("Jovian parent: result floored at minBaseFee from its extraData", () => {
    const p = parent({ timestamp: 3000n, baseFeePerGas: 1n, gasUsed: 15763614n, gasLimit: 144000000n, extraData: encodeJovianExtraData(0, 0, 10n) });
    expect(opNextBaseFee(p, CHAIN, 3002n)).toBe(10n);
    // At the minimum with low usage the fee cannot go below it.
    expect(opNextBaseFee({ ...p, baseFeePerGas: 10n, gasUsed: 10n }, CHAIN, 3002n)).toBe(10n);
    const big = parent({
      timestamp: 3000n,
      gasUsed: 100_000_000n,
      gasLimit: 10_000_000_000n,
      extraData: encodeJovianExtraData(250, 10, 5_000_000_000n),
    });
    expect(opNextBaseFee(big, CHAIN, 3002n)).toBe(5_000_000_000n);
    // Above the minimum the EIP-1559 result is kept.
    expect(opNextBaseFee(parent({ timestamp: 3000n, extraData: encodeJovianExtraData(250, 6, 1n) }), CHAIN, 3002n)).toBe(1020000009n);
  });

  it("Jovian parent: gas used is max(gasUsed, blobGasUsed)", () => {
    const p = parent({ timestamp: 3000n, gasUsed: 0n, blobGasUsed: 10_000_000n, extraData: encodeJovianExtraData(250, 6, 0n) });
    expect(opNextBaseFee(p, CHAIN, 3002n)).toBe(1020000009n);
    expect(opNextBaseFee({ ...p, blobGasUsed: undefined }, CHAIN, 3002n)).toBe(1_000_000_000n - 1_000_000_000n / 250n);
    // blobGasUsed below gasUsed changes nothing.
    expect(opNextBaseFee({ ...p, gasUsed: 10_000_000n, blobGasUsed: 1n }, CHAIN, 3002n)).toBe(1020000009n);
    // Before Jovian, blobGasUsed is ignored.
    const holocene = { ...p, timestamp: 2600n, extraData: encodeHoloceneExtraData(250, 6) };
    expect(opNextBaseFee(holocene, CHAIN, 2602n)).toBe(1_000_000_000n - 1_000_000_000n / 250n);
  });
});
