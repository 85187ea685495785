/**
 * Ethereum blockchain tests (EEST v5.4.0, `blockchain_test` format): one
 * {@link BlockchainTestCase} per test of a fixture file, with the geth-style genesis basalt
 * initializes a datadir from.
 *
 * The fixtures are read from `../shared/fixtures/eest-blockchain` relative to the repository root
 * (never copied into the repository). Cases are produced file by file ({@link iterateCases}) so a
 * run holds one parsed file at a time; a shard ({@link shard} of ../eest/fixtures.ts) picks cases
 * by a hash of their id, so several test files (vitest workers) share the work.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { GenesisAccount, GenesisJson } from "../../../src/chain/genesis.js";
import { FORKS, jsonFilesUnder, manifestRows, sharedFixturesDir, shardOf, type BlobScheduleEntry, type Fork, type Shard } from "../eest/fixtures.js";
import { FORK_KEYS, genesisConfigFor } from "../eest/referenceEngine.js";

/** The fixture folder (see `README.md` there). */
export const FIXTURES_DIR = sharedFixturesDir("eest-blockchain");
/** The folder of the test files inside {@link FIXTURES_DIR}. */
export const TESTS_DIR = path.join(FIXTURES_DIR, "blockchain_tests");

/** The fork folders of the fixtures (the fork whose EIPs the tests are written for). */
export const FOLDERS = ["cancun", "prague", "osaka"] as const;
/** A fork folder. */
export type Folder = (typeof FOLDERS)[number];

/** The blob-parameter-only forks after Osaka the networks name, in order. */
const BPO_FORKS = ["BPO1", "BPO2", "BPO3", "BPO4"] as const;
/** Every fork a case's `network` names, oldest first: the state tests' forks, then the BPO forks. */
export const NETWORK_FORKS: readonly string[] = [...FORKS, ...BPO_FORKS];

/** The timestamp of the second fork of a `…AtTime15k` transition network. */
export const TRANSITION_TIME = 15_000;

/**
 * EIP-6110 deposit contract address of the chain config: Ethereum mainnet's, the one the
 * fixtures' deposit tests deploy code at (geth's and the execution specs' test configurations use it).
 */
export const MAINNET_DEPOSIT_CONTRACT = "0x00000000219ab540356cBB839Cbe05303d7705Fa";

