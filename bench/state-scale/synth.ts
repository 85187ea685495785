/**
 * The synthetic state of the scale benchmark, streamed in ascending hashed-key order into
 * `Chain.initWithState` (storage/bulkLoad.ts):
 *
 * - known-preimage accounts, which the blocks and the RPC requests use: {@link SENDER_COUNT}
 *   senders (private keys keccak("basalt-state-scale-sender" ‖ i)) with ETH and tokens, `holders`
 *   holders (addresses keccak("basalt-state-scale-holder" ‖ i)[12..32)) with a little ETH and
 *   tokens, one ERC-20 token ({@link TOKEN_ADDRESS}, runtime `TOKEN_RUNTIME`) whose storage holds
 *   every holder's and sender's balance and the total supply, and the devnet genesis alloc (the
 *   OP predeploys and the dev accounts);
 * - filler accounts with random hashed keys (no preimage), generated already ascending, `contracts`
 *   of them contracts of one shared small code, with slot counts following Zipf's law (α = 1) so
 *   that a few contracts hold most slots, as on a real chain.
 *
 * Everything derives from the seed: the same options give the same state (and state root).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { bigIntToUnpaddedBytes, hexToBytes, privateToAddress } from "@ethereumjs/util";
import { Chain } from "../../src/blockchain/chain.js";
import { devnetGenesis } from "../../src/chain/devnet.js";
import type { BulkAccount, BulkLoadProgress } from "../../src/storage/bulkLoad.js";
import { ChainStore } from "../../src/storage/store.js";
import { BasaltError } from "../../src/util/errors.js";
import { keccak256 } from "../../src/util/keccak.js";
import { OP, TOKEN_RUNTIME, TOTAL_SUPPLY_SLOT, assemble, balanceSlot, push } from "../workload/contracts.js";
import { Rng, ascendingKeys, randomValue, shuffle } from "./rng.js";

/** Senders of the benchmark's transactions: enough that a 200-transaction block uses each at most once per 10 blocks. */
export const SENDER_COUNT = 2000;
/** The benchmark token's address: a fixed, recognisable one (no deployer: it is part of the genesis state). */
export const TOKEN_ADDRESS = hexToBytes("0x5ca1e00000000000000000000000000000000020");
/** ETH of each sender: 1,000 ETH, far more than any run's fees. */
export const SENDER_ETH_WEI = 10n ** 21n;
/** Token balance of each sender: 10^27 units, far more than any run's transfers. */
export const SENDER_TOKENS = 10n ** 27n;
/** ETH of holder i: 10^15 wei + i (distinct per holder, so an answer for the wrong holder is seen). */
const HOLDER_ETH_BASE_WEI = 10n ** 15n;
/** Token balance of holder i: 10^18 + i units (distinct per holder). */
const HOLDER_TOKEN_BASE = 10n ** 18n;
/** Prefix of the preimage of sender i's private key. */
const SENDER_KEY_DOMAIN = new TextEncoder().encode("basalt-state-scale-sender");
/** Prefix of the preimage of holder i's address. */
const HOLDER_DOMAIN = new TextEncoder().encode("basalt-state-scale-holder");
/** Largest filler nonce + 1: filler accounts have sent a few transactions. */
const FILLER_NONCES = 64;
/** Seed of a run unless one is given. */
export const DEFAULT_SEED = 20_250_625;

/**
 * Runtime shared by the filler contracts: returns the storage word at the slot given in the
 * first calldata word (the size of a small real contract is irrelevant to the state; one code
 * entry is stored for all of them).
 */
export const FILLER_RUNTIME: Uint8Array = assemble([push(0), OP.CALLDATALOAD, OP.SLOAD, push(0), OP.MSTORE, push(0x20), push(0), OP.RETURN]);
const FILLER_CODE_HASH = keccak256(FILLER_RUNTIME);
const TOKEN_CODE_HASH = keccak256(TOKEN_RUNTIME);

