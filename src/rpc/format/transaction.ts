/**
 * The JSON form of a transaction, field for field and in the key order of geth's
 * `RPCTransaction` (internal/ethapi), which is what the execution-apis fixtures record.
 */
import {
  isAccessList2930Tx,
  isBlob4844Tx,
  isEOACode7702Tx,
  isFeeMarket1559Tx,
  isLegacyTx,
  type AccessList2930Tx,
  type Blob4844Tx,
  type EOACode7702Tx,
  type FeeMarket1559Tx,
  type LegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { bytesToBigInt } from "@ethereumjs/util";
import { toData, toQuantity } from "./quantity.js";

/** Where a mined transaction sits: block, position, and the data the JSON form derives from it. */
export interface TransactionBlockContext {
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** The block's timestamp; geth reports it as `blockTimestamp` (omitted here when not given). */
  blockTimestamp?: bigint;
  /** Position of the transaction in the block. */
  index: number;
  /** The block's base fee (London and later): used for the effective `gasPrice` of 1559-style txs. */
  baseFee?: bigint;
  /** The recovered sender (the formatter never recovers it). */
  sender: Uint8Array;
}

/** Context of a transaction not in a block (txpool): only the sender is known. */
export interface PendingTransactionContext {
  sender: Uint8Array;
}

/** One entry of an EIP-2930 access list. */
export interface RpcAccessListEntry {
  address: string;
  storageKeys: string[];
}

/** One EIP-7702 authorization tuple. */
export interface RpcAuthorization {
  chainId: string;
  address: string;
  nonce: string;
  yParity: string;
  r: string;
  s: string;
}

/** JSON form of a transaction (geth `RPCTransaction`); optional keys are omitted when absent. */
export interface RpcTransaction {
  blockHash: string | null;
  blockNumber: string | null;
  blockTimestamp?: string | null;
  from: string;
  gas: string;
  gasPrice: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  maxFeePerBlobGas?: string;
  hash: string;
  input: string;
  nonce: string;
  to: string | null;
  transactionIndex: string | null;
  value: string;
  type: string;
  accessList?: RpcAccessListEntry[];
  chainId?: string;
  blobVersionedHashes?: string[];
  authorizationList?: RpcAuthorization[];
  v: string;
  r: string;
  s: string;
  yParity?: string;
}

/** The 1559-style transaction types (2, 3, 4): fee caps instead of a gas price. */
type FeeMarketTx = FeeMarket1559Tx | Blob4844Tx | EOACode7702Tx;

function hasFeeMarket(tx: TypedTransaction): tx is FeeMarketTx {
  return isFeeMarket1559Tx(tx) || isBlob4844Tx(tx) || isEOACode7702Tx(tx);
}

/** The gas price of a legacy or 2930 transaction. */
function gasPriceOf(tx: LegacyTx | AccessList2930Tx): bigint {
  return tx.gasPrice;
}

/**
 * The price per gas a transaction actually pays (receipts' `effectiveGasPrice`, mined txs'
 * `gasPrice`): `gasPrice` for legacy/2930 txs; for 1559-style txs `min(maxFeePerGas,
 * baseFee + maxPriorityFeePerGas)`, or `maxFeePerGas` when no base fee is known (geth).
 */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (hasFeeMarket(tx)) {
    if (baseFee === undefined) return tx.maxFeePerGas;
    const fee = baseFee + tx.maxPriorityFeePerGas;
    return tx.maxFeePerGas < fee ? tx.maxFeePerGas : fee;
  }
  if (isLegacyTx(tx) || isAccessList2930Tx(tx)) return gasPriceOf(tx);
  throw new TypeError(`unsupported transaction type ${(tx as { type: number }).type}`);
}

/** The EIP-155 chain id encoded in a legacy `v`, or undefined for unprotected (27/28) signatures. */
function legacyChainId(v: bigint): bigint | undefined {
  if (v === 27n || v === 28n || v < 35n) return undefined;
  const id = (v - 35n) / 2n;
  return id === 0n ? undefined : id;
}

/**
 * The versioned hashes of a blob transaction as lowercase DATA. (@ethereumjs/tx keeps them as
 * hex strings on the class although its interface declares bytes; both are accepted.)
 */
export function blobVersionedHashes(tx: TypedTransaction): string[] {
  if (!isBlob4844Tx(tx)) return [];
  const hashes = tx.blobVersionedHashes as ReadonlyArray<string | Uint8Array>;
  return hashes.map((h) => (typeof h === "string" ? h.toLowerCase() : toData(h)));
}

