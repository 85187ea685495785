/**
 * The basalt-vs-anvil scenario (`node dist/bench/scenario.js`): builds the same realistic chain
 * (blocks of ~200 transfers, ERC-20 transfers and swaps, from the same signed transactions) in
 * basalt and in anvil, checks both executed it identically, serves basalt's exact block and
 * receipts bytes from a bare uWebSockets.js server (also every block's, per request body), runs
 * the same load against all of them (one at a time), restarts basalt on the same chain with the
 * response cache off and loads every block's full body and receipts (the path of older blocks),
 * then calibrates the load generator against a bare server (its own ceiling per answer size, next
 * to wrk's), then an overload step on basalt's eth_call at 10× its peak; prints
 * the load table and the targets (ratios basalt/anvil and basalt/bare, latency, overload) with
 * PASS/MISS/GENERATOR-BOUND, and writes the reports and targets.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { DEFAULT_CALIBRATION_SECONDS } from "../load/calibrate.js";
import { DEFAULT_PIPELINE, DEFAULT_THREADS } from "../load/generator.js";
import { formatTable, writeReport } from "../load/report.js";
import { readRssMiB } from "../load/rss.js";
import { runLoad } from "../load/run.js";
import type { Corpus, Endpoint, LoadReport } from "../load/types.js";
import { buildWorkload } from "../workload/workload.js";
import { startAnvil, type AnvilNode } from "./anvil.js";
import { startBareServer, type BareServer } from "./bareServer.js";
import { startBasalt, type BasaltNode } from "./basalt.js";
import { buildChains, type Agreement } from "./chain.js";
import { BLOCK_FULL_BODY, CORPUS, DISTINCT_CALL_BODIES, ENDPOINT, RECEIPTS_BODY, scenarioCorpora, uncachedBodies, uncachedCorpora } from "./corpora.js";
import { recordSummary } from "../summary.js";
import { ScenarioError } from "./errors.js";
import { stopAllChildren } from "./processes.js";
import { postText } from "./rpc.js";
import { computeTargets, formatTargets, throughput, type OverloadResult, type TargetLine } from "./targets.js";

/** Where results go without --out (a timestamped folder under it, relative to the working directory). */
export const DEFAULT_OUT_PARENT = "bench-results";
/** Full-run defaults: 10 blocks of 200 transactions (a busy Base block), the load tool's rate ladder, 3 s steps, a 5 s peak of 32 clients. */
const FULL = {
  blocks: 10,
  txsPerBlock: 200,
  steps: [1, 4, 16, 64, 256, 512, 2048],
  stepSeconds: 3,
  peakConcurrency: 32,
  peakSeconds: 5,
  overloadSeconds: 5,
  /** funded accounts of the eth_getBalance corpus (distinct existing addresses) */
  holders: 1_024,
};
/** --quick: 2 blocks, two steps (one at the latency target's 256 req/s) of 1 s, a 2 s peak and overload — about a minute and a half. */
const QUICK = { ...FULL, blocks: 2, steps: [16, 256], stepSeconds: 1, peakSeconds: 2, overloadSeconds: 2, holders: 256 };
/** Overload: offered rate as a multiple of basalt's measured eth_call throughput (the 10×). */
const DEFAULT_OVERLOAD_FACTOR = 10;
/** Connections of the overload step: above basalt's default execution queue (256 per thread), so the queue bound is what answers. */
const OVERLOAD_SOCKETS = 1024;
/** RSS sampling period during the overload step. */
const RSS_SAMPLE_MS = 100;
/** Pause after the overload step before the "after" RSS sample (lets queued work drain). */
const OVERLOAD_SETTLE_MS = 1_000;

/** What {@link runScenario} runs. */
export interface ScenarioOptions {
  blocks: number;
  txsPerBlock: number;
  /** accounts funded in setup for the eth_getBalance corpus */
  holders: number;
  /** the --quick variant (labels its figures in the summary) */
  quick?: boolean;
  steps: number[];
  stepSeconds: number;
  /** closed-loop peak; undefined = none */
  peak?: { concurrency: number; seconds: number };
  /** seconds of the overload step; 0 = no overload stage */
  overloadSeconds: number;
  /** overload rate = factor × basalt's eth_call throughput */
  overloadFactor: number;
  /** result directory */
  out: string;
  /** more `basalt node` arguments */
  basaltArgs?: string[];
  /** generator threads (default DEFAULT_THREADS) */
  threads?: number;
  /** peak pipelining (default DEFAULT_PIPELINE) */
  pipeline?: number;
  /** seconds of each calibration run (default DEFAULT_CALIBRATION_SECONDS) */
  calibrationSeconds?: number;
  /** progress lines (default: none) */
  onProgress?: (line: string) => void;
}

