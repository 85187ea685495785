#!/usr/bin/env node
/**
 * Builds basalt's native addon (native/build/Release/basalt_native.node) with node-gyp and the
 * machine's compiler, against the Node headers npm is configured with (no download). Runs at
 * `npm install`/`npm ci` (the package's install script) and before every build; it does nothing
 * when the addon is newer than its sources. A failed build is not an error: basalt then uses
 * its JavaScript fallback (the tests run both). `BASALT_NATIVE_BUILD=0` skips the build.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const addon = join(here, "build", "Release", "basalt_native.node");

/** Files under `dir`, recursively. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

function newestSource() {
  const files = [join(here, "binding.gyp"), ...filesUnder(join(here, "src")), ...filesUnder(join(here, "secp256k1"))];
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

/** node-gyp: the one npm runs scripts with, else npm's bundled copy, else one on PATH. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"),
  ];
  for (const c of candidates) if (c !== undefined && c !== "" && existsSync(c)) return [process.execPath, [c]];
  return ["node-gyp", []];
}

/**
 * The Node headers to build against: npm's `nodedir` setting, else the ones installed beside
 * this Node (`<prefix>/include/node`, shipped by Node's own packages) — never a download.
 */
function nodeDir() {
  const configured = process.env.npm_config_nodedir;
  if (configured !== undefined && configured !== "") return configured;
  const prefix = join(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include", "node", "node_api.h")) ? prefix : undefined;
}

if (process.env.BASALT_NATIVE_BUILD === "0") process.exit(0);
if (existsSync(addon) && statSync(addon).mtimeMs >= newestSource()) process.exit(0);
const [cmd, pre] = nodeGyp();
const dir = nodeDir();
const args = [...pre, "rebuild", "--release", ...(dir === undefined ? [] : [`--nodedir=${dir}`])];
const r = spawnSync(cmd, args, { cwd: here, encoding: "utf8" });
if (r.status === 0 && existsSync(addon)) {
  process.stdout.write("basalt: native addon built (native/build/Release/basalt_native.node)\n");
} else {
  const why = r.error?.message ?? (r.stderr || r.stdout || "").trim().split("\n").slice(-3).join(" | ");
  process.stdout.write(`basalt: native addon not built, using the JavaScript fallback (${why})\n`);
}
