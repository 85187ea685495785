/**
 * `basalt bench wrk`: runs wrk (the C HTTP benchmark tool, when installed) against any JSON-RPC
 * endpoint with a request body from a file, the same way the load tool's calibration does
 * (bench/load/wrk.ts, bench/load/wrkPost.lua), so a figure of `basalt bench load` can be checked
 * independently.
 */
import { readFileSync } from "node:fs";
import { LoadError } from "../load/errors.js";
import { DEFAULT_THREADS } from "../load/generator.js";
import { findWrk, runWrk } from "../load/wrk.js";

/** Default connections: the load tool's default peak concurrency. */
const DEFAULT_CONNECTIONS = 32;
/** Default duration: the load tool's default peak length. */
const DEFAULT_SECONDS = 10;

/** The usage text of `basalt bench wrk`. */
export const WRK_USAGE = `basalt bench wrk: wrk against a JSON-RPC endpoint, POSTing one body

Usage:
  basalt bench wrk --url URL --body FILE [options]

Options:
  --url URL               the endpoint (http://host:port/path)
  --body FILE             a file holding the JSON-RPC request (object or batch) to POST
  --connections N         connections (default: ${DEFAULT_CONNECTIONS})
  --threads N             wrk threads (default: ${DEFAULT_THREADS})
  --seconds N             duration (default: ${DEFAULT_SECONDS})
  --pipeline N            requests per connection per write, HTTP/1.1 pipelining (default: 1)
  -h, --help              this text

Needs wrk on PATH (Debian/Ubuntu: apt-get install wrk). wrk checks status codes only, not bodies.
`;

/** The parsed arguments of `basalt bench wrk`. */
export interface WrkArgs {
  url?: string;
  body?: string;
  connections: number;
  threads: number;
  seconds: number;
  pipeline: number;
  help: boolean;
}

function argError(flag: string, message: string): LoadError {
  return new LoadError("BENCH_LOAD_ARG", `${flag}: ${message}`, { option: flag });
}

/** Parses the arguments after `wrk`; throws `BENCH_LOAD_ARG` naming the flag. */
export function parseWrkArgs(argv: readonly string[]): WrkArgs {
  const args: WrkArgs = { connections: DEFAULT_CONNECTIONS, threads: Math.max(1, DEFAULT_THREADS), seconds: DEFAULT_SECONDS, pipeline: 1, help: false };
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    const eq = tok.startsWith("--") ? tok.indexOf("=") : -1;
    const flag = eq >= 0 ? tok.slice(0, eq) : tok;
    if (flag === "--help" || flag === "-h") {
      args.help = true;
      continue;
    }
    const value = eq >= 0 ? tok.slice(eq + 1) : argv[++i];
    if (value === undefined) throw argError(flag, "missing value (see basalt bench wrk --help)");
    const count = (): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw argError(flag, `invalid value ${JSON.stringify(value)}: expected an integer >= 1`);
      return n;
    };
    switch (flag) {
      case "--url":
        args.url = value;
        break;
      case "--body":
        args.body = value;
        break;
      case "--connections":
        args.connections = count();
        break;
      case "--threads":
        args.threads = count();
        break;
      case "--seconds":
        args.seconds = count();
        break;
      case "--pipeline":
        args.pipeline = count();
        break;
      default:
        throw argError(flag, "unknown flag; see basalt bench wrk --help");
    }
  }
  if (args.help) return args;
  if (args.url === undefined || !/^https?:\/\//.test(args.url)) throw argError("--url", "expected http://host:port/path");
  if (args.body === undefined) throw argError("--body", "missing: expected a file holding a JSON-RPC request");
  return args;
}

/** Runs `basalt bench wrk` with `argv` (the arguments after `wrk`). */
export async function main(argv: string[]): Promise<void> {
  const args = parseWrkArgs(argv);
  if (args.help) {
    process.stdout.write(WRK_USAGE);
    return;
  }
  const bodyFile = args.body!;
  let body: string;
  try {
    body = readFileSync(bodyFile, "utf8");
    JSON.parse(body);
  } catch (e) {
    throw argError("--body", `${bodyFile} is not a readable JSON file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const wrk = findWrk();
  if (wrk === undefined) throw new LoadError("BENCH_LOAD_WRK", "wrk not found on PATH: expected e.g. apt-get install wrk");
  const r = await runWrk({ url: args.url!, bodyFile, connections: args.connections, threads: args.threads, seconds: args.seconds, pipeline: args.pipeline, wrk });
  process.stdout.write(r.output);
  process.stdout.write(
    `\nwrk: ${r.rps.toFixed(0)} req/s (${r.requests} requests, ${r.errors} errors) against ${args.url}, ` +
      `${args.connections} connections × pipeline ${args.pipeline}, ${Math.min(args.threads, args.connections)} threads, ${args.seconds} s\n`,
  );
}
