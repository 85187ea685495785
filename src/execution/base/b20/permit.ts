/**
 * EIP-2612 `permit` hashing and signer recovery of the B-20 tokens (base/base
 * `common/ops/permit.rs`, `PermitArgs`): the EIP-712 domain separator over
 * `(name, "1", chainId, token)`, the `Permit` struct hash, the `\x19\x01` digest, and secp256k1
 * recovery with `v` = 27/28. Hashing goes through a caller-chosen keccak so that V2 can meter it
 * (V1 does not).
 */
import { ecrecover as jsEcrecover } from "@ethereumjs/util";
import { encodeParams } from "../abi.js";
import { loadNative } from "../../../chain/crypto.js";
import { keccak256 } from "../../../util/keccak.js";
import { bytesToU256 } from "../slots.js";
import { EIP712_DOMAIN_TYPEHASH, EIP712_VERSION, PERMIT_TYPEHASH } from "./constants.js";

/** A keccak256 the caller chooses (metered or not). */
export type Hasher = (data: Uint8Array) => Uint8Array;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The EIP-712 domain separator of the token at `token` named `name` on `chainId`. */
export function domainSeparator(hash: Hasher, name: Uint8Array, chainId: bigint, token: Uint8Array): Uint8Array {
  const nameHash = bytesToU256(hash(name));
  const versionHash = bytesToU256(hash(utf8(EIP712_VERSION)));
  return hash(encodeParams(["uint256", "uint256", "uint256", "uint256", "address"], [EIP712_DOMAIN_TYPEHASH, nameHash, versionHash, chainId, token]));
}

/** The arguments of a `permit` call. */
export interface PermitArgs {
  owner: Uint8Array;
  spender: Uint8Array;
  value: bigint;
  deadline: bigint;
  v: bigint;
  r: Uint8Array;
  s: Uint8Array;
}

/** The EIP-712 digest a permit's owner signs: `keccak256(0x1901 ‖ domainSeparator ‖ structHash)`. */
export function permitDigest(hash: Hasher, separator: Uint8Array, args: PermitArgs, nonce: bigint): Uint8Array {
  const structHash = hash(encodeParams(["uint256", "address", "address", "uint256", "uint256", "uint256"], [PERMIT_TYPEHASH, args.owner, args.spender, args.value, nonce, args.deadline]));
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(separator, 2);
  buf.set(structHash, 34);
  return hash(buf);
}

/** `v` values accepted: 27 (even y) and 28 (odd y); anything else recovers no signer. */
const V_EVEN = 27n;
const V_ODD = 28n;

type Recover = (digest: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array) => Uint8Array;
let recoverImpl: Recover | undefined;

/** libsecp256k1 through basalt's native binding when it loads, else @noble/curves (via @ethereumjs/util). */
function recover(): Recover {
  if (recoverImpl === undefined) {
    const native = loadNative();
    recoverImpl = native === undefined ? (d, v, r, s) => jsEcrecover(d, v, r, s) : (d, v, r, s) => native.ecrecover(d, v, r, s);
  }
  return recoverImpl;
}

/**
 * The address that signed `digest`, or undefined when `v` is not 27/28 or the signature recovers
 * no key (r or s zero or ≥ the curve order). A high `s` recovers the same key as its low twin,
 * as alloy's `recover_address_from_prehash` (which normalizes `s`) does.
 */
export function recoverSigner(digest: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array): Uint8Array | undefined {
  if (v !== V_EVEN && v !== V_ODD) return undefined;
  let publicKey: Uint8Array;
  try {
    publicKey = recover()(digest, v, r, s);
  } catch {
    return undefined;
  }
  return keccak256(publicKey).subarray(12);
}
