/**
 * Differential tests of MODEXP (0x05) against @ethereumjs/evm: EIP-198 pricing (Byzantium),
 * EIP-2565 (Berlin … Prague), EIP-7883 pricing and EIP-7823 bounds (Osaka / Base Azul).
 */
import { Hardfork } from "@ethereumjs/common";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { precompilesFor } from "../../../../../src/execution/evm/precompiles/index.js";
import { modPow } from "../../../../../src/execution/evm/precompiles/modexp.js";
import { ALL_FORK_CASES, AMPLE_GAS, Differential, concat, eestInputs, mainnetCommon, word, type ForkCase } from "./reference.js";

/** Forks with distinct MODEXP rules, for the fixture inputs: EIP-198, EIP-2565, EIP-7883/7823. */
const RULE_FORKS: readonly ForkCase[] = [
  { label: Hardfork.Byzantium, common: () => mainnetCommon(Hardfork.Byzantium), opFork: undefined },
  ALL_FORK_CASES.find((f) => f.label === Hardfork.Prague)!,
  ALL_FORK_CASES.find((f) => f.label === Hardfork.Osaka)!,
];

/** Every fork under test, plus the EIP-198 one. */
const FORKS: readonly ForkCase[] = [RULE_FORKS[0]!, ...ALL_FORK_CASES];

/** A MODEXP input from lengths and the data after the header (the lengths need not match the data). */
function modexpInput(bLen: bigint, eLen: bigint, mLen: bigint, ...data: Uint8Array[]): Uint8Array {
  return concat(word(bLen), word(eLen), word(mLen), ...data);
}

/** `v` as `n` big-endian bytes (truncated to the low bytes). */
function be(v: bigint, n: number): Uint8Array {
  return word(v & ((1n << BigInt(8 * n)) - 1n), n);
}

