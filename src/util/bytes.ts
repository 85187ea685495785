/** Byte helpers used across subsystems. */

/** Lower-case hex without prefix. */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
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
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
