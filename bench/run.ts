/**
 * `npm run bench`: runs every benchmark of the bench folder in sequence, each in its own
 * process so one cannot warm caches for another — the micro-benchmarks, import, latency, the
 * serving path of cached block answers against a bare uWS handler (wrk), the devnet,
 * flashblocks (5-transaction frames, then Base-sized frames: 10 frames × 30 signed transactions
 * a block), the historical-proofs bench, tracing a 200-transaction block against anvil,
 * eth_getLogs over 10k blocks when bench/getLogs.ts exists, and last the basalt-vs-anvil scenario
 * (about 15 minutes). Ends with one table of every target the benches measured, with its figure
 * and verdict (bench/summary.ts). `--quick`: the scenario's quick variant, the other benches
 * unchanged but the long ones skipped (import throughput, devnet, proofs). `--targets`: only the
 * benches that measure the speed targets (Base-sized flashblocks, tracing, eth_getLogs,
 * the full scenario), in one sequence — the run the README's target table comes from.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatSummary, readSummary, SUMMARY_ENV } from "./summary.js";

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes("--quick");
const targetsOnly = process.argv.includes("--targets");

/** Each bench: its script and arguments; `full` ones only run without --quick. */
const BENCHES: Array<{ script: string; args?: string[]; full?: boolean; optional?: boolean }> = [
  { script: "micro.js", full: true },
  { script: "importChain.js", full: true },
  { script: "importThroughput.js", full: true },
  { script: "senderRecovery.js", full: true },
  { script: "rpcLatency.js", full: true },
  { script: "servingPath.js", full: true },
  { script: "opDevnet.js", full: true },
  { script: "flashblocks.js", full: true },
  // Base-sized frames: 10 frames of 30 signed transfers per block (Base mainnet frames carry tens).
  { script: "flashblocks.js", args: ["--txs-per-frame", "30", "--frames", "10"] },
  { script: "proofs.js", full: true },
  { script: "traceBlock.js" },
  // Built by another change; run when present.
  { script: "getLogs.js", optional: true },
  { script: "scenario.js", args: quick ? ["--quick"] : [] },
];

const dir = mkdtempSync(join(tmpdir(), "basalt-bench-summary-"));
const summaryFile = join(dir, "summary.jsonl");
let status = 0;
try {
  for (const b of BENCHES) {
    if ((quick || targetsOnly) && b.full === true) continue;
    const script = join(here, b.script);
    if (b.optional === true && !existsSync(script)) {
      process.stderr.write(`bench ${b.script}: not built, skipped\n`);
      continue;
    }
    process.stderr.write(`\n== bench ${b.script} ${(b.args ?? []).join(" ")}\n`);
    const r = spawnSync(process.execPath, [script, ...(b.args ?? [])], { stdio: "inherit", env: { ...process.env, [SUMMARY_ENV]: summaryFile } });
    if (r.status !== 0) {
      status = r.status ?? 1;
      process.stderr.write(`bench ${b.script} failed (exit ${r.status ?? r.signal}): stopping\n`);
      break;
    }
  }
  process.stdout.write(`\n${formatSummary(readSummary(summaryFile))}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
