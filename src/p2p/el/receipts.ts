/**
 * Receipts in the eth/68 Receipts message: each receipt with its bloom, a legacy receipt as its
 * RLP list, a typed one as the byte string `type ‖ rlp([status, cumulativeGas, bloom, logs, …])`.
 * OP deposit receipts (type 0x7e) carry `depositNonce` (Regolith+) and `depositReceiptVersion`
 * (Canyon+) after the logs whenever the receipt has them, as op-reth's `OpReceipt` network
 * encoding (`ReceiptWithBloom<OpReceipt>`; base/base crates/execution/primitives receipt tests)
 * — unlike the receipts root of Regolith-to-Canyon blocks, which drops the nonce.
 */
import { encodeReceiptFields } from "../../chain/receiptRlp.js";
import type { StoredReceipt } from "../../storage/types.js";
import { rlpListOfEncoded, txNetworkItem } from "./rlpItems.js";

const SUCCESS = Uint8Array.of(1);
const FAILURE = new Uint8Array(0);

/** The EIP-2718 bytes of a receipt with its bloom and, for a deposit, its nonce and version. */
export function receiptNetworkBytes(r: StoredReceipt): Uint8Array {
  const extra: bigint[] = [];
  if (r.depositNonce !== undefined) {
    extra.push(r.depositNonce);
    if (r.depositReceiptVersion !== undefined) extra.push(BigInt(r.depositReceiptVersion));
  }
  return encodeReceiptFields({ type: r.type, statusOrRoot: r.root ?? (r.status === 1 ? SUCCESS : FAILURE), cumulativeGasUsed: r.cumulativeGasUsed, bloom: r.bloom, logs: r.logs, extra });
}

/** One block's receipts as an item of the Receipts message (the RLP list of its receipts). */
export function blockReceiptsItem(receipts: readonly StoredReceipt[]): Uint8Array {
  return rlpListOfEncoded(receipts.map((r) => txNetworkItem(receiptNetworkBytes(r))));
}