/** The size of the state to synthesize. */
export interface StateShape {
  /** Accounts in all (known and filler). */
  accounts: number;
  /** Storage slots in all (the token's, the genesis alloc's and the filler contracts'). */
  slots: number;
  /** Filler contracts (the token and the genesis predeploys not counted). */
  contracts: number;
  /** Token holders with known addresses. */
  holders: number;
  /** Senders with known keys (default {@link SENDER_COUNT}). */
  senders: number;
  seed: number;
}

/** Bad options or a state the options cannot give. */
export class StateScaleError extends BasaltError<Record<string, unknown>> {
  constructor(code: "BENCH_STATE_SCALE_SHAPE" | "BENCH_STATE_SCALE_DISK" | "BENCH_STATE_SCALE_COUNTS" | "BENCH_STATE_SCALE_BLOCKS" | "BENCH_STATE_SCALE_CHILD" | "BENCH_STATE_SCALE_RPC" | "BENCH_STATE_SCALE_ARGS", message: string, meta: Record<string, unknown> = {}) {
    super(code, message, meta);
  }
}

/** A sender: address and private key. */
export interface Sender {
  address: Uint8Array;
  key: Uint8Array;
}

function u32be(i: number): Uint8Array {
  return Uint8Array.of(i >>> 24, (i >>> 16) & 0xff, (i >>> 8) & 0xff, i & 0xff);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Sender i's key and address. */
export function senderAt(i: number): Sender {
  const key = keccak256(concat(SENDER_KEY_DOMAIN, u32be(i)));
  return { key, address: privateToAddress(key) };
}

/** Holder i's address: keccak("basalt-state-scale-holder" ‖ i)[12..32). */
export function holderAddress(i: number): Uint8Array {
  return keccak256(concat(HOLDER_DOMAIN, u32be(i))).subarray(12);
}

/** Holder i's synthesized ETH balance. */
export function holderEth(i: number): bigint {
  return HOLDER_ETH_BASE_WEI + BigInt(i);
}

/** Holder i's synthesized token balance. */
export function holderTokens(i: number): bigint {
  return HOLDER_TOKEN_BASE + BigInt(i);
}

/** The token's total supply: every holder's and sender's balance. */
export function tokenSupply(shape: Pick<StateShape, "holders" | "senders">): bigint {
  const h = BigInt(shape.holders);
  return h * HOLDER_TOKEN_BASE + (h * (h - 1n)) / 2n + BigInt(shape.senders) * SENDER_TOKENS;
}

/** The devnet genesis alloc as bulk accounts (hashed, values stripped, zero slots dropped), unsorted. */
function allocAccounts(): BulkAccount[] {
  const out: BulkAccount[] = [];
  for (const [address, a] of Object.entries(devnetGenesis().alloc)) {
    const code = a.code === undefined ? undefined : hexToBytes(a.code as `0x${string}`);
    const storage = Object.entries(a.storage ?? {})
      .map(([k, v]) => ({ hashedSlot: keccak256(hexToBytes(k as `0x${string}`)), value: bigIntToUnpaddedBytes(BigInt(v)) }))
      .filter((s) => s.value.length > 0)
      .sort((x, y) => Buffer.compare(x.hashedSlot, y.hashedSlot));
    out.push({
      hashedAddress: keccak256(hexToBytes(address as `0x${string}`)),
      nonce: BigInt(a.nonce ?? "0x0"),
      balance: BigInt(a.balance ?? "0x0"),
      ...(code === undefined || code.length === 0 ? {} : { code, codeHash: keccak256(code) }),
      ...(storage.length === 0 ? {} : { storage }),
    });
  }
  return out;
}

/**
 * 32-byte keys held in one buffer, with their order: `order[r]` is the index of the r-th smallest.
 * (Millions of keys: one buffer and two typed arrays instead of millions of small objects.)
 */
interface SortedKeys {
  keys: Buffer;
  order: Uint32Array;
}

function sortKeys(keys: Buffer): SortedKeys {
  const n = keys.length / 32;
  const prefix = new Float64Array(n);
  for (let i = 0; i < n; i++) prefix[i] = keys.readUIntBE(i * 32, 6);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => prefix[a]! - prefix[b]! || keys.compare(keys, b * 32, b * 32 + 32, a * 32, a * 32 + 32));
  for (let r = 1; r < n; r++) {
    if (keys.compare(keys, order[r - 1]! * 32, order[r - 1]! * 32 + 32, order[r]! * 32, order[r]! * 32 + 32) === 0) {
      throw new StateScaleError("BENCH_STATE_SCALE_SHAPE", `two known accounts or slots share the hashed key 0x${keys.toString("hex", order[r]! * 32, order[r]! * 32 + 32)}: expected distinct keys`);
    }
  }
  return { keys, order };
}

