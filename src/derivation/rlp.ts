/**
 * Strict, schema-led RLP reading for the derivation codecs, with the rules go-ethereum's
 * `rlp.Stream` applies when op-node decodes batches into Go structs: canonical sizes (a one-byte
 * string below 0x80 carries no header, long forms only from 56 bytes, no leading zero in a size),
 * canonical integers (no leading zero byte, zero is the empty string), fixed-length byte arrays
 * exactly their length, and lists holding exactly the elements the struct has.
 *
 * Items are read one level at a time, only where the schema expects them, so hostile nesting
 * costs nothing: a list where a string belongs is refused at its header. Every refusal goes
 * through the caller's `fail`, which names the caller's error code.
 */
import { joinBytes } from "./bytes.js";
import type { DerivationCodecError } from "./codecErrors.js";

/**
 * Builds the caller's typed error from a reason; `truncated` is true when the input ends before
 * the item does (a reader of a stream cut short, by a limit or a corrupt tail, tells these apart).
 */
export type RlpFail = (reason: string, truncated?: boolean) => DerivationCodecError;

/** One RLP item inside a buffer: header at `start`, content `[contentStart, end)`. */
export interface RlpItem {
  list: boolean;
  start: number;
  contentStart: number;
  end: number;
}

/** Reads a big-endian size of `n` bytes at `p` (n ≤ 8); the caller checks it against the input. */
function readSize(buf: Uint8Array, p: number, n: number): number {
  let size = 0;
  for (let i = 0; i < n; i++) size = size * 256 + buf[p + i]!;
  return size;
}

/** An RLP header: kind, where the content starts, and the size it declares (not yet checked against the input). */
interface RlpHeader {
  list: boolean;
  contentStart: number;
  size: number;
}

/**
 * The header at `pos` (before `end`), canonical: long forms only from 56 bytes and without a
 * leading zero in the size. A byte below 0x80 is a one-byte string with no header.
 */
export function rlpHeader(buf: Uint8Array, pos: number, end: number, fail: RlpFail): RlpHeader {
  if (pos >= end) throw fail(`input ends at offset ${pos} where an RLP item was expected`, true);
  const b = buf[pos]!;
  if (b < 0x80) return { list: false, contentStart: pos, size: 1 };
  const list = b >= 0xc0;
  if (list ? b < 0xf8 : b < 0xb8) return { list, contentStart: pos + 1, size: b - (list ? 0xc0 : 0x80) };
  const lenOfLen = b - (list ? 0xf7 : 0xb7);
  if (pos + 1 + lenOfLen > end) throw fail(`RLP size of ${lenOfLen} bytes at offset ${pos} runs past the input`, true);
  if (buf[pos + 1] === 0) throw fail(`non-canonical RLP size at offset ${pos}: leading zero byte`);
  const size = readSize(buf, pos + 1, lenOfLen);
  if (size < 56) throw fail(`non-canonical RLP size at offset ${pos}: long form for ${size} bytes`);
  return { list, contentStart: pos + 1 + lenOfLen, size };
}

/**
 * The item whose header is at `pos`; it must end by `end`. Refuses non-canonical headers, and a
 * single-byte string below 0x80 given a header.
 */
export function rlpItem(buf: Uint8Array, pos: number, end: number, fail: RlpFail): RlpItem {
  const { list, contentStart, size } = rlpHeader(buf, pos, end, fail);
  if (size > end - contentStart) throw fail(`RLP ${list ? "list" : "string"} at offset ${pos} declares ${size} bytes but ${end - contentStart} remain`, true);
  if (!list && size === 1 && contentStart > pos && buf[contentStart]! < 0x80) {
    throw fail(`non-canonical RLP at offset ${pos}: single byte below 0x80 with a header`);
  }
  return { list, start: pos, contentStart, end: contentStart + size };
}

/** The items of the list `item`, which must fill it exactly; `count` (when given) is how many it must hold. */
export function rlpListItems(buf: Uint8Array, item: RlpItem, fail: RlpFail, what: string, count?: number): RlpItem[] {
  if (!item.list) throw fail(`${what} is a string, expected a list`);
  const items: RlpItem[] = [];
  for (let p = item.contentStart; p < item.end; ) {
    if (count !== undefined && items.length === count) throw fail(`${what} has more than ${count} elements`);
    const it = rlpItem(buf, p, item.end, fail);
    items.push(it);
    p = it.end;
  }
  if (count !== undefined && items.length !== count) throw fail(`${what} has ${items.length} elements, expected ${count}`);
  return items;
}

/** The content of the string `item` (a view into `buf`). */
export function rlpBytes(buf: Uint8Array, item: RlpItem, fail: RlpFail, what: string): Uint8Array {
  if (item.list) throw fail(`${what} is a list, expected a byte string`);
  return buf.subarray(item.contentStart, item.end);
}

/** The content of the string `item`, which must be exactly `length` bytes (a hash, an address). */
export function rlpFixed(buf: Uint8Array, item: RlpItem, length: number, fail: RlpFail, what: string): Uint8Array {
  const b = rlpBytes(buf, item, fail, what);
  if (b.length !== length) throw fail(`${what} is ${b.length} bytes, expected ${length}`);
  return b;
}

/**
 * The content of the string `item` checked as a canonical unsigned integer (no leading zero byte;
 * zero is the empty string), at most `maxBytes` long when given (8 for u64, 32 for u256, none for
 * Go's big.Int).
 */
export function rlpUintBytes(buf: Uint8Array, item: RlpItem, fail: RlpFail, what: string, maxBytes?: number): Uint8Array {
  const b = rlpBytes(buf, item, fail, what);
  if (b.length > 0 && b[0] === 0) throw fail(`${what} is a non-canonical integer (leading zero byte)`);
  if (maxBytes !== undefined && b.length > maxBytes) throw fail(`${what} is ${b.length} bytes, more than ${maxBytes}`);
  return b;
}

/** The canonical unsigned integer in the string `item` (see {@link rlpUintBytes}). */
export function rlpUint(buf: Uint8Array, item: RlpItem, fail: RlpFail, what: string, maxBytes?: number): bigint {
  let v = 0n;
  for (const x of rlpUintBytes(buf, item, fail, what, maxBytes)) v = (v << 8n) | BigInt(x);
  return v;
}

/** The RLP list of already-encoded items (each a complete RLP item): header ++ items. */
export function rlpListOfEncoded(items: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const it of items) size += it.length;
  return joinBytes([rlpListHeader(size), ...items]);
}

/** The header of a list of `size` content bytes. */
function rlpListHeader(size: number): Uint8Array {
  if (size < 56) return Uint8Array.of(0xc0 + size);
  const len: number[] = [];
  for (let v = size; v > 0; v = Math.floor(v / 256)) len.unshift(v % 256);
  return Uint8Array.of(0xf7 + len.length, ...len);
}
