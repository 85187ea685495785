/**
 * `basalt bench load`: benchmarks any JSON-RPC endpoints with open-loop steps and a closed-loop
 * peak, on corpora discovered from the first endpoint's chain or read from a file. Progress goes
 * to stderr, the table (or with --json the report) to stdout, and the JSON + HTML reports to the
 * output directory.
 */
import path from "node:path";
import { closest } from "../../src/cli/args.js";
import { DEFAULT_CALIBRATION_SECONDS } from "./calibrate.js";
import { DEFAULT_SAMPLE_BLOCKS, discoverCorpora } from "./corpus.js";
import { readCorpusFile } from "./corpusFile.js";
import { LoadError } from "./errors.js";
import { DEFAULT_PIPELINE, DEFAULT_THREADS, SAMPLE_BYTES } from "./generator.js";
import { formatTable, writeReport } from "./report.js";
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_STEP_SECONDS, DEFAULT_STEPS, DEFAULT_TIMEOUT_MS, describeFailures, runLoad } from "./run.js";
import type { Corpus, Endpoint } from "./types.js";

/** Default closed-loop requests in flight: a typical provider's per-node concurrency, and half the open loop's sockets. */
export const DEFAULT_PEAK_CONCURRENCY = 32;
/** Default closed-loop duration: long enough for a stable figure, short next to the open-loop steps. */
export const DEFAULT_PEAK_SECONDS = 10;
/** Where reports go without --out (a timestamped folder under it). */
export const DEFAULT_OUT_PARENT = "bench-results";

/** The usage text of `basalt bench load`. */
export const LOAD_USAGE = `basalt bench load: benchmark JSON-RPC endpoints (any node) under fixed offered rates and at peak

Usage:
  basalt bench load --url NAME=URL [--url NAME=URL ...] [options]

Options:
  --url NAME=URL          an endpoint to benchmark (repeatable; endpoints run one after the other)
  --pid NAME=PID          the endpoint's server process, to sample its RSS after each step (Linux)
  --methods a,b           only these corpora (by method, e.g. eth_call, or name, e.g. eth_getBlockByNumber(full))
  --steps 1,4,16          open-loop offered rates in req/s (default: ${DEFAULT_STEPS.join(",")})
  --step-seconds N        seconds per open-loop step (default: ${DEFAULT_STEP_SECONDS})
  --peak-concurrency N    requests in flight in the peak run (default: ${DEFAULT_PEAK_CONCURRENCY})
  --peak-seconds N        seconds of the peak run (default: ${DEFAULT_PEAK_SECONDS})
  --no-peak               skip the peak run
  --pipeline N            peak requests per connection, HTTP/1.1 pipelining (default: ${DEFAULT_PIPELINE}; 1 = off);
                          an endpoint that fails a pipelined probe gets 1
  --threads N             generator worker threads (default: ${DEFAULT_THREADS}; 0 = the main thread only)
  --check-all             parse and check every answer (default: answers over ${SAMPLE_BYTES} B are sampled,
                          every answer's status and framing is still checked)
  --calibration-seconds N seconds of each calibration run, generator then wrk (default: ${DEFAULT_CALIBRATION_SECONDS})
  --max-in-flight N       open-loop requests in flight before new ones are dropped (default: ${DEFAULT_MAX_IN_FLIGHT})
  --timeout-ms N          per-request timeout (default: ${DEFAULT_TIMEOUT_MS})
  --blocks N              recent blocks sampled to build the corpora (default: ${DEFAULT_SAMPLE_BLOCKS})
  --corpus FILE           read corpora from FILE ({ "corpora": [{ "name", "bodies": [...] }] }) instead of discovering them
  --out DIR               report directory (default: ./${DEFAULT_OUT_PARENT}/load-<timestamp>); writes load.json and load.html
  --json                  print the JSON report to stdout instead of the table
  -h, --help              this text

After the endpoints, every run measures the generator's own ceiling against a bare uWebSockets.js
server answering the same bytes with no work (per answer size class), and with wrk too when wrk
is on PATH; figures within 80 % of that ceiling are marked GENERATOR-BOUND.

Without --corpus the corpora are discovered from the first URL's chain (recent blocks, their
receipts, balances, calls and estimates) and sent to every URL, so all must serve the same chain.
`;

/** The parsed arguments of `basalt bench load`. */
export interface LoadArgs {
  endpoints: Endpoint[];
  methods?: string[];
  steps?: number[];
  stepSeconds?: number;
  /** undefined with --no-peak */
  peak?: { concurrency: number; seconds: number };
  maxInFlight?: number;
  timeoutMs?: number;
  blocks?: number;
  corpus?: string;
  out?: string;
  threads?: number;
  pipeline?: number;
  calibrationSeconds?: number;
  checkAll: boolean;
  json: boolean;
  help: boolean;
}

