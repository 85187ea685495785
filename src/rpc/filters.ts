/**
 * Polling filters, as geth serves them: eth_newFilter, eth_newBlockFilter and
 * eth_newPendingTransactionFilter install one, eth_getFilterChanges reads what happened since
 * the last poll, eth_getFilterLogs runs a log filter's whole query, eth_uninstallFilter removes
 * it, and a filter not polled for five minutes is removed by itself. Filters are shared by
 * every transport (HTTP and WebSocket) and live in the RPC thread.
 *
 * Block and log filters keep only a cursor — the last block they reported, by number and
 * hash — and a poll reads the canonical blocks after it from the store (reth's way), so an idle
 * filter costs a few hundred bytes however many blocks pass. When the cursor's block is no
 * longer canonical, a log filter first reports the logs of the blocks that left the chain with
 * `removed: true`, oldest block first (geth's removed logs; reth reports none), then the new
 * branch. A log filter whose `toBlock` is `pending` also reports the logs of pre-confirmed
 * transactions (flashblocks), each once: when their block becomes canonical with the same
 * transaction at the same log index they are not reported again. `fromBlock: "pending"` reports
 * only pre-confirmed logs.
 *
 * Pending-transaction filters buffer what arrives: the hashes (or, asked with `true`, the
 * transaction objects) of transactions the mempool accepts and of those the pre-confirmation
 * stream adds, each transaction announced once, at most FILTER_MAX_PENDING_TXS per filter.
 */
import type { Block } from "@ethereumjs/block";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { formatTransaction, toData, type RpcLog } from "../chain/json/index.js";
import { isAheadOfHead, type PendingSource } from "../flashblocks/pendingView.js";
import type { PendingSnapshot } from "../flashblocks/pendingSnapshot.js";
import type { PooledTx, TxPool } from "../txpool/txpool.js";
import { bytesEqual } from "../util/bytes.js";
import { parseBlockParam } from "./blockParam.js";
import { FilterNotFoundError, InvalidParamsError, LimitExceededError } from "./errors.js";
import { rpcFilterPendingDroppedTotal, rpcFilters, rpcFiltersExpiredTotal } from "./metrics.js";
import { collectBlockLogs, indexedCandidates, matches, parseLogFilter, type LogFilter } from "./methods/logs.js";
import { newSubscriptionId } from "./subscriptions.js";
import { DEFAULT_MAX_FILTERS, MAX_LOGS_PER_RESPONSE } from "../config/constants.js";
import { FILTER_ANNOUNCED_MEMORY, FILTER_MAX_BLOCKS_PER_POLL, FILTER_MAX_PENDING_TXS, FILTER_SWEEP_INTERVAL_MS, FILTER_TIMEOUT_MS } from "./constants.js";

/** The kinds of filter, as the metrics label them. */
type FilterKind = "block" | "logs" | "pendingTx";

/** The last block a block or log filter reported. */
interface Cursor {
  number: bigint;
  hash: Uint8Array;
}

interface FilterBase {
  id: string;
  /** When it was installed or last polled (the registry's clock, ms). */
  lastPoll: number;
}

interface BlockFilter extends FilterBase {
  kind: "block";
  cursor: Cursor;
}

interface LogsFilter extends FilterBase {
  kind: "logs";
  cursor: Cursor;
  /** The filter object as given: eth_getFilterLogs runs it as an eth_getLogs query. */
  criteria: Record<string, unknown>;
  filter: LogFilter;
  /** Lowest block reported (a numeric or `earliest` fromBlock). */
  from?: bigint;
  /** Highest block reported (a numeric toBlock). */
  to?: bigint;
  /** `toBlock: "pending"`: pre-confirmed logs too. */
  withPending: boolean;
  /** `fromBlock: "pending"`: only pre-confirmed logs. */
  pendingOnly: boolean;
  /** Pre-confirmed logs already reported, `txHash:logIndex` → their block number. */
  reportedPending: Map<string, bigint>;
}

interface PendingTxFilter extends FilterBase {
  kind: "pendingTx";
  full: boolean;
  /** JSON items (hash strings or transaction objects) since the last poll, oldest first. */
  items: string[];
}

type Filter = BlockFilter | LogsFilter | PendingTxFilter;

/** What the registry reads from the node. */
interface FilterRegistryDeps {
  chain: Chain;
  /** Pre-confirmation snapshots; `NO_PENDING` never adds anything. */
  pending: PendingSource;
  /** The mempool; without it pending-transaction filters see only pre-confirmations. */
  pool?: TxPool;
  /** Most filters installed at once (`--rpc.max-filters`). */
  maxFilters?: number;
  logger?: Logger;
  /** The clock (ms); tests move it to expire filters. */
  now?: () => number;
}

