/**
 * The scenario's child processes (basalt, anvil, the bare server): spawned and tracked here so
 * every one of them is stopped when the scenario ends, fails, or is interrupted.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ScenarioError } from "./errors.js";

/** Characters of each output stream kept for error messages. */
const OUTPUT_TAIL_CHARS = 16_384;
/** Grace period between SIGTERM and SIGKILL when stopping a child. */
const STOP_GRACE_MS = 5_000;

/** A running child process. */
export interface Child {
  /** label used in messages, e.g. "anvil" */
  readonly name: string;
  readonly pid: number;
  readonly proc: ChildProcess;
  /** the exit status once exited, else undefined */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** throws `BENCH_SCENARIO_SPAWN` (with the output tail) if the process has exited */
  assertAlive(): void;
  /** the last characters of stdout and stderr */
  outputTail(): string;
  /** SIGTERM, SIGKILL after a grace period; resolves when it has exited and its cleanup ran. Idempotent. */
  stop(): Promise<void>;
}

/** Tracked children, with their cleanup (if any). */
const live = new Map<Child, (() => void) | undefined>();

/** The repository root: the nearest ancestor of this file holding package.json (works from bench/ and from dist/bench/). */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, "package.json")) && existsSync(path.join(dir, "tsconfig.json"))) return dir;
    const up = path.dirname(dir);
    if (up === dir) {
      throw new ScenarioError("BENCH_SCENARIO_SPAWN", `no repository root (package.json + tsconfig.json) above ${fileURLToPath(import.meta.url)}`);
    }
    dir = up;
  }
}

/** A compiled script of the repository (under dist/); throws with a hint to build when it is missing. */
export function compiledScript(...relative: string[]): string {
  const file = path.join(repoRoot(), "dist", ...relative);
  if (!existsSync(file)) throw new ScenarioError("BENCH_SCENARIO_SPAWN", `${file} not found: run \`npx tsc -p tsconfig.json\` (npm run build) first`);
  return file;
}

/** Options of {@link spawnChild}. */
export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** runs once after the process has exited on {@link Child.stop} (e.g. removes its temp dir); must not throw */
  cleanup?: () => void;
}

/** Spawns `command args` (stdin ignored, output captured) and tracks it until it is stopped. */
export function spawnChild(name: string, command: string, args: string[], opts: SpawnOptions = {}): Child {
  const proc = spawn(command, args, { cwd: opts.cwd ?? repoRoot(), env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const clip = (s: string): string => (s.length > OUTPUT_TAIL_CHARS * 2 ? s.slice(-OUTPUT_TAIL_CHARS) : s);
  proc.stdout?.setEncoding("utf8").on("data", (c: string) => (out = clip(out + c)));
  proc.stderr?.setEncoding("utf8").on("data", (c: string) => (err = clip(err + c)));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const done = new Promise<void>((resolve) => {
    proc.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    proc.once("error", (e) => {
      spawnError = e;
      exit ??= { code: null, signal: null };
      resolve();
    });
  });
  let stopping: Promise<void> | undefined;
  const tail = (): string => `--- ${name} stderr (tail) ---\n${err.slice(-4000)}\n--- ${name} stdout (tail) ---\n${out.slice(-4000)}`;
  const child: Child = {
    name,
    pid: proc.pid ?? -1,
    proc,
    exited: () => exit,
    assertAlive: () => {
      if (exit === undefined) return;
      const why = spawnError !== undefined ? spawnError.message : `exit code ${exit.code}, signal ${exit.signal}`;
      throw new ScenarioError("BENCH_SCENARIO_SPAWN", `${name} (${command}) exited: ${why}\n${tail()}`, { name });
    },
    outputTail: tail,
    stop: () => {
      stopping ??= (async () => {
        if (exit === undefined) {
          proc.kill("SIGTERM");
          const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS);
          await done;
          clearTimeout(timer);
        }
        opts.cleanup?.();
        live.delete(child);
      })();
      return stopping;
    },
  };
  live.set(child, opts.cleanup);
  return child;
}

/** Stops every tracked child (in parallel) and waits for them to exit. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live.keys()].map((c) => c.stop()));
}

/** SIGKILLs every tracked child at once and runs the cleanups (for process exit, where nothing can be awaited). */
export function killAllChildrenNow(): void {
  for (const [c, cleanup] of live) {
    try {
      c.proc.kill("SIGKILL");
    } catch {
      // already gone
    }
    cleanup?.();
  }
  live.clear();
}

process.once("exit", killAllChildrenNow);