/** How many slots each filler contract holds: Zipf (α = 1) over `contracts` ranks, summing to `total`, each ≥ 1, in seeded random order. */
export function zipfSlotCounts(contracts: number, total: number, rng: Rng): number[] {
  if (contracts === 0) return [];
  let harmonic = 0;
  for (let r = 1; r <= contracts; r++) harmonic += 1 / r;
  const counts: number[] = [];
  let sum = 0;
  for (let r = 1; r <= contracts; r++) {
    const c = Math.max(1, Math.floor(total / (r * harmonic)));
    counts.push(c);
    sum += c;
  }
  // The floors leave a remainder (spread over the top ranks); the floor of 1 may overshoot (taken from the largest).
  for (let r = 0; sum < total; r = (r + 1) % contracts, sum++) counts[r]!++;
  for (let r = 0; sum > total; sum--) {
    while (counts[r]! <= 1) r++;
    counts[r]!--;
  }
  return shuffle(rng, counts);
}

/** The derived parts of a state: what the stream holds, counted. */
export interface StatePlan {
  shape: StateShape;
  senders: Sender[];
  /** Slots of the token: one per holder and sender, and the total supply. */
  tokenSlots: number;
  allocAccounts: number;
  allocSlots: number;
  /** Accounts with random keys. */
  fillerAccounts: number;
  /** Slots of the filler contracts, in the contracts' key order. */
  fillerSlotCounts: number[];
}

/**
 * Derives the plan of a state from its shape (senders' keys, counts).
 * @throws StateScaleError `BENCH_STATE_SCALE_SHAPE` when the counts cannot add up: fewer accounts
 *   than the known ones plus the filler contracts, or fewer slots than the token's and the
 *   alloc's plus one per filler contract.
 */
export function planState(shape: StateShape): StatePlan {
  for (const [name, v] of Object.entries(shape)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new StateScaleError("BENCH_STATE_SCALE_SHAPE", `${name} ${v}: a non-negative integer expected`, { option: name });
  }
  if (shape.senders < 1) throw new StateScaleError("BENCH_STATE_SCALE_SHAPE", "senders 0: at least one sender expected", { option: "senders" });
  const alloc = allocAccounts();
  const allocSlots = alloc.reduce((s, a) => s + ((a.storage as unknown[] | undefined)?.length ?? 0), 0);
  const known = shape.senders + shape.holders + 1 + alloc.length;
  const tokenSlots = shape.holders + shape.senders + 1;
  const fillerAccounts = shape.accounts - known;
  const fillerSlots = shape.slots - tokenSlots - allocSlots;
  if (fillerAccounts < shape.contracts) {
    throw new StateScaleError(
      "BENCH_STATE_SCALE_SHAPE",
      `${shape.accounts} accounts cannot hold ${shape.senders} senders, ${shape.holders} holders, the token, ${alloc.length} genesis accounts and ${shape.contracts} filler contracts: at least ${known + shape.contracts} expected`,
      { option: "accounts" },
    );
  }
  if (fillerSlots < shape.contracts || (shape.contracts === 0 && fillerSlots !== 0)) {
    throw new StateScaleError(
      "BENCH_STATE_SCALE_SHAPE",
      `${shape.slots} slots cannot hold the token's ${tokenSlots}, the genesis alloc's ${allocSlots} and ${shape.contracts} filler contracts with at least one each: ` +
        (shape.contracts === 0 ? `exactly ${tokenSlots + allocSlots} expected without filler contracts` : `at least ${tokenSlots + allocSlots + shape.contracts} expected`),
      { option: "slots" },
    );
  }
  const senders: Sender[] = [];
  for (let i = 0; i < shape.senders; i++) senders.push(senderAt(i));
  return {
    shape,
    senders,
    tokenSlots,
    allocAccounts: alloc.length,
    allocSlots,
    fillerAccounts,
    fillerSlotCounts: zipfSlotCounts(shape.contracts, fillerSlots, new Rng(shape.seed, 3)),
  };
}

