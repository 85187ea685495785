/**
 * Command-line parsing of `basalt`, driven by the option table of `src/config/options.ts`.
 *
 * Grammar: `basalt [command] [--option value | --option=value | --flag | --no-flag]... [args]`.
 * The first token that is neither an option nor an option's value is the command (default
 * `node`); `--` ends the options. Values are taken, highest precedence first, from the command
 * line, the environment (`BASALT_<OPTION>`, see {@link envVarName}), the dotenv file named by
 * `--env-file` / `BASALT_ENV_FILE`, and the table defaults; then the derived defaults
 * (`datadir`, `archive`) are computed.
 */
import { readFileSync } from "node:fs";
import {
  COMMANDS,
  OPTIONS,
  OPTION_LIST,
  applyDerivedDefaults,
  envVarName,
  isOptionName,
  tableDefaults,
  type BasaltOptions,
  type Command,
  type OptionDefinition,
  type OptionName,
  type OptionSource,
} from "../config/options.js";
import { TypedError } from "../util/errors.js";

/** What `basalt` was asked to do (`bench` runs a tool of the benchmark suite with its own arguments). */
type CliCommand = Command | "help" | "version" | "bench";

/** The result of {@link parseCli}. */
interface ParsedCli {
  /**
   * The command. Any help request (`basalt --help`, `-h`, `basalt help [cmd]`,
   * `basalt <cmd> --help`) is normalized to `"help"` with the topic command, if any, as
   * `positionals[0]`; `--version` / `basalt version` give `"version"`. `basalt bench ...` gives
   * `"bench"` with every argument after `bench`, unparsed, as `positionals`.
   */
  command: CliCommand;
  /** Resolved options (for help/version: the defaults only; nothing is read). */
  options: BasaltOptions;
  /** Arguments after the command: files of import/export, the topic of help, the argv of bench. */
  positionals: string[];
  /** True when help was requested (then `command` is `"help"`). */
  help: boolean;
  /** Where each option's value came from ("default" includes the derived defaults). */
  sources: Record<OptionName, OptionSource>;
  /** `basalt doctor --json`: print the results machine-readable (the only command taking `--json`). */
  json?: boolean;
  /** `basalt snapshot import --force`: replace the chain of a non-empty datadir (the only command taking `--force`). */
  force?: boolean;
}

/**
 * A {@link CliError}'s code with its metadata: `option` is the option, flag, environment variable
 * or command concerned; `value` the offending value or argument; `expected` the type or form
 * expected; `suggestion` the closest known name, when one was guessed; `command` the command being
 * parsed; `file` the env file concerned; `datadir` the directory that holds no basalt datadir.
 */
type CliErrorType =
  | { code: "CLI_UNKNOWN_OPTION"; option: string; suggestion?: string; file?: string }
  | { code: "CLI_MISSING_VALUE"; option: string; expected: string }
  | { code: "CLI_INVALID_VALUE"; option: string; expected: string; value?: string }
  | { code: "CLI_ENV_FILE"; file: string; option?: string }
  | { code: "CLI_UNKNOWN_COMMAND"; command: string; suggestion?: string }
  | { code: "CLI_UNEXPECTED_ARGUMENT"; value: string; command?: string }
  | { code: "CLI_OPTION_NOT_FOR_COMMAND"; option: string; command: string }
  | { code: "CLI_MISSING_ARGUMENT"; command: string; value?: string }
  | { code: "CLI_NO_DATADIR"; command: string; datadir: string }
  | { code: "CLI_PROOFS_IN_USE"; dir: string; reason: string };
/** Stable codes of {@link CliError}. */
export type CliErrorCode = CliErrorType["code"];

/** A command-line, environment or env-file error: the user's input is wrong. */
export class CliError extends TypedError<CliErrorType> {}

const ALL_COMMANDS: readonly CliCommand[] = [...COMMANDS, "help", "version", "bench"];

