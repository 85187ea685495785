/**
 * Transaction exchange over eth/68 (devp2p caps/eth.md, as reth's TransactionsManager): a peer's
 * NewPooledTransactionHashes is answered with GetPooledTransactions for the hashes of types the
 * pool takes and not yet fetched (at most 256 per request, at most 4096 hashes per
 * announcement); the transactions that come back (checked against the hashes asked) and any
 * Transactions message go to the main thread's pool. With gossip on, the pool's new
 * transactions are announced to every peer that has not shown them to us, and peers'
 * GetPooledTransactions are answered from the pool (up to 2 MiB).
 */
import { ETH_KNOWN_TX_HASHES, ETH_MAX_ANNOUNCED_HASHES, ETH_MAX_POOLED_TX_REQUEST, ETH_REQUEST_TIMEOUT_MS, ETH_SEEN_TX_HASHES, ETH_SOFT_POOLED_TX_RESPONSE_BYTES } from "../constants.js";
import type { Counters } from "../../util/counters.js";
import { keccak256 } from "../../util/keccak.js";
import { LruMap } from "../../util/lru.js";
import { EthProtocolError } from "./errors.js";
import { decodeAnnouncement, decodeHashesRequest, decodePooledTransactions, decodeTransactions, encodeAnnouncement, encodeHashesRequest, encodeResponse, EthCode } from "./ethMessages.js";
import type { EthSession } from "./ethSession.js";
import { txNetworkItem } from "./rlpItems.js";

/** Options of a {@link TxExchange}. */
interface TxExchangeOptions {
  /** Transaction types the pool accepts. */
  poolTypes: ReadonlySet<number>;
  counters: Counters;
  /** Raw transactions for the pool. */
  forward(raw: Uint8Array[]): void;
  /** Raw pool transactions for the hashes (the ones the pool has), for a peer's GetPooledTransactions. */
  lookup(hashes: Uint8Array[]): Promise<Uint8Array[]>;
}

interface Request {
  session: EthSession;
  hashes: Set<string>;
  timer: NodeJS.Timeout;
}

const key = (h: Uint8Array): string => Buffer.from(h).toString("hex");

/** See the module comment. */
export class TxExchange {
  private readonly known = new LruMap<string, true>(ETH_KNOWN_TX_HASHES);
  private readonly requests = new Map<bigint, Request>();
  private readonly seen = new WeakMap<EthSession, LruMap<string, true>>();
  private nextId = 1n;

  constructor(private readonly opts: TxExchangeOptions) {}

  private seenBy(session: EthSession): LruMap<string, true> {
    let s = this.seen.get(session);
    if (s === undefined) this.seen.set(session, (s = new LruMap(ETH_SEEN_TX_HASHES)));
    return s;
  }

  /** NewPooledTransactionHashes. @throws EthProtocolError for a malformed or oversized announcement. */
  onAnnouncement(session: EthSession, payload: Uint8Array): void {
    const a = decodeAnnouncement(payload);
    if (a.hashes.length > ETH_MAX_ANNOUNCED_HASHES) throw new EthProtocolError("NewPooledTransactionHashes", `${a.hashes.length} hashes: expected at most ${ETH_MAX_ANNOUNCED_HASHES}`);
    const seen = this.seenBy(session);
    const wanted: Uint8Array[] = [];
    a.hashes.forEach((h, i) => {
      const k = key(h);
      seen.set(k, true);
      if (!this.opts.poolTypes.has(a.types[i]!) || this.known.get(k) !== undefined) return;
      this.known.set(k, true);
      wanted.push(h);
    });
    for (let i = 0; i < wanted.length; i += ETH_MAX_POOLED_TX_REQUEST) this.request(session, wanted.slice(i, i + ETH_MAX_POOLED_TX_REQUEST));
  }