/** Tags of the known accounts: holder i is i; the others are negative. */
const TOKEN_TAG = -1;
const senderTag = (j: number): number => -2 - j;
/** The token's total-supply slot among its slots. */
const SUPPLY_TAG = -1;

/** The token's slots (hashed, ascending) with their stripped values, generated from the sorted keys. */
function* tokenStorage(plan: StatePlan, sorted: SortedKeys, tags: Int32Array): Generator<{ hashedSlot: Uint8Array; value: Uint8Array }> {
  const supply = bigIntToUnpaddedBytes(tokenSupply(plan.shape));
  const sender = bigIntToUnpaddedBytes(SENDER_TOKENS);
  for (let r = 0; r < sorted.order.length; r++) {
    const i = sorted.order[r]!;
    const tag = tags[i]!;
    const value = tag >= 0 ? bigIntToUnpaddedBytes(holderTokens(tag)) : tag === SUPPLY_TAG ? supply : sender;
    yield { hashedSlot: sorted.keys.subarray(i * 32, i * 32 + 32), value };
  }
}

/** The known accounts, ascending by hashed address. */
function* knownAccounts(plan: StatePlan): Generator<BulkAccount> {
  const { holders, senders } = plan.shape;
  const alloc = allocAccounts();
  const n = holders + senders + 1 + alloc.length;
  const keys = Buffer.alloc(n * 32);
  const tags = new Int32Array(n);
  let k = 0;
  for (let i = 0; i < holders; i++, k++) {
    keys.set(keccak256(holderAddress(i)), k * 32);
    tags[k] = i;
  }
  for (let j = 0; j < senders; j++, k++) {
    keys.set(keccak256(plan.senders[j]!.address), k * 32);
    tags[k] = senderTag(j);
  }
  keys.set(keccak256(TOKEN_ADDRESS), k * 32);
  tags[k++] = TOKEN_TAG;
  const allocBase = k;
  for (const a of alloc) keys.set(a.hashedAddress, 32 * k++);
  const sorted = sortKeys(keys);

  // The token's slots: balances of every holder and sender, and the total supply.
  const slotKeys = Buffer.alloc(plan.tokenSlots * 32);
  const slotTags = new Int32Array(plan.tokenSlots);
  let s = 0;
  for (let i = 0; i < holders; i++, s++) {
    slotKeys.set(keccak256(balanceSlot(holderAddress(i))), s * 32);
    slotTags[s] = i;
  }
  for (let j = 0; j < senders; j++, s++) {
    slotKeys.set(keccak256(balanceSlot(plan.senders[j]!.address)), s * 32);
    slotTags[s] = senderTag(j);
  }
  const supplySlot = new Uint8Array(32);
  supplySlot[31] = TOTAL_SUPPLY_SLOT;
  slotKeys.set(keccak256(supplySlot), s * 32);
  slotTags[s] = SUPPLY_TAG;
  const tokenSlots = sortKeys(slotKeys);

  for (let r = 0; r < n; r++) {
    const i = sorted.order[r]!;
    const hashedAddress = keys.subarray(i * 32, i * 32 + 32);
    if (i >= allocBase) yield alloc[i - allocBase]!;
    else if (tags[i]! >= 0) yield { hashedAddress, nonce: 0n, balance: holderEth(tags[i]!) };
    else if (tags[i] === TOKEN_TAG) yield { hashedAddress, nonce: 1n, balance: 0n, codeHash: TOKEN_CODE_HASH, code: TOKEN_RUNTIME, storage: tokenStorage(plan, tokenSlots, slotTags) };
    else yield { hashedAddress, nonce: 0n, balance: SENDER_ETH_WEI };
  }
}

