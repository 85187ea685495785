/**
 * Replaying sealed blocks as a flashblocks stream: cuts a block into the frames a builder would
 * have published — index 0 with the block environment and its deposits, then the other
 * transactions a few per frame — so a node's flashblocks ingestion can be exercised and
 * measured on real chains (tests, `bench/flashblocks.ts`).
 *
 * The frames carry the sealed block's cumulative values in every `diff` (receipts root, bloom,
 * gas) and a zero `block_hash`, as only the final block is known; a consumer re-executes and
 * counts the differences of intermediate frames, which is what ingestion must tolerate anyway.
 * Those differences are not free: a non-zero published value that differs from the fast EVM's
 * result makes the consumer re-execute the block on the reference engine and keep it there
 * (`pendingBuilder.ts`, `FastEngineMismatchError`). Given the block's receipts, the frames carry
 * instead the values of the partial block at each index (gas used, receipts root, logs bloom),
 * as a real builder publishes them; `block_hash` stays zero ("not provided": it depends on the
 * DA footprint so far, which receipts do not give).
 */
import type { Block } from "@ethereumjs/block";
import { isDeposit } from "../chain/op/depositTx.js";
import { OpFork } from "../chain/op/forks.js";
import { orderedTrieRoot } from "../chain/orderedTrie.js";
import { encodeOpReceipt } from "../execution/op/opBlockExecutor.js";
import type { StoredReceipt } from "../storage/types.js";
import type { FlashblocksPayloadV1 } from "./codec.js";

/** Bytes of an engine PayloadId. */
const PAYLOAD_ID_BYTES = 8;

/** The block's receipts and OP fork, for frames that carry each index's own values. */
export interface ExactDiffs {
  receipts: readonly StoredReceipt[];
  fork: OpFork;
}

/** Gas used, receipts root and logs bloom of the first `n` receipts. */
function prefixValues(exact: ExactDiffs, n: number): { gasUsed: bigint; receiptsRoot: Uint8Array; logsBloom: Uint8Array } {
  const strip = exact.fork >= OpFork.regolith && exact.fork < OpFork.canyon;
  const rs = exact.receipts.slice(0, n);
  const logsBloom = new Uint8Array(256);
  for (const r of rs) for (let i = 0; i < 256; i++) logsBloom[i]! |= r.bloom[i]!;
  return {
    gasUsed: rs.at(-1)?.cumulativeGasUsed ?? 0n,
    receiptsRoot: orderedTrieRoot(rs.map((r) => encodeOpReceipt(r, { stripDepositNonce: strip }))),
    logsBloom,
  };
}

/**
 * The flashblocks of `block`: its deposits at index 0, then `perFrame` transactions per frame.
 * With `exact`, each frame's diff carries its own partial block's gas, receipts root and bloom.
 */
export function flashblocksOfBlock(block: Block, perFrame: number, payloadId: Uint8Array = block.hash().slice(0, PAYLOAD_ID_BYTES), exact?: ExactDiffs): FlashblocksPayloadV1[] {
  const raw = block.transactions.map((t) => t.serialize());
  const deposits = block.transactions.filter((t) => isDeposit(t as never)).length;
  const groups: Uint8Array[][] = [raw.slice(0, deposits)];
  for (let i = deposits; i < raw.length; i += perFrame) groups.push(raw.slice(i, i + perFrame));
  const h = block.header;
  let count = 0;
  return groups.map((transactions, index) => ({
    payloadId,
    index,
    base:
      index === 0
        ? {
            parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? new Uint8Array(32),
            parentHash: h.parentHash,
            feeRecipient: h.coinbase.bytes,
            prevRandao: h.mixHash,
            blockNumber: h.number,
            gasLimit: h.gasLimit,
            timestamp: h.timestamp,
            extraData: h.extraData,
            baseFeePerGas: h.baseFeePerGas ?? 0n,
          }
        : undefined,
    diff: {
      stateRoot: new Uint8Array(32),
      receiptsRoot: h.receiptTrie,
      logsBloom: h.logsBloom,
      gasUsed: h.gasUsed,
      ...(exact === undefined ? {} : prefixValues(exact, (count += transactions.length))),
      blockHash: new Uint8Array(32),
      transactions,
      withdrawals: [],
      withdrawalsRoot: h.withdrawalsRoot ?? new Uint8Array(32),
      blobGasUsed: h.blobGasUsed,
    },
    metadata: { blockNumber: h.number },
  }));
}
