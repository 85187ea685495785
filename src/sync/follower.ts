/**
 * Follow mode (`--follow-rpc <url>`): the node produces no blocks; it follows a trusted L2 RPC
 * (a sequencer or another node). Every block is fetched with full transactions, rebuilt
 * ({@link blockFromRpc}: transaction, header and transactions-root hashes checked), executed on
 * the local state and verified (state root, receipts root, …) before it becomes canonical, so a
 * source can stall the node but not make it accept an invalid state.
 *
 * The loop polls the source's `latest` block every `pollIntervalMs`; with a ws(s):// URL it also
 * subscribes to `newHeads` and syncs as soon as a head arrives (polling stays on as a safety net;
 * the socket reconnects with backoff). Missing blocks are fetched a few requests ahead of the
 * import. When the source's chain no longer extends the local head (a reorg of the unsafe head),
 * the follower walks back by number to the common ancestor, executes the source's first block of
 * the new branch, moves the head to it (`Chain.setHead` unwinds the old branch: its blocks,
 * transactions, receipts and logs leave every canonical index) and imports the rest. The source's
 * `safe` and `finalized` blocks become the local pointers once those blocks are local.
 *
 * At an upgrade basalt does not implement (`Chain.upgrades`: Base's L1 upgrade signal, the source's
 * own eth_config) the import of the first block at or after its activation is refused: the
 * follower then stops there — no retries, no further requests for blocks — until the guard's
 * findings change (a source stops scheduling it) or the node stops; the guard logs the one error line.
 *
 * With `--historical-proofs` a {@link ProofsGate} caps the import at `--proofs.max-blocks-ahead`
 * blocks above the proofs store's latest block: a round stops at the cap, and the follower sleeps
 * until the store moves (woken at once by its change, else at the next poll). Reorgs and the
 * safe/finalized pointers are unaffected (they never raise the head).
 */
import type { Block } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { ChainError, ChainErrorCode, UnknownUpgradeError } from "../chain/errors.js";
import { fromHex, to0x } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { BlockFromRpcError, blockFromRpc } from "./blockFromRpc.js";
import { ProgressMeter } from "../util/progress.js";
import {
  followBlocksImportedTotal,
  followErrorsTotal,
  followHeadBlock,
  followImportSeconds,
  followReorgsTotal,
  followSourceHeadBlock,
  type FollowErrorReason,
} from "./metrics.js";
import { ProofsGate, type ProofsGateOptions } from "./proofsGate.js";
import { HttpRpcClient, RpcClientError, RpcClientErrorCode, UpstreamRpcError, WsRpcClient, isWebSocketUrl, type JsonRpcClient } from "../util/rpcClient.js";
import { RPC_CLIENT_TIMEOUT_MS } from "../config/constants.js";
import { FOLLOW_FETCH_AHEAD, FOLLOW_TAGS_INTERVAL_MS, FOLLOW_SYNCING_LAG_BLOCKS, FOLLOW_BACKOFF_INITIAL_MS, FOLLOW_BACKOFF_MAX_MS, FOLLOW_PROGRESS_INTERVAL_MS, FOLLOW_MAX_REORG_STEPS_PER_ROUND } from "./constants.js";

/** Progress of follow mode, in eth_syncing's terms. */
interface FollowStatus {
  /** Local head when following started. */
  startingBlock: bigint;
  /** Local head now. */
  currentBlock: bigint;
  /** The source's head as last seen (never below `currentBlock`). */
  highestBlock: bigint;
}

/** Options of a {@link Follower}. */
interface FollowerOptions {
  /** Milliseconds between polls of the source's head (`--follow.poll-interval`). */
  pollIntervalMs: number;
  logger: Logger;
  /** Per-request timeout towards the source (default: the RPC client's). */
  requestTimeoutMs?: number;
  /** With `--historical-proofs`: stay within `maxBlocksAhead` blocks of the proofs store's latest block. */
  proofs?: ProofsGateOptions;
  /**
   * Take the source's safe/finalized blocks as the local pointers (default true). False when L1
   * derivation runs: safety then comes from L1, not from the followed RPC.
   */
  trackSafety?: boolean;
  /**
   * Awaited once the source passed the start check and before the first block is fetched: the
   * first read of the source's eth_config by the upgrade watcher, so its findings guard the very
   * first import.
   */
  beforeFollowing?: () => Promise<void>;
}

