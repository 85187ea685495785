/**
 * The batcher's transaction manager (op-service txmgr's job): sends batcher transactions from the
 * batcher key (`--batcher.key`) to the batch inbox — EIP-1559 calldata transactions, or EIP-4844
 * blob transactions in the network form with their sidecar (blobs, KZG commitments, one blob proof
 * each: the Prague wrapper, version 0) — and follows them to confirmation.
 *
 * - **Nonces** are counted here, from the account's `latest` nonce read at the first send and
 *   after {@link TxManager.abandonAll}; transactions are submitted strictly in nonce order (a
 *   later one waits while an earlier one has not reached the pool), so the batcher leaves no gap.
 * - **Fees** come from the L1's suggestion (`eth_feeHistory` for the next block's base fee and blob
 *   base fee, `eth_blobBaseFee` where the history has none, `eth_maxPriorityFeePerGas`), with the
 *   margins of fees.ts, once per L1 block.
 * - **Inclusion** is seen by reading every L1 block (l1Heads.ts) and matching its transaction
 *   hashes against every hash sent for a pending nonce; the receipt then gives the status and the
 *   fee paid. A transaction is confirmed `--batcher.num-confirmations` L1 blocks deep (with 1,
 *   when included). An L1 reorg that removes the block sets it back to pending and reports it.
 * - **Resubmission**: a transaction not included `BATCHER_RESUBMIT_AFTER_L1_BLOCKS` L1 blocks after
 *   its last submission is sent again with every fee bumped (geth's replacement rule, fees.ts),
 *   within the fee limit. "replacement transaction underpriced" (another transaction holds the
 *   nonce in the pool, e.g. one abandoned or left by an earlier run) bumps again at the next try.
 * - **Failure**: a reverted transaction, or a nonce taken by a transaction that is none of ours
 *   ("nonce too low" and none of our hashes included by then), is reported as failed.
 *
 * L1 requests are counted by method (`requests`, `basalt_batcher_l1_requests_total`). A refused
 * send is classified by util/foreignErrorText.ts `sendRefusal`: geth and anvil answer these
 * conditions with -32000 and a message only.
 */
import { createCustomCommon, Hardfork, Mainnet, type Common } from "@ethereumjs/common";
import { createBlob4844Tx, createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, createAddressFromPrivateKey, type PrefixedHexString } from "@ethereumjs/util";
import type { Logger } from "pino";
import { customCrypto } from "../chain/crypto.js";
import { BATCHER_RESUBMIT_AFTER_L1_BLOCKS } from "./constants.js";
import { commitBlob } from "../derivation/kzg.js";
import type { JsonRpcClient } from "../util/rpcClient.js";
import { UpstreamRpcError } from "../util/rpcClient.js";
import { sendRefusal, type SendRefusal } from "../util/foreignErrorText.js";
import { BatcherError, BatcherErrorCode } from "./errors.js";
import { feesFor, replacementFees, withinFeeLimit, type FeeSuggestion, type TxFees } from "./fees.js";
import { L1Heads, type L1Header } from "./l1Heads.js";
import {
  batcherBlobsPostedTotal,
  batcherFramesSentTotal,
  batcherL1FeesGweiTotal,
  batcherL1RequestsTotal,
  batcherPostedBytesTotal,
  batcherTransactionsConfirmedTotal,
  batcherTransactionsFailedTotal,
  batcherTransactionsResubmittedTotal,
  batcherTransactionsSentTotal,
} from "./metrics.js";
import type { TxCandidate } from "./txData.js";

/** Gas of a blob transaction to the inbox: no calldata and no code run, the intrinsic 21,000 in every fork. */
const BLOB_TX_GAS = 21_000n;
/** Wei per gwei, for the fee counter. */
const WEI_PER_GWEI = 1_000_000_000;

/** Where a batcher transaction stands. */
type ManagedTxStatus =
  /** Not yet accepted by the L1's pool (an earlier one is waiting, or the submission failed and is retried). */
  | "unsent"
  /** In the pool, not yet included. */
  | "pending"
  /** Included, not yet `numConfirmations` deep. */
  | "included"
  /** Included and `numConfirmations` deep. */
  | "confirmed"
  /** Reverted, or its nonce was taken by another transaction. */
  | "failed";

