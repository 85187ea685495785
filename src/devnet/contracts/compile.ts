/**
 * Compiles the local rollup's L1 contracts (`OptimismPortal.sol`, `SystemConfig.sol` beside this
 * file) with solc-js — the npm `solc` package, pinned in package.json, which bundles the compiler,
 * so nothing is downloaded — and renders `artifacts.ts`, the creation bytecode and ABIs the node
 * deploys. Run as a script it rewrites `artifacts.ts`:
 *
 *     npm run contracts:compile
 *
 * test/unit/devnet/contracts/artifacts.test.ts compiles the sources again and fails when the
 * committed artifacts differ, so sources and bytecode never drift apart.
 *
 * Not imported by the node at run time (solc is a devDependency): only by this script and tests.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import solc from "solc";
import { DevnetError, DevnetErrorCode } from "../errors.js";

/** The contract sources compiled into `artifacts.ts`, by file name (each holds the contract of its name). */
const DEVNET_CONTRACT_FILES = ["OptimismPortal.sol", "SystemConfig.sol"] as const;

/**
 * solc settings of the artifacts. The EVM target is Cancun (PUSH0, MCOPY, transient storage), which
 * every L1 the local rollup runs on has (anvil and basalt's own L1 run Prague). The CBOR metadata
 * (source hash, compiler version) is left out, so the bytecode depends only on what the code does,
 * not on comments or file paths.
 */
const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { appendCBOR: false, bytecodeHash: "none" },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
} as const;

/** One compiled contract. */
interface CompiledContract {
  /** The contract's name. */
  contractName: string;
  /** Its JSON ABI. */
  abi: unknown[];
  /** Creation bytecode, 0x hex (constructor arguments are appended to it when deploying). */
  bytecode: string;
}

/** The folder of the Solidity sources: this file's, or the source tree's when run from the build (tsc does not copy .sol files). */
export function contractSourceDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(here, "../../../..");
  return path.basename(path.resolve(here, "../../..")) === "dist" ? path.join(root, "src", "devnet", "contracts") : here;
}

/** The sources of {@link DEVNET_CONTRACT_FILES}, read from `dir`, by file name. */
function devnetContractSources(dir = contractSourceDir()): Record<string, string> {
  return Object.fromEntries(DEVNET_CONTRACT_FILES.map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));
}

/** The version of the bundled compiler (e.g. `0.8.37+commit.f401782d.Emscripten.clang`). */
export function solcVersion(): string {
  return solc.version() as string;
}

interface SolcMessage {
  severity: string;
  formattedMessage: string;
}

interface SolcOutput {
  errors?: SolcMessage[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles Solidity `sources` (file name → text) with {@link SOLC_SETTINGS}; every contract of every
 * file comes back by its name.
 * @throws DevnetError `DEVNET_CONTRACT_COMPILE` with the compiler's error messages.
 */
export function compileSolidity(sources: Record<string, string>): Record<string, CompiledContract> {
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([file, content]) => [file, { content }])),
    settings: SOLC_SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput;
  const errors = (output.errors ?? []).filter((m) => m.severity === "error");
  if (errors.length > 0) {
    const messages = errors.map((m) => m.formattedMessage.trim());
    throw new DevnetError(
      { code: DevnetErrorCode.CONTRACT_COMPILE, files: Object.keys(sources).join(","), errors: messages.join("\n") },
      `solc ${solcVersion()} did not compile ${Object.keys(sources).join(", ")}:\n${messages.join("\n")}`,
    );
  }
  const out: Record<string, CompiledContract> = {};
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) out[contractName] = { contractName, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return out;
}

/** The devnet contracts compiled from `dir` (default: the committed sources). */
export function compileDevnetContracts(dir?: string): Record<string, CompiledContract> {
  return compileSolidity(devnetContractSources(dir));
}

/** Exported name of a contract's artifact in `artifacts.ts` (`OptimismPortal` → `OPTIMISM_PORTAL_ARTIFACT`). */
function artifactConstName(contractName: string): string {
  return `${contractName.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}_ARTIFACT`;
}

/** The text of `artifacts.ts` for `contracts` (one typed constant per contract, ABI `as const` for typed encoders). */
export function renderArtifacts(contracts: Record<string, CompiledContract>, version = solcVersion()): string {
  const lines = [
    "/**",
    " * Compiled L1 contracts of the local rollup (OptimismPortal, SystemConfig): creation bytecode and",
    " * ABI. GENERATED by src/devnet/contracts/compile.ts (`npm run contracts:compile`) from the .sol",
    " * sources beside this file — do not edit; test/unit/devnet/contracts/artifacts.test.ts checks that",
    " * compiling the sources gives these bytes.",
    " */",
    "",
    "/** The solc version the artifacts were compiled with. */",
    `export const SOLC_VERSION = ${JSON.stringify(version)};`,
  ];
  for (const name of DEVNET_CONTRACT_FILES.map((f) => f.replace(/\.sol$/, ""))) {
    const c = contracts[name];
    if (c === undefined) throw new DevnetError({ code: DevnetErrorCode.CONTRACT_COMPILE, files: `${name}.sol`, errors: "missing" }, `the compiler output has no contract ${name}`);
    lines.push(
      "",
      `/** ${name}: creation bytecode (0x hex) and ABI. */`,
      `export const ${artifactConstName(name)} = {`,
      `  contractName: ${JSON.stringify(name)},`,
      `  bytecode: ${JSON.stringify(c.bytecode)},`,
      `  abi: ${JSON.stringify(c.abi, null, 2).replace(/\n/g, "\n  ")},`,
      "} as const;",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Compiles the sources and rewrites `artifacts.ts` beside them; returns the file written. */
function writeDevnetArtifacts(dir = contractSourceDir()): string {
  const file = path.join(dir, "artifacts.ts");
  writeFileSync(file, renderArtifacts(compileDevnetContracts(dir)));
  return file;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = writeDevnetArtifacts();
  process.stdout.write(`wrote ${file} (solc ${solcVersion()})\n`);
}