/** Everything one scenario run produced. */
export interface ScenarioResult {
  agreement: Agreement;
  report: LoadReport;
  overload?: OverloadResult;
  targets: TargetLine[];
  files: { json: string; html: string; targets: string };
}

/** The usage text of the scenario. */
export const SCENARIO_USAGE = `node dist/bench/scenario.js: basalt vs anvil (and vs a bare server of basalt's bytes) on the same chain

Options:
  --blocks N              workload blocks (default ${FULL.blocks}; --quick ${QUICK.blocks})
  --txs-per-block N       transactions per block (default ${FULL.txsPerBlock})
  --holders N             accounts funded in setup for the eth_getBalance corpus (default ${FULL.holders}; --quick ${QUICK.holders})
  --steps a,b,c           open-loop rates in req/s (default ${FULL.steps.join(",")}; --quick ${QUICK.steps.join(",")})
  --step-seconds N        seconds per step (default ${FULL.stepSeconds}; --quick ${QUICK.stepSeconds})
  --peak-concurrency N    closed-loop peak clients (default ${FULL.peakConcurrency})
  --peak-seconds N        seconds of the peak, 0 = none (default ${FULL.peakSeconds}; --quick ${QUICK.peakSeconds})
  --overload-seconds N    seconds of the overload step, 0 = none (default ${FULL.overloadSeconds}; --quick ${QUICK.overloadSeconds})
  --overload-factor N     overload rate as a multiple of basalt's eth_call throughput (default ${DEFAULT_OVERLOAD_FACTOR})
  --threads N             load generator threads (default ${DEFAULT_THREADS})
  --pipeline N            peak requests per connection (default ${DEFAULT_PIPELINE}; 1 = no pipelining)
  --calibration-seconds N seconds of each generator calibration run, and of wrk's (default ${DEFAULT_CALIBRATION_SECONDS})
  --out DIR               result directory (default ./${DEFAULT_OUT_PARENT}/scenario-<timestamp>)
  --quick                 a short run (the --quick defaults above)
  -h, --help              this text
`;

/** Value flags of the scenario and whether their value is a list, an integer, a number ≥ 0, or a path. */
const VALUE_FLAGS: Record<string, "int" | "num0" | "int0" | "list" | "path"> = {
  "--blocks": "int",
  "--txs-per-block": "int",
  "--holders": "int0",
  "--steps": "list",
  "--step-seconds": "num0",
  "--peak-concurrency": "int",
  "--peak-seconds": "num0",
  "--overload-seconds": "num0",
  "--overload-factor": "num0",
  "--threads": "int0",
  "--pipeline": "int",
  "--calibration-seconds": "num0",
  "--out": "path",
};

function argError(flag: string, message: string): ScenarioError {
  return new ScenarioError("BENCH_SCENARIO_ARG", `${flag}: ${message}`, { option: flag });
}

function number(flag: string, raw: string, kind: "int" | "num0" | "int0"): number {
  const n = Number(raw);
  const whole = kind === "num0" || Number.isInteger(n);
  const ok = raw.trim() !== "" && Number.isFinite(n) && whole && n >= (kind === "int" ? 1 : 0);
  const expected = kind === "int" ? "an integer >= 1" : kind === "int0" ? "an integer >= 0" : "a number >= 0";
  if (!ok) throw argError(flag, `invalid value ${JSON.stringify(raw)}: expected ${expected}`);
  return n;
}

