/** Memory sampling of the server under test (Linux /proc). */
import { readFileSync } from "node:fs";

/** The `VmRSS:  123456 kB` line of /proc/<pid>/status. */
const VM_RSS_LINE = /^VmRSS:\s+(\d+)\s+kB/m;
/** KiB per MiB. */
const KIB_PER_MIB = 1024;

/**
 * The resident set size of process `pid` in MiB (rounded to 0.1), read from `/proc/<pid>/status`;
 * undefined when that file cannot be read (not Linux, process gone, no permission) or lacks VmRSS.
 */
export function readRssMiB(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const m = VM_RSS_LINE.exec(text);
  if (m === null) return undefined;
  return Math.round((Number(m[1]) / KIB_PER_MIB) * 10) / 10;
}