/** A random filler balance: up to 2^64 wei (0 for a quarter of them: emptied accounts). */
function fillerBalance(rng: Rng): bigint {
  if (rng.int(4) === 0) return 0n;
  return (BigInt(rng.u32()) << 32n) | BigInt(rng.u32());
}

/** The filler contract's slots: `count` ascending random hashed slots with random 1–8 byte values. */
function* fillerStorage(seed: number, contract: number, count: number): Generator<{ hashedSlot: Uint8Array; value: Uint8Array }> {
  const rng = new Rng(seed, 1_000_000 + contract);
  const values = new Rng(seed, 2_000_000 + contract);
  for (const hashedSlot of ascendingKeys(rng, count)) yield { hashedSlot, value: randomValue(values) };
}

/** The filler accounts, ascending: contracts evenly spread among them (contract c at index ⌊(c + ½)·F/K⌋). */
function* fillerAccounts(plan: StatePlan): Generator<BulkAccount> {
  const f = plan.fillerAccounts;
  const k = plan.fillerSlotCounts.length;
  const fields = new Rng(plan.shape.seed, 2);
  let c = 0;
  let nextContract = k === 0 ? -1 : Math.floor((0.5 * f) / k);
  let j = 0;
  for (const hashedAddress of ascendingKeys(new Rng(plan.shape.seed, 1), f)) {
    if (j++ === nextContract) {
      const count = plan.fillerSlotCounts[c]!;
      yield { hashedAddress, nonce: 1n, balance: fillerBalance(fields), codeHash: FILLER_CODE_HASH, code: FILLER_RUNTIME, storage: fillerStorage(plan.shape.seed, c, count) };
      c++;
      nextContract = c < k ? Math.floor(((c + 0.5) * f) / k) : -1;
    } else {
      yield { hashedAddress, nonce: BigInt(fields.int(FILLER_NONCES)), balance: fillerBalance(fields) };
    }
  }
}

/** The whole state, ascending by hashed address: the known accounts merged with the filler. */
export function* stateStream(plan: StatePlan): Generator<BulkAccount> {
  const known = knownAccounts(plan);
  const filler = fillerAccounts(plan);
  let a = known.next();
  let b = filler.next();
  while (a.done !== true || b.done !== true) {
    if (b.done === true) {
      yield a.value as BulkAccount;
      a = known.next();
      continue;
    }
    if (a.done === true) {
      yield b.value;
      b = filler.next();
      continue;
    }
    const cmp = Buffer.compare(a.value.hashedAddress, b.value.hashedAddress);
    if (cmp === 0) throw new StateScaleError("BENCH_STATE_SCALE_SHAPE", "a random filler key equals a known account's hashed address: change the seed");
    if (cmp < 0) {
      yield a.value;
      a = known.next();
    } else {
      yield b.value;
      b = filler.next();
    }
  }
}

/** Pages and entries of one LMDB sub-database. */
export interface TableSize {
  entries: number;
  /** (branch + leaf + overflow pages) × page size: the bytes the table occupies in data.mdb. */
  bytes: number;
  branchPages: number;
  leafPages: number;
  overflowPages: number;
  depth: number;
}

