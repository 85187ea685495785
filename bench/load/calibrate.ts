/**
 * The generator's calibration: in every run, after the endpoints, the generator measures its
 * own ceiling against a bare uWebSockets.js server answering captured bytes with no work — per
 * answer size class, with the same threads, connections, pipelining and checks as the run — and
 * every figure at or above {@link GENERATOR_BOUND_FRACTION} of that ceiling is marked as bound by
 * the generator: the run cannot tell that server from a no-work one, so the figure may be the
 * generator's, not the server's. When wrk is on PATH it measures the same bare server in the same
 * way, and the generator/wrk ratio says whether the generator or the bare server (the machine) is
 * the limit of the calibration itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { startBareServer, type BareRoutes, type BareServerHandle } from "../scenario/bareServer.js";
import { LoadGenerator } from "./generator.js";
import { fmtRate, wrkVerdict } from "./table.js";
import type { Calibration, Corpus, CorpusResult, GeneratorReport, LoadReport } from "./types.js";
import { findWrk, runWrk } from "./wrk.js";

/** A figure at or above this fraction of the generator's ceiling is marked bound by the generator. */
export const GENERATOR_BOUND_FRACTION = 0.8;
/** Seconds of each calibration run: a closed loop on a no-work server settles within a second or two; ×2 (generator, wrk) per class. */
export const DEFAULT_CALIBRATION_SECONDS = 3;
/**
 * wrk's threads: one per core, its strongest setting (on the 2-core machine `wrk -t1` reached
 * half of `-t2` on ~120 KB answers), so the generator is compared with the best reference, not
 * one handicapped to its own thread count.
 */
const WRK_THREADS = availableParallelism();
/** Connections of the calibration behind open-loop steps when the run has no peak: the default peak's. */
const STEP_CONNECTIONS = 32;
/** Upper bounds of the size classes, bytes (×4 apart: the generator's cost per answer grows with size). */
const CLASS_BOUNDS = [1024, 4096, 16384, 65536, 262144, 1048576];

/** A KiB figure for class names: 1, 4, 1 MiB… */
function kib(bytes: number): string {
  return bytes >= 1048576 ? `${bytes / 1048576} MiB` : `${bytes / 1024} KiB`;
}

/** The size class of an answer of `bytes`: "≤ 1 KiB", "1 KiB–4 KiB", …, "> 1 MiB". */
export function sizeClass(bytes: number): string {
  const i = CLASS_BOUNDS.findIndex((b) => bytes <= b);
  if (i === 0) return `≤ ${kib(CLASS_BOUNDS[0]!)}`;
  if (i < 0) return `> ${kib(CLASS_BOUNDS[CLASS_BOUNDS.length - 1]!)}`;
  return `${kib(CLASS_BOUNDS[i - 1]!)}–${kib(CLASS_BOUNDS[i]!)}`;
}

/** An answer captured during a run, to be served by the bare server. */
export interface CalibrationSample {
  endpoint: string;
  corpus: Corpus;
  /** the body whose answer this is */
  bodyIndex: number;
  answer: Buffer;
}

/** One calibration to run: a size class at a pipelining depth and connection count. */
export interface CalibrationNeed {
  sizeClass: string;
  pipeline: number;
  connections: number;
}

/**
 * The calibrations `report` needs: per size class of its results, the peak's connections and
 * pipelining of each peak, and no pipelining on `stepConnections` connections for the open-loop
 * steps (their connections are not pipelined either).
 */
export function calibrationNeeds(report: LoadReport, stepConnections: number = report.plan.peak?.concurrency ?? STEP_CONNECTIONS): CalibrationNeed[] {
  const needs = new Map<string, CalibrationNeed>();
  const add = (n: CalibrationNeed): void => void needs.set(`${n.sizeClass}|${n.pipeline}|${n.connections}`, n);
  for (const r of report.results) {
    if (r.sizeClass === undefined) continue;
    if (r.steps.length > 0) add({ sizeClass: r.sizeClass, pipeline: 1, connections: stepConnections });
    if (r.peak !== undefined) add({ sizeClass: r.sizeClass, pipeline: r.peak.pipeline ?? 1, connections: r.peak.connections ?? r.peak.concurrency });
  }
  return [...needs.values()];
}

/** The ceiling (req/s) for `sizeClass` at `pipeline`, or undefined when not calibrated. */
export function ceilingFor(calibration: Calibration[], sizeClass: string | undefined, pipeline: number): number | undefined {
  if (sizeClass === undefined) return undefined;
  return calibration.find((c) => c.sizeClass === sizeClass && c.pipeline === pipeline)?.rps;
}

/** Whether `rps` is bound by the generator: at or above {@link GENERATOR_BOUND_FRACTION} of `ceiling` (false without a ceiling). */
export function isGeneratorBound(rps: number, ceiling: number | undefined): boolean {
  return ceiling !== undefined && ceiling > 0 && rps >= GENERATOR_BOUND_FRACTION * ceiling;
}

/** Sets `generatorBound` on every step (against the unpipelined ceiling) and peak (against its pipelining's) of `report`. */
export function markGeneratorBound(report: LoadReport): void {
  const calibration = report.generator?.calibration ?? [];
  for (const r of report.results) {
    for (const s of r.steps) s.generatorBound = isGeneratorBound(s.achievedRps, ceilingFor(calibration, r.sizeClass, 1));
    const p = r.peak;
    if (p !== undefined) p.generatorBound = isGeneratorBound(p.rps, ceilingFor(calibration, r.sizeClass, p.pipeline ?? 1));
  }
}

