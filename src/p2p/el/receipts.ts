/**
 * Receipts in the eth Receipts message, in both versions' forms:
 *
 * - eth/68: each receipt with its bloom, a legacy receipt as its RLP list, a typed one as the byte
 *   string `type ‖ rlp([status, cumulativeGas, bloom, logs, …])`;
 * - eth/69 (EIP-7642): every receipt the flat list `[tx-type, post-state-or-status, cumulative-gas, logs, …]`,
 *   no bloom (the receiver recomputes it to check the receipts root).
 *
 * OP deposit receipts (type 0x7e) carry `depositNonce` (Regolith+) and `depositReceiptVersion`
 * (Canyon+) after the logs whenever the receipt has them: in eth/68 as op-reth's `OpReceipt`
 * network encoding (`ReceiptWithBloom<OpReceipt>`; base/base crates/execution/primitives receipt
 * tests), in eth/69 as base/base's `OpReceipt::rlp_encode_fields_without_bloom`
 * (crates/common/consensus/src/receipts/receipt.rs) — unlike the receipts root of
 * Regolith-to-Canyon blocks, which drops the nonce.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { encodeReceiptFields, quantityBytes } from "../../chain/receiptRlp.js";
import { orderedTrieRoot } from "../../chain/orderedTrie.js";
import type { Log, StoredReceipt } from "../../storage/types.js";
import { keccak256 } from "../../util/keccak.js";
import { EthPeerFaultError, EthProtocolError } from "./errors.js";
import { rlpListOfEncoded, rlpUint, txNetworkItem } from "./rlpItems.js";

const SUCCESS = Uint8Array.of(1);
const FAILURE = new Uint8Array(0);
/** The OP deposit transaction type (OP specs deposits.md). */
const DEPOSIT_TYPE = 0x7e;
/** Bytes of a logs bloom (Yellow Paper §4.3.1). */
const BLOOM_BYTES = 256;

function statusOrRoot(r: StoredReceipt): Uint8Array {
  return r.root ?? (r.status === 1 ? SUCCESS : FAILURE);
}

/** The trailing deposit fields of a receipt: the nonce, then the version (only when the nonce is there). */
function depositExtras(r: StoredReceipt): bigint[] {
  const extra: bigint[] = [];
  if (r.depositNonce !== undefined) {
    extra.push(r.depositNonce);
    if (r.depositReceiptVersion !== undefined) extra.push(BigInt(r.depositReceiptVersion));
  }
  return extra;
}

/** The EIP-2718 bytes of a receipt with its bloom and, for a deposit, its nonce and version (eth/68). */
export function receiptNetworkBytes(r: StoredReceipt): Uint8Array {
  return encodeReceiptFields({ type: r.type, statusOrRoot: statusOrRoot(r), cumulativeGasUsed: r.cumulativeGasUsed, bloom: r.bloom, logs: r.logs, extra: depositExtras(r) });
}

/** One block's receipts as an item of the eth/68 Receipts message (the RLP list of its receipts). */
export function blockReceiptsItem(receipts: readonly StoredReceipt[]): Uint8Array {
  return rlpListOfEncoded(receipts.map((r) => txNetworkItem(receiptNetworkBytes(r))));
}

/** One receipt in eth/69's form: `[tx-type, post-state-or-status, cumulative-gas, logs, depositNonce?, depositReceiptVersion?]`. */
export function receipt69Item(r: StoredReceipt): Uint8Array {
  const logs = r.logs.map((l) => [l.address, l.topics, l.data]);
  return RLP.encode([bigIntToUnpaddedBytes(BigInt(r.type)), statusOrRoot(r), quantityBytes(r.cumulativeGasUsed), logs, ...depositExtras(r).map(quantityBytes)]);
}

/** One block's receipts as an item of the eth/69 Receipts message. */
export function blockReceipts69Item(receipts: readonly StoredReceipt[]): Uint8Array {
  return rlpListOfEncoded(receipts.map(receipt69Item));
}

/** The logs bloom of `logs`: for the address and each topic, three bits from the low 11 bits of the first three byte pairs of its keccak256. */
export function logsBloom(logs: readonly Log[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  const add = (item: Uint8Array): void => {
    const h = keccak256(item);
    for (const i of [0, 2, 4]) {
      const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
      bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7);
    }
  };
  for (const l of logs) {
    add(l.address);
    for (const t of l.topics) add(t);
  }
  return bloom;
}

const isBloom = (v: unknown): boolean => v instanceof Uint8Array && v.length === BLOOM_BYTES;

function logOf(v: unknown): Log {
  if (!Array.isArray(v) || v.length !== 3) throw new EthProtocolError("Receipts", "a log is not [address, topics, data]");
  const [address, topics, data] = v as unknown[];
  if (!(address instanceof Uint8Array) || address.length !== 20) throw new EthProtocolError("Receipts", "a log address is not 20 bytes");
  if (!Array.isArray(topics) || !topics.every((t) => t instanceof Uint8Array && t.length === 32)) throw new EthProtocolError("Receipts", "log topics are not 32-byte hashes");
  if (!(data instanceof Uint8Array)) throw new EthProtocolError("Receipts", "log data is not a byte string");
  return { address, topics: topics as Uint8Array[], data };
}

