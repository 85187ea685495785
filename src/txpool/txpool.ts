/**
 * The transaction pool: validated, signed transactions waiting for a block. Transactions
 * are keyed by sender and nonce; a sender's transactions with consecutive nonces from its
 * state nonce are "pending" (executable), the rest "queued". Replacing a transaction needs
 * a 10 % higher fee (geth `PriceBump`). Blocks take pending transactions by effective tip.
 *
 * On OP Stack chains the pool also applies op-reth's rules (base/base crates/txpool/src/validator.rs
 * over reth's `EthTransactionValidator`): deposits and blob transactions are refused, the EIP-7825
 * per-transaction gas cap applies from Azul, and the sender must also afford the L1 data fee.
 *
 * On plain Ethereum chains blob transactions come in their network form (blobs, commitments,
 * proofs: `chain/blobSidecar.ts`); the sidecar is verified (counts, versioned hashes, KZG proofs)
 * before the transaction is pooled, and kept with it so the block producer can hand the blobs of
 * a block to a beacon API. A blob transaction without its sidecar is refused.
 */
import { BuilderLimits } from "../execution/op/builderLimits.js";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { bigIntToBytes, bytesToBigInt, bytesToHex, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { keccak256 } from "../util/keccak.js";
import type { Chain } from "../blockchain/chain.js";
import {
  BLOB_TX_TYPE,
  BlobSidecarError,
  BlobSidecarErrorCode,
  blobTxWithSidecar,
  jsBlobProofCheck,
  splitBlobNetworkForm,
  verifyBlobSidecar,
  type BlobProofCheck,
  type BlobSidecar,
} from "../chain/blobSidecar.js";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.js";
import { opForkAt, OpFork, type OpChainConfig } from "../chain/op/forks.js";
import { L1_BLOCK_ADDRESS, loadL1BlockInfo } from "../chain/op/l1BlockInfo.js";
import { l1Cost } from "../chain/op/l1Cost.js";
import type { StateReader } from "../execution/state/stateReader.js";
import { RPC_TX_FEE_CAP_WEI, TXPOOL_MAX_PER_SENDER, TXPOOL_MAX_TRANSACTIONS, TXPOOL_PRICE_BUMP_PERCENT } from "./constants.js";
import { fromHex, to0x, toHex } from "../util/bytes.js";
import { TxPoolError, TxPoolErrorCode } from "./errors.js";
import { ethereumjsEip7825Decode } from "../util/foreignErrorText.js";
import { MAX_TX_GAS_EIP7825 } from "../execution/constants.js";

/** Lowest first byte of an RLP list: a raw transaction starting at or above it is a legacy transaction, not typed. */
const RLP_LIST_PREFIX = 0xc0;
/** EIP-7825 per-transaction gas cap, shared with calls (src/execution/constants.ts). */
/** Width of a storage slot key (the L1Block slots are read as 32-byte keys). */
const SLOT_KEY_BYTES = 32;
/** The L1Block predeploy whose storage holds the L1 fee parameters. */
const L1_BLOCK = hexToBytes(L1_BLOCK_ADDRESS);

/**
 * op-reth's answer to a raw transaction of a type its pooled-transaction envelope cannot decode
 * (deposits 0x7e and blob transactions 0x03 on OP chains): reth `recover_raw_transaction` maps the
 * decode error to `EthApiError::FailedToDecodeSignedTransaction`.
 */
export const OP_UNSUPPORTED_TX_MESSAGE = "failed to decode signed transaction";
/**
 * op-reth's message for a transaction above the EIP-7825 gas cap (reth
 * `RpcInvalidTransactionError::GasLimitTooHigh`, from the pool's `InvalidTransactionError::GasLimitTooHigh`).
 */
export const OP_GAS_LIMIT_TOO_HIGH_MESSAGE = "gas limit too high";

/**
 * Whether `raw` is a deposit or blob transaction, which an OP chain's pool refuses: op-reth's
 * `OpPooledTransaction` envelope has only the legacy, 2930, 1559 and 7702 variants.
 */
function isOpUnpoolableType(raw: Uint8Array): boolean {
  const first = raw[0];
  if (first === undefined || first >= RLP_LIST_PREFIX) return false;
  return first === DEPOSIT_TX_TYPE || first === BLOB_TX_TYPE;
}

/**
 * The L1 data fee op-reth's pool adds to a transaction's cost (base/base crates/txpool/src/validator.rs
 * `apply_op_checks`: `l1_tx_data_fee(timestamp, encoded_2718, is_deposit = false)` = op-revm's
 * `calculate_tx_l1_cost`, no operator fee). The L1 fee parameters are read from the L1Block predeploy's
 * storage in the head state (`loadL1BlockInfo`, op-revm `L1BlockInfo::try_fetch`) with the fork at the
 * head timestamp.
 */
async function poolL1Cost(state: StateReader, op: OpChainConfig, headTimestamp: bigint, txBytes: Uint8Array): Promise<bigint> {
  const fork = opForkAt(op, headTimestamp);
  const readSlot = async (slot: bigint): Promise<bigint> =>
    bytesToBigInt(state.storage(L1_BLOCK, setLengthLeft(bigIntToBytes(slot), SLOT_KEY_BYTES)));
  const info = await loadL1BlockInfo(readSlot, fork);
  return l1Cost(info, txBytes, fork);
}

/** A pooled transaction with its recovered sender. */
export interface PooledTx {
  tx: TypedTransaction;
  hash: Uint8Array;
  sender: Uint8Array;
  /** The raw bytes as received (network form for blob transactions). */
  raw: Uint8Array;
  receivedAt: number;
  /** A blob transaction's verified sidecar (plain Ethereum chains), in versioned-hash order. */
  sidecar?: BlobSidecar;
}


/** A {@link BlobSidecarError} as the pool's refusal. */
function sidecarRefusal(e: BlobSidecarError): TxPoolError {
  return new TxPoolError({ code: TxPoolErrorCode.INVALID_BLOB_SIDECAR, reason: e.code }, e.message);
}

/**
 * Decodes raw transaction bytes; blob transactions may come in the network form, whose sidecar is
 * returned (unverified) with the transaction, which then carries its blobs.
 * @throws TxPoolError `DECODE_FAILED` with geth's `rlp: …` message; `INVALID_BLOB_SIDECAR` for a
 * network form that is malformed or of an unsupported wrapper version.
 */
export function decodeRawTransaction(chain: Chain, raw: Uint8Array): { tx: TypedTransaction; hash: Uint8Array; sidecar?: BlobSidecar } {
  const head = chain.head.header;
  const common = chain.commonAt(head.number + 1n, head.timestamp + 1n);
  let form;
  try {
    // Osaka chains (EIP-7594) take the cell-proofs wrapper; earlier ones the EIP-4844 one only.
    form = splitBlobNetworkForm(raw, { cellProofs: common.isActivatedEIP(7594) });
  } catch (e) {
    if (e instanceof BlobSidecarError) throw sidecarRefusal(e);
    throw e;
  }
  try {
    if (form !== undefined) return { tx: blobTxWithSidecar(form, common), hash: keccak256(form.canonical), sidecar: form.sidecar };
    const tx = createTxFromRLP(raw, { common });
    return { tx, hash: tx.hash() };
  } catch (e) {
    const m = (e as Error).message;
    const type = { code: TxPoolErrorCode.DECODE_FAILED } as const;
    throw new TxPoolError(ethereumjsEip7825Decode(m) ? { ...type, gasLimitTooHigh: true } : type, `rlp: ${m.replace(/ \(tx type=.*$/s, "")}`);
  }
}

/** {@link decodeRawTransaction}, reporting the decoder's EIP-7825 refusal with op-reth's message on OP chains. */
function decodeForPool(chain: Chain, raw: Uint8Array, op: OpChainConfig | undefined): { tx: TypedTransaction; hash: Uint8Array; sidecar?: BlobSidecar } {
  try {
    return decodeRawTransaction(chain, raw);
  } catch (e) {
    if (op !== undefined && e instanceof TxPoolError && e.type.code === TxPoolErrorCode.DECODE_FAILED && e.type.gasLimitTooHigh === true) {
      throw new TxPoolError({ code: TxPoolErrorCode.GAS_LIMIT_TOO_HIGH }, OP_GAS_LIMIT_TOO_HIGH_MESSAGE);
    }
    throw e;
  }
}

/**
 * The fee fields of a transaction: a fee cap and a tip (EIP-1559, 4844, 7702 types) or one gas
 * price (legacy, EIP-2930), read through the transaction types' own fields.
 */
type FeeFields = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { gasPrice: bigint };

function feeFields(tx: TypedTransaction): FeeFields {
  return "maxFeePerGas" in tx ? { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas } : { gasPrice: tx.gasPrice };
}

function tipOf(tx: TypedTransaction, baseFee: bigint): bigint {
  const f = feeFields(tx);
  if ("gasPrice" in f) return f.gasPrice - baseFee;
  const room = f.maxFeePerGas - baseFee;
  return room < f.maxPriorityFeePerGas ? room : f.maxPriorityFeePerGas;
}

/** Wei as ether with two decimals, as geth prints fees and the fee cap (`%.2f`). */
function formatEther(wei: bigint): string {
  return (Number(wei) / 1e18).toFixed(2);
}

function feeCapOf(tx: TypedTransaction): bigint {
  const f = feeFields(tx);
  return ("gasPrice" in f ? f.gasPrice : f.maxFeePerGas) ?? 0n;
}

/** Options of a {@link TxPool}. */
interface TxPoolOptions {
  /**
   * KZG check of blob proofs (plain Ethereum chains). Default: the pure-JS KZG of `chain/crypto.ts`
   * (~130 ms a blob on the calling thread); the node passes derivation's native one.
   */
  blobProofCheck?: BlobProofCheck;
}

/** The node's mempool. */
export class TxPool {
  private readonly bySender = new Map<string, Map<bigint, PooledTx>>();
  private readonly byHash = new Map<string, PooledTx>();
  private listeners: ((tx: PooledTx) => void)[] = [];
  private readonly blobProofCheck: BlobProofCheck;
  /**
   * The operator limits every builder that takes candidates from this pool selects under
   * (miner_setGasLimit, miner_setMaxDASize): kept with the pool so the Engine API's payload
   * building, the devnet sequencer and the RPC that sets them share one instance.
   */
  readonly builderLimits = new BuilderLimits();

  constructor(
    private readonly chain: Chain,
    opts: TxPoolOptions = {},
  ) {
    this.blobProofCheck = opts.blobProofCheck ?? jsBlobProofCheck;
  }

  /** Notified for every accepted transaction. */
  onAdded(l: (tx: PooledTx) => void): void {
    this.listeners.push(l);
  }

  get size(): number {
    return this.byHash.size;
  }

  get(hash: Uint8Array): PooledTx | undefined {
    return this.byHash.get(toHex(hash));
  }

  /** The pooled transaction of `sender` with `nonce` (eth_getTransactionBySenderAndNonce). */
  getBySenderNonce(sender: Uint8Array, nonce: bigint): PooledTx | undefined {
    return this.bySender.get(toHex(sender))?.get(nonce);
  }

  /** State nonce of `sender` at the head. */
  private stateNonce(sender: Uint8Array): bigint {
    const h = this.chain.head.header;
    return this.chain.stateAt(h).account(sender)?.nonce ?? 0n;
  }

  /**
   * eth_sendRawTransaction: validates and adds a raw transaction; returns its hash.
   * Errors carry geth's messages (`nonce too low`, `insufficient funds for gas * price + value`, …).
   *
   * On OP chains (`chain.op`), additionally as op-reth: deposits (0x7e) and blob transactions (0x03)
   * are refused with {@link OP_UNSUPPORTED_TX_MESSAGE}; from Azul (OP fork at the head timestamp)
   * gas above 2^24 is refused with {@link OP_GAS_LIMIT_TOO_HIGH_MESSAGE}; and after the plain balance
   * check the balance must also cover the L1 data fee ({@link poolL1Cost}), else
   * `insufficient funds for gas * price + value` with the L1 fee included in `want`.
   *
   * On plain Ethereum chains a blob transaction must come in its network form: after the checks
   * above its sidecar is verified ({@link verifyBlobSidecar}) and kept in {@link PooledTx.sidecar};
   * a missing or failing sidecar is `INVALID_BLOB_SIDECAR` with the reason.
   * @throws TxPoolError naming the refusal by code.
   */
  async addRaw(raw: Uint8Array): Promise<PooledTx> {
    const op = this.chain.op;
    if (op !== undefined && isOpUnpoolableType(raw)) throw new TxPoolError({ code: TxPoolErrorCode.UNSUPPORTED_TX_TYPE, type: raw[0]! }, OP_UNSUPPORTED_TX_MESSAGE);
    const { tx, hash, sidecar } = decodeForPool(this.chain, raw, op);
    const key = toHex(hash);
    const alreadyKnown = (): TxPoolError => new TxPoolError({ code: TxPoolErrorCode.ALREADY_KNOWN, hash: to0x(hash) }, "already known");
    if (this.byHash.has(key)) throw alreadyKnown();
    if (!tx.isSigned()) throw new TxPoolError({ code: TxPoolErrorCode.INVALID_SIGNATURE }, "invalid transaction v, r, s values");
    let sender: Uint8Array;
    try {
      sender = tx.getSenderAddress().bytes;
    } catch {
      throw new TxPoolError({ code: TxPoolErrorCode.INVALID_SENDER }, "invalid sender");
    }
    const head = this.chain.head.header;
    const common = tx.common;
    const chainId = "chainId" in tx ? tx.chainId : undefined;
    if (chainId !== undefined && chainId !== common.chainId() && (tx.type !== 0 || tx.isSigned())) {
      if (tx.type !== 0 || (tx.v ?? 0n) > 28n) {
        const have = chainId.toString();
        const want = common.chainId().toString();
        throw new TxPoolError({ code: TxPoolErrorCode.INVALID_CHAIN_ID, have, want }, `invalid chain id for signer: have ${have} want ${want}`);
      }
    }
    if (tx.gasLimit > head.gasLimit) {
      throw new TxPoolError(
        { code: TxPoolErrorCode.EXCEEDS_BLOCK_GAS_LIMIT, gasLimit: tx.gasLimit.toString(), blockGasLimit: head.gasLimit.toString() },
        "exceeds block gas limit",
      );
    }
    const intrinsic = tx.getIntrinsicGas();
    if (tx.gasLimit < intrinsic) {
      throw new TxPoolError(
        { code: TxPoolErrorCode.INTRINSIC_GAS_TOO_LOW, gasLimit: tx.gasLimit.toString(), intrinsicGas: intrinsic.toString() },
        `intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`,
      );
    }
    if (op !== undefined && opForkAt(op, head.timestamp) >= OpFork.azul && tx.gasLimit > MAX_TX_GAS_EIP7825) {
      throw new TxPoolError({ code: TxPoolErrorCode.GAS_LIMIT_TOO_HIGH, max: MAX_TX_GAS_EIP7825.toString() }, OP_GAS_LIMIT_TOO_HIGH_MESSAGE);
    }
    const f = feeFields(tx);
    if (!("gasPrice" in f)) {
      if (f.maxPriorityFeePerGas > f.maxFeePerGas) throw new TxPoolError({ code: TxPoolErrorCode.TIP_ABOVE_FEE_CAP }, "max priority fee per gas higher than max fee per gas");
    }
    const fee = feeCapOf(tx) * tx.gasLimit;
    if (fee > RPC_TX_FEE_CAP_WEI) {
      throw new TxPoolError(
        { code: TxPoolErrorCode.FEE_CAP_EXCEEDED, feeWei: fee.toString(), capWei: RPC_TX_FEE_CAP_WEI.toString() },
        `tx fee (${formatEther(fee)} ether) exceeds the configured cap (${formatEther(RPC_TX_FEE_CAP_WEI)} ether)`,
      );
    }
    const state = this.chain.stateAt(head);
    const acc = state.account(sender);
    const nonce = acc?.nonce ?? 0n;
    if (tx.nonce < nonce) {
      throw new TxPoolError({ code: TxPoolErrorCode.NONCE_TOO_LOW, nonce: tx.nonce.toString(), next: nonce.toString() }, `nonce too low: next nonce ${nonce}, tx nonce ${tx.nonce}`);
    }
    const balance = acc?.balance ?? 0n;
    const insufficient = (want: bigint): TxPoolError =>
      new TxPoolError(
        { code: TxPoolErrorCode.INSUFFICIENT_FUNDS, address: bytesToHex(sender), have: balance.toString(), want: want.toString() },
        `insufficient funds for gas * price + value: address ${bytesToHex(sender)} have ${balance} want ${want}`,
      );
    const cost = tx.getUpfrontCost();
    if (balance < cost) throw insufficient(cost);
    if (op !== undefined) {
      const withL1 = cost + (await poolL1Cost(state, op, head.timestamp, tx.serialize()));
      if (balance < withL1) throw insufficient(withL1);
      // Another submission (e.g. in the same batch) may have pooled this transaction meanwhile.
      if (this.byHash.has(key)) throw alreadyKnown();
    }
    if (tx.type === BLOB_TX_TYPE) {
      await this.checkSidecar(tx, sidecar);
      if (this.byHash.has(key)) throw alreadyKnown();
    }
    const s = toHex(sender);
    let mine = this.bySender.get(s);
    const existing = mine?.get(tx.nonce);
    if (existing !== undefined) {
      const oldCap = feeCapOf(existing.tx);
      if (feeCapOf(tx) * 100n < oldCap * (100n + TXPOOL_PRICE_BUMP_PERCENT)) {
        throw new TxPoolError({ code: TxPoolErrorCode.REPLACEMENT_UNDERPRICED, hash: to0x(existing.hash) }, "replacement transaction underpriced");
      }
      this.byHash.delete(toHex(existing.hash));
    } else {
      if (this.byHash.size >= TXPOOL_MAX_TRANSACTIONS) throw new TxPoolError({ code: TxPoolErrorCode.POOL_FULL, limit: TXPOOL_MAX_TRANSACTIONS }, "txpool is full");
      if ((mine?.size ?? 0) >= TXPOOL_MAX_PER_SENDER) {
        throw new TxPoolError({ code: TxPoolErrorCode.ACCOUNT_LIMIT, address: bytesToHex(sender), limit: TXPOOL_MAX_PER_SENDER }, "account limit exceeded");
      }
    }
    if (mine === undefined) {
      mine = new Map();
      this.bySender.set(s, mine);
    }
    const p: PooledTx = { tx, hash, sender, raw, receivedAt: Date.now(), ...(sidecar === undefined ? {} : { sidecar }) };
    mine.set(tx.nonce, p);
    this.byHash.set(key, p);
    for (const l of this.listeners) l(p);
    return p;
  }

  /** Verifies a blob transaction's sidecar against its versioned hashes; a missing one is refused too. */
  private async checkSidecar(tx: TypedTransaction, sidecar: BlobSidecar | undefined): Promise<void> {
    try {
      if (sidecar === undefined) {
        throw new BlobSidecarError(
          { code: BlobSidecarErrorCode.MISSING },
          "blob transaction without its sidecar: send the network form 0x03 || rlp([tx, blobs, commitments, proofs])",
        );
      }
      const hashes = ("blobVersionedHashes" in tx ? tx.blobVersionedHashes : []).map((h) => fromHex(h));
      await verifyBlobSidecar(sidecar, hashes, this.blobProofCheck);
    } catch (e) {
      if (e instanceof BlobSidecarError) throw sidecarRefusal(e);
      throw e;
    }
  }

  /** Pending (executable) and queued transactions by sender, ordered by nonce. */
  content(): { pending: Map<string, PooledTx[]>; queued: Map<string, PooledTx[]> } {
    const pending = new Map<string, PooledTx[]>();
    const queued = new Map<string, PooledTx[]>();
    for (const [s, txs] of this.bySender) {
      const sorted = [...txs.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : 1));
      let next = this.stateNonce(sorted[0].sender);
      const p: PooledTx[] = [];
      const q: PooledTx[] = [];
      for (const t of sorted) {
        if (t.tx.nonce === next) {
          p.push(t);
          next++;
        } else q.push(t);
      }
      if (p.length > 0) pending.set(s, p);
      if (q.length > 0) queued.set(s, q);
    }
    return { pending, queued };
  }

  /** The next nonce of `sender` counting its pending pool transactions (reads one sender only). */
  pendingNonce(sender: Uint8Array): bigint | undefined {
    const mine = this.bySender.get(toHex(sender));
    if (mine === undefined || mine.size === 0) return undefined;
    let next = this.stateNonce(sender);
    const start = next;
    while (mine.has(next)) next++;
    return next === start ? undefined : next;
  }

  /**
   * Executable transactions for the next block with base fee `baseFee`: per sender in
   * nonce order, senders interleaved by effective tip (highest first), as geth's miner.
   */
  selectForBlock(baseFee: bigint): PooledTx[] {
    const { pending } = this.content();
    const queues = [...pending.values()].map((l) => l.filter((t) => feeCapOf(t.tx) >= baseFee));
    const out: PooledTx[] = [];
    const heads = queues.filter((q) => q.length > 0);
    while (heads.length > 0) {
      heads.sort((a, b) => {
        const ta = tipOf(a[0].tx, baseFee);
        const tb = tipOf(b[0].tx, baseFee);
        return ta === tb ? a[0].receivedAt - b[0].receivedAt : ta > tb ? -1 : 1;
      });
      const q = heads[0];
      out.push(q.shift() as PooledTx);
      // A sender whose next tx is not executable (gap or fee) stops there.
      if (q.length === 0) heads.shift();
    }
    return out;
  }

  /** Removes `hashes` (included in a block) and transactions whose nonce is now stale. */
  prune(): void {
    for (const [s, txs] of this.bySender) {
      const first = txs.values().next().value as PooledTx | undefined;
      if (first === undefined) {
        this.bySender.delete(s);
        continue;
      }
      const nonce = this.stateNonce(first.sender);
      for (const [n, p] of txs) {
        if (n < nonce) {
          txs.delete(n);
          this.byHash.delete(toHex(p.hash));
        }
      }
      if (txs.size === 0) this.bySender.delete(s);
    }
  }

  /**
   * Drops one transaction (e.g. it failed to apply while building a block; admin_dropTransaction);
   * whether it was in the pool. The sender's later transactions stay (queued behind the gap).
   */
  remove(hash: Uint8Array): boolean {
    const p = this.byHash.get(toHex(hash));
    if (p === undefined) return false;
    this.byHash.delete(toHex(hash));
    const s = toHex(p.sender);
    const mine = this.bySender.get(s);
    mine?.delete(p.tx.nonce);
    if (mine?.size === 0) this.bySender.delete(s);
    return true;
  }

  /** Drops every transaction of `sender` (admin_dropSenderTransactions); their hashes, in nonce order. */
  removeSender(sender: Uint8Array): Uint8Array[] {
    const s = toHex(sender);
    const mine = this.bySender.get(s);
    if (mine === undefined) return [];
    this.bySender.delete(s);
    const removed = [...mine.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : a.tx.nonce > b.tx.nonce ? 1 : 0));
    for (const p of removed) this.byHash.delete(toHex(p.hash));
    return removed.map((p) => p.hash);
  }

  /** Drops every transaction (admin_clearTxpool); how many there were. */
  clear(): number {
    const n = this.byHash.size;
    this.byHash.clear();
    this.bySender.clear();
    return n;
  }
}
