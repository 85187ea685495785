/**
 * Foundry's prebuilt executables from their per-platform npm packages — `@foundry-rs/forge-linux-amd64`,
 * `@foundry-rs/cast-linux-amd64` (optional dependencies of basalt like anvil's; no install
 * scripts: the binary is in the package) — and a stand-in native `solc` for forge, backed by
 * solc-js (forge cannot download a compiler here; see solcjsShim.mjs).
 */
import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Node's `process.arch` → the architecture suffix of foundry's per-platform npm packages. */
const ARCH_SUFFIX: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** The npm package that carries `tool` for this platform, e.g. `@foundry-rs/forge-linux-amd64`. */
export function foundryPackage(tool: "forge" | "cast"): string {
  return `@foundry-rs/${tool}-${process.platform}-${ARCH_SUFFIX[process.arch] ?? process.arch}`;
}

/** The path of `tool`'s executable in its installed platform package, or undefined when that package is not installed. */
export function foundryBinary(tool: "forge" | "cast"): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve(`${foundryPackage(tool)}/package.json`);
    const bin = path.join(path.dirname(pkg), "bin", process.platform === "win32" ? `${tool}.exe` : tool);
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes `dir/solc`, an executable that runs solcjsShim.mjs with this Node: what foundry.toml's
 * `solc = "<path>"` (with `offline = true`) points forge at. Returns its path.
 */
export async function writeSolcShim(dir: string): Promise<string> {
  const shim = fileURLToPath(new URL("./solcjsShim.mjs", import.meta.url));
  const file = path.join(dir, "solc");
  await writeFile(file, `#!/bin/sh\nexec "${process.execPath}" "${shim}" "$@"\n`);
  await chmod(file, 0o755);
  return file;
}
