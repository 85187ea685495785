/**
 * The bare-bytes server: a uWebSockets.js app that answers every POST on each of its paths with
 * fixed bytes — e.g. basalt's exact answer to `eth_getBlockByNumber(latest, true)` — doing nothing
 * else (it reads and drops the request body). Its throughput is the limit of serving those bytes
 * over HTTP at all on this machine: the scenario compares basalt with it, and the load generator
 * calibrates its own ceiling against it (bench/load/calibrate.ts).
 *
 * Runs as its own process: `node dist/bench/scenario/bareServer.js <port> <path>=<file>|map:<file>…`;
 * {@link startBareServer} launches it. {@link serveBare} runs it in-process (tests).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import uws from "uWebSockets.js";
import type { HttpResponse } from "uWebSockets.js";
import { ScenarioError } from "./errors.js";
import { freePorts, LOOPBACK } from "./ports.js";
import { compiledScript, spawnChild, type Child } from "./processes.js";
import { waitForRpc } from "./rpc.js";

/** How long the bare server may take to listen: it starts in milliseconds; 15 s covers a loaded machine. */
const READY_TIMEOUT_MS = 15_000;
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: fail instead of sharing a port via SO_REUSEPORT. */
const LISTEN_EXCLUSIVE_PORT = 1;
/** Marks a route's file as per-body answers (`/path=map:file`) in the child's arguments. */
const PER_BODY_PREFIX = "map:";
/** The 4-argument listen overload the native module has but the bundled typings omit. */
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: unknown) => void) => unknown;

/**
 * What a path answers: fixed bytes, or bytes per request body (the exact request text → its
 * answer, e.g. basalt's answer to each `eth_getBlockByNumber(n, true)`; an unknown body answers 404).
 */
export type BareAnswer = Buffer | Map<string, Buffer>;

/** Answers by request path (e.g. `{ "/": block, "/receipts": receipts, "/bodies": perBody }`). */
export type BareRoutes = Record<string, BareAnswer>;

/** A running bare server (child process or in-process). */
export interface BareServerHandle {
  /** `http://127.0.0.1:<port>` (append a route's path) */
  base: string;
  /** stops the server (and removes its byte files) */
  stop(): Promise<void>;
}

/** A bare server in its own process. */
export interface BareServer extends BareServerHandle {
  pid: number;
  child: Child;
}

/** A POST handler answering `bytes` once the whole request body has been read (or nothing if the client aborted). */
function answer(bytes: Buffer): (res: HttpResponse) => void {
  return (res) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((_chunk, isLast) => {
      if (!isLast || aborted) return;
      res.cork(() => {
        res.writeHeader("Content-Type", "application/json").end(bytes);
      });
    });
  };
}

/**
 * A POST handler answering the bytes `answers` holds for the request's body (read whole, then one
 * map lookup: the least a server can do to answer per request), 404 for a body it does not hold.
 */
function answerPerBody(answers: Map<string, Buffer>): (res: HttpResponse) => void {
  return (res) => {
    let aborted = false;
    let chunks: Buffer[] = [];
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after the callback: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (!isLast || aborted) return;
      const body = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      chunks = [];
      const bytes = answers.get(body);
      res.cork(() => {
        if (bytes === undefined) res.writeStatus("404 Not Found").end();
        else res.writeHeader("Content-Type", "application/json").end(bytes);
      });
    });
  };
}

/** Serves `routes` on 127.0.0.1:`port` (`port` 0: any free port), in this process; unknown paths answer 404. */
export function serveBare(port: number, routes: BareRoutes): Promise<BareServerHandle> {
  const app = uws.App();
  for (const [route, a] of Object.entries(routes)) app.post(route, a instanceof Map ? answerPerBody(a) : answer(a));
  app.any("/*", (res) => {
    res.writeStatus("404 Not Found").end();
  });
  return new Promise((resolve, reject) => {
    (app.listen as unknown as ListenWithOptions).call(app, LOOPBACK, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket === false) return reject(new ScenarioError("BENCH_SCENARIO_SPAWN", `bare server: cannot listen on ${LOOPBACK}:${port} (taken?)`));
      const listenSocket = socket as uws.us_listen_socket;
      const bound = uws.us_socket_local_port(listenSocket as unknown as uws.us_socket);
      resolve({
        base: `http://${LOOPBACK}:${bound}`,
        // Stops accepting; open connections end when their clients close them.
        stop: () => {
          uws.us_listen_socket_close(listenSocket);
          return Promise.resolve();
        },
      });
    });
  });
}

/** Writes each route's bytes to a temp file, launches the compiled bare server on a free port in its own process, and waits until it answers. */
export async function startBareServer(routes: BareRoutes): Promise<BareServer> {
  const script = compiledScript("bench", "scenario", "bareServer.js");
  const dir = mkdtempSync(path.join(tmpdir(), "basalt-bare-"));
  const args = Object.entries(routes).map(([route, a], i) => {
    const file = path.join(dir, `route-${i}.json`);
    if (a instanceof Map) {
      // Per-body answers: a JSON object { request text: answer text }.
      writeFileSync(file, JSON.stringify(Object.fromEntries([...a].map(([body, bytes]) => [body, bytes.toString("utf8")]))));
      return `${route}=${PER_BODY_PREFIX}${file}`;
    }
    writeFileSync(file, a);
    return `${route}=${file}`;
  });
  const [port] = await freePorts(1);
  const child = spawnChild("bare", process.execPath, [script, String(port), ...args], {
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  const stop = (): Promise<void> => child.stop();
  const base = `http://${LOOPBACK}:${port}`;
  try {
    const first = Object.keys(routes)[0] ?? "/";
    await waitForRpc(`${base}${first}`, READY_TIMEOUT_MS, () => child.assertAlive());
  } catch (e) {
    await stop();
    throw e;
  }
  return { base, pid: child.pid, child, stop };
}

/** Entry point of the child process. */
async function main(argv: string[]): Promise<void> {
  const [portArg, ...pairs] = argv;
  const port = Number(portArg);
  const routes: BareRoutes = {};
  for (const p of pairs) {
    const eq = p.indexOf("=");
    if (eq <= 0 || !p.startsWith("/")) throw new ScenarioError("BENCH_SCENARIO_ARG", `bare server route ${JSON.stringify(p)}: expected /path=file`);
    const file = p.slice(eq + 1);
    routes[p.slice(0, eq)] = file.startsWith(PER_BODY_PREFIX)
      ? new Map(Object.entries(JSON.parse(readFileSync(file.slice(PER_BODY_PREFIX.length), "utf8")) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "utf8")]))
      : readFileSync(file);
  }
  if (!Number.isInteger(port) || port <= 0 || pairs.length === 0) {
    throw new ScenarioError("BENCH_SCENARIO_ARG", `bare server arguments ${JSON.stringify(argv)}: expected <port> <path>=<file>…`);
  }
  await serveBare(port, routes);
  process.once("SIGTERM", () => process.exit(0));
  process.once("SIGINT", () => process.exit(0));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
}
