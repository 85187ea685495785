/**
 * Keeps the proofs store in step with the chain, in the proofs worker (and `proofs init`):
 *
 * - **init**: the baseline (every hash-referenced node of one block's state, version 0:
 *   `./baseline.ts`), then the window extended **backwards** one block at a time until it is as
 *   long as configured, the chain's first block is reached, or the main store's state history
 *   ends (below its history floor a block's changes are no longer known: the extension stops
 *   there, said once, and the window grows forward from then on).
 * - **forward**: each new canonical block's changed nodes, from the block's changes in the main
 *   store (its change set; values at its end from the state history) applied to the proofs store's
 *   own tries at the window's latest block (`./stateStep.ts`); the result must be the header's
 *   state root. A head that does not extend the store's latest block (a reorg) first unwinds the
 *   store to the common ancestor.
 * - **backfill**: the same over block b backwards: its changes reverted (values at the end of
 *   b − 1) over the proofs store's tries at b, to the state root of b − 1; the nodes at b (what
 *   the update read) and at b − 1 (what it wrote) are the store's step back.
 * - **prune**: the window's far end moves to `latest − window`, a bounded number of blocks per call.
 *
 * Each step is one atomic write of the store, so a kill loses at most the step in flight and a
 * restart resumes where it stopped. No step re-executes a block, and every step is checked against
 * the header's state root before anything is written.
 */
import type { Logger } from "pino";
import type { ChainReader } from "../blockchain/chainReader.js";
import { baselineOf, decodeBaselineProgress, encodeBaselineProgress, unresumable, type BaselineProgress } from "./baseline.js";
import { readBlockChanges } from "./blockChanges.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { stepState, type StateStep } from "./stateStep.js";
import type { ProofsStats } from "./stats.js";
import type { ProofsStore } from "./store.js";
import type { BlockRef, TrieRef } from "./types.js";
import { PROOFS_BASELINE_BATCH_NODES } from "./constants.js";

/** What a sync step did (for logs, metrics and tests). */
interface SyncProgress {
  /** Blocks written forward (or unwound, as negative) in this call. */
  forward: number;
  unwound: number;
}

/** Options of {@link ProofsSync}. */
interface ProofsSyncOptions {
  /** The worker's shared counters: node reads and misses of the steps, the backfill's history stop. */
  stats?: ProofsStats;
  /** Nodes per baseline write (default {@link PROOFS_BASELINE_BATCH_NODES}). */
  baselineBatchNodes?: number;
}

/** Where the backward extension stopped for lack of the main store's state history. */
interface BackfillStop {
  /** The window's earliest block when it stopped. */
  earliest: bigint;
  /** The main store's history floor then: the lowest block whose state history it keeps. */
  historyFloor: bigint;
}

function equalHash(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;
}

/** Runs init, forward sync, backfill and pruning against one store (single writer). */
export class ProofsSync {
  private readonly stats: ProofsStats | undefined;
  private readonly batchNodes: number;
  private historyStop: BackfillStop | undefined;

  constructor(
    private readonly chain: ChainReader,
    private readonly store: ProofsStore,
    private readonly window: bigint,
    private readonly log: Logger,
    opts: ProofsSyncOptions = {},
  ) {
    this.stats = opts.stats;
    this.batchNodes = opts.baselineBatchNodes ?? PROOFS_BASELINE_BATCH_NODES;
  }

  private stateRoot(hash: Uint8Array): Uint8Array {
    const h = this.chain.getHeaderByHash(hash);
    if (h === undefined) throw new Error(`header of block 0x${Buffer.from(hash).toString("hex")} is not in the main store`);
    return h.stateRoot;
  }

  /** The store's reader of the tries at `block`, for a step's updates. */
  private readAt(block: bigint): (trie: TrieRef) => (path: Uint8Array) => Promise<Uint8Array | undefined> {
    return (trie) => (path) => this.store.node(trie, path, block);
  }

  private counted(step: StateStep): StateStep {
    this.stats?.inc("syncNodeReads", step.reads);
    if (step.misses > 0) this.stats?.inc("syncNodeMisses", step.misses);
    return step;
  }

