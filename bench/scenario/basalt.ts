/**
 * Starts the compiled basalt (`dist/src/cli/main.js node`) on the built-in OP devnet in a
 * temporary datadir (or a given one), on free loopback ports, sealing blocks only on demand
 * (`evm_mine`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compiledScript, spawnChild, type Child } from "./processes.js";
import { freePorts, LOOPBACK } from "./ports.js";
import { waitForRpc } from "./rpc.js";

/** How long basalt may take to open its store, start its workers and answer: 60 s on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 60_000;

/** Options of {@link startBasalt}. */
export interface BasaltOptions {
  /** `--log.level` (default "warn": the scenario's stderr stays readable) */
  logLevel?: string;
  /** more `basalt node` arguments, e.g. ["--rpc.threads", "1"] */
  extraArgs?: string[];
  /** Node.js flags put before the script, e.g. ["--cpu-prof", "--cpu-prof-dir", dir] */
  nodeArgs?: string[];
  /** an initialized datadir to run on, which the caller owns (kept at stop); default a fresh temp one, removed at stop */
  datadir?: string;
}

/** A running basalt devnet node. */
export interface BasaltNode {
  /** JSON-RPC HTTP URL */
  url: string;
  /** pid of the node process (for RSS) */
  pid: number;
  datadir: string;
  child: Child;
  /** stops the node and removes its datadir (unless the caller gave it) */
  stop(): Promise<void>;
}

/**
 * Spawns `node dist/src/cli/main.js node --dev.block-time 0` on a fresh temp datadir (or
 * `opts.datadir`) with free HTTP, Engine and flashblocks ports, and waits until it answers JSON-RPC.
 */
export async function startBasalt(opts: BasaltOptions = {}): Promise<BasaltNode> {
  const cli = compiledScript("src", "cli", "main.js");
  const datadir = opts.datadir ?? mkdtempSync(path.join(tmpdir(), "basalt-scenario-"));
  const [http, auth, flashblocks] = await freePorts(3);
  const args = [
    ...(opts.nodeArgs ?? []),
    cli, "node",
    "--datadir", datadir,
    "--dev.block-time", "0",
    "--http.addr", LOOPBACK, "--http.port", String(http),
    "--authrpc.addr", LOOPBACK, "--authrpc.port", String(auth),
    "--flashblocks.addr", LOOPBACK, "--flashblocks.port", String(flashblocks),
    // The consensus-side RPC is not measured; off so a node already on 7545 cannot collide.
    "--no-rollup",
    // No peer-to-peer networking: the scenario measures the RPC, and 9222/30303 may be taken.
    "--p2p.disable", "--p2p.el.disable",
    "--log.level", opts.logLevel ?? "warn",
    ...(opts.extraArgs ?? []),
  ];
  const cleanup = opts.datadir === undefined ? () => rmSync(datadir, { recursive: true, force: true }) : undefined;
  const child = spawnChild("basalt", process.execPath, args, cleanup === undefined ? {} : { cleanup });
  const stop = (): Promise<void> => child.stop();
  const url = `http://${LOOPBACK}:${http}`;
  try {
    await waitForRpc(url, READY_TIMEOUT_MS, () => child.assertAlive());
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, pid: child.pid, datadir, child, stop };
}
