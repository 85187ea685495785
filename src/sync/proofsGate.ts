/**
 * Follow mode's proofs gate (`--follow-rpc` with `--historical-proofs`): the follower imports a
 * block only while it is at most `--proofs.max-blocks-ahead` blocks above the proofs store's
 * latest block, as Base's consensus does in follow mode (target = min(source head,
 * proofs.latest + 512); reference proofs-and-sync §1.8). The store is then never left far
 * behind the chain, and follow mode never outruns a store that is still being built.
 *
 * sync does not import proofs (same layer): what the gate needs of the store is
 * {@link ProofsProgress}, which the CLI builds over the proofs service.
 */
import type { Logger } from "pino";
import { followGatedTotal, followGateHeldBlocks } from "./metrics.js";

/** The proofs store's progress as follow mode sees it (built by the CLI over the proofs service). */
export interface ProofsProgress {
  /** The store's latest block; null while it initializes (no baseline written yet). */
  latest(): bigint | null;
  /** False once the store's writer has stopped for good (a store fault, or its worker exited): the window will not move again. */
  writing(): boolean;
  /** Calls `listener` whenever the store's latest block may have moved or its writer stopped; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/** Options of the gate (`FollowerOptions.proofs`). */
export interface ProofsGateOptions {
  progress: ProofsProgress;
  /** Most blocks imported beyond the store's latest block (`--proofs.max-blocks-ahead`). */
  maxBlocksAhead: number;
}

/** The gate: which block follow mode may import next, and whether it is held (metric, debug logs). */
export class ProofsGate {
  private readonly progress: ProofsProgress;
  private readonly maxAhead: bigint;
  /** The local head when the gate first saw a store without a baseline (see {@link limit}). */
  private initHead: bigint | undefined;
  private holding = false;
  private warnedStopped = false;

  constructor(opts: ProofsGateOptions, private readonly log: Logger) {
    this.progress = opts.progress;
    this.maxAhead = BigInt(opts.maxBlocksAhead);
  }

  /** Whether the last check refused a block and no round has reached its target since. */
  get held(): boolean {
    return this.holding;
  }

  /**
   * The highest block follow mode may import now, given the local head; undefined when the gate
   * is lifted because the store's writer stopped (its window will not move again, and holding
   * the chain would stop the node; `eth_getProof` above the window answers from the main store).
   */
  limit(localHead: bigint): bigint | undefined {
    if (!this.progress.writing()) {
      if (!this.warnedStopped) {
        this.warnedStopped = true;
        this.log.warn({ head: localHead.toString() }, "the proofs store's writer stopped: follow mode no longer waits for it");
      }
      return undefined;
    }
    const latest = this.progress.latest();
    if (latest !== null) return latest + this.maxAhead;
    // No baseline yet: the store is initializing. Its baseline is the head when the proofs worker
    // started, which is the local head when following starts (the worker starts first and nothing
    // else imports in between), and it reaches forward from there before it backfills. Gating on
    // that head (Base gates on `(latest ?? 0) + 512`, which on a long chain would stop at once)
    // lets the follower run `maxAhead` blocks while the baseline is written, never further, and
    // cannot deadlock: once the baseline is committed `latest` is set and only moves forward.
    this.initHead ??= localHead;
    return this.initHead + this.maxAhead;
  }

  /**
   * Whether block `next` may be imported now. A refusal starts a held period (counted, logged at
   * debug) and sets the held-back gauge to `sourceHead` minus the limit.
   */
  admits(next: bigint, localHead: bigint, sourceHead: bigint): boolean {
    const limit = this.limit(localHead);
    if (limit === undefined || next <= limit) return true;
    followGateHeldBlocks.set(Number(sourceHead - limit));
    if (!this.holding) {
      this.holding = true;
      followGatedTotal.inc();
      const latest = this.progress.latest();
      this.log.debug(
        { next: next.toString(), limit: limit.toString(), proofsLatest: latest === null ? null : latest.toString(), sourceHead: sourceHead.toString() },
        "follow mode waits for the historical proofs store",
      );
    }
    return false;
  }

  /** Whether a held follower can move again (the limit is above `localHead`, or the gate was lifted). */
  opensAbove(localHead: bigint): boolean {
    const limit = this.limit(localHead);
    return limit === undefined || limit > localHead;
  }

  /** A round reached its target without being held: ends the held period (logged at debug). */
  release(localHead: bigint): void {
    if (!this.holding) return;
    this.holding = false;
    followGateHeldBlocks.set(0);
    this.log.debug({ head: localHead.toString() }, "follow mode no longer waits for the historical proofs store");
  }

  /** Registers `listener` for changes of the store's progress; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.progress.onChange(listener);
  }
}
