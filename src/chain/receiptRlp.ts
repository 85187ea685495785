/**
 * The EIP-2718 encoding of a receipt, written straight into one exactly sized buffer: the
 * receipts root of every block (import, building, flashblocks) encodes every receipt, and the
 * generic RLP encoder's nested arrays and intermediate concatenations were most of its cost.
 * The bytes are those of `@ethereumjs/rlp` `RLP.encode` of the same fields (tested so).
 */
import type { Log } from "../storage/types.js";

/** Bytes of an RLP length prefix for a payload of `len` bytes (string or list). */
function prefixLength(len: number): number {
  if (len < 56) return 1;
  let n = 1;
  for (let l = len; l >= 256; l = Math.floor(l / 256)) n++;
  return 1 + n;
}

/** Encoded size of a byte string. */
function stringSize(b: Uint8Array): number {
  if (b.length === 1 && b[0]! < 0x80) return 1;
  return prefixLength(b.length) + b.length;
}

function writePrefix(out: Uint8Array, pos: number, len: number, short: number): number {
  if (len < 56) {
    out[pos] = short + len;
    return pos + 1;
  }
  const bytes: number[] = [];
  for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  out[pos] = short + 55 + bytes.length;
  for (let i = 0; i < bytes.length; i++) out[pos + 1 + i] = bytes[i]!;
  return pos + 1 + bytes.length;
}

function writeString(out: Uint8Array, pos: number, b: Uint8Array): number {
  if (b.length === 1 && b[0]! < 0x80) {
    out[pos] = b[0]!;
    return pos + 1;
  }
  pos = writePrefix(out, pos, b.length, 0x80);
  out.set(b, pos);
  return pos + b.length;
}

/** Big-endian bytes of a non-negative integer without leading zeros (empty for 0). */
export function quantityBytes(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  let hex = v.toString(16);
  if (hex.length % 2 === 1) hex = "0" + hex;
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** The fields of a receipt's RLP list, in order. */
export interface ReceiptFields {
  /** Transaction type (0 = legacy: no type byte). */
  type: number;
  /** Status byte string (0x01 or empty) or the pre-Byzantium state root. */
  statusOrRoot: Uint8Array;
  cumulativeGasUsed: bigint;
  bloom: Uint8Array;
  logs: readonly Log[];
  /** Extra trailing integer fields (OP deposit nonce and receipt version). */
  extra: readonly bigint[];
}

/** `type ‖ rlp([statusOrRoot, cumulativeGasUsed, bloom, logs, ...extra])`. */
export function encodeReceiptFields(r: ReceiptFields): Uint8Array {
  const gas = quantityBytes(r.cumulativeGasUsed);
  const extras = r.extra.map(quantityBytes);
  const logSizes: number[] = [];
  let logsPayload = 0;
  for (const l of r.logs) {
    let topics = 0;
    for (const t of l.topics) topics += stringSize(t);
    const payload = stringSize(l.address) + prefixLength(topics) + topics + stringSize(l.data);
    logSizes.push(payload);
    logsPayload += prefixLength(payload) + payload;
  }
  let payload = stringSize(r.statusOrRoot) + stringSize(gas) + stringSize(r.bloom) + prefixLength(logsPayload) + logsPayload;
  for (const e of extras) payload += stringSize(e);
  const typed = r.type !== 0 ? 1 : 0;
  const out = new Uint8Array(typed + prefixLength(payload) + payload);
  let pos = 0;
  if (typed === 1) out[pos++] = r.type;
  pos = writePrefix(out, pos, payload, 0xc0);
  pos = writeString(out, pos, r.statusOrRoot);
  pos = writeString(out, pos, gas);
  pos = writeString(out, pos, r.bloom);
  pos = writePrefix(out, pos, logsPayload, 0xc0);
  r.logs.forEach((l, i) => {
    pos = writePrefix(out, pos, logSizes[i]!, 0xc0);
    pos = writeString(out, pos, l.address);
    let topics = 0;
    for (const t of l.topics) topics += stringSize(t);
    pos = writePrefix(out, pos, topics, 0xc0);
    for (const t of l.topics) pos = writeString(out, pos, t);
    pos = writeString(out, pos, l.data);
  });
  for (const e of extras) pos = writeString(out, pos, e);
  return out;
}