/** Parses the scenario's arguments; returns undefined for --help. Throws `BENCH_SCENARIO_ARG` naming the flag. */
export function parseScenarioArgs(argv: readonly string[], now: Date = new Date()): ScenarioOptions | undefined {
  const given = new Map<string, string>();
  let quick = false;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    const eq = tok.startsWith("--") ? tok.indexOf("=") : -1;
    const flag = eq >= 0 ? tok.slice(0, eq) : tok;
    if (flag === "--help" || flag === "-h") return undefined;
    if (flag === "--quick") {
      if (eq >= 0) throw argError(flag, "takes no value");
      quick = true;
      continue;
    }
    if (VALUE_FLAGS[flag] === undefined) throw argError(flag, "unknown flag; see --help");
    const value = eq >= 0 ? tok.slice(eq + 1) : argv[++i];
    if (value === undefined) throw argError(flag, "missing value");
    given.set(flag, value);
  }
  const d = quick ? QUICK : FULL;
  const num = (flag: string, dflt: number): number => {
    const raw = given.get(flag);
    return raw === undefined ? dflt : number(flag, raw, VALUE_FLAGS[flag] as "int" | "num0" | "int0");
  };
  const stepsRaw = given.get("--steps");
  const steps = stepsRaw === undefined ? d.steps : stepsRaw.split(",").map((s) => number("--steps", s, "num0"));
  if (steps.length === 0 || steps.some((s) => s <= 0)) {
    throw argError("--steps", `invalid value ${JSON.stringify(stepsRaw)}: expected positive rates, e.g. 16,256`);
  }
  const stepSeconds = num("--step-seconds", d.stepSeconds);
  if (stepSeconds <= 0) throw argError("--step-seconds", "expected a number > 0");
  const peakSeconds = num("--peak-seconds", d.peakSeconds);
  const overloadFactor = num("--overload-factor", DEFAULT_OVERLOAD_FACTOR);
  if (overloadFactor <= 0) throw argError("--overload-factor", "expected a number > 0");
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  const calibrationSeconds = num("--calibration-seconds", DEFAULT_CALIBRATION_SECONDS);
  if (calibrationSeconds <= 0) throw argError("--calibration-seconds", "expected a number > 0");
  return {
    threads: num("--threads", DEFAULT_THREADS),
    pipeline: num("--pipeline", DEFAULT_PIPELINE),
    calibrationSeconds,
    blocks: num("--blocks", d.blocks),
    txsPerBlock: num("--txs-per-block", d.txsPerBlock),
    holders: num("--holders", d.holders),
    quick,
    steps,
    stepSeconds,
    ...(peakSeconds > 0 ? { peak: { concurrency: num("--peak-concurrency", d.peakConcurrency), seconds: peakSeconds } } : {}),
    overloadSeconds: num("--overload-seconds", d.overloadSeconds),
    overloadFactor,
    out: given.get("--out") ?? path.join(DEFAULT_OUT_PARENT, `scenario-${stamp}`),
  };
}

/** Fetches basalt's exact answer bytes to `body` (checked to be a JSON-RPC result). */
async function capture(url: string, body: string, what: string): Promise<Buffer> {
  const text = await postText(url, body);
  const parsed = JSON.parse(text) as { result?: unknown; error?: unknown };
  if (parsed.result === undefined || parsed.result === null) {
    throw new ScenarioError("BENCH_SCENARIO_RPC", `basalt ${what}: a result expected, got ${text.slice(0, 200)}`);
  }
  return Buffer.from(text, "utf8");
}

/**
 * The overload stage: one open-loop step of the eth_call (transfer) corpus on basalt alone at
 * `factor ×` its measured eth_call throughput, with basalt's RSS sampled before, during (every
 * 100 ms, the highest kept) and a second after.
 */
async function runOverload(basalt: BasaltNode, report: LoadReport, corpora: Corpus[], opts: ScenarioOptions): Promise<OverloadResult | undefined> {
  const peakRps = throughput(report, ENDPOINT.basalt, CORPUS.callTransfer);
  const corpus = corpora.find((c) => c.name === CORPUS.callTransfer);
  if (peakRps === undefined || peakRps <= 0 || corpus === undefined) return undefined;
  const rate = Math.max(1, Math.round(peakRps * opts.overloadFactor));
  const progress = opts.onProgress ?? ((): void => undefined);
  progress(`overload: eth_call at ${rate} req/s (${opts.overloadFactor}× basalt's ${peakRps.toFixed(0)} req/s) for ${opts.overloadSeconds} s`);
  const rssBeforeMiB = readRssMiB(basalt.pid);
  let rssDuringMaxMiB: number | undefined;
  const timer = setInterval(() => {
    const v = readRssMiB(basalt.pid);
    if (v !== undefined && (rssDuringMaxMiB === undefined || v > rssDuringMaxMiB)) rssDuringMaxMiB = v;
  }, RSS_SAMPLE_MS);
  let overloadReport: LoadReport;
  try {
    overloadReport = await runLoad({
      endpoints: [{ name: ENDPOINT.basalt, url: basalt.url, pid: basalt.pid }],
      corpora: [{ ...corpus, endpoints: [ENDPOINT.basalt] }],
      steps: [rate],
      stepSeconds: opts.overloadSeconds,
      // Many clients at once (as behind a load balancer): more connections than basalt's execution queue admits.
      maxSockets: OVERLOAD_SOCKETS,
      ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
      // The overload measures how basalt fails, not a throughput: the main run's calibration stands.
      calibration: false,
      onProgress: progress,
    });
  } finally {
    clearInterval(timer);
  }
  await new Promise((r) => setTimeout(r, OVERLOAD_SETTLE_MS));
  const rssAfterMiB = readRssMiB(basalt.pid);
  writeReport(overloadReport, opts.out, "overload");
  const step = overloadReport.results[0]?.steps[0];
  if (step === undefined) return undefined;
  return {
    peakRps,
    rate,
    step,
    ...(rssBeforeMiB !== undefined ? { rssBeforeMiB } : {}),
    ...(rssDuringMaxMiB !== undefined ? { rssDuringMaxMiB } : {}),
    ...(rssAfterMiB !== undefined ? { rssAfterMiB } : {}),
  };
}

