/**
 * eth_subscribe / eth_unsubscribe: the publish side of JSON-RPC subscriptions, served on the
 * WebSocket transport ({@link RpcWsServer}).
 *
 * Kinds: geth's `newHeads`, `logs` and `newPendingTransactions`, fed by the chain's head changes
 * and the mempool; `syncing` (reth's form: the status at once — `false`, or `{syncing: true,
 * startingBlock, currentBlock, highestBlock}` — then each change of it at a head change); and Base's flashblocks kinds (base/base `rpc/pubsub.rs`) `newFlashblocks`,
 * `pendingLogs` and `newFlashblockTransactions`, fed by the pending snapshots, and basalt's
 * `flashblockHeight` (the height half of base/base issue #508: `{blockNumber, flashblockIndex}`
 * of the pending block after each snapshot). Every notification
 * is `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":<id>,"result":<item>}}`,
 * one item per message. Subscriptions belong to one connection and end with it.
 *
 * A subscription's notifications are held back until the answer carrying its id was written
 * (geth activates a subscription only after its response), so a client never sees a
 * notification for an id it does not know yet.
 */
import { randomBytes } from "node:crypto";
import type { Block } from "@ethereumjs/block";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import type { PendingSource } from "../flashblocks/pendingView.js";
import type { PendingSnapshot, PendingTx } from "../flashblocks/pendingSnapshot.js";
import { heightJson } from "../flashblocks/errors.js";
import type { PooledTx, TxPool } from "../txpool/txpool.js";
import { InvalidParamsError, RpcCode, RpcError } from "./errors.js";
import { formatBlockLogs, formatHeader, formatTransaction, toData, type RpcLog } from "../chain/json/index.js";
import { parseAddress, parseHash } from "./hexParams.js";
import { matches } from "./methods/logs.js";
import { rpcWsNotificationsTotal, rpcWsSubscriptions } from "./metrics.js";
import { maxParams, required } from "./params.js";
import { parseBlockParam } from "./blockParam.js";
import type { MethodTable, RpcContext } from "./types.js";
import { SUBSCRIPTION_MAX_BLOCKS_PER_HEAD_CHANGE, SUBSCRIPTION_MAX_HELD_NOTIFICATIONS } from "./constants.js";

/** Every subscription kind served, geth's first, then Base's flashblocks kinds. */
const SUBSCRIPTION_KINDS = [
  "newHeads",
  "logs",
  "newPendingTransactions",
  "syncing",
  "newFlashblocks",
  "pendingLogs",
  "newFlashblockTransactions",
  "flashblockHeight",
] as const;

/** A subscription kind (the first eth_subscribe parameter). */
type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

/** The JSON-RPC method name of notifications (geth: namespace + "_subscription"). */
const NOTIFICATION_METHOD = "eth_subscription";
/** Random bytes of a subscription id: geth's `randomIDGenerator` draws 16. */
const SUBSCRIPTION_ID_BYTES = 16;
/** Most topic positions in a logs filter (geth `maxTopics`, the four LOG opcodes' topics). */
const MAX_FILTER_TOPICS = 4;

/** A connection that carries notifications (one WebSocket). */
export interface SubscriptionConnection {
  /**
   * Writes one notification (complete JSON text). Returns false when it was not written: the
   * connection is closed, or was just closed for reading too slowly.
   */
  send(text: string): boolean;
}

/** eth_subscribe / eth_unsubscribe on a transport without notifications (HTTP): geth's error. */
export class NotificationsUnsupportedError extends RpcError {
  constructor() {
    // geth `notificationsUnsupportedError`: code -32601 (the legacy -32001 is only accepted by its client).
    super(RpcCode.MethodNotFound, "notifications not supported", undefined, "RPC_NOTIFICATIONS_UNSUPPORTED");
  }
}

/** eth_subscribe with a kind that is not served: geth's `subscriptionNotFoundError`. */
export class SubscriptionNotFoundError extends RpcError {
  constructor(kind: string) {
    super(RpcCode.MethodNotFound, `no ${JSON.stringify(kind)} subscription in eth namespace`, undefined, "RPC_SUBSCRIPTION_NOT_FOUND");
  }
}

