/**
 * The JSON form of receipts and logs as geth's `MarshalReceipt` and `types.Log` give them.
 * A stored receipt holds only the consensus fields; everything else (gasUsed, logIndex,
 * contractAddress, effectiveGasPrice, blob gas, …) is derived here from the block, the
 * receipt list and the senders, as geth's `Receipts.DeriveFields` does.
 */
import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Log, StoredReceipt } from "../../chain/types.js";
import { toData, toQuantity } from "./quantity.js";
import { blobVersionedHashes, effectiveGasPrice } from "./transaction.js";

/** Blob gas per blob (EIP-4844 `GAS_PER_BLOB`, unchanged by later forks). */
export const GAS_PER_BLOB = 131_072n;

/** Where a log sits: its block, transaction and position in the block. */
export interface LogContext {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  /** Position of the log among all logs of the block. */
  logIndex: number;
  /** True for logs of a block removed by a reorg (subscriptions/filters); default false. */
  removed?: boolean;
}

/** JSON form of a log (geth `types.Log` key order). */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  transactionIndex: string;
  blockHash: string;
  blockTimestamp: string;
  logIndex: string;
  removed: boolean;
}

/** JSON form of a receipt (geth `MarshalReceipt`, keys sorted as geth's map gives them). */
export interface RpcReceipt {
  blobGasPrice?: string;
  blobGasUsed?: string;
  blockHash: string;
  blockNumber: string;
  contractAddress: string | null;
  cumulativeGasUsed: string;
  effectiveGasPrice: string;
  from: string;
  gasUsed: string;
  logs: RpcLog[];
  logsBloom: string;
  /** Before Byzantium: the post-transaction state root, instead of `status`. */
  root?: string;
  status?: string;
  to: string | null;
  transactionHash: string;
  transactionIndex: string;
  type: string;
}

/**
 * Formats one log as geth does for eth_getLogs, eth_getFilterLogs, eth_getFilterChanges, the
 * `logs` subscription and the `logs` array of receipts.
 */
export function formatLog(log: Log, ctx: LogContext): RpcLog {
  return {
    address: toData(log.address),
    topics: log.topics.map(toData),
    data: toData(log.data),
    blockNumber: toQuantity(ctx.blockNumber),
    transactionHash: toData(ctx.transactionHash),
    transactionIndex: toQuantity(ctx.transactionIndex),
    blockHash: toData(ctx.blockHash),
    blockTimestamp: toQuantity(ctx.blockTimestamp),
    logIndex: toQuantity(ctx.logIndex),
    removed: ctx.removed ?? false,
  };
}

/**
 * Address of the contract a creation transaction deploys: `keccak256(rlp([sender, nonce]))[12:]`
 * (the receipts' `contractAddress`).
 */
export function createAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak_256(RLP.encode([sender, bigIntToUnpaddedBytes(nonce)])).subarray(12);
}

/** The block's blob base fee (from its `excessBlobGas`), or undefined before Cancun. */
function blobGasPriceOf(block: Block): bigint | undefined {
  return block.header.excessBlobGas === undefined ? undefined : block.header.getBlobGasPrice();
}

function checkLengths(block: Block, receipts: StoredReceipt[], senders: Uint8Array[]): void {
  if (receipts.length !== block.transactions.length) {
    throw new TypeError(`receipts: ${receipts.length} receipts for ${block.transactions.length} transactions`);
  }
  if (senders.length < block.transactions.length) {
    throw new TypeError(`receipts: ${senders.length} senders for ${block.transactions.length} transactions`);
  }
}

/** Per-block values shared by every receipt of the block. */
interface BlockReceiptContext {
  block: Block;
  blockHash: Uint8Array;
  blobGasPrice: bigint | undefined;
}

