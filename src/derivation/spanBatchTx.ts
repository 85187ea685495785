/**
 * One span batch transaction's `tx_data` (specs delta/span-batches.md, isthmus/derivation.md
 * "Span Batch Updates"; op-node `span_batch_tx.go`, `ReadTxData`) and the full signed transaction
 * it rebuilds to:
 *
 * | type | tx_data | full transaction (EIP-2718) |
 * |---|---|---|
 * | legacy | `rlp([value, gasPrice, data])` | `rlp([nonce, gasPrice, gas, to, value, data, v, r, s])` |
 * | 1 | `0x01 ++ rlp([value, gasPrice, data, accessList])` | `0x01 ++ rlp([chainId, nonce, gasPrice, gas, to, value, data, accessList, yParity, r, s])` |
 * | 2 | `0x02 ++ rlp([value, maxPriorityFee, maxFee, data, accessList])` | `0x02 ++ rlp([chainId, nonce, maxPriorityFee, maxFee, gas, to, value, data, accessList, yParity, r, s])` |
 * | 4 | `0x04 ++ rlp([value, maxPriorityFee, maxFee, data, accessList, authorizationList])` | `0x04 ++ rlp([chainId, nonce, maxPriorityFee, maxFee, gas, to, value, data, accessList, authorizationList, yParity, r, s])` |
 *
 * Legacy v is `27 + yParity` unprotected or `2 * chainId + 35 + yParity` (EIP-155). The
 * tx_data fields are checked as go-ethereum decodes them into op-node's structs (canonical
 * integers, 20-byte addresses, 32-byte storage keys, exact field counts); being canonical, their
 * RLP items are copied into the rebuilt transaction unchanged, which is what op-node's re-encoding
 * gives byte for byte.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { MAX_SPAN_BATCH_ELEMENT_COUNT } from "./constants.js";
import { invalidEncodeInput, invalidSpanTx, spanBatchTooBig } from "./codecErrors.js";
import { type RlpFail, type RlpItem, rlpBytes, rlpFixed, rlpHeader, rlpItem, rlpListItems, rlpListOfEncoded, rlpUint, rlpUintBytes } from "./rlp.js";

/** Transaction types a span batch carries. */
export const SpanTxType = { LEGACY: 0, ACCESS_LIST: 1, DYNAMIC_FEE: 2, SET_CODE: 4 } as const;
/** One of the {@link SpanTxType} values. */
export type SpanTxType = (typeof SpanTxType)[keyof typeof SpanTxType];

/** Bytes of an address. */
const ADDRESS_BYTES = 20;
/** Bytes of a storage key, r, s. */
const WORD_BYTES = 32;
/** Bytes of a u64. */
const U64_BYTES = 8;
/** First byte at which a transaction is legacy (an RLP list header) rather than typed (EIP-2718). */
const LEGACY_MIN_FIRST_BYTE = 0x80;
/** v of an unprotected legacy transaction is 27 + yParity. */
const LEGACY_V_BASE = 27n;
/** v of an EIP-155 transaction is 2 * chainId + 35 + yParity. */
const EIP155_V_OFFSET = 35n;

/**
 * Where each part sits in the full transaction's RLP list, by type: field count, nonce, gas, to,
 * chain id (typed only), and the full-list position of each tx_data field in tx_data order; v (or
 * yParity), r and s are the last three.
 */
const LAYOUT: Record<number, { fields: number; nonce: number; gas: number; to: number; txData: readonly number[] }> = {
  [SpanTxType.LEGACY]: { fields: 9, nonce: 0, gas: 2, to: 3, txData: [4, 1, 5] },
  [SpanTxType.ACCESS_LIST]: { fields: 11, nonce: 1, gas: 3, to: 4, txData: [5, 2, 6, 7] },
  [SpanTxType.DYNAMIC_FEE]: { fields: 12, nonce: 1, gas: 4, to: 5, txData: [6, 2, 3, 7, 8] },
  [SpanTxType.SET_CODE]: { fields: 13, nonce: 1, gas: 4, to: 5, txData: [6, 2, 3, 7, 8, 9] },
};
/** Position of the chain id in a typed transaction's list. */
const CHAIN_ID_AT = 0;

