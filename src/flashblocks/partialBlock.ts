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
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { formatHeader, type RpcHeader } from "../chain/json/block.js";
import { toData, toQuantity } from "../chain/json/quantity.js";
import { keccak256 } from "../util/keccak.js";
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

/** The header of one flashblock index: its RLP, its hash and (on demand) its JSON. */
export interface PartialHeader {
  rlp: Uint8Array;
  hash: Uint8Array;
  gasUsed: bigint;
  /** The header's JSON (geth's `RPCMarshalHeader`, keys sorted), as {@link formatHeader} gives it. */
  json(): RpcHeader;
}

/**
 * The headers of one block under construction, frame after frame, without building an
 * ethereumjs header per frame: the block's environment header is encoded once, and each frame only replaces the fields a frame changes — state, transactions
 * and receipts roots, logs bloom, gas used, withdrawals root and (Cancun layout) blob gas used —
 * in its RLP item list and its JSON. The RLP is the header's `raw()` list, so the hash is the
 * one {@link assemblePartialBlock} gives for the same values (a unit test holds them equal).
 */
export class PartialHeaderSeries {
  private readonly items: Uint8Array[];
  private readonly baseJson: RpcHeader;
  private readonly withdrawalsAt: number;
  private readonly blobGasAt: number;

  /** @param header the block's environment header (from {@link headerTemplateFromBase}); its roots, bloom and gas are replaced per frame. */
  constructor(header: BlockHeader) {
    const common = header.common;
    this.items = header.raw();
    this.baseJson = formatHeader(header);
    // raw(): the 15 fields of every header, then baseFeePerGas (EIP-1559), withdrawalsRoot (EIP-4895), blobGasUsed (EIP-4844), ...
    const afterBaseFee = 15 + (common.isActivatedEIP(1559) ? 1 : 0);
    this.withdrawalsAt = common.isActivatedEIP(4895) ? afterBaseFee : -1;
    this.blobGasAt = common.isActivatedEIP(4844) ? afterBaseFee + (common.isActivatedEIP(4895) ? 1 : 0) : -1;
  }

  /** The header at one frame: `totals` from execution, the published state and withdrawals roots, the transactions root. */
  at(totals: PartialBlockTotals, roots: { stateRoot: Uint8Array; withdrawalsRoot?: Uint8Array; transactionsRoot: Uint8Array }): PartialHeader {
    const items = this.items.slice();
    items[3] = roots.stateRoot;
    items[4] = roots.transactionsRoot;
    items[5] = totals.receiptsRoot;
    items[6] = totals.logsBloom;
    items[10] = bigIntToUnpaddedBytes(totals.gasUsed);
    const withdrawalsRoot = roots.withdrawalsRoot ?? new Uint8Array(32);
    if (this.withdrawalsAt >= 0) items[this.withdrawalsAt] = withdrawalsRoot;
    if (this.blobGasAt >= 0) items[this.blobGasAt] = bigIntToUnpaddedBytes(totals.blobGasUsed);
    const rlp = RLP.encode(items);
    const hash = keccak256(rlp);
    const base = this.baseJson;
    const withdrawalsAt = this.withdrawalsAt;
    const blobGasAt = this.blobGasAt;
    return {
      rlp,
      hash,
      gasUsed: totals.gasUsed,
      json(): RpcHeader {
        // Assigning keys the template already has keeps geth's sorted order.
        const out: RpcHeader = { ...base };
        out.gasUsed = toQuantity(totals.gasUsed);
        out.hash = toData(hash);
        out.logsBloom = toData(totals.logsBloom);
        out.receiptsRoot = toData(totals.receiptsRoot);
        out.stateRoot = toData(roots.stateRoot);
        out.transactionsRoot = toData(roots.transactionsRoot);
        if (withdrawalsAt >= 0) out.withdrawalsRoot = toData(withdrawalsRoot);
        if (blobGasAt >= 0) out.blobGasUsed = toQuantity(totals.blobGasUsed);
        return out;
      },
    };
  }
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
