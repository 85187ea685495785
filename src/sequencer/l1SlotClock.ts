/**
 * The slot clock of basalt's local L1 (`--network devnet-l1`): slot `s` starts at
 * `genesisTime + s × secondsPerSlot` (Unix seconds), and a block built in slot `s` takes that
 * start as its timestamp. Slot 0 is the genesis block's. Blocks therefore stay aligned to slots
 * whatever slots are missed, so a beacon API maps an L1 timestamp to its slot as Ethereum's does:
 * `(timestamp − genesis_time) / SECONDS_PER_SLOT`.
 */
import { L1DevError, L1DevErrorCode } from "./l1DevErrors.js";

/** Milliseconds in a second. */
const MS = 1_000n;

/** Slot arithmetic of one chain: genesis time and slot length. */
export class SlotClock {
  private readonly slotMs: bigint;

  /**
   * @param genesisTime the genesis block's timestamp (Unix seconds): the start of slot 0.
   * @param secondsPerSlot the slot length (`--dev.block-time` on devnet-l1).
   * @throws L1DevError INVALID_SLOT_LENGTH unless `secondsPerSlot` is a whole number ≥ 1.
   */
  constructor(
    readonly genesisTime: bigint,
    readonly secondsPerSlot: number,
  ) {
    if (!Number.isSafeInteger(secondsPerSlot) || secondsPerSlot < 1) {
      throw new L1DevError(
        { code: L1DevErrorCode.INVALID_SLOT_LENGTH, value: secondsPerSlot },
        `--dev.block-time ${secondsPerSlot}: devnet-l1 needs a slot length of whole seconds ≥ 1 (block timestamps are whole seconds on slot boundaries)`,
      );
    }
    this.slotMs = BigInt(secondsPerSlot) * MS;
  }

  /** The slot under way at Unix time `nowMs` (milliseconds); 0 before genesis. */
  slotAt(nowMs: number): bigint {
    const sinceGenesis = BigInt(Math.floor(nowMs)) - this.genesisTime * MS;
    return sinceGenesis <= 0n ? 0n : sinceGenesis / this.slotMs;
  }

  /** The slot of an L1 block's timestamp: `(timestamp − genesis) / secondsPerSlot`, rounded down; 0 before genesis. */
  slotOf(timestamp: bigint): bigint {
    const since = timestamp - this.genesisTime;
    return since <= 0n ? 0n : since / BigInt(this.secondsPerSlot);
  }

  /** The start of slot `slot` (Unix seconds): the timestamp of a block built in it. */
  timestampOf(slot: bigint): bigint {
    return this.genesisTime + slot * BigInt(this.secondsPerSlot);
  }

  /** Milliseconds from `nowMs` until slot `slot` starts (0 once it has). */
  msUntil(slot: bigint, nowMs: number): number {
    const wait = this.timestampOf(slot) * MS - BigInt(Math.floor(nowMs));
    return wait <= 0n ? 0 : Number(wait);
  }
}
