/**
 * Imports unsafe blocks that arrived over gossip (the P2P thread has already validated the
 * message: signature of the unsafe block signer, payload hash, timestamp window) into the chain,
 * on the same path as follow mode and the Engine API: the block is rebuilt, executed and verified
 * (state root, receipts, …) before it becomes the head.
 *
 * - A child of the head extends it.
 * - A block on another branch whose fork point is at or above the safe head becomes the head (the
 *   sequencer reorganized its unsafe tip; op-node's engine makes the newest gossip block the
 *   unsafe head the same way). Nothing at or below the safe head is ever replaced.
 * - A block whose parent is missing is held ({@link GOSSIP_IMPORT_MAX_BUFFERED_BLOCKS}) and the gap
 *   is closed backwards from it: each missing block is asked for by number from peers (req/resp
 *   `payload_by_number`) and accepted only when its hash is the parent hash the next block commits
 *   to, so the unsigned answers are bound to the signed gossip block. Another source (follow mode,
 *   derivation) closing the gap first also releases the held blocks.
 *
 * One block is handled at a time, in arrival order.
 */
import type { Block } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { GOSSIP_GAP_FETCH_MAX_BLOCKS, GOSSIP_IMPORT_MAX_BUFFERED_BLOCKS } from "./constants.js";
import { to0x } from "../util/bytes.js";
import { blocksFirstSeenTotal, gapFetchBlocksTotal, gossipBufferedBlocks, gossipImportBlocksTotal, gossipImportSeconds, type GossipImportOutcome } from "./importMetrics.js";

/** A block message that passed gossip validation on the P2P thread. */
interface GossipBlockIn {
  /** Blocks topic version (1–4). */
  version: number;
  /** The signed bytes: the SSZ execution payload (v1, v2) or payload envelope (v3, v4). */
  payloadBytes: Uint8Array;
  /** Peer that delivered it. */
  from: string;
  /** When the P2P thread received it (ms since the epoch). */
  receivedAtMs: number;
}

/** A payload fetched by number from a peer: not signed, checked against the hash chain. */
export interface FetchedPayload {
  version: number;
  payloadBytes: Uint8Array;
}

/** Options of a {@link GossipImporter}. */
interface GossipImporterOptions {
  /** Rebuilds a block from its payload bytes (throws when they do not make a valid block). */
  toBlock(version: number, payloadBytes: Uint8Array): Promise<Block>;
  /** Asks peers for the canonical payload at a height (req/resp); undefined when none has it. */
  fetchByNumber?(n: bigint): Promise<FetchedPayload | undefined>;
  logger: Logger;
}

interface Held {
  block: Block;
  receivedAtMs: number;
}

/** See the module comment. */
export class GossipImporter {
  private work: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Held blocks by hash (parent missing). */
  private readonly held = new Map<string, Held>();
  private closingGap = false;
  private readonly offHead: () => void;
  private readonly log: Logger;
  /** Blocks committed from gossip (for tests and status). */
  imported = 0;

  constructor(
    private readonly chain: Chain,
    private readonly opts: GossipImporterOptions,
  ) {
    this.log = opts.logger.child({ subsystem: "p2p" });
    // Another source (follow mode, derivation) may supply a held block's parent.
    this.offHead = chain.onHead(() => {
      if (this.held.size > 0 && !this.closingGap) this.enqueue(() => this.releaseHeld());
    });
  }

  /** Queues a validated gossip block for import. */
  receive(msg: GossipBlockIn): void {
    if (this.stopped) return;
    this.enqueue(() => this.handle(msg));
  }

  /** Finishes the block in hand and stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.offHead();
    await this.work;
    this.held.clear();
    gossipBufferedBlocks.set(0);
  }

  /** Number of held blocks (parent missing). */
  heldCount(): number {
    return this.held.size;
  }

  private enqueue(task: () => Promise<void>): void {
    this.work = this.work.then(async () => {
      if (this.stopped) return;
      try {
        await task();
      } catch (e) {
        this.log.warn({ err: e }, "gossip block import failed");
      }
    });
  }

  private count(outcome: GossipImportOutcome): void {
    gossipImportBlocksTotal.inc({ outcome });
  }

  private async handle(msg: GossipBlockIn): Promise<void> {
    let block: Block;
    try {
      block = await this.opts.toBlock(msg.version, msg.payloadBytes);
    } catch (e) {
      this.count("invalid");
      this.log.debug({ err: e, from: msg.from }, "gossip payload does not rebuild into a block");
      return;
    }
    const hash = block.hash();
    if (this.chain.store.hasBlock(hash)) {
      blocksFirstSeenTotal.inc({ source: "other" });
      // Stored but off the canonical chain (a branch reorganized away, now gossiped again): it may become the head again.
      if (this.chain.isCanonical(hash)) {
        this.count("known");
        return;
      }
    } else {
      blocksFirstSeenTotal.inc({ source: "p2p" });
    }
    await this.place({ block, receivedAtMs: msg.receivedAtMs });
    await this.releaseHeld();
  }

  /** Imports a block whose parent may or may not be known; holds it (and closes the gap) otherwise. */
  private async place(h: Held): Promise<void> {
    const { block } = h;
    if (block.header.number <= this.safeNumber()) {
      this.count("stale");
      return;
    }
    if (this.chain.getHeaderByHash(block.header.parentHash) === undefined) {
      this.hold(h);
      void this.closeGap(h);
      return;
    }
    await this.importKnownParent(h);
  }

