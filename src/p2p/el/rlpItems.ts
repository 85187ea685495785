/**
 * RLP building blocks the eth messages need beyond `@ethereumjs/rlp`: lists whose items are
 * already RLP-encoded (stored header and body RLP, legacy transactions) go into a response
 * without being decoded and encoded again, and integers are read strictly.
 */
import { RLP } from "@ethereumjs/rlp";

function lengthPrefix(len: number, short: number): Uint8Array {
  if (len < 56) return Uint8Array.of(short + len);
  const bytes: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  return Uint8Array.of(short + 55 + bytes.length, ...bytes);
}

/** The RLP list of already-encoded items. */
export function rlpListOfEncoded(items: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const i of items) len += i.length;
  const prefix = lengthPrefix(len, 0xc0);
  const out = new Uint8Array(prefix.length + len);
  out.set(prefix, 0);
  let pos = prefix.length;
  for (const i of items) {
    out.set(i, pos);
    pos += i.length;
  }
  return out;
}

/** The RLP encoding of a byte string. */
function rlpBytes(b: Uint8Array): Uint8Array {
  return RLP.encode(b);
}

/**
 * How a transaction travels in eth messages (EIP-2718 network form): a legacy transaction is its
 * RLP list as is, a typed one the byte string `type ‖ payload`.
 */
export function txNetworkItem(raw: Uint8Array): Uint8Array {
  return raw.length > 0 && raw[0]! >= 0xc0 ? raw : rlpBytes(raw);
}

/** The canonical bytes of a transaction item of an eth message (decoded RLP): a list is re-encoded, a byte string is the typed transaction. */
export function txRawOfItem(item: Uint8Array | unknown[]): Uint8Array {
  return item instanceof Uint8Array ? item : RLP.encode(item as never);
}

/** An RLP integer as a bigint, or undefined when `v` is not a byte string of at most 8 bytes. */
export function rlpUint(v: unknown): bigint | undefined {
  if (!(v instanceof Uint8Array) || v.length > 8) return undefined;
  let n = 0n;
  for (const b of v) n = (n << 8n) | BigInt(b);
  return n;
}