function buildReceipt(
  bctx: BlockReceiptContext,
  tx: TypedTransaction,
  receipt: StoredReceipt,
  sender: Uint8Array,
  index: number,
  previousCumulativeGas: bigint,
  firstLogIndex: number,
): RpcReceipt {
  const { block, blockHash } = bctx;
  const header = block.header;
  const txHash = tx.hash();
  const out: RpcReceipt = {
    blockHash: toData(blockHash),
    blockNumber: toQuantity(header.number),
    contractAddress: tx.to === undefined ? toData(createAddress(sender, tx.nonce)) : null,
    cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(effectiveGasPrice(tx, header.baseFeePerGas)),
    from: toData(sender),
    gasUsed: toQuantity(receipt.cumulativeGasUsed - previousCumulativeGas),
    logs: receipt.logs.map((log, i) =>
      formatLog(log, {
        blockHash,
        blockNumber: header.number,
        blockTimestamp: header.timestamp,
        transactionHash: txHash,
        transactionIndex: index,
        logIndex: firstLogIndex + i,
      }),
    ),
    logsBloom: toData(receipt.bloom),
    to: tx.to === undefined ? null : toData(tx.to.bytes),
    transactionHash: toData(txHash),
    transactionIndex: toQuantity(index),
    type: toQuantity(tx.type),
  };
  if (receipt.root !== undefined && receipt.root.length > 0) out.root = toData(receipt.root);
  else out.status = toQuantity(receipt.status ?? 0);
  if (tx.type === 3) {
    const blobs = BigInt(blobVersionedHashes(tx).length);
    out.blobGasUsed = toQuantity(blobs * GAS_PER_BLOB);
    out.blobGasPrice = toQuantity(bctx.blobGasPrice ?? 0n);
  }
  // Keys in geth's (sorted map) order.
  const sorted: Partial<RpcReceipt> = {};
  if (out.blobGasPrice !== undefined) sorted.blobGasPrice = out.blobGasPrice;
  if (out.blobGasUsed !== undefined) sorted.blobGasUsed = out.blobGasUsed;
  sorted.blockHash = out.blockHash;
  sorted.blockNumber = out.blockNumber;
  sorted.contractAddress = out.contractAddress;
  sorted.cumulativeGasUsed = out.cumulativeGasUsed;
  sorted.effectiveGasPrice = out.effectiveGasPrice;
  sorted.from = out.from;
  sorted.gasUsed = out.gasUsed;
  sorted.logs = out.logs;
  sorted.logsBloom = out.logsBloom;
  if (out.root !== undefined) sorted.root = out.root;
  if (out.status !== undefined) sorted.status = out.status;
  sorted.to = out.to;
  sorted.transactionHash = out.transactionHash;
  sorted.transactionIndex = out.transactionIndex;
  sorted.type = out.type;
  return sorted as RpcReceipt;
}

/**
 * Formats all receipts of a block as geth does for eth_getBlockReceipts: `gasUsed` is the
 * difference of cumulative gas, `logIndex` runs across the block, `contractAddress` is set
 * for creations, `effectiveGasPrice` follows the block's base fee, and blob transactions get
 * `blobGasUsed`/`blobGasPrice` (the block's blob base fee). Pre-Byzantium receipts report
 * `root` instead of `status`.
 * @param receipts one stored receipt per transaction, in block order.
 * @param senders the recovered sender of each transaction, in block order.
 */
export function formatReceipts(block: Block, receipts: StoredReceipt[], senders: Uint8Array[]): RpcReceipt[] {
  checkLengths(block, receipts, senders);
  const bctx: BlockReceiptContext = { block, blockHash: block.hash(), blobGasPrice: blobGasPriceOf(block) };
  const out: RpcReceipt[] = [];
  let cumulative = 0n;
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const receipt = receipts[i]!;
    out.push(buildReceipt(bctx, block.transactions[i]!, receipt, senders[i]!, i, cumulative, logIndex));
    cumulative = receipt.cumulativeGasUsed;
    logIndex += receipt.logs.length;
  }
  return out;
}

/**
 * Formats the receipt of the transaction at `index` as geth does for eth_getTransactionReceipt.
 * Needs the receipts before it (for `gasUsed` and the block-wide `logIndex`); only
 * `senders[index]` is read.
 */
export function formatReceipt(block: Block, receipts: StoredReceipt[], senders: Uint8Array[], index: number): RpcReceipt {
  const tx = block.transactions[index];
  const receipt = receipts[index];
  const sender = senders[index];
  if (tx === undefined || receipt === undefined || sender === undefined) {
    throw new RangeError(`formatReceipt: no transaction/receipt/sender at index ${index}`);
  }
  let logIndex = 0;
  for (let i = 0; i < index; i++) logIndex += receipts[i]!.logs.length;
  const previous = index === 0 ? 0n : receipts[index - 1]!.cumulativeGasUsed;
  const bctx: BlockReceiptContext = { block, blockHash: block.hash(), blobGasPrice: blobGasPriceOf(block) };
  return buildReceipt(bctx, tx, receipt, sender, index, previous, logIndex);
}

/**
 * All logs of a block in order, formatted with their block-wide `logIndex`: the raw material
 * of eth_getLogs / eth_getFilterLogs (the caller filters by address and topics).
 */
export function formatBlockLogs(block: Block, receipts: StoredReceipt[], removed = false): RpcLog[] {
  if (receipts.length !== block.transactions.length) {
    throw new TypeError(`logs: ${receipts.length} receipts for ${block.transactions.length} transactions`);
  }
  const blockHash = block.hash();
  const out: RpcLog[] = [];
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const txHash = block.transactions[i]!.hash();
    for (const log of receipts[i]!.logs) {
      out.push(
        formatLog(log, {
          blockHash,
          blockNumber: block.header.number,
          blockTimestamp: block.header.timestamp,
          transactionHash: txHash,
          transactionIndex: i,
          logIndex: logIndex++,
          removed,
        }),
      );
    }
  }
  return out;
}
