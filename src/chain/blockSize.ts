/**
 * The length of a block's RLP encoding — the `size` of eth_getBlockBy* answers and reth's
 * eth_getHeaderBy* — without encoding the block: the transactions contribute the lengths of their
 * envelopes (remembered from decoding, `chain/envelope.ts`), so a 200-transaction block costs one
 * header encoding instead of re-encoding every transaction (which was most of rendering a full
 * block's answer). Equals `block.serialize().length`.
 */
import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { envelopeOf } from "./envelope.js";

/** Bytes of an RLP length prefix's big-endian length field. */
function lengthBytes(n: number): number {
  let b = 0;
  for (; n > 0; n = Math.floor(n / 256)) b++;
  return b;
}

/** Encoded length of an RLP list whose items' encodings take `payload` bytes. */
function listLength(payload: number): number {
  return payload < 56 ? 1 + payload : 1 + lengthBytes(payload) + payload;
}

/** Encoded length of the RLP byte string `bytes`. */
function stringLength(bytes: Uint8Array): number {
  const n = bytes.length;
  if (n === 1 && bytes[0]! < 0x80) return 1;
  return n < 56 ? 1 + n : 1 + lengthBytes(n) + n;
}

/**
 * `block.serialize().length`: RLP [header, transactions, uncles, withdrawals?] where a typed
 * transaction is its envelope as a byte string and a legacy one its own RLP list (its envelope).
 */
export function blockRlpLength(block: Block): number {
  let txs = 0;
  for (const tx of block.transactions) {
    const envelope = envelopeOf(tx);
    // A legacy transaction's envelope is an RLP list (first byte ≥ 0xc0); a typed one starts with its type byte.
    txs += envelope.length > 0 && envelope[0]! >= 0xc0 ? envelope.length : stringLength(envelope);
  }
  let payload = block.header.serialize().length + listLength(txs) + RLP.encode(block.uncleHeaders.map((u) => u.raw())).length;
  if (block.withdrawals !== undefined) payload += RLP.encode(block.withdrawals.map((w) => w.raw())).length;
  return listLength(payload);
}
