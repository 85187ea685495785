/**
 * The partial block of a flashblock: the header a block under construction has at a given
 * flashblock index, and the block hash it gives. Producer (devnet sequencer) and consumer
 * (flashblocks worker) assemble it the same way, so a follower that re-executes a flashblock
 * reproduces the producer's `diff.block_hash` exactly:
 *
 * - environment fields from the flashblock `base` (parent hash, fee recipient, prevRandao,
 *   number, gas limit, timestamp, extraData, base fee, parent beacon block root);
 * - the state root as published in the diff (Base's builder leaves it zero mid-block;
 *   base/base `builder/core/src/flashblocks/payload.rs`) and the diff's withdrawals root;
 * - receipts root, logs bloom, gas used and (Jovian) DA footprint of the transactions so far,
 *   computed by execution; the transactions root of those transactions;
 * - the constants of every OP block: difficulty 0, nonce 0, no ommers, excessBlobGas 0 and
 *   (Isthmus) the empty requests hash.
 */
import { Block, createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { StoredReceipt } from "../storage/types.js";
import { OpFork } from "../chain/op/forks.js";
import { GrowingOrderedTrie, orderedTrieRoot } from "../chain/orderedTrie.js";
import { EMPTY_REQUESTS_HASH } from "../execution/op/opPayload.js";
import { encodeOpReceipt, type OpTransaction } from "../execution/op/opBlockExecutor.js";
import type { FlashblockBase } from "./codec.js";
import { envelopeOf } from "../chain/envelope.js";

/** Execution results a partial header commits to. */
export interface PartialBlockTotals {
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  gasUsed: bigint;
  /** Jovian DA footprint (0 before Jovian). */
  blobGasUsed: bigint;
}

/** Header fields of a block known from its flashblock `base` alone (roots and gas are placeholders). */
export function headerTemplateFromBase(base: FlashblockBase, common: Common): Record<string, unknown> {
  const h: Record<string, unknown> = {
    parentHash: base.parentHash,
    coinbase: base.feeRecipient,
    number: base.blockNumber,
    gasLimit: base.gasLimit,
    timestamp: base.timestamp,
    extraData: base.extraData,
    mixHash: base.prevRandao,
    difficulty: 0n,
    nonce: new Uint8Array(8),
    baseFeePerGas: base.baseFeePerGas,
  };
  if (common.isActivatedEIP(4895)) h.withdrawalsRoot = new Uint8Array(32);
  if (common.isActivatedEIP(4844)) {
    h.blobGasUsed = 0n;
    h.excessBlobGas = 0n;
  }
  if (common.isActivatedEIP(4788)) h.parentBeaconBlockRoot = base.parentBeaconBlockRoot;
  if (common.isActivatedEIP(7685)) h.requestsHash = EMPTY_REQUESTS_HASH;
  return h;
}

/**
 * Assembles the partial block at one flashblock index: `template` (from
 * {@link headerTemplateFromBase}) completed with the totals, the published state and
 * withdrawals roots, and the transactions root of `txs`.
 */
export async function assemblePartialBlock(
  common: Common,
  template: Record<string, unknown>,
  txs: OpTransaction[],
  totals: PartialBlockTotals,
  roots: { stateRoot: Uint8Array; withdrawalsRoot?: Uint8Array; transactionsRoot?: Uint8Array },
): Promise<Block> {
  const header: Record<string, unknown> = {
    ...template,
    stateRoot: roots.stateRoot,
    receiptTrie: totals.receiptsRoot,
    logsBloom: totals.logsBloom,
    gasUsed: totals.gasUsed,
  };
  if (common.isActivatedEIP(4895)) header.withdrawalsRoot = roots.withdrawalsRoot ?? new Uint8Array(32);
  if (common.isActivatedEIP(4844)) header.blobGasUsed = totals.blobGasUsed;
  const opts = { common, skipConsensusFormatValidation: true };
  const withdrawals = common.isActivatedEIP(4895) ? [] : undefined;
  if (roots.transactionsRoot !== undefined) header.transactionsTrie = roots.transactionsRoot;
  else header.transactionsTrie = orderedTrieRoot(txs.map(envelopeOf));
  return new Block(createBlockHeader(header as never, opts) as BlockHeader, txs as never, [], withdrawals, opts);
}

/**
 * Transactions and receipts tries of a block that only grows (flashblocks append): each is a
 * {@link GrowingOrderedTrie}, which keeps its leaves and subtrees between roots, so a frame
 * costs its own transactions plus the nodes on their paths. Receipts use the OP encoding
 * (deposit nonce dropped for Regolith-to-Canyon blocks, as `opReceiptsRoot`).
 */
export class GrowingBlockTries {
  private readonly txTrie = new GrowingOrderedTrie();
  private readonly receiptTrie = new GrowingOrderedTrie();
  constructor(private readonly fork: OpFork) {}

  /** Number of entries inserted so far. */
  get size(): number {
    return this.txTrie.size;
  }

  /** Adds the entries from index {@link size} on. */
  extend(txs: readonly OpTransaction[], receipts: readonly StoredReceipt[]): void {
    const strip = this.fork >= OpFork.regolith && this.fork < OpFork.canyon;
    for (let i = this.txTrie.size; i < txs.length; i++) {
      this.txTrie.push(envelopeOf(txs[i]!));
      this.receiptTrie.push(encodeOpReceipt(receipts[i]!, { stripDepositNonce: strip }));
    }
  }

  get transactionsRoot(): Uint8Array {
    return this.txTrie.root();
  }

  get receiptsRoot(): Uint8Array {
    return this.receiptTrie.root();
  }
}
