/**
 * The batch submitter (`--batcher`; op-batcher's driver): posts the L2 chain to L1 so that any
 * node can derive it from L1 alone.
 *
 * Every `BATCHER_POLL_INTERVAL_MS` one round runs (rounds never overlap):
 * 1. the transaction manager reads the new L1 blocks (inclusions, confirmations, reorgs,
 *    resubmissions);
 * 2. the recovery rules below are checked;
 * 3. new L2 blocks are loaded in order from the cursor (the safe head + 1 at start), each checked
 *    to build on the one loaded before, into the open channel ({@link ChannelBuilder}); a full
 *    channel is closed and the block starts the next one; a channel open
 *    `--batcher.max-channel-duration` L1 blocks is closed;
 * 4. closed channels' frames are sent in order — the frames of a channel in order, channels in
 *    order, as Holocene's strict frame queue requires — at most `BATCHER_MAX_PENDING_TXS`
 *    transactions awaiting inclusion at once.
 *
 * Recovery (op-batcher's rules; every one starts over from the safe head + 1, dropping the open
 * channel and what was not confirmed — posting some blocks twice costs L1 data, never
 * correctness, since derivation skips batches it already has):
 * - an L2 reorg of blocks already loaded (`Chain.onHead` with reorged blocks below the cursor, or
 *   a block whose parent is not the block loaded before it);
 * - an L1 reorg that removes an included batcher transaction;
 * - the safe head going back (an L1 reorg under the safe chain, derivation rewinding): what was
 *   posted for the blocks after it, channels already forgotten included, may be gone from L1;
 * - a batcher transaction that failed (reverted; its nonce taken by another transaction);
 * - a channel whose frames were not all included within the channel timeout of its first
 *   (recovery.ts `channelTimedOut`);
 * - the channel following the safe head confirmed but its blocks not safe: once derivation read
 *   past its inclusion (`derivedL1`, when derivation runs here), else a channel timeout later and
 *   only once the safe head is seen to follow L1 (recovery.ts `safeHeadStalled`).
 * Channels are forgotten once the safe head covers them (or, while the safe head is not seen to
 * follow L1, once confirmed deeper than the L1 reorg window).
 *
 * {@link BatchSubmitter.flush} closes the open channel at once; {@link BatchSubmitter.stop} ends
 * the loop after the round in progress (its sends included); {@link BatchSubmitter.shutdown} does
 * both within `BATCHER_SHUTDOWN_MS`.
 */
import type { Block } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { HeadListener } from "../blockchain/chain.js";
import type { RollupConfig } from "../chain/op/rollupConfig.js";
import { BATCHER_MAX_BLOBS_PER_TX } from "../config/constants.js";
import { BATCHER_L1_REORG_WINDOW_BLOCKS, BATCHER_MAX_L2_BLOCKS_PER_ROUND, BATCHER_MAX_PENDING_TXS, BATCHER_POLL_INTERVAL_MS, BATCHER_SHUTDOWN_MS } from "./constants.js";
import type { JsonRpcClient } from "../util/rpcClient.js";
import { to0x } from "../util/bytes.js";
import { batchBlockOf, type BatchBlock } from "./batchBlock.js";
import { ChannelBuilder, type ChannelBuilderConfig, type ClosedChannel } from "./channelBuilder.js";
import { BatcherError, BatcherErrorCode } from "./errors.js";
import type { L1Header } from "./l1Heads.js";
import { batcherBlocksBatchedTotal, batcherChannelsClosedTotal, batcherChannelsOpenedTotal, batcherResetsTotal, batcherUnbatchedBlocks, type BatcherResetReason, type ChannelCloseReason } from "./metrics.js";
import { channelTimedOut, safeHeadStalled, type PostedChannel } from "./recovery.js";
import { TxManager, type ManagedTx } from "./txManager.js";
import { maxFrameBytesFor, targetFramesFor, txCandidatesOf, type BatcherDataKind, type TxCandidate } from "./txData.js";

/** What the batcher reads of the L2 chain (the `Chain` service implements it). */
interface BatcherChain {
  readonly head: Block;
  getBlockByNumber(n: bigint): Block | undefined;
  pointer(name: "safe"): Block | undefined;
  onHead(listener: HeadListener): () => void;
}

