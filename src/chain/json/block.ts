/**
 * The JSON form of blocks and headers as geth's `RPCMarshalHeader` / `RPCMarshalBlock` give it.
 * geth builds these as Go maps, so the JSON keys come out sorted; the objects built here have
 * their keys in the same sorted order, so `JSON.stringify` reproduces geth's bytes.
 */
import { blockRlpLength } from "../blockSize.js";
import { txHashOf } from "../envelope.js";
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { OpChainConfig } from "../op/forks.js";
import type { StoredReceipt } from "../../storage/types.js";
import { toData, toQuantity } from "./quantity.js";
import { formatTransaction, type RpcTransaction } from "./transaction.js";

/** JSON form of an EIP-4895 withdrawal (geth struct order: index, validatorIndex, address, amount). */
interface RpcWithdrawal {
  index: string;
  validatorIndex: string;
  address: string;
  amount: string;
}

/** JSON form of a header (geth `RPCMarshalHeader`); fork-dependent keys only when the header has them. */
export interface RpcHeader {
  baseFeePerGas?: string;
  blobGasUsed?: string;
  difficulty: string;
  excessBlobGas?: string;
  extraData: string;
  gasLimit: string;
  gasUsed: string;
  hash: string;
  logsBloom: string;
  miner: string;
  mixHash: string;
  nonce: string;
  number: string;
  parentBeaconBlockRoot?: string;
  parentHash: string;
  receiptsRoot: string;
  requestsHash?: string;
  sha3Uncles: string;
  stateRoot: string;
  timestamp: string;
  transactionsRoot: string;
  withdrawalsRoot?: string;
}

/** JSON form of a block (geth `RPCMarshalBlock`). */
export interface RpcBlock extends RpcHeader {
  size: string;
  totalDifficulty?: string;
  transactions: string[] | RpcTransaction[];
  uncles: string[];
  withdrawals?: RpcWithdrawal[];
}

/** Options of {@link formatBlock}. */
interface FormatBlockOptions {
  /** Full transaction objects (true) or only their hashes (false): the RPC's second parameter. */
  fullTransactions: boolean;
  /** Recovered senders, one per transaction (only read when `fullTransactions`). */
  senders: Uint8Array[];
  /**
   * Adds `totalDifficulty` when given. geth no longer reports it (the execution-apis fixtures
   * have no such key), so leave it out for geth parity.
   */
  totalDifficulty?: bigint;
  /**
   * The block's stored receipts (only read when `fullTransactions`): a deposit's JSON reports its
   * receipt's `depositNonce` (as `nonce`) and `depositReceiptVersion`. Without them those keys are omitted.
   */
  receipts?: StoredReceipt[];
  /** The chain's OP configuration: full transactions take op-reth's form (see `formatTransaction`). */
  op?: OpChainConfig;
}

/** Copies `o` with its keys in Go's sorted map order. */
function sortKeys<T extends object>(o: T): T {
  const entries = Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries) as T;
}

function headerFields(header: BlockHeader): RpcHeader {
  const out: RpcHeader = {
    difficulty: toQuantity(header.difficulty),
    extraData: toData(header.extraData),
    gasLimit: toQuantity(header.gasLimit),
    gasUsed: toQuantity(header.gasUsed),
    hash: toData(header.hash()),
    logsBloom: toData(header.logsBloom),
    miner: toData(header.coinbase.bytes),
    mixHash: toData(header.mixHash),
    nonce: toData(header.nonce),
    number: toQuantity(header.number),
    parentHash: toData(header.parentHash),
    receiptsRoot: toData(header.receiptTrie),
    sha3Uncles: toData(header.uncleHash),
    stateRoot: toData(header.stateRoot),
    timestamp: toQuantity(header.timestamp),
    transactionsRoot: toData(header.transactionsTrie),
  };
  if (header.baseFeePerGas !== undefined) out.baseFeePerGas = toQuantity(header.baseFeePerGas);
  if (header.withdrawalsRoot !== undefined) out.withdrawalsRoot = toData(header.withdrawalsRoot);
  if (header.blobGasUsed !== undefined) out.blobGasUsed = toQuantity(header.blobGasUsed);
  if (header.excessBlobGas !== undefined) out.excessBlobGas = toQuantity(header.excessBlobGas);
  if (header.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = toData(header.parentBeaconBlockRoot);
  if (header.requestsHash !== undefined) out.requestsHash = toData(header.requestsHash);
  return out;
}

/**
 * Formats a header as geth's `RPCMarshalHeader`: the header part of every eth_getBlockByNumber /
 * eth_getBlockByHash result. (geth answers eth_getUncleByBlock{Hash,Number}AndIndex with a full
 * block form of a header-only block: use {@link formatBlock} on one for those.)
 * Fork fields appear only when the header carries them: `baseFeePerGas` (London),
 * `withdrawalsRoot` (Shanghai), `blobGasUsed`/`excessBlobGas`/`parentBeaconBlockRoot` (Cancun),
 * `requestsHash` (Prague).
 */
export function formatHeader(header: BlockHeader): RpcHeader {
  return sortKeys(headerFields(header));
}

/**
 * A block's header as reth answers eth_getHeaderByNumber / eth_getHeaderByHash: the header part
 * of the block's eth_getBlockByNumber answer, `size` (the block's RLP length) included — geth's
 * methods of the same names leave `size` out; reth (and so op-reth and base-reth-node) keep it.
 */
export function formatBlockHeader(block: Block): RpcHeader & { size: string } {
  return sortKeys({ ...headerFields(block.header), size: toQuantity(blockRlpLength(block)) });
}

/**
 * Formats a block as geth does for eth_getBlockByNumber and eth_getBlockByHash: the header
 * fields, `size` (length of the block's RLP), `transactions` (hashes, or full objects with
 * `opts.senders`), `uncles` (uncle hashes) and, from Shanghai on, `withdrawals`.
 * No `totalDifficulty` unless `opts.totalDifficulty` is given (geth dropped it).
 * On OP chains (`opts.op`) full transactions take op-reth's form and deposits read their
 * `nonce`/`depositReceiptVersion` from `opts.receipts`; the header part is unchanged.
 */
export function formatBlock(block: Block, opts: FormatBlockOptions): RpcBlock {
  const header = block.header;
  const blockHash = header.hash();
  const out: RpcBlock = {
    ...headerFields(header),
    size: toQuantity(blockRlpLength(block)),
    transactions: opts.fullTransactions
      ? block.transactions.map((tx, index) => {
          const sender = opts.senders[index];
          if (sender === undefined) throw new TypeError(`formatBlock: missing sender of transaction ${index}`);
          return formatTransaction(
            tx,
            {
              blockHash,
              blockNumber: header.number,
              blockTimestamp: header.timestamp,
              index,
              baseFee: header.baseFeePerGas,
              sender,
              receipt: opts.receipts?.[index],
            },
            undefined,
            { op: opts.op },
          );
        })
      : block.transactions.map((tx) => toData(txHashOf(tx))),
    uncles: block.uncleHeaders.map((u) => toData(u.hash())),
  };
  if (opts.totalDifficulty !== undefined) out.totalDifficulty = toQuantity(opts.totalDifficulty);
  if (header.withdrawalsRoot !== undefined) {
    out.withdrawals = (block.withdrawals ?? []).map((w) => ({
      index: toQuantity(w.index),
      validatorIndex: toQuantity(w.validatorIndex),
      address: toData(w.address.bytes),
      amount: toQuantity(w.amount),
    }));
  }
  return sortKeys(out);
}