/** One batcher transaction the manager follows. */
export interface ManagedTx {
  readonly id: number;
  readonly candidate: TxCandidate;
  readonly nonce: bigint;
  status: ManagedTxStatus;
  /** Every submission accepted by the pool: its hash (0x-hex), fees and the L1 head then. */
  attempts: { hash: string; fees: TxFees; sentAtL1: bigint }[];
  /** The block that includes it (one of its attempts). */
  inclusion?: { number: bigint; hash: string; timestamp: bigint; txHash: string };
  /** The last submission error, for logs. */
  lastError?: string;
  /** "nonce too low" was answered while the L1 head was this block: failed if not found included by then. */
  nonceTakenBy?: bigint;
}

/** What one {@link TxManager.poll} changed. */
interface TxPollResult {
  head: L1Header;
  /** Transactions an L1 reorg removed from the chain (and not included again in this poll). */
  reorged: ManagedTx[];
  /** Transactions that failed in this poll. */
  failed: ManagedTx[];
}

/** Options of {@link TxManager}. */
interface TxManagerOptions {
  /** The batcher's 32-byte private key. */
  key: Uint8Array;
  /** The L1 chain id (the rollup config's); the RPC must serve it. */
  l1ChainId: bigint;
  /** The batch inbox (0x-hex). */
  inbox: string;
  /** L1 blocks deep a transaction must be to count as confirmed (`--batcher.num-confirmations`, ≥ 1). */
  numConfirmations: number;
  logger?: Logger;
}

/** How the pool refused a submission: a refused `eth_sendRawTransaction` (geth's and anvil's messages; they carry no distinct code). */
function sendErrorKind(e: unknown): SendRefusal {
  return e instanceof UpstreamRpcError ? sendRefusal(e.message) : "other";
}

type RpcReceipt = { status?: string; blockHash: string; blockNumber: string; gasUsed: string; effectiveGasPrice?: string; blobGasUsed?: string; blobGasPrice?: string };
type FeeHistory = { baseFeePerGas: string[]; baseFeePerBlobGas?: string[] };

/** What signing needs beyond the candidate, computed once per transaction. */
interface Prepared {
  gasLimit: bigint;
  sidecar?: { versionedHashes: PrefixedHexString[]; blobs: PrefixedHexString[]; commitments: PrefixedHexString[]; proofs: PrefixedHexString[] };
}

/** Sends and follows batcher transactions (see the module comment). */
export class TxManager {
  /** The batcher's address. */
  readonly address: string;
  /** L1 requests made, by JSON-RPC method. */
  readonly requests = new Map<string, number>();
  private readonly heads: L1Heads;
  private readonly common: Common;
  private readonly log: Logger | undefined;
  /** Transactions followed, in nonce order. */
  private txs: ManagedTx[] = [];
  private nextNonce: bigint | undefined;
  private nextId = 1;
  /** The highest fees offered for each nonce (abandoned transactions included): what a replacement must beat. */
  private readonly offered = new Map<bigint, TxFees>();
  private readonly prepared = new WeakMap<ManagedTx, Prepared>();
  private suggestion: { at: string; fees: FeeSuggestion } | undefined;
  /** L1 blocks read but not yet scanned for our transactions (a failed receipt read keeps them for the next poll). */
  private unscanned: L1Header[] = [];
  /** Transactions a reorg removed, reported by the next poll that completes unless included again. */
  private readonly reorged = new Set<ManagedTx>();

  constructor(
    private readonly rpc: JsonRpcClient,
    private readonly opts: TxManagerOptions,
  ) {
    if (opts.key.length !== 32) throw new BatcherError({ code: BatcherErrorCode.KEY_INVALID, length: opts.key.length }, `the batcher key is ${opts.key.length} bytes, expected a 32-byte private key`);
    this.address = createAddressFromPrivateKey(opts.key).toString();
    this.heads = new L1Heads((m, p) => this.call(m, p));
    // Prague: blob transactions in the version-0 network form (one proof per blob); KZG from the node's crypto.
    this.common = createCustomCommon({ chainId: Number(opts.l1ChainId) }, Mainnet, { hardfork: Hardfork.Prague, customCrypto: customCrypto() });
    this.log = opts.logger;
  }

  /** Total L1 requests made. */
  get requestCount(): number {
    let n = 0;
    for (const v of this.requests.values()) n += v;
    return n;
  }

  /** The newest L1 block read. */
  get l1Head(): L1Header {
    return this.heads.head;
  }

  /** The transactions followed, in nonce order. */
  get tracked(): readonly ManagedTx[] {
    return this.txs;
  }