/** An account of `pre` / `postState`, as the fixture's hex strings. */
export interface RawAccount {
  nonce: string;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

/** One entry of `blocks`: a valid block (`blockHeader`) or one that must be rejected (`expectException`). */
export interface RawBlock {
  rlp: string;
  blockHeader?: { hash: string; number: string };
  expectException?: string;
}

/** A `blockchain_test` of a fixture file. */
interface RawBlockchainTest {
  network: string;
  genesisBlockHeader: Record<string, string>;
  pre: Record<string, RawAccount>;
  postState: Record<string, RawAccount>;
  lastblockhash: string;
  config: { network: string; chainid: string; blobSchedule?: Record<string, { target: string; max: string; baseFeeUpdateFraction: string }> };
  blocks: RawBlock[];
}

/** One blockchain-test case: a test of a fixture file. */
export interface BlockchainTestCase {
  /** The test's name (its key in the fixture file: the upstream test id), unique across the fixtures. */
  id: string;
  /** Fixture file, relative to `blockchain_tests/`. */
  file: string;
  folder: Folder;
  /** The fork schedule (`network`), e.g. `Prague` or `PragueToOsakaAtTime15k`. */
  network: string;
  /** The genesis basalt is initialized with. */
  genesis: GenesisJson;
  /** The fixture's genesis block hash (0x, lowercase). */
  genesisHash: string;
  blocks: RawBlock[];
  lastBlockHash: string;
  postState: Record<string, RawAccount>;
}

/** The fork names of a `network`: the one at genesis (with every fork before it), and the one activated at 15k, if any. */
export function networkForks(network: string): { atGenesis: string; atTransition?: string } {
  const m = /^(\w+?)To(\w+)AtTime15k$/.exec(network);
  const known = (name: string): string => {
    if (!NETWORK_FORKS.includes(name)) throw new Error(`unknown network fork ${name} (in ${network})`);
    return name;
  };
  return m === null ? { atGenesis: known(network) } : { atGenesis: known(m[1] as string), atTransition: known(m[2] as string) };
}

/** The `config` key of a fork activated by timestamp (the forks from Shanghai on). */
const timeKey = (fork: string): string => (FORK_KEYS[fork as Fork] ?? [`${fork.toLowerCase()}Time`])[0] as string;

/**
 * The geth-style `config` of a case: the state tests' config of the network's genesis fork (mainnet's
 * forks up to it from genesis, capped at Osaka) with the BPO forks up to it at 0 and the transition's
 * second fork at {@link TRANSITION_TIME}, the chain id, the blob schedule, and the deposit contract.
 */
export function genesisConfig(network: string, chainId: bigint, blobSchedule: RawBlockchainTest["config"]["blobSchedule"]): GenesisJson["config"] {
  const { atGenesis, atTransition } = networkForks(network);
  const schedule: Record<string, BlobScheduleEntry> = {};
  for (const [fork, e] of Object.entries(blobSchedule ?? {})) schedule[fork] = { target: Number(e.target), max: Number(e.max), baseFeeUpdateFraction: Number(e.baseFeeUpdateFraction) };
  const base = (FORKS as readonly string[]).includes(atGenesis) ? (atGenesis as Fork) : "Osaka";
  const config = genesisConfigFor(base, { chainId, blobSchedule: schedule }) as GenesisJson["config"];
  for (const bpo of BPO_FORKS.slice(0, BPO_FORKS.indexOf(atGenesis as (typeof BPO_FORKS)[number]) + 1)) config[timeKey(bpo)] = 0;
  if (atTransition !== undefined) config[timeKey(atTransition)] = TRANSITION_TIME;
  config.depositContractAddress = MAINNET_DEPOSIT_CONTRACT;
  return config;
}

/** The genesis file of a test: `config` from the network, header fields from `genesisBlockHeader`, `alloc` from `pre`. */
export function genesisOf(t: RawBlockchainTest): GenesisJson {
  const h = t.genesisBlockHeader;
  const alloc: Record<string, GenesisAccount> = {};
  for (const [address, a] of Object.entries(t.pre)) alloc[address] = { balance: a.balance, nonce: a.nonce, code: a.code, storage: a.storage };
  const g: GenesisJson = {
    config: genesisConfig(t.network, BigInt(t.config.chainid), t.config.blobSchedule),
    nonce: h.nonce,
    timestamp: h.timestamp,
    extraData: h.extraData,
    gasLimit: h.gasLimit as string,
    difficulty: h.difficulty,
    mixHash: h.mixHash,
    coinbase: h.coinbase,
    number: h.number,
    gasUsed: h.gasUsed,
    parentHash: h.parentHash,
    alloc,
  };
  if (h.baseFeePerGas !== undefined) g.baseFeePerGas = h.baseFeePerGas;
  if (h.excessBlobGas !== undefined) g.excessBlobGas = h.excessBlobGas;
  if (h.blobGasUsed !== undefined) g.blobGasUsed = h.blobGasUsed;
  return g;
}

/** Which cases to load. */
export interface CaseSelection {
  /** Only these fork folders (default: all). */
  folders?: readonly Folder[];
  /** Only this shard (default: all cases). */
  shard?: Shard;
}

/** True when the case (its folder and id) belongs to the selection. */
export function selects(sel: CaseSelection, folder: Folder, id: string): boolean {
  if (sel.folders !== undefined && !sel.folders.includes(folder)) return false;
  return sel.shard === undefined || shardOf(id, sel.shard.count) === sel.shard.index;
}

/** The folder of a fixture file (relative to `blockchain_tests/`). */
export function folderOf(file: string): Folder {
  const f = file.split("/")[0];
  if (!(FOLDERS as readonly string[]).includes(f ?? "")) throw new Error(`${file} is in no fork folder (${FOLDERS.join(", ")})`);
  return f as Folder;
}

/** Every fixture file, relative to `blockchain_tests/`, sorted. Throws when the folder is missing. */
export function fixtureFiles(): string[] {
  return jsonFilesUnder(TESTS_DIR);
}

/** Parses the cases of one fixture file (relative to `blockchain_tests/`) that the selection picks. */
export function casesOfFile(file: string, sel: CaseSelection = {}): BlockchainTestCase[] {
  const folder = folderOf(file);
  if (sel.folders !== undefined && !sel.folders.includes(folder)) return [];
  const json = JSON.parse(readFileSync(path.join(TESTS_DIR, file), "utf8")) as Record<string, RawBlockchainTest>;
  const out: BlockchainTestCase[] = [];
  for (const [id, t] of Object.entries(json)) {
    if (!selects(sel, folder, id)) continue;
    out.push({
      id,
      file,
      folder,
      network: t.network,
      genesis: genesisOf(t),
      genesisHash: (t.genesisBlockHeader.hash as string).toLowerCase(),
      blocks: t.blocks,
      lastBlockHash: t.lastblockhash.toLowerCase(),
      postState: t.postState,
    });
  }
  return out;
}

/** The selected cases, file by file (one parsed file in memory at a time). */
export function* iterateCases(sel: CaseSelection = {}): Generator<BlockchainTestCase> {
  for (const file of fixtureFiles()) yield* casesOfFile(file, sel);
}

/** A line of `MANIFEST.tsv`. */
export interface ManifestEntry {
  /** Path relative to `blockchain_tests/`. */
  file: string;
  sha256: string;
  cases: number;
  blocks: number;
  invalidBlocks: number;
}

/** `MANIFEST.tsv` by file (relative to `blockchain_tests/`). */
export function manifest(): Map<string, ManifestEntry> {
  const out = new Map<string, ManifestEntry>();
  for (const r of manifestRows(path.join(FIXTURES_DIR, "MANIFEST.tsv"), ["path", "sha256", "cases", "blocks", "invalid_blocks"])) {
    const file = r.path.replace(/^blockchain_tests\//, "");
    out.set(file, { file, sha256: r.sha256, cases: Number(r.cases), blocks: Number(r.blocks), invalidBlocks: Number(r.invalid_blocks) });
  }
  return out;
}