/** Options of {@link BatchSubmitter}. */
export interface BatchSubmitterOptions {
  chain: BatcherChain;
  rollup: RollupConfig;
  /** The L1 execution RPC (`--l1.rpc`). */
  l1: JsonRpcClient;
  /** The batcher's 32-byte private key (`--batcher.key`). */
  key: Uint8Array;
  /** `--batcher.data`. */
  data: BatcherDataKind;
  /** `--batcher.max-channel-duration`, L1 blocks (≥ 1, below the channel timeout). */
  maxChannelDuration: number;
  /** `--batcher.num-confirmations` (≥ 1). */
  numConfirmations: number;
  /** `--batcher.blobs-per-tx` (1 to 6). */
  blobsPerTx: number;
  logger: Logger;
  /** Where the safe head comes from (default `chain.pointer("safe")`, the genesis block when unset). */
  safeHead?: () => Block | undefined;
  /** Close `l1` on {@link BatchSubmitter.stop} (the batcher created it). */
  ownsL1?: boolean;
  /**
   * How far derivation on this node has read L1 (its sync status `current_l1` number), when it
   * runs here: the stall rule then fires as soon as derivation has read past a confirmed channel
   * whose blocks did not become safe (op-batcher's rule), instead of a channel timeout later.
   */
  derivedL1?: () => bigint | undefined;
}

/** A closed channel on its way to L1. */
interface PostingChannel {
  channel: ClosedChannel;
  /** The transactions it needs, in order. */
  candidates: TxCandidate[];
  /** Those sent so far (a prefix of `candidates`). */
  txs: ManagedTx[];
}

/** Where the batcher stands (tests, logs). */
interface BatcherState {
  /** The next L2 block to load. */
  nextBlock: bigint;
  /** The last L2 block put in a closed channel (the safe head after a start or reset). */
  lastBatched: bigint;
  /** Blocks in the open channel. */
  openBlocks: number;
  /** Closed channels not yet forgotten. */
  channels: number;
  /** Transactions of closed channels not yet sent. */
  unsentTxs: number;
  /** Transactions of closed channels not yet confirmed (sent or not). */
  unconfirmedTxs: number;
}

/** Whether `p` settled within `ms` (it is not cancelled either way). */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = await Promise.race([p.then(() => true), timeout]);
  clearTimeout(timer);
  return done;
}

/** Checks an option; the error names the flag. */
function invalid(option: string, value: unknown, message: string): BatcherError {
  return new BatcherError({ code: BatcherErrorCode.INVALID_OPTION, option, value: String(value) }, `--${option} ${String(value)}: ${message}`);
}

/** Posts L2 blocks to L1 (see the module comment). */
export class BatchSubmitter {
  /** Its transaction manager (L1 requests counted there). */
  readonly txManager: TxManager;
  private readonly log: Logger;
  private readonly builderConfig: ChannelBuilderConfig;
  private readonly chain: BatcherChain;
  private open: ChannelBuilder | undefined;
  private channels: PostingChannel[] = [];
  private nextBlock = 1n;
  private lastHash: Uint8Array = new Uint8Array(32);
  private lastBatched = 0n;
  /** Lowest L2 block number a head change reorganized away since the last round. */
  private l2ReorgFrom: bigint | undefined;
  private safeHash: Uint8Array | undefined;
  /** The safe head's number when `safeHash` was taken. */
  private safeNumber = 0n;
  private safeMovedAtL1 = 0n;
  private armed = false;
  private running: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private lastErrorMessage: string | undefined;

