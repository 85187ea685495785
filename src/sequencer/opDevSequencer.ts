/**
 * The OP sequencer of basalt's chains: seals a block every block time the way an OP Stack
 * sequencer does — the L1-attributes deposit first, then the user deposits of a new L1 origin,
 * then mempool transactions — through the same payload-attributes path as the Engine API.
 *
 * Its L1 is an {@link L1OriginSource}: the built-in devnet's simulated L1 by default
 * (`simulatedL1.ts`: each block at the wall clock's second, deposits from `dev_sendDeposit`), or a
 * real L1 (`l1RpcOrigins.ts`, a custom chain with `--rollup.config` and `--l1.rpc`), which fixes
 * the block times: block `n` has timestamp `genesis.l2_time + n × block_time` exactly, and is
 * committed no earlier than that time (the sequencer waits for it, and catches up at once when
 * behind). A source may answer that no block can be built yet (a real L1 reorganized under the
 * origin): the sequencer then tries again after {@link SEQUENCER_L1_WAIT_RETRY_MS}.
 *
 * With flashblocks (an interval > 0 and a block time > 0) each block is built the way Base's
 * builder does it, as a {@link BlockSession}: opened at the block start, flashblock 0 (the block
 * environment and the forced transactions) published at once, then every `intervalMs` the pool
 * transactions that arrived published as the next flashblock (even when none did), up to index
 * `min(floor(blockTime / interval) − 1, MAX_FLASHBLOCKS_PER_PAYLOAD − 1)`; the block is sealed at
 * the block time with exactly the transactions of its flashblocks, committed, and the next
 * block's session opened at once. With fixed block times the block at timestamp T is open from
 * T − block time to T. Without flashblocks a block is built in one go at the block time
 * (`buildOpOnHead`).
 */
import { equalsBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { Block } from "@ethereumjs/block";
import type { Chain, ExecutedBlock } from "../blockchain/chain.js";
import type { DepositTransaction } from "../chain/op/depositTx.js";
import { DEV_PRODUCTION_RETRY_MAX_MS, SEQUENCER_L1_WAIT_RETRY_MS } from "./constants.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";
import { MAX_FLASHBLOCKS_PER_PAYLOAD, type FlashblockId, type FlashblocksPayloadV1 } from "../flashblocks/codec.js";
import { flashblocksBuildSeconds } from "../flashblocks/metrics.js";
import type { TxPool } from "../txpool/txpool.js";
import { TypedError } from "../util/errors.js";
import { to0x } from "../util/bytes.js";
import { BlockSession } from "./blockSession.js";
import { FaultLog } from "./faultLog.js";
import type { L1OriginSource, PlannedBlock } from "./l1Origins.js";
import { SerialQueue } from "./serialQueue.js";
import { sequencerDepositsIncludedTotal, sequencerL1OriginNumber, sequencerPastDriftBlocksTotal, sequencerProductionFailuresTotal } from "./metrics.js";
import { SimulatedL1Origins, type DevDepositRequest } from "./simulatedL1.js";
import { buildOpOnHead } from "../blockchain/opBuilder.js";
import { poolSource } from "../txpool/poolSource.js";

export { devL1BlockHash } from "./simulatedL1.js";

/** Where the sequencer's flashblocks go (the devnet's `FlashblocksPublisher`). Must not throw. */
interface FlashblockSink {
  publish(p: FlashblocksPayloadV1): void;
}

/** Options of {@link OpDevSequencer}. */
interface OpDevSequencerOptions {
  /** Build blocks as flashblocks: `intervalMs` between flashblocks (0 = off), published to `sink`. */
  flashblocks?: { intervalMs: number; sink: FlashblockSink };
  /**
   * Where L1 origins come from (`--sequencer` on a custom chain: an `L1RpcOrigins`); default the
   * devnet's simulated L1. A source with a block time overrides the `blockTimeS` argument.
   */
  l1?: L1OriginSource;
  /** Called with every block this sequencer seals, once it is the head (P2P publishes it to gossip). */
  onSealed?: (block: Block) => void;
}

/** A block whose session is open (flashblocks mode). */
interface OpenBlock extends PlannedBlock {
  session: BlockSession;
  /** `performance.now()` of the block start: flashblock `i` is due at `openedAt + i × interval`. */
  openedAt: number;
  /** `performance.now()` at which the block is sealed (`openedAt` + block time). */
  sealAt: number;
}

/** Stable code of {@link DevSequencerStaleHeadError}. */
const DevSequencerStaleHeadErrorCode = { SEQUENCER_STALE_HEAD: "DEV_SEQUENCER_STALE_HEAD" } as const;
/** A {@link DevSequencerStaleHeadError}'s code with its metadata. */
type DevSequencerStaleHeadErrorType = { code: typeof DevSequencerStaleHeadErrorCode.SEQUENCER_STALE_HEAD; number: string };

/** The head changed under an open block session (another writer committed a block). */
export class DevSequencerStaleHeadError extends TypedError<DevSequencerStaleHeadErrorType> {
  constructor(number: bigint) {
    const message = `block ${number} was being built on a parent that is no longer the head; abandoning it`;
    super({ code: DevSequencerStaleHeadErrorCode.SEQUENCER_STALE_HEAD, number: number.toString() }, message);
  }
}

/** Stable codes of {@link SequencerL1Error}. */
const SequencerL1ErrorCode = {
  /** Simulated-L1 operations (`dev_sendDeposit`, previewing attributes) on a sequencer whose L1 is real. */
  NOT_SIMULATED: "SEQUENCER_L1_NOT_SIMULATED",
  /** The L1 gives no origin to build the next block on now (it reorganized under the head's origin). */
  NO_ORIGIN: "SEQUENCER_L1_NO_ORIGIN",
} as const;
/** One of the {@link SequencerL1ErrorCode} values. */
type SequencerL1ErrorCodeT = (typeof SequencerL1ErrorCode)[keyof typeof SequencerL1ErrorCode];

/** A {@link SequencerL1Error}'s code with its metadata. */
type SequencerL1ErrorType = { code: SequencerL1ErrorCodeT; head: string };

/** An operation the sequencer's L1 cannot serve. */
export class SequencerL1Error extends TypedError<SequencerL1ErrorType> {
  constructor(code: SequencerL1ErrorCodeT, head: bigint, message: string) {
    super({ code, head: head.toString() }, message);
  }
}

/** Resolves after `ms` milliseconds (at once for 0 or less). */
function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, ms));
}

