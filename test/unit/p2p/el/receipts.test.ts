/**
 * The network encodings of receipts. eth/68: op-reth's vectors for deposit receipts (base/base
 * crates/execution/primitives/src/receipt.rs `decode_deposit_receipt_regolith_roundtrip` /
 * `_canyon_roundtrip`) and a legacy receipt as a plain RLP list. eth/69 (EIP-7642): reth's
 * `decode_receipts_69` vector (crates/net/eth-wire-types/src/receipts.rs) decoded and re-encoded
 * byte for byte, deposit receipts with their nonce and version after the logs (base/base
 * `OpReceipt::rlp_encode_fields_without_bloom`), blooms recomputed, and receipts that still carry
 * a bloom refused as such.
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { decodeResponse, encodeResponse } from "../../../../src/p2p/el/ethMessages.js";
import { blockReceiptsItem, decodeReceipt69, logsBloom, receipt69Item, receiptNetworkBytes, receiptRootBytes, verifyReceipts } from "../../../../src/p2p/el/receipts.js";
import { txNetworkItem } from "../../../../src/p2p/el/rlpItems.js";
import type { StoredReceipt } from "../../../../src/storage/types.js";
import { orderedTrieRoot } from "../../../../src/chain/orderedTrie.js";

const zeroBloom = new Uint8Array(256);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const REGOLITH = "b901107ef9010c0182b741b90100" + "00".repeat(256) + "c0833d3bbf";
const CANYON = "b901117ef9010d0182b741b90100" + "00".repeat(256) + "c0833d3bbf01";
/** reth `decode_receipts_69`: request id 5, one block of 76 receipts (the first: EIP-1559, success, 26000 gas, no logs). */
const RETH_RECEIPTS_69 =
  "f9026605f90262f9025fc60201826590c0c7800183013cd9c0c702018301a2a5c0c7010183027a36c0c702018302e03ec0c7010183034646c0c702018303ac30c0c78001830483b8c0c702018304e9a2c0c780018305c17fc0c7020183062769c0c7800183068d71c0c702018306f35bc0c702018307cb77c0c701018308a382c0c7020183097ab6c0c78080830b0156c0c70101830b6740c0c70201830bcd48c0c70101830c32f6c0c70101830c98e0c0c70201830cfecac0c70201830d64b4c0c70280830dca9ec0c70101830e30a6c0c70201830f080dc0c70201830f6e15c0c78080830fd41dc0c702018310abbac0c701018310fdc2c0c7020183116370c0c780018311c95ac0c7010183122f44c0c701808312952ec0c7020183136c7dc0c70201831443c0c0c702018314a9c8c0c7020183150f94c0c7018083169634c0c7020183176d68c0c702808317d370c0c70201831838c4c0c701808319bf64c0c70201831a256cc0c78080831bac0cc0c70201831c11d8c0c70201831c77c2c0c78080831cdd34c0c70201831db57bc0c70101831e8d07c0c70101831ef2d3c0c70201831fcb37c0c70180832030e5c0c70201832096cfc0c701018320fcb9c0c70201832162c1c0c702018321c8abc0c7020183229ffac0c70201832305c6c0c7028083236bcec0c702808323d1d6c0c702018324a91cc0c7020183250f06c0c70201832574d2c0c7020183264c15c0c70201832723b6c0c70201832789a0c0c702018327ef8ac0c7020183285574c0c702018328bb40c0c702018329212ac0c7028083298714c0c70201832a5e4ec0c70201832ac438c0c70201832b9b72c0c70201832c017ac0";

const log = { address: new Uint8Array(20).fill(0x11), topics: [new Uint8Array(32).fill(0xde)], data: Uint8Array.of(1, 0, 255) };

describe("eth/68 receipts", () => {
  const deposit: StoredReceipt = { type: 0x7e, status: 1, cumulativeGasUsed: 46913n, logs: [], bloom: zeroBloom, depositNonce: 4012991n };

  it("encodes a Regolith deposit receipt (nonce, no version) as op-reth", () => {
    expect(hex(txNetworkItem(receiptNetworkBytes(deposit)))).toBe(REGOLITH);
  });

  it("encodes a Canyon deposit receipt (nonce and version 1) as op-reth", () => {
    expect(hex(txNetworkItem(receiptNetworkBytes({ ...deposit, depositReceiptVersion: 1 })))).toBe(CANYON);
  });

  it("keeps a legacy receipt a plain RLP list inside the block's list", () => {
    const legacy: StoredReceipt = { type: 0, status: 0, cumulativeGasUsed: 1n, logs: [log], bloom: zeroBloom };
    const item = blockReceiptsItem([legacy, { ...deposit, depositReceiptVersion: 1 }]);
    const decoded = RLP.decode(item) as unknown[];
    expect(Array.isArray(decoded[0])).toBe(true);
    expect((decoded[0] as Uint8Array[])[0]).toEqual(new Uint8Array(0));
    expect(hex(RLP.encode(decoded[1] as Uint8Array))).toBe(CANYON);
  });
});

