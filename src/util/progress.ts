/**
 * Progress of long block runs (`basalt import`, follow-mode catch-up) for their periodic info
 * lines: blocks per second over the last interval and the time left at that pace.
 */

/** One progress reading. */
interface ProgressSample {
  /** Blocks per second since the previous sample (or since the meter started). */
  blocksPerSecond: number;
  /** Seconds left for the remaining blocks at that pace; undefined when the total is unknown or nothing moved. */
  etaSeconds?: number;
  /** {@link etaSeconds} as text, e.g. "1h02m", "4m05s", "12s". */
  eta?: string;
}

/** Measures a count of processed blocks against a clock (milliseconds; injectable for tests). */
export class ProgressMeter {
  private lastAt: number;
  private lastDone: number;

  /** Starts measuring at `done` blocks already processed. */
  constructor(
    done = 0,
    private readonly now: () => number = Date.now,
  ) {
    this.lastAt = now();
    this.lastDone = done;
  }

  /** True once `intervalMs` has passed since the start or the previous {@link sample}. */
  due(intervalMs: number): boolean {
    return this.now() - this.lastAt >= intervalMs;
  }

  /**
   * Reads the pace since the previous sample (`done` is the running total) and, when `remaining`
   * is given, the time left at that pace; the next sample measures from here.
   */
  sample(done: number, remaining?: number): ProgressSample {
    const now = this.now();
    const seconds = Math.max((now - this.lastAt) / 1000, 0.001);
    const blocksPerSecond = Math.max(0, done - this.lastDone) / seconds;
    this.lastAt = now;
    this.lastDone = done;
    const out: ProgressSample = { blocksPerSecond: Math.round(blocksPerSecond * 10) / 10 };
    if (remaining !== undefined && blocksPerSecond > 0) {
      out.etaSeconds = Math.ceil(Math.max(0, remaining) / blocksPerSecond);
      out.eta = formatDuration(out.etaSeconds);
    }
    return out;
  }
}

/** Whole seconds as a short duration: "45s", "4m05s", "1h02m", "3d04h". */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const pad = (n: number): string => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d${pad(Math.floor((s % 86_400) / 3600))}h`;
}

/**
 * Number of top-level RLP items (blocks) in a concatenated block file, from the length prefixes
 * alone (no decoding), for the import's ETA. Stops counting at a truncated item (the import
 * reports that item's error when it reaches it).
 */
export function countRlpItems(buf: Uint8Array): number {
  let offset = 0;
  let count = 0;
  while (offset < buf.length) {
    const b = buf[offset] as number;
    let len: number;
    if (b < 0x80) len = 1;
    else if (b < 0xb8) len = 1 + (b - 0x80);
    else if (b < 0xc0 || b >= 0xf8) {
      const ll = b < 0xc0 ? b - 0xb7 : b - 0xf7;
      if (offset + 1 + ll > buf.length) break;
      let n = 0;
      for (let i = 0; i < ll; i++) n = n * 256 + (buf[offset + 1 + i] as number);
      len = 1 + ll + n;
    } else len = 1 + (b - 0xc0);
    if (offset + len > buf.length) break;
    offset += len;
    count++;
  }
  return count;
}
