/**
 * Where the blobs of basalt's local L1 (`--network devnet-l1`) live: served by the beacon API (a
 * {@link BlobSink}, the node's `BeaconShim`) by slot, and kept on disk under
 * `<datadir>/l1-blobs` so a restarted node serves them again.
 *
 * One file per block with blobs, `<number>-<hash>.blobs`: per blob, in the block's commitment
 * order, `blob (131,072 bytes) ‖ commitment (48) ‖ proof (48)` (the versioned hash is recomputed
 * when read). A block's file is written before the block is committed (written whole, fsynced and
 * renamed into place), so a crash between the two leaves a file of a block that is not canonical,
 * which {@link L1BlobArchive.restore} removes. `slots.json` records the slot length the blocks
 * were produced with: another one would move every block to another slot.
 *
 * Retention: the beacon API holds the newest slots only — at most `retentionSlots` slots back
 * from the newest block served and at most `maxBlobs` blobs; the oldest slots (and their files)
 * go first. Restoring walks back from the head under the same two bounds (and stops at a block
 * whose blobs were pruned), so a restart serves exactly what the running node served.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { commitmentVersionedHash } from "../chain/blobSidecar.js";
import { BLOB_BYTES, KZG_POINT_BYTES } from "../chain/constants.js";
import type { CommittedBlob } from "../derivation/kzg.js";
import { toHex } from "../util/bytes.js";
import { L1DevError, L1DevErrorCode } from "./l1DevErrors.js";
import { l1BlobsDroppedTotal } from "./l1DevMetrics.js";
import type { SlotClock } from "./l1SlotClock.js";

/** EIP-4844 blob gas per blob: a header's `blobGasUsed` over it is the block's blob count. */
const GAS_PER_BLOB = 131_072n;
/** Bytes of one blob's record in a block's file: blob, commitment, proof. */
const RECORD_BYTES = BLOB_BYTES + 2 * KZG_POINT_BYTES;
/** Name of a block's file: `<number>-<hash hex>.blobs`. */
const FILE_PATTERN = /^(\d+)-([0-9a-f]{64})\.blobs$/;
/** The file recording the slot length of the blocks. */
const PARAMS_FILE = "slots.json";

/** Where a block's blobs are served by slot (`derivation/beaconShim.ts`'s `BeaconShim` is one). */
export interface BlobSink {
  /** Serves `blobs` (in commitment order) as the blobs of `slot`; an empty list makes the slot a block without blobs. */
  putCommitted(slot: number, blobs: readonly CommittedBlob[]): void;
  /** Forgets a slot: it answers 404 again, as a missed slot. */
  delete(slot: number): void;
}

/** A block as the archive names it. */
interface ArchivedBlock {
  number: bigint;
  hash: Uint8Array;
}

/** Bounds and context of an {@link L1BlobArchive}. */
interface L1BlobArchiveOptions {
  /** Slots kept back from the newest block served (`L1DEV_BLOB_RETENTION_SLOTS`). */
  retentionSlots: number;
  /** Most blobs held (`L1DEV_BLOB_RETENTION_MAX_BLOBS`). */
  maxBlobs: number;
  /** The chain's slot clock (its slot length is checked against the datadir's). */
  clock: SlotClock;
  logger?: Logger;
}

/** A slot the sink serves. */
interface Held {
  slot: number;
  file: string;
  blobs: number;
}

/** The devnet-l1 blob archive (see the module comment). */
export class L1BlobArchive {
  /** Slots served, oldest first (slots only grow: a new block's slot is above every earlier one). */
  private readonly held: Held[] = [];
  private heldBlobs = 0;
  private readonly log: Logger | undefined;

  private constructor(
    readonly dir: string,
    private readonly sink: BlobSink,
    private readonly opts: L1BlobArchiveOptions,
  ) {
    this.log = opts.logger?.child({ subsystem: "sequencer" });
  }

  /**
   * Opens (creating) the archive directory `dir` feeding `sink`, and checks its slot length: a
   * datadir whose blocks were produced with another slot length is refused while it holds blocks
   * past genesis (`headNumber` > 0), since their slots would change.
   * @throws L1DevError SLOT_LENGTH_CHANGED.
   */
  static open(dir: string, sink: BlobSink, headNumber: bigint, opts: L1BlobArchiveOptions): L1BlobArchive {
    mkdirSync(dir, { recursive: true });
    const paramsPath = join(dir, PARAMS_FILE);
    const given = opts.clock.secondsPerSlot;
    if (existsSync(paramsPath) && headNumber > 0n) {
      const stored = (JSON.parse(readFileSync(paramsPath, "utf8")) as { secondsPerSlot: number }).secondsPerSlot;
      if (stored !== given) {
        throw new L1DevError(
          { code: L1DevErrorCode.SLOT_LENGTH_CHANGED, stored, given, dir },
          `--dev.block-time ${given}: the blocks in this datadir were produced with ${stored} s slots, and another slot length would move them to other slots; ` +
            `run with --dev.block-time ${stored} or use a new --datadir`,
        );
      }
    }
    writeFileSync(paramsPath, `${JSON.stringify({ genesisTime: opts.clock.genesisTime.toString(), secondsPerSlot: given })}\n`);
    return new L1BlobArchive(dir, sink, opts);
  }

  /** Blobs the sink holds now. */
  get blobsHeld(): number {
    return this.heldBlobs;
  }

  /** Slots the sink holds now, oldest first. */
  get slotsHeld(): number[] {
    return this.held.map((h) => h.slot);
  }