  /** Transactions sent or waiting to be, not yet included. */
  get inFlight(): number {
    return this.txs.filter((t) => t.status === "unsent" || t.status === "pending").length;
  }

  private async call<T>(method: string, params: unknown[]): Promise<T> {
    this.requests.set(method, (this.requests.get(method) ?? 0) + 1);
    batcherL1RequestsTotal.inc({ method });
    return this.rpc.call<T>(method, params);
  }

  /**
   * Checks the L1 chain id and reads the L1 head.
   * @throws BatcherError L1_CHAIN_MISMATCH when the RPC serves another chain.
   */
  async start(): Promise<void> {
    const chainId = BigInt(await this.call<string>("eth_chainId", []));
    if (chainId !== this.opts.l1ChainId) {
      throw new BatcherError(
        { code: BatcherErrorCode.L1_CHAIN_MISMATCH, expected: this.opts.l1ChainId.toString(), got: chainId.toString() },
        `L1 RPC ${this.rpc.endpoint} serves chain ${chainId}, but the rollup config's l1_chain_id is ${this.opts.l1ChainId}`,
      );
    }
    await this.heads.start();
  }

  /** Queues a transaction carrying `candidate` with the next nonce and submits what can be submitted. */
  async send(candidate: TxCandidate): Promise<ManagedTx> {
    if (this.nextNonce === undefined) this.nextNonce = BigInt(await this.call<string>("eth_getTransactionCount", [this.address, "latest"]));
    const tx: ManagedTx = { id: this.nextId++, candidate, nonce: this.nextNonce++, status: "unsent", attempts: [] };
    this.txs.push(tx);
    await this.submitUnsent();
    return tx;
  }

  /** Stops following `txs` (the batcher is done with them). */
  forget(txs: readonly ManagedTx[]): void {
    const drop = new Set(txs);
    this.txs = this.txs.filter((t) => !drop.has(t));
  }

  /**
   * Stops following every transaction and reads the nonce from L1 again at the next send (a
   * batcher reset). What the pool holds stays there; a new transaction with one of its nonces
   * replaces it with bumped fees.
   */
  abandonAll(): void {
    this.txs = [];
    this.reorged.clear();
    this.nextNonce = undefined;
  }

  /**
   * Reads the L1 blocks since the last poll: inclusions, reorgs, confirmations, failures; then
   * resubmits what waited too long and submits what was not yet accepted.
   */
  async poll(): Promise<TxPollResult> {
    const adv = await this.heads.poll();
    const failed: ManagedTx[] = [];
    if (adv.reorgedFrom !== undefined) {
      const from = adv.reorgedFrom;
      this.unscanned = this.unscanned.filter((b) => b.number < from);
      for (const t of this.txs) {
        if (t.inclusion !== undefined && t.inclusion.number >= from) {
          this.log?.debug({ nonce: t.nonce.toString(), block: t.inclusion.number.toString(), tx: t.inclusion.txHash }, "batcher transaction removed from L1 by a reorg");
          t.inclusion = undefined;
          t.status = "pending";
          this.reorged.add(t);
        }
      }
    }
    this.unscanned.push(...adv.blocks);
    // A block leaves the queue only once scanned: a failed receipt read leaves it for the next poll.
    while (this.unscanned.length > 0) {
      const b = this.unscanned[0]!;
      const byHash = new Map<string, ManagedTx>();
      for (const t of this.txs) if (t.status === "pending") for (const a of t.attempts) byHash.set(a.hash, t);
      for (const h of b.txHashes) {
        const t = byHash.get(h);
        if (t === undefined || t.status !== "pending") continue;
        await this.included(t, b, h, failed);
        this.reorged.delete(t);
      }
      this.unscanned.shift();
    }
    const head = adv.head;
    for (const t of this.txs) {
      if (t.status === "included" && head.number >= t.inclusion!.number + BigInt(this.opts.numConfirmations) - 1n) {
        t.status = "confirmed";
        // No transaction will take this nonce again: what was offered for it (and for those below) is no longer needed.
        for (const n of this.offered.keys()) if (n <= t.nonce) this.offered.delete(n);
        batcherTransactionsConfirmedTotal.inc();
        this.log?.debug({ nonce: t.nonce.toString(), tx: t.inclusion!.txHash, block: t.inclusion!.number.toString() }, "batcher transaction confirmed");
      }
      if (t.status === "pending" && t.nonceTakenBy !== undefined && head.number >= t.nonceTakenBy) this.fail(t, "its nonce was taken by another transaction", failed);
    }
    const reorged = [...this.reorged].filter((t) => this.txs.includes(t));
    this.reorged.clear();
    await this.resubmitStale(head);
    await this.submitUnsent();
    return { head, reorged, failed };
  }