/** Stable code of {@link FollowSourceMismatchError}. */
const FollowSourceMismatchErrorCode = { FOLLOW_SOURCE_MISMATCH: "SYNC_FOLLOW_SOURCE_MISMATCH" } as const;
/** A {@link FollowSourceMismatchError}'s code with its metadata. */
type FollowSourceMismatchErrorType = { code: typeof FollowSourceMismatchErrorCode.FOLLOW_SOURCE_MISMATCH; source: string; field: "chainId" | "genesis"; local: string; remote: string };

/** The followed RPC serves another chain (chain id or genesis differs): following is refused. */
export class FollowSourceMismatchError extends TypedError<FollowSourceMismatchErrorType> {
  constructor(message: string, meta: { source: string; field: "chainId" | "genesis"; local: string; remote: string }) {
    super({ code: FollowSourceMismatchErrorCode.FOLLOW_SOURCE_MISMATCH, ...meta }, message);
  }
}

/** Stable code of {@link FollowInconsistentError}. */
const FollowInconsistentErrorCode = { FOLLOW_INCONSISTENT: "SYNC_FOLLOW_INCONSISTENT" } as const;
/** A {@link FollowInconsistentError}'s code with its metadata. */
type FollowInconsistentErrorType = { code: typeof FollowInconsistentErrorCode.FOLLOW_INCONSISTENT; source: string; block?: string };

/** The source's answers do not fit together (a block it announced is missing, a hash moved under us). */
export class FollowInconsistentError extends TypedError<FollowInconsistentErrorType> {
  constructor(message: string, meta: { source: string; block?: string }) {
    super({ code: FollowInconsistentErrorCode.FOLLOW_INCONSISTENT, ...meta }, message);
  }
}

/** Stable code of {@link FollowStoppedError}. */
const FollowStoppedErrorCode = { FOLLOW_STOPPED: "SYNC_FOLLOW_STOPPED" } as const;
/** A {@link FollowStoppedError}'s code with its metadata. */
type FollowStoppedErrorType = { code: typeof FollowStoppedErrorCode.FOLLOW_STOPPED };

/** The follower was stopped while an operation (the start check) was still waiting. */
export class FollowStoppedError extends TypedError<FollowStoppedErrorType> {
  constructor() {
    super({ code: FollowStoppedErrorCode.FOLLOW_STOPPED }, "follow mode stopped");
  }
}

/** Stable code of {@link FollowStartedError}. */
const FollowStartedErrorCode = { FOLLOW_STARTED: "SYNC_FOLLOW_STARTED" } as const;
/** A {@link FollowStartedError}'s code with its metadata. */
type FollowStartedErrorType = { code: typeof FollowStartedErrorCode.FOLLOW_STARTED };

/** `start()` called on a follower that was already started (a follower starts once). */
class FollowStartedError extends TypedError<FollowStartedErrorType> {
  constructor() {
    super({ code: FollowStartedErrorCode.FOLLOW_STARTED }, "the follower is already started");
  }
}

/** A block reference read from the source: number, hash, parent. */
interface SourceHeader {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
}

/** The metric label of a failure. */
function reasonOf(e: unknown): FollowErrorReason {
  if (e instanceof UpstreamRpcError) return "upstream";
  if (e instanceof RpcClientError) {
    if (e.code === RpcClientErrorCode.TIMEOUT) return "timeout";
    if (e.code === RpcClientErrorCode.INVALID_RESPONSE) return "invalid_response";
    return "network";
  }
  if (e instanceof BlockFromRpcError) return "invalid_block";
  if (e instanceof UnknownUpgradeError) return "unknown_upgrade";
  if (e instanceof ChainError) return e.code === ChainErrorCode.INVALID_BLOCK || e.code === ChainErrorCode.INVALID_HEADER ? "execution" : "inconsistent";
  if (e instanceof FollowInconsistentError) return "inconsistent";
  return "internal";
}

