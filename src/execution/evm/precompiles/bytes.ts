/**
 * Big-endian integer ⇄ byte conversions for the curve precompiles, through Node's native hex
 * codec (several times faster than a byte loop for 32–64-byte values).
 */

/** The unsigned big-endian integer in `input[offset, offset + length)` (the range must lie in the input). */
export function readBigInt(input: Uint8Array, offset: number, length: number): bigint {
  return BigInt("0x" + Buffer.from(input.buffer, input.byteOffset + offset, length).toString("hex"));
}

/** True when `input[offset, offset + length)` is all zeros. */
export function isZero(input: Uint8Array, offset: number, length: number): boolean {
  for (let i = offset; i < offset + length; i++) if (input[i] !== 0) return false;
  return true;
}

/** Writes `value` (< 256^length, ≥ 0) big-endian into `out[offset, offset + length)`, left-padded with zeros. */
export function writeBigInt(out: Uint8Array, offset: number, length: number, value: bigint): void {
  if (value === 0n) return; // `out` is fresh (zero-filled) wherever this is used
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = "0" + hex;
  const bytes = Buffer.from(hex, "hex");
  out.set(bytes, offset + length - bytes.length);
}