/** How basalt's transaction JSON names a deposit's type (OP `0x7e`). */
const DEPOSIT_TYPE_JSON = '"type":"0x7e"';

/** The key of a pre-confirmed log that a canonical log at the same position repeats. */
function logKey(l: RpcLog): string {
  return `${l.transactionHash}:${l.logIndex}`;
}

/** A block parameter of a filter's range: a number, or a tag the range rules name. */
function rangeBound(v: unknown): bigint | "latest" | "pending" {
  if (v == null) return "latest";
  const p = parseBlockParam(v, 0);
  if (p.kind === "number") return p.number;
  if (p.kind === "tag" && (p.tag === "latest" || p.tag === "pending")) return p.tag;
  if (p.kind === "tag" && p.tag === "earliest") return 0n;
  // geth's SubscribeLogs: safe, finalized and hashes are no range of new blocks.
  throw new InvalidParamsError("invalid block range params");
}

/** The installed filters of the node and their event feeds. */
export class FilterRegistry {
  private readonly chain: Chain;
  private readonly pending: PendingSource;
  private readonly maxFilters: number;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private readonly filters = new Map<string, Filter>();
  /** Pending-transaction filters, the only ones events are pushed to. */
  private readonly pendingTxFilters = new Map<string, PendingTxFilter>();
  /** Transactions already announced to pending-transaction filters (insertion order = age). */
  private readonly announced = new Set<string>();
  private readonly removeSnapshotListener: () => void;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(deps: FilterRegistryDeps) {
    this.chain = deps.chain;
    this.pending = deps.pending;
    this.maxFilters = deps.maxFilters ?? DEFAULT_MAX_FILTERS;
    this.now = deps.now ?? Date.now;
    this.log = deps.logger?.child({ subsystem: "rpc" });
    deps.pool?.onAdded((tx) => this.onPooled(tx));
    this.removeSnapshotListener = deps.pending.onSnapshot((s) => this.onSnapshot(s));
    this.timer = setInterval(() => this.sweep(), FILTER_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** Installed filters (of one kind, or all). */
  count(kind?: FilterKind): number {
    if (kind === undefined) return this.filters.size;
    let n = 0;
    for (const f of this.filters.values()) if (f.kind === kind) n++;
    return n;
  }

  /**
   * eth_newFilter(criteria): a log filter over the blocks after the current head (and, with
   * `toBlock: "pending"`, the pre-confirmed ones).
   * @throws InvalidParamsError for a bad filter object or range; LimitExceededError when full.
   */
  newLogFilter(criteria: unknown): string {
    if (typeof criteria !== "object" || criteria === null || Array.isArray(criteria)) throw new InvalidParamsError("invalid argument 0: filter object expected");
    const o = criteria as Record<string, unknown>;
    if (o.blockHash != null && (o.fromBlock != null || o.toBlock != null)) {
      throw new InvalidParamsError("invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other");
    }
    const filter = parseLogFilter(o, 0);
    const from = rangeBound(o.fromBlock);
    const to = rangeBound(o.toBlock);
    if (typeof from === "bigint" && typeof to === "bigint" && to < from) throw new InvalidParamsError("invalid block range params");
    return this.install({
      kind: "logs",
      id: this.newId(),
      lastPoll: this.now(),
      cursor: this.headCursor(),
      criteria: { ...o },
      filter,
      ...(typeof from === "bigint" ? { from } : {}),
      ...(typeof to === "bigint" ? { to } : {}),
      withPending: to === "pending" || from === "pending",
      pendingOnly: from === "pending",
      reportedPending: new Map(),
    });
  }

  /** eth_newBlockFilter(): the hashes of the blocks made canonical after the current head. */
  newBlockFilter(): string {
    return this.install({ kind: "block", id: this.newId(), lastPoll: this.now(), cursor: this.headCursor() });
  }

  /** eth_newPendingTransactionFilter(full): transactions entering the mempool or pre-confirmed from now on. */
  newPendingTxFilter(full: boolean): string {
    const f: PendingTxFilter = { kind: "pendingTx", id: this.newId(), lastPoll: this.now(), full, items: [] };
    this.install(f);
    this.pendingTxFilters.set(f.id, f);
    return f.id;
  }

  /**
   * eth_getFilterChanges(id): block hashes, logs or pending transactions since the last poll,
   * as JSON items (strings of JSON) for pending transactions, values otherwise.
   * @throws FilterNotFoundError for an id that is not installed.
   */
  changes(id: string): { json: string } | unknown[] {
    const f = this.filters.get(id);
    if (f === undefined) throw new FilterNotFoundError();
    f.lastPoll = this.now();
    if (f.kind === "pendingTx") {
      const items = f.items;
      f.items = [];
      return { json: `[${items.join(",")}]` };
    }
    if (f.kind === "block") return this.blockChanges(f);
    return this.logChanges(f);
  }

  /**
   * The criteria of log filter `id`, for eth_getFilterLogs (which runs them as eth_getLogs).
   * @throws FilterNotFoundError when `id` is not an installed log filter (geth's answer for a block or transaction filter too).
   */
  criteria(id: string): Record<string, unknown> {
    const f = this.filters.get(id);
    if (f === undefined || f.kind !== "logs") throw new FilterNotFoundError();
    return f.criteria;
  }

  /** eth_uninstallFilter(id): whether a filter was removed. */
  uninstall(id: string): boolean {
    const f = this.filters.get(id);
    if (f === undefined) return false;
    this.remove(f);
    return true;
  }

  /** Removes the filters not polled within the timeout; returns how many. */
  sweep(): number {
    const deadline = this.now() - FILTER_TIMEOUT_MS;
    let n = 0;
    for (const f of [...this.filters.values()]) {
      if (f.lastPoll > deadline) continue;
      this.remove(f);
      rpcFiltersExpiredTotal.inc({ kind: f.kind });
      n++;
    }
    if (n > 0) this.log?.debug({ expired: n, left: this.filters.size }, "filters expired");
    return n;
  }

  /** Removes every filter and stops listening (the mempool listener, which cannot be removed, becomes a no-op). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.removeSnapshotListener();
    for (const f of [...this.filters.values()]) this.remove(f);
  }

  // ---- installing -----------------------------------------------------------------------

  private newId(): string {
    let id = newSubscriptionId();
    while (this.filters.has(id)) id = newSubscriptionId();
    return id;
  }

  private install(f: Filter): string {
    if (this.closed) throw new FilterNotFoundError();
    if (this.filters.size >= this.maxFilters) {
      throw new LimitExceededError(`too many filters: ${this.maxFilters} are installed (--rpc.max-filters); uninstall unused ones, or they expire after five minutes without a poll`);
    }
    this.filters.set(f.id, f);
    rpcFilters.inc({ kind: f.kind });
    return f.id;
  }

  private remove(f: Filter): void {
    if (!this.filters.delete(f.id)) return;
    this.pendingTxFilters.delete(f.id);
    rpcFilters.dec({ kind: f.kind });
  }

  private headCursor(): Cursor {
    const head = this.chain.head;
    return { number: head.header.number, hash: head.hash() };
  }

  // ---- block and log filters ----------------------------------------------------------

  /**
   * The blocks since `cursor`: those that left the canonical chain (oldest first), the
   * canonical block they branch from (`ancestor`, the cursor itself when none left), and the
   * canonical blocks after it — at most FILTER_MAX_BLOCKS_PER_POLL blocks in all.
   */
  private since(cursor: Cursor): { dropped: Block[]; ancestor: Cursor; added: Block[] } {
    const dropped: Block[] = [];
    let n = cursor.number;
    let hash = cursor.hash;
    // Walk the cursor's branch back to the canonical chain through the stored parents.
    while (n >= 0n && dropped.length < FILTER_MAX_BLOCKS_PER_POLL) {
      const canonical = this.chain.getCanonicalHash(n);
      if (canonical !== undefined && bytesEqual(canonical, hash)) break;
      const block = this.chain.getBlockByHash(hash);
      if (block === undefined) break;
      dropped.push(block);
      hash = block.header.parentHash;
      n--;
    }
    dropped.reverse();
    const added: Block[] = [];
    const head = this.chain.head.header.number;
    for (let k = n + 1n; k <= head && dropped.length + added.length < FILTER_MAX_BLOCKS_PER_POLL; k++) {
      const block = this.chain.getBlockByNumber(k);
      if (block === undefined) break;
      added.push(block);
    }
    return { dropped, ancestor: { number: n, hash }, added };
  }

  private static after(block: Block): Cursor {
    return { number: block.header.number, hash: block.hash() };
  }

  private blockChanges(f: BlockFilter): string[] {
    const { ancestor, added } = this.since(f.cursor);
    const last = added.at(-1);
    f.cursor = last === undefined ? ancestor : FilterRegistry.after(last);
    return added.map((b) => toData(b.hash()));
  }

  private inRange(f: LogsFilter, n: bigint): boolean {
    return (f.from === undefined || n >= f.from) && (f.to === undefined || n <= f.to);
  }

  /**
   * Removed logs of the blocks that left the chain, then the logs of the new canonical blocks
   * (a log already reported as pre-confirmed at the same position is not repeated) while the
   * answer holds fewer than MAX_LOGS_PER_RESPONSE logs (the cursor stops at the last block
   * read), then the pre-confirmed logs.
   */
  private logChanges(f: LogsFilter): RpcLog[] {
    const out: RpcLog[] = [];
    const { dropped, ancestor, added } = this.since(f.cursor);
    let cursor = ancestor;
    if (f.pendingOnly) {
      cursor = added.length > 0 ? FilterRegistry.after(added.at(-1)!) : ancestor;
    } else {
      for (const block of dropped) if (this.inRange(f, block.header.number)) collectBlockLogs(this.chain, block, f.filter, true, out);
      const candidates = this.indexed(f, added);
      for (const block of added) {
        if (out.length >= MAX_LOGS_PER_RESPONSE) break;
        const number = block.header.number;
        if (this.inRange(f, number) && (candidates === undefined || candidates.has(Number(number)))) {
          const logs: RpcLog[] = [];
          collectBlockLogs(this.chain, block, f.filter, false, logs);
          for (const l of logs) if (f.reportedPending.get(logKey(l)) !== number) out.push(l);
        }
        cursor = FilterRegistry.after(block);
      }
    }
    f.cursor = cursor;
    if (f.withPending) this.pendingLogChanges(f, out);
    return out;
  }

  /**
   * The new canonical blocks the log index names for a log filter (several blocks, criteria,
   * indexed range), or undefined to read them all. Unused when the last of them is no longer
   * canonical: the index follows the chain, and a reorg since would make it describe other blocks.
   */
  private indexed(f: LogsFilter, added: Block[]): Set<number> | undefined {
    const first = added[0];
    const last = added.at(-1);
    if (first === undefined || last === undefined || added.length < 2) return undefined;
    const candidates = indexedCandidates(this.chain, f.filter, first.header.number, last.header.number);
    const still = this.chain.getCanonicalHash(last.header.number);
    return still !== undefined && bytesEqual(still, last.hash()) ? candidates : undefined;
  }

  /** Adds the matching pre-confirmed logs not reported yet, and forgets those at or below the head. */
  private pendingLogChanges(f: LogsFilter, out: RpcLog[]): void {
    const head = this.chain.head.header.number;
    for (const [k, n] of f.reportedPending) if (n <= head) f.reportedPending.delete(k);
    const s = this.pending.current();
    if (s === undefined || !isAheadOfHead(s, head)) return;
    for (const block of s.blocks) {
      const number = BigInt(block.number);
      if (number <= head || !this.inRange(f, number)) continue;
      for (const tx of block.txs) {
        for (const l of tx.logs) {
          if (!matches(l, f.filter)) continue;
          const k = logKey(l);
          if (f.reportedPending.has(k)) continue;
          f.reportedPending.set(k, number);
          out.push(l);
        }
      }
    }
  }

  // ---- pending-transaction filters ----------------------------------------------------

  /** Records `hash` as announced; false when it already was. */
  private firstAnnouncement(hash: string): boolean {
    if (this.announced.has(hash)) return false;
    this.announced.add(hash);
    if (this.announced.size > FILTER_ANNOUNCED_MEMORY) this.announced.delete(this.announced.values().next().value as string);
    return true;
  }

  private push(f: PendingTxFilter, item: string): void {
    f.items.push(item);
    if (f.items.length > FILTER_MAX_PENDING_TXS) {
      f.items.shift();
      rpcFilterPendingDroppedTotal.inc();
    }
  }

  private onPooled(p: PooledTx): void {
    if (this.closed || this.pendingTxFilters.size === 0) return;
    const hash = toData(p.hash);
    if (!this.firstAnnouncement(hash)) return;
    const hashJson = JSON.stringify(hash);
    let full: string | undefined;
    for (const f of this.pendingTxFilters.values()) {
      if (f.full) full ??= JSON.stringify(formatTransaction(p.tx, null, p.sender, { op: this.chain.op }));
      this.push(f, f.full ? full! : hashJson);
    }
  }

  /** The transactions the latest flashblock added (the tail of the pending block). */
  private onSnapshot(s: PendingSnapshot): void {
    if (this.closed || this.pendingTxFilters.size === 0) return;
    const head = s.blocks.at(-1);
    if (head === undefined || head.newTxCount === 0) return;
    for (const tx of head.txs.slice(-head.newTxCount)) {
      // Deposits (the L1 attributes and user deposits) never enter a mempool: not pending transactions.
      if (tx.txJson.includes(DEPOSIT_TYPE_JSON)) continue;
      if (!this.firstAnnouncement(tx.hash)) continue;
      const hashJson = JSON.stringify(tx.hash);
      for (const f of this.pendingTxFilters.values()) this.push(f, f.full ? tx.txJson : hashJson);
    }
  }
}