/**
 * A parsed logs filter: the shape eth_getLogs matches with (`matches` in methods/logs.ts), plus
 * the optional block range of a `logs` subscription.
 */
interface SubscriptionLogFilter {
  /** Lowercase 0x addresses; empty = any. */
  addresses: Set<string>;
  /** Per position: the accepted topics (lowercase 0x), or null / empty for any. */
  topics: (Set<string> | null)[];
  /** Lowest block number notified (geth: a numeric `fromBlock`). */
  fromBlock?: bigint;
  /** Highest block number notified (geth: a numeric `toBlock`). */
  toBlock?: bigint;
}

/** One subscription. */
interface Subscription {
  id: string;
  kind: SubscriptionKind;
  conn: SubscriptionConnection;
  /** Logs filter (`logs`, `pendingLogs`, `newFlashblockTransactions` with a filter object). */
  filter?: SubscriptionLogFilter;
  /** Full objects instead of hashes (`newPendingTransactions` true, `newFlashblockTransactions` true or a filter). */
  full: boolean;
  /** The request whose answer carries the id, until that answer is written; null once active. */
  activation: RpcContext | null;
  /** `syncing`: the status text last sent (a notification goes out when it changes). */
  lastStatus?: string;
  /** Notifications produced before activation, sent in order on activation. */
  held: string[];
}

/** What the hub reads from the node. */
interface SubscriptionHubDeps {
  chain: Chain;
  /** Pre-confirmation snapshots (flashblocks kinds); `NO_PENDING` never notifies. */
  pending: PendingSource;
  /** The mempool (`newPendingTransactions`); without it that kind never notifies. */
  pool?: TxPool;
  /** The node's sync status (eth_syncing's); without it `syncing` always answers false. */
  syncing?: () => false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint };
  logger?: Logger;
}

/** A geth subscription id: 16 random bytes as a 0x quantity (leading zero digits dropped). */
export function newSubscriptionId(): string {
  const hex = randomBytes(SUBSCRIPTION_ID_BYTES).toString("hex").replace(/^0+/, "");
  return `0x${hex === "" ? "0" : hex}`;
}

/** `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":<id>,"result":<resultJson>}}`. */
function notificationText(id: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","method":"${NOTIFICATION_METHOD}","params":{"subscription":"${id}","result":${resultJson}}}`;
}

function isKind(k: string): k is SubscriptionKind {
  return (SUBSCRIPTION_KINDS as readonly string[]).includes(k);
}

function lowerHex(b: Uint8Array): string {
  return "0x" + Buffer.from(b).toString("hex");
}

/**
 * Parses a logs filter object (`{address?, topics?}`, plus `fromBlock`/`toBlock` when
 * `withRange`) with eth_getLogs' rules: `address` one address or a list, `topics` at most four
 * positions, each null (any), a topic or a list of alternatives. Absent/null = match everything.
 */
function parseLogFilter(raw: unknown, index: number, withRange: boolean): SubscriptionLogFilter {
  const filter: SubscriptionLogFilter = { addresses: new Set(), topics: [] };
  if (raw === undefined || raw === null) return filter;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new InvalidParamsError(`invalid argument ${index}: filter object expected`);
  const o = raw as Record<string, unknown>;
  const addrList = o.address == null ? [] : Array.isArray(o.address) ? o.address : [o.address];
  for (let i = 0; i < addrList.length; i++) filter.addresses.add(lowerHex(parseAddress(addrList[i], `${index}.address[${i}]`)));
  if (o.topics != null) {
    if (!Array.isArray(o.topics)) throw new InvalidParamsError(`invalid argument ${index}: topics must be an array`);
    if (o.topics.length > MAX_FILTER_TOPICS) throw new InvalidParamsError(`invalid argument ${index}: too many topics (max ${MAX_FILTER_TOPICS})`);
    filter.topics = o.topics.map((t: unknown, i) => {
      if (t === null) return null;
      const list = Array.isArray(t) ? t : [t];
      return new Set(list.filter((x) => x !== null).map((x, j) => lowerHex(parseHash(x, `${index}.topics[${i}][${j}]`))));
    });
  }
  if (withRange) parseRange(o, index, filter);
  return filter;
}

