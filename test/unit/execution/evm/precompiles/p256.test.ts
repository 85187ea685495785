/**
 * Differential tests of P256VERIFY (0x100) against the reference: @ethereumjs/evm's EIP-7951
 * precompile on Osaka, basalt's `opPrecompiles` RIP-7212 precompile on OP chains (3,450 gas from
 * Fjord, 6,900 from Base Azul). EEST EIP-7951 inputs (incl. Wycheproof), fresh signatures,
 * bound and curve edge cases, random inputs.
 */
import { Hardfork } from "@ethereumjs/common";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_FORK_CASES, Differential, concat, eestInputs, word } from "./reference.js";

/** Forks with P256VERIFY: Osaka (EIP-7951) and every OP fork from Fjord. */
const FORKS = ALL_FORK_CASES.filter((f) => f.label === Hardfork.Osaka || f.opFork !== undefined);
const { n: N, p: P } = p256.Point.CURVE();

/** A fresh valid input `hash ‖ r ‖ s ‖ qx ‖ qy`. */
function signed(seed: number): Uint8Array {
  const sk = sha256(word(BigInt(seed + 1), 48)); // < n for these seeds
  const hash = sha256(word(BigInt(seed)));
  const sig = p256.sign(hash, sk, { prehash: false });
  return concat(hash, sig, p256.getPublicKey(sk, false).subarray(1));
}

/** `input` with 32-byte word `i` (0 hash, 1 r, 2 s, 3 qx, 4 qy) replaced. */
function withWord(input: Uint8Array, i: number, v: bigint): Uint8Array {
  const out = input.slice();
  out.set(word(v), 32 * i);
  return out;
}

/** Edge inputs from one valid signature. */
function edgeInputs(): Uint8Array[] {
  const valid = signed(1);
  const s = BigInt("0x" + Buffer.from(valid.subarray(64, 96)).toString("hex"));
  return [
    valid,
    withWord(valid, 2, N - s), // the other s of the same signature (high/low): valid too
    withWord(valid, 0, 0n),
    withWord(valid, 1, 0n),
    withWord(valid, 2, 0n),
    withWord(valid, 1, N),
    withWord(valid, 2, N),
    withWord(valid, 1, N + 1n),
    withWord(withWord(valid, 3, 0n), 4, 0n), // the point at infinity
    withWord(valid, 3, P), // qx = p
    withWord(valid, 4, P),
    withWord(valid, 4, 1n), // off the curve
    valid.subarray(0, 159),
    concat(valid, new Uint8Array(1)),
    new Uint8Array(0),
    new Uint8Array(160),
  ];
}

describe("P256VERIFY (0x100)", () => {
  for (const fork of FORKS) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      it("matches on fresh signatures and edge inputs, at the price and one below", async () => {
        for (let i = 0; i < 4; i++) expect((await d.expectSameAtGasEdges(0x100, signed(10 + i))).output).toEqual(word(1n));
        for (const [i, input] of edgeInputs().entries()) await d.expectSameAtGasEdges(0x100, input, `case ${i}`);
      });

      it("matches on random inputs", async () => {
        await fc.assert(
          fc.asyncProperty(fc.uint8Array({ minLength: 150, maxLength: 170 }), fc.nat({ max: 10_000 }), async (input, gas) => {
            await d.expectSame(0x100, input, gas);
          }),
          { numRuns: 40 },
        );
      });
    });
  }

  for (const label of [Hardfork.Osaka, "op-fjord"]) {
    it(`${label}: matches on the EEST EIP-7951 inputs (incl. Wycheproof)`, async () => {
      const d = await Differential.create(FORKS.find((f) => f.label === label)!);
      const inputs = eestInputs("osaka/eip7951_p256verify_precompiles");
      expect(inputs.length).toBeGreaterThan(300);
      let valid = 0;
      for (const input of inputs) if ((await d.expectSameAtGasEdges(0x100, input)).output.length === 32) valid++;
      expect(valid).toBeGreaterThan(50);
    }, 300_000);
  }
});
