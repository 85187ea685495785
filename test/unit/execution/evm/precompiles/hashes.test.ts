/**
 * Differential tests of ECRECOVER (0x01), SHA256 (0x02), RIPEMD160 (0x03) and IDENTITY (0x04)
 * against @ethereumjs/evm's precompiles, at Cancun, Prague, Osaka and the OP forks Fjord … Azul.
 */
import { Hardfork } from "@ethereumjs/common";
import { ecrecover as jsEcrecover } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { customCrypto, loadNative } from "../../../../../src/chain/crypto.js";
import { createEcrecover } from "../../../../../src/execution/evm/precompiles/ecrecover.js";
import { precompilesFor } from "../../../../../src/execution/evm/precompiles/index.js";
import { ALL_FORK_CASES, AMPLE_GAS, Differential, ReferencePrecompiles, concat, eestInputs, hex, mainnetCommon, word } from "./reference.js";

/** Order n of secp256k1 (SEC 2 §2.4.1). */
const N = secp256k1.Point.CURVE().n;
/** Field prime p of secp256k1 (SEC 2 §2.4.1). */
const P = secp256k1.Point.CURVE().p;

/** An ECRECOVER input `hash ‖ v ‖ r ‖ s` of a fresh signature of `hash` by a key derived from `seed`. */
function signed(seed: number, hash: Uint8Array): { input: Uint8Array; address: Uint8Array } {
  const sk = keccak_256(word(BigInt(seed + 1)));
  const sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, sk, { prehash: false, format: "recovered" }), "recovered");
  const pub = secp256k1.getPublicKey(sk, false).subarray(1);
  return { input: concat(hash, word(27n + BigInt(sig.recovery!)), word(sig.r), word(sig.s)), address: keccak_256(pub).subarray(12) };
}

/** Replaces 32-byte word `i` of `input`. */
function withWord(input: Uint8Array, i: number, value: bigint): Uint8Array {
  const out = input.slice();
  out.set(word(value), i * 32);
  return out;
}

/** Edge inputs of ECRECOVER built from one valid signature. */
function ecrecoverEdgeInputs(): Uint8Array[] {
  const { input } = signed(7, keccak_256(new TextEncoder().encode("basalt")));
  const r = BigInt("0x" + Buffer.from(input.subarray(64, 96)).toString("hex"));
  const flippedV = input[63] === 27 ? 28n : 27n;
  return [
    input,
    withWord(input, 1, flippedV), // the other recovery id: a different (valid) key or none
    withWord(input, 1, 0n),
    withWord(input, 1, 1n),
    withWord(input, 1, 29n),
    withWord(input, 1, 27n + (1n << 8n)), // v with a nonzero high byte
    withWord(input, 1, 27n + (1n << 255n)),
    withWord(input, 2, 0n), // r = 0
    withWord(input, 3, 0n), // s = 0
    withWord(input, 2, N), // r = n
    withWord(input, 3, N), // s = n
    withWord(input, 2, N - 1n),
    withWord(input, 3, N - 1n), // high s: accepted by recovery
    withWord(input, 3, N - BigInt("0x" + Buffer.from(input.subarray(96, 128)).toString("hex"))), // s → n − s
    withWord(input, 2, P - 1n), // r ≥ n, < p
    withWord(input, 2, r + 1n), // r whose x has no point, or another key
    withWord(input, 0, 0n), // zero hash
    withWord(input, 0, (1n << 256n) - 1n), // hash ≥ n (reduced)
    withWord(input, 0, N), // hash = n ≡ 0
    input.subarray(0, 127), // short: s loses its last byte (zero-padded)
    input.subarray(0, 96), // no s: s = 0
    input.subarray(0, 64),
    input.subarray(0, 63), // v's last byte missing: v = 0
    input.subarray(0, 1),
    new Uint8Array(0),
    new Uint8Array(128),
    concat(input, new Uint8Array([1, 2, 3])), // longer: truncated to 128
    concat(input, input),
  ];
}