describe("eth/69 receipts", () => {
  it("decodes reth's Receipts vector and encodes it back byte for byte", () => {
    const { id, items } = decodeResponse("Receipts", Buffer.from(RETH_RECEIPTS_69, "hex"));
    expect(id).toBe(5n);
    const block = (items[0] as unknown[]).map(decodeReceipt69);
    expect(block).toHaveLength(76);
    expect(block[0]).toMatchObject({ type: 2, status: 1, cumulativeGasUsed: 26000n, logs: [] });
    expect(block[1]).toMatchObject({ type: 0, status: 1, cumulativeGasUsed: 0x013cd9n });
    const again = encodeResponse(id, [RLP.encode(block.map((r) => RLP.decode(receipt69Item(r))) as never)]);
    expect(hex(again)).toBe(RETH_RECEIPTS_69);
  });

  it("puts a deposit's nonce and version after the logs, without the bloom", () => {
    const deposit: StoredReceipt = { type: 0x7e, status: 1, cumulativeGasUsed: 46913n, logs: [], bloom: zeroBloom, depositNonce: 4012991n };
    // The eth/68 vectors above with the bloom taken out: [0x7e, 1, 0xb741, [], 0x3d3bbf(, 1)].
    expect(hex(receipt69Item(deposit))).toBe("ca7e0182b741c0833d3bbf");
    expect(hex(receipt69Item({ ...deposit, depositReceiptVersion: 1 }))).toBe("cb7e0182b741c0833d3bbf01");
    expect(hex(receipt69Item({ type: 0x7e, status: 1, cumulativeGasUsed: 1n, logs: [], bloom: zeroBloom }))).toBe("c47e0101c0");
    expect(decodeReceipt69(RLP.decode(receipt69Item({ ...deposit, depositReceiptVersion: 1 })))).toEqual({ ...deposit, depositReceiptVersion: 1 });
    expect(decodeReceipt69(RLP.decode(receipt69Item(deposit)))).toEqual(deposit);
  });

  it("recomputes the bloom of the logs (as the stored receipt's)", () => {
    const bloom = logsBloom([log]);
    expect(bloom.filter((b) => b !== 0).length).toBeGreaterThan(0);
    const r: StoredReceipt = { type: 2, status: 1, cumulativeGasUsed: 21_000n, logs: [log], bloom };
    expect(decodeReceipt69(RLP.decode(receipt69Item(r)))).toEqual(r);
  });

  it("refuses receipts that carry a bloom (eth/68's forms or an eth/69 list with a bloom put in)", () => {
    const r: StoredReceipt = { type: 2, status: 1, cumulativeGasUsed: 21_000n, logs: [log], bloom: logsBloom([log]) };
    const typed68 = RLP.decode(txNetworkItem(receiptNetworkBytes(r)));
    const legacy68 = RLP.decode(receiptNetworkBytes({ ...r, type: 0 }));
    const withBloom = RLP.decode(RLP.encode([Uint8Array.of(2), Uint8Array.of(1), Uint8Array.of(0x52, 0x08), r.bloom, [[log.address, log.topics, log.data]]]));
    for (const item of [typed68, legacy68, withBloom]) expect(() => decodeReceipt69(item)).toThrow(expect.objectContaining({ code: "P2P_PEER_FAULT", meta: { reason: "receiptsWithBloom" } }));
  });

  it("refuses malformed receipts", () => {
    expect(() => decodeReceipt69(Uint8Array.of(1, 2, 3))).toThrow(/not a list/);
    expect(() => decodeReceipt69([Uint8Array.of(2), Uint8Array.of(1)])).toThrow(/2 fields/);
    expect(() => decodeReceipt69([Uint8Array.of(2), Uint8Array.of(7), Uint8Array.of(1), []])).toThrow(/post-state-or-status/);
    // Only a deposit may carry fields after the logs.
    expect(() => decodeReceipt69([Uint8Array.of(2), Uint8Array.of(1), Uint8Array.of(1), [], Uint8Array.of(5)])).toThrow(/after the logs of a type-2/);
    expect(() => decodeReceipt69([Uint8Array.of(2), Uint8Array.of(1), Uint8Array.of(1), [[new Uint8Array(19), [], new Uint8Array(0)]]])).toThrow(/20 bytes/);
  });

  it("checks receipts against the header's root and bloom, with Regolith's nonce-less root rule", () => {
    const deposit: StoredReceipt = { type: 0x7e, status: 1, cumulativeGasUsed: 46913n, logs: [log], bloom: logsBloom([log]), depositNonce: 7n };
    const tx: StoredReceipt = { type: 2, status: 0, cumulativeGasUsed: 67913n, logs: [], bloom: zeroBloom };
    const withNonce = orderedTrieRoot([deposit, tx].map((r) => receiptRootBytes(r, false)));
    const stripped = orderedTrieRoot([deposit, tx].map((r) => receiptRootBytes(r, true)));
    expect(hex(withNonce)).not.toBe(hex(stripped));
    const bloom = logsBloom([log]);
    expect(() => verifyReceipts([deposit, tx], { receiptsRoot: withNonce, logsBloom: bloom, stripDepositNonce: false })).not.toThrow();
    expect(() => verifyReceipts([deposit, tx], { receiptsRoot: stripped, logsBloom: bloom, stripDepositNonce: true })).not.toThrow();
    expect(() => verifyReceipts([deposit, tx], { receiptsRoot: stripped, logsBloom: bloom, stripDepositNonce: false })).toThrow(expect.objectContaining({ meta: { reason: "receiptsRootMismatch" } }));
    expect(() => verifyReceipts([deposit, tx], { receiptsRoot: withNonce, logsBloom: zeroBloom, stripDepositNonce: false })).toThrow(expect.objectContaining({ meta: { reason: "receiptsBloomMismatch" } }));
    expect(() => verifyReceipts([tx], { receiptsRoot: withNonce, logsBloom: bloom, stripDepositNonce: false })).toThrow(/root/);
  });
});
