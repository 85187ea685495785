/**
 * A stand-in for the native `solc` executable, backed by solc-js (the `solc` devDependency), for
 * tools that run a compiler binary — forge, with `solc = <a script running this file>` and
 * `offline = true` in foundry.toml (there is no network to download a native solc from).
 *
 * Answers what forge asks of a compiler: `--version` in native solc's two-line form (forge reads
 * the `Version:` line), and `--standard-json` with the input JSON on stdin, written to stdout.
 * forge passes the sources' contents in the input; `--base-path`, `--include-path` and
 * `--allow-paths` serve only the import callback, which reads any file they reach.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const solc = createRequire(import.meta.url)("solc");
const args = process.argv.slice(2);

if (args.includes("--version")) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`);
  process.exit(0);
}
if (!args.includes("--standard-json")) {
  process.stderr.write(`solcjsShim: only --version and --standard-json are supported, got: ${args.join(" ")}\n`);
  process.exit(2);
}

/** The values of every `name VALUE` (or `name=VALUE`) argument; --allow-paths may be comma separated. */
function values(name) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === name && i + 1 < args.length) out.push(args[++i]);
    else if (a.startsWith(`${name}=`)) out.push(a.slice(name.length + 1));
  }
  return out.flatMap((v) => v.split(","));
}
const roots = ["", ...values("--base-path"), ...values("--include-path"), ...values("--allow-paths")];

/** solc-js's import callback: the first root under which the imported path exists. */
function findImports(p) {
  for (const root of roots) {
    const full = root === "" ? p : path.resolve(root, p);
    if (existsSync(full)) return { contents: readFileSync(full, "utf8") };
  }
  return { error: `File not found: ${p} (searched: ${roots.filter((r) => r !== "").join(", ") || "the working directory"})` };
}

const input = readFileSync(0, "utf8");
process.stdout.write(solc.compile(input, { import: findImports }));
