/**
 * `basalt doctor` check "options": the options parsed (the parser already refused invalid
 * values), where the key ones came from (flag, environment, env file, default), whether
 * `--network` names a chain basalt can run, and listen addresses that expose the node.
 */
import { existsSync } from "node:fs";
import { BUILTIN_NETWORKS, envVarName, isBuiltinNetwork, type OptionName } from "../../config/options.js";
import { loopbackFor } from "./probe.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";

/** The options whose value and source the report shows: those that decide where the node runs and what it talks to. */
const KEY_OPTIONS: readonly OptionName[] = [
  "network",
  "datadir",
  "env-file",
  "http.addr",
  "http.port",
  "authrpc.port",
  "rollup.port",
  "metrics",
  "l1.rpc",
  "l1.beacon",
  "flashblocks-url",
  "historical-proofs",
];

/** How a source is shown: the flag, the variable name, the env file, or "default". */
function sourceLabel(ctx: DoctorContext, name: OptionName): string {
  switch (ctx.sources[name]) {
    case "cli":
      return `--${name}`;
    case "env":
      return envVarName(name);
    case "env-file":
      return `${envVarName(name)} in ${ctx.options["env-file"] ?? "the env file"}`;
    default:
      return "default";
  }
}

/** Whether `addr` is a loopback address (the node is reachable from this machine only). */
function isLoopback(addr: string): boolean {
  const a = loopbackFor(addr);
  return a === "localhost" || a === "::1" || a.startsWith("127.");
}

/** Check "options": reports the key options with their sources; FAIL for an unusable `--network`, WARN for exposed listeners. */
export function checkOptions(ctx: DoctorContext): CheckResult {
  const o = ctx.options;
  const values: Record<string, { value: unknown; source: string }> = {};
  for (const name of KEY_OPTIONS) values[name] = { value: o[name], source: ctx.sources[name] };
  const shown = KEY_OPTIONS.filter((n) => o[n] !== undefined).map((n) => `${n}=${String(o[n])} (${sourceLabel(ctx, n)})`);
  const detail = `parsed; ${shown.join(", ")}`;
  const data = { options: values };
  if (!isBuiltinNetwork(o.network) && !existsSync(o.network)) {
    const fix = `set --network (${envVarName("network")}) to one of ${BUILTIN_NETWORKS.join(", ")} or the path of a genesis JSON file`;
    const detail = `--network ${o.network} (${sourceLabel(ctx, "network")}) is neither a built-in network nor a file`;
    return result("options", "Options", "FAIL", detail, fix, data);
  }
  const warnings: string[] = [];
  if (!isLoopback(o["http.addr"]) && !o.public) {
    warnings.push(`the HTTP JSON-RPC listens on ${o["http.addr"]} (not loopback) without --public`);
  }
  if (!isLoopback(o["authrpc.addr"])) warnings.push(`the Engine API listens on ${o["authrpc.addr"]} (not loopback)`);
  if (warnings.length > 0) {
    const fix =
      "keep RPC ports behind a firewall or a proxy (deploy/README.md), enable --public for rate limits on an open endpoint, " +
      "and bind the Engine API to loopback or a private interface";
    return result("options", "Options", "WARN", `${warnings.join("; ")}; ${detail}`, fix, data);
  }
  return result("options", "Options", "OK", detail, undefined, data);
}