/** `basalt doctor` checks a node's configuration, so it accepts every option of `node` besides its own. */
const DOCTOR_COMMAND = "doctor";
/** `basalt doctor`'s output switch; not in the option table (it has no environment variable). */
const JSON_FLAG = "--json";
/** `basalt snapshot export|import <file>` works on a datadir: it takes these options only, plus {@link FORCE_FLAG}. */
const SNAPSHOT_COMMAND = "snapshot";
const SNAPSHOT_OPTIONS: ReadonlySet<string> = new Set(["datadir", "proofs.path", "network", "genesis-url", "env-file", "log.level", "log.format"]);
/** `basalt proofs init` builds a datadir's proofs store: it takes these options only. */
const PROOFS_COMMAND = "proofs";
const PROOFS_OPTIONS: ReadonlySet<string> = new Set(["datadir", "proofs.path", "proofs.history-window", "network", "genesis-url", "env-file", "log.level", "log.format"]);
/** `basalt db migrate|reindex-logs` converts or reindexes a datadir's store: it takes these options only. */
const DB_COMMAND = "db";
const DB_OPTIONS: ReadonlySet<string> = new Set(["datadir", "network", "genesis-url", "env-file", "log.level", "log.format"]);
/** `basalt devnet rollup` runs a local rollup of processes: it takes these options only. */
const DEVNET_COMMAND = "devnet";
const DEVNET_OPTIONS: ReadonlySet<string> = new Set([
  "datadir",
  "devnet.port-base",
  "dev.block-time",
  "l1.rpc",
  "l1.beacon",
  "l1.block-time",
  "batcher.data",
  "env-file",
  "log.level",
  "log.format",
]);
/** `basalt snapshot import`'s overwrite switch; not in the option table (it has no environment variable). */
const FORCE_FLAG = "--force";

/** Whether option `def` may be given to `command` (see {@link DOCTOR_COMMAND}). */
function appliesTo(def: OptionDefinition, command: Command): boolean {
  if (command === SNAPSHOT_COMMAND) return SNAPSHOT_OPTIONS.has(def.name);
  if (command === PROOFS_COMMAND) return PROOFS_OPTIONS.has(def.name);
  if (command === DB_COMMAND) return DB_OPTIONS.has(def.name);
  if (command === DEVNET_COMMAND) return DEVNET_OPTIONS.has(def.name);
  return def.commands.includes(command) || (command === DOCTOR_COMMAND && def.commands.includes("node"));
}

/** The command that takes its own arguments (`basalt bench <tool> [args]`); it must come first. */
const BENCH_COMMAND = "bench";

function isCliCommand(s: string): s is CliCommand {
  return (ALL_COMMANDS as readonly string[]).includes(s);
}

/** Levenshtein distance (small inputs only). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** The candidate closest to `input` (case-insensitive edit distance; ties: first in order). */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

const OPTION_NAMES: readonly string[] = OPTION_LIST.map((o) => o.name);
const ENV_TO_OPTION: ReadonlyMap<string, OptionDefinition> = new Map(OPTION_LIST.map((o) => [envVarName(o.name), o]));
const ENV_FILE_VAR = envVarName("env-file");

function unknownOption(flag: string, name: string): CliError {
  const suggestion = closest(name, OPTION_NAMES);
  return new CliError({ code: "CLI_UNKNOWN_OPTION", option: flag, suggestion: suggestion === undefined ? undefined : `--${suggestion}` }, `unknown option ${flag}${suggestion === undefined ? "" : ` (did you mean --${suggestion}?)`}; see basalt --help`);
}

/** One option occurrence on the command line. */
interface FlagToken {
  def: OptionDefinition;
  /** the flag as written, e.g. `--no-archive` */
  flag: string;
  value: string;
}

interface Tokens {
  flags: FlagToken[];
  positionals: string[];
  help: boolean;
  version: boolean;
  /** `--json` was given (valid for `basalt doctor` only). */
  json: boolean;
  /** `--force` was given (valid for `basalt snapshot` only). */
  force: boolean;
}

/**
 * Splits argv into option occurrences and positionals. In lenient mode (used to detect help
 * requests), malformed options are skipped instead of raising.
 */
