/**
 * The known-failures list of the EEST state tests: `docs/conformance/eest-known-failures.md`.
 *
 * A markdown table with the columns `engine | case | reason`, one row per case an engine
 * fails; the case id is written as inline code with `|` escaped as `\|` (as GFM tables
 * require). The runner fails on a failing case missing from the table and on a listed case
 * that passes (a stale entry), so the table is always the exact list of failures.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { FORKS, REPO_ROOT, type Fork } from "./fixtures.js";

/** The known-failures file. */
export const KNOWN_FAILURES_FILE = path.join(REPO_ROOT, "docs", "conformance", "eest-known-failures.md");

/** One row of the known-failures table. */
export interface KnownFailure {
  engine: string;
  caseId: string;
  /** The case's fork (from the id). */
  fork: Fork;
  reason: string;
  /** 1-based line in the file. */
  line: number;
}

/** Splits a markdown table row on unescaped `|` (an escaped `\|` stays in its cell, unescaped). */
export function tableCells(row: string): string[] {
  const out: string[] = [];
  let cur = "";
  const body = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\" && body[i + 1] === "|") {
      cur += "|";
      i++;
    } else if (ch === "|") {
      out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

/** The fork of a case id (`<file>::<name>::<fork>::d<i>g<i>v<i>`), or undefined when malformed. */
export function forkOfId(id: string): Fork | undefined {
  const parts = id.split("::");
  const fork = parts[parts.length - 2];
  if (parts.length < 4 || !/^d\d+g\d+v\d+$/.test(parts[parts.length - 1] ?? "")) return undefined;
  return (FORKS as readonly string[]).includes(fork ?? "") ? (fork as Fork) : undefined;
}

/** Formats one row of the table (the inverse of the parser). */
export function formatRow(engine: string, caseId: string, reason: string): string {
  const esc = (s: string): string => s.replace(/\|/g, "\\|");
  return `| ${esc(engine)} | \`${esc(caseId)}\` | ${esc(reason)} |`;
}

/** A body row of a markdown table: its cells, where it stands (`file:line`) and its 1-based line. */
export interface TableRow {
  cells: string[];
  where: string;
  line: number;
}

/**
 * The body rows of the markdown tables in `text` whose header row is exactly `header`, each with
 * `header.length` cells, and the inline-code cell `codeColumn` unwrapped (the case id). Throws on a
 * malformed row, naming `file:line`.
 */
export function tableRows(text: string, header: readonly string[], codeColumn: number, file: string): TableRow[] {
  const out: TableRow[] = [];
  let inTable = false;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith("|")) {
      inTable = false;
      return;
    }
    const c = tableCells(line);
    if (!inTable) {
      if (c.length === header.length && c.every((x, j) => x === header[j])) inTable = true;
      return;
    }
    if (c.every((x) => /^:?-+:?$/.test(x))) return; // the delimiter row
    const where = `${file}:${i + 1}`;
    if (c.length !== header.length) throw new Error(`${where}: expected ${header.length} cells (${header.join(" | ")}), got ${c.length}`);
    const m = /^`(.+)`$/.exec(c[codeColumn] as string);
    if (m?.[1] === undefined) throw new Error(`${where}: the case id must be inline code (\`...\`)`);
    c[codeColumn] = m[1];
    if (c.some((x) => x === "")) throw new Error(`${where}: ${header.join(", ")} must not be empty`);
    out.push({ cells: c, where, line: i + 1 });
  });
  return out;
}

/**
 * Parses the table of a known-failures markdown text. Throws on a malformed row, a case id
 * that names no fork, or a duplicate (engine, case).
 */
export function parseKnownFailures(text: string, file = KNOWN_FAILURES_FILE): KnownFailure[] {
  const out: KnownFailure[] = [];
  const seen = new Set<string>();
  for (const { cells, where, line } of tableRows(text, ["engine", "case", "reason"], 1, file)) {
    const [engine, caseId, reason] = cells as [string, string, string];
    const fork = forkOfId(caseId);
    if (fork === undefined) throw new Error(`${where}: malformed case id ${caseId}`);
    const key = `${engine}\n${caseId}`;
    if (seen.has(key)) throw new Error(`${where}: duplicate entry for ${engine} ${caseId}`);
    seen.add(key);
    out.push({ engine, caseId, fork, reason, line });
  }
  return out;
}

/** Reads and parses {@link KNOWN_FAILURES_FILE}. */
export function loadKnownFailures(file = KNOWN_FAILURES_FILE): KnownFailure[] {
  return parseKnownFailures(readFileSync(file, "utf8"), file);
}
