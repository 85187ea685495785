/**
 * Structured logging with pino. Levels (lodestar policy): error/warn for faults, info is
 * rare (startup, sync milestones), per-request detail at debug; untrusted payloads are never
 * logged above debug. Each subsystem logs through its own child (`logger.child({ subsystem })`,
 * derived where the subsystem's object is built), and errors are logged as objects (`{ err }`):
 * pino serializes their type, message, stack and code.
 */
import { pino, type Logger } from "pino";
import { Writable } from "node:stream";

/**
 * A field of a pretty line: strings as they are; a serialized error (`{ err }`, which pino
 * writes with its type, message, stack and own fields such as `code`) as its message and code;
 * anything else as JSON.
 */
function prettyValue(key: string, v: unknown): string {
  if (typeof v === "string") return v;
  if (key === "err" && typeof v === "object" && v !== null && typeof (v as { message?: unknown }).message === "string") {
    const { message, code } = v as { message: string; code?: unknown };
    return typeof code === "string" ? `${message} code=${code}` : message;
  }
  return JSON.stringify(v);
}

/** Creates the process logger writing to stdout; "pretty" prints one readable line per entry. */
export function createLogger(level: string, format: "json" | "pretty" = "json"): Logger {
  if (format === "json") return pino({ level, base: { name: "basalt" } });
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      try {
        const o = JSON.parse(chunk.toString()) as Record<string, unknown>;
        const { level: lv, time, msg, name, pid, hostname, ...rest } = o;
        void name;
        void pid;
        void hostname;
        const label = pino.levels.labels[lv as number] ?? String(lv);
        const extra = Object.keys(rest).length > 0 ? " " + Object.entries(rest).map(([k, v]) => `${k}=${prettyValue(k, v)}`).join(" ") : "";
        process.stdout.write(`${new Date(time as number).toISOString()} ${label.toUpperCase().padEnd(5)} ${String(msg)}${extra}\n`);
      } catch {
        process.stdout.write(chunk);
      }
      cb();
    },
  });
  return pino({ level, base: { name: "basalt" } }, stream);
}