  private safeNumber(): bigint {
    return this.chain.pointer("safe")?.header.number ?? 0n;
  }

  /** Parent stored: extend the head, or move the head to the block's branch above the safe head. */
  private async importKnownParent(h: Held): Promise<boolean> {
    const { block } = h;
    const hash = block.hash();
    if (this.chain.store.hasBlock(hash) && this.chain.isCanonical(hash)) {
      this.count("known");
      return true;
    }
    try {
      if (equalsBytes(block.header.parentHash, this.chain.headHash)) {
        await this.chain.importBlock(block);
        this.count("imported");
      } else {
        const fork = this.forkPoint(block.header.parentHash);
        if (fork === undefined || fork < this.safeNumber()) {
          this.count("stale");
          this.log.debug({ number: block.header.number.toString(), hash: to0x(hash) }, "gossip block branches off below the safe head: ignored");
          return false;
        }
        await this.chain.insertBlock(block);
        await this.chain.setHead(hash);
        this.count("reorged");
        this.log.debug({ number: block.header.number.toString(), hash: to0x(hash), fork: fork.toString() }, "unsafe head moved to the gossip block's branch");
      }
    } catch (e) {
      this.count("invalid");
      this.log.warn({ err: e, number: block.header.number.toString(), hash: to0x(hash) }, "gossip block rejected by execution");
      return false;
    }
    this.imported++;
    gossipImportSeconds.observe(Math.max(0, Date.now() - h.receivedAtMs) / 1000);
    this.log.debug({ number: block.header.number.toString(), hash: to0x(hash), txs: block.transactions.length }, "gossip block imported");
    return true;
  }

  /** Number of the newest canonical ancestor of `hash` (undefined when the branch is not stored down to the canonical chain). */
  private forkPoint(hash: Uint8Array): bigint | undefined {
    let cur = this.chain.getHeaderByHash(hash);
    while (cur !== undefined) {
      const h = cur.hash();
      if (this.chain.isCanonical(h)) return cur.number;
      cur = this.chain.getHeaderByHash(cur.parentHash);
    }
    return undefined;
  }

  private hold(h: Held): void {
    const key = to0x(h.block.hash());
    if (this.held.has(key)) return;
    this.held.set(key, h);
    this.count("buffered");
    while (this.held.size > GOSSIP_IMPORT_MAX_BUFFERED_BLOCKS) {
      // The oldest by number goes first: the newest blocks are the ones the head is heading to.
      let oldest: string | undefined;
      let min: bigint | undefined;
      for (const [k, v] of this.held) {
        if (min === undefined || v.block.header.number < min) {
          min = v.block.header.number;
          oldest = k;
        }
      }
      this.held.delete(oldest!);
      this.count("dropped");
    }
    gossipBufferedBlocks.set(this.held.size);
  }

  /** Imports every held block whose parent is now stored, lowest first, until none moves. */
  private async releaseHeld(): Promise<void> {
    for (;;) {
      const ready = [...this.held.values()]
        .filter((h) => this.chain.getHeaderByHash(h.block.header.parentHash) !== undefined)
        .sort((a, b) => (a.block.header.number < b.block.header.number ? -1 : 1));
      if (ready.length === 0) break;
      for (const h of ready) {
        this.held.delete(to0x(h.block.hash()));
        if (h.block.header.number <= this.safeNumber()) this.count("stale");
        else await this.importKnownParent(h);
      }
    }
    gossipBufferedBlocks.set(this.held.size);
  }

  /**
   * Walks back from a held block: asks peers for each missing ancestor by number, keeps it only when
   * it hashes to the parent hash its child names, until an ancestor's parent is stored; then imports
   * the fetched blocks in order and releases the held ones.
   */
  private async closeGap(from: Held): Promise<void> {
    const fetch = this.opts.fetchByNumber;
    if (fetch === undefined || this.closingGap) return;
    this.closingGap = true;
    try {
      const fetched: Block[] = [];
      let expected = from.block.header.parentHash;
      let n = from.block.header.number - 1n;
      while (!this.stopped && fetched.length < GOSSIP_GAP_FETCH_MAX_BLOCKS && n > this.safeNumber()) {
        if (this.chain.getHeaderByHash(expected) !== undefined) break;
        const got = await fetch(n).catch(() => undefined);
        if (got === undefined) {
          gapFetchBlocksTotal.inc({ result: "missing" });
          return;
        }
        let block: Block;
        try {
          block = await this.opts.toBlock(got.version, got.payloadBytes);
        } catch {
          gapFetchBlocksTotal.inc({ result: "invalid" });
          return;
        }
        if (!equalsBytes(block.hash(), expected)) {
          // Another branch than the signed block's: a peer's answer that does not fit.
          gapFetchBlocksTotal.inc({ result: "mismatch" });
          return;
        }
        gapFetchBlocksTotal.inc({ result: "ok" });
        fetched.unshift(block);
        expected = block.header.parentHash;
        n--;
      }
      if (this.chain.getHeaderByHash(expected) === undefined) return;
      this.enqueue(async () => {
        for (const block of fetched) {
          if (!(await this.importKnownParent({ block, receivedAtMs: Date.now() }))) break;
        }
        await this.releaseHeld();
      });
    } finally {
      this.closingGap = false;
    }
  }
}
