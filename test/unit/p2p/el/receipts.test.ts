/**
 * The network encoding of receipts (eth/68 Receipts) against op-reth's vectors for deposit
 * receipts (base/base crates/execution/primitives/src/receipt.rs
 * `decode_deposit_receipt_regolith_roundtrip` / `_canyon_roundtrip`), and a legacy receipt as a
 * plain RLP list.
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { blockReceiptsItem, receiptNetworkBytes } from "../../../../src/p2p/el/receipts.js";
import { txNetworkItem } from "../../../../src/p2p/el/rlpItems.js";
import type { StoredReceipt } from "../../../../src/storage/types.js";

const zeroBloom = new Uint8Array(256);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const REGOLITH = "b901107ef9010c0182b741b90100" + "00".repeat(256) + "c0833d3bbf";
const CANYON = "b901117ef9010d0182b741b90100" + "00".repeat(256) + "c0833d3bbf01";

describe("receipts network encoding", () => {
  const deposit: StoredReceipt = { type: 0x7e, status: 1, cumulativeGasUsed: 46913n, logs: [], bloom: zeroBloom, depositNonce: 4012991n };

  it("encodes a Regolith deposit receipt (nonce, no version) as op-reth", () => {
    expect(hex(txNetworkItem(receiptNetworkBytes(deposit)))).toBe(REGOLITH);
  });

  it("encodes a Canyon deposit receipt (nonce and version 1) as op-reth", () => {
    expect(hex(txNetworkItem(receiptNetworkBytes({ ...deposit, depositReceiptVersion: 1 })))).toBe(CANYON);
  });

  it("keeps a legacy receipt a plain RLP list inside the block's list", () => {
    const legacy: StoredReceipt = { type: 0, status: 0, cumulativeGasUsed: 1n, logs: [{ address: new Uint8Array(20).fill(0x11), topics: [new Uint8Array(32)], data: Uint8Array.of(1, 0, 255) }], bloom: zeroBloom };
    const item = blockReceiptsItem([legacy, { ...deposit, depositReceiptVersion: 1 }]);
    const decoded = RLP.decode(item) as unknown[];
    expect(Array.isArray(decoded[0])).toBe(true);
    expect((decoded[0] as Uint8Array[])[0]).toEqual(new Uint8Array(0));
    expect(hex(RLP.encode(decoded[1] as Uint8Array))).toBe(CANYON);
  });
});
