/**
 * Runner for an ethereum/execution-apis rpc-compat suite against a real `basalt` process, as
 * hive's rpc-compat simulator does it:
 *
 * 1. `basalt init --datadir D --genesis genesis.json`, `basalt import --datadir D chain.rlp`;
 * 2. `basalt node` on free loopback ports, Engine API with hive's JWT secret;
 * 3. `headfcu.json` (engine_forkchoiceUpdatedV3) via the Engine API — must return VALID;
 * 4. every `<method>/<name>.io` in lexical order, sequentially, 5 s HTTP timeout per request,
 *    compared with {@link compareResponseText};
 * 5. stop the node, delete the datadir, write/print a per-method pass table.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, type NodeHandle } from "../helpers/basaltProcess.js";
import { DEFAULT_RPC_TIMEOUT_MS, engineRawCall, postRaw, type Json, type JsonRpcResponse } from "../helpers/rpc.js";
import { compareResponseText } from "./compare.js";
import { lexicalCompare, listSuiteMethods, loadSuiteTests, type IoTest } from "./ioFile.js";

/** Repository root (two levels above test/conformance). */
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Root of the vendored execution-apis fixtures: `<repo>/../shared/fixtures/execution-apis`. */
export const FIXTURES_ROOT: string = path.resolve(REPO_ROOT, "..", "shared", "fixtures", "execution-apis");

/**
 * Absolute path of a vendored suite.
 * @param name "prague" or "osaka"
 */
export function suiteDir(name: string): string {
  return path.join(FIXTURES_ROOT, name);
}

/** Setup stages that can fail before any test case runs. */
export type SetupStage = "load" | "init" | "import" | "start" | "fcu";

/** The suite could not be set up; `output` holds the relevant command output / response. */
export class SuiteSetupError extends Error {
  constructor(
    readonly stage: SetupStage,
    message: string,
    readonly output: string = "",
  ) {
    super(`rpc-compat setup failed at ${stage}: ${message}${output ? `\n${output}` : ""}`);
    this.name = "SuiteSetupError";
  }
}

/** Options of {@link runSuite}. */
export interface SuiteOptions {
  /** only run tests whose `<method>/<name>` matches (the setup still runs in full) */
  filter?: RegExp;
  /** per-request HTTP timeout; default 5000 ms */
  requestTimeoutMs?: number;
  /** timeout of `basalt init`; default 120 s */
  initTimeoutMs?: number;
  /** timeout of `basalt import`; default 300 s */
  importTimeoutMs?: number;
  /** readiness timeout of the node; default 30 s */
  readyTimeoutMs?: number;
  /** extra arguments for `basalt node` */
  nodeArgs?: string[];
  /** CLI entry script (default: the compiled basalt CLI, or $BASALT_CLI) */
  cli?: string;
  /** extra environment for every basalt process */
  env?: Record<string, string>;
  /** keep the temp datadir (path is logged); default false unless BASALT_CONFORMANCE_KEEP=1 */
  keepDatadir?: boolean;
  /** directory for the report and node log; default os.tmpdir() */
  reportDir?: string;
  /** print the table (console.log); default true */
  print?: boolean;
  /** compare speconly cases exactly too (their recorded answers are geth's) */
  strict?: boolean;
}

/** Outcome of one `.io` test. */
export interface CaseResult {
  /** `<method>/<name>` */
  name: string;
  method: string;
  speconly: boolean;
  ok: boolean;
  /** why it failed: comparison diff or transport error (with the pair index for multi-pair files) */
  diff?: string;
  /** raw response body of the failing pair (truncated) */
  response?: string;
  durationMs: number;
}

/** Per-method tally. */
export interface MethodTally {
  method: string;
  passed: number;
  total: number;
}

/** Result of {@link runSuite}. */
export interface SuiteResult {
  /** suite name (directory base name) */
  suite: string;
  suiteDir: string;
  results: CaseResult[];
  byMethod: MethodTally[];
  passed: number;
  total: number;
  /** markdown table `| method | passed | total |` with a total line */
  table: string;
  /** path of the written markdown report */
  reportPath: string;
  /** path of the node's full stdout/stderr log */
  nodeLogPath: string;
  /** engine_forkchoiceUpdatedV3 response */
  fcuResponse: Json;
}

const MAX_RESPONSE_IN_REPORT = 2000;