function tokenize(argv: readonly string[], strict: boolean): Tokens {
  const out: Tokens = { flags: [], positionals: [], help: false, version: false, json: false, force: false };
  let i = 0;
  for (; i < argv.length; i++) {
    const tok = argv[i] as string;
    if (tok === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (tok === "--help" || tok === "-h") {
      out.help = true;
      continue;
    }
    if (tok === "--version") {
      out.version = true;
      continue;
    }
    if (tok === FORCE_FLAG) {
      out.force = true;
      continue;
    }
    if (tok === JSON_FLAG) {
      out.json = true;
      continue;
    }
    if (!tok.startsWith("-") || tok === "-") {
      out.positionals.push(tok);
      continue;
    }
    if (!tok.startsWith("--")) {
      if (strict) throw unknownOption(tok, tok.slice(1));
      continue;
    }
    const body = tok.slice(2);
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const inline = eq >= 0 ? body.slice(eq + 1) : undefined;
    const flag = `--${name}`;
    if (isOptionName(name)) {
      const def: OptionDefinition = OPTIONS[name];
      if (def.type === "boolean") {
        out.flags.push({ def, flag, value: inline ?? "true" });
        continue;
      }
      if (inline !== undefined) {
        out.flags.push({ def, flag, value: inline });
        continue;
      }
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("--") && next.length > 2) || next === "--") {
        if (strict) {
          throw new CliError({ code: "CLI_MISSING_VALUE", option: flag, expected: expectedOf(def) }, `option ${flag} requires a value (${expectedOf(def)})`);
        }
        continue;
      }
      out.flags.push({ def, flag, value: next });
      i++;
      continue;
    }
    const negated = name.startsWith("no-") ? name.slice(3) : undefined;
    if (negated !== undefined && isOptionName(negated)) {
      const def: OptionDefinition = OPTIONS[negated];
      if (def.type !== "boolean") {
        if (strict) {
          throw new CliError({ code: "CLI_INVALID_VALUE", option: flag, expected: expectedOf(def) }, `${flag}: the --no- prefix applies only to boolean options, and --${negated} takes a ${def.type}`);
        }
        continue;
      }
      if (inline !== undefined) {
        if (strict) {
          throw new CliError({ code: "CLI_INVALID_VALUE", option: flag, value: inline, expected: "no value" }, `${flag} takes no value (use --${negated}=${inline} instead)`);
        }
        continue;
      }
      out.flags.push({ def, flag, value: "false" });
      continue;
    }
    if (strict) throw unknownOption(flag, name);
  }
  return out;
}

/** Human description of the values an option accepts. */
function expectedOf(def: OptionDefinition): string {
  switch (def.type) {
    case "boolean":
      return "a boolean: true or false";
    case "string":
      return def.choices !== undefined ? `one of ${def.choices.join(", ")}` : "a string";
    case "number": {
      const min = def.min ?? 0;
      const kind = def.fractional === true ? "a number" : "an integer";
      return def.max !== undefined ? `${kind} from ${min} to ${def.max}` : `${kind} >= ${min}`;
    }
  }
}

const INTEGER = /^[0-9]+$/;
const DECIMAL = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);

/**
 * Parses the text `raw` of option `def`. `origin` names where it came from in error messages
 * (e.g. `--http.port` or `BASALT_HTTP_PORT`).
 */
export function parseOptionValue(def: OptionDefinition, raw: string, origin: string): string | number | boolean {
  const invalid = (): CliError =>
    new CliError({ code: "CLI_INVALID_VALUE", option: origin, value: raw, expected: expectedOf(def) }, `invalid value ${JSON.stringify(raw)} for ${origin}: expected ${expectedOf(def)}`);
  switch (def.type) {
    case "boolean": {
      const v = raw.trim().toLowerCase();
      if (TRUE_WORDS.has(v)) return true;
      if (FALSE_WORDS.has(v)) return false;
      throw invalid();
    }
    case "number": {
      const v = raw.trim();
      if (!(def.fractional === true ? DECIMAL : INTEGER).test(v)) throw invalid();
      const n = Number(v);
      if (!Number.isFinite(n) || n < (def.min ?? 0) || n > (def.max ?? Number.MAX_SAFE_INTEGER)) throw invalid();
      return n;
    }
    case "string": {
      if (def.choices !== undefined && !def.choices.includes(raw)) throw invalid();
      if (raw === "" && def.default !== "") throw invalid();
      return raw;
    }
  }
}