  constructor(private readonly opts: BatchSubmitterOptions) {
    const { rollup } = opts;
    const timeout = rollup.channelTimeoutGranite < rollup.channelTimeout ? rollup.channelTimeoutGranite : rollup.channelTimeout;
    if (!Number.isInteger(opts.maxChannelDuration) || opts.maxChannelDuration < 1 || BigInt(opts.maxChannelDuration) >= timeout) {
      throw invalid("batcher.max-channel-duration", opts.maxChannelDuration, `expected 1 to ${timeout - 1n} L1 blocks: a channel must close well within the channel timeout (${timeout} L1 blocks)`);
    }
    if (!Number.isInteger(opts.numConfirmations) || opts.numConfirmations < 1) throw invalid("batcher.num-confirmations", opts.numConfirmations, "expected at least 1");
    if (!Number.isInteger(opts.blobsPerTx) || opts.blobsPerTx < 1 || opts.blobsPerTx > BATCHER_MAX_BLOBS_PER_TX) {
      throw invalid("batcher.blobs-per-tx", opts.blobsPerTx, `expected 1 to ${BATCHER_MAX_BLOBS_PER_TX}`);
    }
    this.chain = opts.chain;
    this.log = opts.logger.child({ subsystem: "batcher" });
    this.builderConfig = { rollup, maxFrameBytes: maxFrameBytesFor(opts.data), targetFrames: targetFramesFor(opts.data, opts.blobsPerTx), maxDuration: BigInt(opts.maxChannelDuration) };
    this.txManager = new TxManager(opts.l1, { key: opts.key, l1ChainId: rollup.l1ChainId, inbox: rollup.batchInboxAddress, numConfirmations: opts.numConfirmations, logger: this.log });
  }

  /** The batcher's address (0x-hex). */
  get address(): string {
    return this.txManager.address;
  }

  /** Where the batcher stands. */
  get state(): BatcherState {
    let unsentTxs = 0;
    let unconfirmedTxs = 0;
    for (const c of this.channels) {
      unsentTxs += c.candidates.length - c.txs.length;
      unconfirmedTxs += c.candidates.length - c.txs.filter((t) => t.status === "confirmed").length;
    }
    return { nextBlock: this.nextBlock, lastBatched: this.lastBatched, openBlocks: this.open?.blockCount ?? 0, channels: this.channels.length, unsentTxs, unconfirmedTxs };
  }

  /** The safe head, or the genesis block when none is set. */
  private safeBlock(): Block {
    const safe = this.opts.safeHead !== undefined ? this.opts.safeHead() : this.chain.pointer("safe");
    return safe ?? this.chain.getBlockByNumber(0n)!;
  }

  /**
   * Checks the L1 (chain id), reads its head, starts from the safe head + 1 and follows head
   * changes. Does not start the loop: {@link start} does; tests drive {@link step} themselves.
   */
  async init(): Promise<void> {
    await this.txManager.start();
    const safe = this.safeBlock();
    this.armed = safe.header.number > 0n;
    this.restartAt(safe);
    this.unsubscribe = this.chain.onHead((_head, reorged) => {
      for (const b of reorged) if (this.l2ReorgFrom === undefined || b.header.number < this.l2ReorgFrom) this.l2ReorgFrom = b.header.number;
    });
  }

  /** {@link init}, then a round every `BATCHER_POLL_INTERVAL_MS` until {@link stop}. */
  async start(): Promise<void> {
    await this.init();
    this.log.info({ address: this.address, inbox: this.opts.rollup.batchInboxAddress, data: this.opts.data, from: this.nextBlock.toString(), l1: this.opts.l1.endpoint }, "batcher started");
    const tick = async (): Promise<void> => {
      if (this.stopped) return;
      await this.step();
      if (!this.stopped) this.timer = setTimeout(() => void tick(), BATCHER_POLL_INTERVAL_MS);
    };
    this.timer = setTimeout(() => void tick(), 0);
  }

  /** Runs `fn` after the round in progress (rounds, flushes and stops never overlap). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.running.then(fn);
    this.running = next.catch(() => undefined);
    return next;
  }

  /** One round (see the module comment). Errors are logged (once while they repeat) and the next round tries again. */
  step(): Promise<void> {
    return this.serial(async () => {
      try {
        await this.round();
        this.lastErrorMessage = undefined;
      } catch (e) {
        const message = (e as Error).message;
        if (message !== this.lastErrorMessage) this.log.error({ err: e }, "batcher round failed; retrying");
        this.lastErrorMessage = message;
      }
    });
  }

  /** Closes the open channel now and sends what is queued (tests, shutdown). */
  flush(): Promise<void> {
    return this.serial(async () => {
      if (this.open !== undefined && this.open.blockCount > 0) await this.closeOpen("flush", this.txManager.l1Head.number);
      await this.sendQueued();
    });
  }