  private request(session: EthSession, hashes: Uint8Array[]): void {
    const id = this.nextId++;
    const timer = setTimeout(() => {
      // No answer: the hashes may be fetched again from whoever announces them next.
      const r = this.requests.get(id);
      this.requests.delete(id);
      for (const h of r?.hashes ?? []) this.known.delete(h);
    }, ETH_REQUEST_TIMEOUT_MS);
    timer.unref();
    this.requests.set(id, { session, hashes: new Set(hashes.map(key)), timer });
    session.send(EthCode.GetPooledTransactions, encodeHashesRequest(id, hashes));
    this.opts.counters.inc("messages:out:GetPooledTransactions");
  }

  /** PooledTransactions. @throws EthProtocolError for an answer to no request of this peer, or with transactions not asked for. */
  onPooledTransactions(session: EthSession, payload: Uint8Array): void {
    const { id, raw } = decodePooledTransactions(payload);
    const r = this.requests.get(id);
    if (r === undefined || r.session !== session) throw new EthProtocolError("PooledTransactions", `answer to request ${id}, which this peer was not asked`);
    this.requests.delete(id);
    clearTimeout(r.timer);
    const seen = this.seenBy(session);
    for (const tx of raw) {
      const k = key(keccak256(tx));
      if (!r.hashes.has(k)) throw new EthProtocolError("PooledTransactions", `transaction ${k} was not asked for`);
      seen.set(k, true);
    }
    if (raw.length > 0) this.opts.forward(raw);
  }

  /** Transactions (a full broadcast). */
  onTransactions(session: EthSession, payload: Uint8Array): void {
    const raw = decodeTransactions(payload);
    const seen = this.seenBy(session);
    for (const tx of raw) {
      const k = key(keccak256(tx));
      seen.set(k, true);
      this.known.set(k, true);
    }
    if (raw.length > 0) this.opts.forward(raw);
  }

  /** GetPooledTransactions: answered from the pool (through the main thread). */
  async onGetPooledTransactions(session: EthSession, payload: Uint8Array): Promise<void> {
    const { id, hashes } = decodeHashesRequest("GetPooledTransactions", payload);
    const raw = await this.opts.lookup(hashes.slice(0, ETH_MAX_POOLED_TX_REQUEST * 16));
    const items: Uint8Array[] = [];
    let bytes = 0;
    for (const tx of raw) {
      if (bytes >= ETH_SOFT_POOLED_TX_RESPONSE_BYTES) break;
      const item = txNetworkItem(tx);
      items.push(item);
      bytes += item.length;
    }
    session.send(EthCode.PooledTransactions, encodeResponse(id, items));
    this.opts.counters.inc("messages:out:PooledTransactions");
  }

  /** Announces pool transactions to every session that has not shown them to us (gossip on). */
  announce(sessions: readonly EthSession[], hashes: Uint8Array[], types: number[], sizes: number[]): void {
    for (const s of sessions) {
      const seen = this.seenBy(s);
      const pick = hashes.map((_, i) => i).filter((i) => seen.get(key(hashes[i]!)) === undefined);
      for (let i = 0; i < pick.length; i += ETH_MAX_ANNOUNCED_HASHES) {
        const chunk = pick.slice(i, i + ETH_MAX_ANNOUNCED_HASHES);
        for (const j of chunk) seen.set(key(hashes[j]!), true);
        s.send(EthCode.NewPooledTransactionHashes, encodeAnnouncement(Uint8Array.from(chunk.map((j) => types[j]!)), chunk.map((j) => sizes[j]!), chunk.map((j) => hashes[j]!)));
        this.opts.counters.inc("messages:out:NewPooledTransactionHashes");
      }
    }
  }

  /** Forgets a closed session's requests. */
  sessionClosed(session: EthSession): void {
    for (const [id, r] of this.requests) {
      if (r.session !== session) continue;
      clearTimeout(r.timer);
      this.requests.delete(id);
      for (const h of r.hashes) this.known.delete(h);
    }
  }
}
