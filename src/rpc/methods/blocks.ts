/**
 * Block, transaction and receipt queries: eth_getBlockByNumber, eth_getBlockByHash,
 * eth_getBlockReceipts, eth_getTransactionByHash, eth_getTransactionReceipt,
 * eth_getTransactionBy{BlockHash,BlockNumber}AndIndex, eth_getBlockTransactionCountBy*,
 * eth_getUncleCountBy*, eth_blockNumber, eth_chainId.
 */
import type { Block } from "@ethereumjs/block";
import { isDeposit } from "../../chain/op/depositTx.js";
import type { RpcBackend } from "../backend.js";
import { parseBlockParam, resolveBlock } from "../blockParam.js";
import { formatBlock, formatReceipt, formatReceipts, formatTransaction, parseHash, parseQuantity, toQuantity } from "../format/index.js";
import { maxParams, parseBool, required } from "../params.js";
import type { MethodTable } from "../types.js";

/** Handlers of the block family. */
export function blockMethods(b: RpcBackend): MethodTable {
  const { chain } = b;
  /** OP chains format transactions and receipts as op-reth does (undefined on plain Ethereum chains). */
  const op = chain.op;

  const blockJson = (block: Block | undefined, full: boolean): unknown => {
    if (block === undefined) return null;
    if (!full) return formatBlock(block, { fullTransactions: false, senders: [] });
    const hash = block.hash();
    // Deposits report their receipt's deposit nonce and version: only OP blocks need the receipts.
    const receipts = op !== undefined && block.transactions.some((tx) => isDeposit(tx)) ? chain.getReceipts(hash) : undefined;
    return formatBlock(block, { fullTransactions: true, senders: chain.getSenders(hash), receipts, op });
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

  /** The block named by a number/tag parameter at `params[0]`. */
  const byNumber = (params: unknown[]): Block | undefined => resolveBlock(chain, parseBlockParam(required(params, 0), 0));
  /** The block named by a hash parameter at `params[0]`. */
  const byHash = (params: unknown[]): Block | undefined => chain.getBlockByHash(parseHash(required(params, 0), 0));
  const count = (block: Block | undefined, n: (b: Block) => number): string | null => (block === undefined ? null : toQuantity(n(block)));

  return {
    eth_chainId: () => toQuantity(chain.chainId),
    eth_blockNumber: () => toQuantity(chain.head.header.number),

    /** eth_getBlockByNumber(block, fullTransactions) */
    eth_getBlockByNumber: (params) => {
      maxParams(params, 2);
      const p = parseBlockParam(required(params, 0), 0);
      const full = parseBool(required(params, 1), 1);
      return blockJson(resolveBlock(chain, p), full);
    },
    /** eth_getBlockByHash(hash, fullTransactions) */
    eth_getBlockByHash: (params) => {
      maxParams(params, 2);
      const h = parseHash(required(params, 0), 0);
      const full = parseBool(required(params, 1), 1);
      return blockJson(chain.getBlockByHash(h), full);
    },
    /** eth_getBlockReceipts(block) */
    eth_getBlockReceipts: (params) => {
      maxParams(params, 1);
      const block = resolveBlock(chain, parseBlockParam(required(params, 0), 0, { allowHash: true }));
      if (block === undefined) return null;
      const receipts = chain.getReceipts(block.hash());
      if (receipts === undefined) return null;
      return formatReceipts(block, receipts, chain.getSenders(block.hash()), { op });
    },
    eth_getBlockTransactionCountByNumber: (params) => count(byNumber(params), (b) => b.transactions.length),
    eth_getBlockTransactionCountByHash: (params) => count(byHash(params), (b) => b.transactions.length),
    eth_getUncleCountByBlockNumber: (params) => count(byNumber(params), (b) => b.uncleHeaders.length),
    eth_getUncleCountByBlockHash: (params) => count(byHash(params), (b) => b.uncleHeaders.length),
    eth_getTransactionByBlockNumberAndIndex: (params) => txInBlock(byNumber(params), parseQuantity(required(params, 1), 1)),
    eth_getTransactionByBlockHashAndIndex: (params) => txInBlock(byHash(params), parseQuantity(required(params, 1), 1)),
    /** eth_getTransactionByHash(hash): canonical chain first, then the mempool. */
    eth_getTransactionByHash: (params) => {
      maxParams(params, 1);
      const h = parseHash(required(params, 0), 0);
      const loc = chain.store.getTxLocation(h);
      if (loc !== undefined) return txInBlock(chain.getBlockByHash(loc.blockHash), BigInt(loc.index));
      const pooled = b.pool.get(h);
      if (pooled !== undefined) return formatTransaction(pooled.tx, null, pooled.sender, { op });
      return null;
    },
    /** eth_getTransactionReceipt(hash) */
    eth_getTransactionReceipt: (params) => {
      maxParams(params, 1);
      const h = parseHash(required(params, 0), 0);
      const loc = chain.store.getTxLocation(h);
      if (loc === undefined) return null;
      const block = chain.getBlockByHash(loc.blockHash);
      const receipts = chain.getReceipts(loc.blockHash);
      if (block === undefined || receipts === undefined) return null;
      return formatReceipt(block, receipts, chain.getSenders(loc.blockHash), loc.index, { op });
    },
  };
}