  /**
   * The baseline at the current head, or the interrupted one finished at its own block. Does
   * nothing on an initialized store.
   * @throws ProofsError `PROOFS_BASELINE_UNRESUMABLE` when an interrupted baseline's state is gone
   *   from the main store (or its marker is an older basalt's, which names no block).
   */
  async initBaseline(onProgress: (nodes: number) => void = () => undefined): Promise<{ created: boolean; nodes: number }> {
    if (this.store.initialized) return { created: false, nodes: 0 };
    const marker = this.store.baselineProgress();
    let resume: BaselineProgress | undefined;
    if (marker !== undefined) {
      resume = decodeBaselineProgress(marker);
      if (resume === undefined) throw unresumable(this.store.dir, undefined, "its resume marker is an older basalt's, which does not say which block's state it holds");
    }
    let written = 0;
    const r = await baselineOf(
      this.chain,
      this.store.dir,
      this.batchNodes,
      async (nodes, progress) => {
        await this.store.writeBaseline(
          nodes.map((n) => ({ trie: n.hashedAddress === undefined ? { kind: "account" as const } : { kind: "storage" as const, hashedAddress: n.hashedAddress }, path: n.path, node: n.node })),
          encodeBaselineProgress(progress),
        );
        written += nodes.length;
        onProgress(written);
      },
      resume,
    );
    await this.store.commitBaseline({ number: r.block.number, hash: r.block.hash });
    this.log.info({ block: r.block.number.toString(), nodes: written, accounts: r.accounts, storageTries: r.storageTries, resumed: resume !== undefined }, "proofs baseline written");
    return { created: true, nodes: written };
  }

  /** The oldest block the window should reach: `latest − window`, not below genesis (what {@link backfill} extends it towards). */
  floor(): bigint {
    const latest = this.store.window().latest;
    if (latest === undefined) return 0n;
    const f = latest.number - this.window;
    return f > 0n ? f : 0n;
  }

  /**
   * The oldest block backfill can reach: {@link floor}, or the parent of the main store's history
   * floor when that is higher (stepping back over block b needs b's state history).
   */
  backfillTarget(): bigint {
    const history = this.chain.store.historyFloor();
    const reachable = history > 0n ? history - 1n : 0n;
    const f = this.floor();
    return reachable > f ? reachable : f;
  }

  /** Where the backward extension stopped for lack of the main store's state history (undefined: it did not). */
  backfillStop(): BackfillStop | undefined {
    return this.historyStop === undefined ? undefined : { ...this.historyStop };
  }

  /** Notes (once) that backfill cannot go below `earliest`: the main store keeps no history of it. */
  private stopAtHistory(earliest: bigint, historyFloor: bigint): void {
    if (this.historyStop !== undefined) return;
    this.historyStop = { earliest, historyFloor };
    this.stats?.inc("backfillHistoryStops");
    this.stats?.set("backfillStoppedAt", Number(earliest));
    this.log.info(
      { earliest: earliest.toString(), historyFloor: historyFloor.toString(), target: this.floor().toString() },
      "the proofs window's backward extension stops here: the main store keeps no state history of older blocks (--history.blocks; --archive keeps all); the window grows forward from now on",
    );
  }

  /** Extends the window backwards by up to `maxBlocks`; returns the blocks added (0 when done or stopped). */
  async backfill(maxBlocks: number): Promise<number> {
    let done = 0;
    for (; done < maxBlocks; done++) {
      const earliest = this.store.window().earliest;
      if (earliest === undefined) break;
      if (earliest.number <= this.floor()) {
        if (this.historyStop !== undefined) this.stats?.set("backfillStoppedAt", -1);
        this.historyStop = undefined;
        break;
      }
      const read = readBlockChanges(this.chain.store, earliest, "back");
      if (read.kind === "pruned") {
        this.stopAtHistory(earliest.number, read.floor);
        break;
      }
      // The window's earliest block is no longer canonical (a reorg below the window): nothing to extend from.
      if (read.kind === "reorged") break;
      const header = this.chain.getHeaderByHash(earliest.hash)!;
      const parentHash = this.chain.getCanonicalHash(earliest.number - 1n);
      if (parentHash === undefined || !equalHash(parentHash, header.parentHash)) break;
      const parent: BlockRef = { number: earliest.number - 1n, hash: parentHash };
      const step = this.counted(
        await stepState({ block: earliest.number, readAt: this.readAt(earliest.number), baseRoot: header.stateRoot, targetRoot: this.stateRoot(parentHash), changes: read.changes }),
      );
      // The step's result is the state at the parent (`before` the block), its base the state at the block (`after` it).
      await this.store.stepBack(
        earliest.number,
        parent,
        step.changes.map((c) => ({ trie: c.trie, path: c.path, before: c.result, after: c.base })),
      );
    }
    return done;
  }

