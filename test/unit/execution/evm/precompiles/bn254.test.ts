/**
 * Differential tests of the alt_bn128 precompiles ECADD (0x06), ECMUL (0x07) and ECPAIRING
 * (0x08) against @ethereumjs/evm (its `NobleBN254`), at Byzantium prices (EIP-196/197) and at
 * EIP-1108 prices on Cancun, Prague, Osaka and the OP forks.
 */
import { Hardfork } from "@ethereumjs/common";
import { bn254 } from "@noble/curves/bn254.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_FORK_CASES, AMPLE_GAS, Differential, concat, eestInputs, mainnetCommon, word, type ForkCase } from "./reference.js";

const { Fp, Fp2, Fr } = bn254.fields;
const G1 = bn254.G1.Point;
const G2 = bn254.G2.Point;
type G1P = ReturnType<typeof G1.fromAffine>;
type G2P = ReturnType<typeof G2.fromAffine>;

/** Byzantium (EIP-196/197 prices) and every fork under test (EIP-1108 prices). */
const FORKS: readonly ForkCase[] = [{ label: Hardfork.Byzantium, common: () => mainnetCommon(Hardfork.Byzantium), opFork: undefined }, ...ALL_FORK_CASES];

/** A G1 point as 64 bytes (infinity: zeros). */
function g1(p: G1P): Uint8Array {
  if (p.is0()) return new Uint8Array(64);
  const { x, y } = p.toAffine();
  return concat(word(x), word(y));
}

/** A G2 point as 128 bytes, imaginary parts first (EIP-197). */
function g2(p: G2P): Uint8Array {
  if (p.is0()) return new Uint8Array(128);
  const { x, y } = p.toAffine();
  return concat(word(x.c1), word(x.c0), word(y.c1), word(y.c0));
}

/** Raw G2 encoding of arbitrary coordinates. */
function g2Raw(xRe: bigint, xIm: bigint, yRe: bigint, yIm: bigint): Uint8Array {
  return concat(word(xIm), word(xRe), word(yIm), word(yRe));
}

/** A point on the twist E'(Fp2) outside the order-r subgroup (x chosen so that x³ + b' is a square). */
function twistPointOutsideSubgroup(): Uint8Array {
  const b = G2.CURVE().b;
  for (let i = 1n; ; i++) {
    const x = Fp2.create({ c0: i, c1: 1n });
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b);
    let y;
    try {
      y = Fp2.sqrt(rhs);
    } catch {
      continue;
    }
    const p = G2.fromAffine({ x, y });
    if (!p.isTorsionFree()) return g2Raw(x.c0, x.c1, y.c0, y.c1);
  }
}

const P1 = G1.BASE.multiply(5n);
const P2 = G1.BASE.multiply(7n);
const Q1 = G2.BASE.multiply(3n);

/** Edge inputs of ECADD (0x06). */
function addInputs(): Uint8Array[] {
  const offCurve = concat(word(1n), word(3n));
  return [
    new Uint8Array(0),
    new Uint8Array(128),
    concat(g1(P1), g1(P2)),
    concat(g1(P1), g1(P1)), // doubling
    concat(g1(P1), g1(P1.negate())), // → infinity
    concat(g1(P1), new Uint8Array(64)),
    g1(P1), // second point missing: zeros
    g1(P1).subarray(0, 50), // truncated first point
    concat(g1(P1), g1(P2), new Uint8Array([1, 2, 3])), // extra bytes ignored
    concat(g1(G1.BASE), offCurve),
    concat(offCurve, g1(G1.BASE)),
    concat(word(Fp.ORDER), word(2n), g1(G1.BASE)), // x = p
    concat(word(1n), word(2n + Fp.ORDER), g1(G1.BASE)), // (1, 2 + p): ≡ the generator, not canonical
    concat(word(0n), word(0n), word(1n), word(2n)),
    concat(word(0n), word(1n), g1(G1.BASE)), // (0, 1): not on the curve
  ];
}

/** Edge inputs of ECMUL (0x07). */
function mulInputs(): Uint8Array[] {
  const scalars = [0n, 1n, 2n, Fr.ORDER - 1n, Fr.ORDER, Fr.ORDER + 1n, (1n << 256n) - 1n, 1n << 255n, 0x1234567890abcdefn];
  return [
    new Uint8Array(0),
    ...scalars.map((s) => concat(g1(P1), word(s))),
    ...scalars.slice(0, 3).map((s) => concat(new Uint8Array(64), word(s))),
    concat(g1(P1), word(3n)).subarray(0, 80), // scalar truncated: zero-padded on the right
    g1(P1), // no scalar: 0
    concat(g1(P1), word(9n), new Uint8Array(64).fill(0xff)), // bytes after 96 ignored
    concat(word(1n), word(3n), word(2n)), // off the curve
    concat(word(Fp.ORDER + 1n), word(2n), word(2n)),
  ];
}