function isBlockContext(ctx: TransactionBlockContext | PendingTransactionContext): ctx is TransactionBlockContext {
  return (ctx as TransactionBlockContext).blockHash !== undefined;
}

/**
 * Formats a transaction as geth does for eth_getTransactionByHash,
 * eth_getTransactionByBlockHashAndIndex, eth_getTransactionByBlockNumberAndIndex,
 * eth_getBlockByNumber/eth_getBlockByHash with full transactions, and the txpool methods.
 *
 * - Mined (`ctx` is a {@link TransactionBlockContext}): block fields set; the `gasPrice` of
 *   1559-style txs is the effective price `min(maxFeePerGas, baseFee + maxPriorityFeePerGas)`.
 * - Pending (`ctx` is `{ sender }`, or `null` with `sender` as third argument): `blockHash`,
 *   `blockNumber`, `blockTimestamp` and `transactionIndex` are null and `gasPrice` is
 *   `maxFeePerGas` for 1559-style txs.
 *
 * Per type: legacy has `v` = the raw V and `chainId` only when EIP-155 protected; typed
 * transactions add `accessList` (possibly `[]`), `chainId`, `v` = `yParity`; type 2+ add the fee
 * caps; type 3 adds `maxFeePerBlobGas` and `blobVersionedHashes`; type 4 adds `authorizationList`.
 */
export function formatTransaction(
  tx: TypedTransaction,
  ctx: TransactionBlockContext | PendingTransactionContext | null,
  sender?: Uint8Array,
): RpcTransaction {
  const from = ctx?.sender ?? sender;
  if (from === undefined) throw new TypeError("formatTransaction: the sender is required");
  const mined = ctx !== null && isBlockContext(ctx) ? ctx : undefined;

  const v = tx.v ?? 0n;
  const out: Partial<RpcTransaction> = {
    blockHash: mined ? toData(mined.blockHash) : null,
    blockNumber: mined ? toQuantity(mined.blockNumber) : null,
  };
  if (!mined) out.blockTimestamp = null;
  else if (mined.blockTimestamp !== undefined) out.blockTimestamp = toQuantity(mined.blockTimestamp);
  out.from = toData(from);
  out.gas = toQuantity(tx.gasLimit);
  if (hasFeeMarket(tx)) {
    out.gasPrice = toQuantity(mined ? effectiveGasPrice(tx, mined.baseFee) : tx.maxFeePerGas);
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas);
    if (isBlob4844Tx(tx)) out.maxFeePerBlobGas = toQuantity(tx.maxFeePerBlobGas);
  } else if (isLegacyTx(tx) || isAccessList2930Tx(tx)) {
    out.gasPrice = toQuantity(gasPriceOf(tx));
  } else {
    throw new TypeError(`unsupported transaction type ${(tx as { type: number }).type}`);
  }
  out.hash = toData(tx.hash());
  out.input = toData(tx.data);
  out.nonce = toQuantity(tx.nonce);
  out.to = tx.to === undefined ? null : toData(tx.to.bytes);
  out.transactionIndex = mined ? toQuantity(mined.index) : null;
  out.value = toQuantity(tx.value);
  out.type = toQuantity(tx.type);
  if (isLegacyTx(tx)) {
    const chainId = legacyChainId(v);
    if (chainId !== undefined) out.chainId = toQuantity(chainId);
  } else {
    out.accessList = tx.accessList.map(([address, keys]) => ({
      address: toData(address),
      storageKeys: keys.map(toData),
    }));
    out.chainId = toQuantity(tx.chainId);
    if (isBlob4844Tx(tx)) {
      const hashes = blobVersionedHashes(tx);
      if (hashes.length > 0) out.blobVersionedHashes = hashes;
    }
    if (isEOACode7702Tx(tx)) {
      const list = tx.authorizationList;
      if (list.length > 0) {
        out.authorizationList = list.map(([chainId, address, nonce, yParity, r, s]) => ({
          chainId: toQuantity(bytesToBigInt(chainId!)),
          address: toData(address!),
          nonce: toQuantity(bytesToBigInt(nonce!)),
          yParity: toQuantity(bytesToBigInt(yParity!)),
          r: toQuantity(bytesToBigInt(r!)),
          s: toQuantity(bytesToBigInt(s!)),
        }));
      }
    }
  }
  out.v = toQuantity(v);
  out.r = toQuantity(tx.r ?? 0n);
  out.s = toQuantity(tx.s ?? 0n);
  if (!isLegacyTx(tx)) out.yParity = toQuantity(v === 0n ? 0n : 1n);
  return out as RpcTransaction;
}
