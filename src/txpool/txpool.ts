/**
 * The transaction pool: validated, signed transactions waiting for a block. Transactions
 * are keyed by sender and nonce; a sender's transactions with consecutive nonces from its
 * state nonce are "pending" (executable), the rest "queued". Replacing a transaction needs
 * a 10 % higher fee (geth `PriceBump`). Blocks take pending transactions by effective tip.
 */
import { RLP } from "@ethereumjs/rlp";
import { Capability, createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { bytesToHex } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Chain } from "../chain/chain.js";
import { RPC_TX_FEE_CAP_WEI, TXPOOL_MAX_PER_SENDER, TXPOOL_MAX_TRANSACTIONS } from "../config/constants.js";
import { ServerError } from "../rpc/errors.js";
import { toHex } from "../util/bytes.js";

/** geth `txpool.PriceBump`: a replacement must pay 10 % more. */
const PRICE_BUMP_PERCENT = 10n;

/** A pooled transaction with its recovered sender. */
export interface PooledTx {
  tx: TypedTransaction;
  hash: Uint8Array;
  sender: Uint8Array;
  /** The raw bytes as received (network form for blob transactions). */
  raw: Uint8Array;
  receivedAt: number;
}

/** Decodes raw transaction bytes; blob transactions may come in the network form. */
export function decodeRawTransaction(chain: Chain, raw: Uint8Array): { tx: TypedTransaction; hash: Uint8Array } {
  const head = chain.head.header;
  const common = chain.commonAt(head.number + 1n, head.timestamp + 1n);
  try {
    if (raw.length > 0 && raw[0] === 3) {
      const decoded = RLP.decode(raw.subarray(1)) as unknown[];
      if (Array.isArray(decoded[0])) {
        // Network form: [tx_payload_body, blobs, commitments, proofs(, cell proofs)].
        const body = RLP.encode(decoded[0] as never);
        const canonical = new Uint8Array(body.length + 1);
        canonical[0] = 3;
        canonical.set(body, 1);
        const tx = createTxFromRLP(canonical, { common });
        return { tx, hash: keccak_256(canonical) };
      }
    }
    const tx = createTxFromRLP(raw, { common });
    return { tx, hash: tx.hash() };
  } catch (e) {
    throw new ServerError(`rlp: ${(e as Error).message.replace(/ \(tx type=.*$/s, "")}`);
  }
}

function tipOf(tx: TypedTransaction, baseFee: bigint): bigint {
  if (tx.supports(Capability.EIP1559FeeMarket)) {
    const t = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    const room = t.maxFeePerGas - baseFee;
    return room < t.maxPriorityFeePerGas ? room : t.maxPriorityFeePerGas;
  }
  return (tx as unknown as { gasPrice: bigint }).gasPrice - baseFee;
}

function feeCapOf(tx: TypedTransaction): bigint {
  const t = tx as unknown as { maxFeePerGas?: bigint; gasPrice?: bigint };
  return t.maxFeePerGas ?? t.gasPrice ?? 0n;
}

/** The node's mempool. */
export class TxPool {
  private readonly bySender = new Map<string, Map<bigint, PooledTx>>();
  private readonly byHash = new Map<string, PooledTx>();
  private listeners: ((tx: PooledTx) => void)[] = [];

  constructor(private readonly chain: Chain) {}

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

  /** State nonce of `sender` at the head. */
  private stateNonce(sender: Uint8Array): bigint {
    const h = this.chain.head.header;
    return this.chain.stateAt(h).account(sender)?.nonce ?? 0n;
  }

  /**
   * eth_sendRawTransaction: validates and adds a raw transaction; returns its hash.
   * Errors carry geth's messages (`nonce too low`, `insufficient funds for gas * price + value`, …).
   */
  addRaw(raw: Uint8Array): PooledTx {
    const { tx, hash } = decodeRawTransaction(this.chain, raw);
    const key = toHex(hash);
    if (this.byHash.has(key)) throw new ServerError("already known");
    if (!tx.isSigned()) throw new ServerError("invalid transaction v, r, s values");
    let sender: Uint8Array;
    try {
      sender = tx.getSenderAddress().bytes;
    } catch {
      throw new ServerError("invalid sender");
    }
    const head = this.chain.head.header;
    const common = tx.common;
    const t = tx as unknown as { chainId?: bigint };
    if (t.chainId !== undefined && t.chainId !== common.chainId() && (tx.type !== 0 || tx.isSigned())) {
      if (tx.type !== 0 || (tx as unknown as { v: bigint }).v > 28n) throw new ServerError(`invalid chain id for signer: have ${t.chainId} want ${common.chainId()}`);
    }
    if (tx.gasLimit > head.gasLimit) throw new ServerError("exceeds block gas limit");
    const intrinsic = tx.getIntrinsicGas();
    if (tx.gasLimit < intrinsic) throw new ServerError(`intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`);
    if (tx.supports(Capability.EIP1559FeeMarket)) {
      const f = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
      if (f.maxPriorityFeePerGas > f.maxFeePerGas) throw new ServerError("max priority fee per gas higher than max fee per gas");
    }
    const fee = feeCapOf(tx) * tx.gasLimit;
    if (fee > RPC_TX_FEE_CAP_WEI) {
      throw new ServerError(`tx fee (${(Number(fee) / 1e18).toFixed(2)} ether) exceeds the configured cap (1.00 ether)`);
    }
    const state = this.chain.stateAt(head);
    const acc = state.account(sender);
    const nonce = acc?.nonce ?? 0n;
    if (tx.nonce < nonce) throw new ServerError(`nonce too low: next nonce ${nonce}, tx nonce ${tx.nonce}`);
    const cost = tx.getUpfrontCost();
    const balance = acc?.balance ?? 0n;
    if (balance < cost) {
      throw new ServerError(`insufficient funds for gas * price + value: address ${bytesToHex(sender)} have ${balance} want ${cost}`);
    }
    const s = toHex(sender);
    let mine = this.bySender.get(s);
    const existing = mine?.get(tx.nonce);
    if (existing !== undefined) {
      const oldCap = feeCapOf(existing.tx);
      if (feeCapOf(tx) * 100n < oldCap * (100n + PRICE_BUMP_PERCENT)) throw new ServerError("replacement transaction underpriced");
      this.byHash.delete(toHex(existing.hash));
    } else {
      if (this.byHash.size >= TXPOOL_MAX_TRANSACTIONS) throw new ServerError("txpool is full");
      if ((mine?.size ?? 0) >= TXPOOL_MAX_PER_SENDER) throw new ServerError("account limit exceeded");
    }
    if (mine === undefined) {
      mine = new Map();
      this.bySender.set(s, mine);
    }
    const p: PooledTx = { tx, hash, sender, raw, receivedAt: Date.now() };
    mine.set(tx.nonce, p);
    this.byHash.set(key, p);
    for (const l of this.listeners) l(p);
    return p;
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

  /** Drops one transaction (e.g. it failed to apply while building a block). */
  remove(hash: Uint8Array): void {
    const p = this.byHash.get(toHex(hash));
    if (p === undefined) return;
    this.byHash.delete(toHex(hash));
    this.bySender.get(toHex(p.sender))?.delete(p.tx.nonce);
  }
}
