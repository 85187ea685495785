/**
 * Runs every `basalt doctor` check and renders the results: as text (one line per check with its
 * verdict, and the fix under each WARN/FAIL) or as JSON (`--json`). The exit code is 1 when any
 * check FAILs, else 0.
 */
import { checkDatadir, checkDiskSpace, checkGenesis } from "./datadir.js";
import { checkFlashblocks } from "./flashblocks.js";
import { checkL1Beacon, checkL1Rpc } from "./l1.js";
import { checkOptions } from "./options.js";
import { checkP2P } from "./p2p.js";
import { checkPorts } from "./ports.js";
import { checkHistoricalProofs } from "./proofs.js";
import { checkSyncLag } from "./syncLag.js";
import { checkUpgrades } from "./upgrades.js";
import { VERDICTS, result, type CheckResult, type DoctorContext, type Verdict } from "./types.js";

/** One check: what it returns (one result, or one per item such as a port). */
type Check = (ctx: DoctorContext) => CheckResult | CheckResult[] | Promise<CheckResult | CheckResult[]>;

/** The checks in report order, each with the id reported if it throws unexpectedly. */
const CHECKS: readonly { id: string; title: string; run: Check }[] = [
  { id: "options", title: "Options", run: checkOptions },
  { id: "datadir", title: "Data directory", run: checkDatadir },
  { id: "disk", title: "Disk space", run: checkDiskSpace },
  { id: "genesis", title: "Genesis", run: checkGenesis },
  { id: "ports", title: "Ports", run: checkPorts },
  { id: "p2p", title: "P2P", run: checkP2P },
  { id: "l1.rpc", title: "L1 RPC", run: checkL1Rpc },
  { id: "l1.beacon", title: "L1 beacon", run: checkL1Beacon },
  { id: "flashblocks", title: "Flashblocks stream", run: checkFlashblocks },
  { id: "sync", title: "Sync lag", run: checkSyncLag },
  { id: "upgrades", title: "Scheduled upgrades", run: checkUpgrades },
  { id: "proofs", title: "Historical proofs", run: checkHistoricalProofs },
];

/** The doctor's findings. */
interface DoctorReport {
  /** True when no check FAILed. */
  ok: boolean;
  /** 0 when no check FAILed, else 1. */
  exitCode: number;
  /** How many checks ended with each verdict. */
  counts: Record<Verdict, number>;
  checks: CheckResult[];
}

/** Runs every check concurrently (each probe has its own time limit) and collects the results in {@link CHECKS} order. */
export async function runDoctor(ctx: DoctorContext, checks: readonly { id: string; title: string; run: Check }[] = CHECKS): Promise<DoctorReport> {
  const settled = await Promise.all(
    checks.map(async (c) => {
      try {
        const r = await c.run(ctx);
        return Array.isArray(r) ? r : [r];
      } catch (e) {
        // A check that throws is a bug in the doctor, not a verdict on the node: reported, never fatal.
        return [result(c.id, c.title, "WARN", `the check itself failed: ${(e as Error).message}`, "report this as a basalt bug")];
      }
    }),
  );
  const all = settled.flat();
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, all.filter((r) => r.verdict === v).length])) as Record<Verdict, number>;
  const ok = counts.FAIL === 0;
  return { ok, exitCode: ok ? 0 : 1, counts, checks: all };
}

/** Width of the verdict column. */
const VERDICT_WIDTH = 5;

/** The report as text: a heading, one line per check, `fix:` lines under WARN/FAIL, and a summary line. */
export function renderText(report: DoctorReport, ctx: DoctorContext): string {
  const width = Math.max(...report.checks.map((c) => c.title.length));
  const lines = [`basalt doctor: network ${ctx.options.network}, datadir ${ctx.options.datadir}`, ""];
  for (const c of report.checks) {
    lines.push(`${c.verdict.padEnd(VERDICT_WIDTH)} ${c.title.padEnd(width)}  ${c.detail}`);
    if (c.fix !== undefined && (c.verdict === "WARN" || c.verdict === "FAIL")) lines.push(`${" ".repeat(VERDICT_WIDTH + width + 3)}fix: ${c.fix}`);
  }
  const { OK, WARN, FAIL, SKIP } = report.counts;
  const verdict = report.ok ? "no problem blocks running the node" : "fix the FAIL lines above";
  lines.push("", `${OK} OK, ${WARN} WARN, ${FAIL} FAIL, ${SKIP} SKIP: ${verdict}`);
  return `${lines.join("\n")}\n`;
}

/** The report as JSON (`basalt doctor --json`): `{ ok, exitCode, counts, checks: [{ id, title, verdict, detail, fix?, data? }] }`. */
export function renderJson(report: DoctorReport): string {
  return `${JSON.stringify(report, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`;
}
