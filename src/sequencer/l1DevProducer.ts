/**
 * The block producer of basalt's local L1 (`--network devnet-l1`): a plain Ethereum chain whose
 * blocks basalt builds itself (no consensus client, no Engine API), one per slot of a
 * {@link SlotClock}. A block built in slot `s` has timestamp `genesis + s × secondsPerSlot`; a
 * slot in which no block is built is missed and the next block takes the slot it is built in, so
 * timestamps stay on slot boundaries and a beacon API maps each block to its slot.
 *
 * Each block takes the pool's transactions (`blockchain/blockBuilder.ts` `buildOnHead`, with
 * Ethereum's rules: EIP-1559 base fee, the blob gas market of Cancun/Prague — `blobGasUsed`,
 * `excessBlobGas`, the blob base fee — and Prague's system calls). Per slot and deterministic:
 * - `prevRandao` = keccak256("basalt devnet-l1 randao" ‖ uint64 slot),
 * - `parentBeaconBlockRoot` = keccak256("basalt devnet-l1 beacon root" ‖ uint64 slot),
 * - fee recipient: the zero address; no withdrawals.
 *
 * Forkchoice follows the head at fixed distances: `safe` = head − `L1DEV_SAFE_DISTANCE`,
 * `finalized` = head − `L1DEV_FINALIZED_DISTANCE` (genesis while the chain is shorter).
 *
 * The blobs of a block's blob transactions (the sidecars the pool verified and kept) are written
 * to the {@link L1BlobArchive} before the block is committed and handed to the beacon API at the
 * block's slot once it is; blocks unwound (`debug_setHead`, any reorg) have theirs removed.
 *
 * `evm_mine` ({@link sealOne}) builds a block at once: in the current slot if it has no block yet,
 * else in the next slot after the newest block (a timestamp ahead of the clock, as anvil's
 * `evm_mine` may give); the timer then skips slots that already have a block.
 */
import { bigIntToBytes, concatBytes, setLengthLeft, utf8ToBytes } from "@ethereumjs/util";
import type { Block } from "@ethereumjs/block";
import type { Logger } from "pino";
import { buildOnHead } from "../blockchain/blockBuilder.js";
import type { Chain, ExecutedBlock } from "../blockchain/chain.js";
import { BLOB_TX_TYPE, commitmentVersionedHash } from "../chain/blobSidecar.js";
import { L1DEV_FINALIZED_DISTANCE, L1DEV_SAFE_DISTANCE } from "./constants.js";
import type { CommittedBlob } from "../derivation/kzg.js";
import { poolSource } from "../txpool/poolSource.js";
import type { TxPool } from "../txpool/txpool.js";
import { to0x } from "../util/bytes.js";
import { keccak256 } from "../util/keccak.js";
import { FaultLog } from "./faultLog.js";
import type { L1BlobArchive } from "./l1BlobArchive.js";
import { L1DevError, L1DevErrorCode } from "./l1DevErrors.js";
import { l1BlobsServedTotal, l1BlocksProducedTotal, l1HeadSlot, l1MissedSlotsTotal, l1ProductionFailuresTotal } from "./l1DevMetrics.js";
import type { SlotClock } from "./l1SlotClock.js";
import { SerialQueue } from "./serialQueue.js";

/** Label of the per-slot `prevRandao`. */
const RANDAO_LABEL = utf8ToBytes("basalt devnet-l1 randao");
/** Label of the per-slot `parentBeaconBlockRoot`. */
const BEACON_ROOT_LABEL = utf8ToBytes("basalt devnet-l1 beacon root");
/** Fee recipient of every block: nobody (a local L1 has no validators to pay). */
const FEE_RECIPIENT = new Uint8Array(20);

/** keccak256(label ‖ uint64 slot): a per-slot value that is the same on every run. */
function slotValue(label: Uint8Array, slot: bigint): Uint8Array {
  return keccak256(concatBytes(label, setLengthLeft(bigIntToBytes(slot), 8)));
}

/** The `prevRandao` of the block of slot `slot`. */
export function devnetL1PrevRandao(slot: bigint): Uint8Array {
  return slotValue(RANDAO_LABEL, slot);
}

