/**
 * decodeReceiptAt (eth_getTransactionReceipt's read of one stored receipt): the same receipt as
 * decodeReceipts at every index, with the previous cumulative gas and the block-wide first log
 * index; the lazily built bloom equals logsBloom; skipValue walks every msgpack type msgpackr
 * writes; corrupt bytes fail with STORAGE_RECORD_CORRUPT.
 */
import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { arrayHeader, skipValue } from "../../../src/storage/msgpackWalk.js";
import { decodeReceiptAt, decodeReceipts, encodeReceipts } from "../../../src/storage/receiptCodec.js";
import type { StoredReceipt } from "../../../src/storage/types.js";
import { logsBloom } from "../../../src/util/bloom.js";

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);

/** Receipts of every stored shape: no logs, many logs, big data, deposit fields, pre-Byzantium root, cumulative gas past 2^32. */
function receipts(): StoredReceipt[] {
  const out: StoredReceipt[] = [];
  let cum = 0n;
  for (let i = 0; i < 40; i++) {
    cum += BigInt(21_000 + i * 7_919) + (i === 30 ? 5n * 2n ** 32n : 0n);
    const logs = Array.from({ length: i % 5 }, (_, j) => ({ address: bytes(20, i + j), topics: Array.from({ length: j % 4 }, (_, k) => bytes(32, k + i)), data: bytes(i === 7 ? 70_000 : j * 33, j) }));
    const r: StoredReceipt = { type: i % 3 === 0 ? 0x7e : i % 3, cumulativeGasUsed: cum, logs, bloom: logsBloom(logs) };
    if (i === 5) r.root = bytes(32, 9);
    else r.status = i % 11 === 3 ? 0 : 1;
    if (i % 3 === 0) {
      r.depositNonce = BigInt(i * 1_000);
      if (i % 2 === 0) r.depositReceiptVersion = 1;
    }
    out.push(r);
  }
  return out;
}

/** A receipt's fields as plain values (its bloom read through the accessor). */
const plain = (r: StoredReceipt): unknown => ({ ...r, bloom: Buffer.from(r.bloom).toString("hex") });

describe("decodeReceiptAt", () => {
  const list = receipts();
  const stored = encodeReceipts(list);
  const all = decodeReceipts(stored);

  it("answers decodeReceipts' receipt at every index, the previous cumulative gas and the first log index", () => {
    let logIndex = 0;
    for (let i = 0; i < list.length; i++) {
      const at = decodeReceiptAt(stored, i)!;
      expect(plain(at.receipt)).toEqual(plain(all[i]!));
      expect(at.previousCumulativeGas).toBe(i === 0 ? 0n : list[i - 1]!.cumulativeGasUsed);
      expect(at.firstLogIndex).toBe(logIndex);
      logIndex += list[i]!.logs.length;
    }
  });

  it("builds the bloom the store does not keep from the logs, as logsBloom", () => {
    for (const [i, r] of list.entries()) expect(Buffer.from(decodeReceiptAt(stored, i)!.receipt.bloom).equals(Buffer.from(r.bloom))).toBe(true);
  });

  it("answers undefined out of range", () => {
    expect(decodeReceiptAt(stored, list.length)).toBeUndefined();
    expect(decodeReceiptAt(stored, -1)).toBeUndefined();
    expect(decodeReceiptAt(encodeReceipts([]), 0)).toBeUndefined();
  });

  it("refuses truncated bytes with STORAGE_RECORD_CORRUPT", () => {
    expect(() => decodeReceiptAt(stored.subarray(0, 200), 39)).toThrow(expect.objectContaining({ code: "STORAGE_RECORD_CORRUPT" }));
    expect(() => decodeReceiptAt(Buffer.from([0xc1]), 0)).toThrow(expect.objectContaining({ code: "STORAGE_RECORD_CORRUPT" }));
  });
});

describe("skipValue", () => {
  it("ends every value msgpackr writes where the next begins", () => {
    const packr = new Packr({ useRecords: false, moreTypes: false });
    const values: unknown[] = [
      0, 1, 127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, -1, -32, -33, -128, -129, -40_000, -(2 ** 31) - 1, 1.5, -2.25,
      null, true, false, "", "a", "x".repeat(31), "x".repeat(32), "y".repeat(300), "z".repeat(70_000),
      bytes(0, 0), bytes(5, 1), bytes(300, 2), bytes(70_000, 3),
      [], [1, [2, [3, []]]], Array.from({ length: 20 }, (_, i) => i), Array.from({ length: 70_000 }, () => 0),
      { a: 1, b: [true, null] }, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])),
    ];
    const packed = packr.pack(values);
    const list = arrayHeader(packed, 0)!;
    expect(list.count).toBe(values.length);
    let pos = list.start;
    for (const v of values) {
      const end = skipValue(packed, pos);
      expect(packr.unpack(packed.subarray(pos, end))).toEqual(v instanceof Uint8Array ? Buffer.from(v) : v);
      pos = end;
    }
    expect(pos).toBe(packed.length);
  });
});
