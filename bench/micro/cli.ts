/**
 * `basalt bench micro` / `node dist/bench/micro.js`: tinybench micro-benchmarks of basalt's hot
 * paths on a real devnet block — RLP encode/decode of the block, its JSON answers
 * (eth_getBlockByNumber hashes/full, eth_getBlockReceipts), decode + sender recovery (native and
 * pure JS), keccak256 (native and JS), the transactions/receipts trie roots (ordered trie and
 * @ethereumjs/mpt), block import (Mgas/s) and eth_estimateGas cases. Every case's output is
 * checked once before it is timed; any failed case makes the run fail (after the report).
 *
 * Options: `--time <ms per case, default 500>`, `--filter <substring of case names>`,
 * `--txs <user transactions of the block, default 200>`, `--json <file>` (the JSON report),
 * `--out <dir>` (writes micro.json and micro.txt there).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadNative } from "../../src/chain/crypto.js";
import { BasaltError } from "../../src/util/errors.js";
import { BLOCK_CASE_NAMES, blockCases } from "./block.js";
import { RECOVERY_CASE_NAMES, cryptoCases } from "./crypto.js";
import { ESTIMATE_CASE_NAMES, estimateGasCases } from "./estimateGas.js";
import { IMPORT_CASE_NAME, executionCases } from "./execution.js";
import { DEFAULT_BLOCK_TXS, buildMicroFixture, type MicroFixture } from "./fixture.js";
import { runCase, type MicroCase, type MicroResult } from "./harness.js";
import { formatTable, machineInfo, type MicroReport } from "./report.js";
import { TRIE_CASE_NAMES, trieCases } from "./trie.js";

/** Default timed budget per case: tinybench's order of magnitude, the whole run in well under a minute. */
const DEFAULT_TIME_MS = 500;

/** Options of a micro-benchmark run. */
export interface MicroOptions {
  /** Timed budget per case in ms. */
  timeMs: number;
  /** Only cases whose name contains this substring. */
  filter?: string;
  /** User transactions of the benchmark block. */
  txs: number;
  /** Where to write the JSON report. */
  json?: string;
  /** Directory for micro.json and micro.txt. */
  out?: string;
}

/** A wrong command line. */
export class MicroArgsError extends BasaltError {
  constructor(message: string) {
    super("MICRO_BAD_ARGUMENT", message);
  }
}

/** Some cases failed (their check, preparation or timing); the report lists why. */
export class MicroFailedError extends BasaltError {
  constructor(failed: MicroResult[]) {
    super("MICRO_CASES_FAILED", `${failed.length} micro-benchmark case(s) failed: ${failed.map((r) => `${r.name} (${r.error})`).join("; ")}`, {
      cases: failed.map((r) => r.name),
    });
  }
}

/** Usage text of `--help`. */
export const MICRO_USAGE = [
  `usage: basalt bench micro [--time <ms per case, default ${DEFAULT_TIME_MS}>] [--filter <substring>]`,
  `                          [--txs <n, default ${DEFAULT_BLOCK_TXS}>] [--json <file>] [--out <dir>]`,
].join("\n");

/** Parses the command line (`--name value` or `--name=value`). */
export function parseMicroArgs(argv: string[]): MicroOptions {
  const opts: MicroOptions = { timeMs: DEFAULT_TIME_MS, txs: DEFAULT_BLOCK_TXS };
  const positive = (name: string, v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new MicroArgsError(`--${name} must be a positive integer, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new MicroArgsError(`unexpected argument "${arg}"; options are --time, --filter, --txs, --json, --out`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const value = (): string => {
      if (eq >= 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new MicroArgsError(`--${name} needs a value`);
      return v;
    };
    switch (name) {
      case "time":
        opts.timeMs = positive(name, value());
        break;
      case "txs":
        opts.txs = positive(name, value());
        break;
      case "filter":
        opts.filter = value();
        break;
      case "json":
        opts.json = value();
        break;
      case "out":
        opts.out = value();
        break;
      default:
        throw new MicroArgsError(`unknown option --${name}; options are --time, --filter, --txs, --json, --out`);
    }
  }
  return opts;
}

/** Every case name that needs the benchmark chain (all but the keccak cases). */
const FIXTURE_CASE_NAMES: readonly string[] = [
  ...Object.values(BLOCK_CASE_NAMES),
  ...Object.values(RECOVERY_CASE_NAMES),
  ...TRIE_CASE_NAMES,
  IMPORT_CASE_NAME,
  ...Object.values(ESTIMATE_CASE_NAMES),
];

/** The cases to run, in report order. */
function allCases(fx: MicroFixture | undefined): MicroCase[] {
  if (fx === undefined) return cryptoCases(undefined);
  return [...blockCases(fx), ...cryptoCases(fx), ...trieCases(fx), ...executionCases(fx), ...estimateGasCases(fx)];
}

/**
 * Runs the selected cases (building the benchmark chain when any of them needs it) and returns
 * the report. Progress goes to stderr. Does not throw for failed cases: see `ok` of each result.
 */
export async function runMicro(opts: MicroOptions, progress: (line: string) => void = (l) => process.stderr.write(l + "\n")): Promise<MicroReport> {
  const started = performance.now();
  const selected = (name: string): boolean => opts.filter === undefined || name.includes(opts.filter);
  let fx: MicroFixture | undefined;
  try {
    if (FIXTURE_CASE_NAMES.some(selected)) {
      progress(`micro: building the benchmark chain (a block of ${opts.txs} workload transactions)`);
      fx = await buildMicroFixture({ txs: opts.txs });
    }
    const cases = allCases(fx).filter((c) => selected(c.name));
    if (cases.length === 0) throw new MicroArgsError(`--filter "${opts.filter}" matches no case`);
    const results: MicroResult[] = [];
    for (const c of cases) {
      progress(`micro: ${c.name}`);
      results.push(await runCase(c, { timeMs: opts.timeMs }));
    }
    const header = fx?.block.header;
    const block =
      fx === undefined || header === undefined
        ? undefined
        : { number: header.number.toString(), transactions: fx.txCount, gasUsed: header.gasUsed.toString(), rlpBytes: fx.rlp.length };
    return {
      bench: "micro",
      machine: machineInfo(),
      options: { timeMs: opts.timeMs, txs: opts.txs, ...(opts.filter === undefined ? {} : { filter: opts.filter }) },
      ...(block === undefined ? {} : { block }),
      nativeCrypto: loadNative() !== undefined,
      results,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await fx?.close();
  }
}

function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * Entry of `basalt bench micro` and `node dist/bench/micro.js`: runs, prints the table to stdout,
 * writes the reports asked for, and throws {@link MicroFailedError} when a case failed.
 */
export async function main(argv: string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(MICRO_USAGE);
    return;
  }
  const opts = parseMicroArgs(argv);
  const report = await runMicro(opts);
  const table = formatTable(report);
  console.log(table);
  const json = JSON.stringify(report, null, 2) + "\n";
  if (opts.json !== undefined) writeFile(opts.json, json);
  if (opts.out !== undefined) {
    writeFile(join(opts.out, "micro.json"), json);
    writeFile(join(opts.out, "micro.txt"), table + "\n");
  }
  const failed = report.results.filter((r) => !r.ok);
  if (failed.length > 0) throw new MicroFailedError(failed);
}