/**
 * The layout key of bytes starting with `first`: legacy for an RLP list header (≥ 0x80), else the
 * EIP-2718 type byte; undefined for a type byte with no span batch layout — 0 included, which is
 * no typed transaction (op-node: "transaction type not supported").
 */
function layoutType(first: number): number | undefined {
  if (first >= LEGACY_MIN_FIRST_BYTE) return SpanTxType.LEGACY;
  return first !== SpanTxType.LEGACY && LAYOUT[first] !== undefined ? first : undefined;
}

/** One tx_data read from a span batch: its bytes (type byte included) and its type byte (0 for legacy). */
interface ReadTxData {
  txData: Uint8Array;
  /**
   * The EIP-2718 type byte (any value up to 0x7f; only 1, 2 and 4 rebuild), 0 for legacy. As in
   * op-node, a type byte 0x00 also reads as 0 and counts among the legacy transactions (for the
   * protected bits); it fails at rebuild.
   */
  txType: number;
  next: number;
}

/**
 * Reads one tx_data at `pos` (op-node `ReadTxData`): an optional type byte (≤ 0x7f) and one RLP
 * list, its declared size at most `MAX_SPAN_BATCH_ELEMENT_COUNT` bytes. Its fields are checked
 * when the transaction is rebuilt ({@link buildFullTx}), as op-node does.
 */
export function readTxData(buf: Uint8Array, pos: number, end: number, fail: RlpFail): ReadTxData {
  if (pos >= end) throw fail("input ends where a tx_data was expected");
  const first = buf[pos]!;
  const txType = first < LEGACY_MIN_FIRST_BYTE ? first : SpanTxType.LEGACY;
  const listAt = first < LEGACY_MIN_FIRST_BYTE ? pos + 1 : pos;
  const h = rlpHeader(buf, listAt, end, fail);
  const headerBytes = h.contentStart - listAt;
  if (h.size > MAX_SPAN_BATCH_ELEMENT_COUNT - headerBytes) throw spanBatchTooBig("tx_data size", h.size, MAX_SPAN_BATCH_ELEMENT_COUNT);
  if (!h.list) throw fail(`tx_data at offset ${pos} is not an RLP list`);
  if (h.size > end - h.contentStart) throw fail(`tx_data at offset ${pos} declares ${h.size} bytes but ${end - h.contentStart} remain`);
  const next = h.contentStart + h.size;
  return { txData: buf.subarray(pos, next), txType, next };
}

/** Everything of a transaction that a span batch stores outside its tx_data. */
interface SpanTxFields {
  nonce: bigint;
  gas: bigint;
  /** Recipient (20 bytes), undefined for a contract creation. */
  to: Uint8Array | undefined;
  /** Signature r and s, 32 bytes each, big-endian. */
  r: Uint8Array;
  s: Uint8Array;
  yParity: 0 | 1;
  /** Legacy only: whether v carries the chain id (EIP-155). */
  protected: boolean;
}

/** The RLP encoding of an unsigned integer. */
function rlpInt(v: bigint): Uint8Array {
  return RLP.encode(bigIntToUnpaddedBytes(v));
}

/** The RLP encoding of a 32-byte big-endian word as an integer (leading zeros dropped). */
function rlpWord(w: Uint8Array): Uint8Array {
  let i = 0;
  while (i < w.length && w[i] === 0) i++;
  return RLP.encode(w.subarray(i));
}

/** Checks an access list `[[address, [storageKey…]]…]`. */
function checkAccessList(buf: Uint8Array, item: RlpItem, fail: RlpFail): void {
  for (const [i, tuple] of rlpListItems(buf, item, fail, "access list").entries()) {
    const [address, keys] = rlpListItems(buf, tuple, fail, `access list entry ${i}`, 2);
    rlpFixed(buf, address, ADDRESS_BYTES, fail, `access list entry ${i} address`);
    for (const [j, key] of rlpListItems(buf, keys, fail, `access list entry ${i} storage keys`).entries()) {
      rlpFixed(buf, key, WORD_BYTES, fail, `access list entry ${i} storage key ${j}`);
    }
  }
}

