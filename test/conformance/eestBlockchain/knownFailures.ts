/**
 * The known-failures list of the EEST blockchain tests: `docs/conformance/eest-blockchain-known-failures.md`.
 *
 * A markdown table with the columns `case | reason`, one row per case basalt fails; the case id
 * (the fixture's test name) is written as inline code with `|` escaped as `\|`. The runner fails
 * on a failing case missing from the table and on a listed case that passes (a stale entry), so
 * the table is always the exact list of failures.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../eest/fixtures.js";
import { tableRows } from "../eest/knownFailures.js";

/** The known-failures file. */
export const KNOWN_FAILURES_FILE = path.join(REPO_ROOT, "docs", "conformance", "eest-blockchain-known-failures.md");

/** One row of the known-failures table. */
export interface KnownFailure {
  caseId: string;
  reason: string;
  /** 1-based line in the file. */
  line: number;
}

/** Formats one row of the table (the inverse of the parser). */
export function formatRow(caseId: string, reason: string): string {
  const esc = (s: string): string => s.replace(/\|/g, "\\|");
  return `| \`${esc(caseId)}\` | ${esc(reason)} |`;
}

/** Parses the table of a known-failures markdown text. Throws on a malformed row or a duplicate case. */
export function parseKnownFailures(text: string, file = KNOWN_FAILURES_FILE): KnownFailure[] {
  const out: KnownFailure[] = [];
  const seen = new Set<string>();
  for (const { cells, where, line } of tableRows(text, ["case", "reason"], 0, file)) {
    const [caseId, reason] = cells as [string, string];
    if (seen.has(caseId)) throw new Error(`${where}: duplicate entry for ${caseId}`);
    seen.add(caseId);
    out.push({ caseId, reason, line });
  }
  return out;
}

/** Reads and parses {@link KNOWN_FAILURES_FILE}. */
export function loadKnownFailures(file = KNOWN_FAILURES_FILE): KnownFailure[] {
  return parseKnownFailures(readFileSync(file, "utf8"), file);
}
