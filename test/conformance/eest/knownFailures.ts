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

/** Splits a table row on unescaped `|` (an escaped `\|` stays in its cell, unescaped). */
function cells(row: string): string[] {
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

/**
 * Parses the table of a known-failures markdown text. Throws on a malformed row, a case id
 * that names no fork, or a duplicate (engine, case).
 */
export function parseKnownFailures(text: string, file = KNOWN_FAILURES_FILE): KnownFailure[] {
  const lines = text.split("\n");
  const out: KnownFailure[] = [];
  const seen = new Set<string>();
  let inTable = false;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith("|")) {
      inTable = false;
      return;
    }
    const c = cells(line);
    if (!inTable) {
      if (c.length === 3 && c[0] === "engine" && c[1] === "case" && c[2] === "reason") inTable = true;
      return;
    }
    if (c.every((x) => /^:?-+:?$/.test(x))) return; // the delimiter row
    const where = `${file}:${i + 1}`;
    if (c.length !== 3) throw new Error(`${where}: expected 3 cells (engine | case | reason), got ${c.length}`);
    const [engine, code, reason] = c as [string, string, string];
    const m = /^`(.+)`$/.exec(code);
    if (m?.[1] === undefined) throw new Error(`${where}: the case id must be inline code (\`...\`)`);
    const caseId = m[1];
    const fork = forkOfId(caseId);
    if (fork === undefined) throw new Error(`${where}: malformed case id ${caseId}`);
    if (engine === "" || reason === "") throw new Error(`${where}: engine and reason must not be empty`);
    const key = `${engine}\n${caseId}`;
    if (seen.has(key)) throw new Error(`${where}: duplicate entry for ${engine} ${caseId}`);
    seen.add(key);
    out.push({ engine, caseId, fork, reason, line: i + 1 });
  });
  return out;
}

/** Reads and parses {@link KNOWN_FAILURES_FILE}. */
export function loadKnownFailures(file = KNOWN_FAILURES_FILE): KnownFailure[] {
  return parseKnownFailures(readFileSync(file, "utf8"), file);
}
