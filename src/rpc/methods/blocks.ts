/**
 * Block, transaction and receipt queries: eth_getBlockByNumber, eth_getBlockByHash,
 * eth_getBlockReceipts, eth_getTransactionByHash, eth_getTransactionReceipt,
 * eth_getTransactionBy{BlockHash,BlockNumber}AndIndex, eth_getBlockTransactionCountBy*,
 * eth_getUncleCountBy*, eth_blockNumber, eth_chainId; and reth's eth_getHeaderByNumber,
 * eth_getHeaderByHash, eth_getRawTransactionByHash, eth_getRawTransactionBy{BlockHash,BlockNumber}AndIndex,
 * eth_getTransactionBySenderAndNonce.
 *
 * The `pending` tag answers from the pending snapshot's pending block (its pre-rendered JSON)
 * when there is one, else exactly as `latest`. Lookups by transaction hash try the canonical
 * chain first (a pre-confirmed transaction that became canonical answers with its canonical
 * block), then every block of the snapshot; lookups by block hash also find the snapshot's
 * blocks by their partial-block hash.
 */
import type { Block } from "@ethereumjs/block";
import type { Chain } from "../../blockchain/chain.js";
import { isDeposit } from "../../chain/op/depositTx.js";
import { pendingHead, type PendingBlockView, type PendingTx } from "../../flashblocks/pendingSnapshot.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveBlock, type BlockParam } from "../blockParam.js";
import { envelopeOf } from "../../chain/envelope.js";
import { formatBlock, formatBlockHeader, formatReceiptAt, formatReceipts, formatTransaction, toData, toQuantity, type RpcReceipt } from "../../chain/json/index.js";
import { parseAddress, parseHash, parseQuantity } from "../hexParams.js";
import { maxParams, parseBool, required } from "../params.js";
import { BlockResponseCache, type BlockAnswer } from "../responseCache.js";
import { RawJson, type MethodTable } from "../types.js";
import { findPendingBlock, findPendingTx, pendingFor, positionFor } from "./pending.js";

/**
 * The canonical receipt of transaction `hash`, formatted as eth_getTransactionReceipt returns it
 * (also eth_sendRawTransactionSync); null when the transaction is not in a canonical block.
 */
export function canonicalReceipt(chain: Chain, hash: Uint8Array): RpcReceipt | null {
  const loc = chain.store.getTxLocation(hash);
  return loc === undefined ? null : receiptAt(chain, loc);
}

/** The receipt of the transaction at `loc` (a canonical transaction's location); null when its block or receipts are missing. */
function receiptAt(chain: Chain, loc: { blockHash: Uint8Array; index: number }): RpcReceipt | null {
  const block = chain.getBlockByHash(loc.blockHash);
  // Only this receipt is decoded (a block's receipts are not all needed for one).
  const at = chain.getReceiptAt(loc.blockHash, loc.index);
  const sender = chain.getSenderAt(loc.blockHash, loc.index);
  if (block === undefined || at === undefined || sender === undefined) return null;
  return formatReceiptAt(block, at.receipt, sender, loc.index, at.previousCumulativeGas, at.firstLogIndex, { op: chain.op });
}

/** The n-th transaction of a pending block as eth_getTransactionBy*AndIndex returns it, null out of range. */
function pendingTxAt(block: PendingBlockView, index: bigint): RawJson | null {
  return index < BigInt(block.txs.length) ? new RawJson(block.txs[Number(index)]!.txJson) : null;
}

/** The header part of a pending block's JSON (reth's eth_getHeaderBy* of a pending block): its block JSON without the body's keys. */
function pendingHeader(block: PendingBlockView): unknown {
  const { transactions: _t, uncles: _u, withdrawals: _w, ...header } = JSON.parse(block.blockJson) as Record<string, unknown>;
  return header;
}

/** The n-th transaction's envelope of a block (stored or pending), null out of range. */
function rawTxAt(block: Block | PendingBlockView | undefined, index: bigint): string | null {
  if (block === undefined) return null;
  if ("header" in block) return index < BigInt(block.transactions.length) ? toData(envelopeOf(block.transactions[Number(index)]!)) : null;
  return index < BigInt(block.txs.length) ? toData(block.txs[Number(index)]!.raw) : null;
}

/**
 * The final JSON text of one block answer — eth_getBlockByNumber/ByHash with transaction hashes
 * (`hashes`) or full transactions (`full`, with the stored senders; on OP chains the stored
 * receipts too when the block holds deposits, for their nonce and version), or
 * eth_getBlockReceipts (`receipts`; undefined when the receipts are not stored). This is what
 * the response cache holds.
 */