/** The `parentBeaconBlockRoot` of the block of slot `slot`. */
export function devnetL1BeaconRoot(slot: bigint): Uint8Array {
  return slotValue(BEACON_ROOT_LABEL, slot);
}

/** The block numbers `safe` and `finalized` point at when `head` is the head. */
export function forkchoiceNumbers(head: bigint): { safe: bigint; finalized: bigint } {
  const at = (d: bigint): bigint => (head > d ? head - d : 0n);
  return { safe: at(L1DEV_SAFE_DISTANCE), finalized: at(L1DEV_FINALIZED_DISTANCE) };
}

/** Options of an {@link L1DevProducer}. */
interface L1DevProducerOptions {
  clock: SlotClock;
  /** Where blocks' blobs go (absent: blobs are not served, e.g. a test of the slot clock). */
  archive?: L1BlobArchive;
  logger: Logger;
  /** Unix time in milliseconds (default `Date.now`; tests pass their own). */
  now?: () => number;
}

/** The devnet-l1 block producer (see the module comment). */
export class L1DevProducer {
  /** The newest slot a block was built in (this process), or the head's slot at start. */
  private lastSlot: bigint;
  /** The slot of the previous block this process built, for counting missed slots. */
  private producedSlot: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  /** The serialized work: one block operation (timer slot, evm_mine, setHead) at a time. */
  private readonly work = new SerialQueue();
  private readonly clock: SlotClock;
  private readonly archive: L1BlobArchive | undefined;
  private readonly log: Logger;
  /** Production failures, logged once per distinct reason (a full disk would fail every slot). */
  private readonly faults: FaultLog;
  private readonly now: () => number;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    opts: L1DevProducerOptions,
  ) {
    this.clock = opts.clock;
    this.archive = opts.archive;
    this.log = opts.logger.child({ subsystem: "sequencer" });
    this.faults = new FaultLog(this.log);
    this.now = opts.now ?? Date.now;
    this.lastSlot = this.clock.slotOf(chain.headHeader.timestamp);
    l1HeadSlot.set(Number(this.lastSlot));
    // Blocks unwound (debug_setHead or any reorg) take their blobs with them.
    this.unsubscribe = chain.onHead((head, reorged) => this.onHead(head, reorged));
  }

  /** The newest slot with a block built by this producer (or the head's slot when it started). */
  get newestSlot(): bigint {
    return this.lastSlot;
  }

  /** Starts producing a block at every slot boundary. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.schedule();
  }

  /** Arms the timer for the start of the first slot after the newest one with a block. */
  private schedule(): void {
    if (this.stopped) return;
    const now = this.now();
    const current = this.clock.slotAt(now);
    const next = (current > this.lastSlot ? current : this.lastSlot) + 1n;
    this.timer = setTimeout(() => this.tick(), this.clock.msUntil(next, now));
  }

  /** One timer step: builds a block in the slot under way unless it has one; never rejects; re-arms. */
  private tick(): void {
    this.timer = undefined;
    void this.work
      .run(async () => {
        const slot = this.clock.slotAt(this.now());
        if (slot > this.lastSlot) await this.produce(slot);
      })
      .catch((e: unknown) => {
        l1ProductionFailuresTotal.inc();
        this.faults.report(e, "devnet-l1 block production failed; the next slot tries again", "error");
      })
      .then(() => this.schedule());
  }

  /** The blobs of a built block's blob transactions, in commitment order, from the sidecars the pool kept. */
  private blobsOf(block: Block): CommittedBlob[] {
    const out: CommittedBlob[] = [];
    for (const tx of block.transactions) {
      if (tx.type !== BLOB_TX_TYPE) continue;
      const sidecar = this.pool.get(tx.hash())?.sidecar;
      // The pool takes no blob transaction without a verified sidecar, and the block builder none without its blobs.
      if (sidecar === undefined) {
        const meta = { number: block.header.number.toString(), tx: to0x(tx.hash()) };
        throw new L1DevError(
          { code: L1DevErrorCode.SIDECAR_MISSING, ...meta },
          `blob transaction ${meta.tx} of block ${meta.number} has no sidecar in the pool, so its blobs could not be served; the block is not committed`,
        );
      }
      sidecar.blobs.forEach((blob, i) => {
        const commitment = sidecar.commitments[i]!;
        out.push({ blob, commitment, proof: sidecar.proofs[i]!, versionedHash: commitmentVersionedHash(commitment) });
      });
    }
    return out;
  }

  /** Builds the block of slot `slot` on the head and commits it with its forkchoice pointers and blobs. */
  private async produce(slot: bigint): Promise<ExecutedBlock> {
    const ex = await buildOnHead(this.chain, poolSource(this.pool, this.log), {
      timestamp: this.clock.timestampOf(slot),
      feeRecipient: FEE_RECIPIENT,
      prevRandao: devnetL1PrevRandao(slot),
      parentBeaconBlockRoot: devnetL1BeaconRoot(slot),
      withdrawals: [],
    });
    const { block } = ex;
    const id = { number: block.header.number, hash: block.hash() };
    const blobs = this.blobsOf(block);
    this.archive?.write(id, blobs);
    const { safe, finalized } = forkchoiceNumbers(id.number);
    try {
      // safe and finalized are at or below the parent, canonical already.
      this.chain.commitCanonical(ex, { safe: this.chain.getCanonicalHash(safe), finalized: this.chain.getCanonicalHash(finalized) });
    } catch (e) {
      this.archive?.discard(id);
      throw e;
    }
    this.archive?.serve(slot, id, blobs);
    this.pool.prune();
    if (this.producedSlot !== undefined && slot > this.producedSlot + 1n) l1MissedSlotsTotal.inc(Number(slot - this.producedSlot - 1n));
    this.producedSlot = slot;
    this.lastSlot = slot;
    this.faults.clear();
    l1BlocksProducedTotal.inc();
    if (blobs.length > 0) l1BlobsServedTotal.inc(blobs.length);
    l1HeadSlot.set(Number(slot));
    this.log.debug(
      { number: id.number.toString(), hash: to0x(id.hash), slot: slot.toString(), txs: block.transactions.length, blobs: blobs.length },
      "devnet-l1: sealed block",
    );
    return ex;
  }

  /**
   * `evm_mine`: builds and commits a block now, in the current slot if it has no block yet, else in
   * the slot after the newest block. Returns the block's number.
   */
  async sealOne(): Promise<bigint> {
    return this.work.run(async () => {
      const current = this.clock.slotAt(this.now());
      const slot = current > this.lastSlot ? current : this.lastSlot + 1n;
      return (await this.produce(slot)).block.header.number;
    });
  }

  /**
   * `debug_setHead(number)`: rewinds the canonical chain to block `number` (geth's semantics): the
   * blocks above are unwound, their transactions are not put back in the pool, their blobs leave
   * the beacon API; `safe` and `finalized` follow the new head at their distances. Production goes
   * on from there at the next slot after the newest one built, so the new blocks differ from the
   * unwound ones. A `number` equal to the head changes nothing.
   * @throws L1DevError SET_HEAD_ABOVE_HEAD for a block above the head.
   */
  async setHead(number: bigint): Promise<void> {
    await this.work.run(async () => {
      const head = this.chain.headHeader.number;
      if (number > head) {
        throw new L1DevError(
          { code: L1DevErrorCode.SET_HEAD_ABOVE_HEAD, number: number.toString(), head: head.toString() },
          `block ${number} is above the head ${head}: debug_setHead only rewinds the chain`,
        );
      }
      if (number === head) return;
      const { safe, finalized } = forkchoiceNumbers(number);
      const canonical = (n: bigint): Uint8Array => this.chain.getCanonicalHash(n)!;
      await this.chain.setHead(canonical(number), canonical(safe), canonical(finalized));
      this.log.info({ from: head.toString(), to: number.toString() }, "devnet-l1: head rewound (debug_setHead)");
    });
  }

  /** Head listener: the blobs of unwound blocks leave the beacon API and the datadir. */
  private onHead(head: Block, reorged: readonly Block[]): void {
    for (const b of reorged) this.archive?.drop(this.clock.slotOf(b.header.timestamp), { number: b.header.number, hash: b.hash() });
    if (reorged.length > 0) l1HeadSlot.set(Number(this.clock.slotOf(head.header.timestamp)));
  }

  /** Stops production after the block operation under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.work.idle();
    this.unsubscribe();
  }
}
