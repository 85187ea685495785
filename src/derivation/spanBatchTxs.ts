/**
 * The transactions section of a span batch (specs delta/span-batches.md; op-node
 * `span_batch_txs.go`, kona `batch/transactions.rs`), for `n` transactions in all:
 *
 * ```text
 * txs = contract_creation_bits (bitlist n) ++ y_parity_bits (bitlist n) ++ tx_sigs (n × r32 ++ s32)
 *    ++ tx_tos (20 bytes per non-creation) ++ tx_datas (n, self-delimiting) ++ tx_nonces (n uvarints)
 *    ++ tx_gases (n uvarints) ++ protected_bits (bitlist of the legacy count)
 * ```
 *
 * Sizes are checked against the bytes left before anything is allocated, so a count near the
 * limit in a small input fails at once.
 */
import { invalidEncodeInput, malformedSpanBatch } from "./codecErrors.js";
import { Bitlist, readBitlist } from "./bitlist.js";
import { joinBytes } from "./bytes.js";
import type { RlpFail } from "./rlp.js";
import { SpanTxType, buildFullTx, readTxData, splitFullTx } from "./spanBatchTx.js";
import { encodeUvarint, readUvarint } from "./varint.js";

/** Bytes of r, and of s, in tx_sigs. */
const WORD_BYTES = 32;
/** Bytes of one signature in tx_sigs (r ++ s). */
const SIG_BYTES = 2 * WORD_BYTES;
/** Bytes of one recipient in tx_tos. */
const TO_BYTES = 20;

/** A span batch's transactions in their columnar form. */
export interface SpanBatchTxs {
  /** Transactions in all (the sum of the block transaction counts). */
  totalTxs: number;
  /** Bit i: transaction i creates a contract (has no `to`). */
  contractCreationBits: Bitlist;
  /** Bit i: transaction i's signature y parity. */
  yParityBits: Bitlist;
  /** r ++ s of each transaction, 64 bytes each. */
  txSigs: Uint8Array;
  /** The recipient of each non-creation transaction in order, 20 bytes each. */
  txTos: Uint8Array;
  /** Each transaction's tx_data (type byte included for typed ones). */
  txDatas: Uint8Array[];
  /** Each transaction's type byte (0 for legacy); unknown types are refused when rebuilding. */
  txTypes: number[];
  txNonces: bigint[];
  txGases: bigint[];
  /** Bit k: the k-th legacy transaction is EIP-155 protected. */
  protectedBits: Bitlist;
}

/** Decodes the transactions section at `pos` (before `end`) for `totalTxs` transactions. */
export function decodeSpanBatchTxs(buf: Uint8Array, pos: number, end: number, totalTxs: number): { txs: SpanBatchTxs; next: number } {
  const at = (field: string): RlpFail => (reason) => malformedSpanBatch(field, reason);
  const creation = readBitlist(buf, pos, end, totalTxs, "contract_creation_bits", at("contract_creation_bits"));
  const parity = readBitlist(buf, creation.next, end, totalTxs, "y_parity_bits", at("y_parity_bits"));
  let p = parity.next;
  const take = (field: string, n: number): Uint8Array => {
    if (n > end - p) throw malformedSpanBatch(field, `needs ${n} bytes, ${end - p} remain`);
    p += n;
    return buf.subarray(p - n, p);
  };
  const txSigs = take("tx_sigs", totalTxs * SIG_BYTES);
  const txTos = take("tx_tos", (totalTxs - creation.bits.popcount()) * TO_BYTES);
  const txDatas: Uint8Array[] = [];
  const txTypes: number[] = [];
  let legacy = 0;
  for (let i = 0; i < totalTxs; i++) {
    const d = readTxData(buf, p, end, at(`tx_datas[${i}]`));
    txDatas.push(d.txData);
    txTypes.push(d.txType);
    if (d.txType === SpanTxType.LEGACY) legacy++;
    p = d.next;
  }
  const uvarints = (field: string): bigint[] => {
    const out: bigint[] = [];
    for (let i = 0; i < totalTxs; i++) {
      const v = readUvarint(buf, p, end, at(`${field}[${i}]`));
      out.push(v.value);
      p = v.next;
    }
    return out;
  };
  const txNonces = uvarints("tx_nonces");
  const txGases = uvarints("tx_gases");
  const prot = readBitlist(buf, p, end, legacy, "protected_bits", at("protected_bits"));
  return {
    txs: { totalTxs, contractCreationBits: creation.bits, yParityBits: parity.bits, txSigs, txTos, txDatas, txTypes, txNonces, txGases, protectedBits: prot.bits },
    next: prot.next,
  };
}

