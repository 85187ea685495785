/**
 * The load run: for each corpus, each endpoint in turn (never two at once: they would share the
 * machine's cores), a warm-up pass, every open-loop step, then the closed-loop peak; then the
 * generator's calibration against a bare server (bench/load/calibrate.ts), which marks the
 * figures that may be the generator's own ceiling.
 */
import { cpus, totalmem } from "node:os";
import {
  calibrate,
  calibrationNeeds,
  DEFAULT_CALIBRATION_SECONDS,
  generatorReport,
  markGeneratorBound,
  sizeClass,
  type BareServerFactory,
  type CalibrationSample,
} from "./calibrate.js";
import { CONNECTION_CLOSED } from "./client.js";
import { LoadError } from "./errors.js";
import { DEFAULT_PIPELINE, DEFAULT_THREADS, LoadGenerator, SAMPLE_BYTES } from "./generator.js";
import { readRssMiB } from "./rss.js";
import type { Corpus, CorpusResult, Endpoint, LoadPlan, LoadReport } from "./types.js";

/** Default offered rates (req/s): ×4 per step from idle to well past what one node on 2 cores serves, then halving the gap at the top. */
export const DEFAULT_STEPS: readonly number[] = [1, 4, 16, 64, 256, 512, 2048];
/** Default seconds per open-loop step: enough samples for a p99 at 64 req/s and above, a few minutes per corpus in all. */
export const DEFAULT_STEP_SECONDS = 5;
/** Default open-loop in-flight cap: bounds the generator's memory when a server stalls (4096 bodies and sockets' buffers). */
export const DEFAULT_MAX_IN_FLIGHT = 4096;
/** Default per-request timeout: 10 s, longer than any healthy RPC answer, short enough to end a stalled step. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Connections of the open loop per endpoint by default: enough for thousands of req/s at millisecond latencies, few enough not to exhaust the server's accept queue. */
export const DEFAULT_MAX_SOCKETS = 64;
/**
 * Bodies sent by the warm-up (the corpus's last ones, which the round-robin reaches last): enough
 * to open connections and warm the server, few enough not to pre-fill an answer cache with a
 * corpus of distinct bodies.
 */
export const WARMUP_BODIES = 32;
/** Bytes per GiB. */
const BYTES_PER_GIB = 1024 ** 3;

/** The machine the generator runs on (cores, CPU model, memory, Node version). */
export function machineInfo(): LoadReport["machine"] {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? "unknown",
    memGiB: Math.round((totalmem() / BYTES_PER_GIB) * 10) / 10,
    node: process.version,
  };
}

function checkPlan(plan: LoadPlan, steps: number[], stepSeconds: number): void {
  if (plan.endpoints.length === 0) throw new LoadError("BENCH_LOAD_PLAN", "the load plan has no endpoints: expected at least one");
  if (plan.corpora.length === 0) throw new LoadError("BENCH_LOAD_PLAN", "the load plan has no corpora: expected at least one");
  const names = new Set<string>();
  for (const e of plan.endpoints) {
    if (names.has(e.name)) throw new LoadError("BENCH_LOAD_PLAN", `endpoint name ${JSON.stringify(e.name)} is used twice: expected unique names`);
    names.add(e.name);
  }
  for (const c of plan.corpora) {
    for (const n of c.endpoints ?? []) {
      if (!names.has(n)) {
        const what = `corpus ${JSON.stringify(c.name)} names endpoint ${JSON.stringify(n)}`;
        throw new LoadError("BENCH_LOAD_PLAN", `${what}: expected one of ${[...names].join(", ")}`);
      }
    }
  }
  for (const r of steps) {
    if (!(r > 0) || !Number.isFinite(r)) throw new LoadError("BENCH_LOAD_PLAN", `step rate ${r} is invalid: expected a positive number of req/s`);
  }
  if (!(stepSeconds > 0) || !Number.isFinite(stepSeconds)) {
    throw new LoadError("BENCH_LOAD_PLAN", `stepSeconds ${stepSeconds} is invalid: expected a positive number`);
  }
}

/** `12.3`-style figure for progress lines. */
function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

/** `"http 429" ×3, timeout ×1` — the failure kinds of a result, most frequent first. */
export function describeFailures(failures: Record<string, number>, limit = 3): string {
  const entries = Object.entries(failures).sort((a, b) => b[1] - a[1]);
  const shown = entries.slice(0, limit).map(([k, n]) => `${k} ×${n}`);
  if (entries.length > limit) shown.push(`+${entries.length - limit} more`);
  return shown.join(", ");
}

