/**
 * A transaction's EIP-2718 envelope (its `serialize()` bytes), computed once per transaction
 * object: block import asks for it for the L1 fee, the DA footprint, the transactions root and
 * the stored body, and @ethereumjs re-encodes it from the fields on every call.
 */

import { keccak256 } from "../util/keccak.js";

const envelopes = new WeakMap<object, Uint8Array>();

/** `tx.serialize()`, cached per transaction object (the bytes must not be modified). */
export function envelopeOf(tx: { serialize(): Uint8Array }): Uint8Array {
  let e = envelopes.get(tx);
  if (e === undefined) {
    e = tx.serialize();
    envelopes.set(tx, e);
  }
  return e;
}

/**
 * Records `bytes` as `tx`'s envelope when the transaction was just decoded from them (a block
 * body's typed transaction is its envelope), so import never re-encodes it. The bytes are
 * copied: decoded values may be views of a buffer the caller reuses.
 */
export function rememberEnvelope(tx: object, bytes: Uint8Array): void {
  envelopes.set(tx, bytes.slice());
}

const hashes = new WeakMap<object, Uint8Array>();

/** The transaction hash (keccak-256 of its envelope), computed once per transaction object. */
export function txHashOf(tx: { serialize(): Uint8Array }): Uint8Array {
  let h = hashes.get(tx);
  if (h === undefined) {
    h = keccak256(envelopeOf(tx));
    hashes.set(tx, h);
  }
  return h;
}
