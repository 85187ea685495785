/**
 * POINT_EVALUATION (0x0a, EIP-4844, Cancun): verifies a KZG proof that the blob committed to by
 * `commitment` evaluates to `y` at `z`.
 *
 * Input exactly 192 bytes: versioned hash (32) ‖ z (32) ‖ y (32) ‖ commitment (48) ‖ proof (48).
 * The versioned hash must be `version ‖ sha256(commitment)[1:]` and the proof must verify
 * (z, y canonical field elements, commitment and proof valid compressed G1 points). Output on
 * success: FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS as two 32-byte words. Price:
 * `kzgPointEvaluationPrecompileGas` (50,000), charged before the length check; every failure
 * consumes all the gas given.
 *
 * The proof check is the Common's `customCrypto.kzg.verifyProof`, the object the reference
 * uses (basalt: micro-eth-signer's KZG with the Ethereum trusted setup, `src/execution/crypto.ts`);
 * it is synchronous, so the precompile is too.
 */
import type { Common } from "@ethereumjs/common";
import { bytesToHex } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { writeBigInt } from "./bytes.js";
import { nodeDigest } from "./digest.js";
import { numberParam } from "./params.js";
import { failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Input length and layout (EIP-4844 `point_evaluation_precompile`). */
const INPUT_BYTES = 192;
const Z_OFFSET = 32;
const Y_OFFSET = 64;
const COMMITMENT_OFFSET = 96;
const PROOF_OFFSET = 144;
/** BLS12-381 scalar field modulus, the second output word (EIP-4844 `BLS_MODULUS`). */
const BLS_MODULUS = 52435875175126190479447740508185965837690552500527637822603658699938581184513n;
/** Output: two 32-byte words (EIP-4844). */
const OUTPUT_BYTES = 64;

/** The KZG verifier the precompile needs from `Common.customCrypto.kzg`. */
interface KzgProofVerifier {
  verifyProof(commitment: string, z: string, y: string, proof: string): boolean;
}

/** OpenSSL's SHA-256 for the versioned-hash check. */
const digest = nodeDigest("sha256", sha256);

/** True when `versionedHash` (32 bytes at offset 0 of `input`) is `version ‖ sha256(commitment)[1:]` (EIP-4844 `kzg_to_versioned_hash`). */
function versionedHashMatches(input: Uint8Array, version: number): boolean {
  if (input[0] !== version) return false;
  const hash = digest(input.subarray(COMMITMENT_OFFSET, PROOF_OFFSET));
  for (let i = 1; i < 32; i++) if (hash[i] !== input[i]) return false;
  return true;
}

/**
 * POINT_EVALUATION with `kzg` (undefined: every call fails — the reference throws "kzg not
 * initialized" out of the EVM instead; basalt always configures KZG).
 */
function createPointEvaluation(gas: number, version: number, fieldElementsPerBlob: number, kzg: KzgProofVerifier | undefined): Precompile {
  const output = new Uint8Array(OUTPUT_BYTES);
  writeBigInt(output, 0, 32, BigInt(fieldElementsPerBlob));
  writeBigInt(output, 32, 32, BLS_MODULUS);
  return (input, gasLimit) => {
    if (gasLimit < gas) return failure(gasLimit);
    if (input.length !== INPUT_BYTES || kzg === undefined) return failure(gasLimit);
    if (!versionedHashMatches(input, version)) return failure(gasLimit);
    try {
      const ok = kzg.verifyProof(
        bytesToHex(input.subarray(COMMITMENT_OFFSET, PROOF_OFFSET)),
        bytesToHex(input.subarray(Z_OFFSET, Y_OFFSET)),
        bytesToHex(input.subarray(Y_OFFSET, COMMITMENT_OFFSET)),
        bytesToHex(input.subarray(PROOF_OFFSET, INPUT_BYTES)),
      );
      return ok ? success(gas, output.slice()) : failure(gasLimit);
    } catch {
      return failure(gasLimit);
    }
  };
}

/**
 * POINT_EVALUATION with the prices, constants and KZG of `common`.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 28–38 ms for a valid proof (as the reference: same verifier).
 */
export function pointEvaluationPrecompile(common: Common): Precompile {
  return createPointEvaluation(
    numberParam(common, "kzgPointEvaluationPrecompileGas"),
    numberParam(common, "blobCommitmentVersionKzg"),
    numberParam(common, "fieldElementsPerBlob"),
    common.customCrypto.kzg,
  );
}