/**
 * geth's `SubscribeLogs` block range: both absent/`latest` = every new block; a numeric
 * `fromBlock` and/or `toBlock` bound the notified blocks; `pending` is refused; anything else is
 * an invalid range.
 */
function parseRange(o: Record<string, unknown>, index: number, filter: SubscriptionLogFilter): void {
  const bound = (v: unknown): bigint | "latest" => {
    if (v == null) return "latest";
    const p = parseBlockParam(v, index);
    if (p.kind === "number") return p.number;
    if (p.kind === "tag" && p.tag === "latest") return "latest";
    if (p.kind === "tag" && p.tag === "earliest") return 0n;
    if (p.kind === "tag" && p.tag === "pending") throw new InvalidParamsError("pending logs are not supported");
    throw new InvalidParamsError("invalid block range params");
  };
  const from = bound(o.fromBlock);
  const to = bound(o.toBlock);
  if (typeof from === "bigint" && typeof to === "bigint" && to < from) throw new InvalidParamsError("invalid block range params");
  if (from === "latest" && typeof to === "bigint") throw new InvalidParamsError("invalid block range params");
  if (typeof from === "bigint") filter.fromBlock = from;
  if (typeof to === "bigint") filter.toBlock = to;
}

function logMatches(log: RpcLog, f: SubscriptionLogFilter | undefined): boolean {
  if (f === undefined) return true;
  if (f.fromBlock !== undefined || f.toBlock !== undefined) {
    const n = BigInt(log.blockNumber);
    if (f.fromBlock !== undefined && n < f.fromBlock) return false;
    if (f.toBlock !== undefined && n > f.toBlock) return false;
  }
  return matches(log, f);
}

/** A JSON text computed at most once, on first use. */
function lazyJson(compute: () => string): () => string {
  let text: string | undefined;
  return () => (text ??= compute());
}

/**
 * `newFlashblockTransactions` full item: the transaction JSON with its logs and the receipt's
 * execution fields appended (base/base `TransactionWithLogs`: the flattened transaction, `logs`,
 * `gasUsed`, `status` (or `root`), `cumulativeGasUsed`, `contractAddress`, `logsBloom`).
 * The pre-rendered transaction JSON is extended as text, not re-serialized.
 */
function transactionWithLogsJson(tx: PendingTx): string {
  const receipt = JSON.parse(tx.receiptJson) as Record<string, unknown>;
  const extra = JSON.stringify({
    logs: tx.logs,
    gasUsed: receipt.gasUsed,
    status: receipt.status,
    root: receipt.root,
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    contractAddress: receipt.contractAddress ?? null,
    logsBloom: receipt.logsBloom,
  });
  const body = tx.txJson.trimEnd();
  const close = body.lastIndexOf("}");
  const head = body.slice(0, close).trimEnd();
  return head.endsWith("{") ? extra : `${head},${extra.slice(1)}`;
}

/**
 * The subscriptions of every connection, and the fan-out of chain, mempool and pending events
 * to them. One hub per node; listeners are registered at construction.
 */