/** Hand-picked inputs: the EIP-198 examples, length and exponent-head rules, bounds, zero and one moduli. */
function edgeInputs(): { what: string; input: Uint8Array }[] {
  const ff = (n: number): Uint8Array => new Uint8Array(n).fill(0xff);
  const M = (2n ** 255n - 19n) as bigint;
  return [
    { what: "empty", input: new Uint8Array(0) },
    { what: "short header", input: word(1n).subarray(0, 40) },
    { what: "EIP-198 example 1 (3^(p−1) mod p)", input: modexpInput(1n, 32n, 32n, be(3n, 1), be(M - 1n, 32), be(M, 32)) },
    { what: "EIP-198 example 2 (zero base, exponent p−1)", input: modexpInput(0n, 32n, 32n, be(M - 1n, 32), be(M, 32)) },
    { what: "huge base length", input: modexpInput((1n << 256n) - 1n, 1n, 1n, be(5n, 3)) },
    { what: "huge exponent length, Bsize = Msize = 0", input: modexpInput(0n, (1n << 255n) + 7n, 0n) },
    { what: "huge modulus length", input: modexpInput(1n, 1n, 1n << 200n, be(2n, 2)) },
    { what: "Bsize = Msize = 0, Esize = 1", input: modexpInput(0n, 1n, 0n, be(9n, 1)) },
    { what: "Bsize = Esize = Msize = 0", input: modexpInput(0n, 0n, 0n) },
    { what: "zero modulus", input: modexpInput(2n, 2n, 3n, be(0xabcdn, 2), be(0x1234n, 2), be(0n, 3)) },
    { what: "modulus 1", input: modexpInput(1n, 1n, 1n, be(7n, 1), be(3n, 1), be(1n, 1)) },
    { what: "exponent 0", input: modexpInput(1n, 1n, 2n, be(7n, 1), be(0n, 1), be(1000n, 2)) },
    { what: "Esize 0", input: modexpInput(1n, 0n, 2n, be(7n, 1), be(1000n, 2)) },
    { what: "base ≥ modulus", input: modexpInput(4n, 1n, 2n, ff(4), be(3n, 1), be(1001n, 2)) },
    { what: "data missing (reads zeros)", input: modexpInput(32n, 32n, 32n, ff(40)) },
    { what: "modulus partly past the input", input: modexpInput(1n, 1n, 4n, be(3n, 1), be(5n, 1), be(0x01n, 2)) },
    { what: "extra bytes after the modulus", input: concat(modexpInput(1n, 1n, 1n, be(3n, 1), be(5n, 1), be(7n, 1)), ff(50)) },
    { what: "exponent head: Esize < 32 with bytes after it", input: modexpInput(1n, 3n, 1n, be(3n, 1), be(0x00ffffn, 3), ff(40)) },
    { what: "exponent head: Esize 31, the modulus byte after it not counted", input: modexpInput(1n, 31n, 200n, be(3n, 1), be(1n, 31), ff(200)) },
    { what: "exponent head: Esize 32", input: modexpInput(1n, 32n, 200n, be(3n, 1), be(1n, 32), ff(200)) },
    { what: "exponent head: Esize 33", input: modexpInput(1n, 33n, 200n, be(3n, 1), be(1n, 33), ff(200)) },
    { what: "exponent head: Esize > 32", input: modexpInput(1n, 40n, 8n, be(3n, 1), ff(40), ff(8)) },
    { what: "exponent head: leading zero word, Esize > 32", input: modexpInput(1n, 40n, 8n, be(3n, 1), new Uint8Array(32), ff(8), ff(8)) },
    { what: "exponent head = 1 (bit length 0)", input: modexpInput(1n, 32n, 1n, be(3n, 1), be(1n, 32), be(13n, 1)) },
    { what: "exponent past the input (virtual zero tail)", input: modexpInput(1n, 2000n, 16n, be(3n, 1), ff(3)) },
    { what: "exponent past the input, modulus past too", input: modexpInput(2n, 300n, 40n, ff(2), ff(100)) },
    { what: "large exponent length, no exponent data", input: modexpInput(1n, 100_000n, 1n, be(3n, 1)) },
    { what: "Esize 2^31 (above @ethereumjs's legacy bound)", input: modexpInput(0n, 1n << 31n, 1n, be(3n, 1)) },
    { what: "Bsize 2^31", input: modexpInput(1n << 31n, 0n, 0n) },
    { what: "Bsize = Esize = Msize = 1024 (EIP-7823 maximum)", input: modexpInput(1024n, 1024n, 1024n, ff(1024), be(3n, 1024), ff(1024)) },
    { what: "Bsize 1025 (above EIP-7823)", input: modexpInput(1025n, 1n, 1n, ff(1025), be(3n, 1), be(7n, 1)) },
    { what: "Esize 1025 (above EIP-7823)", input: modexpInput(1n, 1025n, 1n, be(3n, 1), ff(1025), be(7n, 1)) },
    { what: "Msize 1025 (above EIP-7823)", input: modexpInput(1n, 1n, 1025n, be(3n, 1), be(3n, 1), ff(1025)) },
    { what: "Bsize = Msize = 0, Esize 1025", input: modexpInput(0n, 1025n, 0n) },
    { what: "Msize 32 vs 33 (EIP-7883 complexity step), 32", input: modexpInput(32n, 1n, 32n, ff(32), be(3n, 1), ff(32)) },
    { what: "Msize 32 vs 33 (EIP-7883 complexity step), 33", input: modexpInput(33n, 1n, 33n, ff(33), be(3n, 1), ff(33)) },
    { what: "Msize 64 / 65 (EIP-198 complexity step)", input: modexpInput(65n, 2n, 64n, ff(65), be(0x101n, 2), ff(64)) },
    { what: "Msize 1024 / 1025 (EIP-198 complexity step)", input: modexpInput(1n, 1n, 1025n, be(3n, 1), be(1n, 1), ff(1025)) },
  ];
}