/** The median of `values` (non-empty), the lower one of an even count. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** What runLoad needs besides the plan. */
interface RunContext {
  threads: number;
  pipeline: number;
  sampleBytes: number;
  timeoutMs: number;
  progress: (line: string) => void;
}

/** How a corpus's peaks are driven: the same pipelining for every endpoint, so their figures compare. */
interface PeakShape {
  pipeline: number;
  note?: string;
}

/**
 * The pipelining depth for `corpus`'s peaks: the plan's, unless an endpoint fails the pipelined
 * probe (run before any warm-up, so nothing is cached yet), in which case every endpoint of the
 * corpus runs unpipelined and the note names the one that could not take it.
 */
async function peakShape(endpoints: Endpoint[], corpus: Corpus, plan: LoadPlan, ctx: RunContext): Promise<PeakShape> {
  const depth = plan.peak === undefined ? 1 : Math.min(ctx.pipeline, plan.peak.concurrency);
  if (depth <= 1) return { pipeline: 1 };
  for (const endpoint of endpoints) {
    const gen = await LoadGenerator.start({ url: endpoint.url, corpus, threads: 1, timeoutMs: ctx.timeoutMs, sampleBytes: ctx.sampleBytes });
    let failure: string | undefined;
    try {
      failure = await gen.probePipeline(depth);
    } finally {
      await gen.close();
    }
    if (failure !== undefined) {
      const note = `${endpoint.name} does not answer pipelined requests (${failure}): every endpoint measured without pipelining`;
      ctx.progress(`${corpus.name}: ${note}`);
      return { pipeline: 1, note };
    }
  }
  return { pipeline: depth };
}

async function runOne(
  endpoint: Endpoint,
  corpus: Corpus,
  plan: LoadPlan,
  steps: number[],
  stepSeconds: number,
  ctx: RunContext,
  shape: PeakShape,
): Promise<{ result: CorpusResult; sample?: CalibrationSample }> {
  const { progress } = ctx;
  const label = `[${endpoint.name}] ${corpus.name}`;
  const peak = plan.peak;
  const gen = await LoadGenerator.start({ url: endpoint.url, corpus, threads: ctx.threads, timeoutMs: ctx.timeoutMs, sampleBytes: ctx.sampleBytes });
  if (gen.threads === 0 && ctx.threads > 0) progress(`${label}: its validator is a function without a ValidatorRef: sent from the main thread only`);
  const rss = (): number | undefined => (endpoint.pid === undefined ? undefined : readRssMiB(endpoint.pid));
  const result: CorpusResult = { endpoint: endpoint.name, corpus: corpus.name, steps: [], threads: gen.threads };
  if (corpus.note !== undefined) result.note = corpus.note;
  let sample: CalibrationSample | undefined;
  try {
    const warm = await gen.warm(WARMUP_BODIES);
    const n = warm.tally.ok + warm.tally.failed;
    const failedNote = warm.tally.failed > 0 ? `, ${warm.tally.failed} failed: ${describeFailures(warm.tally.failures)}` : "";
    if (warm.sizes.length > 0) {
      // The body with the median answer size stands for the corpus in the calibration.
      const mid = median(warm.sizes.map(([, b]) => b));
      const [bodyIndex] = warm.sizes.find(([, b]) => b === mid)!;
      result.answerBytes = mid;
      const captured = await gen.capture(bodyIndex);
      if (captured.ok && captured.outcome.body !== undefined) {
        sample = { endpoint: endpoint.name, corpus, bodyIndex, answer: captured.outcome.body };
        result.sizeClass = sizeClass(captured.outcome.body.length);
      }
    }
    const size = result.answerBytes === undefined ? "" : `, answers ~${result.answerBytes} B`;
    progress(`${label}: warm-up ${n} bod${n === 1 ? "y" : "ies"}${size}${failedNote}`);
    for (const rate of steps) {
      const step = await gen.open({ rate, seconds: stepSeconds, maxInFlight: plan.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, maxSockets: plan.maxSockets ?? DEFAULT_MAX_SOCKETS });
      const rssMiB = rss();
      if (rssMiB !== undefined) step.rssMiB = rssMiB;
      result.steps.push(step);
      const fails = step.failed > 0 ? ` (${describeFailures(step.failures)})` : "";
      const drops = step.dropped > 0 ? `, dropped ${step.dropped}` : "";
      progress(
        `${label}: ${rate} req/s → ${fmt(step.achievedRps)} ok/s, p50 ${fmt(step.p50)} ms, p99 ${fmt(step.p99)} ms, ` +
          `errors ${fmt(step.errorRate * 100)}%${fails}${drops}`,
      );
    }
    if (peak !== undefined) {
      const pipeline = Math.min(shape.pipeline, peak.concurrency);
      let p = await gen.closed({ concurrency: peak.concurrency, pipeline, seconds: peak.seconds });
      const closed = p.failures[CONNECTION_CLOSED] ?? 0;
      if (pipeline > 1 && closed > 0) {
        // The probe passed but the server still dropped pipelined connections under load: the
        // figure would be the generator's reconnects, so measure the unpipelined shape instead.
        const note = `pipelined peak lost ${closed} requests to closed connections: measured without pipelining`;
        progress(`${label}: ${note}`);
        p = await gen.closed({ concurrency: peak.concurrency, pipeline: 1, seconds: peak.seconds });
        p.pipelineNote = note;
      } else if (shape.note !== undefined) p.pipelineNote = shape.note;
      const rssMiB = rss();
      if (rssMiB !== undefined) p.rssMiB = rssMiB;
      result.peak = p;
      const fails = p.failed > 0 ? `, ${p.failed} failed (${describeFailures(p.failures)})` : "";
      progress(
        `${label}: peak ×${peak.concurrency} (${p.connections} conn × ${p.pipeline ?? 1}) → ${fmt(p.rps)} ok/s, p50 ${fmt(p.p50)} ms, ` +
          `p99 ${fmt(p.p99)} ms, generator ${p.generatorCpu} cores${fails}`,
      );
    }
  } finally {
    await gen.close();
  }
  return sample === undefined ? { result } : { result, sample };
}

