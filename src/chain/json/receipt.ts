/**
 * The JSON form of receipts and logs as geth's `MarshalReceipt` and `types.Log` give them.
 * A stored receipt holds only the consensus fields; everything else (gasUsed, logIndex,
 * contractAddress, effectiveGasPrice, blob gas, …) is derived here from the block, the
 * receipt list and the senders, as geth's `Receipts.DeriveFields` does.
 *
 * On OP Stack chains (`opts.op`) receipts take op-reth's (base-reth-node) form instead, with the
 * OP fields (L1 fee data, deposit nonce/version, Jovian DA footprint): see {@link formatReceipts}.
 */
import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { keccak256 } from "../../util/keccak.js";
import { isDeposit } from "../op/depositTx.js";
import { opForkAt, type OpFork } from "../op/forks.js";
import { l1BlockInfoFromCalldata, type L1BlockInfo } from "../op/l1BlockInfo.js";
import { opReceiptFields, type OpReceiptFieldsJson } from "../op/receiptFields.js";
import type { Log, StoredReceipt } from "../../storage/types.js";
import { toData, toQuantity } from "./quantity.js";
import { envelopeOf, txHashOf } from "../envelope.js";
import { blobVersionedHashes, effectiveGasPrice, type AnyTransaction, type RpcFormatOptions } from "./transaction.js";

/** Blob gas per blob (EIP-4844 `GAS_PER_BLOB`, unchanged by later forks). */
const GAS_PER_BLOB = 131_072n;