function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/**
 * Runs one `.io` test against `url`: sends each request verbatim, compares each response.
 * Never throws; transport failures become a failed result.
 */
export async function runIoTest(url: string, test: IoTest, requestTimeoutMs = DEFAULT_RPC_TIMEOUT_MS): Promise<CaseResult> {
  const started = Date.now();
  const base = { name: test.name, method: test.method, speconly: test.speconly };
  for (let i = 0; i < test.pairs.length; i++) {
    const pair = test.pairs[i]!;
    const where = test.pairs.length > 1 ? `pair ${i + 1}/${test.pairs.length} (line ${pair.line}): ` : "";
    let body: string;
    try {
      body = (await postRaw(url, pair.request, { timeoutMs: requestTimeoutMs })).body;
    } catch (err) {
      return { ...base, ok: false, diff: `${where}${(err as Error).message}`, durationMs: Date.now() - started };
    }
    const cmp = compareResponseText(body, pair.expected, { speconly: test.speconly });
    if (!cmp.ok) {
      return {
        ...base,
        ok: false,
        diff: `${where}${cmp.diff ?? "differs"}`,
        response: truncate(body.trim(), MAX_RESPONSE_IN_REPORT),
        durationMs: Date.now() - started,
      };
    }
  }
  return { ...base, ok: true, durationMs: Date.now() - started };
}

/**
 * Tallies results per method (every method directory of the suite appears, lexical order).
 */
export function tallyByMethod(results: CaseResult[], methods?: string[]): MethodTally[] {
  const map = new Map<string, MethodTally>();
  for (const m of methods ?? []) map.set(m, { method: m, passed: 0, total: 0 });
  for (const r of results) {
    const t = map.get(r.method) ?? { method: r.method, passed: 0, total: 0 };
    t.total++;
    if (r.ok) t.passed++;
    map.set(r.method, t);
  }
  return [...map.values()].sort((a, b) => lexicalCompare(a.method, b.method));
}

/**
 * Markdown pass table: `| method | passed | total |`, one row per method, then a total line.
 */
export function formatTable(byMethod: MethodTally[]): string {
  const rows = ["| method | passed | total |", "| --- | ---: | ---: |"];
  let passed = 0;
  let total = 0;
  for (const t of byMethod) {
    rows.push(`| ${t.method} | ${t.passed} | ${t.total} |`);
    passed += t.passed;
    total += t.total;
  }
  rows.push(`| **total** | **${passed}** | **${total}** |`);
  return rows.join("\n");
}

/**
 * Formats failing cases (name, diff, response) for assertion messages and the report.
 * @param maxCases list at most this many
 */