const quantity = (n: bigint): string => `0x${n.toString(16)}`;

/** Follows a trusted L2 RPC: fetches, executes, verifies and commits its blocks; applies its reorgs. */
export class Follower {
  private readonly client: JsonRpcClient;
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private readonly requestTimeoutMs: number;
  private started = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private startingBlock = 0n;
  private highest = 0n;
  private backoff = FOLLOW_BACKOFF_INITIAL_MS;
  private lastTagsAt = 0;
  /** Failure kinds already logged at warn since the last good round. */
  private readonly warned = new Set<FollowErrorReason>();
  private caughtUp = false;
  /** Ends the current sleep; `wakeable` sleeps also end on a new head. */
  private endSleep: (() => void) | undefined;
  private sleepWakeable = false;
  /** A head arrived while syncing: skip the next wakeable sleep. */
  private headPending = false;
  /** Catch-up pace, while more than {@link FOLLOW_SYNCING_LAG_BLOCKS} behind (undefined at the tip). */
  private progress: ProgressMeter | undefined;
  /** The proofs gate (`--historical-proofs`), and its change subscription while following. */
  private readonly gate: ProofsGate | undefined;
  private offGate: (() => void) | undefined;
  /** Whether the source's safe/finalized become local ({@link FollowerOptions.trackSafety}). */
  private readonly trackSafety: boolean;
  /** Aborted by {@link stop}: ends a wait for the upgrade guard to change. */
  private readonly stopping = new AbortController();
  private readonly beforeFollowing: (() => Promise<void>) | undefined;

  constructor(
    private readonly chain: Chain,
    url: string,
    opts: FollowerOptions,
  ) {
    this.log = opts.logger.child({ subsystem: "sync" });
    this.pollIntervalMs = opts.pollIntervalMs;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? RPC_CLIENT_TIMEOUT_MS;
    const copts = { timeoutMs: this.requestTimeoutMs, logger: this.log };
    this.client = isWebSocketUrl(url) ? new WsRpcClient(url, copts) : new HttpRpcClient(url, copts);
    this.gate = opts.proofs === undefined ? undefined : new ProofsGate(opts.proofs, this.log);
    this.trackSafety = opts.trackSafety ?? true;
    this.beforeFollowing = opts.beforeFollowing;
  }

  /** The source endpoint without credentials. */
  get endpoint(): string {
    return this.client.endpoint;
  }

  /** The connection to the source (for other readers of the same trusted RPC, e.g. its eth_config). */
  get source(): JsonRpcClient {
    return this.client;
  }

  /**
   * Checks that the source serves this chain (same `eth_chainId`, same block 0 hash), then starts
   * the follow loop. Resolves once the check passed; rejects with {@link FollowSourceMismatchError}
   * when it does not. An unreachable source is retried (with backoff, warned once) until it answers
   * or {@link stop} is called.
   */
  async start(): Promise<void> {
    if (this.started) throw new FollowStartedError();
    this.started = true;
    const ws = this.client instanceof WsRpcClient ? this.client : undefined;
    if (ws !== undefined) {
      ws.onOpen(() => void this.subscribeHeads(ws));
      ws.connect();
    }
    try {
      await this.checkSource(ws);
    } catch (e) {
      this.client.close();
      throw e;
    }
    await this.beforeFollowing?.();
    this.startingBlock = this.chain.head.header.number;
    this.highest = this.startingBlock;
    followHeadBlock.set(Number(this.startingBlock));
    this.log.info({ source: this.endpoint, head: this.startingBlock.toString(), pollIntervalMs: this.pollIntervalMs }, "following a trusted RPC");
    this.offGate = this.gate?.onChange(() => this.onProofsProgress());
    this.loop = this.run();
  }

