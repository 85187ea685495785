/**
 * The shapes shared by every `basalt doctor` check: a check's verdict and result, the context a
 * check reads (the resolved options and where each came from), and the doctor's error class.
 */
import type { BasaltOptions, OptionName, OptionSource } from "../../config/options.js";
import { TypedError } from "../../util/errors.js";

/** Verdicts in display order: fine, worth a look, blocks running the node, not applicable. */
export const VERDICTS = ["OK", "WARN", "FAIL", "SKIP"] as const;
/** The verdict of one check. */
export type Verdict = (typeof VERDICTS)[number];

/** The result of one check. */
export interface CheckResult {
  /** Stable identifier, e.g. `"l1.rpc"` or `"port.http"` (for scripts reading `--json`). */
  id: string;
  /** Short human label, e.g. `"L1 RPC"`. */
  title: string;
  verdict: Verdict;
  /** What was found (one line). */
  detail: string;
  /** For WARN and FAIL: what to do about it. */
  fix?: string;
  /** Measured values (latency, free bytes, lag, ...), for `--json`. */
  data?: Record<string, unknown>;
}

/** What a check reads. */
export interface DoctorContext {
  /** The resolved options, as `basalt node` would get them from the same flags, environment and env file. */
  options: BasaltOptions;
  /** Where each option's value came from. */
  sources: Record<OptionName, OptionSource>;
  /** Time limit of one network probe, in milliseconds. */
  timeoutMs: number;
  /** The current time in milliseconds (a seam for tests). */
  now: () => number;
}

/**
 * A {@link DoctorError}'s stable code with its metadata: `target` is the URL or address probed,
 * `status` the HTTP status of the answer, when there was one.
 */
type DoctorErrorType =
  | { code: "DOCTOR_PROBE_FAILED"; target: string }
  | { code: "DOCTOR_BAD_ANSWER"; target?: string; status?: number };

/** A probe of `basalt doctor` failed: the target is unreachable, or answered something unexpected. */
export class DoctorError extends TypedError<DoctorErrorType> {}

/** A {@link CheckResult} built from its parts (drops an undefined `fix` / `data` so `--json` stays tidy). */
export function result(id: string, title: string, verdict: Verdict, detail: string, fix?: string, data?: Record<string, unknown>): CheckResult {
  const r: CheckResult = { id, title, verdict, detail };
  if (fix !== undefined) r.fix = fix;
  if (data !== undefined) r.data = data;
  return r;
}