/** Encodes the transactions section. */
export function encodeSpanBatchTxs(txs: SpanBatchTxs): Uint8Array {
  return joinBytes([
    txs.contractCreationBits.bytes,
    txs.yParityBits.bytes,
    txs.txSigs,
    txs.txTos,
    ...txs.txDatas,
    ...txs.txNonces.map(encodeUvarint),
    ...txs.txGases.map(encodeUvarint),
    txs.protectedBits.bytes,
  ]);
}

/**
 * Rebuilds every transaction as signed EIP-2718 bytes, in order (op-node `recoverV` + `fullTxs`);
 * `chainId` is the rollup's L2 chain id. Throws INVALID_SPAN_TX for the first that cannot be rebuilt.
 */
export function spanBatchTransactions(txs: SpanBatchTxs, chainId: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  let toIndex = 0;
  let legacyIndex = 0;
  for (let i = 0; i < txs.totalTxs; i++) {
    const creates = txs.contractCreationBits.get(i);
    const to = creates ? undefined : txs.txTos.subarray(toIndex * TO_BYTES, ++toIndex * TO_BYTES);
    const isLegacy = txs.txTypes[i] === SpanTxType.LEGACY;
    const fields = {
      nonce: txs.txNonces[i]!,
      gas: txs.txGases[i]!,
      to,
      r: txs.txSigs.subarray(i * SIG_BYTES, i * SIG_BYTES + WORD_BYTES),
      s: txs.txSigs.subarray(i * SIG_BYTES + WORD_BYTES, (i + 1) * SIG_BYTES),
      yParity: (txs.yParityBits.get(i) ? 1 : 0) as 0 | 1,
      protected: isLegacy ? txs.protectedBits.get(legacyIndex++) : true,
    };
    out.push(buildFullTx(i, txs.txDatas[i]!, fields, chainId));
  }
  return out;
}

/**
 * The columnar form of signed EIP-2718 transactions (legacy, 1, 2 or 4) of chain `chainId`
 * (op-node `AddTxs`, the batcher side). Throws INVALID_ENCODE_INPUT for a transaction that
 * cannot go in a span batch.
 */
export function spanBatchTxsFromTransactions(transactions: readonly Uint8Array[], chainId: bigint): SpanBatchTxs {
  const n = transactions.length;
  const split = transactions.map((tx, i) => {
    try {
      return splitFullTx(tx, chainId);
    } catch (e) {
      throw invalidEncodeInput(`transaction ${i}: ${(e as Error).message}`);
    }
  });
  const legacy = split.filter((t) => t.type === SpanTxType.LEGACY);
  const contractCreationBits = Bitlist.from(split.map((t) => t.to === undefined));
  return {
    totalTxs: n,
    contractCreationBits,
    yParityBits: Bitlist.from(split.map((t) => t.yParity === 1)),
    txSigs: joinBytes(split.flatMap((t) => [t.r, t.s])),
    txTos: joinBytes(split.flatMap((t) => (t.to === undefined ? [] : [t.to]))),
    txDatas: split.map((t) => t.txData),
    txTypes: split.map((t) => t.type),
    txNonces: split.map((t) => t.nonce),
    txGases: split.map((t) => t.gas),
    protectedBits: Bitlist.from(legacy.map((t) => t.protected)),
  };
}