describe("ECRECOVER (0x01)", () => {
  for (const fork of ALL_FORK_CASES) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      it("recovers real signatures like the reference", async () => {
        for (let i = 0; i < 8; i++) {
          const { input, address } = signed(i, keccak_256(word(BigInt(i))));
          const res = await d.expectSameAtGasEdges(0x01, input, `signature ${i}`);
          expect(res.output.subarray(12)).toEqual(address);
        }
      });

      it("matches on edge inputs (bad v, r, s, short and long input)", async () => {
        for (const [i, input] of ecrecoverEdgeInputs().entries()) await d.expectSameAtGasEdges(0x01, input, `edge ${i}`);
      });

      it("matches on random inputs", async () => {
        await fc.assert(
          fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 160 }), fc.constantFrom(0, 27, 28), async (bytes, v) => {
            const input = bytes.slice();
            if (v !== 0 && input.length >= 64) {
              input.fill(0, 32, 63);
              input[63] = v;
            }
            await d.expectSame(0x01, input, AMPLE_GAS);
          }),
          { numRuns: 60 },
        );
      });
    });
  }

  it("matches the reference on the EEST ecrecover inputs (Prague)", async () => {
    const d = await Differential.create(ALL_FORK_CASES.find((f) => f.label === Hardfork.Prague)!);
    const inputs = eestInputs("static/state_tests/stPreCompiledContracts2", /ecrecover/i);
    for (const input of inputs) await d.expectSameAtGasEdges(0x01, input);
  });

  it("the pure-JS path (no native binding) matches the reference without custom ecrecover", async () => {
    // The reference falls back to @ethereumjs/util's ecrecover when the Common has no customCrypto.ecrecover.
    const reference = await ReferencePrecompiles.create(mainnetCommon(Hardfork.Prague, { kzg: customCrypto().kzg }), undefined);
    const js = createEcrecover(3000, (h, v, r, s) => jsEcrecover(h, v, r, s), keccak_256);
    const inputs = [...ecrecoverEdgeInputs(), ...Array.from({ length: 4 }, (_, i) => signed(100 + i, keccak_256(word(BigInt(i)))).input)];
    for (const input of inputs) {
      for (const gas of [AMPLE_GAS, 3000, 2999]) {
        const want = await reference.run(0x01, input, gas);
        const got = js(input, gas);
        expect({ ...got, output: Buffer.from(got.output).toString("hex") }).toEqual({ ...want, output: Buffer.from(want.output).toString("hex") });
      }
    }
  });

  it("runs on the native binding where it loads", () => {
    // Documents which path the differential tests above exercised.
    expect(typeof loadNative()?.ecrecover === "function" || process.env.BASALT_NATIVE_CRYPTO === "0").toBe(true);
  });
});

/** Input lengths around word boundaries, plus a large one. */
const LENGTHS = [0, 1, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1024, 1025, 10_000];

describe("SHA256 (0x02), RIPEMD160 (0x03), IDENTITY (0x04)", () => {
  for (const fork of ALL_FORK_CASES) {
    describe(fork.label, () => {
      let d: Differential;
      beforeAll(async () => {
        d = await Differential.create(fork);
      });

      for (const address of [0x02, 0x03, 0x04]) {
        it(`0x0${address}: lengths around word boundaries, at the price and one below`, async () => {
          for (const n of LENGTHS) {
            const input = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
            await d.expectSameAtGasEdges(address, input, `length ${n}`);
          }
        });

        it(`0x0${address}: views into a larger buffer (nonzero byteOffset)`, async () => {
          const buffer = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
          for (const [from, to] of [
            [1, 33],
            [7, 7],
            [13, 300],
          ] as const) {
            await d.expectSameAtGasEdges(address, buffer.subarray(from, to), `view ${from}..${to}`);
          }
        });

        it(`0x0${address}: random inputs and gas limits`, async () => {
          await fc.assert(
            fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 5000 }), async (input, gas) => {
              await d.expectSame(address, input, gas);
            }),
            { numRuns: 80 },
          );
        });
      }
    });
  }

  it("the EEST hashing-precompile inputs match (Prague)", async () => {
    const d = await Differential.create(ALL_FORK_CASES.find((f) => f.label === Hardfork.Prague)!);
    const inputs = [...eestInputs("static/state_tests/stPreCompiledContracts2", /sha256|ripemd|identity/i), ...eestInputs("frontier/identity_precompile")];
    for (const input of inputs) for (const address of [0x02, 0x03, 0x04]) await d.expectSameAtGasEdges(address, input);
  });

  it("IDENTITY returns a copy, not the caller's memory", () => {
    const identity = precompilesFor(mainnetCommon(Hardfork.Prague)).get(0x04)!;
    const memory = hex("0102030405");
    const res = identity(memory.subarray(1, 4), AMPLE_GAS);
    memory.fill(0);
    expect(res).toEqual({ ok: true, gasUsed: 18, output: hex("020304") });
  });
});
