/**
 * Singular batches, batch type 0 (specs derivation.md "Batch Format"; op-node `SingularBatch`):
 * `rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list])`, the transaction
 * list an RLP list of EIP-2718 transaction byte strings. Decoding is go-ethereum's into the Go
 * struct: exactly five fields, 32-byte hashes, canonical u64 integers, no trailing bytes.
 */
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { invalidEncodeInput, malformedSingularBatch } from "./codecErrors.js";
import { rlpBytes, rlpFixed, rlpItem, rlpListItems, rlpUint } from "./rlp.js";

/** Bytes of a block hash. */
const HASH_BYTES = 32;
/** Bytes of a u64. */
const U64_BYTES = 8;
/** Largest u64. */
const U64_MAX = (1n << 64n) - 1n;

/** The inputs of one L2 block. */
export interface SingularBatch {
  /** Hash of the L2 parent block (32 bytes). */
  parentHash: Uint8Array;
  /** L1 origin (epoch) block number. */
  epochNum: bigint;
  /** L1 origin block hash (32 bytes). */
  epochHash: Uint8Array;
  /** L2 block timestamp. */
  timestamp: bigint;
  /** The block's non-deposit transactions, each in its EIP-2718 encoding. */
  transactions: Uint8Array[];
}

/**
 * Decodes a singular batch's content (the bytes after the type byte). Throws a
 * MALFORMED_SINGULAR_BATCH {@link DerivationCodecError} for anything but exactly one canonical
 * five-field list. Byte fields are views into `content`.
 */
export function decodeSingularBatch(content: Uint8Array): SingularBatch {
  const fail = malformedSingularBatch;
  const outer = rlpItem(content, 0, content.length, fail);
  if (outer.end !== content.length) throw fail(`${content.length - outer.end} bytes follow the batch`);
  const [parentHash, epochNum, epochHash, timestamp, txList] = rlpListItems(content, outer, fail, "batch", 5);
  return {
    parentHash: rlpFixed(content, parentHash, HASH_BYTES, fail, "parent_hash"),
    epochNum: rlpUint(content, epochNum, fail, "epoch_number", U64_BYTES),
    epochHash: rlpFixed(content, epochHash, HASH_BYTES, fail, "epoch_hash"),
    timestamp: rlpUint(content, timestamp, fail, "timestamp", U64_BYTES),
    transactions: rlpListItems(content, txList, fail, "transaction_list").map((it, i) => rlpBytes(content, it, fail, `transaction ${i}`)),
  };
}

/** Encodes a singular batch's content (without the type byte); INVALID_ENCODE_INPUT for out-of-range fields. */
export function encodeSingularBatch(batch: SingularBatch): Uint8Array {
  if (batch.parentHash.length !== HASH_BYTES) throw invalidEncodeInput(`parent hash is ${batch.parentHash.length} bytes, expected ${HASH_BYTES}`);
  if (batch.epochHash.length !== HASH_BYTES) throw invalidEncodeInput(`epoch hash is ${batch.epochHash.length} bytes, expected ${HASH_BYTES}`);
  for (const [name, v] of [["epoch number", batch.epochNum], ["timestamp", batch.timestamp]] as const) {
    if (v < 0n || v > U64_MAX) throw invalidEncodeInput(`${name} ${v} is not a u64`);
  }
  return RLP.encode([batch.parentHash, bigIntToUnpaddedBytes(batch.epochNum), batch.epochHash, bigIntToUnpaddedBytes(batch.timestamp), batch.transactions]);
}
