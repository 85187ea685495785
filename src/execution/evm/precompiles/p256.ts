/**
 * P256VERIFY (0x100): secp256r1 signature verification, RIP-7212 on OP Stack chains from
 * Fjord (3,450 gas; 6,900 from Base Azul) and EIP-7951 on Ethereum from Osaka (6,900 gas).
 *
 * Input `hash ‖ r ‖ s ‖ qx ‖ qy` (160 bytes). A valid signature returns the word 1; anything
 * else — wrong length, r or s outside [1, n), a key coordinate ≥ p or off the curve, a bad
 * signature — is a *successful* call with empty output that still charges the price. Only a gas
 * limit below the price fails. The check is `p256Verify` of `src/execution/op/precompiles.ts`,
 * the function basalt's reference engine runs for OP chains.
 */
import { p256Verify } from "../../op/precompiles.js";
import { EMPTY_OUTPUT, failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Bytes of the output word (RIP-7212 / EIP-7951). */
const OUTPUT_BYTES = 32;

/**
 * P256VERIFY at `gas`.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 2.7–3 ms for a valid signature (@noble/curves; as the reference).
 */
export function createP256Verify(gas: number): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas) return failure(gasLimit);
    if (!p256Verify(input)) return success(gas, EMPTY_OUTPUT);
    const out = new Uint8Array(OUTPUT_BYTES);
    out[OUTPUT_BYTES - 1] = 1;
    return success(gas, out);
  };
}
