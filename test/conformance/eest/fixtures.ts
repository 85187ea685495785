/**
 * Ethereum state tests (EEST v5.4.0, `state_test` format) loaded into one self-contained
 * {@link StateTestCase} per `post[fork][]` entry.
 *
 * The fixtures are read from `../shared/fixtures/eest` relative to the repository root (never
 * copied into the repository). A case carries everything an engine needs: the block
 * environment, the pre-state, the transaction resolved by the entry's data/gas/value indexes
 * (also as the signed `txbytes` the fixture gives), the expected post-state root and logs
 * hash, and the expected rejection when the transaction is invalid.
 *
 * Cases are produced file by file ({@link iterateCases}) so a run holds one parsed file at a
 * time; {@link shard} splits the cases of a run into disjoint, stable parts by a hash of the
 * case id, so several test files (vitest workers) can share the work.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The forks the fixtures hold entries for, oldest first. */
export const FORKS = ["Berlin", "London", "Paris", "Shanghai", "Cancun", "Prague", "Osaka"] as const;
/** A fork of a `post` entry. */
export type Fork = (typeof FORKS)[number];

/** Repository root (this file is test/conformance/eest/fixtures.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/**
 * The repository's main checkout: the root itself, or for a linked git worktree (whose `.git`
 * is a file `gitdir: <main>/.git/worktrees/<name>`) the main worktree it belongs to.
 */
function mainCheckout(root: string): string {
  try {
    const dotGit = path.join(root, ".git");
    if (!statSync(dotGit).isFile()) return root;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
    const gitdir = m?.[1] === undefined ? undefined : path.resolve(root, m[1]);
    return gitdir !== undefined && path.basename(path.dirname(gitdir)) === "worktrees" ? path.dirname(path.dirname(path.dirname(gitdir))) : root;
  } catch {
    return root;
  }
}

/**
 * A shared fixture folder: `../shared/fixtures/<name>` relative to the repository root (from a
 * linked git worktree, relative to its main checkout when the worktree has no such sibling).
 */
export function sharedFixturesDir(name: string): string {
  const own = path.resolve(REPO_ROOT, "../shared/fixtures", name);
  if (existsSync(own)) return own;
  const main = path.resolve(mainCheckout(REPO_ROOT), "../shared/fixtures", name);
  return existsSync(main) ? main : own;
}

/** The fixture folder of the state tests: `../shared/fixtures/eest` (see {@link sharedFixturesDir}). */
export const FIXTURES_DIR = sharedFixturesDir("eest");
/** The folder of the state-test JSON files inside {@link FIXTURES_DIR}. */
export const STATE_TESTS_DIR = path.join(FIXTURES_DIR, "state_tests");

/** An account of the pre-state. */
export interface PreAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  /** Storage slots (32-byte keys) and values (minimal big-endian, empty = zero), zero values left out. */
  storage: Array<[key: Uint8Array, value: Uint8Array]>;
}

/** The block environment of a state test (`env`). */
export interface StateTestEnv {
  coinbase: Uint8Array;
  gasLimit: bigint;
  number: bigint;
  timestamp: bigint;
  difficulty: bigint;
  /** `currentRandom` (the header's mixHash after the merge); absent before Paris. */
  prevRandao?: Uint8Array;
  /** `currentBaseFee`; absent before London. */
  baseFee?: bigint;
  /** `currentExcessBlobGas`; absent before Cancun. */
  excessBlobGas?: bigint;
}

/** One access-list entry. */
export interface AccessListItem {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** One EIP-7702 authorization tuple. */
export interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
  /** The signer the fixture states (absent for deliberately unrecoverable tuples). */
  signer?: Uint8Array;
}

/**
 * The transaction of a case, resolved by the entry's indexes. The signed encoding of the same
 * transaction is {@link StateTestCase.txbytes}; these fields are its unpacked form.
 */
export interface StateTestTx {
  /** EIP-2718 type implied by the fields present: 0 legacy, 1 access list, 2 fee market, 3 blob, 4 set code. */
  type: 0 | 1 | 2 | 3 | 4;
  nonce: bigint;
  gasLimit: bigint;
  /** Recipient; undefined for a contract creation. */
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  /** The access list of the data index (types 1 to 4). */
  accessList?: AccessListItem[];
  maxFeePerBlobGas?: bigint;
  blobVersionedHashes?: Uint8Array[];
  authorizationList?: Authorization[];
  sender: Uint8Array;
  secretKey: Uint8Array;
}

/** A blob schedule entry of the fixture `config`. */
export interface BlobScheduleEntry {
  target: number;
  max: number;
  baseFeeUpdateFraction: number;
}

/** The fixture `config`. */
export interface StateTestConfig {
  chainId: bigint;
  /** Blob parameters by fork name as the fixture spells it (e.g. "Cancun"); empty before Cancun. */
  blobSchedule: Record<string, BlobScheduleEntry>;
}

