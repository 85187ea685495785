/**
 * Starts anvil (foundry's Rust node the scenario compares basalt with; npm package
 * `@foundry-rs/anvil-linux-amd64`, an optional dependency of basalt — the platform packages of
 * other systems are not in the registry basalt installs from) on a free
 * loopback port, with basalt's devnet chain id, block gas limit and EVM fork, mining on demand.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT } from "../../src/chain/constants.js";
import { ScenarioError } from "./errors.js";
import { repoRoot, spawnChild, type Child } from "./processes.js";
import { freePorts, LOOPBACK } from "./ports.js";
import { waitForRpc } from "./rpc.js";

/** How long anvil may take to answer: it starts in well under a second; 30 s covers a loaded machine. */
const READY_TIMEOUT_MS = 30_000;
/**
 * anvil's EVM fork: Prague, the Ethereum fork basalt's devnet runs (Isthmus = Prague at genesis;
 * no Osaka/Azul), so the same transactions cost the same gas on both.
 */
export const ANVIL_HARDFORK = "prague";
/** Node's `process.arch` → the architecture suffix of anvil's per-platform npm packages. */
const ARCH_SUFFIX: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** A running anvil. */
export interface AnvilNode {
  url: string;
  /** pid of the anvil process itself (for RSS) when started from its platform binary */
  pid: number;
  child: Child;
  stop(): Promise<void>;
}

/**
 * The anvil executable: the platform package's `bin/anvil` (e.g. `@foundry-rs/anvil-linux-amd64`,
 * so the pid is anvil's own), else the npm wrapper `node_modules/.bin/anvil` (a Node script that
 * spawns it; its pid's RSS is then the wrapper's).
 */
export function anvilBinary(): string {
  const arch = ARCH_SUFFIX[process.arch];
  if (arch !== undefined) {
    try {
      const pkg = createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
      const bin = path.join(path.dirname(pkg), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
      if (existsSync(bin)) return bin;
    } catch {
      // not installed for this platform: the wrapper below
    }
  }
  const wrapper = path.join(repoRoot(), "node_modules", ".bin", "anvil");
  if (existsSync(wrapper)) return wrapper;
  const expected = `@foundry-rs/anvil-${process.platform}-${arch ?? process.arch} (installed by npm ci on linux-x64), or anvil in node_modules/.bin`;
  throw new ScenarioError("BENCH_SCENARIO_SPAWN", `anvil not found: expected ${expected}`);
}

/** Options of {@link startAnvil}. */
export interface AnvilOptions {
  /** Chain id; default the devnet's (845337). An L1 for a local rollup uses anvil's own 31337 (it has a blob fee schedule). */
  chainId?: bigint;
  /** Seconds between mined blocks; default none (`--no-mining`: blocks only on `evm_mine`). */
  blockTime?: number;
  /** Timestamp of the genesis block (`--timestamp`); default the time anvil starts. */
  genesisTimestamp?: bigint;
  /** Mine a block per transaction (anvil's automine) instead of `--no-mining`; ignored with `blockTime`. */
  automine?: boolean;
  /** More anvil arguments (e.g. `--steps-tracing`, which debug_traceTransaction's struct logs need). */
  extraArgs?: string[];
}

/**
 * Spawns anvil with `--host 127.0.0.1 --port P --chain-id 845337 --no-mining --gas-limit 60000000
 * --hardfork prague --quiet` (the ten mnemonic accounts with 10,000 ETH each are anvil's defaults;
 * `opts` change the chain id and mine every `blockTime` seconds instead) and waits until it answers.
 */
export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilNode> {
  const [port] = await freePorts(1);
  const args = [
    "--host", LOOPBACK, "--port", String(port),
    "--chain-id", (opts.chainId ?? DEVNET_CHAIN_ID).toString(),
    ...(opts.blockTime !== undefined ? ["--block-time", String(opts.blockTime)] : opts.automine === true ? [] : ["--no-mining"]),
    ...(opts.genesisTimestamp === undefined ? [] : ["--timestamp", opts.genesisTimestamp.toString()]),
    "--gas-limit", DEVNET_GAS_LIMIT.toString(),
    "--hardfork", ANVIL_HARDFORK,
    "--quiet",
    ...(opts.extraArgs ?? []),
  ];
  const child = spawnChild("anvil", anvilBinary(), args);
  const url = `http://${LOOPBACK}:${port}`;
  try {
    await waitForRpc(url, READY_TIMEOUT_MS, () => child.assertAlive());
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { url, pid: child.pid, child, stop: () => child.stop() };
}