/**
 * Runs the scenario: workload → basalt and anvil started → the chain built on both and checked
 * for agreement → basalt's block and receipts bytes captured and served by the bare server →
 * the load run on every endpoint (one at a time) → basalt restarted with
 * `--rpc.response-cache-blocks 0` and the uncached corpora run (its results join the report) →
 * basalt restarted with its cache → the overload stage (if any) → targets. Writes
 * `load.json`/`load.html`, `overload.json`/`overload.html` (with an overload stage) and
 * `targets.json` to `opts.out`. Every child process is stopped before it returns or throws.
 */
export async function runScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const progress = opts.onProgress ?? ((): void => undefined);
  let basalt: BasaltNode | undefined;
  let anvil: AnvilNode | undefined;
  let bare: BareServer | undefined;
  let datadir: string | undefined;
  try {
    progress(`workload: ${opts.blocks} blocks × ${opts.txsPerBlock} txs`);
    const w = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: opts.blocks, txsPerBlock: opts.txsPerBlock, holders: opts.holders });
    progress(`workload: ${w.setup.reduce((n, r) => n + r.length, 0)} setup txs in ${w.setup.length} rounds, ${w.senders.length} senders, ${w.holders.length} funded holders`);
    // The scenario owns basalt's datadir: basalt is restarted on it with the response cache off.
    datadir = mkdtempSync(path.join(tmpdir(), "basalt-scenario-"));
    [basalt, anvil] = await Promise.all([startBasalt({ datadir, extraArgs: opts.basaltArgs ?? [] }), startAnvil()]);
    progress(`basalt ${basalt.url} (pid ${basalt.pid}), anvil ${anvil.url} (pid ${anvil.pid})`);
    const { agreement, basalt: applied } = await buildChains(w, { name: ENDPOINT.basalt, url: basalt.url }, { name: ENDPOINT.anvil, url: anvil.url }, progress);
    const blockBytes = await capture(basalt.url, BLOCK_FULL_BODY, "eth_getBlockByNumber(latest,true)");
    const receiptsBytes = await capture(basalt.url, RECEIPTS_BODY, "eth_getBlockReceipts(latest)");
    // Basalt's answer for every block 1..head, full body and receipts, served per request body.
    const perBody = new Map<string, Buffer>();
    for (let n = 1n; n <= applied.head; n++) {
      const b = uncachedBodies(n);
      perBody.set(b.block, await capture(basalt.url, b.block, `eth_getBlockByNumber(${n},true)`));
      perBody.set(b.receipts, await capture(basalt.url, b.receipts, `eth_getBlockReceipts(${n})`));
    }
    bare = await startBareServer({ "/": blockBytes, "/receipts": receiptsBytes, "/bodies": perBody });
    const blockUrl = `${bare.base}/`;
    const receiptsUrl = `${bare.base}/receipts`;
    const bodiesUrl = `${bare.base}/bodies`;
    progress(`bare server ${blockUrl} (${blockBytes.length} bytes), ${receiptsUrl} (${receiptsBytes.length} bytes), ${bodiesUrl} (${perBody.size} answers)`);

    const endpoints: Endpoint[] = [
      { name: ENDPOINT.basalt, url: basalt.url, pid: basalt.pid },
      { name: ENDPOINT.anvil, url: anvil.url, pid: anvil.pid },
      { name: ENDPOINT.bare, url: blockUrl, pid: bare.pid },
      { name: ENDPOINT.bareReceipts, url: receiptsUrl, pid: bare.pid },
    ];
    const corpora = scenarioCorpora(w, { nodes: [ENDPOINT.basalt, ENDPOINT.anvil], bare: ENDPOINT.bare, bareReceipts: ENDPOINT.bareReceipts });
    const report = await runLoad({
      endpoints,
      corpora,
      steps: opts.steps,
      stepSeconds: opts.stepSeconds,
      ...(opts.peak !== undefined ? { peak: opts.peak } : {}),
      ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
      ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
      ...(opts.calibrationSeconds !== undefined ? { calibration: { seconds: opts.calibrationSeconds } } : {}),
      onProgress: progress,
    });
    // Outside the response cache: basalt restarted on the same chain with the cache off
    // (--rpc.response-cache-blocks 0), every block's full body and receipts round-robin, against
    // anvil and the bare server answering basalt's bytes for each request body.
    await basalt.stop();
    progress("basalt: restarting on the same datadir with --rpc.response-cache-blocks 0");
    basalt = await startBasalt({ datadir, extraArgs: [...(opts.basaltArgs ?? []), "--rpc.response-cache-blocks", "0"] });
    const uncachedReport = await runLoad({
      endpoints: [
        { name: ENDPOINT.basaltUncached, url: basalt.url, pid: basalt.pid },
        { name: ENDPOINT.anvil, url: anvil.url, pid: anvil.pid },
        { name: ENDPOINT.bareBodies, url: bodiesUrl, pid: bare.pid },
      ],
      corpora: uncachedCorpora(applied.head, [ENDPOINT.basaltUncached, ENDPOINT.anvil], ENDPOINT.bareBodies),
      steps: opts.steps,
      stepSeconds: opts.stepSeconds,
      ...(opts.peak !== undefined ? { peak: opts.peak } : {}),
      ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
      ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
      ...(opts.calibrationSeconds !== undefined ? { calibration: { seconds: opts.calibrationSeconds } } : {}),
      onProgress: progress,
    });
    report.results.push(...uncachedReport.results);
    // The second run calibrated its own answer sizes: keep the ones the first had not.
    const known = new Set(report.generator?.calibration.map((c) => `${c.sizeClass} ${c.pipeline}`));
    for (const c of uncachedReport.generator?.calibration ?? []) if (!known.has(`${c.sizeClass} ${c.pipeline}`)) report.generator?.calibration.push(c);
    // The overload stage loads basalt (with its response cache: the default) alone: the others stop first so they take no CPU.
    await Promise.all([bare.stop(), anvil.stop(), basalt.stop()]);
    basalt = await startBasalt({ datadir, extraArgs: opts.basaltArgs ?? [] });
    const overload = opts.overloadSeconds > 0 ? await runOverload(basalt, report, corpora, opts) : undefined;

    const targets = computeTargets(report, overload);
    mkdirSync(opts.out, { recursive: true });
    const { json, html } = writeReport(report, opts.out, "load");
    const targetsFile = path.join(opts.out, "targets.json");
    const summary = {
      startedAt: report.startedAt,
      machine: report.machine,
      workload: {
        blocks: opts.blocks,
        txsPerBlock: opts.txsPerBlock,
        senders: w.senders.length,
        blockBytes: blockBytes.length,
        receiptsBytes: receiptsBytes.length,
        distinctCallBodies: DISTINCT_CALL_BODIES,
      },
      generator: report.generator ?? null,
      agreement: { ...agreement, gasUsed: agreement.gasUsed.toString() },
      targets,
      overload: overload ?? null,
    };
    writeFileSync(targetsFile, `${JSON.stringify(summary, null, 2)}\n`);
    return { agreement, report, ...(overload !== undefined ? { overload } : {}), targets, files: { json, html, targets: targetsFile } };
  } finally {
    await Promise.all([bare?.stop(), anvil?.stop(), basalt?.stop()]);
    if (datadir !== undefined) rmSync(datadir, { recursive: true, force: true });
  }
}

/**
 * Entry of `node dist/bench/scenario.js [args]`: parses `argv`, runs the scenario with progress on
 * stderr, prints the load table and the targets table on stdout. Always stops its child
 * processes, also on error and on SIGINT/SIGTERM; sets a non-zero exit code on failure.
 */
export async function main(argv: string[]): Promise<void> {
  let opts: ScenarioOptions | undefined;
  try {
    opts = parseScenarioArgs(argv);
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
    return;
  }
  if (opts === undefined) {
    process.stdout.write(SCENARIO_USAGE);
    return;
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    process.stderr.write(`\n${signal}: stopping child processes\n`);
    void stopAllChildren().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const result = await runScenario({ ...opts, onProgress: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(formatTable(result.report));
    process.stdout.write(`\n${formatTargets(result.targets, result.report)}`);
    recordSummary(result.targets.map((t) => ({ bench: opts.quick ? "scenario --quick" : "scenario", target: t.target, measured: t.measured, verdict: t.verdict })));
    process.stdout.write(`\nreports: ${result.files.json}, ${result.files.html}, ${result.files.targets}\n`);
  } catch (e) {
    process.stderr.write(`scenario failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  } finally {
    await stopAllChildren();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
