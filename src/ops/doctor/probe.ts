/**
 * Network probes of `basalt doctor`: one JSON-RPC call or one HTTP GET, bounded by a time limit,
 * with the round-trip time measured. Every request uses its own connection (no keep-alive
 * agent), so nothing stays open once the doctor has printed its results.
 */
import http from "node:http";
import https from "node:https";
import { performance } from "node:perf_hooks";
import { DoctorError } from "./types.js";
import { DOCTOR_MAX_PROBE_BODY_BYTES } from "../constants.js";

/** One HTTP answer. */
interface HttpAnswer {
  status: number;
  body: string;
  /** Round-trip time from sending the request to the end of the body, in milliseconds. */
  latencyMs: number;
}

/** One JSON-RPC answer: a result or an error, and the round-trip time. */
export interface JsonRpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
  latencyMs: number;
}

/** The URL of `host:port` over plain HTTP, with an IPv6 literal bracketed and a wildcard address replaced by loopback. */
export function localUrl(host: string, port: number, path = "/"): string {
  const h = loopbackFor(host);
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}${path}`;
}

/** The address to connect to for a server listening on `host`: loopback for the wildcard addresses. */
export function loopbackFor(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "::1";
  return host;
}

/** A short reason of a failed probe: the socket error code (ECONNREFUSED, ENOTFOUND, ...), the timeout, or the message. */
export function failureReason(e: unknown): string {
  if (e instanceof DoctorError) return e.message;
  const err = e as NodeJS.ErrnoException;
  // A system call's error (it names a syscall) already says its code in its message.
  if (err.code !== undefined) return err.syscall !== undefined ? err.code : `${err.code} (${err.message})`;
  return err.message ?? String(e);
}

/** Whether a probe failed because nothing listens at the address (ECONNREFUSED). */
export function isRefused(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === "ECONNREFUSED";
}

/**
 * Sends one HTTP request (`GET` without a body, `POST` with a JSON body) to `url` and reads the
 * answer, rejecting with the socket error or a `DOCTOR_PROBE_FAILED` {@link DoctorError} after
 * `timeoutMs`.
 */
function httpRequest(url: string, timeoutMs: number, body?: string): Promise<HttpAnswer> {
  let u: URL;
  try {
    u = new URL(url);
  } catch (e) {
    return Promise.reject(new DoctorError({ code: "DOCTOR_PROBE_FAILED", target: url }, `${url} is not a URL`, { cause: e }));
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return Promise.reject(new DoctorError({ code: "DOCTOR_PROBE_FAILED", target: url }, `${url}: expected an http:// or https:// URL`));
  }
  const lib = u.protocol === "https:" ? https : http;
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const req = lib.request(u, { method: body === undefined ? "GET" : "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > DOCTOR_MAX_PROBE_BODY_BYTES) {
          req.destroy(new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url }, `${url} answered more than ${DOCTOR_MAX_PROBE_BODY_BYTES} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), latencyMs: performance.now() - start });
      });
      res.on("error", reject);
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy(new DoctorError({ code: "DOCTOR_PROBE_FAILED", target: url }, `no answer from ${url} within ${timeoutMs} ms`));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Calls JSON-RPC `method` at `url`. Rejects when the service is unreachable, answers a non-2xx
 * status, or answers something that is not a JSON-RPC response (`DOCTOR_BAD_ANSWER`); a
 * JSON-RPC error is returned, not thrown.
 */
export async function jsonRpc(url: string, method: string, params: unknown[], timeoutMs: number): Promise<JsonRpcAnswer> {
  const answer = await httpRequest(url, timeoutMs, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  if (answer.status < 200 || answer.status > 299) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url, status: answer.status }, `${url} answered HTTP ${answer.status} to ${method}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch (e) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url }, `${url} answered ${method} with something that is not JSON`, { cause: e });
  }
  if (parsed === null || typeof parsed !== "object" || !("result" in parsed || "error" in parsed)) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url }, `${url} answered ${method} without a JSON-RPC result or error`);
  }
  const o = parsed as { result?: unknown; error?: { code?: unknown; message?: unknown } };
  if (o.error !== undefined && o.error !== null) {
    return { error: { code: Number(o.error.code), message: String(o.error.message) }, latencyMs: answer.latencyMs };
  }
  return { result: o.result, latencyMs: answer.latencyMs };
}

/** GETs `url` and parses its JSON body; rejects on an unreachable service, a non-2xx status or a body that is not JSON. */
export async function getJson(url: string, timeoutMs: number): Promise<{ body: unknown; latencyMs: number }> {
  const answer = await httpRequest(url, timeoutMs);
  if (answer.status < 200 || answer.status > 299) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url, status: answer.status }, `GET ${url} answered HTTP ${answer.status}`);
  }
  try {
    return { body: JSON.parse(answer.body), latencyMs: answer.latencyMs };
  } catch (e) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: url }, `GET ${url} answered something that is not JSON`, { cause: e });
  }
}

/** Milliseconds rounded for display. */
export function ms(latencyMs: number): string {
  return `${Math.round(latencyMs)} ms`;
}
