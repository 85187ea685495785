/**
 * The micro-benchmark report: the JSON document (`--json`, `--out`) and its text table (task,
 * ops/s, mean µs, p99 µs, samples, the per-item and derived figures).
 */
import { cpus, totalmem } from "node:os";
import type { MicroResult } from "./harness.js";

/** The machine a report was measured on. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

/** The benchmark block the cases ran on (absent when only fixture-free cases ran). */
export interface MicroBlockInfo {
  number: string;
  /** Transactions, the L1-attributes deposit included. */
  transactions: number;
  gasUsed: string;
  rlpBytes: number;
}

/** A whole micro-benchmark run. */
export interface MicroReport {
  bench: "micro";
  machine: MachineInfo;
  options: { timeMs: number; txs: number; filter?: string };
  block?: MicroBlockInfo;
  /** Whether the native keccak/secp256k1 bindings loaded (else the native cases are absent). */
  nativeCrypto: boolean;
  results: MicroResult[];
  /** Wall time of the whole run, fixture building included. */
  seconds: number;
}

/** The machine this process runs on. */
export function machineInfo(): MachineInfo {
  return {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** `n` with 3 significant digits (at least), thousands separated. */
function num(n: number): string {
  if (n === 0) return "0";
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(n))));
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** The report as a text table, one row per case, failures with their reason. */
export function formatTable(report: MicroReport): string {
  const m = report.machine;
  const crypto = report.nativeCrypto ? "on" : "off";
  const lines = [`machine: ${m.cpu} × ${m.cores}, ${m.memoryGiB} GiB, node ${m.node}, ${m.platform}; native crypto ${crypto}`];
  const b = report.block;
  if (b !== undefined) lines.push(`block ${b.number}: ${b.transactions} transactions (deposit included), ${b.gasUsed} gas, ${b.rlpBytes} bytes RLP`);
  const head = ["task", "ops/s", "mean µs", "p99 µs", "samples", "per item"];
  const rows = report.results.map((r) => {
    if (!r.ok) return [r.name, "FAILED", "", "", "", r.error ?? ""];
    const per = [r.perItem, r.derived].filter((f) => f !== undefined).map((f) => `${num(f.value)} ${f.unit}`);
    return [r.name, num(r.opsPerSecond), num(r.meanUs), num(r.p99Us), String(r.samples), per.join(", ")];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === 5 ? 0 : r[i]!.length))));
  const fmt = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : i === 5 ? c : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  lines.push(fmt(head), ...rows.map(fmt));
  lines.push(`total ${report.seconds.toFixed(1)} s`);
  return lines.join("\n");
}