/**
 * Decodes one receipt of an eth/69 Receipts message (with its bloom recomputed). As base/base's
 * decoder, only a deposit may carry trailing fields (nonce, then version), and nothing may follow them.
 * @throws EthPeerFaultError "receiptsWithBloom" for a receipt in eth/68's form or with a bloom
 *   field; EthProtocolError for anything else malformed.
 */
export function decodeReceipt69(item: unknown): StoredReceipt {
  if (item instanceof Uint8Array) {
    // eth/68's typed form `type ‖ rlp([status, gas, bloom, logs…])`.
    let inner: unknown;
    try {
      inner = item.length > 1 ? RLP.decode(item.subarray(1)) : undefined;
    } catch {
      inner = undefined;
    }
    if (Array.isArray(inner) && isBloom(inner[2])) throw new EthPeerFaultError("receiptsWithBloom", "Receipts: a typed receipt with its bloom (eth/68's form) on eth/69");
    throw new EthProtocolError("Receipts", "a receipt is not a list");
  }
  if (!Array.isArray(item)) throw new EthProtocolError("Receipts", "a receipt is not a list");
  // eth/68's legacy [status, gas, bloom, logs] or eth/69's list with a bloom put back in.
  if (isBloom(item[2]) || isBloom(item[3])) throw new EthPeerFaultError("receiptsWithBloom", "Receipts: a receipt with a bloom on eth/69 (EIP-7642 sends none)");
  if (item.length < 4) throw new EthProtocolError("Receipts", `a receipt of ${item.length} fields: expected [tx-type, status, cumulative-gas, logs]`);
  const [t, s, g, logs, ...rest] = item as unknown[];
  const type = rlpUint(t);
  const gas = rlpUint(g);
  if (type === undefined || type > 0x7fn || gas === undefined) throw new EthProtocolError("Receipts", "tx-type or cumulative gas is not an integer");
  if (!(s instanceof Uint8Array) || !(s.length === 32 || s.length === 0 || (s.length === 1 && s[0] === 1))) throw new EthProtocolError("Receipts", "post-state-or-status is neither a 32-byte root nor 0/1");
  if (!Array.isArray(logs)) throw new EthProtocolError("Receipts", "logs are not a list");
  const decodedLogs = logs.map(logOf);
  const r: StoredReceipt = { type: Number(type), cumulativeGasUsed: gas, logs: decodedLogs, bloom: logsBloom(decodedLogs) };
  if (s.length === 32) r.root = s;
  else r.status = s.length === 1 ? 1 : 0;
  if (rest.length > 0) {
    if (r.type !== DEPOSIT_TYPE || rest.length > 2) throw new EthProtocolError("Receipts", `${rest.length} fields after the logs of a type-${r.type} receipt`);
    const nonce = rlpUint(rest[0]);
    const version = rest.length > 1 ? rlpUint(rest[1]) : undefined;
    if (nonce === undefined || (rest.length > 1 && version === undefined)) throw new EthProtocolError("Receipts", "deposit nonce or receipt version is not an integer");
    r.depositNonce = nonce;
    if (version !== undefined) r.depositReceiptVersion = Number(version);
  }
  return r;
}

/** The consensus encoding of a receipt for the receipts trie; `stripDepositNonce` for Regolith-to-Canyon blocks (OP specs deposits.md). */
export function receiptRootBytes(r: StoredReceipt, stripDepositNonce: boolean): Uint8Array {
  const extra = r.type === DEPOSIT_TYPE && !stripDepositNonce ? depositExtras(r) : [];
  return encodeReceiptFields({ type: r.type, statusOrRoot: statusOrRoot(r), cumulativeGasUsed: r.cumulativeGasUsed, bloom: r.bloom, logs: r.logs, extra });
}

/** What a block's header says of its receipts. */
interface ReceiptsCommitment {
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  /** Whether deposit nonces are left out of the root (Regolith ≤ time < Canyon). */
  stripDepositNonce: boolean;
}

/**
 * Checks one block's receipts against its header: the root of their consensus encoding (blooms
 * recomputed) and the OR of their blooms. @throws EthPeerFaultError "receiptsRootMismatch" / "receiptsBloomMismatch".
 */
export function verifyReceipts(receipts: readonly StoredReceipt[], header: ReceiptsCommitment): void {
  const root = orderedTrieRoot(receipts.map((r) => receiptRootBytes(r, header.stripDepositNonce)));
  if (!Buffer.from(root).equals(Buffer.from(header.receiptsRoot))) {
    throw new EthPeerFaultError("receiptsRootMismatch", `Receipts: root 0x${Buffer.from(root).toString("hex")} of the receipts sent: expected the header's 0x${Buffer.from(header.receiptsRoot).toString("hex")}`);
  }
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const r of receipts) for (let i = 0; i < BLOOM_BYTES; i++) bloom[i]! |= r.bloom[i]!;
  if (!Buffer.from(bloom).equals(Buffer.from(header.logsBloom))) throw new EthPeerFaultError("receiptsBloomMismatch", "Receipts: the blooms of the receipts sent do not add up to the header's logsBloom");
}