/** Checks an authorization list `[[chainId, address, nonce, yParity, r, s]…]` (go-ethereum `SetCodeAuthorization`). */
function checkAuthorizationList(buf: Uint8Array, item: RlpItem, fail: RlpFail): void {
  for (const [i, auth] of rlpListItems(buf, item, fail, "authorization list").entries()) {
    const [chainId, address, nonce, yParity, r, s] = rlpListItems(buf, auth, fail, `authorization ${i}`, 6);
    rlpUintBytes(buf, chainId, fail, `authorization ${i} chain id`, WORD_BYTES);
    rlpFixed(buf, address, ADDRESS_BYTES, fail, `authorization ${i} address`);
    rlpUintBytes(buf, nonce, fail, `authorization ${i} nonce`, U64_BYTES);
    rlpUintBytes(buf, yParity, fail, `authorization ${i} y parity`, 1);
    rlpUintBytes(buf, r, fail, `authorization ${i} r`, WORD_BYTES);
    rlpUintBytes(buf, s, fail, `authorization ${i} s`, WORD_BYTES);
  }
}

/**
 * The tx_data's fields as RLP items, checked per type: `value` and the fee fields canonical
 * integers (at most 32 bytes for set-code, Go's uint256; unbounded otherwise, Go's big.Int),
 * `data` a byte string, the access and authorization lists well formed.
 */
function txDataItems(txData: Uint8Array, fail: RlpFail): { type: SpanTxType; items: RlpItem[] } {
  if (txData.length === 0) throw fail("tx_data is empty");
  const type = layoutType(txData[0]!);
  if (type === undefined) throw fail(`transaction type ${txData[0]} is not supported in span batches (expected legacy, 1, 2 or 4)`);
  const layout = LAYOUT[type]!;
  const outer = rlpItem(txData, type === SpanTxType.LEGACY ? 0 : 1, txData.length, fail);
  if (outer.end !== txData.length) throw fail("bytes follow the tx_data list");
  const items = rlpListItems(txData, outer, fail, "tx_data", layout.txData.length);
  const intBytes = type === SpanTxType.SET_CODE ? WORD_BYTES : undefined;
  const dataIndex = type === SpanTxType.LEGACY || type === SpanTxType.ACCESS_LIST ? 2 : 3;
  for (let i = 0; i < dataIndex; i++) rlpUintBytes(txData, items[i]!, fail, i === 0 ? "value" : "fee field", intBytes);
  rlpBytes(txData, items[dataIndex]!, fail, "data");
  if (type !== SpanTxType.LEGACY) checkAccessList(txData, items[dataIndex + 1]!, fail);
  if (type === SpanTxType.SET_CODE) checkAuthorizationList(txData, items[dataIndex + 2]!, fail);
  return { type: type as SpanTxType, items };
}

/**
 * Rebuilds the signed EIP-2718 transaction of span batch transaction `index` from its tx_data and
 * stored fields (op-node `convertToFullTx` + `MarshalBinary`). Throws an INVALID_SPAN_TX error
 * for an unsupported type, malformed tx_data, or a set-code transaction without a recipient.
 */
export function buildFullTx(index: number, txData: Uint8Array, f: SpanTxFields, chainId: bigint): Uint8Array {
  const fail: RlpFail = (reason) => invalidSpanTx(index, reason);
  const { type, items } = txDataItems(txData, fail);
  if (type === SpanTxType.SET_CODE && f.to === undefined) throw fail("a set-code transaction (type 4) cannot create a contract; its recipient is missing");
  const layout = LAYOUT[type]!;
  const fields = new Array<Uint8Array>(layout.fields);
  fields[layout.nonce] = rlpInt(f.nonce);
  fields[layout.gas] = rlpInt(f.gas);
  fields[layout.to] = RLP.encode(f.to ?? new Uint8Array(0));
  layout.txData.forEach((at, k) => (fields[at] = txData.subarray(items[k]!.start, items[k]!.end)));
  const v = type !== SpanTxType.LEGACY ? BigInt(f.yParity) : f.protected ? chainId * 2n + EIP155_V_OFFSET + BigInt(f.yParity) : LEGACY_V_BASE + BigInt(f.yParity);
  fields[layout.fields - 3] = rlpInt(v);
  fields[layout.fields - 2] = rlpWord(f.r);
  fields[layout.fields - 1] = rlpWord(f.s);
  if (type === SpanTxType.LEGACY) return rlpListOfEncoded(fields);
  fields[CHAIN_ID_AT] = rlpInt(chainId);
  return typed(type, fields);
}

