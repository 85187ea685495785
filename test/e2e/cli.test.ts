/**
 * End-to-end: the `basalt` command line — help output, unknown-flag errors, and the HTTP port
 * chosen through the environment (`BASALT_HTTP_PORT`) and an `--env-file`, verified by starting a
 * devnet node and querying it on that port.
 *
 * The node is spawned directly here (not through `startNode`, which always passes `--http.port`
 * and so would override the environment being tested).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CLI_PATH, REPO_ROOT, describeCliResult, makeTempDir, removeDir, runCli, stopAllProcesses } from "../helpers/basaltProcess.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcResult } from "../helpers/rpc.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";

/** The devnet chain id as eth_chainId answers it. */
const DEVNET_CHAIN_ID_HEX = `0x${DEVNET_CHAIN_ID.toString(16)}`;

interface Spawned {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const spawned: Spawned[] = [];
const dirs: string[] = [];

/** Environment of a child with every inherited BASALT_* variable removed, plus `extra`. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("BASALT_")) env[k] = v;
  return { ...env, ...extra };
}

function spawnBasalt(args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(process.execPath, [DEFAULT_CLI_PATH, ...args], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const append = (c: string): void => {
    out = (out + c).slice(-200_000);
  };
  child.stdout?.setEncoding("utf8").on("data", append);
  child.stderr?.setEncoding("utf8").on("data", append);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: child.exitCode, signal: child.signalCode }));
  });
  const s = { child, output: () => out, exit };
  spawned.push(s);
  return s;
}

async function stopSpawned(s: Spawned): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    s.child.kill("SIGTERM");
    const timer = setTimeout(() => s.child.kill("SIGKILL"), 5000);
    const info = await s.exit;
    clearTimeout(timer);
    return info;
  }
  return s.exit;
}

/** Waits (bounded) until `eth_chainId` answers on `port`; fails early if the process exits. */
async function waitForChainId(s: Spawned, port: number, timeoutMs = 30_000): Promise<string> {
  const url = `http://${LOCALHOST}:${port}`;
  let exited = false;
  void s.exit.then(() => {
    exited = true;
  });
  try {
    return await pollUntil(`an eth_chainId answer on port ${port}`, timeoutMs, async () => {
      if (exited) throw new Error(`basalt exited before answering on port ${port}`);
      try {
        return (await rpcResult(url, "eth_chainId", [], { timeoutMs: 2000 })) as string;
      } catch {
        return undefined; // not listening yet
      }
    });
  } catch (e) {
    throw new Error(`${(e as Error).message}:\n${s.output()}`);
  }
}

async function freshDatadir(): Promise<string> {
  const d = await makeTempDir("basalt-e2e-cli-");
  dirs.push(d);
  return d;
}

afterEach(async () => {
  const all = spawned.splice(0);
  await Promise.all(all.map(stopSpawned));
});

afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) await removeDir(d);
});

describe("basalt CLI (e2e)", () => {
  it("--help exits 0 and documents --http.port and BASALT_HTTP_PORT", async () => {
    const r = await runCli(["--help"], { timeoutMs: 30_000 });
    expect(r.code, describeCliResult(["--help"], r)).toBe(0);
    expect(r.stdout).toContain("--http.port");
    expect(r.stdout).toContain("BASALT_HTTP_PORT");
    expect(r.stdout).toContain("--env-file");
  });

  it("an unknown flag exits non-zero with a message naming it and suggesting the right one", async () => {
    const args = ["node", "--http.prot", "1234"];
    const r = await runCli(args, { timeoutMs: 30_000 });
    expect(r.timedOut).toBe(false);
    expect(r.code, describeCliResult(args, r)).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain("--http.prot");
    expect(r.stderr).toMatch(/unknown option/i);
    expect(r.stderr).toContain("--http.port");
  });

  it("an invalid BASALT_HTTP_PORT exits non-zero naming the variable", async () => {
    const dir = await freshDatadir();
    const args = ["node", "--datadir", path.join(dir, "data")];
    const r = await runCli(args, { env: { BASALT_HTTP_PORT: "not-a-port" }, timeoutMs: 30_000 });
    expect(r.timedOut).toBe(false);
    expect(r.code, describeCliResult(args, r)).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain("BASALT_HTTP_PORT");
  });

  it("BASALT_HTTP_PORT selects the port the devnet node listens on", async () => {
    const dir = await freshDatadir();
    const [httpPort, authPort] = await getFreePorts(2);
    const s = spawnBasalt(
      ["node", "--datadir", path.join(dir, "data"), "--authrpc.port", String(authPort), "--p2p.disable", "--p2p.el.disable", "--dev.block-time", "1"],
      cleanEnv({ BASALT_HTTP_PORT: String(httpPort), BASALT_HTTP_ADDR: LOCALHOST }),
    );
    expect(await waitForChainId(s, httpPort!)).toBe(DEVNET_CHAIN_ID_HEX);
    const info = await stopSpawned(s);
    expect(info, s.output()).toEqual({ code: 0, signal: null });
  });

  it("--env-file selects the port the devnet node listens on", async () => {
    const dir = await freshDatadir();
    const [httpPort, authPort] = await getFreePorts(2);
    const envFile = path.join(dir, "basalt.env");
    await writeFile(envFile, `# test env file\nBASALT_HTTP_PORT=${httpPort}\nBASALT_HTTP_ADDR="${LOCALHOST}"\n`);
    const s = spawnBasalt(
      ["node", "--datadir", path.join(dir, "data"), "--authrpc.port", String(authPort), "--p2p.disable", "--p2p.el.disable", "--env-file", envFile],
      cleanEnv(),
    );
    expect(await waitForChainId(s, httpPort!)).toBe(DEVNET_CHAIN_ID_HEX);
    const info = await stopSpawned(s);
    expect(info, s.output()).toEqual({ code: 0, signal: null });
  });

  it("the environment takes precedence over the --env-file", async () => {
    const dir = await freshDatadir();
    const [envPort, filePort, authPort] = await getFreePorts(3);
    const envFile = path.join(dir, "basalt.env");
    await writeFile(envFile, `BASALT_HTTP_PORT=${filePort}\n`);
    const s = spawnBasalt(
      ["node", "--datadir", path.join(dir, "data"), "--authrpc.port", String(authPort), "--p2p.disable", "--p2p.el.disable", "--env-file", envFile],
      cleanEnv({ BASALT_HTTP_PORT: String(envPort) }),
    );
    expect(await waitForChainId(s, envPort!)).toBe(DEVNET_CHAIN_ID_HEX);
    await expect(rpcResult(`http://${LOCALHOST}:${filePort}`, "eth_chainId", [], { timeoutMs: 2000 })).rejects.toThrow();
    const info = await stopSpawned(s);
    expect(info, s.output()).toEqual({ code: 0, signal: null });
  });
});