/** Edge inputs of ECPAIRING (0x08). */
function pairingInputs(): Uint8Array[] {
  const outside = twistPointOutsideSubgroup();
  const badCoordinate = g2Raw(Fp.ORDER, 0n, 1n, 1n);
  return [
    new Uint8Array(0),
    new Uint8Array(192),
    new Uint8Array(191),
    new Uint8Array(193),
    concat(g1(P1), g2(Q1)), // e(P, Q) ≠ 1
    concat(g1(P1), g2(Q1), g1(P1.negate()), g2(Q1)), // e(P, Q)·e(−P, Q) = 1
    concat(g1(P1.multiply(3n)), g2(Q1), g1(P1.negate()), g2(Q1.multiply(3n))), // e(3P, Q)·e(−P, 3Q) = 1
    concat(g1(P1), new Uint8Array(128)), // infinity G2: skipped
    concat(new Uint8Array(64), g2(Q1)), // infinity G1: skipped
    concat(g1(P1), outside), // G2 outside the subgroup
    concat(new Uint8Array(64), outside), // … even when its G1 is infinity
    concat(g1(P1), badCoordinate),
    concat(new Uint8Array(64), badCoordinate),
    concat(concat(word(1n), word(3n)), g2(Q1)), // G1 off the curve
    concat(concat(word(1n), word(3n)), new Uint8Array(128)), // … with an infinity G2
    concat(g1(P1), g2Raw(1n, 2n, 3n, 4n)), // G2 off the twist
    concat(g1(P1), g2(Q1), g1(P1.negate()), g2(Q1)).subarray(0, 383),
  ];
}

describe("BN254 ECADD / ECMUL / ECPAIRING (0x06–0x08)", () => {
  for (const fork of FORKS) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      it("ECADD matches on edge inputs", async () => {
        for (const [i, input] of addInputs().entries()) await d.expectSameAtGasEdges(0x06, input, `add ${i}`);
      });

      it("ECMUL matches on edge inputs", async () => {
        for (const [i, input] of mulInputs().entries()) await d.expectSameAtGasEdges(0x07, input, `mul ${i}`);
      });

      it("ECPAIRING matches on edge inputs", async () => {
        for (const [i, input] of pairingInputs().entries()) await d.expectSameAtGasEdges(0x08, input, `pairing ${i}`);
      });

      it("ECADD and ECMUL match on random points, scalars and bytes", async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.bigInt({ min: 0n, max: Fr.ORDER - 1n }),
            fc.bigInt({ min: 0n, max: Fr.ORDER - 1n }),
            fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
            fc.uint8Array({ maxLength: 140 }),
            async (a, b, s, noise) => {
              const pa = a === 0n ? G1.ZERO : G1.BASE.multiply(a);
              const pb = b === 0n ? G1.ZERO : G1.BASE.multiply(b);
              await d.expectSame(0x06, concat(g1(pa), g1(pb)), AMPLE_GAS);
              await d.expectSame(0x07, concat(g1(pa), word(s)), AMPLE_GAS);
              await d.expectSame(0x06, noise, AMPLE_GAS);
              await d.expectSame(0x07, noise, AMPLE_GAS);
            },
          ),
          { numRuns: 15 },
        );
      });

      it("ECPAIRING matches on random bytes of pair length", async () => {
        await fc.assert(
          fc.asyncProperty(fc.uint8Array({ minLength: 192, maxLength: 192 }), fc.nat({ max: 200_000 }), async (input, gas) => {
            await d.expectSame(0x08, input, gas);
          }),
          { numRuns: 30 },
        );
      });
    });
  }

  for (const fork of [FORKS[0]!, ALL_FORK_CASES.find((f) => f.label === Hardfork.Prague)!]) {
    it(`${fork.label}: matches on the stZeroKnowledge inputs`, async () => {
      const d = await Differential.create(fork);
      const inputs = [
        ...eestInputs("static/state_tests/stZeroKnowledge", undefined, { abiBytes: true }),
        ...eestInputs("static/state_tests/stZeroKnowledge2", undefined, { abiBytes: true }),
      ];
      expect(inputs.length).toBeGreaterThan(150);
      let successes = 0;
      for (const input of inputs) {
        for (const address of [0x06, 0x07, 0x08]) {
          if (address === 0x08 && input.length % 192 !== 0) continue;
          if ((await d.expectSameAtGasEdges(address, input)).ok) successes++;
        }
      }
      expect(successes).toBeGreaterThan(100);
    }, 600_000);
  }
});
