/**
 * The OP devnet sequencer: seals a block every `blockTimeS` seconds the way an OP Stack
 * sequencer does — the L1-attributes deposit first (from a simulated L1 origin), then the
 * user deposits of a new L1 origin, then mempool transactions — through the same
 * payload-attributes path as the Engine API.
 *
 * With flashblocks (an interval > 0 and a block time > 0) each block is built the way Base's
 * builder does it, as a {@link BlockSession}: opened at the block start, flashblock 0 (the block
 * environment and the forced transactions) published at once, then every `intervalMs` the pool
 * transactions that arrived published as the next flashblock (even when none did), up to index
 * `min(floor(blockTime / interval) − 1, MAX_FLASHBLOCKS_PER_PAYLOAD − 1)`; the block is sealed at
 * the block time with exactly the transactions of its flashblocks, committed, and the next
 * block's session opened at once. Without flashblocks a block is built in one go at the block
 * time (`buildOpOnHead`).
 *
 * The simulated L1 is deterministic: L1 block `n` has hash
 * `keccak256("basalt devnet L1" ++ uint64(n))`, base fee {@link DEVNET_L1_BASE_FEE_WEI} and
 * blob base fee 1. The origin advances when {@link DEVNET_L1_BLOCK_TIME_S} seconds have passed
 * since it, or at once when deposits are waiting (as if they had been mined in the next L1
 * block). After a restart the origin is read back from the head's L1-attributes deposit.
 */
