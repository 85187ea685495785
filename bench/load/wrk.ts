/**
 * wrk (the C HTTP benchmark tool), as a reference for the load generator: runs it as a bounded
 * child process against one URL with a JSON-RPC body (bench/load/wrkPost.lua), with optional
 * pipelining, and reads its request rate and errors.
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { repoRoot } from "../scenario/processes.js";
import { LoadError } from "./errors.js";

/** Time wrk may take beyond its run: start, connect and the report (a loaded machine included). */
const WRK_GRACE_MS = 15_000;
/** wrk's own per-request timeout, seconds: long enough for any answer of a bare server, bounded. */
const WRK_TIMEOUT_SECONDS = 10;

/** What {@link runWrk} runs. */
export interface WrkOptions {
  url: string;
  /** file holding the JSON-RPC request body */
  bodyFile: string;
  connections: number;
  threads: number;
  seconds: number;
  /** requests per connection per write (1: no pipelining) */
  pipeline: number;
  /** the wrk executable (default: found on PATH) */
  wrk?: string;
}

/** wrk's figures. */
export interface WrkResult {
  /** "Requests/sec" */
  rps: number;
  /** requests completed */
  requests: number;
  /** non-2xx/3xx answers plus socket errors (connect, read, write, timeout) */
  errors: number;
  /** wrk's whole output */
  output: string;
}

/** The path of the `wrk` executable on PATH, or undefined. */
export function findWrk(envPath: string = process.env.PATH ?? ""): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === "") continue;
    const file = path.join(dir, "wrk");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The Lua script that makes wrk POST a body file (bench/load/wrkPost.lua of the repository). */
export function wrkScript(): string {
  return path.join(repoRoot(), "bench", "load", "wrkPost.lua");
}

/** Reads wrk's report; throws `BENCH_LOAD_WRK` when it has no request rate. */
export function parseWrkOutput(output: string): Omit<WrkResult, "output"> {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const total = /(\d+) requests in /.exec(output);
  if (rps === null || total === null) throw new LoadError("BENCH_LOAD_WRK", `wrk printed no request rate: ${output.slice(0, 300)}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((n, v) => n + Number(v), 0);
  return { rps: Number(rps[1]), requests: Number(total[1]), errors: Number(non2xx?.[1] ?? 0) + socketErrors };
}

/** Runs wrk as described by `o`, killed if it outlives its duration by {@link WRK_GRACE_MS}; throws `BENCH_LOAD_WRK`. */
export function runWrk(o: WrkOptions): Promise<WrkResult> {
  const wrk = o.wrk ?? findWrk();
  if (wrk === undefined) return Promise.reject(new LoadError("BENCH_LOAD_WRK", "wrk not found on PATH: expected e.g. apt-get install wrk"));
  const threads = Math.max(1, Math.min(o.threads, o.connections));
  const args = [
    "-t", String(threads),
    "-c", String(o.connections),
    "-d", `${Math.max(1, Math.round(o.seconds))}s`,
    "--timeout", `${WRK_TIMEOUT_SECONDS}s`,
    "-s", wrkScript(),
    o.url, "--", o.bodyFile, String(o.pipeline),
  ];
  const timeout = o.seconds * 1000 + WRK_GRACE_MS;
  return new Promise((resolve, reject) => {
    execFile(wrk, args, { timeout, killSignal: "SIGKILL", maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      if (err !== null) {
        return reject(new LoadError("BENCH_LOAD_WRK", `wrk ${args.join(" ")} failed: ${err.message} ${stderr.slice(0, 300)}`, {}, { cause: err }));
      }
      try {
        resolve({ ...parseWrkOutput(stdout), output: stdout });
      } catch (e) {
        reject(e);
      }
    });
  });
}