  /**
   * Ends the loop: returns once the round in progress (its sends included) is over, or after
   * `BATCHER_SHUTDOWN_MS`, when the L1 client the batcher owns is closed, cutting its requests off.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const finished = await within(this.running, BATCHER_SHUTDOWN_MS);
    if (this.opts.ownsL1 === true) this.opts.l1.close();
    if (!finished) await this.running;
  }

  /** The node's shutdown: {@link flush} (for at most `BATCHER_SHUTDOWN_MS`), then {@link stop}. */
  async shutdown(): Promise<void> {
    await within(this.flush().catch(() => undefined), BATCHER_SHUTDOWN_MS);
    await this.stop();
  }

  private async round(): Promise<void> {
    const poll = await this.txManager.poll();
    const head = poll.head;
    if (poll.failed.length > 0) return this.reset("tx_failed", head, { nonce: poll.failed[0]!.nonce.toString(), error: poll.failed[0]!.lastError });
    if (poll.reorged.length > 0) return this.reset("l1_reorg", head, { nonce: poll.reorged[0]!.nonce.toString() });
    if (this.l2ReorgFrom !== undefined) {
      const from = this.l2ReorgFrom;
      this.l2ReorgFrom = undefined;
      if (from < this.nextBlock) return this.reset("l2_reorg", head, { from: from.toString() });
    }
    for (const c of this.channels) {
      if (channelTimedOut(this.posted(c), head.number, head.timestamp, this.opts.rollup)) return this.reset("channel_timeout", head, { channel: to0x(c.channel.id) });
    }
    if (this.followSafeHead(head)) return;
    if (!(await this.loadBlocks(head))) return;
    if (this.open?.isDue(head.number)) await this.closeOpen("duration", head.number);
    await this.sendQueued();
    batcherUnbatchedBlocks.set(Number(this.chain.head.header.number - this.lastBatched));
  }

  /** A channel as the recovery rules see it. */
  private posted(c: PostingChannel): PostedChannel {
    return {
      inclusions: c.candidates.map((_, i) => c.txs[i]?.inclusion),
      lastBlock: c.channel.blocks[c.channel.blocks.length - 1]!.number,
      confirmed: c.txs.length === c.candidates.length && c.txs.every((t) => t.status === "confirmed"),
    };
  }

  /**
   * Notes safe-head moves, forgets channels it covers, jumps past it when it passed the cursor,
   * and applies the stall rule. True when the batcher started over.
   */
  private followSafeHead(head: L1Header): boolean {
    const safe = this.safeBlock();
    const safeNumber = safe.header.number;
    if (this.safeHash === undefined || !equalsBytes(this.safeHash, safe.hash())) {
      // The safe head went back (an L1 reorg under the safe chain): batches already forgotten may be gone from L1, and
      // the transactions sent after them wait behind their nonces. Start over from the new safe head.
      if (this.safeHash !== undefined && safeNumber < this.safeNumber) {
        this.reset("safe_head_reorg", head, { was: this.safeNumber.toString() });
        return true;
      }
      if (this.safeHash !== undefined) this.armed = true;
      this.safeHash = safe.hash();
      this.safeNumber = safeNumber;
      this.safeMovedAtL1 = head.number;
    }
    const keep: PostingChannel[] = [];
    for (const c of this.channels) {
      const p = this.posted(c);
      const deep = p.confirmed && p.inclusions.every((i) => i !== undefined && i.number + BigInt(BATCHER_L1_REORG_WINDOW_BLOCKS) < head.number);
      if (p.confirmed && (p.lastBlock <= safeNumber || (!this.armed && deep))) this.txManager.forget(c.txs);
      else keep.push(c);
    }
    this.channels = keep;
    if (safeNumber >= this.nextBlock) {
      // Derivation is ahead of the batcher (another batcher's data, or a restart): nothing loaded is needed.
      this.log.debug({ safe: safeNumber.toString(), next: this.nextBlock.toString() }, "batcher: the safe head passed the blocks loaded; continuing after it");
      this.txManager.abandonAll();
      this.restartAt(safe);
      this.safeMovedAtL1 = head.number;
      return true;
    }
    const derivedL1 = this.opts.derivedL1?.();
    const view = { armed: this.armed, safe: safeNumber, safeMovedAtL1: this.safeMovedAtL1, channels: this.channels.map((c) => this.posted(c)), l1Head: head.number, l1Time: head.timestamp, ...(derivedL1 === undefined ? {} : { derivedL1 }) };
    if (safeHeadStalled(view, this.opts.rollup)) {
      this.reset("safe_head_stalled", head, { safe: safeNumber.toString() });
      return true;
    }
    return false;
  }

