/**
 * Run the compiled `basalt` CLI from tests: one-shot commands ({@link runCli}) and a long-running
 * node ({@link startNode}) on free loopback ports with a JWT-protected Engine API.
 *
 * Every spawned child is tracked; call {@link stopAllProcesses} from `afterAll`/`afterEach`
 * (a process "exit" hook SIGKILLs whatever is still alive as a last resort).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, type WriteStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HIVE_JWT_SECRET_HEX, parseJwtSecret } from "./jwt.js";
import { pollUntil } from "./poll.js";
import { getFreePorts, LOCALHOST } from "./ports.js";
import { postRaw } from "./rpc.js";

/** Absolute path of the repository root (two levels above test/helpers). */
export const REPO_ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Entry script of the compiled CLI. Override with the `BASALT_CLI` environment variable
 * (or per call with the `cli` option), e.g. to point at a fake in runner self-tests.
 */
export const DEFAULT_CLI_PATH: string = process.env.BASALT_CLI ?? path.join(REPO_ROOT, "dist", "src", "cli", "main.js");

/** Result of a finished CLI invocation. */
export interface CliResult {
  /** exit code, or null when killed by a signal (e.g. after a timeout) */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** true when the command was killed because it exceeded `timeoutMs` */
  timedOut: boolean;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** kill (SIGKILL) the command after this many ms; default 120000 */
  timeoutMs?: number;
  /** CLI entry script; default {@link DEFAULT_CLI_PATH} */
  cli?: string;
  /** extra environment variables (merged over process.env) */
  env?: Record<string, string>;
  /** working directory; default the repo root */
  cwd?: string;
}

/** Options of {@link startNode}. */
export interface StartNodeOptions {
  /** data directory (already initialised by the caller if required) */
  datadir: string;
  /**
   * Extra arguments after `node --datadir D`. Without `--port` here, `--p2p.el.disable` is added (no devp2p on 30303); without `--p2p.listen.tcp`, `--p2p.disable` (no gossip on 9222).
   * `--http.port`, `--authrpc.port`, `--flashblocks.port`, `--rollup.port` and
   * `--authrpc.jwtsecret` are added with free ports / a temp secret file unless present here.
   */
  args?: string[];
  /** JWT secret (hex) written to the secret file; default hive's "secretsecret…" */
  jwtSecretHex?: string;
  /** how long to wait for `eth_chainId` to answer; default 30000 ms */
  readyTimeoutMs?: number;
  /** CLI entry script; default {@link DEFAULT_CLI_PATH} */
  cli?: string;
  /** extra environment variables (merged over process.env) */
  env?: Record<string, string>;
  /** if set, all stdout+stderr of the node is also appended to this file */
  logFile?: string;
}

/** Exit status of a child process. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `basalt node`. */
export interface NodeHandle {
  /** JSON-RPC HTTP endpoint, e.g. http://127.0.0.1:12345 */
  readonly url: string;
  /** authenticated Engine API endpoint */
  readonly engineUrl: string;
  readonly httpPort: number;
  readonly authPort: number;
  /** devnet flashblocks stream (`ws://127.0.0.1:<port>/ws`; served only while the devnet sequencer builds flashblocks) */
  readonly flashblocksUrl: string;
  /** consensus-side RPC (`optimism_syncStatus`, …; served on OP chains unless `--no-rollup`), e.g. http://127.0.0.1:23456 */
  readonly rollupUrl: string;
  /** the 32-byte JWT secret the node was given */
  readonly jwtSecret: Buffer;
  /** path of the jwtsecret file */
  readonly jwtSecretPath: string;
  readonly datadir: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** resolves when the process has exited */
  readonly exited: Promise<ExitInfo>;
  /** exit status once exited, else undefined */
  exitInfo(): ExitInfo | undefined;
  /** captured stdout (last ~2 MiB) */
  stdout(): string;
  /** captured stderr (last ~2 MiB) */
  stderr(): string;
  /** last `lines` lines of stdout and stderr, for error messages */
  outputTail(lines?: number): string;
  /** SIGTERM, SIGKILL after 5 s, await exit, remove the temp secret dir. Idempotent. */
  stop(): Promise<ExitInfo>;
}

const MAX_CAPTURE = 2 * 1024 * 1024;
const live = new Set<ChildProcess>();
const handles = new Set<NodeHandle>();

process.once("exit", () => {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Appends to a bounded text buffer, keeping the newest MAX_CAPTURE characters. */
class OutputBuffer {
  private text = "";
  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > MAX_CAPTURE * 1.5) this.text = this.text.slice(-MAX_CAPTURE);
  }
  value(): string {
    return this.text;
  }
}

function tailLines(text: string, lines: number): string {
  const parts = text.trimEnd().split("\n");
  return parts.slice(-lines).join("\n");
}