/** An account of the expected post-state (`post[fork][i].state`), kept as the fixture's hex strings. */
export interface RawPostAccount {
  nonce: string;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

/** The indexes of a post entry into `transaction.data`/`gasLimit`/`value`. */
export interface CaseIndexes {
  data: number;
  gas: number;
  value: number;
}

/** One state-test case: one `post[fork][]` entry of one test. */
export interface StateTestCase {
  /** `<file>::<test name>::<fork>::d<data>g<gas>v<value>`, unique across the fixtures. */
  id: string;
  /** Fixture file, relative to `state_tests/`. */
  file: string;
  /** Test name (the key in the fixture file). */
  name: string;
  fork: Fork;
  indexes: CaseIndexes;
  env: StateTestEnv;
  /** Pre-state by lowercase `0x` address. */
  pre: Map<string, PreAccount>;
  tx: StateTestTx;
  /** The signed transaction (EIP-2718 envelope or legacy RLP). */
  txbytes: Uint8Array;
  /** Expected state root after the transaction (the pre-state root when it is rejected). */
  expectedRoot: Uint8Array;
  /** Expected keccak256(rlp(logs)). */
  expectedLogsHash: Uint8Array;
  /** The exception(s) the transaction must be rejected with (`A|B` = either), when invalid. */
  expectException?: string;
  config: StateTestConfig;
  /** The expected post-state as the fixture lists it (for diagnosing failures). */
  expectedState: Record<string, RawPostAccount>;
}

// ---- raw fixture JSON ------------------------------------------------------------------

interface RawAccount {
  nonce: string;
  balance: string;
  code: string;
  storage: Record<string, string>;
}
interface RawAuthorization {
  chainId: string;
  address: string;
  nonce: string;
  v?: string;
  yParity?: string;
  r: string;
  s: string;
  signer?: string;
}
interface RawAccessListItem {
  address: string;
  storageKeys: string[];
}
interface RawTransaction {
  nonce: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  gasLimit: string[];
  to: string;
  value: string[];
  data: string[];
  accessLists?: Array<RawAccessListItem[] | null>;
  maxFeePerBlobGas?: string;
  blobVersionedHashes?: string[];
  authorizationList?: RawAuthorization[];
  sender: string;
  secretKey: string;
}
interface RawPostEntry {
  hash: string;
  logs: string;
  txbytes: string;
  indexes: CaseIndexes;
  state: Record<string, RawPostAccount>;
  expectException?: string;
}
interface RawStateTest {
  env: Record<string, string>;
  pre: Record<string, RawAccount>;
  transaction: RawTransaction;
  post: Record<string, RawPostEntry[]>;
  config: { chainid: string; blobSchedule?: Record<string, { target: string; max: string; baseFeeUpdateFraction: string }> };
}

// ---- hex helpers ---------------------------------------------------------------------------

/** Bytes of a `0x` hex string (odd lengths get a leading zero nibble). */
export function hexBytes(h: string): Uint8Array {
  if (!h.startsWith("0x")) throw new Error(`not 0x-prefixed hex: ${h.slice(0, 40)}`);
  const body = h.length % 2 === 0 ? h.slice(2) : "0" + h.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(body)) throw new Error(`invalid hex: ${h.slice(0, 40)}`);
  return new Uint8Array(Buffer.from(body, "hex"));
}

