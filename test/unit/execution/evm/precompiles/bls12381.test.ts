/**
 * Differential tests of the EIP-2537 BLS12-381 precompiles (0x0b–0x11) against @ethereumjs/evm
 * (its `NobleBLS`), at Prague, Osaka and the OP forks Isthmus, Jovian and Azul: the EEST
 * EIP-2537 inputs, encoding/curve/subgroup edge cases, MSM sizes across the Pippenger switch,
 * and random inputs.
 */
import { Hardfork } from "@ethereumjs/common";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { msmGas, G1_MSM_DISCOUNT, G2_MSM_DISCOUNT } from "../../../../../src/execution/evm/precompiles/bls12381Gas.js";
import { ALL_FORK_CASES, AMPLE_GAS, Differential, concat, eestInputs, word } from "./reference.js";

const { Fp, Fp2, Fr } = bls12_381.fields;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
type G1P = ReturnType<typeof G1.fromAffine>;
type G2P = ReturnType<typeof G2.fromAffine>;

/** Forks with EIP-2537. */
const FORKS = ALL_FORK_CASES.filter((f) => [Hardfork.Prague, Hardfork.Osaka, "op-isthmus", "op-jovian", "op-azul"].includes(f.label));

/** A base-field element as 64 bytes. */
const fp = (v: bigint): Uint8Array => word(v, 64);
/** A G1 point as 128 bytes (infinity: zeros). */
function g1(p: G1P): Uint8Array {
  if (p.is0()) return new Uint8Array(128);
  const { x, y } = p.toAffine();
  return concat(fp(x), fp(y));
}
/** A G2 point as 256 bytes (infinity: zeros). */
function g2(p: G2P): Uint8Array {
  if (p.is0()) return new Uint8Array(256);
  const { x, y } = p.toAffine();
  return concat(fp(x.c0), fp(x.c1), fp(y.c0), fp(y.c1));
}

/** A G1 point on the curve outside the order-r subgroup. */
function g1OutsideSubgroup(): Uint8Array {
  for (let x = 1n; ; x++) {
    try {
      const y = Fp.sqrt(Fp.add(Fp.mul(Fp.sqr(x), x), 4n));
      const p = G1.fromAffine({ x, y });
      if (!p.isTorsionFree()) return concat(fp(x), fp(y));
    } catch {
      // not a square: next x
    }
  }
}

/** A G2 point on the twist outside the order-r subgroup. */
function g2OutsideSubgroup(): Uint8Array {
  const b = G2.CURVE().b;
  for (let i = 1n; ; i++) {
    const x = Fp2.create({ c0: i, c1: 1n });
    try {
      const y = Fp2.sqrt(Fp2.add(Fp2.mul(Fp2.sqr(x), x), b));
      const p = G2.fromAffine({ x, y });
      if (!p.isTorsionFree()) return concat(fp(x.c0), fp(x.c1), fp(y.c0), fp(y.c1));
    } catch {
      // not a square: next x
    }
  }
}

/** `bytes` with byte `index` set to `value`. */
function poke(bytes: Uint8Array, index: number, value: number): Uint8Array {
  const out = bytes.slice();
  out[index] = value;
  return out;
}

const A1 = G1.BASE.multiply(3n);
const B1 = G1.BASE.multiply(11n);
const A2 = G2.BASE.multiply(5n);
const B2 = G2.BASE.multiply(13n);
const OFF_CURVE_G1 = concat(fp(1n), fp(1n));
const OFF_CURVE_G2 = concat(fp(1n), fp(1n), fp(1n), fp(1n));
const X_IS_P_G1 = concat(fp(Fp.ORDER), fp(1n));

