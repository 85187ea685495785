/**
 * The load run: for each corpus, each endpoint in turn (never two at once: they would share the
 * machine's cores), a warm-up pass, every open-loop step, then the closed-loop peak.
 */
import { cpus, totalmem } from "node:os";
import { checkOutcome, prepareCorpus, type PreparedCorpus } from "./check.js";
import { DEFAULT_MAX_SOCKETS, RpcHttpClient } from "./client.js";
import { runClosedLoop } from "./closedLoop.js";
import { LoadError } from "./errors.js";
import { runOpenLoop } from "./openLoop.js";
import { readRssMiB } from "./rss.js";
import { Tally } from "./stats.js";
import type { CorpusResult, Endpoint, LoadPlan, LoadReport } from "./types.js";

/** Default offered rates (req/s): ×4 per step from idle to well past what one node on 2 cores serves, then halving the gap at the top. */
export const DEFAULT_STEPS: readonly number[] = [1, 4, 16, 64, 256, 512, 2048];
/** Default seconds per open-loop step: enough samples for a p99 at 64 req/s and above, a few minutes per corpus in all. */
export const DEFAULT_STEP_SECONDS = 5;
/** Default open-loop in-flight cap: bounds the generator's memory when a server stalls (4096 bodies and sockets' buffers). */
export const DEFAULT_MAX_IN_FLIGHT = 4096;
/** Default per-request timeout: 10 s, longer than any healthy RPC answer, short enough to end a stalled step. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Requests in flight during the warm-up pass: enough to open a few sockets without loading the server. */
const WARMUP_CONCURRENCY = 4;
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

/** Sends every body once, unmeasured (opens sockets, warms the server's caches); returns the failures seen. */
async function warmUp(client: RpcHttpClient, prepared: PreparedCorpus): Promise<Tally> {
  const tally = new Tally();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < prepared.payloads.length) {
      const i = next++;
      checkOutcome(await client.send(prepared.payloads[i] as Buffer), prepared, i, tally);
    }
  };
  await Promise.all(Array.from({ length: Math.min(WARMUP_CONCURRENCY, prepared.payloads.length) }, worker));
  return tally;
}

async function runOne(
  endpoint: Endpoint,
  prepared: PreparedCorpus,
  plan: LoadPlan,
  steps: number[],
  stepSeconds: number,
): Promise<CorpusResult> {
  const progress = plan.onProgress ?? ((): void => undefined);
  const label = `[${endpoint.name}] ${prepared.corpus.name}`;
  const peak = plan.peak;
  const client = new RpcHttpClient(endpoint.url, {
    timeoutMs: plan.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxSockets: Math.max(plan.maxSockets ?? DEFAULT_MAX_SOCKETS, peak?.concurrency ?? 0),
  });
  const rss = (): number | undefined => (endpoint.pid === undefined ? undefined : readRssMiB(endpoint.pid));
  const result: CorpusResult = { endpoint: endpoint.name, corpus: prepared.corpus.name, steps: [] };
  prepared.cursor = 0;
  try {
    const warm = await warmUp(client, prepared);
    const failedNote = warm.failed > 0 ? `, ${warm.failed} failed: ${describeFailures(warm.failures)}` : "";
    progress(`${label}: warm-up ${prepared.payloads.length} bod${prepared.payloads.length === 1 ? "y" : "ies"}${failedNote}`);
    for (const rate of steps) {
      const step = await runOpenLoop(client, prepared, { rate, seconds: stepSeconds, maxInFlight: plan.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT });
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
      const p = await runClosedLoop(client, prepared, peak);
      const rssMiB = rss();
      if (rssMiB !== undefined) p.rssMiB = rssMiB;
      result.peak = p;
      const fails = p.failed > 0 ? `, ${p.failed} failed (${describeFailures(p.failures)})` : "";
      progress(`${label}: peak ×${peak.concurrency} → ${fmt(p.rps)} ok/s, p50 ${fmt(p.p50)} ms, p99 ${fmt(p.p99)} ms${fails}`);
    }
  } finally {
    client.close();
  }
  return result;
}

/**
 * Runs `plan`: for each corpus, each of its endpoints in turn (one at a time), a warm-up pass
 * (each body once, not counted), every open-loop step, then the peak. Throws `BENCH_LOAD_PLAN`
 * for an inconsistent plan before sending anything.
 */
export async function runLoad(plan: LoadPlan): Promise<LoadReport> {
  const steps = [...(plan.steps ?? DEFAULT_STEPS)];
  const stepSeconds = plan.stepSeconds ?? DEFAULT_STEP_SECONDS;
  checkPlan(plan, steps, stepSeconds);
  const prepared = plan.corpora.map(prepareCorpus);
  const report: LoadReport = {
    startedAt: new Date().toISOString(),
    machine: machineInfo(),
    plan: { steps, stepSeconds, ...(plan.peak !== undefined ? { peak: { ...plan.peak } } : {}) },
    results: [],
  };
  for (const p of prepared) {
    const only = p.corpus.endpoints;
    for (const endpoint of plan.endpoints) {
      if (only !== undefined && !only.includes(endpoint.name)) continue;
      report.results.push(await runOne(endpoint, p, plan, steps, stepSeconds));
    }
  }
  return report;
}