/** `0x` hex of bytes. */
export function toHex(b: Uint8Array): string {
  return "0x" + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

function big(h: string): bigint {
  if (!h.startsWith("0x")) throw new Error(`not 0x-prefixed hex: ${h.slice(0, 40)}`);
  return h === "0x" ? 0n : BigInt(h);
}

function word(h: string): Uint8Array {
  const b = hexBytes(h);
  if (b.length > 32) throw new Error(`more than 32 bytes: ${h}`);
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

function minimal(h: string): Uint8Array {
  const b = hexBytes(h);
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

function address(h: string): Uint8Array {
  const b = hexBytes(h);
  if (b.length !== 20) throw new Error(`not a 20-byte address: ${h}`);
  return b;
}

// ---- parsing -------------------------------------------------------------------------------

function parseEnv(env: Record<string, string>): StateTestEnv {
  const need = (k: string): string => {
    const v = env[k];
    if (v === undefined) throw new Error(`env.${k} missing`);
    return v;
  };
  return {
    coinbase: address(need("currentCoinbase")),
    gasLimit: big(need("currentGasLimit")),
    number: big(need("currentNumber")),
    timestamp: big(need("currentTimestamp")),
    difficulty: big(need("currentDifficulty")),
    prevRandao: env.currentRandom === undefined ? undefined : word(env.currentRandom),
    baseFee: env.currentBaseFee === undefined ? undefined : big(env.currentBaseFee),
    excessBlobGas: env.currentExcessBlobGas === undefined ? undefined : big(env.currentExcessBlobGas),
  };
}

function parsePre(pre: Record<string, RawAccount>): Map<string, PreAccount> {
  const out = new Map<string, PreAccount>();
  for (const [addr, a] of Object.entries(pre)) {
    const storage: Array<[Uint8Array, Uint8Array]> = [];
    for (const [k, v] of Object.entries(a.storage)) {
      const value = minimal(v);
      if (value.length > 0) storage.push([word(k), value]);
    }
    out.set(toHex(address(addr)), { nonce: big(a.nonce), balance: big(a.balance), code: hexBytes(a.code), storage });
  }
  return out;
}

function parseConfig(config: RawStateTest["config"]): StateTestConfig {
  const blobSchedule: Record<string, BlobScheduleEntry> = {};
  for (const [fork, e] of Object.entries(config.blobSchedule ?? {})) {
    blobSchedule[fork] = { target: Number(big(e.target)), max: Number(big(e.max)), baseFeeUpdateFraction: Number(big(e.baseFeeUpdateFraction)) };
  }
  return { chainId: big(config.chainid), blobSchedule };
}

function parseAccessList(list: RawAccessListItem[] | null | undefined): AccessListItem[] {
  return (list ?? []).map((i) => ({ address: address(i.address), storageKeys: i.storageKeys.map(word) }));
}

function parseAuthorization(a: RawAuthorization): Authorization {
  const parity = a.yParity ?? a.v;
  if (parity === undefined) throw new Error("authorization without yParity/v");
  return {
    chainId: big(a.chainId),
    address: address(a.address),
    nonce: big(a.nonce),
    yParity: big(parity),
    r: big(a.r),
    s: big(a.s),
    signer: a.signer === undefined ? undefined : address(a.signer),
  };
}

function at<T>(list: T[], i: number, what: string): T {
  if (i < 0 || i >= list.length) throw new Error(`${what} index ${i} out of range (${list.length})`);
  return list[i] as T;
}

/** The transaction of a post entry: `data`, `gasLimit`, `value` and the access list picked by `indexes`. */
export function resolveTransaction(t: RawTransaction, indexes: CaseIndexes): StateTestTx {
  const type: StateTestTx["type"] =
    t.authorizationList !== undefined ? 4
    : t.blobVersionedHashes !== undefined ? 3
    : t.maxFeePerGas !== undefined ? 2
    : t.accessLists !== undefined ? 1
    : 0;
  const tx: StateTestTx = {
    type,
    nonce: big(t.nonce),
    gasLimit: big(at(t.gasLimit, indexes.gas, "gasLimit")),
    to: t.to === "" ? undefined : address(t.to),
    value: big(at(t.value, indexes.value, "value")),
    data: hexBytes(at(t.data, indexes.data, "data")),
    sender: address(t.sender),
    secretKey: hexBytes(t.secretKey),
  };
  if (t.gasPrice !== undefined) tx.gasPrice = big(t.gasPrice);
  if (t.maxFeePerGas !== undefined) tx.maxFeePerGas = big(t.maxFeePerGas);
  if (t.maxPriorityFeePerGas !== undefined) tx.maxPriorityFeePerGas = big(t.maxPriorityFeePerGas);
  if (t.accessLists !== undefined) tx.accessList = parseAccessList(at(t.accessLists, indexes.data, "accessLists"));
  if (t.maxFeePerBlobGas !== undefined) tx.maxFeePerBlobGas = big(t.maxFeePerBlobGas);
  if (t.blobVersionedHashes !== undefined) tx.blobVersionedHashes = t.blobVersionedHashes.map(word);
  if (t.authorizationList !== undefined) tx.authorizationList = t.authorizationList.map(parseAuthorization);
  return tx;
}

function isFork(f: string): f is Fork {
  return (FORKS as readonly string[]).includes(f);
}

/** The id of a case. */
export function caseId(file: string, name: string, fork: string, ix: CaseIndexes): string {
  return `${file}::${name}::${fork}::d${ix.data}g${ix.gas}v${ix.value}`;
}

// ---- selection ---------------------------------------------------------------------------

/** A part of a run: the cases whose id hashes to `index` modulo `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Shard `index` of `count` (0-based). */
export function shard(index: number, count: number): Shard {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new Error(`invalid shard ${index}/${count}`);
  }
  return { index, count };
}

/** The shard index (0 ≤ i < count) of a case id: stable across runs, machines and fixture order. */
export function shardOf(id: string, count: number): number {
  if (count === 1) return 0;
  return createHash("sha256").update(id).digest().readUInt32BE(0) % count;
}

/** Which cases to load. */
export interface CaseSelection {
  /** Only these forks (default: all). */
  forks?: readonly Fork[];
  /** Only this shard (default: all cases). */
  shard?: Shard;
}

/** True when the case id belongs to the selection (fork given separately, as ids embed it). */
export function selects(sel: CaseSelection, fork: Fork, id: string): boolean {
  if (sel.forks !== undefined && !sel.forks.includes(fork)) return false;
  return sel.shard === undefined || shardOf(id, sel.shard.count) === sel.shard.index;
}

/** A line of `MANIFEST.tsv`. */
export interface ManifestEntry {
  /** Path relative to `state_tests/`. */
  file: string;
  bytes: number;
  postCases: number;
  forks: string[];
  sha256: string;
}

let manifestCache: Map<string, ManifestEntry> | undefined;

/** The rows of a tab-separated manifest (first line: column names), each as the named columns' values. Throws on a missing column. */
export function manifestRows<C extends string>(file: string, columns: readonly C[]): Array<Record<C, string>> {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0);
  const header = (lines.shift() ?? "").split("\t");
  const index = columns.map((name) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${path.basename(file)} has no ${name} column`);
    return i;
  });
  return lines.map((line) => {
    const f = line.split("\t");
    return Object.fromEntries(columns.map((c, i) => [c, f[index[i] as number] ?? ""])) as Record<C, string>;
  });
}

/** `MANIFEST.tsv` by file (relative to `state_tests/`). */
export function manifest(): Map<string, ManifestEntry> {
  if (manifestCache !== undefined) return manifestCache;
  const out = new Map<string, ManifestEntry>();
  for (const r of manifestRows(path.join(FIXTURES_DIR, "MANIFEST.tsv"), ["path", "bytes", "post_cases", "forks", "sha256"])) {
    const file = r.path.replace(/^state_tests\//, "");
    out.set(file, { file, bytes: Number(r.bytes), postCases: Number(r.post_cases), forks: r.forks.split(","), sha256: r.sha256 });
  }
  manifestCache = out;
  return out;
}

/** Every `.json` file below `root`, relative to it, sorted. Throws when the folder is missing. */
export function jsonFilesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      const r = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && e.name.endsWith(".json")) out.push(r);
    }
  };
  walk("");
  return out.sort();
}

/** Every fixture file, relative to `state_tests/`, sorted. Throws when the folder is missing. */
export function fixtureFiles(): string[] {
  return jsonFilesUnder(STATE_TESTS_DIR);
}

/** Parses the cases of one fixture file (relative to `state_tests/`) that the selection picks. */
export function casesOfFile(file: string, sel: CaseSelection = {}): StateTestCase[] {
  const json = JSON.parse(readFileSync(path.join(STATE_TESTS_DIR, file), "utf8")) as Record<string, RawStateTest>;
  const out: StateTestCase[] = [];
  for (const [name, t] of Object.entries(json)) {
    let env: StateTestEnv | undefined;
    let pre: Map<string, PreAccount> | undefined;
    let config: StateTestConfig | undefined;
    for (const [fork, entries] of Object.entries(t.post)) {
      if (!isFork(fork)) throw new Error(`${file} ${name}: unknown fork ${fork}`);
      for (const e of entries) {
        const id = caseId(file, name, fork, e.indexes);
        if (!selects(sel, fork, id)) continue;
        // Parsed once per test, shared by its cases (engines must not mutate cases).
        env ??= parseEnv(t.env);
        pre ??= parsePre(t.pre);
        config ??= parseConfig(t.config);
        out.push({
          id,
          file,
          name,
          fork,
          indexes: { data: e.indexes.data, gas: e.indexes.gas, value: e.indexes.value },
          env,
          pre,
          tx: resolveTransaction(t.transaction, e.indexes),
          txbytes: hexBytes(e.txbytes),
          expectedRoot: hexBytes(e.hash),
          expectedLogsHash: hexBytes(e.logs),
          expectException: e.expectException,
          config,
          expectedState: e.state,
        });
      }
    }
  }
  return out;
}

/**
 * The selected cases, one fixture file at a time (file order, then the file's order). Files
 * the manifest lists without any selected fork are not parsed; files missing from the
 * manifest always are.
 */
export function* iterateCases(sel: CaseSelection = {}): Generator<StateTestCase> {
  const m = manifest();
  for (const file of fixtureFiles()) {
    const forks = m.get(file)?.forks;
    if (sel.forks !== undefined && forks !== undefined && !forks.some((f) => (sel.forks as readonly string[]).includes(f))) continue;
    yield* casesOfFile(file, sel);
  }
}

/** All selected cases in one array (holds every parsed case: prefer {@link iterateCases} for runs). */
export function loadCases(sel: CaseSelection = {}): StateTestCase[] {
  return [...iterateCases(sel)];
}
