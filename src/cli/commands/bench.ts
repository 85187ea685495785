/**
 * `basalt bench <load|scenario|micro|wrk|state-scale> [args]`: runs one tool of the benchmark suite. Each tool is
 * a module of the compiled bench folder (`dist/bench/<tool>/cli.js`, exporting
 * `main(argv: string[]): Promise<void>`), loaded only when asked for, and parses its own
 * arguments (the node's options do not apply).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TypedError } from "../../util/errors.js";

/** The tools of the bench suite, in display order. */
const BENCH_SUBCOMMANDS = ["load", "scenario", "micro", "wrk", "state-scale"] as const;
/** A tool of the bench suite. */
type BenchSubcommand = (typeof BENCH_SUBCOMMANDS)[number];

/** One line per tool, for help. */
const BENCH_SUMMARIES: { readonly [S in BenchSubcommand]: string } = {
  load: "HTTP load test of any JSON-RPC endpoints (open-loop steps and a closed-loop peak)",
  scenario: "End-to-end scenarios against basalt and reference nodes",
  micro: "Micro-benchmarks of basalt's internals",
  wrk: "wrk (when installed) against any JSON-RPC endpoint with a body file, to check a load figure independently",
  "state-scale": "A mainnet-sized synthetic state (default 10 M accounts, 30 M slots): synthesis, cold/warm/steady block import, RPC latencies",
};

/** The help text of `basalt bench`. */
export const BENCH_HELP = [
  "basalt bench: the benchmark suite",
  "",
  "Usage:",
  "  basalt bench <tool> [args]",
  "  basalt bench <tool> --help",
  "",
  "Tools:",
  ...BENCH_SUBCOMMANDS.map((s) => `  ${s.padEnd(13)}${BENCH_SUMMARIES[s]}`),
  "",
  "Each tool takes its own arguments; the node options of `basalt --help` do not apply.",
  "",
].join("\n");

/** A {@link BenchCommandError}'s stable code with its metadata. */
type BenchCommandErrorType =
  | { code: "BENCH_UNKNOWN_TOOL"; tool: string }
  | { code: "BENCH_MODULE_MISSING"; tool: string; module: string }
  | { code: "BENCH_MODULE_INVALID"; tool: string; module: string };

/** `basalt bench` was asked for a tool that does not exist or is not built. */
export class BenchCommandError extends TypedError<BenchCommandErrorType> {}

function isSubcommand(s: string): s is BenchSubcommand {
  return (BENCH_SUBCOMMANDS as readonly string[]).includes(s);
}

/**
 * The URL of a tool's module: `bench/<tool>/cli.js` of the compiled tree, three levels above this
 * file (dist/src/cli/commands → dist).
 */
function benchModuleUrl(tool: BenchSubcommand): URL {
  return new URL(`../../../bench/${tool}/cli.js`, import.meta.url);
}

/**
 * Runs `basalt bench` with `argv` (the arguments after `bench`): no tool or `--help` prints
 * {@link BENCH_HELP}; otherwise the tool's module is imported and its `main` called with the
 * remaining arguments. Throws {@link BenchCommandError} for an unknown tool, a module that is not
 * built, or one without a `main` function.
 */
export async function benchCommand(argv: string[]): Promise<void> {
  const tool = argv[0];
  if (tool === undefined || tool === "--help" || tool === "-h" || tool === "help") {
    process.stdout.write(BENCH_HELP);
    return;
  }
  if (!isSubcommand(tool)) {
    const message = `unknown bench tool ${JSON.stringify(tool)}: expected one of ${BENCH_SUBCOMMANDS.join(", ")}`;
    throw new BenchCommandError({ code: "BENCH_UNKNOWN_TOOL", tool }, message);
  }
  const url = benchModuleUrl(tool);
  const file = fileURLToPath(url);
  if (!existsSync(file)) {
    throw new BenchCommandError({ code: "BENCH_MODULE_MISSING", tool, module: file }, `the bench tool ${tool} is not available: expected its compiled module at ${file} ` +
        "(run `npm run build`; the bench folder is compiled with the node)");
  }
  const mod = (await import(url.href)) as { main?: unknown };
  if (typeof mod.main !== "function") {
    const message = `the bench module ${file} exports no main function: expected main(argv: string[]): Promise<void>`;
    throw new BenchCommandError({ code: "BENCH_MODULE_INVALID", tool, module: file }, message);
  }
  await (mod.main as (argv: string[]) => Promise<void>)(argv.slice(1));
}
