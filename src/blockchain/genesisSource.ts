/**
 * Where the genesis of a datadir comes from (`basalt init`, first `basalt node` start):
 * - `--network devnet`: the built-in development genesis (or `--genesis <file>` when given);
 * - `--network devnet-l1`: the built-in local L1 genesis (or `--genesis <file>` when given);
 * - `--network base-mainnet|base-sepolia`: the network's published genesis allocation, read from
 *   `--genesis <file>` or downloaded (`--genesis-url`, default the network's published file),
 *   given the network's built-in config, and accepted only if its genesis block hash is the
 *   network's known genesis hash;
 * - `--network <path>`: a geth-style genesis JSON file.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GENESIS_DOWNLOAD_TIMEOUT_MS } from "./constants.js";
import { isDevnet, isDevnetL1, type BasaltOptions } from "../config/options.js";
import { ChainStore, MetaKey } from "../storage/store.js";
import { fromHex, to0x } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { Chain } from "./chain.js";
import { buildGenesis } from "./genesisInit.js";
import { commonFromGenesis } from "../chain/chainSpec.js";
import { devnetGenesis, type DevnetForkTimes } from "../chain/devnet.js";
import { devnetL1Genesis } from "../chain/devnetL1.js";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { validateGenesis, type GenesisJson } from "../chain/genesis.js";
import { isOpNetworkName, opNetwork, withNetworkConfig, type OpNetwork } from "../chain/op/networks.js";
import { OP_FORK_NAMES, opConfigFromGenesisConfig, type OpForkName } from "../chain/op/forks.js";

/** The options that select a genesis. */
type GenesisOptions = Pick<BasaltOptions, "network" | "genesis" | "genesis-url"> & Partial<Pick<BasaltOptions, "dev.beryl-time" | "dev.cobalt-time">>;

/**
 * A {@link GenesisSourceError}'s stable code with its metadata: `network` is the built-in network
 * concerned, `source` the file path or URL the genesis was read from, `expected` the network's known
 * genesis hash and `actual` the genesis hash of the given file.
 */
type GenesisSourceErrorType =
  | { code: "GENESIS_UNREADABLE"; source: string }
  | { code: "GENESIS_DOWNLOAD_FAILED"; network: string; source: string }
  | { code: "GENESIS_HASH_MISMATCH"; network: string; source: string; expected: string; actual: string };

/** A genesis could not be read, downloaded, or is not the genesis of the named network. */
export class GenesisSourceError extends TypedError<GenesisSourceErrorType> {}