export function renderBlockAnswer(chain: Chain, block: Block, answer: BlockAnswer): string | undefined {
  const op = chain.op;
  const hash = block.hash();
  if (answer === "receipts") {
    const receipts = chain.getReceipts(hash);
    return receipts === undefined ? undefined : JSON.stringify(formatReceipts(block, receipts, chain.getSenders(hash), { op }));
  }
  if (answer === "hashes") return JSON.stringify(formatBlock(block, { fullTransactions: false, senders: [] }));
  const receipts = op !== undefined && block.transactions.some((tx) => isDeposit(tx)) ? chain.getReceipts(hash) : undefined;
  return JSON.stringify(formatBlock(block, { fullTransactions: true, senders: chain.getSenders(hash), receipts, op }));
}

/** Handlers of the block family. */
export function blockMethods(b: RpcBackend): MethodTable {
  const { chain } = b;
  /** OP chains format transactions and receipts as op-reth does (undefined on plain Ethereum chains). */
  const op = chain.op;

  /** Final JSON of recent blocks' answers, rendered when they become the head. */
  const cache = new BlockResponseCache((block, answer) => renderBlockAnswer(chain, block, answer), chain, b.settings.responseCacheBlocks);
  chain.onHead((head, reorged) => cache.onHead(head, reorged));

  const blockJson = (block: Block | undefined, full: boolean): unknown => {
    if (block === undefined) return null;
    return cache.get(block, full ? "full" : "hashes");
  };

  const txInBlock = (block: Block | undefined, index: bigint): unknown => {
    if (block === undefined || index >= BigInt(block.transactions.length)) return null;
    const i = Number(index);
    const tx = block.transactions[i]!;
    const hash = block.hash();
    return formatTransaction(
      tx,
      {
        blockHash: hash,
        blockNumber: block.header.number,
        blockTimestamp: block.header.timestamp,
        index: i,
        baseFee: block.header.baseFeePerGas,
        sender: chain.getSenders(hash)[i]!,
        receipt: isDeposit(tx) ? chain.getReceipts(hash)?.[i] : undefined,
      },
      undefined,
      { op },
    );
  };

  /**
   * The block named by a number/tag parameter at `params[0]`: a stored block, or for `pending`
   * with a snapshot its pending block.
   */
  const byNumber = (method: string, params: unknown[]): Block | PendingBlockView | undefined => {
    const p = parseBlockParam(required(params, 0), 0, { allowFlashblock: true });
    const at = atFlashblock(method, p);
    if (at !== undefined) return at;
    if (isPendingParam(p)) {
      const s = pendingFor(b, method);
      if (s !== undefined) return pendingHead(s);
    }
    return resolveBlock(chain, p);
  };
  /** A `{blockNumber, flashblockIndex}` parameter above the canonical head: the pending block as of that index (else undefined: canonical). */
  const atFlashblock = (method: string, p: BlockParam): PendingBlockView | undefined => {
    if (p.kind !== "flashblock") return undefined;
    const answer = positionFor(b, method, p);
    return answer.kind === "pending" ? answer.at.block : undefined;
  };
  /** A block of the current snapshot (if any) by hash: the by-hash methods' fallback after the stored blocks. */
  const pendingByHash = (method: string, hash: Uint8Array): PendingBlockView | undefined => {
    const s = pendingFor(b, method);
    return s === undefined ? undefined : findPendingBlock(s, toData(hash));
  };
  /** The block named by a hash parameter at `params[0]`: a stored block, else a block of the pending snapshot. */
  const byHash = (method: string, params: unknown[]): Block | PendingBlockView | undefined => {
    const h = parseHash(required(params, 0), 0);
    return chain.getBlockByHash(h) ?? pendingByHash(method, h);
  };
  const isStored = (block: Block | PendingBlockView): block is Block => "header" in block;
  const count = (block: Block | PendingBlockView | undefined, n: (b: Block) => number, pendingN: (b: PendingBlockView) => number): string | null =>
    block === undefined ? null : toQuantity(isStored(block) ? n(block) : pendingN(block));
  const txAt = (block: Block | PendingBlockView | undefined, index: bigint): unknown =>
    block === undefined || isStored(block) ? txInBlock(block, index) : pendingTxAt(block, index);
  /** A pre-confirmed transaction of the current snapshot (if any): the by-hash lookups' fallback after the canonical chain. */
  const pendingTx = (method: string, hash: Uint8Array): PendingTx | undefined => {
    const s = pendingFor(b, method);
    return s === undefined ? undefined : findPendingTx(s, toData(hash));
  };

  return {
    eth_chainId: () => toQuantity(chain.chainId),
    eth_blockNumber: () => toQuantity(chain.head.header.number),

    /** eth_getBlockByNumber(block, fullTransactions); `pending`: the pending block's pre-rendered JSON. */
    eth_getBlockByNumber: (params) => {
      maxParams(params, 2);
      const p = parseBlockParam(required(params, 0), 0, { allowFlashblock: true });
      const full = parseBool(required(params, 1), 1);
      const at = atFlashblock("eth_getBlockByNumber", p);
      if (at !== undefined) return new RawJson(full ? at.blockJsonFull : at.blockJson);
      if (isPendingParam(p)) {
        const s = pendingFor(b, "eth_getBlockByNumber");
        if (s !== undefined) {
          const head = pendingHead(s);
          return new RawJson(full ? head.blockJsonFull : head.blockJson);
        }
      }
      if (p.kind === "number" || p.kind === "flashblock") return cache.getByNumber(BigInt(p.number), full ? "full" : "hashes") ?? null;
      return blockJson(resolveBlock(chain, p), full);
    },
    /** eth_getBlockByHash(hash, fullTransactions): a stored block, else a block of the pending snapshot. */
    eth_getBlockByHash: (params) => {
      maxParams(params, 2);
      const h = parseHash(required(params, 0), 0);
      const full = parseBool(required(params, 1), 1);
      const block = chain.getBlockByHash(h);
      if (block === undefined) {
        const pb = pendingByHash("eth_getBlockByHash", h);
        if (pb !== undefined) return new RawJson(full ? pb.blockJsonFull : pb.blockJson);
      }
      return blockJson(block, full);
    },
    /**
     * eth_getBlockReceipts(block). `pending`: every pre-confirmed receipt of the pending block
     * (the reference node answers from `latest` here); a snapshot block's hash: its receipts.
     */
    eth_getBlockReceipts: (params) => {
      maxParams(params, 1);
      const p = parseBlockParam(required(params, 0), 0, { allowHash: true, allowFlashblock: true });
      const at = atFlashblock("eth_getBlockReceipts", p);
      if (at !== undefined) return new RawJson(at.receiptsJson);
      if (isPendingParam(p)) {
        const s = pendingFor(b, "eth_getBlockReceipts");
        if (s !== undefined) return new RawJson(pendingHead(s).receiptsJson);
      }
      if (p.kind === "number" || p.kind === "flashblock") return cache.getByNumber(BigInt(p.number), "receipts") ?? null;
      const block = resolveBlock(chain, p);
      if (block === undefined) {
        const pb = p.kind === "hash" ? pendingByHash("eth_getBlockReceipts", p.hash) : undefined;
        return pb === undefined ? null : new RawJson(pb.receiptsJson);
      }
      return cache.get(block, "receipts") ?? null;
    },
    /** eth_getBlockTransactionCountByNumber(block); `pending`: the pending block's transaction count. */
    eth_getBlockTransactionCountByNumber: (params) =>
      count(byNumber("eth_getBlockTransactionCountByNumber", params), (b) => b.transactions.length, (pb) => pb.txs.length),
    eth_getBlockTransactionCountByHash: (params) =>
      count(byHash("eth_getBlockTransactionCountByHash", params), (b) => b.transactions.length, (pb) => pb.txs.length),
    /** eth_getUncleCountByBlockNumber(block); a pending block has no uncles. */
    eth_getUncleCountByBlockNumber: (params) => count(byNumber("eth_getUncleCountByBlockNumber", params), (b) => b.uncleHeaders.length, () => 0),
    eth_getUncleCountByBlockHash: (params) => count(byHash("eth_getUncleCountByBlockHash", params), (b) => b.uncleHeaders.length, () => 0),
    /** eth_getTransactionByBlockNumberAndIndex(block, index); `pending`: from the pending block's transactions. */
    eth_getTransactionByBlockNumberAndIndex: (params) =>
      txAt(byNumber("eth_getTransactionByBlockNumberAndIndex", params), parseQuantity(required(params, 1), 1)),
    eth_getTransactionByBlockHashAndIndex: (params) =>
      txAt(byHash("eth_getTransactionByBlockHashAndIndex", params), parseQuantity(required(params, 1), 1)),
    /** eth_getTransactionByHash(hash): canonical chain first, then the pending snapshot, then the mempool. */
    eth_getTransactionByHash: (params) => {
      maxParams(params, 1);
      const h = parseHash(required(params, 0), 0);
      const loc = chain.store.getTxLocation(h);
      if (loc !== undefined) return txInBlock(chain.getBlockByHash(loc.blockHash), BigInt(loc.index));
      const pre = pendingTx("eth_getTransactionByHash", h);
      if (pre !== undefined) return new RawJson(pre.txJson);
      const pooled = b.pool.get(h);
      if (pooled !== undefined) return formatTransaction(pooled.tx, null, pooled.sender, { op });
      return null;
    },
    /**
     * eth_getHeaderByNumber(block) (reth): the header part of the block's answer, `size` included;
     * `pending`: the pending block's header.
     */
    eth_getHeaderByNumber: (params) => {
      maxParams(params, 1);
      const block = byNumber("eth_getHeaderByNumber", params);
      if (block === undefined) return null;
      return isStored(block) ? formatBlockHeader(block) : pendingHeader(block);
    },
    /** eth_getHeaderByHash(hash) (reth): a stored block's header, else a block of the pending snapshot. */
    eth_getHeaderByHash: (params) => {
      maxParams(params, 1);
      const block = byHash("eth_getHeaderByHash", params);
      if (block === undefined) return null;
      return isStored(block) ? formatBlockHeader(block) : pendingHeader(block);
    },
    /**
     * eth_getRawTransactionByHash(hash): the EIP-2718 envelope — canonical chain first, then the
     * pending snapshot, then the mempool (a pooled blob transaction in its network form, as reth).
     */
    eth_getRawTransactionByHash: (params) => {
      maxParams(params, 1);
      const h = parseHash(required(params, 0), 0);
      const loc = chain.store.getTxLocation(h);
      if (loc !== undefined) return rawTxAt(chain.getBlockByHash(loc.blockHash), BigInt(loc.index));
      const pre = pendingTx("eth_getRawTransactionByHash", h);
      if (pre !== undefined) return toData(pre.raw);
      const pooled = b.pool.get(h);
      return pooled === undefined ? null : toData(pooled.raw);
    },
    /** eth_getRawTransactionByBlockNumberAndIndex(block, index); `pending`: from the pending block. */
    eth_getRawTransactionByBlockNumberAndIndex: (params) => {
      maxParams(params, 2);
      return rawTxAt(byNumber("eth_getRawTransactionByBlockNumberAndIndex", params), parseQuantity(required(params, 1), 1));
    },
    /** eth_getRawTransactionByBlockHashAndIndex(hash, index): a stored block, else a block of the pending snapshot. */
    eth_getRawTransactionByBlockHashAndIndex: (params) => {
      maxParams(params, 2);
      return rawTxAt(byHash("eth_getRawTransactionByBlockHashAndIndex", params), parseQuantity(required(params, 1), 1));
    },
    /**
     * eth_getTransactionBySenderAndNonce(sender, nonce) (reth): the mempool's transaction first;
     * else, when the sender's latest nonce is past `nonce`, the block where it passed it — found
     * by binary search over the sender's nonce in the kept state history (all of it with
     * `--archive`) — and the sender's transaction with that nonce in it; null otherwise.
     */
    eth_getTransactionBySenderAndNonce: (params) => {
      maxParams(params, 2);
      const sender = parseAddress(required(params, 0), 0);
      const nonce = parseQuantity(required(params, 1), 1);
      const pooled = b.pool.getBySenderNonce(sender, nonce);
      if (pooled !== undefined) return formatTransaction(pooled.tx, null, pooled.sender, { op });
      const nonceAt = (n: bigint): bigint => {
        const block = chain.getBlockByNumber(n);
        return block === undefined ? 0n : (chain.stateAt(block.header).account(sender)?.nonce ?? 0n);
      };
      let high = chain.head.header.number;
      if (nonce >= nonceAt(high)) return null;
      let low = chain.oldestStateBlock();
      // The first block after which the sender's nonce is past `nonce`.
      while (low < high) {
        const mid = (low + high) / 2n;
        if (nonceAt(mid) > nonce) high = mid;
        else low = mid + 1n;
      }
      const block = chain.getBlockByNumber(low);
      if (block === undefined) return null;
      const senders = chain.getSenders(block.hash());
      for (let i = 0; i < block.transactions.length; i++) {
        const tx = block.transactions[i]!;
        if (!isDeposit(tx) && tx.nonce === nonce && senders[i] !== undefined && Buffer.from(senders[i]!).equals(Buffer.from(sender))) return txInBlock(block, BigInt(i));
      }
      return null;
    },
    /** eth_getTransactionReceipt(hash): canonical chain first, then the pending snapshot. */
    eth_getTransactionReceipt: (params) => {
      maxParams(params, 1);
      const h = parseHash(required(params, 0), 0);
      const loc = chain.store.getTxLocation(h);
      if (loc !== undefined) return receiptAt(chain, loc);
      const pre = pendingTx("eth_getTransactionReceipt", h);
      return pre === undefined ? null : new RawJson(pre.receiptJson);
    },
  };
}
