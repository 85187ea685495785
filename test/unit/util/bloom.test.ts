import { Bloom } from "@ethereumjs/vm";
import { describe, expect, it } from "vitest";
import { Packr } from "msgpackr";
import { decodeReceipts, encodeReceipts } from "../../../src/storage/receiptCodec.js";
import type { StoredReceipt } from "../../../src/storage/types.js";
import { bloomMayContain, logsBloom } from "../../../src/util/bloom.js";
import { keccak256 } from "../../../src/util/keccak.js";

describe("logs bloom membership", () => {
  it("finds every item added to an @ethereumjs bloom and rejects nearly all others", () => {
    const bloom = new Bloom();
    const added = Array.from({ length: 8 }, (_, i) => keccak256(new Uint8Array([i])).subarray(12));
    for (const a of added) bloom.add(a);
    for (const a of added) expect(bloomMayContain(bloom.bitvector, a)).toBe(true);
    let falsePositives = 0;
    for (let i = 100; i < 1100; i++) if (bloomMayContain(bloom.bitvector, keccak256(new Uint8Array([i >> 8, i & 255])).subarray(12))) falsePositives++;
    // 24 of 2048 bits set: a random item hits all three with probability ~(24/2048)^3.
    expect(falsePositives).toBeLessThan(5);
    expect(bloomMayContain(new Uint8Array(256), added[0]!)).toBe(false);
    // A bloom of the wrong size says nothing: receipts are fetched.
    expect(bloomMayContain(new Uint8Array(0), added[0]!)).toBe(true);
  });
});

describe("logs bloom of a receipt", () => {
  it("is @ethereumjs's bloom of the logs' addresses and topics", () => {
    const logs = Array.from({ length: 5 }, (_, i) => ({
      address: keccak256(new Uint8Array([1, i])).subarray(12),
      topics: Array.from({ length: i % 4 }, (_, t) => keccak256(new Uint8Array([2, i, t]))),
    }));
    const ref = new Bloom();
    for (const l of logs) {
      ref.add(l.address);
      for (const t of l.topics) ref.add(t);
    }
    expect(Buffer.from(logsBloom(logs)).toString("hex")).toBe(Buffer.from(ref.bitvector).toString("hex"));
    expect(logsBloom([])).toEqual(new Uint8Array(256));
  });

  it("is not stored with a receipt but rebuilt when read; receipts stored with one keep it", () => {
    const logs = [{ address: keccak256(new Uint8Array([9])).subarray(12), topics: [keccak256(new Uint8Array([8]))], data: Uint8Array.of(1, 2) }];
    const receipt: StoredReceipt = { type: 2, status: 1, cumulativeGasUsed: 51_000n, logs, bloom: logsBloom(logs) };
    const stored = encodeReceipts([receipt]);
    expect(stored.length).toBeLessThan(150);
    const [back] = decodeReceipts(stored);
    expect(Buffer.from(back!.bloom).toString("hex")).toBe(Buffer.from(receipt.bloom).toString("hex"));
    // The layout before: the bloom in the record (here a different one, to see which is used).
    const old = new Packr({ useRecords: false, moreTypes: false }).pack([[2, 1, 51_000, [[logs[0]!.address, logs[0]!.topics, logs[0]!.data]], new Uint8Array(256).fill(7)]]);
    expect(Buffer.from(decodeReceipts(old)[0]!.bloom).toString("hex")).toBe("07".repeat(256));
  });
});
