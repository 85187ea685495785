/**
 * `basalt doctor` check "flashblocks": the flashblocks stream of `--flashblocks-url`
 * (`BASALT_FB_WEBSOCKET_URL`) accepts a WebSocket connection and sends a first frame in time.
 */
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { envVarName } from "../../config/options.js";
import { failureReason, ms } from "./probe.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";
import { DOCTOR_FLASHBLOCKS_FIRST_FRAME_TIMEOUT_MS, DOCTOR_MAX_PROBE_FRAME_BYTES } from "../constants.js";

/** What one probe of a stream saw. */
interface StreamProbe {
  /** Milliseconds until the upgrade completed, or undefined if it did not. */
  openMs?: number;
  /** Milliseconds until the first frame, or undefined if none came in time. */
  firstFrameMs?: number;
  /** Size of the first frame in bytes. */
  firstFrameBytes?: number;
  /** Why the connection failed (before the upgrade). */
  error?: string;
}

/** Connects to `url`, waits up to `frameTimeoutMs` after the upgrade for one frame, and closes. */
function probeStream(url: string, handshakeTimeoutMs: number, frameTimeoutMs: number): Promise<StreamProbe> {
  const start = performance.now();
  return new Promise((resolve) => {
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, { handshakeTimeout: handshakeTimeoutMs, perMessageDeflate: false, maxPayload: DOCTOR_MAX_PROBE_FRAME_BYTES });
    } catch (e) {
      resolve({ error: (e as Error).message });
      return;
    }
    const seen: StreamProbe = {};
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      ws.removeAllListeners();
      // A late error of the closing socket must not become an uncaught exception.
      ws.on("error", () => undefined);
      ws.terminate();
      resolve(seen);
    };
    ws.on("open", () => {
      seen.openMs = performance.now() - start;
      timer = setTimeout(finish, frameTimeoutMs);
    });
    ws.on("message", (data: WebSocket.RawData) => {
      seen.firstFrameMs = performance.now() - start;
      seen.firstFrameBytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
      finish();
    });
    ws.on("unexpected-response", (_req, res) => {
      seen.error = `the upgrade was refused with HTTP ${res.statusCode ?? "?"}`;
      finish();
    });
    ws.on("error", (e: Error) => {
      seen.error = failureReason(e);
      finish();
    });
    ws.on("close", () => finish());
  });
}

/** Check "flashblocks": SKIP without a URL; FAIL when the stream refuses the connection; WARN when it sends nothing in time. */
export async function checkFlashblocks(ctx: DoctorContext): Promise<CheckResult> {
  const id = "flashblocks";
  const title = "Flashblocks stream";
  const url = ctx.options["flashblocks-url"];
  const variable = envVarName("flashblocks-url");
  if (url === undefined) {
    return result(id, title, "SKIP", `not configured: "pending" answers the latest block (set ${variable} for pre-confirmations)`);
  }
  if (!/^wss?:\/\//i.test(url)) {
    const fix = `set ${variable} to the network's flashblocks WebSocket URL (deploy/env/)`;
    return result(id, title, "FAIL", `${url} is not a ws:// or wss:// URL`, fix, { url });
  }
  const p = await probeStream(url, ctx.timeoutMs, DOCTOR_FLASHBLOCKS_FIRST_FRAME_TIMEOUT_MS);
  const data: Record<string, unknown> = { url, ...p };
  if (p.openMs === undefined) {
    const fix = `check ${variable}: the stream must be reachable from this machine (outbound 443 for wss://)`;
    return result(id, title, "FAIL", `${url}: cannot connect: ${p.error ?? "closed before the upgrade"}`, fix, data);
  }
  if (p.firstFrameMs === undefined) {
    const fix = "the stream is idle or filtered: check the URL is the network's raw flashblocks stream, not an RPC endpoint";
    return result(id, title, "WARN", `${url}: connected in ${ms(p.openMs)} but no frame within ${DOCTOR_FLASHBLOCKS_FIRST_FRAME_TIMEOUT_MS} ms`, fix, data);
  }
  const detail = `${url}: connected in ${ms(p.openMs)}, first frame (${p.firstFrameBytes} bytes) after ${ms(p.firstFrameMs)}`;
  return result(id, title, "OK", detail, undefined, data);
}
