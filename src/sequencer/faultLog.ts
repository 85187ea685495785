/**
 * Logging of a failure that repeats (the devnet producers retry a failed block every block time):
 * the first occurrence of a reason at warn or error, the same reason again at debug, so a full disk
 * writes one line instead of one a block. The producers' failure counters count every occurrence.
 */
import type { Logger } from "pino";

/** Logs each distinct failure reason once at its level, repeats at debug (see the module comment). */
export class FaultLog {
  /** The message of the last failure logged at its level. */
  private last: string | undefined;

  constructor(private readonly log: Logger) {}

  /** Logs `e` under `what`: at `level` if its message differs from the last one logged, else at debug. */
  report(e: unknown, what: string, level: "warn" | "error" = "warn"): void {
    const reason = e instanceof Error ? e.message : String(e);
    if (reason === this.last) {
      this.log.debug({ err: e }, what);
      return;
    }
    this.last = reason;
    this.log[level]({ err: e }, what);
  }

  /** Forgets the last reason (the operation succeeded): its next failure is logged at its level again. */
  clear(): void {
    this.last = undefined;
  }
}