/** Edge inputs by address. */
function edgeInputs(): Map<number, Uint8Array[]> {
  const out1 = g1OutsideSubgroup();
  const out2 = g2OutsideSubgroup();
  const scalars = [0n, 1n, 2n, Fr.ORDER - 1n, Fr.ORDER, Fr.ORDER + 1n, (1n << 256n) - 1n];
  const g1msm = (n: number, seed: bigint): Uint8Array =>
    concat(...Array.from({ length: n }, (_, i) => concat(g1(G1.BASE.multiply(BigInt(i) * 7n + seed)), word((seed * 0x9e3779b97f4a7c15n * BigInt(i + 1)) % (1n << 256n)))));
  const g2msm = (n: number, seed: bigint): Uint8Array =>
    concat(...Array.from({ length: n }, (_, i) => concat(g2(G2.BASE.multiply(BigInt(i) * 7n + seed)), word((seed * 0x9e3779b97f4a7c15n * BigInt(i + 1)) % (1n << 256n)))));
  return new Map([
    [
      0x0b,
      [
        concat(g1(A1), g1(B1)),
        concat(g1(A1), g1(A1)),
        concat(g1(A1), g1(A1.negate())),
        concat(new Uint8Array(128), g1(B1)),
        new Uint8Array(256),
        concat(out1, g1(B1)), // not in the subgroup: allowed by G1ADD
        concat(out1, out1),
        concat(OFF_CURVE_G1, g1(B1)),
        concat(g1(A1), X_IS_P_G1),
        poke(concat(g1(A1), g1(B1)), 0, 1), // nonzero padding
        poke(concat(g1(A1), g1(B1)), 64 + 15, 1),
        concat(g1(A1), g1(B1)).subarray(0, 255),
        concat(g1(A1), g1(B1), new Uint8Array(1)),
        new Uint8Array(0),
      ],
    ],
    [
      0x0d,
      [
        concat(g2(A2), g2(B2)),
        concat(g2(A2), g2(A2)),
        concat(g2(A2), g2(A2.negate())),
        concat(new Uint8Array(256), g2(B2)),
        new Uint8Array(512),
        concat(out2, g2(B2)),
        concat(OFF_CURVE_G2, g2(B2)),
        concat(g2(A2), fp(Fp.ORDER), fp(0n), fp(1n), fp(1n)),
        poke(concat(g2(A2), g2(B2)), 256 + 64, 1),
        concat(g2(A2), g2(B2)).subarray(0, 511),
        new Uint8Array(0),
      ],
    ],
    [
      0x0c,
      [
        new Uint8Array(0),
        new Uint8Array(100), // floor(100 / 160) = 0 pairs: free, then the length check fails
        new Uint8Array(160),
        ...scalars.map((s) => concat(g1(A1), word(s))),
        concat(new Uint8Array(128), word(5n)),
        concat(out1, word(1n)), // not in the subgroup: fails
        concat(out1, word(0n)), // … even with a zero scalar
        concat(OFF_CURVE_G1, word(1n)),
        poke(concat(g1(A1), word(3n)), 3, 1),
        concat(g1(A1), word(3n)).subarray(0, 159),
        concat(g1(A1), word(3n), new Uint8Array(1)),
        ...[2, 3, 4, 5, 8, 17].map((n) => g1msm(n, BigInt(n) + 1n)),
        concat(g1msm(3, 4n), concat(new Uint8Array(128), word(9n)), concat(g1(B1), word(0n))),
      ],
    ],
    [
      0x0e,
      [
        new Uint8Array(0),
        new Uint8Array(288),
        ...scalars.map((s) => concat(g2(A2), word(s))),
        concat(out2, word(1n)),
        concat(OFF_CURVE_G2, word(1n)),
        poke(concat(g2(A2), word(3n)), 128, 1),
        concat(g2(A2), word(3n)).subarray(0, 287),
        ...[2, 3, 4, 9].map((n) => g2msm(n, BigInt(n) + 2n)),
      ],
    ],
    [
      0x0f,
      [
        new Uint8Array(0),
        new Uint8Array(384),
        concat(g1(A1), g2(A2)),
        concat(g1(A1), g2(A2), g1(A1.negate()), g2(A2)),
        concat(g1(A1.multiply(4n)), g2(A2), g1(A1.negate()), g2(A2.multiply(4n))),
        concat(g1(A1), new Uint8Array(256)),
        concat(new Uint8Array(128), g2(A2)),
        concat(out1, g2(A2)),
        concat(g1(A1), out2),
        concat(new Uint8Array(128), out2), // infinity G1 does not excuse an invalid G2
        concat(g1(A1), OFF_CURVE_G2),
        poke(concat(g1(A1), g2(A2)), 128 + 64 * 3, 1),
        concat(g1(A1), g2(A2)).subarray(0, 383),
      ],
    ],
    [
      0x10,
      [fp(0n), fp(1n), fp(Fp.ORDER - 1n), fp(Fp.ORDER), fp((1n << 384n) - 1n), poke(fp(5n), 0, 1), fp(5n).subarray(0, 63), concat(fp(5n), new Uint8Array(1)), new Uint8Array(0)],
    ],
    [
      0x11,
      [
        concat(fp(0n), fp(0n)),
        concat(fp(1n), fp(2n)),
        concat(fp(Fp.ORDER - 1n), fp(Fp.ORDER - 1n)),
        concat(fp(Fp.ORDER), fp(1n)),
        concat(fp(1n), fp(Fp.ORDER)),
        poke(concat(fp(1n), fp(2n)), 64, 1),
        concat(fp(1n), fp(2n)).subarray(0, 127),
        new Uint8Array(0),
      ],
    ],
  ]);
}