/** Where a log sits: its block, transaction and position in the block. */
interface LogContext {
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

/**
 * JSON form of a receipt: geth's `MarshalReceipt` (keys sorted as geth's map gives them), or on OP
 * chains op-reth's `OpTransactionReceipt` (other key order, plus the OP keys below).
 */
export interface RpcReceipt extends OpReceiptFieldsJson {
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
  /** OP deposits (Regolith+): the sender's nonce before the deposit. */
  depositNonce?: string;
  /** OP deposits (Canyon+): the deposit receipt version. */
  depositReceiptVersion?: string;
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
  return keccak256(RLP.encode([sender, bigIntToUnpaddedBytes(nonce)])).subarray(12);
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

/** The per-block input of op-reth's OP receipt fields. */
interface OpBlockReceiptContext {
  /** The block's L1 info, decoded from its first transaction's calldata (op-reth `extract_l1_info`). */
  info: L1BlockInfo;
  /** The OP fork at the block timestamp. */
  fork: OpFork;
}

/** Per-block values shared by every receipt of the block. */
interface BlockReceiptContext {
  block: Block;
  blockHash: Uint8Array;
  blobGasPrice: bigint | undefined;
  /** Set on OP chains: receipts take op-reth's form. */
  op?: OpBlockReceiptContext;
}

/**
 * The shared context of a block's receipts. On OP chains the L1 info is decoded from the calldata
 * of the block's first transaction (the L1-info deposit), as op-reth's receipt converter does; a
 * block without transactions has no receipts to format, so nothing is decoded for it.
 * @throws L1InfoCalldataError when the first transaction's calldata is not L1-info calldata (op-reth
 * fails the whole request then too).
 */
function blockReceiptContext(block: Block, opts: RpcFormatOptions): BlockReceiptContext {
  const bctx: BlockReceiptContext = { block, blockHash: block.hash(), blobGasPrice: blobGasPriceOf(block) };
  const first = block.transactions[0] as AnyTransaction | undefined;
  if (opts.op !== undefined && first !== undefined) {
    bctx.op = { info: l1BlockInfoFromCalldata(first.data), fork: opForkAt(opts.op, block.header.timestamp) };
  }
  return bctx;
}

/** A log in op-reth's key order (alloy `rpc-types-eth` `Log`: the consensus log, then its block/tx context). */
function opRethLog(l: RpcLog): RpcLog {
  return {
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockHash: l.blockHash,
    blockNumber: l.blockNumber,
    blockTimestamp: l.blockTimestamp,
    transactionHash: l.transactionHash,
    transactionIndex: l.transactionIndex,
    logIndex: l.logIndex,
    removed: l.removed,
  };
}

/**
 * Reorders a receipt built with geth's values into op-reth's form and adds the OP fields. Order as
 * serde writes base/base `OpTransactionReceipt` (crates/alloy/rpc-types/src/receipt.rs) over alloy
 * 1.7 `TransactionReceipt<ReceiptWithBloom<OpReceipt<Log>>>`: the internally tagged `OpReceipt`
 * (`type`, then `status` (or `root`), `cumulativeGasUsed`, `logs`, and for deposits `depositNonce`
 * / `depositReceiptVersion` when set), `logsBloom`, then `transactionHash`, `transactionIndex`,
 * `blockHash`, `blockNumber`, `gasUsed`, `effectiveGasPrice`, `blobGasUsed` (when set), `from`,
 * `to`, `contractAddress`, then the flattened `L1BlockInfo` (`l1GasPrice`, `l1GasUsed`,
 * `l1Fee`, `l1FeeScalar`, `l1BaseFeeScalar`, `l1BlobBaseFee`, `l1BlobBaseFeeScalar`,
 * `operatorFeeScalar`, `operatorFeeConstant`, `daFootprintGasScalar`; every absent one omitted,
 * never null). The OP values come from `opReceiptFields` (base/base
 * crates/execution/rpc/src/eth/receipt.rs): computed for every transaction, deposits included
 * (their `l1Fee` is 0); from Jovian `blobGasUsed` is the transaction's DA footprint.
 */
function toOpRethReceipt(geth: RpcReceipt, op: OpReceiptFieldsJson, tx: AnyTransaction, receipt: StoredReceipt): RpcReceipt {
  const out: Partial<RpcReceipt> = { type: geth.type };
  if (geth.root !== undefined) out.root = geth.root;
  if (geth.status !== undefined) out.status = geth.status;
  out.cumulativeGasUsed = geth.cumulativeGasUsed;
  out.logs = geth.logs.map(opRethLog);
  if (isDeposit(tx)) {
    if (receipt.depositNonce !== undefined) out.depositNonce = toQuantity(receipt.depositNonce);
    if (receipt.depositReceiptVersion !== undefined) out.depositReceiptVersion = toQuantity(receipt.depositReceiptVersion);
  }
  out.logsBloom = geth.logsBloom;
  out.transactionHash = geth.transactionHash;
  out.transactionIndex = geth.transactionIndex;
  out.blockHash = geth.blockHash;
  out.blockNumber = geth.blockNumber;
  out.gasUsed = geth.gasUsed;
  out.effectiveGasPrice = geth.effectiveGasPrice;
  // OP chains have no blob transactions: `blobGasUsed` is only the Jovian DA footprint, `blobGasPrice` never set.
  if (op.blobGasUsed !== undefined) out.blobGasUsed = op.blobGasUsed;
  out.from = geth.from;
  out.to = geth.to;
  out.contractAddress = geth.contractAddress;
  if (op.l1GasPrice !== undefined) out.l1GasPrice = op.l1GasPrice;
  if (op.l1GasUsed !== undefined) out.l1GasUsed = op.l1GasUsed;
  if (op.l1Fee !== undefined) out.l1Fee = op.l1Fee;
  if (op.l1FeeScalar !== undefined) out.l1FeeScalar = op.l1FeeScalar;
  if (op.l1BaseFeeScalar !== undefined) out.l1BaseFeeScalar = op.l1BaseFeeScalar;
  if (op.l1BlobBaseFee !== undefined) out.l1BlobBaseFee = op.l1BlobBaseFee;
  if (op.l1BlobBaseFeeScalar !== undefined) out.l1BlobBaseFeeScalar = op.l1BlobBaseFeeScalar;
  if (op.operatorFeeScalar !== undefined) out.operatorFeeScalar = op.operatorFeeScalar;
  if (op.operatorFeeConstant !== undefined) out.operatorFeeConstant = op.operatorFeeConstant;
  if (op.daFootprintGasScalar !== undefined) out.daFootprintGasScalar = op.daFootprintGasScalar;
  return out as RpcReceipt;
}

function buildReceipt(
  bctx: BlockReceiptContext,
  tx: AnyTransaction,
  receipt: StoredReceipt,
  sender: Uint8Array,
  index: number,
  previousCumulativeGas: bigint,
  firstLogIndex: number,
): RpcReceipt {
  const { block, blockHash } = bctx;
  const header = block.header;
  const txHash = txHashOf(tx);
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
  if (bctx.op !== undefined) return toOpRethReceipt(out, opReceiptFields(bctx.op.info, envelopeOf(tx as { serialize(): Uint8Array }), bctx.op.fork), tx, receipt);
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
 *
 * With `opts.op` (OP Stack chains) every receipt takes op-reth's form (see `toOpRethReceipt`):
 * op-reth's key order, the L1 fee fields for every transaction, `depositNonce` /
 * `depositReceiptVersion` for deposits, `effectiveGasPrice` 0 for deposits, and from Jovian the DA
 * footprint as `blobGasUsed`. Like op-reth, a deposit creation's `contractAddress` is derived with
 * nonce 0 (op-reth's `TxDeposit::nonce()`), not the deposit nonce.
 * @param receipts one stored receipt per transaction, in block order.
 * @param senders the recovered sender of each transaction, in block order.
 * @throws L1InfoCalldataError on an OP chain when the block's first transaction is not an L1-info deposit.
 */
export function formatReceipts(block: Block, receipts: StoredReceipt[], senders: Uint8Array[], opts: RpcFormatOptions = {}): RpcReceipt[] {
  checkLengths(block, receipts, senders);
  const bctx = blockReceiptContext(block, opts);
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
 * Formats the receipt of the transaction at `index` as geth does for eth_getTransactionReceipt
 * (op-reth's form with `opts.op`, as {@link formatReceipts}). Needs the receipts before it (for
 * `gasUsed` and the block-wide `logIndex`); only `senders[index]` is read.
 */
export function formatReceipt(
  block: Block,
  receipts: StoredReceipt[],
  senders: Uint8Array[],
  index: number,
  opts: RpcFormatOptions = {},
): RpcReceipt {
  const tx = block.transactions[index];
  const receipt = receipts[index];
  const sender = senders[index];
  if (tx === undefined || receipt === undefined || sender === undefined) {
    throw new RangeError(`formatReceipt: no transaction/receipt/sender at index ${index}`);
  }
  let logIndex = 0;
  for (let i = 0; i < index; i++) logIndex += receipts[i]!.logs.length;
  const previous = index === 0 ? 0n : receipts[index - 1]!.cumulativeGasUsed;
  return buildReceipt(blockReceiptContext(block, opts), tx, receipt, sender, index, previous, logIndex);
}

/**
 * {@link formatReceipt} from the one receipt and sender it reads, plus the two values it derives
 * from the receipts before it (the previous cumulative gas, for `gasUsed`; their log count, the
 * first `logIndex`): eth_getTransactionReceipt, which decodes only that receipt from the store.
 */
export function formatReceiptAt(
  block: Block,
  receipt: StoredReceipt,
  sender: Uint8Array,
  index: number,
  previousCumulativeGas: bigint,
  firstLogIndex: number,
  opts: RpcFormatOptions = {},
): RpcReceipt {
  const tx = block.transactions[index];
  if (tx === undefined) throw new RangeError(`formatReceiptAt: no transaction at index ${index}`);
  return buildReceipt(blockReceiptContext(block, opts), tx, receipt, sender, index, previousCumulativeGas, firstLogIndex);
}

/** Formats one receipt of a block: see {@link blockReceiptFormatter}. */
export type ReceiptFormatter = (tx: AnyTransaction, receipts: StoredReceipt[], senders: Uint8Array[], index: number) => RpcReceipt;

/**
 * The receipts of one block formatted one at a time over a context built once (on OP chains the
 * L1 info decoded from the block's first transaction): the flashblocks worker renders each new
 * receipt of a growing block once, on a block whose hash changes every frame, so `blockHash`
 * (a stand-in it replaces later) is written in place of the block's own hash. Each receipt is
 * {@link formatReceipt}'s for the same block, receipts and senders.
 * @param block the block's header and, on OP chains, its first transaction (the L1-info deposit).
 */
export function blockReceiptFormatter(block: Block, opts: RpcFormatOptions, blockHash: Uint8Array): ReceiptFormatter {
  const bctx: BlockReceiptContext = { ...blockReceiptContext(block, opts), blockHash };
  return (tx, receipts, senders, index) => {
    const receipt = receipts[index];
    const sender = senders[index];
    if (receipt === undefined || sender === undefined) throw new RangeError(`blockReceiptFormatter: no receipt/sender at index ${index}`);
    let logIndex = 0;
    for (let i = 0; i < index; i++) logIndex += receipts[i]!.logs.length;
    const previous = index === 0 ? 0n : receipts[index - 1]!.cumulativeGasUsed;
    return buildReceipt(bctx, tx, receipt, sender, index, previous, logIndex);
  };
}

/**
 * All logs of a block in order, formatted with their block-wide `logIndex`: the raw material
 * of eth_getLogs / eth_getFilterLogs (the caller filters by address and topics).
 */
export function formatBlockLogs(block: Block, receipts: StoredReceipt[], removed = false, opts: { op?: unknown } = {}): RpcLog[] {
  if (receipts.length !== block.transactions.length) {
    throw new TypeError(`logs: ${receipts.length} receipts for ${block.transactions.length} transactions`);
  }
  const blockHash = block.hash();
  const out: RpcLog[] = [];
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const txHash = txHashOf(block.transactions[i]!);
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
  // OP chains: op-reth's (alloy) key order.
  return opts.op === undefined ? out : out.map(opRethLog);
}

/** What {@link formatSelectedLogs} needs of a block: no transaction objects, only their hashes. */
interface BlockLogsContext {
  blockHash: Uint8Array;
  blockNumber: bigint;
  blockTimestamp: bigint;
  /** The block's transaction hashes, in order (one per receipt). */
  txHashes: Uint8Array[];
}

/**
 * The logs of a block that `keep` accepts, formatted exactly as {@link formatBlockLogs} formats
 * them (block-wide `logIndex` counted over every log): eth_getLogs formats only its matches.
 */
export function formatSelectedLogs(ctx: BlockLogsContext, receipts: readonly { logs: readonly Log[] }[], keep: (log: Log) => boolean, removed = false, opts: { op?: unknown } = {}): RpcLog[] {
  if (receipts.length !== ctx.txHashes.length) {
    throw new TypeError(`logs: ${receipts.length} receipts for ${ctx.txHashes.length} transactions`);
  }
  const out: RpcLog[] = [];
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    for (const log of receipts[i]!.logs) {
      const index = logIndex++;
      if (!keep(log)) continue;
      const l = formatLog(log, {
        blockHash: ctx.blockHash,
        blockNumber: ctx.blockNumber,
        blockTimestamp: ctx.blockTimestamp,
        transactionHash: ctx.txHashes[i]!,
        transactionIndex: i,
        logIndex: index,
        removed,
      });
      out.push(opts.op === undefined ? l : opRethLog(l));
    }
  }
  return out;
}