/** Flags that take a value. */
const VALUE_FLAGS = [
  "--url",
  "--pid",
  "--methods",
  "--steps",
  "--step-seconds",
  "--peak-concurrency",
  "--peak-seconds",
  "--max-in-flight",
  "--timeout-ms",
  "--blocks",
  "--corpus",
  "--out",
  "--threads",
  "--pipeline",
  "--calibration-seconds",
] as const;
/** Flags without a value. */
const SWITCHES = ["--no-peak", "--check-all", "--json", "--help", "-h"] as const;
const ALL_FLAGS: readonly string[] = [...VALUE_FLAGS, ...SWITCHES];

function argError(flag: string, message: string, value?: string): LoadError {
  return new LoadError("BENCH_LOAD_ARG", `${flag}: ${message}`, { option: flag, value });
}

function positiveNumber(flag: string, raw: string, integer: boolean): number {
  const n = Number(raw);
  const ok = raw.trim() !== "" && Number.isFinite(n) && n > 0 && (!integer || Number.isInteger(n));
  if (!ok) throw argError(flag, `invalid value ${JSON.stringify(raw)}: expected ${integer ? "an integer >= 1" : "a number > 0"}`, raw);
  return n;
}

function nonNegativeInteger(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(n) || n < 0) throw argError(flag, `invalid value ${JSON.stringify(raw)}: expected an integer >= 0`, raw);
  return n;
}

/** `NAME=VALUE` of --url / --pid. */
function namedValue(flag: string, raw: string, example: string): [string, string] {
  const eq = raw.indexOf("=");
  if (eq <= 0 || eq === raw.length - 1) throw argError(flag, `invalid value ${JSON.stringify(raw)}: expected NAME=VALUE, e.g. ${example}`, raw);
  return [raw.slice(0, eq), raw.slice(eq + 1)];
}

function endpointUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw argError("--url", `invalid URL ${JSON.stringify(raw)}: expected NAME=http://host:port/path`, raw);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw argError("--url", `unsupported URL ${JSON.stringify(raw)}: expected http:// or https://`, raw);
  }
  return raw;
}

/** Parses the arguments of `basalt bench load` (after `load`). Throws `BENCH_LOAD_ARG` naming the flag and what was expected. */
export function parseLoadArgs(argv: readonly string[]): LoadArgs {
  const args: LoadArgs = { endpoints: [], checkAll: false, json: false, help: false };
  const pids = new Map<string, number>();
  let noPeak = false;
  let peakConcurrency: number | undefined;
  let peakSeconds: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i] as string;
    const eq = tok.startsWith("--") ? tok.indexOf("=") : -1;
    const flag = eq >= 0 ? tok.slice(0, eq) : tok;
    if ((SWITCHES as readonly string[]).includes(flag)) {
      if (eq >= 0) throw argError(flag, "takes no value");
      if (flag === "--no-peak") noPeak = true;
      else if (flag === "--check-all") args.checkAll = true;
      else if (flag === "--json") args.json = true;
      else args.help = true;
      continue;
    }
    if (!(VALUE_FLAGS as readonly string[]).includes(flag)) {
      if (!tok.startsWith("-")) {
        throw argError(tok, `unexpected argument ${JSON.stringify(tok)}: expected flags only (see basalt bench load --help)`, tok);
      }
      const guess = closest(flag, ALL_FLAGS);
      throw argError(flag, `unknown flag${guess === undefined ? "" : ` (did you mean ${guess}?)`}; see basalt bench load --help`);
    }
    let value: string;
    if (eq >= 0) value = tok.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) throw argError(flag, "missing value (see basalt bench load --help)");
      value = next;
      i++;
    }
    switch (flag as (typeof VALUE_FLAGS)[number]) {
      case "--url": {
        const [name, url] = namedValue(flag, value, "basalt=http://127.0.0.1:8545");
        if (args.endpoints.some((e) => e.name === name)) {
          throw argError(flag, `endpoint name ${JSON.stringify(name)} given twice: expected unique names`, value);
        }
        args.endpoints.push({ name, url: endpointUrl(url) });
        break;
      }
      case "--pid": {
        const [name, pid] = namedValue(flag, value, "basalt=12345");
        pids.set(name, positiveNumber(flag, pid, true));
        break;
      }
      case "--methods":
        args.methods = value.split(",").map((m) => m.trim());
        if (args.methods.some((m) => m === "")) {
          throw argError(flag, `invalid value ${JSON.stringify(value)}: expected method names separated by commas`, value);
        }
        break;
      case "--steps":
        args.steps = value.split(",").map((s) => positiveNumber(flag, s.trim(), false));
        break;
      case "--step-seconds":
        args.stepSeconds = positiveNumber(flag, value, false);
        break;
      case "--peak-concurrency":
        peakConcurrency = positiveNumber(flag, value, true);
        break;
      case "--peak-seconds":
        peakSeconds = positiveNumber(flag, value, false);
        break;
      case "--max-in-flight":
        args.maxInFlight = positiveNumber(flag, value, true);
        break;
      case "--timeout-ms":
        args.timeoutMs = positiveNumber(flag, value, true);
        break;
      case "--blocks":
        args.blocks = positiveNumber(flag, value, true);
        break;
      case "--corpus":
        args.corpus = value;
        break;
      case "--out":
        args.out = value;
        break;
      case "--threads":
        args.threads = nonNegativeInteger(flag, value);
        break;
      case "--pipeline":
        args.pipeline = positiveNumber(flag, value, true);
        break;
      case "--calibration-seconds":
        args.calibrationSeconds = positiveNumber(flag, value, false);
        break;
    }
  }
  if (args.help) return args;
  if (args.endpoints.length === 0) throw argError("--url", "missing: expected at least one --url NAME=URL");
  for (const [name] of pids) {
    const e = args.endpoints.find((x) => x.name === name);
    if (e === undefined) {
      throw argError("--pid", `no --url named ${JSON.stringify(name)}: expected one of ${args.endpoints.map((x) => x.name).join(", ")}`, name);
    }
    e.pid = pids.get(name);
  }
  if (noPeak && (peakConcurrency !== undefined || peakSeconds !== undefined)) {
    throw argError("--no-peak", "conflicts with --peak-concurrency / --peak-seconds: expected one or the other");
  }
  if (!noPeak) args.peak = { concurrency: peakConcurrency ?? DEFAULT_PEAK_CONCURRENCY, seconds: peakSeconds ?? DEFAULT_PEAK_SECONDS };
  return args;
}