/** One `KEY=value` entry of a dotenv file. */
interface EnvFileEntry {
  key: string;
  value: string;
  /** 1-based line number */
  line: number;
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses dotenv text: `KEY=value` lines, blank lines and `#` comments skipped, an optional
 * `export ` prefix, values trimmed, matching single or double quotes stripped (inside double
 * quotes `\n`, `\"` and `\\` are unescaped), and ` #…` comments after unquoted values dropped.
 * `file` only labels errors.
 */
export function parseEnvFile(text: string, file = "env file"): EnvFileEntry[] {
  const out: EnvFileEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    let line = (lines[n] as string).trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("export ")) line = line.slice("export ".length).trimStart();
    const eq = line.indexOf("=");
    const key = eq >= 0 ? line.slice(0, eq).trim() : "";
    if (eq < 0 || !ENV_KEY.test(key)) {
      throw new CliError({ code: "CLI_ENV_FILE", file }, `${file}:${n + 1}: expected KEY=value, got ${JSON.stringify(lines[n])}`);
    }
    let value = line.slice(eq + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) {
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\([n"\\])/g, (_, c: string) => (c === "n" ? "\n" : c));
    } else if (q === '"' || q === "'") {
      throw new CliError({ code: "CLI_ENV_FILE", file, option: key }, `${file}:${n + 1}: unterminated quote in the value of ${key}`);
    } else {
      const hash = value.search(/\s#/);
      if (hash >= 0) value = value.slice(0, hash).trimEnd();
    }
    out.push({ key, value, line: n + 1 });
  }
  return out;
}

function readEnvFile(file: string): EnvFileEntry[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new CliError({ code: "CLI_ENV_FILE", file }, `cannot read env file ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseEnvFile(text, file);
}

function defaultsOnly(): { options: BasaltOptions; sources: Record<OptionName, OptionSource> } {
  const options = tableDefaults();
  applyDerivedDefaults(options, options.network as string, new Set());
  const sources = Object.fromEntries(OPTION_LIST.map((o) => [o.name, "default"])) as Record<OptionName, OptionSource>;
  return { options: options as BasaltOptions, sources };
}

function unknownCommand(word: string): CliError {
  const suggestion = closest(word, ALL_COMMANDS);
  return new CliError({ code: "CLI_UNKNOWN_COMMAND", command: word, suggestion }, `unknown command ${JSON.stringify(word)}${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}; commands: ${ALL_COMMANDS.join(", ")}`);
}

/**
 * Parses the arguments of `basalt` (argv without the node binary and script) against the
 * environment `env`, reading the `--env-file` if one is named. Throws {@link CliError} for any
 * mistake in the user's input. Help and version requests never read the environment or files.
 */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCli {
  // `basalt bench <tool> [args]`: the tool parses its own arguments (including its --help).
  if (argv[0] === BENCH_COMMAND) return { command: BENCH_COMMAND, help: false, positionals: argv.slice(1), ...defaultsOnly() };
  // Help and version first, leniently, so `basalt init --bogus --help` still shows help.
  const lenient = tokenize(argv, false);
  const first = lenient.positionals[0];
  if (lenient.help || first === "help") {
    const topic = first === "help" ? lenient.positionals[1] : first;
    if (topic !== undefined && topic !== BENCH_COMMAND && !(COMMANDS as readonly string[]).includes(topic)) throw unknownCommand(topic);
    return { command: "help", help: true, positionals: topic === undefined ? [] : [topic], ...defaultsOnly() };
  }
  if (lenient.version || first === "version") return { command: "version", help: false, positionals: [], ...defaultsOnly() };

  const tokens = tokenize(argv, true);
  const positionals = [...tokens.positionals];
  const explicitCommand = positionals[0] !== undefined && isCliCommand(positionals[0]);
  if (positionals[0] === BENCH_COMMAND) {
    const message = "`bench` must be the first argument: basalt bench <tool> [args] (the node options do not apply to it)";
    throw new CliError({ code: "CLI_UNEXPECTED_ARGUMENT", value: BENCH_COMMAND }, message);
  }
  const command = (explicitCommand ? positionals.shift() : "node") as Command;
  if (tokens.json && command !== DOCTOR_COMMAND) {
    throw new CliError({ code: "CLI_OPTION_NOT_FOR_COMMAND", option: JSON_FLAG, command }, `option ${JSON_FLAG} does not apply to \`basalt ${command}\` (it is an option of: doctor)`);
  }

  if (tokens.force && command !== SNAPSHOT_COMMAND) {
    throw new CliError({ code: "CLI_OPTION_NOT_FOR_COMMAND", option: FORCE_FLAG, command }, `option ${FORCE_FLAG} does not apply to \`basalt ${command}\` (it is an option of: snapshot)`);
  }

  // Command-line values (last occurrence wins).
  const fromCli = new Map<OptionName, unknown>();
  for (const t of tokens.flags) {
    if (!appliesTo(t.def, command)) {
      throw new CliError({ code: "CLI_OPTION_NOT_FOR_COMMAND", option: t.flag, command }, `option ${t.flag} does not apply to \`basalt ${command}\` (it is an option of: ${t.def.commands.join(", ")})`);
    }
    fromCli.set(t.def.name, parseOptionValue(t.def, t.value, t.flag));
  }

  // Environment values of this command's options (other BASALT_* variables are ignored).
  const fromEnv = new Map<OptionName, unknown>();
  for (const def of OPTION_LIST) {
    const raw = env[envVarName(def.name)];
    if (raw === undefined || raw === "" || !appliesTo(def, command)) continue;
    fromEnv.set(def.name, parseOptionValue(def, raw, envVarName(def.name)));
  }

  // The env file.
  const fromFile = new Map<OptionName, unknown>();
  const envFile = (fromCli.get("env-file") ?? fromEnv.get("env-file")) as string | undefined;
  if (envFile !== undefined) {
    for (const e of readEnvFile(envFile)) {
      if (!e.key.startsWith("BASALT_")) continue;
      const origin = `${e.key} (${envFile}:${e.line})`;
      const def = ENV_TO_OPTION.get(e.key);
      if (def === undefined) {
        const suggestion = closest(e.key, [...ENV_TO_OPTION.keys()]);
        throw new CliError({ code: "CLI_UNKNOWN_OPTION", option: e.key, suggestion, file: envFile }, `unknown variable ${origin}${suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`}`);
      }
      if (e.key === ENV_FILE_VAR) {
        throw new CliError({ code: "CLI_ENV_FILE", option: e.key, file: envFile }, `${origin}: an env file cannot name another env file`);
      }
      if (e.value === "" || !appliesTo(def, command)) continue;
      fromFile.set(def.name, parseOptionValue(def, e.value, origin));
    }
  }

  // Layer: defaults < env file < environment < command line.
  const options = tableDefaults() as Record<OptionName, unknown>;
  const sources = Object.fromEntries(OPTION_LIST.map((o) => [o.name, "default"])) as Record<OptionName, OptionSource>;
  const explicit = new Set<OptionName>();
  for (const [layer, source] of [
    [fromFile, "env-file"],
    [fromEnv, "env"],
    [fromCli, "cli"],
  ] as const) {
    for (const [name, value] of layer) {
      options[name] = value;
      sources[name] = source;
      explicit.add(name);
    }
  }
  const opts = options as unknown as BasaltOptions;

  // `basalt init --genesis G.json` names its chain by G unless --network is given.
  const network = command === "init" && opts.genesis !== undefined && !explicit.has("network") ? opts.genesis : opts.network;
  applyDerivedDefaults(opts, network, explicit);

  validatePositionals(command, positionals, explicitCommand);
  if (command === "export" && opts.from !== undefined && opts.to !== undefined && opts.from > opts.to) {
    throw new CliError({ code: "CLI_INVALID_VALUE", option: "--from", value: String(opts.from), expected: `a block number <= ${opts.to}` }, `--from ${opts.from} is after --to ${opts.to}`);
  }
  return { command, options: opts, positionals, help: false, sources, json: tokens.json, force: tokens.force };
}

function validatePositionals(command: Command, positionals: string[], explicitCommand: boolean): void {
  const extra = (from: number): void => {
    const arg = positionals[from];
    if (arg === undefined) return;
    if (!explicitCommand && from === 0) throw unknownCommand(arg);
    throw new CliError({ code: "CLI_UNEXPECTED_ARGUMENT", value: arg, command }, `unexpected argument ${JSON.stringify(arg)} for \`basalt ${command}\``);
  };
  switch (command) {
    case "node":
    case "init":
    case "doctor":
      extra(0);
      return;
    case "snapshot":
      if ((positionals[0] !== "export" && positionals[0] !== "import") || positionals.length < 2) {
        throw new CliError({ code: "CLI_MISSING_ARGUMENT", command, value: positionals[0] }, "`basalt snapshot` needs an action and a file: basalt snapshot export|import --datadir D <file>");
      }
      extra(2);
      return;
    case "proofs":
      if (positionals[0] !== "init") {
        throw new CliError({ code: "CLI_MISSING_ARGUMENT", command, value: positionals[0] }, "`basalt proofs` needs an action: basalt proofs init --datadir D [--proofs.history-window W]");
      }
      extra(1);
      return;
    case "db":
      if (positionals[0] !== "migrate" && positionals[0] !== "reindex-logs") {
        throw new CliError({ code: "CLI_MISSING_ARGUMENT", command, value: positionals[0] }, "`basalt db` needs an action: basalt db migrate|reindex-logs --datadir D");
      }
      extra(1);
      return;
    case "devnet":
      if (positionals[0] !== "rollup") {
        throw new CliError({ code: "CLI_MISSING_ARGUMENT", command, value: positionals[0] }, "`basalt devnet` needs an action: basalt devnet rollup [--l1.rpc URL --l1.beacon URL] [--batcher.data blobs|calldata]");
      }
      extra(1);
      return;
    case "import":
      if (positionals.length === 0) {
        throw new CliError({ code: "CLI_MISSING_ARGUMENT", command }, "`basalt import` needs at least one RLP chain file: basalt import --datadir D <chain.rlp>...");
      }
      return;
    case "export":
      if (positionals.length === 0) {
        throw new CliError({ code: "CLI_MISSING_ARGUMENT", command }, "`basalt export` needs an output file: basalt export --datadir D [--from N --to M] <out.rlp>");
      }
      extra(1);
      return;
  }
}
