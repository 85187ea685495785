/** Byte joining for the derivation encoders. */

/**
 * The concatenation of `parts` in one allocation. Takes an array rather than arguments, so a span
 * batch of hundreds of thousands of transactions does not overflow the call stack (as spreading
 * them into `concatBytes(...)` would).
 */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
