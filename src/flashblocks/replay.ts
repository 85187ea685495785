/**
 * Replaying sealed blocks as a flashblocks stream: cuts a block into the frames a builder would
 * have published — index 0 with the block environment and its deposits, then the other
 * transactions a few per frame — so a node's flashblocks ingestion can be exercised and
 * measured on real chains (tests, `bench/flashblocks.ts`).
 *
 * The frames carry the sealed block's cumulative values in every `diff` (receipts root, bloom,
 * gas) and a zero `block_hash`, as only the final block is known; a consumer re-executes and
 * counts the differences of intermediate frames, which is what ingestion must tolerate anyway.
 */
import type { Block } from "@ethereumjs/block";
import { isDeposit } from "../chain/op/depositTx.js";
import type { FlashblocksPayloadV1 } from "./codec.js";

/** Bytes of an engine PayloadId. */
const PAYLOAD_ID_BYTES = 8;

/** The flashblocks of `block`: its deposits at index 0, then `perFrame` transactions per frame. */
export function flashblocksOfBlock(block: Block, perFrame: number, payloadId: Uint8Array = block.hash().slice(0, PAYLOAD_ID_BYTES)): FlashblocksPayloadV1[] {
  const raw = block.transactions.map((t) => t.serialize());
  const deposits = block.transactions.filter((t) => isDeposit(t as never)).length;
  const groups: Uint8Array[][] = [raw.slice(0, deposits)];
  for (let i = deposits; i < raw.length; i += perFrame) groups.push(raw.slice(i, i + perFrame));
  const h = block.header;
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
      blockHash: new Uint8Array(32),
      transactions,
      withdrawals: [],
      withdrawalsRoot: h.withdrawalsRoot ?? new Uint8Array(32),
      blobGasUsed: h.blobGasUsed,
    },
    metadata: { blockNumber: h.number },
  }));
}
