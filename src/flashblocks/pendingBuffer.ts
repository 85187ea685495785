/**
 * The pending block in shared memory: one writer (the flashblocks worker) and any number of
 * readers (the RPC thread) over a SharedArrayBuffer, with no locks and no message hop.
 *
 * Layout: a 64-byte control block of Int32 words, then two data slots. The writer serializes
 * each snapshot into the slot readers are *not* pointed at, then publishes it by switching the
 * active slot and bumping the generation counter (and `Atomics.notify`s it). Each slot has its
 * own sequence word, odd while the writer is inside it (a seqlock): a reader copies the active
 * slot and keeps the copy only if that word was even and unchanged across the copy. The writer
 * never waits for readers; a reader retries only if two snapshots were written during its copy.
 *
 * A zero-length publication means "no pending state" (cleared, caught up, stream gone).
 *
 * Each slot also records when it was published (bytes 32–47 of the control block, one Float64 per
 * slot, written inside the slot's seqlock): from that moment any request on the RPC thread reads
 * the new state, which is what `basalt_flashblocks_published_latency_seconds` measures.
 */
import { decodePendingSnapshot, encodePreparedSnapshot, prepareSnapshot, type PendingSnapshot, type PreparedSnapshot } from "./pendingSnapshot.js";
import { TypedError } from "../util/errors.js";
import { PENDING_READ_MAX_ATTEMPTS } from "./constants.js";

/** Int32 words of the control block. */
const GEN = 0;
const ACTIVE = 1;
const LEN0 = 2;
const SEQ0 = 4;
/** Float64 index (in the control block) of slot 0's publication time; slot 1's follows. */
const PUBLISHED_AT0 = 4;
/** Bytes of the control block (16 Int32 words; a cache line). */
const CONTROL_BYTES = 64;

/** `Atomics.waitAsync` (ES2024; in Node since 16), absent from the ES2023 lib typings this project compiles with. */
interface AtomicsWithWaitAsync {
  waitAsync(ta: Int32Array, index: number, value: number, timeoutMs?: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** Stable code of {@link PendingSnapshotTooLargeError}. */
const PendingSnapshotTooLargeErrorCode = { SNAPSHOT_TOO_LARGE: "FB_SNAPSHOT_TOO_LARGE" } as const;
/** A {@link PendingSnapshotTooLargeError}'s code with its metadata. */
type PendingSnapshotTooLargeErrorType = { code: typeof PendingSnapshotTooLargeErrorCode.SNAPSHOT_TOO_LARGE; bytes: number; slotBytes: number };

/** A snapshot larger than a slot. */
export class PendingSnapshotTooLargeError extends TypedError<PendingSnapshotTooLargeErrorType> {
  constructor(bytes: number, slotBytes: number) {
    super({ code: PendingSnapshotTooLargeErrorCode.SNAPSHOT_TOO_LARGE, bytes, slotBytes }, `pending snapshot of ${bytes} bytes does not fit the ${slotBytes}-byte shared slot`);
  }
}

/** Allocates the shared buffer for slots of `slotBytes` each. */
export function allocatePendingBuffer(slotBytes: number): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + 2 * slotBytes);
}

function slotBytesOf(sab: SharedArrayBuffer): number {
  return (sab.byteLength - CONTROL_BYTES) / 2;
}

/** The writing side (one per buffer, in the flashblocks worker). */
export class PendingBufferWriter {
  private readonly ctl: Int32Array;
  private readonly times: Float64Array;
  private readonly data: Uint8Array;
  private readonly slotBytes: number;

  constructor(sab: SharedArrayBuffer) {
    this.ctl = new Int32Array(sab, 0, CONTROL_BYTES / 4);
    this.times = new Float64Array(sab, 0, CONTROL_BYTES / 8);
    this.data = new Uint8Array(sab, CONTROL_BYTES);
    this.slotBytes = slotBytesOf(sab);
  }

  /** Publishes a snapshot; returns the new generation. Throws {@link PendingSnapshotTooLargeError}. */
  publish(s: PendingSnapshot): number {
    return this.publishPrepared(prepareSnapshot(s));
  }

