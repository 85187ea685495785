/**
 * The help text of `basalt`, generated from the option table (`src/config/options.ts`) so the
 * documentation of every option (type, default, environment variable) never drifts from the
 * parser.
 */
import {
  COMMANDS,
  OPTION_GROUPS,
  OPTION_LIST,
  envVarName,
  optionsFor,
  type Command,
  type OptionDefinition,
} from "../config/options.js";
import { CliError, closest } from "./args.js";
import { BENCH_HELP } from "./commands/bench.js";

/** Usage line and summary of each command. */
const COMMAND_USAGE: { readonly [C in Command]: { usage: string; summary: string } } = {
  node: {
    usage: "basalt [node] [options]",
    summary: "Run the node: JSON-RPC, Engine API and (on the devnet) block production",
  },
  init: {
    usage: "basalt init --datadir D --genesis G.json [options]",
    summary: "Initialise a data directory with a genesis (default: the built-in devnet)",
  },
  import: {
    usage: "basalt import --datadir D [options] <chain.rlp>...",
    summary: "Import and execute blocks from RLP chain files",
  },
  export: {
    usage: "basalt export --datadir D [--from N --to M] [options] <out.rlp>",
    summary: "Export canonical blocks to an RLP chain file",
  },
  doctor: {
    usage: "basalt doctor [options]",
    summary: "Check a configuration before and while running: options, datadir, ports, L1, flashblocks, sync lag",
  },
  proofs: {
    usage: "basalt proofs init --datadir D [--proofs.path P] [--proofs.history-window W]",
    summary: "Build the historical-proofs store of a stopped node's datadir: the head's state, then the window backwards (resumable)",
  },
  db: {
    usage: "basalt db migrate|reindex-logs --datadir D",
    summary: "On a stopped node's datadir: convert an older basalt's state layout in place (migrate), or rebuild the eth_getLogs log index (reindex-logs); both resumable, with progress and ETA",
  },
  devnet: {
    usage: "basalt devnet rollup [--l1.rpc URL --l1.beacon URL] [--batcher.data blobs|calldata] [--devnet.port-base P]",
    summary: "A whole local rollup: an L1 (basalt's own, or yours), the sequencer with its batcher and flashblocks, a verifier deriving from L1; endpoints in ./devnet.json",
  },
  snapshot: {
    usage: "basalt snapshot export|import --datadir D [--proofs.path P] <file>",
    summary: "Export a datadir (and its proofs store) to a snapshot file, or import one (verified by head hash, state root and proofs)",
  },
};

/** The flag with its value placeholder, e.g. `--http.port <port>` or `--archive, --no-archive`. */
function flagSyntax(def: OptionDefinition): string {
  if (def.type === "boolean") return `--${def.name}, --no-${def.name}`;
  return `--${def.name} ${def.valueName ?? `<${def.type}>`}`;
}

/** The default as shown in help, or undefined when the option has none. */
export function defaultText(def: OptionDefinition): string | undefined {
  if (def.defaultDescription !== undefined) return def.defaultDescription;
  if (def.default === undefined) return undefined;
  return typeof def.default === "string" ? JSON.stringify(def.default) : String(def.default);
}

function optionBlock(def: OptionDefinition, width: number, showCommands: boolean): string[] {
  const pad = " ".repeat(width + 4);
  const details: string[] = [`type: ${def.type}`];
  if (def.choices !== undefined) details.push(`one of: ${def.choices.join(", ")}`);
  const dflt = defaultText(def);
  if (dflt !== undefined) details.push(`default: ${dflt}`);
  details.push(`env: ${envVarName(def.name)}`);
  const lines = [`  ${flagSyntax(def).padEnd(width)}  ${def.description}`, `${pad}${details.join("; ")}`];
  if (showCommands && def.commands.length < COMMANDS.length) lines.push(`${pad}commands: ${def.commands.join(", ")}`);
  return lines;
}

function optionsSection(defs: readonly OptionDefinition[], showCommands: boolean): string[] {
  const width = Math.max(...defs.map((d) => flagSyntax(d).length));
  const out: string[] = [];
  for (const { group, title } of OPTION_GROUPS) {
    const inGroup = defs.filter((d) => d.group === group);
    if (inGroup.length === 0) continue;
    out.push("", `${title} options:`);
    for (const d of inGroup) out.push(...optionBlock(d, width, showCommands));
  }
  return out;
}

const FOOTER = [
  "",
  "Values come from, highest precedence first: the command line, the environment (BASALT_*),",
  "the --env-file (dotenv KEY=value lines of the same BASALT_* names), then the defaults.",
  "Booleans: --flag, --flag=false, --no-flag.",
];

/**
 * The help text: with no `command`, the usage of every command and all options (each marked
 * with the commands it applies to); with a command, its usage and its options. Options are
 * grouped, each with its type, description, default and environment variable.
 * Throws a `CLI_UNKNOWN_COMMAND` {@link CliError} for an unknown command.
 */
export function renderHelp(command?: string): string {
  if (command === "bench") return BENCH_HELP;
  if (command !== undefined && !(COMMANDS as readonly string[]).includes(command)) {
    const suggestion = closest(command, [...COMMANDS, "bench"]);
    throw new CliError({ code: "CLI_UNKNOWN_COMMAND", command, suggestion }, `unknown command ${JSON.stringify(command)} (did you mean ${suggestion}?)`);
  }
  const lines: string[] = [];
  if (command === undefined) {
    lines.push("basalt: an Ethereum / OP Stack execution node", "", "Usage:");
    for (const c of COMMANDS) lines.push(`  ${COMMAND_USAGE[c].usage}`);
    lines.push("  basalt bench <load|scenario|micro> [args]", "  basalt help [command]", "  basalt --version", "", "Commands:");
    for (const c of COMMANDS) lines.push(`  ${c.padEnd(8)}${COMMAND_USAGE[c].summary}`);
    lines.push(`  ${"bench".padEnd(8)}Run a tool of the benchmark suite (its own arguments; see basalt help bench)`);
    lines.push(...optionsSection(OPTION_LIST, true));
    lines.push("", "Run `basalt help <command>` for the options of one command.");
  } else {
    const c = command as Command;
    lines.push(`basalt ${c}: ${COMMAND_USAGE[c].summary}`, "", "Usage:", `  ${COMMAND_USAGE[c].usage}`);
    lines.push(...optionsSection(optionsFor(c), false));
  }
  lines.push(...FOOTER);
  return `${lines.join("\n")}\n`;
}