describe("MODEXP (0x05)", () => {
  for (const fork of FORKS) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      it("matches on edge inputs at the price, one below, and ample gas", async () => {
        for (const { what, input } of edgeInputs()) await d.expectSameAtGasEdges(0x05, input, what);
      });

      it("matches on random inputs (lengths 0–80, data shorter or longer than they say)", async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.nat({ max: 80 }),
            fc.nat({ max: 80 }),
            fc.nat({ max: 80 }),
            fc.integer({ min: -20, max: 20 }),
            fc.uint8Array({ minLength: 260, maxLength: 260 }),
            fc.oneof(fc.constant(AMPLE_GAS), fc.nat({ max: 20_000 })),
            async (b, e, m, slack, bytes, gas) => {
              const body = bytes.subarray(0, Math.max(0, Math.min(bytes.length, b + e + m + slack)));
              await d.expectSame(0x05, modexpInput(BigInt(b), BigInt(e), BigInt(m), body), gas);
            },
          ),
          { numRuns: 80 },
        );
      });
    });
  }

  /** EEST MODEXP inputs: the EIP-198, EIP-7823 and EIP-7883 suites and the legacy modexp tests. */
  const fixtureSets = [
    { name: "byzantium/eip198_modexp_precompile", files: undefined },
    { name: "osaka/eip7823_modexp_upper_bounds", files: undefined },
    { name: "osaka/eip7883_modexp_gas_increase", files: undefined },
    { name: "static/state_tests/stPreCompiledContracts", files: /modexp/i },
  ];
  for (const fork of RULE_FORKS) {
    it(`${fork.label}: matches on the EEST MODEXP inputs`, async () => {
      const d = await Differential.create(fork);
      let count = 0;
      for (const { name, files } of fixtureSets) {
        for (const input of eestInputs(name, files)) {
          await d.expectSameAtGasEdges(0x05, input, name);
          count++;
        }
      }
      expect(count).toBeGreaterThan(300);
    }, 300_000);
  }
});

describe("MODEXP with gas far above any block", () => {
  it("prices and answers lengths the reference cannot allocate (EIP-198: the modulus past the input is 0)", () => {
    const gas = 1e15;
    for (const hf of [Hardfork.Byzantium, Hardfork.Prague]) {
      const modexp = precompilesFor(mainnetCommon(hf)).get(0x05)!;
      const input = modexpInput(1n, (1n << 29n) + 32n, 1n, be(3n, 1));
      const res = modexp(input, gas);
      expect(res.ok).toBe(true);
      expect(res.output).toEqual(new Uint8Array(1));
      // EIP-198: ((Esize − 32) × 8) × mult_complexity(1) / 20; EIP-2565: … × ceil(1/8)² / 3.
      expect(res.gasUsed).toBe(hf === Hardfork.Byzantium ? Math.floor((2 ** 29 * 8) / 20) : Math.floor((2 ** 29 * 8) / 3));
    }
    // Osaka: the exponent length is above EIP-7823's bound, a failure after the price check.
    expect(precompilesFor(mainnetCommon(Hardfork.Osaka)).get(0x05)!(modexpInput(1n, 1025n, 1n), gas).ok).toBe(false);
  });
});

describe("modPow", () => {
  /** The reference's square-and-multiply (the EIP-198 definition), for comparison. */
  function plain(b: bigint, e: bigint, m: bigint): bigint {
    let r = 1n % m;
    let x = b % m;
    for (; e > 0n; e >>= 1n) {
      if (e & 1n) r = (r * x) % m;
      x = (x * x) % m;
    }
    return r;
  }

  it("equals square-and-multiply for random operands and every window size", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 600n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 800n) - 1n }), fc.bigInt({ min: 1n, max: (1n << 300n) - 1n }), (b, e, m) => {
        expect(modPow(b, e, m)).toBe(plain(b, e, m));
      }),
      { numRuns: 300 },
    );
    for (const bits of [1, 2, 23, 24, 25, 79, 80, 239, 240, 671, 672, 1500]) {
      const e = (1n << BigInt(bits - 1)) | 0x5555n;
      expect(modPow(0xdeadbeefn, e, 1_000_000_007n)).toBe(plain(0xdeadbeefn, e, 1_000_000_007n));
    }
  });
});
