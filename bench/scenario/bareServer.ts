/**
 * The bare-bytes server: a uWebSockets.js app that answers every POST with fixed bytes — basalt's
 * exact answer to `eth_getBlockByNumber(latest, true)` on `/`, its exact `eth_getBlockReceipts`
 * answer on `/receipts` — doing nothing else (it reads and drops the request body). Its throughput
 * is the limit of serving those bytes over HTTP at all on this machine, so basalt/bare says how
 * close basalt comes to it.
 *
 * Runs as its own process: `node dist/bench/scenario/bareServer.js <port> <blockFile> <receiptsFile>`;
 * {@link startBareServer} launches it from the scenario.
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
/** The 4-argument listen overload the native module has but the bundled typings omit. */
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: unknown) => void) => unknown;

/** A running bare server. */
export interface BareServer {
  /** URL answering the block bytes */
  blockUrl: string;
  /** URL answering the receipts bytes */
  receiptsUrl: string;
  pid: number;
  child: Child;
  /** stops the server and removes its byte files */
  stop(): Promise<void>;
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

/** Serves `block` on every POST path but `/receipts`, which serves `receipts`, on 127.0.0.1:`port`. */
export function serveBare(port: number, block: Buffer, receipts: Buffer): Promise<void> {
  const app = uws.App();
  app.post("/receipts", answer(receipts));
  app.post("/*", answer(block));
  return new Promise((resolve, reject) => {
    (app.listen as unknown as ListenWithOptions).call(app, LOOPBACK, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket === false) reject(new ScenarioError("BENCH_SCENARIO_SPAWN", `bare server: cannot listen on ${LOOPBACK}:${port} (taken?)`));
      else resolve();
    });
  });
}

/**
 * Writes `block` and `receipts` to temp files, launches the compiled bare server on a free port
 * in its own process, and waits until it answers.
 */
export async function startBareServer(block: Buffer, receipts: Buffer): Promise<BareServer> {
  const script = compiledScript("bench", "scenario", "bareServer.js");
  const dir = mkdtempSync(path.join(tmpdir(), "basalt-bare-"));
  const blockFile = path.join(dir, "block.json");
  const receiptsFile = path.join(dir, "receipts.json");
  writeFileSync(blockFile, block);
  writeFileSync(receiptsFile, receipts);
  const [port] = await freePorts(1);
  const child = spawnChild("bare", process.execPath, [script, String(port), blockFile, receiptsFile], {
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
  const stop = (): Promise<void> => child.stop();
  const base = `http://${LOOPBACK}:${port}`;
  try {
    await waitForRpc(base, READY_TIMEOUT_MS, () => child.assertAlive());
  } catch (e) {
    await stop();
    throw e;
  }
  return { blockUrl: `${base}/`, receiptsUrl: `${base}/receipts`, pid: child.pid, child, stop };
}

/** Entry point of the child process. */
async function main(argv: string[]): Promise<void> {
  const [portArg, blockFile, receiptsFile] = argv;
  const port = Number(portArg);
  if (!Number.isInteger(port) || port <= 0 || blockFile === undefined || receiptsFile === undefined) {
    throw new ScenarioError("BENCH_SCENARIO_ARG", `bare server arguments ${JSON.stringify(argv)}: expected <port> <blockFile> <receiptsFile>`);
  }
  await serveBare(port, readFileSync(blockFile), readFileSync(receiptsFile));
  process.once("SIGTERM", () => process.exit(0));
  process.once("SIGINT", () => process.exit(0));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
}
