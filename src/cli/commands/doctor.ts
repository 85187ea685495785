/**
 * `basalt doctor [options] [--json]`: checks a configuration before and while running — the
 * options and where they came from, the datadir (writable, free space, genesis), the ports, the
 * P2P ports of both layers (free, or reachable on a running node, and the advertised address), the
 * L1 RPC and beacon, the flashblocks stream, the sync lag of a running node and the historical
 * proofs options — and prints a verdict (OK / WARN / FAIL / SKIP) per check with the fix for
 * each WARN and FAIL. Takes the same flags, environment and env file as `basalt node`.
 * Exit code: 0 when no check FAILs, 1 otherwise.
 */
import type { BasaltOptions, OptionName, OptionSource } from "../../config/options.js";
import { renderJson, renderText, runDoctor } from "../../ops/doctor/run.js";
import type { DoctorContext } from "../../ops/doctor/types.js";
import { DOCTOR_PROBE_TIMEOUT_MS } from "../constants.js";

/** Runs the checks, prints the report (text, or JSON with `json`), and sets the process exit code (0 = no FAIL, 1 = some FAIL). */
export async function doctorCommand(opts: BasaltOptions, sources: Record<OptionName, OptionSource>, flags: { json: boolean }): Promise<void> {
  const ctx: DoctorContext = { options: opts, sources, timeoutMs: DOCTOR_PROBE_TIMEOUT_MS, now: () => Date.now() };
  const report = await runDoctor(ctx);
  process.stdout.write(flags.json ? renderJson(report) : renderText(report, ctx));
  process.exitCode = report.exitCode;
}