  /**
   * Writes canonical blocks after the store's latest, up to the chain's head (at most `maxBlocks`);
   * unwinds first after a reorg.
   * @throws ProofsError `PROOFS_HISTORY_UNAVAILABLE` when the next block's changes are below the
   *   main store's history floor (the store fell further behind than the main store keeps history);
   *   `PROOFS_ROOT_MISMATCH` when a block's changes do not give its header's state root.
   */
  async forward(maxBlocks: number): Promise<SyncProgress> {
    const progress: SyncProgress = { forward: 0, unwound: 0 };
    const head = this.chain.refreshHeadHeader();
    let latest = this.store.window().latest;
    if (latest === undefined) return progress;
    // A reorg: the store's latest is no longer canonical (or is above the head): unwind to the common ancestor.
    if (latest.number > head.header.number || !equalHash(this.chain.getCanonicalHash(latest.number), latest.hash)) {
      const earliest = this.store.window().earliest!;
      let n = latest.number > head.header.number ? head.header.number : latest.number;
      while (n > earliest.number && !equalHash(await this.store.blockHash(n), this.chain.getCanonicalHash(n))) n--;
      const hash = this.chain.getCanonicalHash(n);
      if (hash === undefined) throw new Error(`canonical block ${n} is not in the main store`);
      const before = latest.number;
      await this.store.unwindTo({ number: n, hash });
      progress.unwound = Number(before - n);
      this.log.warn({ from: before.toString(), to: n.toString() }, "proofs store unwound after a reorg");
      latest = this.store.window().latest!;
    }
    while (progress.forward < maxBlocks && latest.number < head.header.number) {
      const number = latest.number + 1n;
      const hash = this.chain.getCanonicalHash(number);
      const header = hash === undefined ? undefined : this.chain.getHeaderByHash(hash);
      // The chain moved under us (a reorg under way): the next turn unwinds.
      if (hash === undefined || header === undefined || !equalHash(header.parentHash, latest.hash)) break;
      const next: BlockRef = { number, hash };
      const read = readBlockChanges(this.chain.store, next, "forward");
      if (read.kind === "reorged") break;
      if (read.kind === "pruned") {
        throw new ProofsError(
          { code: ProofsErrorCode.HISTORY_UNAVAILABLE, block: number.toString(), floor: read.floor.toString() },
          `the proofs store's latest block is ${latest.number}, but the main store keeps state history from block ${read.floor} only (--history.blocks; --archive keeps all): block ${number}'s changes are gone, so the store cannot follow the chain; keep more history, or remove the proofs store and initialize it again`,
        );
      }
      const step = this.counted(
        await stepState({ block: number, readAt: this.readAt(latest.number), baseRoot: this.stateRoot(latest.hash), targetRoot: header.stateRoot, changes: read.changes }),
      );
      await this.store.writeBlock(
        next,
        header.parentHash,
        step.changes.map((c) => ({ trie: c.trie, path: c.path, node: c.result })),
      );
      latest = next;
      progress.forward++;
    }
    return progress;
  }

  /** Moves the window's far end towards `latest − window` by at most `maxBlocks`; returns the blocks pruned. */
  async prune(maxBlocks: number): Promise<number> {
    const w = this.store.window();
    if (w.earliest === undefined || w.latest === undefined) return 0;
    const target = w.latest.number - this.window;
    if (target <= w.earliest.number) return 0;
    const hash = this.chain.getCanonicalHash(target);
    if (hash === undefined) throw new Error(`canonical block ${target} is not in the main store`);
    const to = await this.store.pruneTo({ number: target, hash }, maxBlocks);
    return Number(to - w.earliest.number);
  }
}