import { keccak256 } from "../util/keccak.js";
import { Address, bigIntToBytes, concatBytes, equalsBytes, hexToBytes, setLengthLeft, utf8ToBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { Chain, ExecutedBlock } from "../blockchain/chain.js";
import { DepositTransaction, isDeposit } from "../chain/op/depositTx.js";
import { decodeL1InfoCalldata, l1InfoDepositTx, l1InfoVariantFor, batcherHashFromAddress } from "../chain/op/l1InfoTx.js";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "../chain/op/predeploys.js";
import { userDepositSourceHash } from "../chain/op/sourceHash.js";
import { upgradeTransactionsForBlock } from "../chain/op/upgrades.js";
import { DEVNET_BATCHER_ADDRESS, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_BASE_FEE_SCALAR, DEVNET_L1_BASE_FEE_WEI, DEVNET_L1_BLOCK_TIME_S, DEVNET_MIN_BASE_FEE_WEI, DEVNET_OPERATOR_FEE_CONSTANT, DEVNET_OPERATOR_FEE_SCALAR, DEVNET_DA_FOOTPRINT_GAS_SCALAR, DEV_PRODUCTION_RETRY_MAX_MS } from "../config/constants.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";
import { MAX_FLASHBLOCKS_PER_PAYLOAD, type FlashblockId, type FlashblocksPayloadV1 } from "../flashblocks/codec.js";
import { flashblocksBuildSeconds } from "../flashblocks/metrics.js";
import type { TxPool } from "../txpool/txpool.js";
import { BasaltError } from "../util/errors.js";
import { to0x } from "../util/bytes.js";
import { BlockSession } from "./blockSession.js";
import { FaultLog } from "./faultLog.js";
import { SerialQueue } from "./serialQueue.js";
import { sequencerProductionFailuresTotal } from "./metrics.js";
import { buildOpOnHead } from "../blockchain/opBuilder.js";
import { poolSource } from "../txpool/poolSource.js";

/** An L1 block the devnet's L2 blocks reference. */
export interface DevL1Origin {
  number: bigint;
  hash: Uint8Array;
  timestamp: bigint;
}

/** A user deposit to inject (as if emitted by the L1 OptimismPortal). */
export interface DevDepositRequest {
  /** L2 sender (already aliased if it stands for an L1 contract). */
  from: Uint8Array;
  /** Recipient; undefined for a contract creation. */
  to?: Uint8Array;
  mint: bigint;
  value: bigint;
  gasLimit: bigint;
  data: Uint8Array;
}

/** Where the sequencer's flashblocks go (the devnet's `FlashblocksPublisher`). Must not throw. */
export interface FlashblockSink {
  publish(p: FlashblocksPayloadV1): void;
}

/** Options of {@link OpDevSequencer}. */
export interface OpDevSequencerOptions {
  /** Build blocks as flashblocks: `intervalMs` between flashblocks (0 = off), published to `sink`. */
  flashblocks?: { intervalMs: number; sink: FlashblockSink };
}

/** Hash of simulated L1 block `n`. */
export function devL1BlockHash(n: bigint): Uint8Array {
  return keccak256(concatBytes(utf8ToBytes("basalt devnet L1"), setLengthLeft(bigIntToBytes(n), 8)));
}

/** The next block to build: its payload attributes, the L1 origin they move to, and the deposits they include. */
interface NextBlock {
  attrs: OpPayloadAttributes;
  origin: DevL1Origin;
  sequenceNumber: bigint;
  /** User deposits taken from the waiting queue (put back if the block is abandoned). */
  deposits: DepositTransaction[];
}

/** A block whose session is open (flashblocks mode). */
interface OpenBlock extends NextBlock {
  session: BlockSession;
  /** `performance.now()` of the block start: flashblock `i` is due at `openedAt + i × interval`. */
  openedAt: number;
  /** `performance.now()` at which the block is sealed (`openedAt` + block time). */
  sealAt: number;
}

/** The head changed under an open block session (another writer committed a block). */
export class DevSequencerStaleHeadError extends BasaltError<{ number: string }> {
  constructor(number: bigint) {
    const message = `block ${number} was being built on a parent that is no longer the head; abandoning it`;
    super("DEV_SEQUENCER_STALE_HEAD", message, { number: number.toString() });
  }
}

/** Periodic OP block production on the devnet. */
export class OpDevSequencer {
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  /** The serialized work (timer steps and {@link sealOne}): one block operation at a time. */
  private readonly work = new SerialQueue();
  /** L1 origin and sequence number of the head block. */
  private origin: DevL1Origin;
  private sequenceNumber: bigint;
  /** Deposits waiting for the next L1 origin, with their final transaction. */
  private pending: DepositTransaction[] = [];
  /** The block being built (flashblocks mode), or being opened. */
  private open: OpenBlock | undefined;
  private opening: NextBlock | undefined;
  /** The last flashblock published (the predecessor named by the next one). */
  private lastFrame: FlashblockId | undefined;
  /** Consecutive failed production ticks (the retry backoff); reset by a committed block. */
  private failures = 0;
  private readonly intervalMs: number;
  private readonly blockTimeMs: number;
  /** Highest flashblock index published for a block by the timer loop. */
  private readonly maxIndex: number;
  private readonly sink: FlashblockSink | undefined;
  private readonly log: Logger;
  /** Production failures, logged once per distinct reason (a recurring one at debug). */
  private readonly faults: FaultLog;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly blockTimeS: number,
    log: Logger,
    opts: OpDevSequencerOptions = {},
  ) {
    this.log = log.child({ subsystem: "sequencer" });
    this.faults = new FaultLog(this.log);
    const recovered = this.originOfHead();
    this.origin = recovered.origin;
    this.sequenceNumber = recovered.sequenceNumber;
    this.blockTimeMs = blockTimeS * 1000;
    const fb = opts.flashblocks;
    this.intervalMs = fb !== undefined && fb.intervalMs > 0 && blockTimeS > 0 ? fb.intervalMs : 0;
    this.sink = this.intervalMs > 0 ? fb?.sink : undefined;
    const perBlock = this.intervalMs > 0 ? Math.floor(this.blockTimeMs / this.intervalMs) : 1;
    this.maxIndex = Math.max(0, Math.min(perBlock - 1, MAX_FLASHBLOCKS_PER_PAYLOAD - 1));
  }

  /** Whether blocks are built as flashblocks (interval > 0 and block time > 0). */
  get flashblocksEnabled(): boolean {
    return this.sink !== undefined;
  }

  /** The L1 origin (and sequence number) of the head block, from its L1-attributes deposit. */
  private originOfHead(): { origin: DevL1Origin; sequenceNumber: bigint } {
    const head = this.chain.head;
    const first = head.transactions[0] as unknown as { type: number } | undefined;
    if (first !== undefined && isDeposit(first)) {
      const { values } = decodeL1InfoCalldata(first.data);
      return { origin: { number: values.number, hash: values.hash, timestamp: values.timestamp }, sequenceNumber: values.sequenceNumber };
    }
    // Genesis: L1 block 0 at the genesis time.
    return { origin: { number: 0n, hash: devL1BlockHash(0n), timestamp: head.header.timestamp }, sequenceNumber: -1n };
  }

  /** Starts periodic block production (nothing with a block time of 0). */
  start(): void {
    if (this.blockTimeS <= 0 || this.started) return;
    this.started = true;
    this.schedule(this.flashblocksEnabled ? 0 : this.blockTimeMs);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), delayMs);
  }

  /** One timer step; never rejects, always schedules the next one. */
  private tick(): void {
    this.timer = undefined;
    void this.work.run(() => (this.flashblocksEnabled ? this.step() : this.buildAndCommit().then(() => undefined)))
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
        if (this.timer === undefined) this.schedule(failed ? this.retryDelay() : !this.flashblocksEnabled ? this.blockTimeMs : this.nextDelay());
      });
  }

  /** Delay before the next production attempt after `failures` failed ones in a row (doubling, capped). */
  private retryDelay(): number {
    const base = this.flashblocksEnabled ? this.intervalMs : this.blockTimeMs;
    return Math.min(base * 2 ** Math.min(this.failures - 1, 16), Math.max(base, DEV_PRODUCTION_RETRY_MAX_MS));
  }

  /**
   * Queues a user deposit for the next L1 origin (the next block to open) and returns its
   * L2 transaction. Its source hash is that of log `i` of the next simulated L1 block.
   */
  injectDeposit(req: DevDepositRequest): DepositTransaction {
    if (req.gasLimit < 21_000n) throw new BasaltError("DEV_DEPOSIT_INVALID", `deposit gas ${req.gasLimit} is below the 21000 intrinsic minimum`);
    // The L1 block after the origin of the newest block (the one being built, else the head).
    const l1Number = ((this.open ?? this.opening)?.origin ?? this.origin).number + 1n;
    const tx = new DepositTransaction({
      sourceHash: userDepositSourceHash(devL1BlockHash(l1Number), this.pending.length),
      from: new Address(req.from),
      to: req.to === undefined ? undefined : new Address(req.to),
      mint: req.mint,
      value: req.value,
      gasLimit: req.gasLimit,
      isSystemTx: false,
      data: req.data,
    });
    this.pending.push(tx);
    return tx;
  }

  /** The attributes of the block after the head, the L1 origin they use and the deposits they include. */
  private nextBlock(): NextBlock {
    const head = this.chain.head;
    const op = this.chain.op!;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const timestamp = now > head.header.timestamp ? now : head.header.timestamp + 1n;
    const deposits = this.pending.slice();
    let origin = this.origin;
    let seq = this.sequenceNumber + 1n;
    if (deposits.length > 0 || timestamp - origin.timestamp >= BigInt(DEVNET_L1_BLOCK_TIME_S)) {
      const number = origin.number + 1n;
      origin = { number, hash: devL1BlockHash(number), timestamp };
      seq = 0n;
    }
    const variant = l1InfoVariantFor(op, timestamp, head.header.timestamp);
    const l1Info = l1InfoDepositTx(
      {
        number: origin.number,
        timestamp: origin.timestamp,
        baseFee: DEVNET_L1_BASE_FEE_WEI,
        hash: origin.hash,
        sequenceNumber: seq,
        batcherHash: batcherHashFromAddress(hexToBytes(DEVNET_BATCHER_ADDRESS)),
        l1FeeOverhead: 0n,
        l1FeeScalar: DEVNET_BASE_FEE_SCALAR,
        baseFeeScalar: DEVNET_BASE_FEE_SCALAR,
        blobBaseFeeScalar: DEVNET_BLOB_BASE_FEE_SCALAR,
        blobBaseFee: 1n,
        operatorFeeScalar: DEVNET_OPERATOR_FEE_SCALAR,
        operatorFeeConstant: DEVNET_OPERATOR_FEE_CONSTANT,
        daFootprintGasScalar: DEVNET_DA_FOOTPRINT_GAS_SCALAR,
      },
      variant,
    );
    const included = seq === 0n ? deposits : [];
    const attrs: OpPayloadAttributes = {
      timestamp,
      prevRandao: keccak256(origin.hash),
      suggestedFeeRecipient: hexToBytes(SEQUENCER_FEE_VAULT_ADDRESS),
      parentBeaconBlockRoot: keccak256(concatBytes(utf8ToBytes("basalt devnet beacon"), origin.hash)),
      // L1 info, the origin's user deposits, then any fork's upgrade deposits (specs derivation.md).
      transactions: [...[l1Info, ...included].map((t) => t.serialize()), ...upgradeTransactionsForBlock(op, timestamp, head.header.timestamp)],
      noTxPool: false,
      gasLimit: head.header.gasLimit,
      eip1559Params: new Uint8Array(8),
      minBaseFee: DEVNET_MIN_BASE_FEE_WEI,
    };
    return { attrs, origin, sequenceNumber: seq, deposits: included };
  }

  /**
   * The payload attributes the next block opened on the current head would get (L1-attributes
   * deposit, waiting user deposits of a new origin, upgrade deposits), without consuming anything.
   */
  payloadAttributes(): OpPayloadAttributes {
    return this.nextBlock().attrs;
  }

  /** Makes an executed block the head and moves the L1 origin with it. */
  private commit(ex: ExecutedBlock, next: NextBlock): bigint {
    this.chain.commitCanonical(ex, { safe: ex.block.hash(), finalized: ex.block.hash() });
    this.origin = next.origin;
    this.sequenceNumber = next.sequenceNumber;
    this.pool.prune();
    if (this.failures > 0) this.log.info({ number: ex.block.header.number.toString(), failedAttempts: this.failures }, "devnet block production resumed");
    this.failures = 0;
    this.faults.clear();
    this.log.debug(
      {
        number: ex.block.header.number.toString(),
        hash: to0x(ex.block.hash()),
        txs: ex.block.transactions.length,
        l1Origin: next.origin.number.toString(),
      },
      "sealed block",
    );
    return ex.block.header.number;
  }

  /** Builds a block on the head in one go (no flashblocks) and commits it. */
  private async buildAndCommit(): Promise<bigint> {
    const next = this.nextBlock();
    const ex = await buildOpOnHead(this.chain, poolSource(this.pool, this.log), next.attrs);
    const number = this.commit(ex, next);
    if (next.deposits.length > 0) this.pending = this.pending.slice(next.deposits.length);
    return number;
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

  /** Opens the next block's session at `openedAt` (performance.now() timeline) and publishes its flashblock 0. */
  private async openSession(openedAt: number): Promise<void> {
    const startedAt = performance.now();
    const next = this.nextBlock();
    const session = new BlockSession(this.chain, next.attrs, { pool: poolSource(this.pool, this.log), prevFlashblockId: this.lastFrame });
    // Deposits injected from now on belong to the block after this one.
    this.pending = this.pending.slice(next.deposits.length);
    this.opening = next;
    try {
      await session.begin();
    } catch (e) {
      this.pending = [...next.deposits, ...this.pending];
      throw e;
    } finally {
      this.opening = undefined;
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

  /** Seals the open block and commits it; an abandoned block's deposits go back to the queue. */
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
      this.pending = [...o.deposits, ...this.pending];
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

  /** Milliseconds until the next step of the flashblocks loop is due. */
  private nextDelay(): number {
    const o = this.open;
    if (o === undefined) return this.intervalMs;
    const now = performance.now();
    let due = o.sealAt;
    if (o.session.index === 0) due = Math.min(due, now + this.intervalMs);
    else if (o.session.index <= this.maxIndex) due = Math.min(due, o.openedAt + o.session.index * this.intervalMs);
    return Math.max(0, due - now);
  }

  /**
   * Seals one block now and returns its number. With flashblocks and an open block: the pool
   * transactions that arrived are published as one more flashblock (while an index is left), the
   * block is sealed and committed, and the next block's session opens. Otherwise a block is
   * built in one go.
   */
  async sealOne(): Promise<bigint> {
    return this.work.run(async () => {
      const o = this.open;
      if (o === undefined) return this.buildAndCommit();
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
    if (o !== undefined) this.pending = [...o.deposits, ...this.pending];
  }
}