function formatTail(stdout: string, stderr: string, lines = 40): string {
  return `--- stderr (tail) ---\n${tailLines(stderr, lines)}\n--- stdout (tail) ---\n${tailLines(stdout, lines)}`;
}

function assertCliExists(cli: string): void {
  if (!existsSync(cli)) {
    throw new Error(`basalt CLI not found at ${cli}; run \`npm run build\` first (npm test does it via pretest)`);
  }
}

function spawnTracked(cli: string, args: string[], env: Record<string, string> | undefined, cwd: string): ChildProcess {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  child.once("error", () => live.delete(child));
  return child;
}

function waitExit(child: ChildProcess): Promise<ExitInfo> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: child.exitCode, signal: child.signalCode }));
  });
}

/**
 * Runs `node <cli> ...args` to completion, capturing stdout/stderr. Never rejects for a non-zero
 * exit; check `code`. On timeout the process is SIGKILLed and `timedOut` is true.
 * @example const r = await runCli(["init", "--datadir", dir, "--genesis", g]); expect(r.code).toBe(0);
 */
export async function runCli(args: string[], opts: RunCliOptions = {}): Promise<CliResult> {
  const cli = opts.cli ?? DEFAULT_CLI_PATH;
  assertCliExists(cli);
  const child = spawnTracked(cli, args, opts.env, opts.cwd ?? REPO_ROOT);
  const out = new OutputBuffer();
  const err = new OutputBuffer();
  child.stdout?.setEncoding("utf8").on("data", (c: string) => out.append(c));
  child.stderr?.setEncoding("utf8").on("data", (c: string) => err.append(c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, opts.timeoutMs ?? 120_000);
  const spawnError = new Promise<Error | undefined>((resolve) => {
    child.once("error", resolve);
    child.once("exit", () => resolve(undefined));
  });
  const [exit, error] = await Promise.all([closed(child), spawnError]);
  clearTimeout(timer);
  if (error !== undefined && exit.code === null && exit.signal === null) throw error;
  return { code: exit.code, signal: exit.signal, stdout: out.value(), stderr: err.value(), timedOut };
}

/** Resolves after the child exited AND its stdio streams are drained. */
function closed(child: ChildProcess): Promise<ExitInfo> {
  return new Promise((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: child.exitCode, signal: child.signalCode }));
  });
}

/**
 * Formats a failed {@link CliResult} for an error message (command, exit status, output tails).
 */
export function describeCliResult(args: string[], r: CliResult): string {
  const status = r.timedOut ? "timed out" : r.code !== null ? `exit code ${r.code}` : `signal ${r.signal}`;
  return `basalt ${args.join(" ")}: ${status}\n${formatTail(r.stdout, r.stderr)}`;
}

function argValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === flag) return args[i + 1];
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
  }
  return undefined;
}

/**
 * Starts `basalt node --datadir D` on free loopback ports with a JWT secret file and waits until
 * `eth_chainId` answers over HTTP (any JSON-RPC response counts). Throws — with the output tail —
 * if the process exits first or does not become ready within `readyTimeoutMs`; the process is
 * stopped in that case.
 */
