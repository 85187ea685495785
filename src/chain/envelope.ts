/**
 * A transaction's EIP-2718 envelope (its `serialize()` bytes), computed once per transaction
 * object: block import asks for it for the L1 fee, the DA footprint, the transactions root and
 * the stored body, and @ethereumjs re-encodes it from the fields on every call.
 */

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
