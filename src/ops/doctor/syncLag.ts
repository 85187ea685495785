/**
 * `basalt doctor` check "sync": when a node is running (its rollup port answers
 * `optimism_syncStatus`), how far its unsafe head is behind the present:
 * lag = now − `unsafe_l2.timestamp` (the sync check of the specification's "Node-local sync
 * status method").
 */
import { CLIENT_NAME } from "../../rpc/constants.js";
import { DOCTOR_SYNC_LAG_OK_S, DOCTOR_CLOCK_AHEAD_FAIL_S } from "../constants.js";
import { isBaseNetwork, isDevnet } from "../../config/options.js";
import { failureReason, isRefused, jsonRpc, localUrl, type JsonRpcAnswer } from "./probe.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";

/** `90 s`, `2 h 5 min`, `3 d 4 h`: a lag for humans. */
function formatLag(seconds: number): string {
  const s = Math.abs(Math.round(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7_200) return `${Math.floor(s / 60)} min`;
  if (s < 172_800) return `${Math.floor(s / 3_600)} h ${Math.floor((s % 3_600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3_600)} h`;
}

/** `unsafe_l2.timestamp` of an `optimism_syncStatus` result (decimal number or hex string), or undefined. */
function unsafeTimestamp(status: unknown): number | undefined {
  const ts = (status as { unsafe_l2?: { timestamp?: unknown } } | null)?.unsafe_l2?.timestamp;
  if (typeof ts === "number" && Number.isFinite(ts)) return ts;
  if (typeof ts === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(ts)) return Number(ts);
  return undefined;
}

/** Check "sync": SKIP when no node answers on the rollup port; lag ≤ {@link DOCTOR_SYNC_LAG_OK_S} → OK, more → WARN; clock skew → FAIL. */
export async function checkSyncLag(ctx: DoctorContext): Promise<CheckResult> {
  const id = "sync";
  const title = "Sync lag";
  const o = ctx.options;
  if (!o.rollup) return result(id, title, "SKIP", "the rollup RPC is off (--no-rollup): no optimism_syncStatus to read");
  const url = localUrl(o["rollup.addr"], o["rollup.port"]);
  let answer: JsonRpcAnswer;
  try {
    answer = await jsonRpc(url, "optimism_syncStatus", [], ctx.timeoutMs);
  } catch (e) {
    if (isRefused(e)) {
      // Nothing on the rollup port: either no node runs, or it runs without serving the rollup RPC.
      const http = await jsonRpc(localUrl(o["http.addr"], o["http.port"]), "web3_clientVersion", [], ctx.timeoutMs).catch(() => undefined);
      const running = typeof http?.result === "string" && http.result.toLowerCase().startsWith(CLIENT_NAME) ? http.result : undefined;
      const detail =
        running === undefined
          ? `no node running: nothing answers on the rollup port ${url}`
          : `${running} answers on the HTTP port but nothing on the rollup port ${url} (rollup RPC not served by this build)`;
      return result(id, title, "SKIP", detail, undefined, { url });
    }
    const fix = `check that the process on ${url} is basalt's rollup RPC (--rollup.port)`;
    return result(id, title, "WARN", `${url} did not answer optimism_syncStatus: ${failureReason(e)}`, fix, { url });
  }
  if (answer.error !== undefined) {
    const fix = `check that the process on ${url} is basalt's rollup RPC (--rollup.port)`;
    return result(id, title, "WARN", `${url} answered optimism_syncStatus with error ${answer.error.code} ${answer.error.message}`, fix, { url });
  }
  const ts = unsafeTimestamp(answer.result);
  if (ts === undefined) {
    const fix = "upgrade the node: its sync status lacks unsafe_l2";
    return result(id, title, "WARN", `${url}: optimism_syncStatus has no unsafe_l2.timestamp`, fix, { url });
  }
  const lag = ctx.now() / 1000 - ts;
  const data = { url, unsafeTimestamp: ts, lagSeconds: Math.round(lag * 10) / 10, okBelowSeconds: DOCTOR_SYNC_LAG_OK_S };
  if (isBaseNetwork(o.network) && lag < -DOCTOR_CLOCK_AHEAD_FAIL_S) {
    const fix = "synchronize the clock: timedatectl set-ntp true (or chrony / ntpd)";
    return result(id, title, "FAIL", `the unsafe head is ${formatLag(lag)} ahead of this machine's clock`, fix, data);
  }
  if (lag <= DOCTOR_SYNC_LAG_OK_S) return result(id, title, "OK", `unsafe head ${formatLag(Math.max(lag, 0))} behind (${url})`, undefined, data);
  if (isDevnet(o.network) && o["dev.block-time"] === 0) {
    const detail = `unsafe head ${formatLag(lag)} old; the devnet seals on demand (--dev.block-time 0), so age is not lag`;
    return result(id, title, "OK", detail, undefined, data);
  }
  const fix = isBaseNetwork(o.network)
    ? "initial sync takes days (a snapshot shortens it); if the lag keeps growing, check the L1 and follow sources and the node's log"
    : "check that the node is producing or following blocks (its log, --follow-rpc)";
  return result(id, title, "WARN", `unsafe head ${formatLag(lag)} behind, more than ${DOCTOR_SYNC_LAG_OK_S} s`, fix, data);
}