export async function startNode(opts: StartNodeOptions): Promise<NodeHandle> {
  const cli = opts.cli ?? DEFAULT_CLI_PATH;
  assertCliExists(cli);
  const extra = [...(opts.args ?? [])];
  const [freeHttp, freeAuth, freeFlashblocks, freeRollup] = await getFreePorts(4);
  const httpPortArg = argValue(extra, "--http.port");
  const authPortArg = argValue(extra, "--authrpc.port");
  const secretArg = argValue(extra, "--authrpc.jwtsecret");
  const httpPort = httpPortArg !== undefined ? Number(httpPortArg) : (freeHttp as number);
  const authPort = authPortArg !== undefined ? Number(authPortArg) : (freeAuth as number);
  if (httpPortArg === undefined) extra.push("--http.port", String(httpPort));
  if (authPortArg === undefined) extra.push("--authrpc.port", String(authPort));
  // The devnet flashblocks server defaults to port 1111: give every node its own.
  const flashblocksPortArg = argValue(extra, "--flashblocks.port");
  const flashblocksPort = flashblocksPortArg !== undefined ? Number(flashblocksPortArg) : (freeFlashblocks as number);
  if (flashblocksPortArg === undefined) extra.push("--flashblocks.port", String(flashblocksPort));
  // The consensus-side RPC defaults to port 7545 (on by default): give every node its own.
  const rollupPortArg = argValue(extra, "--rollup.port");
  const rollupPort = rollupPortArg !== undefined ? Number(rollupPortArg) : (freeRollup as number);
  if (rollupPortArg === undefined) extra.push("--rollup.port", String(rollupPort));

  // Nodes started in parallel would all bind the execution-layer network's 30303: it is off unless the test opts in with --port.
  if (argValue(extra, "--port") === undefined && !extra.includes("--p2p.el.disable")) extra.push("--p2p.el.disable");
  // Likewise the consensus-layer gossip's 9222: off unless the test gives --p2p.listen.tcp.
  if (argValue(extra, "--p2p.listen.tcp") === undefined && !extra.includes("--p2p.disable")) extra.push("--p2p.disable");

  let secretDir: string | undefined;
  let jwtSecretPath: string;
  let jwtSecret: Buffer;
  if (secretArg !== undefined) {
    jwtSecretPath = secretArg;
    jwtSecret = parseJwtSecret(await readFile(secretArg, "utf8"));
  } else {
    const hex = opts.jwtSecretHex ?? HIVE_JWT_SECRET_HEX;
    jwtSecret = parseJwtSecret(hex);
    secretDir = await mkdtemp(path.join(os.tmpdir(), "basalt-jwt-"));
    jwtSecretPath = path.join(secretDir, "jwtsecret");
    await writeFile(jwtSecretPath, `0x${jwtSecret.toString("hex")}`, { mode: 0o600 });
    extra.push("--authrpc.jwtsecret", jwtSecretPath);
  }

  const args = ["node", "--datadir", opts.datadir, ...extra];
  const child = spawnTracked(cli, args, opts.env, REPO_ROOT);
  const out = new OutputBuffer();
  const err = new OutputBuffer();
  let log: WriteStream | undefined;
  if (opts.logFile !== undefined) {
    log = createWriteStream(opts.logFile, { flags: "a" });
    log.write(`# ${new Date().toISOString()} basalt ${args.join(" ")}\n`);
  }
  child.stdout?.setEncoding("utf8").on("data", (c: string) => {
    out.append(c);
    log?.write(c);
  });
  child.stderr?.setEncoding("utf8").on("data", (c: string) => {
    err.append(c);
    log?.write(c);
  });
  let exitInfo: ExitInfo | undefined;
  const exited = waitExit(child).then((info) => {
    exitInfo = info;
    return info;
  });

  let stopping: Promise<ExitInfo> | undefined;
  const handle: NodeHandle = {
    url: `http://${LOCALHOST}:${httpPort}`,
    engineUrl: `http://${LOCALHOST}:${authPort}`,
    flashblocksUrl: `ws://${LOCALHOST}:${flashblocksPort}/ws`,
    rollupUrl: `http://${LOCALHOST}:${rollupPort}`,
    httpPort,
    authPort,
    jwtSecret,
    jwtSecretPath,
    datadir: opts.datadir,
    child,
    pid: child.pid ?? -1,
    exited,
    exitInfo: () => exitInfo,
    stdout: () => out.value(),
    stderr: () => err.value(),
    outputTail: (lines = 40) => formatTail(out.value(), err.value(), lines),
    stop: () => {
      stopping ??= (async () => {
        if (exitInfo === undefined) {
          child.kill("SIGTERM");
          const killTimer = setTimeout(() => child.kill("SIGKILL"), 5000);
          await exited;
          clearTimeout(killTimer);
        }
        const info = await exited;
        if (log !== undefined) await new Promise<void>((r) => log?.end(() => r()));
        if (secretDir !== undefined) await rm(secretDir, { recursive: true, force: true });
        handles.delete(handle);
        return info;
      })();
      return stopping;
    },
  };
  handles.add(handle);

  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const probe = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
  const exitedEarly = (): Error =>
    new Error(`basalt node exited before becoming ready (code ${exitInfo?.code}, signal ${exitInfo?.signal})\n${handle.outputTail()}`);
  try {
    await pollUntil("an eth_chainId answer", readyTimeoutMs, async () => {
      if (exitInfo !== undefined) throw exitedEarly();
      try {
        const res = await postRaw(handle.url, probe, { timeoutMs: 2000 });
        const body: unknown = JSON.parse(res.body);
        if (body !== null && typeof body === "object" && ("result" in body || "error" in body)) return true;
      } catch {
        // not listening yet / not JSON yet
      }
      return undefined;
    });
    return handle;
  } catch (e) {
    const exited = exitInfo !== undefined ? exitedEarly() : undefined;
    await handle.stop();
    if (exited !== undefined) throw exited;
    throw new Error(`basalt node did not answer eth_chainId within ${readyTimeoutMs} ms\n${handle.outputTail()}`, { cause: e });
  }
}

/**
 * Stops every node started by {@link startNode} (gracefully, see {@link NodeHandle.stop}) and
 * SIGKILLs any other still-running child spawned by these helpers. Use in `afterAll`.
 */
export async function stopAllProcesses(): Promise<void> {
  await Promise.all([...handles].map((h) => h.stop()));
  const rest = [...live];
  for (const child of rest) child.kill("SIGKILL");
  await Promise.all(rest.map(waitExit));
}

/**
 * Creates a fresh temporary directory (under os.tmpdir()) for a datadir or similar.
 * @param prefix directory name prefix
 */
export function makeTempDir(prefix = "basalt-test-"): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Removes a directory tree (no error if missing). */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}
