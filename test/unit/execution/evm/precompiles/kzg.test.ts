/**
 * Differential tests of POINT_EVALUATION (0x0a, EIP-4844) against @ethereumjs/evm with basalt's
 * KZG (micro-eth-signer, the Ethereum trusted setup): the EEST point-evaluation inputs (incl. the
 * external c-kzg vectors), a fresh proof, and corrupted variants of it.
 */
import { Hardfork } from "@ethereumjs/common";
import { sha256 } from "@noble/hashes/sha2.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { KZG } from "micro-eth-signer/kzg.js";
import { customCrypto } from "../../../../../src/chain/crypto.js";
import { ALL_FORK_CASES, Differential, concat, eestInputs, hex, word } from "./reference.js";

/** BLS12-381 scalar field modulus (EIP-4844 `BLS_MODULUS`). */
const BLS_MODULUS = 52435875175126190479447740508185965837690552500527637822603658699938581184513n;

/** A point-evaluation input for a blob whose i-th field element is i² + 7, opened at `z`. */
function freshInput(z: bigint): Uint8Array {
  const kzg = customCrypto().kzg as unknown as KZG;
  const blob = Array.from({ length: 4096 }, (_, i) => BigInt(i * i + 7));
  const commitment = hex(kzg.blobToKzgCommitment(blob));
  const [proof, y] = kzg.computeProof(blob, z);
  const versioned = sha256(commitment);
  versioned[0] = 1;
  return concat(versioned, word(z), hex(y), commitment, hex(proof));
}

/** `input` with `bytes` written at `offset`. */
function patched(input: Uint8Array, offset: number, bytes: Uint8Array): Uint8Array {
  const out = input.slice();
  out.set(bytes, offset);
  return out;
}

describe("POINT_EVALUATION (0x0a)", () => {
  let valid: Uint8Array;
  beforeAll(() => {
    valid = freshInput(0x1234n);
  });

  /** The fresh proof and its corruptions. */
  function cases(): Uint8Array[] {
    const infinity = concat(new Uint8Array([0xc0]), new Uint8Array(47));
    const otherCommitment = patched(valid, 96, infinity);
    const versionedForOther = sha256(otherCommitment.subarray(96, 144));
    versionedForOther[0] = 1;
    return [
      valid,
      new Uint8Array(0),
      valid.subarray(0, 191),
      concat(valid, new Uint8Array(1)),
      patched(valid, 0, new Uint8Array([2])), // wrong version byte
      patched(valid, 31, new Uint8Array([valid[31]! ^ 1])), // wrong versioned hash
      patched(valid, 64, word(BigInt("0x" + Buffer.from(valid.subarray(64, 96)).toString("hex")) + 1n)), // wrong y
      patched(valid, 32, word(BLS_MODULUS)), // z not canonical
      patched(valid, 64, word(BLS_MODULUS + 5n)), // y not canonical
      patched(valid, 144, infinity), // proof at infinity
      patched(otherCommitment, 0, versionedForOther), // commitment at infinity, matching hash
      patched(valid, 150, new Uint8Array([0xff])), // proof not a curve point
      new Uint8Array(192),
    ];
  }

  for (const fork of ALL_FORK_CASES) {
    it(`${fork.label}: a fresh proof and its corruptions`, async () => {
      const d = await Differential.create(fork);
      const all = cases();
      for (const [i, input] of all.entries()) await d.expectSameAtGasEdges(0x0a, input, `case ${i}`);
      const ok = await d.expectSame(0x0a, valid, 50_000);
      expect(ok.ok).toBe(true);
      expect(ok.output).toEqual(concat(word(4096n), word(BLS_MODULUS)));
    }, 120_000);
  }

  it("matches on the EEST point-evaluation inputs, incl. the external KZG vectors (Cancun)", async () => {
    const d = await Differential.create(ALL_FORK_CASES.find((f) => f.label === Hardfork.Cancun)!);
    const inputs = eestInputs("cancun/eip4844_blobs", /external_vectors|invalid_inputs|valid_inputs|gas_usage|call_opcode|tx_entry|before_fork/);
    expect(inputs.length).toBeGreaterThan(100);
    let successes = 0;
    for (const input of inputs) if ((await d.expectSameAtGasEdges(0x0a, input)).ok) successes++;
    expect(successes).toBeGreaterThan(10);
  }, 600_000);
});