/** Test seams of {@link resolveGenesis}. */
export interface ResolveGenesisDeps {
  /** Download time limit (default {@link GENESIS_DOWNLOAD_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Parses the genesis JSON file at `file`. */
function readGenesisFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new GenesisSourceError({ code: "GENESIS_UNREADABLE", source: file }, `cannot read genesis file ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = (e as Error).message;
    throw new GenesisSourceError({ code: "GENESIS_UNREADABLE", source: file }, `genesis file ${file} is not valid JSON: ${reason}`, { cause: e });
  }
}

/** A short reason of a failed fetch: the network error (e.g. ECONNREFUSED) or the timeout. */
function fetchFailureReason(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === "TimeoutError" || err.name === "AbortError") return `no complete answer within ${timeoutMs / 1000} s`;
  const cause = err.cause;
  if (cause !== undefined && cause !== null) return cause.message ?? cause.code ?? err.message;
  return err.message;
}

/**
 * Downloads the genesis JSON of `network` from `url` (Node's global fetch; a gzip-encoded answer
 * is decoded by fetch), bounded by `timeoutMs`.
 */
async function downloadGenesis(network: OpNetwork, url: string, timeoutMs: number): Promise<unknown> {
  const fail = (reason: string, cause?: unknown): GenesisSourceError =>
    new GenesisSourceError({ code: "GENESIS_DOWNLOAD_FAILED", network: network.name, source: url }, `cannot download the ${network.name} genesis from ${url}: ${reason}; download it yourself and pass --genesis <file> ` +
        `(basalt init --network ${network.name} --genesis <file>)`, { cause });
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  try {
    const res = await fetch(url, { signal, headers: { accept: "application/json" } });
    if (!res.ok) throw fail(`HTTP ${res.status} ${res.statusText}`.trim());
    text = await res.text();
  } catch (e) {
    if (e instanceof GenesisSourceError) throw e;
    throw fail(fetchFailureReason(e, timeoutMs), e);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw fail(`the answer is not JSON (${(e as Error).message})`, e);
  }
}

/** The genesis block hash of `g` (0x hex), computed as `basalt init` writes it. */
export async function genesisHashOf(g: GenesisJson): Promise<string> {
  const { block } = await Chain.buildGenesis(g, commonFromGenesis(g));
  return to0x(block.hash());
}

/**
 * Gives the genesis file of a built-in network its config and checks that its genesis hash is
 * the network's known one; `source` (path or URL) only labels the error.
 */
async function checkedNetworkGenesis(network: OpNetwork, file: unknown, source: string): Promise<GenesisJson> {
  const g = withNetworkConfig(network, file);
  const actual = await genesisHashOf(g);
  if (actual !== network.genesisHash.toLowerCase()) {
    throw new GenesisSourceError({ code: "GENESIS_HASH_MISMATCH", network: network.name, source, expected: network.genesisHash, actual }, `${source} is not the ${network.name} genesis: its genesis block hash is ${actual}, expected ${network.genesisHash}`);
  }
  return g;
}

/**
 * The genesis selected by the options: the devnet genesis for `--network devnet` and the local L1's
 * for `--network devnet-l1` (unless `--genesis` names a file), the checked genesis of a built-in Base network (from `--genesis`, or
 * downloaded from `--genesis-url` / the published file), or the genesis file named by
 * `--genesis` or `--network`.
 */
export async function resolveGenesis(opts: GenesisOptions, deps: ResolveGenesisDeps = {}): Promise<GenesisJson> {
  if (isOpNetworkName(opts.network)) {
    const network = opNetwork(opts.network);
    if (opts.genesis !== undefined) return checkedNetworkGenesis(network, readGenesisFile(opts.genesis), opts.genesis);
    const url = opts["genesis-url"] ?? (network.genesisUrls[0] as string);
    const file = await downloadGenesis(network, url, deps.timeoutMs ?? GENESIS_DOWNLOAD_TIMEOUT_MS);
    return checkedNetworkGenesis(network, file, url);
  }
  const builtin = isDevnet(opts.network) || isDevnetL1(opts.network);
  const file = opts.genesis ?? (builtin ? undefined : opts.network);
  if (file === undefined) return isDevnetL1(opts.network) ? devnetL1Genesis() : devnetGenesis(devnetForkTimes(opts));
  return validateGenesis(readGenesisFile(file));
}

/** The devnet's Base upgrade times given by `--dev.beryl-time` / `--dev.cobalt-time`. */
function devnetForkTimes(opts: Pick<GenesisOptions, "dev.beryl-time" | "dev.cobalt-time">): DevnetForkTimes {
  const t: DevnetForkTimes = {};
  if (opts["dev.beryl-time"] !== undefined) t.beryl = BigInt(Math.floor(opts["dev.beryl-time"]));
  if (opts["dev.cobalt-time"] !== undefined) t.cobalt = BigInt(Math.floor(opts["dev.cobalt-time"]));
  return t;
}

/** The genesis hash recorded in `datadir` (read-only; safe while a node runs on it), or undefined for a datadir without a chain. */
export async function storedGenesisHash(datadir: string): Promise<string | undefined> {
  if (!existsSync(join(datadir, "chain"))) return undefined;
  const store = ChainStore.open(datadir, { readOnly: true });
  try {
    const h = store.getPointer("genesis");
    return h === undefined ? undefined : to0x(h);
  } finally {
    await store.close();
  }
}

/**
 * Writes (or confirms) the genesis selected by the options into `datadir` (`Chain.init`). For a
 * built-in Base network without `--genesis`, a datadir that already holds that network's genesis
 * is accepted as is (no download); one holding another genesis is refused.
 */
export async function initGenesis(
  datadir: string,
  opts: GenesisOptions,
  initOpts: { archive?: boolean } = {},
  deps: ResolveGenesisDeps = {},
): Promise<{ hash: Uint8Array; created: boolean }> {
  if (isOpNetworkName(opts.network) && opts.genesis === undefined) {
    const network = opNetwork(opts.network);
    const stored = await storedGenesisHash(datadir);
    if (stored !== undefined) {
      if (stored !== network.genesisHash.toLowerCase()) {
        throw new ChainError(
          ChainErrorCode.GENESIS_MISMATCH,
          `datadir ${datadir} holds genesis ${stored}, but the ${network.name} genesis is ${network.genesisHash}; use another --datadir or remove it`,
        );
      }
      return { hash: fromHex(stored), created: false };
    }
  }
  const genesis = await resolveGenesis(opts, deps);
  if (isDevnet(opts.network) && (opts["dev.beryl-time"] !== undefined || opts["dev.cobalt-time"] !== undefined)) {
    await refuseOtherSchedule(datadir, genesis);
  }
  if (isDevnet(opts.network) && opts.genesis === undefined) {
    // A devnet datadir created before the preinstalls goes on with its own chain.
    const stored = await storedGenesisHash(datadir);
    if (stored !== undefined && stored === (await devnetGenesisHashWithoutPreinstalls(opts))) return { hash: fromHex(stored), created: false };
  }
  return Chain.init(datadir, genesis, initOpts);
}

/** The hash of the devnet genesis basalt wrote before it had the OP Stack preinstalls (same schedule options). */
async function devnetGenesisHashWithoutPreinstalls(opts: Pick<GenesisOptions, "dev.beryl-time" | "dev.cobalt-time">): Promise<string> {
  const legacy = devnetGenesis({ ...devnetForkTimes(opts), preinstalls: false });
  const { block } = await buildGenesis(legacy, commonFromGenesis(legacy));
  return to0x(block.hash());
}

/**
 * Whether `genesisHash` is the built-in devnet's: today's genesis or the one from before the OP
 * Stack preinstalls (a datadir created then is still the devnet, sequenced and with its dev
 * accounts). The schedule flags do not change the genesis block.
 */
export async function isDevnetGenesisHash(genesisHash: Uint8Array): Promise<boolean> {
  const h = to0x(genesisHash);
  const current = devnetGenesis();
  const { block } = await buildGenesis(current, commonFromGenesis(current));
  return h === to0x(block.hash()) || h === (await devnetGenesisHashWithoutPreinstalls({ "dev.beryl-time": undefined, "dev.cobalt-time": undefined }));
}

/**
 * Refuses to open a datadir whose chain was created with other OP fork times than `genesis`
 * has (the devnet's `--dev.*-time` flags fix the schedule when the datadir is created: the
 * genesis block is the same for every schedule, so only the stored configuration tells them apart).
 */
async function refuseOtherSchedule(datadir: string, genesis: GenesisJson): Promise<void> {
  if (!existsSync(join(datadir, "chain"))) return;
  const store = ChainStore.open(datadir, { readOnly: true });
  let storedJson: string | undefined;
  try {
    storedJson = store.getMeta<string>(MetaKey.genesisJson);
  } finally {
    await store.close();
  }
  if (storedJson === undefined) return;
  const stored = opConfigFromGenesisConfig((JSON.parse(storedJson) as GenesisJson).config as Record<string, unknown>)?.forkTimes ?? {};
  const wanted = opConfigFromGenesisConfig(genesis.config as Record<string, unknown>)?.forkTimes ?? {};
  const differs = OP_FORK_NAMES.slice(1).filter((f) => stored[f as Exclude<OpForkName, "bedrock">] !== wanted[f as Exclude<OpForkName, "bedrock">]);
  if (differs.length === 0) return;
  const show = (t: Partial<Record<string, bigint>>): string => differs.map((f) => `${f} ${t[f] ?? "never"}`).join(", ");
  throw new ChainError(
    ChainErrorCode.SCHEDULE_MISMATCH,
    `datadir ${datadir} holds a chain created with ${show(stored)}; the options ask for ${show(wanted)}: use another --datadir, or the schedule it was created with`,
  );
}
