/**
 * `basalt bench state-scale`: the scale benchmark of the storage layout (bench/stateScale.ts) —
 * a synthetic state of N accounts and M slots, blocks imported cold / warm / steady in a fresh
 * process, RPC latencies on a real node. Parses the arguments and prints the report.
 *
 * Options: `--preset S1|S2` (10 M accounts / 30 M slots, 30 M / 90 M), `--accounts N`,
 * `--slots M`, `--contracts K`, `--holders H`, `--senders S`, `--blocks B`, `--txs T`,
 * `--seed X`, `--dir PATH`, `--keep`, `--json FILE`, `--skip-rpc`, `--rpc-requests R`, `--verify`,
 * `--cpu-prof DIR` (a V8 CPU profile of the import child).
 */
import { BasaltError } from "../../src/util/errors.js";
import { PRESETS, defaultOptions, formatReport, runStateScale, type PresetName, type StateScaleOptions } from "../stateScale.js";

/** A wrong command line. */
export class StateScaleArgsError extends BasaltError {
  constructor(message: string) {
    super("BENCH_STATE_SCALE_ARGS", message);
  }
}

/** Usage text of `--help`. */
export const STATE_SCALE_USAGE = [
  "usage: basalt bench state-scale [--preset S1|S2] [--accounts N (10000000)] [--slots M (30000000)]",
  "                                [--contracts K (3000)] [--holders H (min(1000000, N/10))] [--senders S (2000)]",
  "                                [--blocks B (300)] [--txs T (200)] [--seed X] [--dir PATH] [--keep]",
  "                                [--json FILE] [--skip-rpc] [--rpc-requests R (200)] [--verify] [--cpu-prof DIR]",
  "  S1 = 10 M accounts / 30 M slots, S2 = 30 M / 90 M; --accounts/--slots after --preset override it.",
  "  The disk needed is checked first (about 2.2 × the state); --dir puts the work directory elsewhere.",
].join("\n");

const VALUE_OPTIONS = ["preset", "accounts", "slots", "contracts", "holders", "senders", "blocks", "txs", "seed", "dir", "json", "rpc-requests", "cpu-prof"] as const;
const FLAG_OPTIONS = ["keep", "skip-rpc", "verify", "help"] as const;

/** Parses the command line (`--name value` or `--name=value`); undefined for `--help`. */
export function parseStateScaleArgs(argv: string[]): StateScaleOptions | undefined {
  const given = new Map<string, string>();
  const order: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new StateScaleArgsError(`unexpected argument "${arg}"; see --help`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if ((FLAG_OPTIONS as readonly string[]).includes(name)) {
      if (eq >= 0) throw new StateScaleArgsError(`--${name} takes no value`);
      given.set(name, "");
    } else if ((VALUE_OPTIONS as readonly string[]).includes(name)) {
      const v = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new StateScaleArgsError(`--${name} needs a value`);
      given.set(name, v);
    } else {
      throw new StateScaleArgsError(`unknown option --${name}; options are ${[...VALUE_OPTIONS, ...FLAG_OPTIONS].map((o) => `--${o}`).join(", ")}`);
    }
    order.push(name);
  }
  if (given.has("help")) return undefined;
  const count = (name: string, min: number): number | undefined => {
    const v = given.get(name);
    if (v === undefined) return undefined;
    const n = Number(v.replace(/_/g, ""));
    if (!Number.isSafeInteger(n) || n < min) throw new StateScaleArgsError(`--${name} must be an integer ≥ ${min}, got "${v}"`);
    return n;
  };
  const preset = given.get("preset");
  if (preset !== undefined && !(preset in PRESETS)) throw new StateScaleArgsError(`--preset ${preset}: one of ${Object.keys(PRESETS).join(", ")} expected`);
  const base = preset === undefined ? PRESETS.S1 : PRESETS[preset as PresetName];
  const accounts = count("accounts", 1) ?? base.accounts;
  const opts = defaultOptions(accounts, count("slots", 0) ?? base.slots);
  opts.contracts = count("contracts", 0) ?? opts.contracts;
  opts.holders = count("holders", 0) ?? opts.holders;
  opts.senders = count("senders", 1) ?? opts.senders;
  opts.blocks = count("blocks", 1) ?? opts.blocks;
  opts.txs = count("txs", 1) ?? opts.txs;
  opts.seed = count("seed", 0) ?? opts.seed;
  opts.rpcRequests = count("rpc-requests", 1) ?? opts.rpcRequests;
  const dir = given.get("dir");
  if (dir !== undefined) opts.dir = dir;
  const json = given.get("json");
  if (json !== undefined) opts.json = json;
  const cpuProf = given.get("cpu-prof");
  if (cpuProf !== undefined) opts.cpuProfDir = cpuProf;
  opts.keep = given.has("keep");
  opts.skipRpc = given.has("skip-rpc");
  opts.verify = given.has("verify");
  return opts;
}

/** Entry point of `basalt bench state-scale`. */
export async function main(argv: string[]): Promise<void> {
  const opts = parseStateScaleArgs(argv);
  if (opts === undefined) {
    process.stdout.write(STATE_SCALE_USAGE + "\n");
    return;
  }
  const report = await runStateScale(opts);
  process.stdout.write(formatReport(report));
  if (opts.json !== undefined) process.stdout.write(`every figure: ${opts.json}\n`);
}
