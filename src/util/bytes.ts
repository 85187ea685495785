/** Byte helpers used across subsystems. */

/** A Buffer view of the same bytes (no copy). */
export function asBuffer(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}
/** Lower-case hex without prefix. */
export function toHex(b: Uint8Array): string {
  return asBuffer(b).toString("hex");
}
/** 0x-prefixed lower-case hex. */
export function to0x(b: Uint8Array): string {
  return "0x" + toHex(b);
}
/** Bytes from hex with or without 0x. */
export function fromHex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h.startsWith("0x") ? h.slice(2) : h, "hex"));
}
/** Byte equality. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return asBuffer(a).equals(b);
}
