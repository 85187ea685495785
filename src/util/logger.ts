/**
 * Structured logging with pino. Levels (lodestar policy): error/warn for faults, info is
 * rare (startup, sync milestones), per-request detail at debug; untrusted payloads are never
 * logged above debug.
 */
import { pino, type Logger } from "pino";
import { Writable } from "node:stream";

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
        const extra = Object.keys(rest).length > 0 ? " " + Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ") : "";
        process.stdout.write(`${new Date(time as number).toISOString()} ${label.toUpperCase().padEnd(5)} ${String(msg)}${extra}\n`);
      } catch {
        process.stdout.write(chunk);
      }
      cb();
    },
  });
  return pino({ level, base: { name: "basalt" } }, stream);
}
