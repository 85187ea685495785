/**
 * `basalt doctor` check "proofs": the historical proofs options (`--historical-proofs`,
 * `--proofs.history-window`, `--proofs.max-blocks-ahead`; env `BASALT_HISTORICAL_PROOFS`,
 * `BASALT_PROOFS_HISTORY_WINDOW`, `BASALT_PROOFS_MAX_BLOCKS_AHEAD`) are consistent, and where
 * the store lives (`--proofs.path`, default `<datadir>/proofs`).
 */
import { DEFAULT_PROOFS_HISTORY_WINDOW } from "../../config/constants.js";
import { envVarName, proofsStoreDir } from "../../config/options.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";

/**
 * Smallest useful window: 12 hours of 2-second blocks. Base's newer proofs code refuses a window
 * not above `TWELVE_HOURS_IN_BLOCKS` = 21,600 (reference proofs-and-sync §1.2), since pruning
 * would otherwise outrun the backfill.
 */
const MIN_USEFUL_PROOFS_WINDOW = 21_600;

/** Check "proofs": SKIP when disabled; FAIL for a window below 1; WARN for a window under 12 h or an ignored --rpc.eth-proof-window; OK otherwise. */
export function checkHistoricalProofs(ctx: DoctorContext): CheckResult {
  const id = "proofs";
  const title = "Historical proofs";
  const o = ctx.options;
  const window = o["proofs.history-window"];
  const maxBlocksAhead = o["proofs.max-blocks-ahead"];
  const data = { enabled: o["historical-proofs"], window, maxBlocksAhead, storage: proofsStoreDir(o.datadir, o["proofs.path"]) };
  if (!o["historical-proofs"]) {
    return result(id, title, "SKIP", `disabled (--historical-proofs / ${envVarName("historical-proofs")})`, undefined, data);
  }
  if (!Number.isInteger(window) || window < 1) {
    const fix = `set ${envVarName("proofs.history-window")} to a block count >= 1 (default ${DEFAULT_PROOFS_HISTORY_WINDOW}, 28 days)`;
    return result(id, title, "FAIL", `--proofs.history-window ${window} is not a positive block count`, fix, data);
  }
  const notes = [`window ${window} blocks (${((window * 2) / 86_400).toFixed(1)} days of 2 s blocks), stored in ${data.storage}; follow mode stays within ${maxBlocksAhead} blocks of it`];
  if (window < MIN_USEFUL_PROOFS_WINDOW) notes.push(`below ${MIN_USEFUL_PROOFS_WINDOW} blocks (12 h), which Base's node refuses`);
  if (o["rpc.eth-proof-window"] > 0) notes.push("--rpc.eth-proof-window is ignored while the extension is on");
  if (notes.length > 1 || window < MIN_USEFUL_PROOFS_WINDOW) {
    return result(id, title, "WARN", `enabled; ${notes.join("; ")}`, `raise ${envVarName("proofs.history-window")} to at least ${MIN_USEFUL_PROOFS_WINDOW}, or unset --rpc.eth-proof-window`, data);
  }
  return result(id, title, "OK", `enabled; ${notes[0]}`, undefined, data);

}
