#!/usr/bin/env node
/**
 * Builds basalt's native addon (native/build/Release/basalt_native.node) with node-gyp and the
 * machine's compiler, against the Node headers npm is configured with (no download). Runs at
 * `npm install`/`npm ci` (the package's install script) and before every build; it does nothing
 * when the addon is newer than its sources. A failed build is not an error: basalt then uses
 * its JavaScript fallback (the tests run both). `BASALT_NATIVE_BUILD=0` skips the build.
 *
 * Sender recovery links the machine's libsecp256k1 when it has one (Debian's
 * `libsecp256k1-dev`: the header with the recovery module and the shared library, found
 * through the compiler; Debian's static archive is not position-independent); without it the
 * addon is built without `secp256k1Recover` and basalt recovers senders with the `secp256k1`
 * npm package's binding.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const addon = join(here, "build", "Release", "basalt_native.node");

/**
 * The libsecp256k1 to link (with its recovery header), or undefined: asks the compiler where
 * `libsecp256k1.so` is, as the linker would search.
 */
function secp256k1Library() {
  const cc = process.env.CC || "cc";
  const r = spawnSync(cc, ["-print-file-name=libsecp256k1.so"], { encoding: "utf8" });
  const lib = r.status === 0 ? r.stdout.trim() : "";
  if (!isAbsolute(lib) || !existsSync(lib)) return undefined;
  const header = spawnSync(cc, ["-E", "-x", "c", "-"], { input: "#include <secp256k1_recovery.h>\n", encoding: "utf8" });
  return header.status === 0 ? lib : undefined;
}

function newestSource(extra) {
  const files = [join(here, "binding.gyp"), ...readdirSync(join(here, "src")).map((f) => join(here, "src", f)), ...extra];
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
const secp256k1 = secp256k1Library();
// The stamp records whether libsecp256k1 was linked: installing or removing it rebuilds.
const stamp = join(here, "build", "secp256k1-lib");
const linked = existsSync(stamp) ? readFileSync(stamp, "utf8") : undefined;
const upToDate = existsSync(addon) && statSync(addon).mtimeMs >= newestSource(secp256k1 === undefined ? [] : [secp256k1]) && linked === (secp256k1 ?? "");
if (upToDate) process.exit(0);
const [cmd, pre] = nodeGyp();
const dir = nodeDir();
const args = [...pre, "rebuild", "--release", ...(dir === undefined ? [] : [`--nodedir=${dir}`]), ...(secp256k1 === undefined ? [] : [`--secp256k1_lib=${secp256k1}`])];
const r = spawnSync(cmd, args, { cwd: here, encoding: "utf8" });
if (r.status === 0 && existsSync(addon)) {
  writeFileSync(stamp, secp256k1 ?? "");
  const recovery = secp256k1 === undefined ? "without libsecp256k1 (apt-get install libsecp256k1-dev for faster sender recovery)" : `with ${secp256k1}`;
  process.stdout.write(`basalt: native addon built (native/build/Release/basalt_native.node), ${recovery}\n`);
} else {
  const why = r.error?.message ?? (r.stderr || r.stdout || "").trim().split("\n").slice(-3).join(" | ");
  process.stdout.write(`basalt: native addon not built, using the JavaScript fallback (${why})\n`);
}
