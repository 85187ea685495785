/**
 * How a block's receipts are stored (the `receipts` sub-database's values): one msgpack array of
 * packed receipts, without blooms (built from the logs when read). Readers decode the whole list,
 * one receipt of it ({@link decodeReceiptAt}), or only the logs ({@link decodeReceiptLogs}).
 */
import { Packr } from "msgpackr";
import type { Log, StoredReceipt } from "./types.js";
import { logsBloom } from "../util/bloom.js";
import { StorageError, StorageErrorCode } from "./errors.js";
import { arrayHeader, skipValue } from "./msgpackWalk.js";

const packr = new Packr({ useRecords: false, moreTypes: false });

type PackedLog = [Uint8Array, Uint8Array[], Uint8Array];
/**
 * [type, status|root, cumulativeGas, logs, bloom, depositNonce?, depositReceiptVersion?]. The bloom
 * is written as null and built from the logs when read (256 bytes a transaction saved, as reth);
 * receipts written before keep theirs.
 */
type PackedReceipt = [number, number | Uint8Array, number, PackedLog[], Uint8Array | null, number?, number?];

/** msgpack encoding of a block's receipts. */
export function encodeReceipts(receipts: StoredReceipt[]): Buffer {
  const packed: PackedReceipt[] = receipts.map((r) => {
    const p: PackedReceipt = [
      r.type,
      r.root !== undefined ? r.root : (r.status ?? 0),
      Number(r.cumulativeGasUsed),
      r.logs.map((l): PackedLog => [l.address, l.topics, l.data]),
      null,
    ];
    if (r.depositNonce !== undefined) {
      p.push(Number(r.depositNonce));
      if (r.depositReceiptVersion !== undefined) p.push(r.depositReceiptVersion);
    }
    return p;
  });
  return packr.pack(packed);
}

/** The logs of {@link encodeReceipts}' receipts, without building blooms (log index writes). */
export function decodeReceiptLogs(b: Uint8Array): { logs: Log[] }[] {
  return (packr.unpack(b) as PackedReceipt[]).map(([, , , logs]) => ({ logs: logsOfPacked(logs) }));
}

/** The logs of one packed receipt. */
function logsOfPacked(logs: PackedLog[]): Log[] {
  return logs.map(([address, topics, data]): Log => ({ address, topics, data }));
}

/**
 * A receipt whose `bloom` is built from its logs on first read, then kept. Building a bloom costs
 * three keccak256 per log address and topic (~20 µs for an ERC-20 transfer's receipt), and most
 * readers of a block's receipts never look at the blooms of most of them: eth_getTransactionReceipt
 * formats one receipt of the block, eth_getLogs reads logs. The accessor is an own enumerable
 * property, so copies (spread, structured clone, msgpack) carry the bloom's value.
 */
function withLazyBloom(type: number, cumulativeGasUsed: bigint, logs: Log[]): StoredReceipt {
  let bloom: Uint8Array | undefined;
  return {
    type,
    cumulativeGasUsed,
    logs,
    get bloom(): Uint8Array {
      return (bloom ??= logsBloom(logs));
    },
    set bloom(v: Uint8Array) {
      bloom = v;
    },
  };
}

/** One receipt of a block and what its JSON needs of the receipts before it. */
export interface ReceiptAt {
  receipt: StoredReceipt;
  /** Cumulative gas of the receipt before it (0 for the first): its `gasUsed` is the difference. */
  previousCumulativeGas: bigint;
  /** Logs of the receipts before it: its first log's block-wide `logIndex`. */
  firstLogIndex: number;
}

/**
 * Receipt `index` of {@link encodeReceipts}' bytes, decoding only it and the one before it: the
 * receipts before are skipped, reading only their log counts (eth_getTransactionReceipt; decoding
 * a 200-transaction block's receipts to format one cost most of that method's time). Undefined
 * when out of range. The receipt equals `decodeReceipts(b)[index]`.
 */
export function decodeReceiptAt(b: Uint8Array, index: number): ReceiptAt | undefined {
  const list = arrayHeader(b, 0);
  if (list === undefined) throw new StorageError({ code: StorageErrorCode.RECORD_CORRUPT, length: b.length }, "stored receipts: a msgpack array expected at byte 0");
  if (!Number.isInteger(index) || index < 0 || index >= list.count) return undefined;
  let pos = list.start;
  let firstLogIndex = 0;
  let previousStart = -1;
  for (let i = 0; i < index; i++) {
    const fields = arrayHeader(b, pos);
    if (fields === undefined || fields.count < 4) throw new StorageError({ code: StorageErrorCode.RECORD_CORRUPT, pos }, `stored receipt ${i}: an array of at least 4 fields expected at byte ${pos}`);
    // [type, status|root, cumulativeGas, logs, …]: the logs' count is all that is read.
    let p = skipValue(b, skipValue(b, skipValue(b, fields.start)));
    const logs = arrayHeader(b, p);
    if (logs === undefined) throw new StorageError({ code: StorageErrorCode.RECORD_CORRUPT, pos: p }, `stored receipt ${i}: a logs array expected at byte ${p}`);
    firstLogIndex += logs.count;
    previousStart = pos;
    p = skipValue(b, p);
    for (let f = 4; f < fields.count; f++) p = skipValue(b, p);
    pos = p;
  }
  const one = (start: number): StoredReceipt => receiptOfPacked(packr.unpack(b.subarray(start, skipValue(b, start))) as PackedReceipt);
  const receipt = one(pos);
  const previousCumulativeGas = previousStart < 0 ? 0n : one(previousStart).cumulativeGasUsed;
  return { receipt, previousCumulativeGas, firstLogIndex };
}

/** Decodes {@link encodeReceipts}. A bloom the store does not hold is built when first read ({@link withLazyBloom}). */
export function decodeReceipts(b: Uint8Array): StoredReceipt[] {
  return (packr.unpack(b) as PackedReceipt[]).map(receiptOfPacked);
}

/** One receipt of {@link encodeReceipts}' array. */
function receiptOfPacked([type, s, cum, logs, bloom, depositNonce, depositReceiptVersion]: PackedReceipt): StoredReceipt {
  const decoded = logsOfPacked(logs);
  const r: StoredReceipt =
    bloom === null || bloom === undefined ? withLazyBloom(type, BigInt(cum), decoded) : { type, cumulativeGasUsed: BigInt(cum), logs: decoded, bloom };
  if (depositNonce !== undefined) r.depositNonce = BigInt(depositNonce);
  if (depositReceiptVersion !== undefined) r.depositReceiptVersion = depositReceiptVersion;
  if (typeof s === "number") r.status = s === 1 ? 1 : 0;
  else r.root = s;
  return r;
}
