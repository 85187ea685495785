/**
 * What a batch carries of one L2 block (specs derivation.md "Batch Format"; span-batches.md): its
 * timestamp, its L1 origin and its non-deposit transactions — the deposits are derived from L1
 * again. The L1 origin (number, hash) and the sequence number come from the block's L1-info
 * deposit, its first transaction.
 */
import type { Block } from "@ethereumjs/block";
import { envelopeOf } from "../chain/envelope.js";
import { decodeL1InfoCalldata } from "../chain/op/l1InfoTx.js";
import { isDeposit } from "../chain/op/depositTx.js";
import type { SpanBatchElement } from "../derivation/spanBatch.js";
import { BatcherError, BatcherErrorCode } from "./errors.js";

/** One L2 block as the batcher handles it. */
export interface BatchBlock {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  /** Its L1 origin (epoch). */
  l1Origin: { number: bigint; hash: Uint8Array };
  /** Position in its epoch: 0 for the epoch's first block. */
  sequenceNumber: bigint;
  /** What the span batch holds of it: epoch number, timestamp, EIP-2718 bytes of each non-deposit transaction. */
  element: SpanBatchElement;
  /** Bytes of those transactions, summed (the batcher's estimate of the block's weight in a channel). */
  txBytes: number;
}

/**
 * The {@link BatchBlock} of an L2 block.
 * @throws BatcherError NO_L1_INFO when the first transaction is not an L1-info deposit.
 */
export function batchBlockOf(block: Block): BatchBlock {
  const first = block.transactions[0];
  const number = block.header.number;
  if (first === undefined || !isDeposit(first)) {
    throw new BatcherError({ code: BatcherErrorCode.NO_L1_INFO, number: number.toString() }, `L2 block ${number} does not start with an L1-info deposit (type 0x7e): its L1 origin cannot be named in a batch`);
  }
  const { values } = decodeL1InfoCalldata(block.transactions[0]!.data);
  const transactions: Uint8Array[] = [];
  let txBytes = 0;
  for (const tx of block.transactions) {
    if (isDeposit(tx)) continue;
    const bytes = envelopeOf(tx);
    transactions.push(bytes);
    txBytes += bytes.length;
  }
  return {
    number,
    hash: block.hash(),
    parentHash: block.header.parentHash,
    l1Origin: { number: values.number, hash: values.hash },
    sequenceNumber: values.sequenceNumber,
    element: { epochNum: values.number, timestamp: block.header.timestamp, transactions },
    txBytes,
  };
}