export class SubscriptionHub {
  private readonly chain: Chain;
  private readonly syncing: () => false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint };
  private readonly log: Logger | undefined;
  private readonly byKind = new Map<SubscriptionKind, Map<string, Subscription>>();
  private readonly byConn = new Map<SubscriptionConnection, Map<string, Subscription>>();
  private readonly removeSnapshotListener: () => void;
  private readonly removeHeadListener: () => void;
  /** The last head seen: the ancestor of the next head when no reorg is reported. */
  private lastHead: Block;
  private closed = false;
  /** Event sources whose listener already failed once (logged at warn once, then debug). */
  private readonly failed = new Set<string>();

  /** Registers the hub's listeners on the chain, the mempool and the pending source. */
  constructor(deps: SubscriptionHubDeps) {
    this.chain = deps.chain;
    this.syncing = deps.syncing ?? (() => false);
    this.log = deps.logger?.child({ subsystem: "rpc" });
    this.lastHead = deps.chain.head;
    for (const k of SUBSCRIPTION_KINDS) this.byKind.set(k, new Map());
    this.removeHeadListener = deps.chain.onHead((head, reorged) => this.guard("chain head", () => this.onHead(head, reorged)));
    deps.pool?.onAdded((tx) => this.guard("mempool", () => this.onPendingTransaction(tx)));
    this.removeSnapshotListener = deps.pending.onSnapshot((s) => this.guard("flashblocks", () => this.onSnapshot(s)));
  }

  /**
   * The eth_subscribe / eth_unsubscribe handlers of one connection (merged over the public
   * method table by the WebSocket server).
   */
  methodsFor(conn: SubscriptionConnection): MethodTable {
    return {
      /** eth_subscribe(kind, param?) → subscription id. */
      eth_subscribe: (params, ctx) => this.subscribe(conn, params, ctx),
      /** eth_unsubscribe(id) → whether a subscription of this connection was removed. */
      eth_unsubscribe: (params) => this.unsubscribe(conn, params),
    };
  }

  /**
   * eth_subscribe: validates `[kind, param?]`, creates the subscription (held until the answer
   * of request `ctx` is written, see {@link activate}) and returns its id.
   * @throws InvalidParamsError for a missing/non-string kind or a bad parameter,
   *   SubscriptionNotFoundError for an unknown kind.
   */
  subscribe(conn: SubscriptionConnection, params: unknown[], ctx: RpcContext): string {
    if (params.length === 0 || typeof params[0] !== "string") throw new InvalidParamsError("expected subscription name as first argument");
    const kind = params[0];
    if (!isKind(kind)) throw new SubscriptionNotFoundError(kind);
    const sub: Subscription = { id: newSubscriptionId(), kind, conn, full: false, activation: ctx, held: [] };
    const arg = params[1];
    switch (kind) {
      case "newHeads":
      case "newFlashblocks":
      case "flashblockHeight":
        maxParams(params, 1);
        break;
      case "syncing":
        maxParams(params, 1);
        break;
      case "logs":
        maxParams(params, 2);
        sub.filter = parseLogFilter(arg, 1, true);
        break;
      case "pendingLogs":
        maxParams(params, 2);
        sub.filter = parseLogFilter(arg, 1, false);
        break;
      case "newPendingTransactions":
        maxParams(params, 2);
        if (arg != null && typeof arg !== "boolean") throw new InvalidParamsError("invalid argument 1: boolean expected");
        sub.full = arg === true;
        break;
      case "newFlashblockTransactions":
        maxParams(params, 2);
        if (typeof arg === "object" && arg !== null && !Array.isArray(arg)) {
          sub.filter = parseLogFilter(arg, 1, false);
          sub.full = true;
        } else if (arg == null || typeof arg === "boolean") {
          sub.full = arg === true;
        } else {
          throw new InvalidParamsError("invalid argument 1: boolean or logs filter object expected");
        }
        break;
    }
    if (this.closed) throw new NotificationsUnsupportedError();
    (this.byKind.get(kind) as Map<string, Subscription>).set(sub.id, sub);
    let mine = this.byConn.get(conn);
    if (mine === undefined) this.byConn.set(conn, (mine = new Map()));
    mine.set(sub.id, sub);
    rpcWsSubscriptions.inc({ kind });
    this.log?.debug({ id: sub.id, kind }, "subscription created");
    // `syncing` tells the current status at once (sent right after the answer carrying the id).
    if (kind === "syncing") this.sendStatus(sub);
    return sub.id;
  }

  /** eth_unsubscribe: true when `params[0]` named a subscription of `conn` (now removed), else false. */
  unsubscribe(conn: SubscriptionConnection, params: unknown[]): boolean {
    maxParams(params, 1);
    const id = required(params, 0);
    if (typeof id !== "string") throw new InvalidParamsError("invalid argument 0: subscription id (hex string) expected");
    const sub = this.byConn.get(conn)?.get(id);
    if (sub === undefined) return false;
    this.remove(sub);
    return true;
  }

  /**
   * Called by the transport once the answer of request `ctx` was written (or dropped, for a
   * JSON-RPC notification): its subscriptions become active and their held notifications go out.
   */
  activate(conn: SubscriptionConnection, ctx: RpcContext): void {
    const mine = this.byConn.get(conn);
    if (mine === undefined) return;
    for (const sub of mine.values()) {
      if (sub.activation !== ctx) continue;
      sub.activation = null;
      const held = sub.held;
      sub.held = [];
      for (const text of held) this.write(sub, text);
    }
  }

  /** Removes every subscription of a closed connection. */
  dropConnection(conn: SubscriptionConnection): void {
    const mine = this.byConn.get(conn);
    if (mine === undefined) return;
    for (const sub of [...mine.values()]) this.remove(sub);
    this.byConn.delete(conn);
  }

  /** Active subscriptions (of one kind, or all). */
  count(kind?: SubscriptionKind): number {
    if (kind !== undefined) return (this.byKind.get(kind) as Map<string, Subscription>).size;
    let n = 0;
    for (const m of this.byKind.values()) n += m.size;
    return n;
  }

  /** Drops every subscription and stops listening (the mempool listener, which cannot be removed, becomes a no-op). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.removeSnapshotListener();
    this.removeHeadListener();
    for (const conn of [...this.byConn.keys()]) this.dropConnection(conn);
  }

  // ---- fan-out -------------------------------------------------------------------------

  private remove(sub: Subscription): void {
    const kindMap = this.byKind.get(sub.kind) as Map<string, Subscription>;
    if (!kindMap.delete(sub.id)) return;
    rpcWsSubscriptions.dec({ kind: sub.kind });
    const mine = this.byConn.get(sub.conn);
    mine?.delete(sub.id);
    if (mine?.size === 0) this.byConn.delete(sub.conn);
  }

  private deliver(sub: Subscription, resultJson: string): void {
    const text = notificationText(sub.id, resultJson);
    if (sub.activation !== null) {
      if (sub.held.length < SUBSCRIPTION_MAX_HELD_NOTIFICATIONS) sub.held.push(text);
      return;
    }
    this.write(sub, text);
  }

  private write(sub: Subscription, text: string): void {
    if (sub.conn.send(text)) rpcWsNotificationsTotal.inc({ kind: sub.kind });
  }

  /** Runs a listener body; a failure never reaches the event source (the chain's commit, the mempool). */
  private guard(source: string, fn: () => void): void {
    if (this.closed) return;
    try {
      fn();
    } catch (err) {
      const first = !this.failed.has(source);
      this.failed.add(source);
      const fields = { source, err };
      if (first) this.log?.warn(fields, "subscription notifications failed");
      else this.log?.debug(fields, "subscription notifications failed");
    }
  }

  /**
   * The blocks a head change made canonical, oldest first: from `head` back to (excluding) the
   * common ancestor — the parent of the lowest reorged block, or the previous head.
   */
  private newCanonicalBlocks(head: Block, reorged: Block[], previous: Block): Block[] {
    const lowest = reorged.at(-1);
    const ancestorNumber = lowest !== undefined ? lowest.header.number - 1n : previous.header.number;
    const out: Block[] = [];
    let cur: Block | undefined = head;
    while (cur !== undefined && cur.header.number > ancestorNumber && out.length < SUBSCRIPTION_MAX_BLOCKS_PER_HEAD_CHANGE) {
      out.push(cur);
      cur = this.chain.getBlockByHash(cur.header.parentHash);
    }
    return out.reverse();
  }

  /**
   * newHeads / logs: on a reorg first the logs of the removed blocks (`removed: true`, oldest
   * block first, as geth's `RemovedLogsEvent`), then per new canonical block its header and its logs.
   */
  /** `syncing`: the status as reth writes it, sent when it differs from the last one sent. */
  private sendStatus(sub: Subscription): void {
    const s = this.syncing();
    // Only a change of syncing/not syncing is news (reth), not each block's progress.
    const state = s === false ? "false" : "true";
    if (sub.lastStatus === state) return;
    sub.lastStatus = state;
    const q = (n: bigint): string => `0x${n.toString(16)}`;
    this.deliver(sub, s === false ? "false" : JSON.stringify({ syncing: true, startingBlock: q(s.startingBlock), currentBlock: q(s.currentBlock), highestBlock: q(s.highestBlock) }));
  }

  private onHead(head: Block, reorged: Block[]): void {
    for (const sub of (this.byKind.get("syncing") as Map<string, Subscription>).values()) this.sendStatus(sub);
    const previous = this.lastHead;
    this.lastHead = head;
    const heads = this.byKind.get("newHeads") as Map<string, Subscription>;
    const logs = this.byKind.get("logs") as Map<string, Subscription>;
    if (heads.size === 0 && logs.size === 0) return;
    if (logs.size > 0) for (let i = reorged.length - 1; i >= 0; i--) this.sendBlockLogs(reorged[i] as Block, true, logs);
    for (const block of this.newCanonicalBlocks(head, reorged, previous)) {
      if (heads.size > 0) {
        const json = JSON.stringify(formatHeader(block.header));
        for (const sub of heads.values()) this.deliver(sub, json);
      }
      if (logs.size > 0) this.sendBlockLogs(block, false, logs);
    }
  }

  private sendBlockLogs(block: Block, removed: boolean, subs: Map<string, Subscription>): void {
    if (block.transactions.length === 0) return;
    const receipts = this.chain.getReceipts(block.hash());
    if (receipts === undefined) {
      this.log?.debug({ number: block.header.number.toString() }, "logs subscription: block without stored receipts skipped");
      return;
    }
    for (const log of formatBlockLogs(block, receipts, removed, { op: this.chain.op })) {
      const json = lazyJson(() => JSON.stringify(log));
      for (const sub of subs.values()) if (logMatches(log, sub.filter)) this.deliver(sub, json());
    }
  }

  /** newPendingTransactions: the hash (or, with `true`, the pending transaction object) of each transaction the mempool accepts. */
  private onPendingTransaction(p: PooledTx): void {
    const subs = this.byKind.get("newPendingTransactions") as Map<string, Subscription>;
    if (subs.size === 0) return;
    const hash = JSON.stringify(toData(p.hash));
    const full = lazyJson(() => JSON.stringify(formatTransaction(p.tx, null, p.sender, { op: this.chain.op })));
    for (const sub of subs.values()) this.deliver(sub, sub.full ? full() : hash);
  }

  /**
   * The flashblocks kinds, after each pending snapshot: `newFlashblocks` the full pending block;
   * `pendingLogs` and `newFlashblockTransactions` only what the latest flashblock added (the
   * last `newTxCount` transactions of the pending block), one item per notification.
   */
  private onSnapshot(s: PendingSnapshot): void {
    const blocks = this.byKind.get("newFlashblocks") as Map<string, Subscription>;
    const logs = this.byKind.get("pendingLogs") as Map<string, Subscription>;
    const txs = this.byKind.get("newFlashblockTransactions") as Map<string, Subscription>;
    const heights = this.byKind.get("flashblockHeight") as Map<string, Subscription>;
    if (blocks.size === 0 && logs.size === 0 && txs.size === 0 && heights.size === 0) return;
    const head = s.blocks.at(-1);
    if (head === undefined) return;
    if (heights.size > 0) {
      const height = JSON.stringify(heightJson({ blockNumber: head.number, flashblockIndex: head.index }));
      for (const sub of heights.values()) this.deliver(sub, height);
    }
    for (const sub of blocks.values()) this.deliver(sub, head.blockJsonFull);
    const added = head.newTxCount > 0 ? head.txs.slice(-head.newTxCount) : [];
    if (logs.size > 0) {
      for (const tx of added) {
        for (const log of tx.logs) {
          const json = lazyJson(() => JSON.stringify(log));
          for (const sub of logs.values()) if (logMatches(log, sub.filter)) this.deliver(sub, json());
        }
      }
    }
    if (txs.size > 0) {
      for (const tx of added) {
        const hash = JSON.stringify(tx.hash);
        const full = lazyJson(() => transactionWithLogsJson(tx));
        for (const sub of txs.values()) {
          if (!sub.full) this.deliver(sub, hash);
          else if (sub.filter === undefined || tx.logs.some((l) => matches(l, sub.filter as SubscriptionLogFilter))) this.deliver(sub, full());
        }
      }
    }
  }
}

/**
 * eth_subscribe and eth_unsubscribe for the HTTP (and Engine) table: both answer geth's
 * "notifications not supported" (-32601), as subscriptions need a connection that stays open.
 */
export function httpSubscriptionMethods(): MethodTable {
  const unsupported = (): never => {
    throw new NotificationsUnsupportedError();
  };
  return { eth_subscribe: unsupported, eth_unsubscribe: unsupported };
}