  /** Stops the loop (after the block being imported, if any) and closes the connection. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    this.offGate?.();
    this.endSleep?.();
    this.client.close();
    await this.loop;
  }

  /** Progress: where following started, the local head, the source's head. */
  status(): FollowStatus {
    const current = this.chain.head.header.number;
    return { startingBlock: this.startingBlock, currentBlock: current, highestBlock: this.highest > current ? this.highest : current };
  }

  /** eth_syncing's answer: the {@link status} while more than {@link FOLLOW_SYNCING_LAG_BLOCKS} behind the source, else false. */
  syncing(): false | FollowStatus {
    const s = this.status();
    return s.highestBlock - s.currentBlock > FOLLOW_SYNCING_LAG_BLOCKS ? s : false;
  }

  // ---- start check ----------------------------------------------------------------------

  private async checkSource(ws: WsRpcClient | undefined): Promise<void> {
    for (;;) {
      if (this.stopped) throw new FollowStoppedError();
      try {
        // A WebSocket source: give the first connection its handshake time before asking.
        if (ws !== undefined) await ws.waitOpen(this.requestTimeoutMs);
        const rawId = await this.client.call<unknown>("eth_chainId");
        if (typeof rawId !== "string" || !/^0x[0-9a-fA-F]+$/.test(rawId)) {
          const meta = { endpoint: this.endpoint, method: "eth_chainId" };
          throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, ...meta }, `${this.endpoint}: eth_chainId: expected a hex quantity`);
        }
        const id = BigInt(rawId);
        if (id !== this.chain.chainId) {
          throw new FollowSourceMismatchError(
            `--follow-rpc ${this.endpoint} serves chain id ${id}, but this node's chain id is ${this.chain.chainId}: follow a node of the same network`,
            { source: this.endpoint, field: "chainId", local: this.chain.chainId.toString(), remote: id.toString() },
          );
        }
        const genesis = await this.header("0x0");
        if (genesis === undefined || !equalsBytes(genesis.hash, this.chain.genesisHash)) {
          const remote = genesis === undefined ? "none" : to0x(genesis.hash);
          throw new FollowSourceMismatchError(
            `--follow-rpc ${this.endpoint} has genesis block ${remote}, but this node's genesis is ${to0x(this.chain.genesisHash)}: ` +
              "follow a node of the same network",
            { source: this.endpoint, field: "genesis", local: to0x(this.chain.genesisHash), remote },
          );
        }
        this.warned.clear();
        return;
      } catch (e) {
        if (e instanceof FollowSourceMismatchError || this.stopped) throw e;
        this.recordError(e);
        await this.sleep(this.nextBackoff(), false);
      }
    }
  }

  // ---- loop -----------------------------------------------------------------------------

  private async run(): Promise<void> {
    while (!this.stopped) {
      let delay = this.pollIntervalMs;
      let wakeable = true;
      try {
        await this.syncOnce();
        if (this.warned.size > 0) this.log.info({ source: this.endpoint, head: this.chain.head.header.number.toString() }, "following again");
        this.warned.clear();
        this.backoff = FOLLOW_BACKOFF_INITIAL_MS;
      } catch (e) {
        if (this.stopped) break;
        if (e instanceof UnknownUpgradeError) {
          // Halted at an upgrade basalt does not implement (the guard logged it): no retries until its findings change.
          followErrorsTotal.inc({ reason: "unknown_upgrade" });
          await this.chain.upgrades.changed(this.stopping.signal);
          continue;
        }
        this.recordError(e);
        delay = this.nextBackoff();
        wakeable = false;
      }
      await this.sleep(delay, wakeable);
    }
  }

  /** Counts a failure and logs it: at warn the first time per kind since the last good round, else at debug. */
  private recordError(e: unknown): void {
    const reason = reasonOf(e);
    followErrorsTotal.inc({ reason });
    const fields = { source: this.endpoint, reason, err: e, retryMs: this.backoff };
    if (this.warned.has(reason)) {
      this.log.debug(fields, "follow mode: round failed");
      return;
    }
    this.warned.add(reason);
    if (reason === "internal") this.log.error(fields, "follow mode: unexpected failure; retrying");
    else this.log.warn(fields, "follow mode: round failed; retrying with backoff");
  }

  private nextBackoff(): number {
    const d = this.backoff;
    this.backoff = Math.min(this.backoff * 2, FOLLOW_BACKOFF_MAX_MS);
    return d;
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (wakeable && this.headPending) {
      this.headPending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.endSleep = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.endSleep = done;
      this.sleepWakeable = wakeable;
    });
  }

  /** A new head was announced (newHeads): sync now. */
  private onHead(result: unknown): void {
    const n = typeof result === "object" && result !== null ? (result as { number?: unknown }).number : undefined;
    if (typeof n === "string" && /^0x[0-9a-fA-F]+$/.test(n)) this.seeSourceHead(BigInt(n));
    this.wake();
  }

  /** The proofs store moved: a held follower syncs now if the gate lets it import again. */
  private onProofsProgress(): void {
    if (this.gate?.held === true && this.gate.opensAbove(this.chain.head.header.number)) this.wake();
  }

  /** Ends a wakeable sleep now, or makes the next one end at once. */
  private wake(): void {
    if (this.endSleep !== undefined && this.sleepWakeable) this.endSleep();
    else this.headPending = true;
  }

  private async subscribeHeads(ws: WsRpcClient): Promise<void> {
    try {
      await ws.subscribe("newHeads", (r) => this.onHead(r));
      this.log.debug({ source: this.endpoint }, "subscribed to newHeads");
    } catch (e) {
      // Polling still runs; the next reconnect subscribes again.
      this.log.debug({ source: this.endpoint, err: e }, "newHeads subscription failed; relying on polling");
    }
  }

  private seeSourceHead(n: bigint): void {
    if (n !== this.highest) {
      this.highest = n;
      followSourceHeadBlock.set(Number(n));
    }
  }

  // ---- sync -----------------------------------------------------------------------------

  /** One round: read the source's head, bring the local chain to it, then track safe/finalized. */
  private async syncOnce(): Promise<void> {
    const target = await this.header("latest");
    if (target === undefined) throw new FollowInconsistentError(`${this.endpoint} has no latest block`, { source: this.endpoint });
    this.seeSourceHead(target.number);
    const held = await this.syncTo(target);
    if (!held) this.gate?.release(this.chain.head.header.number);
    if (!this.caughtUp && equalsBytes(this.chain.head.hash(), target.hash)) {
      this.caughtUp = true;
      this.log.info({ source: this.endpoint, head: target.number.toString() }, "follow mode caught up with the source");
    }
    await this.trackTags();
  }

  /** Brings the local chain to `target`; true when the proofs gate stopped the import short of it. */
  private async syncTo(target: SourceHeader): Promise<boolean> {
    for (let steps = 0; steps < FOLLOW_MAX_REORG_STEPS_PER_ROUND && !this.stopped; steps++) {
      const head = this.chain.head.header;
      if (equalsBytes(head.hash(), target.hash)) return false;
      if (target.number > head.number) {
        const outcome = await this.importRange(head.number + 1n, target.number);
        if (outcome !== "diverged") return outcome === "held";
      }
      if (this.stopped) return false;
      await this.reorg(target.number);
    }
    return false;
  }

  /**
   * Imports blocks `from..to` in order, fetching up to {@link FOLLOW_FETCH_AHEAD} ahead, none
   * beyond what the proofs gate admits. Returns "diverged" when a block's parent is not the local
   * head (the source reorged), "held" when the gate stopped it before `to`, "done" otherwise.
   */
  private async importRange(from: bigint, to: bigint): Promise<"done" | "diverged" | "held"> {
    const queue: Promise<Block>[] = [];
    let next = from;
    const admitted = (n: bigint): boolean => this.gate === undefined || this.gate.admits(n, this.chain.head.header.number, this.highest);
    const fill = (): void => {
      while (queue.length < FOLLOW_FETCH_AHEAD && next <= to && admitted(next)) {
        const p = this.fetchBlock(next++);
        p.catch(() => undefined); // awaited in order below; abandoned ones must not surface as unhandled
        queue.push(p);
      }
    };
    fill();
    while (queue.length > 0) {
      if (this.stopped) return "done";
      const block = await queue.shift()!;
      fill();
      if (!equalsBytes(block.header.parentHash, this.chain.head.hash())) return "diverged";
      await this.importOne(block);
      fill();
    }
    return next <= to ? "held" : "done";
  }

  /** Executes, verifies and commits `block` (child of the head) as the new head. */
  private async importOne(block: Block): Promise<void> {
    const end = followImportSeconds.startTimer();
    await this.chain.importBlock(block);
    end();
    followBlocksImportedTotal.inc();
    followHeadBlock.set(Number(block.header.number));
    this.log.debug({ number: block.header.number.toString(), hash: to0x(block.hash()), txs: block.transactions.length }, "followed block imported");
    this.reportProgress(block.header.number);
  }

  /** While catching up (as eth_syncing sees it), an info line every {@link FOLLOW_PROGRESS_INTERVAL_MS}: head, target, pace, time left. */
  private reportProgress(head: bigint): void {
    const behind = this.highest - head;
    if (behind <= FOLLOW_SYNCING_LAG_BLOCKS) {
      this.progress = undefined;
      return;
    }
    if (this.progress === undefined) {
      this.progress = new ProgressMeter(Number(head));
      return;
    }
    if (!this.progress.due(FOLLOW_PROGRESS_INTERVAL_MS)) return;
    const pace = this.progress.sample(Number(head), Number(behind));
    this.log.info({ head: head.toString(), target: this.highest.toString(), blocksPerSecond: pace.blocksPerSecond, eta: pace.eta }, "syncing");
  }

  /**
   * Moves the local chain onto the source's branch: finds the highest block both agree on (by
   * number, walking back from the lower head), then either rolls back to it (the source's head is
   * that ancestor) or executes the source's next block and makes it the head, which unwinds the
   * old branch. The new branch's first block is executed before anything is unwound.
   */
  private async reorg(targetNumber: bigint): Promise<void> {
    const oldHead = this.chain.head.header;
    const floor = this.chain.oldestStateBlock();
    let n = oldHead.number < targetNumber ? oldHead.number : targetNumber;
    for (;;) {
      const src = await this.header(quantity(n));
      if (src === undefined) {
        throw new FollowInconsistentError(`${this.endpoint} has no block ${n}, though its head is ${targetNumber}`, { source: this.endpoint, block: n.toString() });
      }
      const local = this.chain.getCanonicalHash(n);
      if (local !== undefined && equalsBytes(local, src.hash)) break;
      if (n <= floor) {
        throw new FollowInconsistentError(
          `no common ancestor with ${this.endpoint} at or above block ${floor} (the oldest block with state); resync from a fresh datadir`,
          { source: this.endpoint, block: n.toString() },
        );
      }
      n--;
    }
    const ancestor = n;
    // With safety from L1 (derivation runs here) the source's unsafe chain never replaces the safe
    // chain, as op-node's engine refuses unsafe payloads that conflict with it: wait for the source.
    const safe = this.trackSafety ? undefined : this.chain.pointer("safe");
    if (safe !== undefined && ancestor < safe.header.number) {
      throw new FollowInconsistentError(
        `${this.endpoint}'s chain leaves the L1-derived safe chain at block ${ancestor + 1n} (safe head ${safe.header.number}); not following it below the safe head`,
        { source: this.endpoint, block: (ancestor + 1n).toString() },
      );
    }
    const ancestorHash = this.chain.getCanonicalHash(ancestor)!;
    if (ancestor === targetNumber) {
      // The source's head is behind ours on our own chain: drop our blocks above it.
      await this.chain.setHead(ancestorHash);
      this.afterReorg(oldHead.number, ancestor, ancestorHash);
      return;
    }
    const first = await this.fetchBlock(ancestor + 1n);
    if (!equalsBytes(first.header.parentHash, ancestorHash)) {
      throw new FollowInconsistentError(`${this.endpoint} changed its chain during the reorg at block ${ancestor + 1n}; retrying`, {
        source: this.endpoint,
        block: (ancestor + 1n).toString(),
      });
    }
    const end = followImportSeconds.startTimer();
    await this.chain.insertBlock(first);
    await this.chain.setHead(first.hash());
    end();
    followBlocksImportedTotal.inc();
    this.afterReorg(oldHead.number, ancestor, first.hash());
  }

  private afterReorg(oldHead: bigint, ancestor: bigint, newHead: Uint8Array): void {
    followHeadBlock.set(Number(this.chain.head.header.number));
    if (oldHead > ancestor) {
      followReorgsTotal.inc();
      const fields = { source: this.endpoint, depth: (oldHead - ancestor).toString(), ancestor: ancestor.toString(), newHead: to0x(newHead) };
      this.log.info(fields, "followed the source's reorg");
    }
  }

  /** Sets the local safe/finalized pointers to the source's, when those blocks are local and canonical. */
  private async trackTags(): Promise<void> {
    if (!this.trackSafety) return;
    const now = Date.now();
    if (now - this.lastTagsAt < FOLLOW_TAGS_INTERVAL_MS) return;
    this.lastTagsAt = now;
    let safe: SourceHeader | undefined;
    let finalized: SourceHeader | undefined;
    try {
      [safe, finalized] = await Promise.all([this.header("safe"), this.header("finalized")]);
    } catch (e) {
      // Sources without the tags (an old node) are followed without them.
      if (e instanceof UpstreamRpcError) {
        this.log.debug({ source: this.endpoint, err: e }, "source does not serve safe/finalized");
        return;
      }
      throw e;
    }
    const local = (h: SourceHeader | undefined): Uint8Array | undefined => {
      if (h === undefined) return undefined;
      const c = this.chain.getCanonicalHash(h.number);
      return c !== undefined && equalsBytes(c, h.hash) ? h.hash : undefined;
    };
    const s = local(safe);
    const f = local(finalized);
    const changed = (p: Uint8Array | undefined, name: "safe" | "finalized"): boolean => {
      const cur = this.chain.pointer(name);
      return p !== undefined && (cur === undefined || !equalsBytes(cur.hash(), p));
    };
    if (changed(s, "safe") || changed(f, "finalized")) await this.chain.setHead(this.chain.head.hash(), s, f);
  }

  // ---- source reads ---------------------------------------------------------------------

  /** eth_getBlockByNumber(tag, false) reduced to number/hash/parent; undefined when the source has no such block. */
  private async header(tag: string): Promise<SourceHeader | undefined> {
    const json = await this.client.call<unknown>("eth_getBlockByNumber", [tag, false]);
    if (json === null) return undefined;
    const o = json as { number?: unknown; hash?: unknown; parentHash?: unknown };
    const ok = (v: unknown, re: RegExp): v is string => typeof v === "string" && re.test(v);
    if (typeof json !== "object" || !ok(o.number, /^0x[0-9a-fA-F]+$/) || !ok(o.hash, /^0x[0-9a-fA-F]{64}$/) || !ok(o.parentHash, /^0x[0-9a-fA-F]{64}$/)) {
      throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, endpoint: this.endpoint, method: "eth_getBlockByNumber" }, `${this.endpoint}: eth_getBlockByNumber(${tag}): not a block object`);
    }
    return { number: BigInt(o.number), hash: fromHex(o.hash), parentHash: fromHex(o.parentHash) };
  }

  /** Fetches block `n` with full transactions and rebuilds it (hashes verified). */
  private async fetchBlock(n: bigint): Promise<Block> {
    const json = await this.client.call<unknown>("eth_getBlockByNumber", [quantity(n), true]);
    if (json === null) {
      throw new FollowInconsistentError(`${this.endpoint} has no block ${n}, though it announced a head at or above it`, {
        source: this.endpoint,
        block: n.toString(),
      });
    }
    return blockFromRpc(json, this.chain);
  }
}