/** Keeps the corpora `methods` names (by corpus name or by method); all when undefined. */
function filterCorpora(corpora: Corpus[], methods: string[] | undefined): Corpus[] {
  if (methods === undefined) return corpora;
  const kept = corpora.filter((c) => methods.includes(c.name) || methods.includes(c.name.split("(")[0] as string));
  if (kept.length === 0) {
    throw argError("--methods", `no corpus matches ${methods.join(",")}: expected some of ${corpora.map((c) => c.name).join(", ")}`);
  }
  return kept;
}

/** `load-2025-01-02T03-04-05Z`: a timestamp usable as a folder name everywhere. */
function timestampName(d: Date): string {
  return `load-${d.toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-")}`;
}

/** Runs `basalt bench load` with `argv` (the arguments after `load`). */
export async function main(argv: string[]): Promise<void> {
  const args = parseLoadArgs(argv);
  if (args.help) {
    process.stdout.write(LOAD_USAGE);
    return;
  }
  const progress = (line: string): void => void process.stderr.write(`${line}\n`);
  let corpora: Corpus[];
  if (args.corpus !== undefined) {
    corpora = filterCorpora(readCorpusFile(args.corpus), args.methods);
  } else {
    const first = args.endpoints[0] as Endpoint;
    progress(`discovering corpora from ${first.name} (${args.blocks ?? DEFAULT_SAMPLE_BLOCKS} recent blocks)…`);
    corpora = await discoverCorpora(first.url, { blocks: args.blocks, methods: args.methods });
    if (corpora.length === 0) {
      throw new LoadError("BENCH_LOAD_DISCOVERY", `no corpus could be built from ${first.name}: expected a chain with blocks`);
    }
  }
  progress(`corpora: ${corpora.map((c) => `${c.name} (${c.bodies.length})`).join(", ")}`);
  const report = await runLoad({
    endpoints: args.endpoints,
    corpora,
    steps: args.steps,
    stepSeconds: args.stepSeconds,
    peak: args.peak,
    maxInFlight: args.maxInFlight,
    timeoutMs: args.timeoutMs,
    threads: args.threads,
    pipeline: args.pipeline,
    checkAll: args.checkAll,
    calibration: { seconds: args.calibrationSeconds },
    onProgress: progress,
  });
  const dir = args.out ?? path.join(DEFAULT_OUT_PARENT, timestampName(new Date()));
  const paths = writeReport(report, dir);
  const failing = report.results.filter((r) => r.steps.some((s) => s.failed > 0) || (r.peak?.failed ?? 0) > 0);
  for (const r of failing) {
    const all: Record<string, number> = {};
    for (const f of [...r.steps.map((s) => s.failures), r.peak?.failures ?? {}]) for (const [k, n] of Object.entries(f)) all[k] = (all[k] ?? 0) + n;
    progress(`warning: [${r.endpoint}] ${r.corpus} had failures: ${describeFailures(all)}`);
  }
  const written = `wrote ${paths.json}\nwrote ${paths.html}\n`;
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(written);
  } else {
    process.stdout.write(formatTable(report));
    process.stdout.write(`\n${written}`);
  }
}
