/**
 * Keeps the proofs store in step with the chain, in the proofs worker:
 *
 * - **init**: the baseline (every stored node of the head's state, version 0), then the window
 *   extended **backwards** one block at a time — block b's changed nodes come from the diff of
 *   the state tries of b−1 and b, read from the main store, which keeps every trie node — until
 *   the window is as long as configured or the chain's first block is reached. Each step is one
 *   atomic write, so a kill loses at most the step in flight and init resumes where it stopped.
 * - **forward**: each new canonical block's changed nodes, from the same diff (the nodes execution
 *   wrote; no re-execution, and the state root is the header's by construction). A head that does
 *   not extend the store's latest block (a reorg) first unwinds the store to the common ancestor.
 * - **prune**: the window's far end moves to `latest − window`, a bounded number of blocks per call.
 */
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { baselineOf } from "./baseline.js";
import { diffState, type NodeByHash } from "./trieDiff.js";
import type { ProofsStore } from "./store.js";
import type { BlockRef, NodeDelta, TrieRef } from "./types.js";
import { PROOFS_BASELINE_BATCH_NODES } from "../config/constants.js";

/** What a sync step did (for logs, metrics and tests). */
export interface SyncProgress {
  /** Blocks written forward (or unwound, as negative) in this call. */
  forward: number;
  unwound: number;
}

/** Runs init, forward sync, backfill and pruning against one store (single writer). */
export class ProofsSync {
  private readonly get: NodeByHash;

  constructor(
    private readonly chain: Chain,
    private readonly store: ProofsStore,
    private readonly window: bigint,
    private readonly log: Logger,
  ) {
    this.get = (hash) => {
      const v = chain.store.getTrieNode(hash);
      // A copy: the diff keeps the bytes (in deltas written later), and LMDB may hand out a reused buffer.
      return v === undefined ? undefined : new Uint8Array(v);
    };
  }

  private ref(number: bigint): BlockRef {
    const hash = this.chain.getCanonicalHash(number);
    if (hash === undefined) throw new Error(`canonical block ${number} is not in the main store`);
    return { number, hash };
  }

  private stateRoot(hash: Uint8Array): Uint8Array {
    const h = this.chain.getHeaderByHash(hash);
    if (h === undefined) throw new Error(`header of block 0x${Buffer.from(hash).toString("hex")} is not in the main store`);
    return h.stateRoot;
  }

  /**
   * The baseline at the current head (resuming an interrupted one). Does nothing on an
   * initialized store.
   */
  async initBaseline(onProgress: (nodes: number) => void = () => undefined): Promise<{ created: boolean; nodes: number }> {
    if (this.store.initialized) return { created: false, nodes: 0 };
    const head = this.chain.refreshHeadHeader();
    const resume = this.store.baselineProgress();
    let written = 0;
    await baselineOf(
      this.get,
      head.header.stateRoot,
      PROOFS_BASELINE_BATCH_NODES,
      async (nodes, lastAccount) => {
        await this.store.writeBaseline(
          nodes.map((n) => ({ trie: n.hashedAddress === undefined ? { kind: "account" as const } : { kind: "storage" as const, hashedAddress: n.hashedAddress }, path: n.path, node: n.node })),
          lastAccount ?? new Uint8Array(0),
        );
        written += nodes.length;
        onProgress(written);
      },
      resume !== undefined && resume.length > 0 ? resume : undefined,
    );
    await this.store.commitBaseline({ number: head.header.number, hash: head.hash });
    this.log.info({ block: head.header.number.toString(), nodes: written }, "proofs baseline written");
    return { created: true, nodes: written };
  }

  /** The oldest block the window should reach: `latest − window`, not below genesis (what {@link backfill} extends it to). */
  floor(): bigint {
    const latest = this.store.window().latest;
    if (latest === undefined) return 0n;
    const f = latest.number - this.window;
    return f > 0n ? f : 0n;
  }

  /** Extends the window backwards by up to `maxBlocks`; returns the blocks added (0 when done). */
  async backfill(maxBlocks: number): Promise<number> {
    let done = 0;
    for (; done < maxBlocks; done++) {
      const earliest = this.store.window().earliest;
      if (earliest === undefined || earliest.number <= this.floor()) break;
      const parent = this.ref(earliest.number - 1n);
      const d = diffState(this.get, this.stateRoot(parent.hash), this.stateRoot(earliest.hash));
      await this.store.stepBack(earliest.number, parent, deltasOf(d));
    }
    return done;
  }

  /** Writes canonical blocks after the store's latest, up to the chain's head (at most `maxBlocks`); unwinds first after a reorg. */
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
      const target = this.ref(n);
      const before = latest.number;
      await this.store.unwindTo(target);
      progress.unwound = Number(before - n);
      this.log.warn({ from: before.toString(), to: n.toString() }, "proofs store unwound after a reorg");
      latest = this.store.window().latest!;
    }
    while (progress.forward < maxBlocks && latest.number < head.header.number) {
      const next = this.ref(latest.number + 1n);
      const header = this.chain.getHeaderByHash(next.hash)!;
      const d = diffState(this.get, this.stateRoot(latest.hash), header.stateRoot);
      await this.store.writeBlock(next, header.parentHash, deltasOf(d).map((x) => ({ trie: x.trie, path: x.path, node: x.after })));
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
    const to = await this.store.pruneTo(this.ref(target), maxBlocks);
    return Number(to - w.earliest.number);
  }
}

function equalHash(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;
}

/** The state diff as store deltas (account trie first, then each storage trie). */
function deltasOf(d: ReturnType<typeof diffState>): NodeDelta[] {
  const out: NodeDelta[] = [];
  for (const x of d.account) out.push({ trie: { kind: "account" }, ...x });
  for (const s of d.storage) for (const x of s.deltas) out.push({ trie: { kind: "storage", hashedAddress: s.hashedAddress }, ...x });
  return out;
}