  /**
   * Publishes a snapshot whose transactions are already encoded (the flashblocks worker's):
   * only its head is encoded here, then every chunk is copied straight into the slot.
   */
  publishPrepared(p: PreparedSnapshot): number {
    return this.publishChunks(encodePreparedSnapshot(p));
  }

  /** Publishes "no pending state". */
  clear(): number {
    return this.publishChunks([]);
  }

  private publishChunks(chunks: readonly Uint8Array[]): number {
    let length = 0;
    for (const c of chunks) length += c.length;
    if (length > this.slotBytes) throw new PendingSnapshotTooLargeError(length, this.slotBytes);
    const slot = 1 - Atomics.load(this.ctl, ACTIVE);
    Atomics.add(this.ctl, SEQ0 + slot, 1); // odd: writing
    let at = slot * this.slotBytes;
    for (const c of chunks) {
      this.data.set(c, at);
      at += c.length;
    }
    Atomics.store(this.ctl, LEN0 + slot, length);
    this.times[PUBLISHED_AT0 + slot] = performance.timeOrigin + performance.now();
    Atomics.add(this.ctl, SEQ0 + slot, 1); // even: stable
    Atomics.store(this.ctl, ACTIVE, slot);
    const gen = Atomics.add(this.ctl, GEN, 1) + 1;
    Atomics.notify(this.ctl, GEN);
    return gen;
  }
}

/** The reading side: decodes each generation once and hands out the decoded snapshot. */
export class PendingBufferReader {
  private readonly ctl: Int32Array;
  private readonly times: Float64Array;
  private readonly data: Uint8Array;
  private readonly slotBytes: number;
  private seenGen = 0;
  private cached: PendingSnapshot | undefined;
  /** When the snapshot {@link read} last decoded was published (same clock as `receivedAt`), and how long its decode took (ms). */
  lastPublication: { publishedAt: number; decodeMs: number } | undefined;

  constructor(sab: SharedArrayBuffer) {
    this.ctl = new Int32Array(sab, 0, CONTROL_BYTES / 4);
    this.times = new Float64Array(sab, 0, CONTROL_BYTES / 8);
    this.data = new Uint8Array(sab, CONTROL_BYTES);
    this.slotBytes = slotBytesOf(sab);
  }

  /** Current generation (bumped by every publication). */
  generation(): number {
    return Atomics.load(this.ctl, GEN);
  }

  /** The latest published snapshot (undefined when none or cleared); decodes only on a new generation. */
  read(): PendingSnapshot | undefined {
    const gen = Atomics.load(this.ctl, GEN);
    if (gen === this.seenGen) return this.cached;
    for (let attempt = 0; attempt < PENDING_READ_MAX_ATTEMPTS; attempt++) {
      const g = Atomics.load(this.ctl, GEN);
      const slot = Atomics.load(this.ctl, ACTIVE);
      const before = Atomics.load(this.ctl, SEQ0 + slot);
      if ((before & 1) === 1) continue;
      const len = Atomics.load(this.ctl, LEN0 + slot);
      const publishedAt = this.times[PUBLISHED_AT0 + slot]!;
      const copy = this.data.slice(slot * this.slotBytes, slot * this.slotBytes + len);
      if (Atomics.load(this.ctl, SEQ0 + slot) !== before) continue;
      const t0 = performance.now();
      this.cached = len === 0 ? undefined : decodePendingSnapshot(copy);
      this.lastPublication = this.cached === undefined ? undefined : { publishedAt, decodeMs: performance.now() - t0 };
      this.seenGen = g;
      return this.cached;
    }
    return this.cached;
  }

  /**
   * Resolves when the generation moves past `gen` or after `timeoutMs` (with the generation
   * then current). Uses `Atomics.waitAsync`: no thread blocks and no message is exchanged.
   */
  async waitForChange(gen: number, timeoutMs: number): Promise<number> {
    const r = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(this.ctl, GEN, gen, timeoutMs);
    if (r.async) await r.value;
    return Atomics.load(this.ctl, GEN);
  }
}