/**
 * Runs `plan`: for each corpus, each of its endpoints in turn (one at a time), a warm-up pass
 * (up to {@link WARMUP_BODIES} bodies once, not counted), every open-loop step, then the peak;
 * then, unless `plan.calibration` is false, the generator's calibration (per answer size class)
 * and the marking of every figure within reach of it. Throws `BENCH_LOAD_PLAN` for an
 * inconsistent plan before sending anything.
 */
export async function runLoad(plan: LoadPlan, server?: BareServerFactory): Promise<LoadReport> {
  const steps = [...(plan.steps ?? DEFAULT_STEPS)];
  const stepSeconds = plan.stepSeconds ?? DEFAULT_STEP_SECONDS;
  checkPlan(plan, steps, stepSeconds);
  const ctx: RunContext = {
    threads: plan.threads ?? DEFAULT_THREADS,
    pipeline: plan.pipeline ?? DEFAULT_PIPELINE,
    sampleBytes: plan.checkAll === true ? Infinity : SAMPLE_BYTES,
    timeoutMs: plan.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    progress: plan.onProgress ?? ((): void => undefined),
  };
  if (!Number.isInteger(ctx.pipeline) || ctx.pipeline < 1) throw new LoadError("BENCH_LOAD_PLAN", `pipeline ${ctx.pipeline} is invalid: expected an integer >= 1`);
  const report: LoadReport = {
    startedAt: new Date().toISOString(),
    machine: machineInfo(),
    plan: { steps, stepSeconds, ...(plan.peak !== undefined ? { peak: { ...plan.peak } } : {}) },
    results: [],
    generator: generatorReport(ctx.threads, ctx.pipeline, ctx.sampleBytes),
  };
  const samples: CalibrationSample[] = [];
  for (const corpus of plan.corpora) {
    const only = corpus.endpoints;
    const endpoints = plan.endpoints.filter((e) => only === undefined || only.includes(e.name));
    const shape = await peakShape(endpoints, corpus, plan, ctx);
    for (const endpoint of endpoints) {
      const { result, sample } = await runOne(endpoint, corpus, plan, steps, stepSeconds, ctx, shape);
      report.results.push(result);
      if (sample !== undefined) samples.push(sample);
    }
  }
  const generator = report.generator!;
  if (plan.calibration === false) generator.calibrationNote = "calibration off: figures are not checked against the generator's ceiling";
  else {
    ctx.progress(`calibrating the generator against a bare uWebSockets.js server (answers of ${samples.length} endpoint × corpus runs)…`);
    generator.calibration = await calibrate(samples, calibrationNeeds(report), {
      threads: ctx.threads,
      timeoutMs: ctx.timeoutMs,
      sampleBytes: ctx.sampleBytes,
      seconds: plan.calibration?.seconds ?? DEFAULT_CALIBRATION_SECONDS,
      wrk: plan.calibration?.wrk ?? true,
      ...(server !== undefined ? { server } : {}),
      onProgress: ctx.progress,
    });
    if (generator.calibration.length === 0) generator.calibrationNote = "no successful answer to calibrate with";
    markGeneratorBound(report);
  }
  return report;
}