  /** Forgets every channel and the open one; the next block to load is the one after `safe`. */
  private restartAt(safe: Block): void {
    this.open = undefined;
    this.channels = [];
    this.nextBlock = safe.header.number + 1n;
    this.lastHash = safe.hash();
    this.lastBatched = safe.header.number;
    this.safeHash = safe.hash();
    this.safeNumber = safe.header.number;
  }

  /** Starts over from the safe head + 1 (see the module comment), with a warning naming why. */
  private reset(reason: BatcherResetReason, head: L1Header, detail: Record<string, unknown>): void {
    batcherResetsTotal.inc({ reason });
    this.txManager.abandonAll();
    const safe = this.safeBlock();
    this.log.warn({ reason, ...detail, safe: safe.header.number.toString(), l1Head: head.number.toString() }, "batcher starting over from the safe head");
    this.restartAt(safe);
    this.safeMovedAtL1 = head.number;
  }

  /** Loads the new L2 blocks into channels. False when a block does not build on the one before (the batcher started over). */
  private async loadBlocks(head: L1Header): Promise<boolean> {
    const l2Head = this.chain.head.header.number;
    for (let loaded = 0; this.nextBlock <= l2Head && loaded < BATCHER_MAX_L2_BLOCKS_PER_ROUND; loaded++) {
      const block = this.chain.getBlockByNumber(this.nextBlock);
      if (block === undefined) break;
      if (!equalsBytes(block.header.parentHash, this.lastHash)) {
        this.reset("l2_reorg", head, { block: this.nextBlock.toString() });
        return false;
      }
      await this.addBlock(batchBlockOf(block), head.number);
      this.lastHash = block.hash();
      this.nextBlock++;
    }
    return true;
  }

  /** Puts `b` in the open channel (opening one), closing it first when `b` does not fit. */
  private async addBlock(b: BatchBlock, l1Head: bigint): Promise<void> {
    if (this.open === undefined) {
      this.open = new ChannelBuilder(this.builderConfig, l1Head);
      batcherChannelsOpenedTotal.inc();
    }
    if (!(await this.open.add(b))) {
      await this.closeOpen("full", l1Head);
      return this.addBlock(b, l1Head);
    }
    if (this.open.isFull) await this.closeOpen("full", l1Head);
  }

  /** Closes the open channel and queues its transactions; blocks it hands back start the next channel. */
  private async closeOpen(reason: ChannelCloseReason, l1Head: bigint): Promise<void> {
    const builder = this.open!;
    this.open = undefined;
    const { channel, leftover } = await builder.close(reason);
    const candidates = txCandidatesOf(channel.frames, this.opts.data, this.opts.blobsPerTx);
    this.channels.push({ channel, candidates, txs: [] });
    const last = channel.blocks[channel.blocks.length - 1]!;
    this.lastBatched = last.number;
    batcherChannelsClosedTotal.inc({ reason });
    batcherBlocksBatchedTotal.inc(channel.blocks.length);
    this.log.debug(
      { channel: to0x(channel.id), reason, blocks: `${channel.blocks[0]!.number}-${last.number}`, compressedBytes: channel.compressedBytes, frames: channel.frames.length, txs: candidates.length },
      "batcher channel closed",
    );
    for (const b of leftover) await this.addBlock(b, l1Head);
  }

  /** Sends the queued transactions in order while fewer than `BATCHER_MAX_PENDING_TXS` await inclusion. */
  private async sendQueued(): Promise<void> {
    for (const c of this.channels) {
      while (c.txs.length < c.candidates.length) {
        if (this.txManager.inFlight >= BATCHER_MAX_PENDING_TXS) return;
        c.txs.push(await this.txManager.send(c.candidates[c.txs.length]!));
      }
    }
  }
}