export function formatFailures(results: CaseResult[], maxCases = 50): string {
  const failing = results.filter((r) => !r.ok);
  const parts = failing.slice(0, maxCases).map((r) => {
    const resp = r.response !== undefined ? `\n  response: ${r.response}` : "";
    return `✗ ${r.name}${r.speconly ? " (speconly)" : ""}\n  ${(r.diff ?? "").split("\n").join("\n  ")}${resp}`;
  });
  if (failing.length > maxCases) parts.push(`… and ${failing.length - maxCases} more`);
  return parts.join("\n");
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Sends `headfcu.json` to the Engine API; throws {@link SuiteSetupError} unless the node answers
 * with `result.payloadStatus.status === "VALID"`.
 */
export async function sendHeadFcu(node: NodeHandle, fcuFile: string): Promise<Json> {
  const body = (await readFile(fcuFile, "utf8")).trim();
  let response: JsonRpcResponse;
  try {
    response = await engineRawCall(node.engineUrl, node.jwtSecret, body, { timeoutMs: 30_000 });
  } catch (err) {
    throw new SuiteSetupError("fcu", `engine_forkchoiceUpdatedV3 request failed: ${(err as Error).message}`, node.outputTail());
  }
  const result = response.result;
  const status = isRecord(result) && isRecord(result.payloadStatus) ? result.payloadStatus.status : undefined;
  if (response.error !== undefined || status !== "VALID") {
    throw new SuiteSetupError("fcu", `client rejected forkchoiceUpdated: ${JSON.stringify(response)}`, node.outputTail());
  }
  return response as Json;
}

/**
 * Runs a whole suite (see module doc). Throws {@link SuiteSetupError} if loading, init, import,
 * node start or the head FCU fail; test-case failures are reported in the result, not thrown.
 * @param dir suite directory containing genesis.json, chain.rlp, headfcu.json and method dirs
 */
export async function runSuite(dir: string, opts: SuiteOptions = {}): Promise<SuiteResult> {
  const suite = path.basename(path.resolve(dir));
  for (const f of ["genesis.json", "chain.rlp", "headfcu.json"]) {
    if (!existsSync(path.join(dir, f))) throw new SuiteSetupError("load", `${path.join(dir, f)} not found`);
  }
  let tests: IoTest[];
  let methods: string[];
  try {
    tests = loadSuiteTests(dir, opts.filter);
    methods = listSuiteMethods(dir).filter((m) => opts.filter === undefined || tests.some((t) => t.method === m));
  } catch (err) {
    throw new SuiteSetupError("load", (err as Error).message);
  }

  const reportDir = opts.reportDir ?? os.tmpdir();
  const reportPath = path.join(reportDir, `basalt-conformance-${suite}.md`);
  const nodeLogPath = path.join(reportDir, `basalt-conformance-${suite}.node.log`);
  await writeFile(nodeLogPath, "");
  const keep = opts.keepDatadir ?? process.env.BASALT_CONFORMANCE_KEEP === "1";
  const tmp = await makeTempDir(`basalt-conformance-${suite}-`);
  const datadir = path.join(tmp, "datadir");
  const cliOpts = { cli: opts.cli, env: opts.env };
  let node: NodeHandle | undefined;
  try {
    const initArgs = ["init", "--datadir", datadir, "--genesis", path.join(dir, "genesis.json")];
    const init = await runCli(initArgs, { ...cliOpts, timeoutMs: opts.initTimeoutMs ?? 120_000 });
    if (init.code !== 0) throw new SuiteSetupError("init", "basalt init failed", describeCliResult(initArgs, init));

    const importArgs = ["import", "--datadir", datadir, path.join(dir, "chain.rlp")];
    const imp = await runCli(importArgs, { ...cliOpts, timeoutMs: opts.importTimeoutMs ?? 300_000 });
    if (imp.code !== 0) throw new SuiteSetupError("import", "basalt import failed", describeCliResult(importArgs, imp));

    try {
      node = await startNode({
        datadir,
        args: opts.nodeArgs,
        cli: opts.cli,
        env: opts.env,
        readyTimeoutMs: opts.readyTimeoutMs,
        logFile: nodeLogPath,
      });
    } catch (err) {
      throw new SuiteSetupError("start", (err as Error).message);
    }
    const fcuResponse = await sendHeadFcu(node, path.join(dir, "headfcu.json"));

    const results: CaseResult[] = [];
    for (const test of tests) {
      const exit = node.exitInfo();
      if (exit !== undefined) {
        results.push({
          name: test.name,
          method: test.method,
          speconly: test.speconly,
          ok: false,
          diff: `node exited (code ${exit.code}, signal ${exit.signal}) before this test`,
          durationMs: 0,
        });
        continue;
      }
      results.push(await runIoTest(node.url, opts.strict === true ? { ...test, speconly: false } : test, opts.requestTimeoutMs));
    }

    const byMethod = tallyByMethod(results, methods);
    const passed = results.filter((r) => r.ok).length;
    const table = formatTable(byMethod);
    const failures = formatFailures(results, Number.POSITIVE_INFINITY);
    const report = [
      `# basalt rpc-compat: ${suite}`,
      "",
      `${passed}/${results.length} passed — fixtures ${dir}, ${new Date().toISOString()}`,
      "",
      table,
      "",
      ...(failures ? ["## Failures", "", "```", failures, "```", ""] : []),
    ].join("\n");
    await writeFile(reportPath, report);
    if (opts.print ?? true) {
      const failingNames = results.filter((r) => !r.ok).map((r) => `  ✗ ${r.name}`);
      console.log(
        `rpc-compat ${suite}: ${passed}/${results.length} passed\n${table}\n` +
          (failingNames.length ? `failing:\n${failingNames.join("\n")}\n` : "") +
          `report: ${reportPath}\nnode log: ${nodeLogPath}`,
      );
    }
    return { suite, suiteDir: dir, results, byMethod, passed, total: results.length, table, reportPath, nodeLogPath, fcuResponse };
  } finally {
    if (node !== undefined) await node.stop();
    if (keep) console.log(`rpc-compat ${suite}: kept datadir ${datadir}`);
    else await removeDir(tmp);
  }
}
