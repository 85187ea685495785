/**
 * The JSON form of a transaction, field for field and in the key order of geth's
 * `RPCTransaction` (internal/ethapi), which is what the execution-apis fixtures record.
 *
 * On OP Stack chains (`opts.op` set) transactions take op-reth's (base-reth-node) form instead,
 * and deposit transactions (type 0x7e) always do: see {@link formatTransaction}.
 */
import { txHashOf } from "../envelope.js";
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
import { isDeposit, type DepositTransaction } from "../op/depositTx.js";
import type { OpChainConfig } from "../op/forks.js";
import { toData, toQuantity } from "./quantity.js";

/** Options shared by the RPC formatters (transactions, blocks, receipts). */
export interface RpcFormatOptions {
  /**
   * The chain's OP Stack configuration. When set, transactions and receipts take the JSON form
   * op-reth (base-reth-node) serves; when absent (plain Ethereum chains) the geth form.
   */
  op?: OpChainConfig;
}

/** Any transaction a block can hold: an @ethereumjs typed transaction or an OP deposit. */
export type AnyTransaction = TypedTransaction | DepositTransaction;

/** The deposit-only fields of a stored receipt that a mined deposit's JSON reports. */
interface DepositReceiptInfo {
  /** The sender's nonce before the deposit executed (Regolith+). */
  depositNonce?: bigint;
  /** Receipt encoding version (Canyon+: 1). */
  depositReceiptVersion?: number;
}

/** Where a mined transaction sits: block, position, and the data the JSON form derives from it. */
interface TransactionBlockContext {
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
  /**
   * The transaction's stored receipt. Only read for deposits, whose JSON reports the receipt's
   * `depositNonce` (as `nonce`) and `depositReceiptVersion`; without it both keys are omitted.
   */
  receipt?: DepositReceiptInfo;
}

/** Context of a transaction not in a block (txpool): only the sender is known. */
interface PendingTransactionContext {
  sender: Uint8Array;
}

/** One entry of an EIP-2930 access list. */
interface RpcAccessListEntry {
  address: string;
  storageKeys: string[];
}

/** One EIP-7702 authorization tuple. */
interface RpcAuthorization {
  chainId: string;
  address: string;
  nonce: string;
  yParity: string;
  r: string;
  s: string;
}

