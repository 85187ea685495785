/**
 * Differential tests of BLAKE2F (0x09, EIP-152) against @ethereumjs/evm: the EEST EIP-152
 * inputs, length and final-flag errors, round counts and gas edges, random states.
 */
import { blake2b } from "@noble/hashes/blake2.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ALL_FORK_CASES, AMPLE_GAS, Differential, concat, eestInputs } from "./reference.js";

/** BLAKE2b initialisation vector (RFC 7693 §2.6). */
const IV = [
  0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n,
];

/**
 * EIP-152 test vector 5: the single final block of BLAKE2b-512("abc") — 12 rounds, h = IV with
 * the parameter block (digest length 64, fanout 1, depth 1) folded into h[0], m = "abc", t = 3.
 */
function eip152Vector5(): Uint8Array {
  const input = new Uint8Array(213);
  const view = new DataView(input.buffer);
  view.setUint32(0, 12);
  IV.forEach((w, i) => view.setBigUint64(4 + 8 * i, i === 0 ? w ^ 0x01010040n : w, true));
  input.set(new TextEncoder().encode("abc"), 68);
  view.setBigUint64(196, 3n, true);
  input[212] = 1;
  return input;
}
const EIP152_VECTOR_5 = eip152Vector5();

/** `vector` with the 4-byte round count replaced. */
function withRounds(vector: Uint8Array, rounds: number): Uint8Array {
  const out = vector.slice();
  new DataView(out.buffer).setUint32(0, rounds);
  return out;
}

/** `vector` with the final-block flag replaced. */
function withFlag(vector: Uint8Array, flag: number): Uint8Array {
  const out = vector.slice();
  out[212] = flag;
  return out;
}

describe("BLAKE2F (0x09)", () => {
  it("EIP-152 vector 5 is BLAKE2b-512 of \"abc\"", () => {
    expect(EIP152_VECTOR_5.length).toBe(213);
    expect(blake2b(new TextEncoder().encode("abc"))).toHaveLength(64);
  });

  for (const fork of ALL_FORK_CASES) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      it("computes BLAKE2b-512(\"abc\") from the EIP-152 vector", async () => {
        const res = await d.expectSameAtGasEdges(0x09, EIP152_VECTOR_5);
        expect(res.output).toEqual(blake2b(new TextEncoder().encode("abc")));
      });

      it("matches on lengths, final flags and round counts", async () => {
        const inputs = [
          new Uint8Array(0),
          EIP152_VECTOR_5.subarray(0, 212),
          concat(EIP152_VECTOR_5, new Uint8Array(1)),
          withFlag(EIP152_VECTOR_5, 0),
          withFlag(EIP152_VECTOR_5, 2),
          withFlag(EIP152_VECTOR_5, 0xff),
          withRounds(EIP152_VECTOR_5, 0),
          withRounds(EIP152_VECTOR_5, 1),
          withRounds(EIP152_VECTOR_5, 10),
          withRounds(EIP152_VECTOR_5, 11),
          withRounds(EIP152_VECTOR_5, 21),
          withRounds(EIP152_VECTOR_5, 1000),
          withRounds(EIP152_VECTOR_5, 100_000),
          withRounds(EIP152_VECTOR_5, 0xffffffff), // priced above the ample limit: out of gas
          withRounds(withFlag(EIP152_VECTOR_5, 2), 0xffffffff), // the flag check comes first either way
          new Uint8Array(213),
          new Uint8Array(213).fill(0xff).map((v, i) => (i === 212 ? 1 : i < 4 ? 0 : v)),
        ];
        for (const [i, input] of inputs.entries()) await d.expectSameAtGasEdges(0x09, input, `case ${i}`);
      });

      it("matches on random states, messages, counters and round counts", async () => {
        await fc.assert(
          fc.asyncProperty(fc.uint8Array({ minLength: 208, maxLength: 208 }), fc.nat({ max: 64 }), fc.boolean(), async (body, rounds, last) => {
            const input = concat(new Uint8Array(4), body, new Uint8Array([last ? 1 : 0]));
            new DataView(input.buffer).setUint32(0, rounds);
            await d.expectSame(0x09, input, AMPLE_GAS);
          }),
          { numRuns: 60 },
        );
      });
    });
  }

  it("matches on the EEST EIP-152 inputs (Prague)", async () => {
    const d = await Differential.create(ALL_FORK_CASES.find((f) => f.label === "prague")!);
    const inputs = eestInputs("istanbul/eip152_blake2");
    expect(inputs.length).toBeGreaterThan(20);
    for (const input of inputs) await d.expectSameAtGasEdges(0x09, input);
  });
});