  private fileOf(block: ArchivedBlock): string {
    return join(this.dir, `${block.number}-${toHex(block.hash)}.blobs`);
  }

  /**
   * Writes the blobs of a block about to be committed (nothing for a block without blobs): the
   * whole file, fsynced, then renamed into place.
   */
  write(block: ArchivedBlock, blobs: readonly CommittedBlob[]): void {
    if (blobs.length === 0) return;
    const file = this.fileOf(block);
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, "w");
    try {
      for (const b of blobs) {
        writeSync(fd, b.blob);
        writeSync(fd, b.commitment);
        writeSync(fd, b.proof);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  }

  /** Removes the file of a block that was written but not committed after all. */
  discard(block: ArchivedBlock): void {
    rmQuiet(this.fileOf(block));
  }

  /**
   * Serves a committed block's blobs at its slot (an empty list for a block without blobs), then
   * drops the oldest slots past the bounds.
   */
  serve(slot: bigint, block: ArchivedBlock, blobs: readonly CommittedBlob[]): void {
    const s = Number(slot);
    this.sink.putCommitted(s, blobs);
    this.held.push({ slot: s, file: this.fileOf(block), blobs: blobs.length });
    this.heldBlobs += blobs.length;
    this.prune(s);
  }

  /** Forgets an unwound block: its slot answers 404 again and its file is removed. */
  drop(slot: bigint, block: ArchivedBlock): void {
    const s = Number(slot);
    const i = this.held.findIndex((h) => h.slot === s);
    if (i >= 0) {
      const [h] = this.held.splice(i, 1);
      this.heldBlobs -= h!.blobs;
      if (h!.blobs > 0) l1BlobsDroppedTotal.inc({ reason: "reorg" }, h!.blobs);
    }
    this.sink.delete(s);
    rmQuiet(this.fileOf(block));
  }

  /** Drops the oldest slots while more than `retentionSlots` back from `newest` or above `maxBlobs` blobs. */
  private prune(newest: number): void {
    while (this.held.length > 1) {
      const oldest = this.held[0]!;
      if (oldest.slot >= newest - this.opts.retentionSlots && this.heldBlobs <= this.opts.maxBlobs) break;
      this.held.shift();
      this.heldBlobs -= oldest.blobs;
      this.sink.delete(oldest.slot);
      if (oldest.blobs > 0) {
        rmQuiet(oldest.file);
        l1BlobsDroppedTotal.inc({ reason: "retention" }, oldest.blobs);
      }
    }
  }

  /**
   * At start: serves again the blocks the running node served — the canonical blocks back from
   * the head within `retentionSlots` of its slot and `maxBlobs` blobs, with the blobs of their
   * files — and removes every other file (blocks unwound or never committed, slots past the bounds).
   * Returns the blocks and blobs served.
   */
  restore(chain: Chain): { blocks: number; blobs: number } {
    const files = new Map<string, string>();
    for (const name of readdirSync(this.dir)) {
      if (FILE_PATTERN.test(name)) files.set(join(this.dir, name), name);
      else if (name.endsWith(".blobs.tmp")) rmQuiet(join(this.dir, name));
    }
    const clock = this.opts.clock;
    const head = chain.headHeader;
    const headSlot = clock.slotOf(head.timestamp);
    const kept: { slot: bigint; block: ArchivedBlock; count: number }[] = [];
    let total = 0;
    for (let n = head.number; n >= 0n; n--) {
      const hash = chain.getCanonicalHash(n);
      const header = hash === undefined ? undefined : chain.getHeaderByHash(hash);
      if (hash === undefined || header === undefined) break;
      const slot = clock.slotOf(header.timestamp);
      if (slot < headSlot - BigInt(this.opts.retentionSlots)) break;
      const block = { number: n, hash };
      const file = this.fileOf(block);
      const count = Number((header.blobGasUsed ?? 0n) / GAS_PER_BLOB);
      // A block with blobs but no file had them pruned, and every older one too.
      if (count > 0 && !(files.has(file) && statSync(file).size === count * RECORD_BYTES)) break;
      if (total + count > this.opts.maxBlobs) break;
      total += count;
      kept.push({ slot, block, count });
      files.delete(file);
    }
    for (const file of files.keys()) rmQuiet(file);
    for (const k of kept.reverse()) this.serve(k.slot, k.block, k.count === 0 ? [] : readBlobs(this.fileOf(k.block)));
    this.log?.debug({ blocks: kept.length, blobs: total, removedFiles: files.size }, "devnet-l1: blobs restored from the datadir");
    return { blocks: kept.length, blobs: total };
  }
}

/** The blobs of a block's file, with their versioned hashes. */
function readBlobs(file: string): CommittedBlob[] {
  const bytes = new Uint8Array(readFileSync(file));
  const out: CommittedBlob[] = [];
  for (let at = 0; at + RECORD_BYTES <= bytes.length; at += RECORD_BYTES) {
    const blob = bytes.slice(at, at + BLOB_BYTES);
    const commitment = bytes.slice(at + BLOB_BYTES, at + BLOB_BYTES + KZG_POINT_BYTES);
    const proof = bytes.slice(at + BLOB_BYTES + KZG_POINT_BYTES, at + RECORD_BYTES);
    out.push({ blob, commitment, proof, versionedHash: commitmentVersionedHash(commitment) });
  }
  return out;
}

/** Removes a file that may not exist. */
function rmQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