describe("BLS12-381 (0x0b–0x11)", () => {
  it("MSM prices: k = 0 … 130 pairs, both tables, against the reference", async () => {
    const d = await Differential.create(FORKS[0]!);
    // An all-zero input of k pairs costs the MSM price of k (infinity points, zero scalars).
    for (const [address, item, perPair, table] of [
      [0x0c, 160, 12_000, G1_MSM_DISCOUNT],
      [0x0e, 288, 22_500, G2_MSM_DISCOUNT],
    ] as const) {
      for (let k = 1; k <= 130; k++) {
        const res = await d.expectSame(address, new Uint8Array(k * item), AMPLE_GAS, `${k} pairs`);
        expect(res.gasUsed).toBe(msmGas(k, perPair, table));
      }
    }
  }, 120_000);

  for (const fork of FORKS) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      it("matches on edge inputs of every precompile", async () => {
        for (const [address, inputs] of edgeInputs()) {
          for (const [i, input] of inputs.entries()) await d.expectSameAtGasEdges(address, input, `case ${i}`);
        }
      }, 300_000);

      it("matches on random field elements (maps) and random bytes (all)", async () => {
        await fc.assert(
          fc.asyncProperty(fc.bigInt({ min: 0n, max: Fp.ORDER + 10n }), fc.bigInt({ min: 0n, max: Fp.ORDER - 1n }), fc.uint8Array({ maxLength: 600 }), async (u, v, noise) => {
            await d.expectSame(0x10, fp(u), AMPLE_GAS);
            await d.expectSame(0x11, concat(fp(v), fp(u)), AMPLE_GAS);
            for (const address of [0x0b, 0x0c, 0x0d, 0x0e, 0x0f]) await d.expectSame(address, noise, AMPLE_GAS);
          }),
          { numRuns: 6 },
        );
      }, 300_000);

      it("matches on random G1MSM inputs of 1–4 pairs", async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })), { minLength: 1, maxLength: 4 }), async (pairs) => {
            const input = concat(...pairs.map(([k, s]) => concat(g1(k === 0n ? G1.ZERO : G1.BASE.multiply(k)), word(s))));
            await d.expectSame(0x0c, input, AMPLE_GAS);
          }),
          { numRuns: 4 },
        );
      }, 300_000);
    });
  }

  it("matches on the EEST EIP-2537 inputs at every address (Prague)", async () => {
    const d = await Differential.create(FORKS[0]!);
    const inputs = eestInputs("prague/eip2537_bls_12_381_precompiles");
    expect(inputs.length).toBeGreaterThan(300);
    let successes = 0;
    for (const input of inputs) {
      for (const address of [0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11]) if ((await d.expectSameAtGasEdges(address, input)).ok) successes++;
    }
    expect(successes).toBeGreaterThan(25);
  }, 900_000);
});