/** Whether any figure of `r` is marked bound by the generator. */
export function resultBound(r: CorpusResult): boolean {
  return r.steps.some((s) => s.generatorBound === true) || r.peak?.generatorBound === true;
}

/** Starts the server calibration runs against (default: the bare server in its own process). */
export type BareServerFactory = (routes: BareRoutes) => Promise<BareServerHandle>;

/** Options of {@link calibrate}. */
export interface CalibrateOptions {
  threads: number;
  timeoutMs: number;
  sampleBytes: number;
  seconds: number;
  /** run wrk too when on PATH */
  wrk: boolean;
  server?: BareServerFactory;
  onProgress?: (line: string) => void;
}

/** One line per calibration: the generator's figure, wrk's, and their ratio. */
export function describeCalibration(c: Calibration): string {
  const head =
    `calibration ${c.sizeClass} (${c.answerBytes} B answer of ${c.corpus} from ${c.endpoint}), ` +
    `${c.connections} conn × pipeline ${c.pipeline}, ${c.seconds} s: generator ${fmtRate(c.rps)} req/s ` +
    `(${c.generatorCpu} cores, busiest thread ${Math.round(c.generatorBusy * 100)} %${c.failed > 0 ? `, ${c.failed} failed` : ""})`;
  if (c.wrk === undefined) return `${head}; wrk: ${c.wrkNote ?? "not run"}`;
  const ratio = c.wrk.rps > 0 ? c.rps / c.wrk.rps : 0;
  return `${head}; wrk ${fmtRate(c.wrk.rps)} req/s${c.wrk.errors > 0 ? ` (${c.wrk.errors} errors)` : ""}; generator/wrk ${ratio.toFixed(2)} (${wrkVerdict(ratio)})`;
}

/**
 * Runs the calibrations `needs` asks for with the answers of `samples` (per size class, the
 * smallest answer: the highest ceiling, so the most figures marked), each a closed loop of the
 * generator then, if asked and found, wrk, against one bare server serving every class's bytes.
 * Returns the calibrations (a class without a sample, or whose run failed, has none).
 */
export async function calibrate(samples: CalibrationSample[], needs: CalibrationNeed[], opts: CalibrateOptions): Promise<Calibration[]> {
  const progress = opts.onProgress ?? ((): void => undefined);
  const reps = new Map<string, CalibrationSample>();
  for (const s of samples) {
    const cls = sizeClass(s.answer.length);
    const have = reps.get(cls);
    if (have === undefined || s.answer.length < have.answer.length) reps.set(cls, s);
  }
  const classes = [...reps.keys()];
  const wanted = needs.filter((n) => reps.has(n.sizeClass));
  if (wanted.length === 0) return [];
  const routes: BareRoutes = {};
  classes.forEach((cls, i) => (routes[`/c${i}`] = reps.get(cls)!.answer));
  const server = await (opts.server ?? startBareServer)(routes);
  const wrk = opts.wrk ? findWrk() : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), "basalt-calibration-"));
  const out: Calibration[] = [];
  try {
    for (const need of wanted) {
      const rep = reps.get(need.sizeClass)!;
      const url = `${server.base}/c${classes.indexOf(need.sizeClass)}`;
      const body = rep.corpus.bodies[rep.bodyIndex]!;
      const corpus: Corpus = { ...rep.corpus, bodies: [body] };
      const gen = await LoadGenerator.start({ url, corpus, threads: opts.threads, timeoutMs: opts.timeoutMs, sampleBytes: opts.sampleBytes, validateAs: rep.bodyIndex });
      let c: Calibration;
      try {
        await gen.warm(1);
        const p = await gen.closed({ concurrency: need.connections * need.pipeline, pipeline: need.pipeline, seconds: opts.seconds });
        c = {
          sizeClass: need.sizeClass,
          answerBytes: rep.answer.length,
          corpus: rep.corpus.name,
          endpoint: rep.endpoint,
          connections: need.connections,
          pipeline: need.pipeline,
          seconds: opts.seconds,
          rps: p.rps,
          failed: p.failed,
          generatorCpu: p.generatorCpu ?? 0,
          generatorBusy: p.generatorBusy ?? 0,
        };
      } finally {
        await gen.close();
      }
      if (!opts.wrk) c.wrkNote = "not asked";
      else if (wrk === undefined) c.wrkNote = "wrk not on PATH";
      else {
        const bodyFile = path.join(dir, `body-${out.length}.json`);
        writeFileSync(bodyFile, body);
        try {
          const threads = Math.min(WRK_THREADS, need.connections);
          const w = await runWrk({ url, bodyFile, connections: need.connections, threads, seconds: opts.seconds, pipeline: need.pipeline, wrk });
          c.wrk = { rps: w.rps, threads, errors: w.errors };
        } catch (e) {
          c.wrkNote = e instanceof Error ? e.message.slice(0, 200) : String(e);
        }
      }
      out.push(c);
      progress(describeCalibration(c));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
  return out;
}

/** The generator part of a report before calibration. */
export function generatorReport(threads: number, pipeline: number, sampleBytes: number): GeneratorReport {
  return {
    threads,
    pipeline,
    sampleBytes: Number.isFinite(sampleBytes) ? sampleBytes : null,
    boundFraction: GENERATOR_BOUND_FRACTION,
    calibration: [],
  };
}