/**
 * JSON form of a transaction: geth's `RPCTransaction`, or on OP chains op-reth's form (same values,
 * other key order, no `blockTimestamp`); optional keys are omitted when absent. The deposit-only
 * keys (`sourceHash`, `mint`, `isSystemTx`, `depositReceiptVersion`) appear only for type 0x7e,
 * whose `nonce` is the receipt's deposit nonce (absent when unknown) and whose `to` is absent for
 * a creation.
 */
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
  nonce?: string;
  to?: string | null;
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
  /** Deposits: the 32-byte source hash. */
  sourceHash?: string;
  /** Deposits: wei minted on L2. */
  mint?: string;
  /** Deposits: `"0x1"` for a (pre-Regolith) system transaction; absent when false. */
  isSystemTx?: string;
  /** Deposits: the receipt's `depositReceiptVersion` (Canyon+). */
  depositReceiptVersion?: string;
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
 * baseFee + maxPriorityFeePerGas)`, or `maxFeePerGas` when no base fee is known (geth);
 * 0 for OP deposits (op-reth: `TxDeposit::effective_gas_price` is 0, deposits buy no gas).
 */
export function effectiveGasPrice(tx: AnyTransaction, baseFee: bigint | undefined): bigint {
  if (isDeposit(tx)) return 0n;
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
export function blobVersionedHashes(tx: AnyTransaction): string[] {
  if (isDeposit(tx) || !isBlob4844Tx(tx)) return [];
  const hashes = tx.blobVersionedHashes as ReadonlyArray<string | Uint8Array>;
  return hashes.map((h) => (typeof h === "string" ? h.toLowerCase() : toData(h)));
}

function isBlockContext(ctx: TransactionBlockContext | PendingTransactionContext): ctx is TransactionBlockContext {
  return (ctx as TransactionBlockContext).blockHash !== undefined;
}

/** The zero signature op-reth reports for deposits (base/base `TxDeposit::signature()`: r = s = 0, even parity). */
const DEPOSIT_SIGNATURE_ZERO = "0x0";

/**
 * The JSON of a deposit transaction exactly as op-reth (base-reth-node) serves it. Sources (base/base
 * @ 98a8db8): `crates/alloy/rpc-types/src/transaction.rs` (`Transaction` serialized through
 * `TransactionSerdeHelper`: the flattened envelope, then `blockHash`, `blockNumber`,
 * `transactionIndex`, `depositReceiptVersion` (skipped when none), then `from` (skipped for
 * deposits, which carry their own), `gasPrice` (the effective price 0, emitted because a deposit has
 * no gas price of its own) and `nonce` (= the receipt's `depositNonce`, skipped when none));
 * `crates/alloy/consensus/src/transaction/envelope.rs` (internally tagged: `type` first; deposits
 * use `serde_deposit_tx_rpc`, which appends the zero signature `r`, `s`, `yParity`, `v`);
 * `crates/alloy/consensus/src/transaction/deposit.rs` (`TxDeposit` camelCase fields `sourceHash`,
 * `from`, `to` (skipped for a creation), `mint`, `value`, `gas`, `isSystemTx` (QUANTITY, skipped
 * when false), `input`); alloy-primitives `Sealed` (adds `hash` after the fields) and `Signature`
 * (human-readable order r, s, yParity, v).
 */
function formatDepositTransaction(tx: DepositTransaction, mined: TransactionBlockContext | undefined): RpcTransaction {
  const out: Partial<RpcTransaction> = { type: toQuantity(tx.type), sourceHash: toData(tx.sourceHash), from: toData(tx.from.bytes) };
  if (tx.to !== undefined) out.to = toData(tx.to.bytes);
  out.mint = toQuantity(tx.mint);
  out.value = toQuantity(tx.value);
  out.gas = toQuantity(tx.gasLimit);
  if (tx.isSystemTx) out.isSystemTx = toQuantity(1);
  out.input = toData(tx.data);
  out.hash = toData(txHashOf(tx));
  out.r = DEPOSIT_SIGNATURE_ZERO;
  out.s = DEPOSIT_SIGNATURE_ZERO;
  out.yParity = DEPOSIT_SIGNATURE_ZERO;
  out.v = DEPOSIT_SIGNATURE_ZERO;
  out.blockHash = mined ? toData(mined.blockHash) : null;
  out.blockNumber = mined ? toQuantity(mined.blockNumber) : null;
  out.transactionIndex = mined ? toQuantity(mined.index) : null;
  const receipt = mined?.receipt;
  if (receipt?.depositReceiptVersion !== undefined) out.depositReceiptVersion = toQuantity(receipt.depositReceiptVersion);
  out.gasPrice = toQuantity(0);
  if (receipt?.depositNonce !== undefined) out.nonce = toQuantity(receipt.depositNonce);
  return out as RpcTransaction;
}

function accessListJson(tx: AccessList2930Tx | FeeMarketTx): RpcAccessListEntry[] {
  return tx.accessList.map(([address, keys]) => ({ address: toData(address), storageKeys: keys.map(toData) }));
}

function authorizationListJson(tx: EOACode7702Tx): RpcAuthorization[] {
  return tx.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
    chainId: toQuantity(bytesToBigInt(chainId!)),
    address: toData(address!),
    nonce: toQuantity(bytesToBigInt(nonce!)),
    yParity: toQuantity(bytesToBigInt(yParity!)),
    r: toQuantity(bytesToBigInt(r!)),
    s: toQuantity(bytesToBigInt(s!)),
  }));
}

/**
 * A non-deposit transaction as op-reth serves it on OP chains (base/base
 * `crates/alloy/rpc-types/src/transaction.rs` over alloy 1.7 `Signed<T>` serde): `type`, then the
 * transaction's own fields in alloy's struct order (legacy: `chainId` (EIP-155 only), `nonce`,
 * `gasPrice`, `gas`, `to`, `value`, `input`; 2930: `chainId`, `nonce`, `gasPrice`, `gas`, `to`,
 * `value`, `accessList`, `input`; 1559: `chainId`, `nonce`, `gas`, `maxFeePerGas`,
 * `maxPriorityFeePerGas`, `to`, `value`, `accessList`, `input`; 7702 adds `authorizationList`
 * (always, possibly empty) before `input`), the signature (`r`, `s`, `yParity`, `v`; legacy `r`,
 * `s`, `v` = the raw EIP-155 V), `hash`, then `blockHash`, `blockNumber`, `transactionIndex`,
 * `from` and — only for types without a `gasPrice` field — `gasPrice` = the effective price.
 * op-reth adds no deposit keys (`nonce`/`depositReceiptVersion` stay the tx's own / absent) and,
 * unlike geth, no `blockTimestamp`. Types op-reth does not know (blob txs) fall back to geth's form.
 */
function formatOpRethTransaction(tx: TypedTransaction, mined: TransactionBlockContext | undefined, from: Uint8Array): RpcTransaction | undefined {
  if (!isLegacyTx(tx) && !isAccessList2930Tx(tx) && !isFeeMarket1559Tx(tx) && !isEOACode7702Tx(tx)) return undefined;
  const v = tx.v ?? 0n;
  const out: Partial<RpcTransaction> = { type: toQuantity(tx.type) };
  if (isLegacyTx(tx)) {
    const chainId = legacyChainId(v);
    if (chainId !== undefined) out.chainId = toQuantity(chainId);
  } else {
    out.chainId = toQuantity(tx.chainId);
  }
  out.nonce = toQuantity(tx.nonce);
  if (isLegacyTx(tx) || isAccessList2930Tx(tx)) {
    out.gasPrice = toQuantity(gasPriceOf(tx));
    out.gas = toQuantity(tx.gasLimit);
  } else {
    out.gas = toQuantity(tx.gasLimit);
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas);
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas);
  }
  out.to = tx.to === undefined ? null : toData(tx.to.bytes);
  out.value = toQuantity(tx.value);
  if (!isLegacyTx(tx)) out.accessList = accessListJson(tx);
  if (isEOACode7702Tx(tx)) out.authorizationList = authorizationListJson(tx);
  out.input = toData(tx.data);
  out.r = toQuantity(tx.r ?? 0n);
  out.s = toQuantity(tx.s ?? 0n);
  if (!isLegacyTx(tx)) out.yParity = toQuantity(v === 0n ? 0n : 1n);
  out.v = toQuantity(v);
  out.hash = toData(txHashOf(tx));
  out.blockHash = mined ? toData(mined.blockHash) : null;
  out.blockNumber = mined ? toQuantity(mined.blockNumber) : null;
  out.transactionIndex = mined ? toQuantity(mined.index) : null;
  out.from = toData(from);
  if (hasFeeMarket(tx)) out.gasPrice = toQuantity(mined ? effectiveGasPrice(tx, mined.baseFee) : tx.maxFeePerGas);
  return out as RpcTransaction;
}

/**
 * Formats a transaction for eth_getTransactionByHash, eth_getTransactionByBlockHashAndIndex,
 * eth_getTransactionByBlockNumberAndIndex, eth_getBlockByNumber/eth_getBlockByHash with full
 * transactions, and the txpool methods.
 *
 * Plain Ethereum chains (no `opts.op`) get geth's `RPCTransaction`, byte for byte:
 * - Mined (`ctx` is a {@link TransactionBlockContext}): block fields set; the `gasPrice` of
 *   1559-style txs is the effective price `min(maxFeePerGas, baseFee + maxPriorityFeePerGas)`.
 * - Pending (`ctx` is `{ sender }`, or `null` with `sender` as third argument): `blockHash`,
 *   `blockNumber`, `blockTimestamp` and `transactionIndex` are null and `gasPrice` is
 *   `maxFeePerGas` for 1559-style txs.
 * - Per type: legacy has `v` = the raw V and `chainId` only when EIP-155 protected; typed
 *   transactions add `accessList` (possibly `[]`), `chainId`, `v` = `yParity`; type 2+ add the fee
 *   caps; type 3 adds `maxFeePerBlobGas` and `blobVersionedHashes`; type 4 adds `authorizationList`.
 *
 * OP chains (`opts.op` set) get op-reth's form of the same values (see `formatOpRethTransaction`:
 * alloy key order, no `blockTimestamp`). Deposits (type 0x7e) always get op-reth's deposit form
 * (see `formatDepositTransaction`): `gasPrice` 0, zero signature, `nonce` and
 * `depositReceiptVersion` from `ctx.receipt`.
 */
export function formatTransaction(
  tx: AnyTransaction,
  ctx: TransactionBlockContext | PendingTransactionContext | null,
  sender?: Uint8Array,
  opts: RpcFormatOptions = {},
): RpcTransaction {
  const mined = ctx !== null && isBlockContext(ctx) ? ctx : undefined;
  if (isDeposit(tx)) return formatDepositTransaction(tx, mined);
  const from = ctx?.sender ?? sender;
  if (from === undefined) throw new TypeError("formatTransaction: the sender is required");
  if (opts.op !== undefined) {
    const op = formatOpRethTransaction(tx, mined, from);
    if (op !== undefined) return op;
  }
  return formatGethTransaction(tx, mined, from);
}

/** geth's `RPCTransaction` (see {@link formatTransaction}). */
function formatGethTransaction(tx: TypedTransaction, mined: TransactionBlockContext | undefined, from: Uint8Array): RpcTransaction {
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
  out.hash = toData(txHashOf(tx));
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
    out.accessList = accessListJson(tx);
    out.chainId = toQuantity(tx.chainId);
    if (isBlob4844Tx(tx)) {
      const hashes = blobVersionedHashes(tx);
      if (hashes.length > 0) out.blobVersionedHashes = hashes;
    }
    if (isEOACode7702Tx(tx) && tx.authorizationList.length > 0) out.authorizationList = authorizationListJson(tx);
  }
  out.v = toQuantity(v);
  out.r = toQuantity(tx.r ?? 0n);
  out.s = toQuantity(tx.s ?? 0n);
  if (!isLegacyTx(tx)) out.yParity = toQuantity(v === 0n ? 0n : 1n);
  return out as RpcTransaction;
}
