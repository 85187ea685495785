/**
 * Signatures of gossiped blocks (specs rollup-node-p2p.md "Block signatures"; op-node
 * p2p/signer.go `SigningHash`): the sequencer signs
 * `keccak256(domain ‖ chainId ‖ keccak256(payloadBytes))` where `domain` is 32 zero bytes
 * (blocks v1 signing domain), `chainId` a 32-byte big-endian uint256 and `payloadBytes` the signed
 * bytes of the message (the SSZ payload, or parent beacon block root ‖ payload from v3).
 * Signatures are `r ‖ s ‖ yParity` (65 bytes, yParity 0 or 1, geth `crypto.Sign`).
 *
 * Recovery uses the native libsecp256k1 binding when it loads, else @ethereumjs/util's
 * @noble/curves recovery (src/chain/crypto.ts `loadNative`).
 */
import { ecrecover } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { loadNative } from "../../chain/crypto.js";
import { keccak256 } from "../../util/keccak.js";
import { GossipCodecError, GossipCodecErrorCode } from "./errors.js";

/** Bytes of a block signature: r, s (32 each) and the y parity byte. */
export const BLOCK_SIGNATURE_BYTES = 65;
/** The blocks signing domain, v1: 32 zero bytes (op-node `SigningDomainBlocksV1`). */
const SIGNING_DOMAIN_BLOCKS_V1 = new Uint8Array(32);
const U256_MAX = 2n ** 256n - 1n;

/** Recovery: the 64-byte public key, throwing for a signature no key recovers from. */
type Recover = (hash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array) => Uint8Array;
let recoverFn: Recover | undefined;

function recoverer(): Recover {
  if (recoverFn === undefined) {
    const native = loadNative();
    recoverFn = native === undefined ? (h, v, r, s) => ecrecover(h, v, r, s) : (h, v, r, s) => native.ecrecover(h, v, r, s);
  }
  return recoverFn;
}

/** `chainId` as a 32-byte big-endian word. */
function chainIdWord(chainId: bigint): Uint8Array {
  if (chainId < 0n || chainId > U256_MAX) throw new RangeError(`chain id ${chainId} does not fit a uint256`);
  return Uint8Array.from(Buffer.from(chainId.toString(16).padStart(64, "0"), "hex"));
}

/**
 * The hash the sequencer signs for a block on chain `chainId`:
 * `keccak256(32 zero bytes ‖ chainId (32 bytes BE) ‖ keccak256(payloadBytes))`.
 */
export function blockSigningHash(chainId: bigint, payloadBytes: Uint8Array): Uint8Array {
  const msg = new Uint8Array(96);
  msg.set(SIGNING_DOMAIN_BLOCKS_V1, 0);
  msg.set(chainIdWord(chainId), 32);
  msg.set(keccak256(payloadBytes), 64);
  return keccak256(msg);
}

/**
 * Signs the signed bytes of a block with a 32-byte secp256k1 private key, as op-node's local
 * signer does: `r ‖ s ‖ yParity` (65 bytes, low s, RFC 6979 deterministic nonce).
 */
export function signBlockPayload(privKey: Uint8Array, chainId: bigint, payloadBytes: Uint8Array): Uint8Array {
  if (privKey.length !== 32) {
    throw new GossipCodecError({ code: GossipCodecErrorCode.BAD_KEY_OR_SIGNATURE, what: "private key", length: privKey.length, expected: 32 }, `block signing key is ${privKey.length} bytes, expected 32`);
  }
  // noble's "recovered" format is recovery id ‖ r ‖ s; gossip wants r ‖ s ‖ recovery id.
  const rec = secp256k1.sign(blockSigningHash(chainId, payloadBytes), privKey, { prehash: false, format: "recovered" });
  const out = new Uint8Array(BLOCK_SIGNATURE_BYTES);
  out.set(rec.subarray(1, 65), 0);
  out[64] = rec[0]!;
  return out;
}

/**
 * The 20-byte address that signed a block's `payloadBytes` on chain `chainId` with `signature`
 * (`r ‖ s ‖ yParity`), or undefined when the signature is not 65 bytes, its y parity is not 0 or
 * 1, r or s is out of range, or no key recovers.
 */
export function recoverBlockSigner(chainId: bigint, payloadBytes: Uint8Array, signature: Uint8Array): Uint8Array | undefined {
  if (signature.length !== BLOCK_SIGNATURE_BYTES) return undefined;
  const v = signature[64]!;
  if (v !== 0 && v !== 1) return undefined;
  try {
    const pub = recoverer()(blockSigningHash(chainId, payloadBytes), BigInt(v), signature.subarray(0, 32), signature.subarray(32, 64));
    return keccak256(pub).slice(12);
  } catch {
    return undefined;
  }
}