/** The sub-databases of the state, measured. */
const STATE_TABLES = ["hashedAccounts", "hashedStorage", "accountTrie", "storageTrie", "code", "accountHistory", "storageHistory", "changeSets"] as const;
export type StateTable = (typeof STATE_TABLES)[number];

/** Bytes on disk of a file: allocated blocks × 512 (a sparse LMDB map counts only what is written). */
export function diskBytes(file: string): number {
  return statSync(file).blocks * 512;
}

/** The chain store's data file in `datadir`. */
export function dataFile(datadir: string): string {
  return join(datadir, "chain", "data.mdb");
}

/** Per-table sizes of a closed datadir, exact from LMDB's own statistics (mdb_stat). */
export async function tableSizes(datadir: string): Promise<Record<StateTable, TableSize>> {
  const store = ChainStore.open(datadir, { readOnly: true });
  try {
    const out = {} as Record<StateTable, TableSize>;
    for (const t of STATE_TABLES) {
      const s = store[t].getStats() as { pageSize: number; treeDepth: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number; entryCount: number };
      out[t] = {
        entries: s.entryCount,
        bytes: (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize,
        branchPages: s.treeBranchPageCount,
        leafPages: s.treeLeafPageCount,
        overflowPages: s.overflowPages,
        depth: s.treeDepth,
      };
    }
    return out;
  } finally {
    await store.close();
  }
}

/** What a synthesis gave and cost. */
export interface SynthResult {
  stateRoot: string;
  genesisHash: string;
  accounts: number;
  slots: number;
  seconds: number;
  accountsPerSecond: number;
  /** data.mdb's allocated bytes. */
  dataBytes: number;
  tables: Record<StateTable, TableSize>;
  /** (hashedAccounts + accountTrie) bytes per account. */
  bytesPerAccount: number;
  /** (hashedStorage + storageTrie) bytes per slot. */
  bytesPerSlot: number;
  /** data.mdb bytes per (account + slot) entry: everything included (free pages, meta, code, the genesis block). */
  bytesPerEntry: number;
}

/**
 * Writes the planned state as the genesis of a new datadir (`Chain.initWithState`, the JSON's
 * alloc replaced by the stream) and measures it.
 * @throws StateScaleError `BENCH_STATE_SCALE_COUNTS` when the loader counted other totals than planned.
 */
export async function synthesize(datadir: string, plan: StatePlan, onProgress?: (p: BulkLoadProgress) => void): Promise<SynthResult> {
  const t0 = performance.now();
  const r = await Chain.initWithState(datadir, devnetGenesis(), stateStream(plan), { archive: false, onProgress });
  const seconds = (performance.now() - t0) / 1000;
  if (r.accounts !== plan.shape.accounts || r.slots !== plan.shape.slots) {
    throw new StateScaleError(
      "BENCH_STATE_SCALE_COUNTS",
      `the synthesized state holds ${r.accounts} accounts and ${r.slots} slots: ${plan.shape.accounts} and ${plan.shape.slots} expected`,
    );
  }
  const tables = await tableSizes(datadir);
  const dataBytes = diskBytes(dataFile(datadir));
  return {
    stateRoot: Buffer.from(r.stateRoot).toString("hex"),
    genesisHash: Buffer.from(r.hash).toString("hex"),
    accounts: r.accounts,
    slots: r.slots,
    seconds,
    accountsPerSecond: r.accounts / seconds,
    dataBytes,
    tables,
    bytesPerAccount: (tables.hashedAccounts.bytes + tables.accountTrie.bytes) / r.accounts,
    bytesPerSlot: r.slots === 0 ? 0 : (tables.hashedStorage.bytes + tables.storageTrie.bytes) / r.slots,
    bytesPerEntry: dataBytes / (r.accounts + r.slots),
  };
}