/** Periodic OP block production: the devnet's, or a local rollup's on a real L1. */
export class OpDevSequencer {
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  /** The serialized work (timer steps and {@link sealOne}): one block operation at a time. */
  private readonly work = new SerialQueue();
  /** The L1 the blocks' origins come from. */
  private readonly l1: L1OriginSource;
  /** The same source when it is the simulated L1 (deposits injected, attributes previewed). */
  private readonly simulated: SimulatedL1Origins | undefined;
  /** The block being built (flashblocks mode). */
  private open: OpenBlock | undefined;
  /** The L1 source planned no block at the last attempt: try again after {@link SEQUENCER_L1_WAIT_RETRY_MS}. */
  private waiting = false;
  /** The last flashblock published (the predecessor named by the next one). */
  private lastFrame: FlashblockId | undefined;
  /** Faults logged once per reason (a recurring one then at debug). */
  private readonly faults: FaultLog;
  /** Consecutive failed production ticks (the retry backoff); reset by a committed block. */
  private failures = 0;
  private readonly blockTimeS: number;
  private readonly intervalMs: number;
  private readonly blockTimeMs: number;
  /** Highest flashblock index published for a block by the timer loop. */
  private readonly maxIndex: number;
  private readonly sink: FlashblockSink | undefined;
  private readonly log: Logger;
  private readonly onSealed: ((block: Block) => void) | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    blockTimeS: number,
    log: Logger,
    opts: OpDevSequencerOptions = {},
  ) {
    this.log = log.child({ subsystem: "sequencer" });
    this.faults = new FaultLog(this.log);
    this.onSealed = opts.onSealed;
    if (opts.l1 === undefined) {
      this.simulated = new SimulatedL1Origins(chain);
      this.l1 = this.simulated;
    } else {
      this.l1 = opts.l1;
      this.simulated = opts.l1 instanceof SimulatedL1Origins ? opts.l1 : undefined;
    }
    this.blockTimeS = this.l1.blockTime !== undefined ? Number(this.l1.blockTime) : blockTimeS;
    this.blockTimeMs = this.blockTimeS * 1000;
    const fb = opts.flashblocks;
    this.intervalMs = fb !== undefined && fb.intervalMs > 0 && this.blockTimeS > 0 ? fb.intervalMs : 0;
    this.sink = this.intervalMs > 0 ? fb?.sink : undefined;
    const perBlock = this.intervalMs > 0 ? Math.floor(this.blockTimeMs / this.intervalMs) : 1;
    this.maxIndex = Math.max(0, Math.min(perBlock - 1, MAX_FLASHBLOCKS_PER_PAYLOAD - 1));
  }

  /** Whether blocks are built as flashblocks (interval > 0 and block time > 0). */
  get flashblocksEnabled(): boolean {
    return this.sink !== undefined;
  }

  /** Whether block times are fixed by the rollup config (a real L1): block n at genesis time + n × block time. */
  private get fixedTimes(): boolean {
    return this.l1.blockTime !== undefined;
  }

  /** Fixed block times: milliseconds (wall clock) until the block after the head is due, ≤ 0 when it is. */
  private untilDue(): number {
    return Number(this.chain.head.header.timestamp + this.l1.blockTime!) * 1000 - Date.now();
  }

  /** Starts periodic block production (nothing with a block time of 0). */
  start(): void {
    if (this.blockTimeS <= 0 || this.started) return;
    this.started = true;
    this.schedule(this.flashblocksEnabled || this.fixedTimes ? 0 : this.blockTimeMs);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), delayMs);
  }

  /** One timer step; never rejects, always schedules the next one. */
  private tick(): void {
    this.timer = undefined;
    void this.work.run(() => (this.flashblocksEnabled ? this.step() : this.produce()))
      .then(
        () => false,
        (e: unknown) => {
          // Logged at error once per distinct reason (e.g. the store cannot be written); retried with backoff.
          this.failures++;
          sequencerProductionFailuresTotal.inc({ stage: "produce" });
          this.faults.report(e, "devnet block production failed; retrying with backoff", "error");
          return true;
        },
      )
      .then((failed) => {
        // A sealOne() that ran meanwhile may have scheduled already.
        if (this.timer === undefined) this.schedule(failed ? this.retryDelay() : this.nextDelay());
      });
  }

  /** One step without flashblocks: the next block when it is due. */
  private async produce(): Promise<void> {
    if (this.fixedTimes && this.untilDue() > 0) return;
    await this.buildAndCommit();
  }



  /** Delay before the next production attempt after `failures` failed ones in a row (doubling, capped). */
  private retryDelay(): number {
    const base = this.flashblocksEnabled ? this.intervalMs : this.blockTimeMs;
    return Math.min(base * 2 ** Math.min(this.failures - 1, 16), Math.max(base, DEV_PRODUCTION_RETRY_MAX_MS));
  }

  /**
   * Queues a user deposit for the next L1 origin (the next block to open) and returns its
   * L2 transaction (`dev_sendDeposit`). Its source hash is that of log `i` of the next simulated
   * L1 block.
   * @throws SequencerL1Error when the L1 is real (deposits come from its OptimismPortal).
   */
  injectDeposit(req: DevDepositRequest): DepositTransaction {
    return this.simulatedL1("deposits are injected only on a simulated L1; on a real L1 they come from the OptimismPortal's logs").injectDeposit(req);
  }

  /**
   * The payload attributes the next block opened on the current head would get (L1-attributes
   * deposit, waiting user deposits of a new origin, upgrade deposits), without consuming anything.
   * @throws SequencerL1Error when the L1 is real.
   */
  payloadAttributes(): OpPayloadAttributes {
    return this.simulatedL1("attributes are previewed only on a simulated L1").preview(this.chain.head);
  }

  /** The simulated L1, or a {@link SequencerL1Error} saying what needed it. */
  private simulatedL1(what: string): SimulatedL1Origins {
    if (this.simulated === undefined) throw new SequencerL1Error(SequencerL1ErrorCode.NOT_SIMULATED, this.chain.head.header.number, what);
    return this.simulated;
  }

  /** The next block on the head from the L1 source; undefined (and `waiting`) when it plans none. */
  private async plan(): Promise<PlannedBlock | undefined> {
    const next = await this.l1.plan(this.chain.head);
    this.waiting = next === undefined;
    return next;
  }

  /** Makes an executed block the head (safe and finalized too on a simulated L1) and tells the L1 source. */
  private commit(ex: ExecutedBlock, next: PlannedBlock): bigint {
    const hash = ex.block.hash();
    this.chain.commitCanonical(ex, this.l1.sealsFinal ? { safe: hash, finalized: hash } : {});
    this.l1.committed(next);
    this.onSealed?.(ex.block);
    sequencerL1OriginNumber.set(Number(next.origin.number));
    if (next.deposits.length > 0) sequencerDepositsIncludedTotal.inc(next.deposits.length);
    if (next.pastDrift) sequencerPastDriftBlocksTotal.inc();
    this.pool.prune();
    if (this.failures > 0) this.log.info({ number: ex.block.header.number.toString(), failedAttempts: this.failures }, "devnet block production resumed");
    this.failures = 0;
    this.faults.clear();
    this.log.debug(
      {
        number: ex.block.header.number.toString(),
        hash: to0x(hash),
        timestamp: ex.block.header.timestamp.toString(),
        txs: ex.block.transactions.length,
        l1Origin: next.origin.number.toString(),
      },
      "sealed block",
    );
    return ex.block.header.number;
  }

  /** Builds a block on the head in one go (no flashblocks) and commits it; undefined when the L1 source plans none. */
  private async buildAndCommit(): Promise<bigint | undefined> {
    const next = await this.plan();
    if (next === undefined) return undefined;
    try {
      const ex = await buildOpOnHead(this.chain, poolSource(this.pool, this.log), next.attrs);
      return this.commit(ex, next);
    } catch (e) {
      this.l1.abandoned(next);
      throw e;
    }
  }

  // ---- flashblocks -------------------------------------------------------------------------

  /** Publishes the session's next flashblock; `startedAt` (performance.now()) starts the build-time measurement. */
  private async emit(session: BlockSession, startedAt: number): Promise<void> {
    const p = await session.flashblock();
    this.sink?.publish(p);
    this.lastFrame = { block: p.metadata.blockNumber, index: p.index };
    flashblocksBuildSeconds.observe((performance.now() - startedAt) / 1000);
    this.log.debug({ number: p.metadata.blockNumber.toString(), index: p.index, txs: p.diff.transactions.length }, "published flashblock");
  }

  /**
   * Fixed block times: milliseconds until the window of the block after the head opens (its
   * timestamp − block time), ≤ 0 once it has.
   */
  private untilWindow(): number {
    return this.untilDue() - this.blockTimeMs;
  }

  /**
   * Opens the next block's session at `openedAt` (performance.now() timeline; with fixed block
   * times, the block's own window) and publishes its flashblock 0. Opens nothing while the window
   * has not started or the L1 source plans no block.
   */
  private async openSession(openedAt: number): Promise<void> {
    if (this.fixedTimes && this.untilWindow() > 0) return;
    const startedAt = performance.now();
    const next = await this.plan();
    if (next === undefined) return;
    if (this.fixedTimes) {
      const sealAt = performance.now() + this.untilDue();
      openedAt = sealAt - this.blockTimeMs;
    }
    const session = new BlockSession(this.chain, next.attrs, { pool: poolSource(this.pool, this.log), prevFlashblockId: this.lastFrame });
    try {
      await session.begin();
    } catch (e) {
      this.l1.abandoned(next);
      throw e;
    }
    this.open = { ...next, session, openedAt, sealAt: openedAt + this.blockTimeMs };
    await this.emit(session, startedAt);
  }

  /** Adds the pool transactions that arrived and publishes them as the next flashblock (index 0 first if still due). */
  private async advance(o: OpenBlock): Promise<void> {
    const startedAt = performance.now();
    if (o.session.index === 0) {
      await this.emit(o.session, startedAt);
      return;
    }
    await o.session.addFromPool();
    await this.emit(o.session, startedAt);
  }

  /** Seals the open block and commits it; an abandoned block goes back to the L1 source. */
  private async sealOpen(): Promise<bigint> {
    const o = this.open!;
    this.open = undefined;
    try {
      if (!equalsBytes(this.chain.head.hash(), o.session.parentHash)) throw new DevSequencerStaleHeadError(o.session.number);
      // Every transaction of the block must have been published before the seal.
      if (o.session.unpublished > 0) await this.emit(o.session, performance.now());
      const ex = await o.session.seal();
      return this.commit(ex, o);
    } catch (e) {
      this.l1.abandoned(o);
      throw e;
    }
  }

  /** One step of the flashblocks timer loop: open, publish the flashblock due, or seal and open the next block. */
  private async step(): Promise<void> {
    if (this.stopped) return;
    const o = this.open;
    const now = performance.now();
    if (o === undefined) {
      await this.openSession(now);
      return;
    }
    if (now >= o.sealAt) {
      try {
        await this.sealOpen();
      } catch (e) {
        // E.g. the store cannot be written (full disk): logged at error once per reason; the next block retries one block time later.
        this.failures++;
        sequencerProductionFailuresTotal.inc({ stage: "seal" });
        this.faults.report(e, "devnet block seal failed", "error");
      }
      if (this.stopped) return;
      // Keep the cadence unless the seal ran more than one interval late.
      await this.openSession(now - o.sealAt < this.intervalMs ? o.sealAt : performance.now());
      return;
    }
    if (o.session.index <= this.maxIndex && now >= o.openedAt + o.session.index * this.intervalMs) await this.advance(o);
  }

  /** Milliseconds until the next step of the timer loop is due. */
  private nextDelay(): number {
    if (!this.flashblocksEnabled) {
      if (!this.fixedTimes) return this.blockTimeMs;
      return this.waiting ? SEQUENCER_L1_WAIT_RETRY_MS : Math.max(0, this.untilDue());
    }
    const o = this.open;
    if (o === undefined) {
      if (!this.fixedTimes) return this.intervalMs;
      return this.waiting ? SEQUENCER_L1_WAIT_RETRY_MS : Math.max(0, this.untilWindow());
    }
    const now = performance.now();
    let due = o.sealAt;
    if (o.session.index === 0) due = Math.min(due, now + this.intervalMs);
    else if (o.session.index <= this.maxIndex) due = Math.min(due, o.openedAt + o.session.index * this.intervalMs);
    return Math.max(0, due - now);
  }

  /**
   * Seals one block and returns its number (`evm_mine`). With flashblocks and an open block: the
   * pool transactions that arrived are published as one more flashblock (while an index is left),
   * the block is sealed and committed, and the next block's session opens. Otherwise a block is
   * built in one go. With fixed block times the block is sealed when its time comes (this waits
   * for it).
   * @throws SequencerL1Error (`SEQUENCER_L1_NO_ORIGIN`) when the L1 source plans no block on the head.
   */
  async sealOne(): Promise<bigint> {
    return this.work.run(async () => {
      const o = this.open;
      if (o === undefined) {
        if (this.fixedTimes) await sleep(this.untilDue());
        const number = await this.buildAndCommit();
        if (number === undefined) {
          const head = this.chain.head.header.number;
          throw new SequencerL1Error(SequencerL1ErrorCode.NO_ORIGIN, head, `no block can be built on head ${head} now: its L1 origin is no longer on the canonical L1; expected the L2 chain to be put back on it`);
        }
        return number;
      }
      if (this.fixedTimes) await sleep(o.sealAt - performance.now());
      if (o.session.index === 0) await this.emit(o.session, performance.now());
      if (o.session.index < MAX_FLASHBLOCKS_PER_PAYLOAD) {
        const startedAt = performance.now();
        if ((await o.session.addFromPool()) > 0) await this.emit(o.session, startedAt);
      }
      const number = await this.sealOpen();
      if (!this.stopped && this.started) {
        try {
          await this.openSession(performance.now());
        } catch (e) {
          this.faults.report(e, "devnet block session failed to open");
        }
        if (this.timer !== undefined) this.schedule(this.nextDelay());
      }
      return number;
    });
  }

  /** Stops block production; the block being built (if any) is abandoned, its pool transactions stay pooled. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.work.idle();
    const o = this.open;
    this.open = undefined;
    if (o !== undefined) this.l1.abandoned(o);
  }
}