  private fail(t: ManagedTx, why: string, failed: ManagedTx[]): void {
    t.status = "failed";
    t.lastError = why;
    batcherTransactionsFailedTotal.inc();
    failed.push(t);
    // The batcher's reset that follows is the warning.
    this.log?.debug({ nonce: t.nonce.toString(), reason: why }, "batcher transaction failed");
  }

  /** Records `t` as included in `b` by its attempt `hash`; the receipt gives the status and the fee paid. */
  private async included(t: ManagedTx, b: L1Header, hash: string, failed: ManagedTx[]): Promise<void> {
    const r = await this.call<RpcReceipt | null>("eth_getTransactionReceipt", [hash]);
    t.inclusion = { number: b.number, hash: b.hash, timestamp: b.timestamp, txHash: hash };
    t.status = "included";
    if (r === null) return;
    const feeWei = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice ?? "0x0") + BigInt(r.blobGasUsed ?? "0x0") * BigInt(r.blobGasPrice ?? "0x0");
    batcherL1FeesGweiTotal.inc(Number(feeWei) / WEI_PER_GWEI);
    if (r.status === "0x0") this.fail(t, `reverted in L1 block ${b.number}`, failed);
  }

  /** Resubmits, with bumped fees, every pending transaction not included within the bound since its last submission. */
  private async resubmitStale(head: L1Header): Promise<void> {
    for (const t of this.txs) {
      if (t.status !== "pending") continue;
      const last = t.attempts[t.attempts.length - 1];
      if (last === undefined || head.number < last.sentAtL1 + BigInt(BATCHER_RESUBMIT_AFTER_L1_BLOCKS)) continue;
      if (!(await this.submit(t))) break;
    }
  }

  /** Submits the transactions not yet accepted, in nonce order, stopping at the first refusal (no gap). */
  private async submitUnsent(): Promise<void> {
    for (const t of this.txs) {
      if (t.status !== "unsent") continue;
      if (!(await this.submit(t))) return;
    }
  }

  /** The L1's fee suggestion for the next block (read once per L1 head). */
  private async suggest(blobs: boolean): Promise<FeeSuggestion> {
    const at = this.heads.head.hash;
    if (this.suggestion?.at === at) return this.suggestion.fees;
    const [history, tip] = await Promise.all([this.call<FeeHistory>("eth_feeHistory", ["0x1", "latest", []]), this.call<string>("eth_maxPriorityFeePerGas", [])]);
    const lastOf = (xs: string[] | undefined): bigint | undefined => (xs === undefined || xs.length === 0 ? undefined : BigInt(xs[xs.length - 1]!));
    let blobBaseFee = lastOf(history.baseFeePerBlobGas);
    if (blobBaseFee === undefined) blobBaseFee = blobs ? BigInt(await this.call<string>("eth_blobBaseFee", [])) : 0n;
    const fees = { baseFee: lastOf(history.baseFeePerGas) ?? 0n, blobBaseFee, tip: BigInt(tip) };
    this.suggestion = { at, fees };
    return fees;
  }

  /** The gas limit and, for blobs, the sidecar (KZG on libuv's thread pool), once per transaction. */
  private async prepare(t: ManagedTx): Promise<Prepared> {
    const have = this.prepared.get(t);
    if (have !== undefined) return have;
    const c = t.candidate;
    let p: Prepared;
    if (c.kind === "calldata") {
      const gas = await this.call<string>("eth_estimateGas", [{ from: this.address, to: this.opts.inbox, data: bytesToHex(c.data) }]);
      p = { gasLimit: BigInt(gas) };
    } else {
      const committed = [];
      for (const blob of c.blobs) committed.push(await commitBlob(blob));
      p = {
        gasLimit: BLOB_TX_GAS,
        sidecar: {
          versionedHashes: committed.map((b) => bytesToHex(b.versionedHash)),
          blobs: committed.map((b) => bytesToHex(b.blob)),
          commitments: committed.map((b) => bytesToHex(b.commitment)),
          proofs: committed.map((b) => bytesToHex(b.proof)),
        },
      };
    }
    this.prepared.set(t, p);
    return p;
  }

  /** The signed transaction (network form for blobs) and its hash. */
  private sign(t: ManagedTx, p: Prepared, fees: TxFees): { raw: string; hash: string } {
    const base = { chainId: this.opts.l1ChainId, nonce: t.nonce, maxPriorityFeePerGas: fees.tip, maxFeePerGas: fees.feeCap, gasLimit: p.gasLimit, to: this.opts.inbox as PrefixedHexString, value: 0n };
    const opts = { common: this.common };
    if (t.candidate.kind === "calldata") {
      const tx = createFeeMarket1559Tx({ ...base, data: t.candidate.data }, opts).sign(this.opts.key);
      return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
    }
    const s = p.sidecar!;
    const tx = createBlob4844Tx(
      { ...base, maxFeePerBlobGas: fees.blobFeeCap, blobVersionedHashes: s.versionedHashes, blobs: s.blobs, kzgCommitments: s.commitments, kzgProofs: s.proofs, networkWrapperVersion: 0 },
      opts,
    ).sign(this.opts.key);
    return { raw: bytesToHex(tx.serializeNetworkWrapper()), hash: bytesToHex(tx.hash()) };
  }

  /**
   * Submits `t` (first time, or again with bumped fees). True when the pool took it (or already
   * had it); false when it must wait: refused, over the fee limit, or the RPC failed.
   */
  private async submit(t: ManagedTx): Promise<boolean> {
    const blobs = t.candidate.kind === "blobs";
    const now = feesFor(await this.suggest(blobs), blobs);
    const before = this.offered.get(t.nonce);
    const fees = before === undefined ? now : replacementFees(before, now);
    if (before !== undefined && !withinFeeLimit(fees, now)) {
      this.log?.debug({ nonce: t.nonce.toString() }, "batcher transaction not bumped: the fees would pass the fee limit");
      return false;
    }
    const signed = this.sign(t, await this.prepare(t), fees);
    try {
      await this.call<string>("eth_sendRawTransaction", [signed.raw]);
    } catch (e) {
      const kind = sendErrorKind(e);
      if (kind !== "known") {
        const message = (e as Error).message;
        // Refusals the batcher works around are routine; anything else (funds, a dead RPC) is logged once while it repeats.
        if (kind === "other" && message !== t.lastError) this.log?.warn({ nonce: t.nonce.toString(), err: e }, "batcher transaction not accepted by L1; retrying every round");
        else this.log?.debug({ nonce: t.nonce.toString(), kind, err: e }, "batcher transaction not accepted");
        t.lastError = message;
        // Another transaction holds the nonce at higher fees: the next try bumps over these.
        if (kind === "underpriced") this.offered.set(t.nonce, fees);
        if (kind === "nonce_too_low") await this.nonceTooLow(t);
        return false;
      }
    }
    const resubmission = t.attempts.length > 0;
    t.attempts.push({ hash: signed.hash.toLowerCase(), fees, sentAtL1: this.heads.head.number });
    this.offered.set(t.nonce, fees);
    if (t.status === "unsent") t.status = "pending";
    if (resubmission) {
      batcherTransactionsResubmittedTotal.inc();
      this.log?.debug({ nonce: t.nonce.toString(), tx: signed.hash, attempts: t.attempts.length }, "batcher transaction resubmitted with bumped fees");
      return true;
    }
    const c = t.candidate;
    batcherTransactionsSentTotal.inc({ kind: c.kind });
    batcherFramesSentTotal.inc(c.frames);
    if (c.kind === "blobs") {
      batcherBlobsPostedTotal.inc(c.blobs.length);
      batcherPostedBytesTotal.inc({ kind: c.kind }, c.payloadBytes);
    } else batcherPostedBytesTotal.inc({ kind: c.kind }, c.data.length);
    this.log?.debug({ nonce: t.nonce.toString(), tx: signed.hash, kind: c.kind, frames: c.frames }, "batcher transaction sent");
    return true;
  }

  /**
   * "nonce too low": one of our submissions may have been included in a block not read yet, or
   * another transaction took the nonce. The transaction fails if, once the blocks up to the
   * current L1 head are read, none of its hashes was found included.
   */
  private async nonceTooLow(t: ManagedTx): Promise<void> {
    if (t.attempts.length === 0 && t.status === "unsent") t.status = "pending";
    t.nonceTakenBy = BigInt(await this.call<string>("eth_blockNumber", []));
  }
}