/** `type ++ rlp(list of encoded items)`. */
function typed(type: number, items: Uint8Array[]): Uint8Array {
  const body = rlpListOfEncoded(items);
  const out = new Uint8Array(1 + body.length);
  out[0] = type;
  out.set(body, 1);
  return out;
}

/** A signed transaction split into its span batch parts (the batcher side). */
interface SplitTx extends SpanTxFields {
  type: SpanTxType;
  txData: Uint8Array;
}

/** A 32-byte big-endian word of an integer's bytes (at most 32). */
function word(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(WORD_BYTES);
  out.set(b, WORD_BYTES - b.length);
  return out;
}

/**
 * Splits a signed EIP-2718 transaction (legacy, 1, 2 or 4) into tx_data and the fields a span
 * batch stores apart (op-node `AddTxs`). Throws INVALID_ENCODE_INPUT for another type, malformed
 * bytes, a u64 out of range, a signature that does not fit, or a chain id other than `chainId`.
 */
export function splitFullTx(tx: Uint8Array, chainId: bigint): SplitTx {
  const fail: RlpFail = (reason) => invalidEncodeInput(`transaction: ${reason}`);
  if (tx.length === 0) throw fail("empty");
  const type = layoutType(tx[0]!);
  if (type === undefined) throw fail(`type ${tx[0]} cannot go in a span batch (expected legacy, 1, 2 or 4)`);
  const layout = LAYOUT[type]!;
  const outer = rlpItem(tx, type === SpanTxType.LEGACY ? 0 : 1, tx.length, fail);
  if (outer.end !== tx.length) throw fail("bytes follow the transaction");
  const it = rlpListItems(tx, outer, fail, "transaction", layout.fields);
  const dataItems = layout.txData.map((at) => tx.subarray(it[at]!.start, it[at]!.end));
  const txData = type === SpanTxType.LEGACY ? rlpListOfEncoded(dataItems) : typed(type, dataItems);
  txDataItems(txData, fail);
  const to = rlpBytes(tx, it[layout.to]!, fail, "to");
  if (to.length !== 0 && to.length !== ADDRESS_BYTES) throw fail(`to is ${to.length} bytes, expected 0 or ${ADDRESS_BYTES}`);
  const v = rlpUint(tx, it[layout.fields - 3]!, fail, "v");
  let yParity: bigint;
  let isProtected = true;
  if (type !== SpanTxType.LEGACY) {
    const txChainId = rlpUint(tx, it[CHAIN_ID_AT]!, fail, "chain id");
    if (txChainId !== chainId) throw fail(`transaction of chain ${txChainId}, expected chain ${chainId}`);
    if (v > 1n) throw fail(`y parity ${v}, expected 0 or 1`);
    yParity = v;
  } else if (v === LEGACY_V_BASE || v === LEGACY_V_BASE + 1n) {
    yParity = v - LEGACY_V_BASE;
    isProtected = false;
  } else if (v >= EIP155_V_OFFSET) {
    yParity = (v - EIP155_V_OFFSET) % 2n;
    const txChainId = (v - EIP155_V_OFFSET) / 2n;
    if (txChainId !== chainId) throw fail(`protected legacy transaction of chain ${txChainId}, expected chain ${chainId}`);
  } else {
    throw fail(`legacy v ${v} is neither 27/28 nor EIP-155`);
  }
  return {
    type: type as SpanTxType,
    txData,
    nonce: rlpUint(tx, it[layout.nonce]!, fail, "nonce", U64_BYTES),
    gas: rlpUint(tx, it[layout.gas]!, fail, "gas", U64_BYTES),
    to: to.length === 0 ? undefined : to,
    r: word(rlpUintBytes(tx, it[layout.fields - 2]!, fail, "r", WORD_BYTES)),
    s: word(rlpUintBytes(tx, it[layout.fields - 1]!, fail, "s", WORD_BYTES)),
    yParity: Number(yParity) as 0 | 1,
    protected: isProtected,
  };
}

