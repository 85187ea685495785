/**
 * ECRECOVER (0x01, Frontier; Yellow Paper appendix E): the address of the secp256k1 key that
 * signed a 32-byte hash.
 *
 * Input `hash ‖ v ‖ r ‖ s` (four 32-byte words), right-padded with zeros or truncated to 128
 * bytes. `v` must be the word 27 or 28. Any bad signature is still a *successful* call with
 * empty output (as in @ethereumjs/evm and geth); only a gas limit below the price fails.
 *
 * Recovery uses the native libsecp256k1 binding basalt loads in `src/execution/crypto.ts`
 * (`loadNative()`), and @ethereumjs/util's pure-JS `ecrecover` (@noble/curves) when the binding
 * is unavailable or `BASALT_NATIVE_CRYPTO=0`, the same fallback the reference engine uses.
 */
import type { Common } from "@ethereumjs/common";
import { ecrecover as jsEcrecover } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { loadNative } from "../../../chain/crypto.js";
import { numberParam } from "./params.js";
import { EMPTY_OUTPUT, failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Input length the precompile reads: hash, v, r, s as 32-byte words (Yellow Paper E). */
const INPUT_LENGTH = 128;
/** Offset of the 32-byte `v` word. */
const V_OFFSET = 32;
/** Offset of `r ‖ s`. */
const RS_OFFSET = 64;
/** The two accepted `v` values (27 + recovery id, pre-EIP-155 form; Yellow Paper E). */
const V_27 = 27;
const V_28 = 28;
/** Bytes of an address at the end of the 32-byte output word (left-padded with 12 zeros). */
const ADDRESS_OFFSET = 12;

/** Public-key recovery: the 64-byte uncompressed key (no 0x04 tag) of `r ‖ s` with recovery bit `v - 27`; throws on a bad signature. */
type RecoverPublicKey = (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array) => Uint8Array;
/** Keccak-256 of a byte string. */
type Keccak256 = (data: Uint8Array) => Uint8Array;

/** Scratch for the padded input: reused by every call (the precompile is synchronous, so never shared by two calls). */
const scratch = new Uint8Array(INPUT_LENGTH);

/**
 * An ECRECOVER precompile over the given recovery and hash functions (exported so tests can run
 * the native and the JS path in one process).
 */
export function createEcrecover(gas: number, recover: RecoverPublicKey, keccak256: Keccak256): Precompile {
  return (input, gasLimit) => {
    if (gasLimit < gas) return failure(gasLimit);
    const data = scratch;
    if (input.length >= INPUT_LENGTH) data.set(input.subarray(0, INPUT_LENGTH));
    else {
      data.set(input);
      data.fill(0, input.length);
    }
    // v as a 256-bit word must be exactly 27 or 28: 31 zero bytes, then 27 or 28.
    for (let i = V_OFFSET; i < RS_OFFSET - 1; i++) if (data[i] !== 0) return success(gas, EMPTY_OUTPUT);
    const v = data[RS_OFFSET - 1]!;
    if (v !== V_27 && v !== V_28) return success(gas, EMPTY_OUTPUT);
    let publicKey: Uint8Array;
    try {
      publicKey = recover(data.subarray(0, V_OFFSET), BigInt(v), data.subarray(RS_OFFSET, RS_OFFSET + 32), data.subarray(RS_OFFSET + 32, INPUT_LENGTH));
    } catch {
      return success(gas, EMPTY_OUTPUT);
    }
    const out = new Uint8Array(32);
    out.set(keccak256(publicKey).subarray(ADDRESS_OFFSET), ADDRESS_OFFSET);
    return success(gas, out);
  };
}

let defaultCrypto: { recover: RecoverPublicKey; keccak256: Keccak256 } | undefined;

/** The native recovery and keccak when they load, else the pure-JS ones (decided once per thread). */
function ecrecoverCrypto(): { recover: RecoverPublicKey; keccak256: Keccak256 } {
  if (defaultCrypto === undefined) {
    const native = loadNative();
    defaultCrypto =
      native === undefined
        ? { recover: (h, v, r, s) => jsEcrecover(h, v, r, s), keccak256: keccak_256 }
        : { recover: (h, v, r, s) => native.ecrecover(h, v, r, s), keccak256: native.keccak256 };
  }
  return defaultCrypto;
}

/**
 * ECRECOVER at the price of `common` (`ecRecoverGas`, 3,000).
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 72 µs native (reference 99 µs), ≈ 1,840 µs pure JS, for a valid signature.
 */
export function ecrecoverPrecompile(common: Common): Precompile {
  const { recover, keccak256 } = ecrecoverCrypto();
  return createEcrecover(numberParam(common, "ecRecoverGas"), recover, keccak256);
}
