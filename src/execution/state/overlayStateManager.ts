/**
 * A journaled state overlay over a {@link StateReader}: the @ethereumjs StateManager that
 * basalt's EVM runs against. Reads fall through to the flat state (no trie walk); writes
 * stay in memory, journaled for the EVM's checkpoint/commit/revert. The state root is
 * computed incrementally from the dirty accounts and slots (also mid-block, for
 * pre-Byzantium receipts), and {@link OverlayStateManager.changes} yields exactly what a
 * block changed, which the store commits as flat state, history and change sets.
 */
import { RLP } from "@ethereumjs/rlp";
import type { AccountFields, StateManagerInterface } from "@ethereumjs/common";
import {
  Account,
  Address,
  KECCAK256_NULL,
  KECCAK256_RLP,
  equalsBytes,
} from "@ethereumjs/util";
import { keccak256 } from "../../util/keccak.js";
import type { AccountChange, StorageChange } from "../../storage/store.js";
import type { StateTries } from "../../storage/trie/stateTries.js";
import { updateTrie, type TrieChange } from "../../storage/trie/update.js";
import { hashAddress } from "../../storage/hashedKeys.js";
import type { StateReader } from "./stateReader.js";
import { slimAccountRlp } from "./accountRlp.js";

const EMPTY = new Uint8Array(0);
/**
 * Storage root given to accounts whose storage the fast EVM wrote (keccak256 of the ASCII string
 * "basalt: storage written"): a non-empty marker for collision checks until the real root is
 * computed by {@link OverlayStateManager.getStateRoot}, which never reads it.
 */
const STORAGE_WRITTEN_ROOT = keccak256(new TextEncoder().encode("basalt: storage written"));

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}
function unhex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h, "hex"));
}
function strip(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return i === 0 ? v : v.subarray(i);
}
/**
 * A copy of `a` (its root and code hash arrays shared: never mutated). Through the constructor:
 * `createAccount` round-trips every bigint through hex and bytes (2.8 % of an ERC-20 import
 * profile).
 */
function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

/** Hook to list the base state's storage slots of an account, by hashed address and hashed slot (needed to record clears). */
type StorageEnumerator = (hashedAddress: Uint8Array) => Iterable<{ hashedSlot: Uint8Array; value: Uint8Array }>;

/** The StateManager implementation over flat state. */
export class OverlayStateManager implements StateManagerInterface {
  /** Account overlay: null = deleted. */
  private accounts = new Map<string, Account | null>();
  /** Storage overlay: addr → slot → value (stripped; empty = zero). */
  private storageMap = new Map<string, Map<string, Uint8Array>>();
  /** Accounts whose base storage is wiped (self-destruct, clearStorage). */
  private cleared = new Set<string>();
  /** Code by hash written in this overlay. */
  private codes = new Map<string, Uint8Array>();
  /** Base-state account reads, cached (the base never changes under an overlay). */
  private baseAccounts = new Map<string, Account | undefined>();

  /**
   * {@link changes} per address, remembered between calls (a pending block asks after every
   * flashblock); an address in {@link unsettled} — written, undone or given a new storage root
   * since — is computed again.
   */
  private settled = new Map<string, { account: AccountChange | undefined; storage: StorageChange[] }>();
  private unsettled = new Set<string>();

  private journal: Array<() => void> = [];
  private checkpoints: number[] = [];

  // Incremental root computation.
  private dirtyAccounts = new Set<string>();
  private dirtySlots = new Map<string, Set<string>>();
  private clearedAtLastRoot = new Set<string>();
  private storageRoots = new Map<string, Uint8Array>();
  private root: Uint8Array;

  /** Original (transaction-start) storage values for EIP-2200 gas accounting. */
  readonly originalStorageCache: { get(address: Address, key: Uint8Array): Promise<Uint8Array>; clear(): void };
  private originals = new Map<string, Uint8Array>();

  /** keccak256 of the slots written (hex slot → hashed slot): the storage tries' keys. */
  private slotHashes = new Map<string, Uint8Array>();

  constructor(
    readonly base: StateReader,
    /** The tries the state roots are computed over (and written into): the block's trie diff. */
    readonly tries: StateTries,
    private readonly enumerateBaseStorage?: StorageEnumerator,
  ) {
    this.root = base.stateRoot;
    this.originalStorageCache = {
      get: async (address, key) => {
        const k = hex(address.bytes) + hex(key);
        const o = this.originals.get(k);
        if (o !== undefined) return o;
        return this.readStorage(address.bytes, key);
      },
      clear: () => this.originals.clear(),
    };
  }

  // ---- reads --------------------------------------------------------------------------

  private baseAccount(a: string, bytes: Uint8Array): Account | undefined {
    if (this.baseAccounts.has(a)) return this.baseAccounts.get(a);
    const acc = this.base.account(bytes);
    this.baseAccounts.set(a, acc);
    return acc;
  }

  /** Current account (not a copy; callers must not mutate). */
  private currentAccount(a: string, bytes: Uint8Array): Account | undefined {
    const o = this.accounts.get(a);
    if (o !== undefined) return o ?? undefined;
    if (this.cleared.has(a)) return undefined;
    return this.baseAccount(a, bytes);
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const acc = this.getAccountSync(address.bytes);
    return acc === undefined ? undefined : copyAccount(acc);
  }

  /** Synchronous account read (no copy). */
  getAccountSync(address: Uint8Array): Account | undefined {
    const a = hex(address);
    const acc = this.currentAccount(a, address);
    if (acc !== undefined && this.cleared.has(a) && !equalsBytes(acc.storageRoot, KECCAK256_RLP)) {
      const c = copyAccount(acc);
      c.storageRoot = KECCAK256_RLP;
      return c;
    }
    return acc;
  }

  private readStorage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const a = hex(address);
    const m = this.storageMap.get(a);
    if (m !== undefined) {
      const v = m.get(hex(slot));
      if (v !== undefined) return v;
    }
    if (this.cleared.has(a)) return EMPTY;
    return this.base.storage(address, slot);
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    return this.readStorage(address.bytes, key);
  }

  /** Synchronous storage read. */
  getStorageSync(address: Uint8Array, key: Uint8Array): Uint8Array {
    return this.readStorage(address, key);
  }

  /** A slot's value at the start of the transaction (EIP-2200's original value; what `originalStorageCache` answers), synchronously. */
  originalStorageSync(address: Uint8Array, key: Uint8Array): Uint8Array {
    return this.originals.get(hex(address) + hex(key)) ?? this.readStorage(address, key);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.getCodeSync(address.bytes);
  }

  getCodeSync(address: Uint8Array): Uint8Array {
    const acc = this.getAccountSync(address);
    if (acc === undefined || equalsBytes(acc.codeHash, KECCAK256_NULL)) return EMPTY;
    return this.codeByHash(acc.codeHash) ?? EMPTY;
  }

  /** Code by hash, from this overlay or the base. */
  codeByHash(codeHash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(hex(codeHash)) ?? this.base.code(codeHash);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  // ---- writes -------------------------------------------------------------------------

  private setAccount(a: string, value: Account | null): void {
    const had = this.accounts.has(a);
    const prev = this.accounts.get(a);
    this.journal.push(() => {
      if (had) this.accounts.set(a, prev as Account | null);
      else this.accounts.delete(a);
      this.unsettled.add(a);
    });
    this.accounts.set(a, value);
    this.dirtyAccounts.add(a);
    this.unsettled.add(a);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    const a = hex(address.bytes);
    this.setAccount(a, account === undefined ? null : copyAccount(account));
  }

  async deleteAccount(address: Address): Promise<void> {
    const a = hex(address.bytes);
    this.wipeStorage(a);
    this.setAccount(a, null);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const cur = this.getAccountSync(address.bytes);
    const acc = cur === undefined ? new Account() : copyAccount(cur);
    if (fields.nonce !== undefined) acc.nonce = fields.nonce;
    if (fields.balance !== undefined) acc.balance = fields.balance;
    if (fields.storageRoot !== undefined) acc.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) acc.codeHash = fields.codeHash;
    this.setAccount(hex(address.bytes), acc);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const codeHash = keccak256(value);
    const h = hex(codeHash);
    if (!this.codes.has(h)) {
      this.codes.set(h, value);
      this.journal.push(() => this.codes.delete(h));
    }
    await this.modifyAccountFields(address, { codeHash });
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    if (value.length > 32) throw new Error("Storage value cannot be longer than 32 bytes");
    this.writeSlot(hex(address.bytes), hex(key), strip(value));
  }

  private writeSlot(a: string, s: string, v: Uint8Array): void {
    let m = this.storageMap.get(a);
    if (m === undefined) {
      m = new Map();
      this.storageMap.set(a, m);
    }
    const map = m;
    const had = map.has(s);
    const prev = map.get(s);
    const ok = a + s;
    if (!this.originals.has(ok)) {
      const orig = had ? (prev as Uint8Array) : this.cleared.has(a) ? EMPTY : this.base.storage(unhex(a), unhex(s));
      this.originals.set(ok, orig);
    }
    this.journal.push(() => {
      if (had) map.set(s, prev as Uint8Array);
      else map.delete(s);
      this.unsettled.add(a);
    });
    map.set(s, v);
    this.unsettled.add(a);
    let d = this.dirtySlots.get(a);
    if (d === undefined) {
      d = new Set();
      this.dirtySlots.set(a, d);
    }
    d.add(s);
    this.dirtyAccounts.add(a);
  }

  private wipeStorage(a: string): void {
    const prevMap = this.storageMap.get(a);
    const wasCleared = this.cleared.has(a);
    this.journal.push(() => {
      if (prevMap !== undefined) this.storageMap.set(a, prevMap);
      else this.storageMap.delete(a);
      if (!wasCleared) this.cleared.delete(a);
      this.unsettled.add(a);
    });
    this.storageMap.delete(a);
    this.cleared.add(a);
    this.unsettled.add(a);
    this.dirtyAccounts.add(a);
  }

  async clearStorage(address: Address): Promise<void> {
    this.wipeStorage(hex(address.bytes));
  }

  // ---- synchronous writes (the fast EVM's flush, execution/evm/overlaySink.ts) -------------

  /** Sets an account's fields; its storage root is kept (or marked non-empty when `hasStorage`). */
  putAccountFieldsSync(address: Uint8Array, nonce: bigint, balance: bigint, codeHash: Uint8Array, hasStorage: boolean): void {
    const a = hex(address);
    const cur = this.currentAccount(a, address);
    let storageRoot = cur !== undefined && !this.cleared.has(a) ? cur.storageRoot : KECCAK256_RLP;
    if (hasStorage && equalsBytes(storageRoot, KECCAK256_RLP)) storageRoot = STORAGE_WRITTEN_ROOT;
    else if (!hasStorage) storageRoot = KECCAK256_RLP;
    this.setAccount(a, new Account(nonce, balance, storageRoot, codeHash));
  }

  /** Deletes an account and its storage. */
  deleteAccountSync(address: Uint8Array): void {
    const a = hex(address);
    this.wipeStorage(a);
    this.setAccount(a, null);
  }

  /** Drops an account's stored slots (it was destroyed and re-created). */
  wipeStorageSync(address: Uint8Array): void {
    this.wipeStorage(hex(address));
  }

  /** Writes a storage slot (value without leading zeros). */
  putStorageSync(address: Uint8Array, key: Uint8Array, value: Uint8Array): void {
    this.writeSlot(hex(address), hex(key), strip(value));
  }

  /** Registers bytecode under its (already computed) hash. */
  putCodeByHash(codeHash: Uint8Array, code: Uint8Array): void {
    const h = hex(codeHash);
    if (!this.codes.has(h)) {
      this.codes.set(h, code);
      this.journal.push(() => this.codes.delete(h));
    }
  }

  // ---- journal ------------------------------------------------------------------------

  async checkpoint(): Promise<void> {
    this.checkpoints.push(this.journal.length);
  }

  async commit(): Promise<void> {
    this.checkpoints.pop();
    if (this.checkpoints.length === 0) this.journal.length = 0;
  }

  async revert(): Promise<void> {
    const to = this.checkpoints.pop() ?? 0;
    while (this.journal.length > to) (this.journal.pop() as () => void)();
  }

  // ---- roots --------------------------------------------------------------------------

  /**
   * Computes the state root of the overlay (incrementally since the last call): each dirty
   * account's storage trie, then the account trie, by batch updates over the stored nodes
   * (trieUpdate.ts), which leave only the final tries' new nodes in `nodes`.
   */
  async getStateRoot(): Promise<Uint8Array> {
    if (this.dirtyAccounts.size === 0) return this.root;
    const accountChanges: TrieChange[] = [];
    for (const a of this.dirtyAccounts) {
      const addr = unhex(a);
      const hashed = hashAddress(addr);
      const isCleared = this.cleared.has(a);
      const slots = this.dirtySlots.get(a);
      let sroot: Uint8Array | undefined = this.storageRoots.get(a);
      let toApply: Iterable<string> = slots ?? [];
      if (isCleared && !this.clearedAtLastRoot.has(a)) {
        sroot = KECCAK256_RLP;
        toApply = this.storageMap.get(a)?.keys() ?? [];
        this.tries.wipeStorage(hashed);
        this.clearedAtLastRoot.add(a);
      } else if (!isCleared && this.clearedAtLastRoot.has(a)) {
        // A clear was reverted: rebuild from the base root, over the base trie again.
        sroot = this.baseAccount(a, addr)?.storageRoot ?? KECCAK256_RLP;
        toApply = this.storageMap.get(a)?.keys() ?? [];
        this.tries.resetStorage(hashed);
        this.clearedAtLastRoot.delete(a);
      }
      sroot ??= this.baseAccount(a, addr)?.storageRoot ?? KECCAK256_RLP;
      const slotChanges: TrieChange[] = [];
      for (const s of toApply) {
        const v = this.readStorage(addr, unhex(s));
        slotChanges.push({ key: this.hashSlot(s), value: v.length === 0 ? undefined : RLP.encode(v) });
      }
      if (slotChanges.length > 0) sroot = updateTrie(this.tries.storageOf(hashed), sroot, slotChanges);
      this.storageRoots.set(a, sroot);
      this.unsettled.add(a);
      const acc = this.currentAccount(a, addr);
      let value: Uint8Array | undefined;
      if (acc !== undefined) {
        const c = copyAccount(acc);
        c.storageRoot = sroot;
        value = c.serialize();
      }
      accountChanges.push({ key: hashed, value });
    }
    this.dirtyAccounts.clear();
    this.dirtySlots.clear();
    this.root = updateTrie(this.tries.account, this.root, accountChanges);
    return this.root;
  }

  /** keccak256 of a slot (hex), remembered for the block. */
  private hashSlot(s: string): Uint8Array {
    let h = this.slotHashes.get(s);
    if (h === undefined) this.slotHashes.set(s, (h = keccak256(unhex(s))));
    return h;
  }

  /**
   * The storage root of `address` as of the last {@link getStateRoot} (call that first):
   * e.g. the OP Isthmus `withdrawalsRoot`, the L2ToL1MessagePasser's storage root.
   */
  storageRootOf(address: Uint8Array): Uint8Array {
    const a = hex(address);
    return this.storageRoots.get(a) ?? this.baseAccount(a, address)?.storageRoot ?? KECCAK256_RLP;
  }

  async setStateRoot(stateRoot: Uint8Array): Promise<void> {
    if (equalsBytes(stateRoot, this.root) || equalsBytes(stateRoot, this.base.stateRoot)) return;
    throw new Error(`state root ${hex(stateRoot)} is not available in this state view`);
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return equalsBytes(root, this.root) || equalsBytes(root, this.base.stateRoot);
  }

  clearCaches(): void {}

  shallowCopy(): OverlayStateManager {
    return new OverlayStateManager(this.base, this.tries, this.enumerateBaseStorage);
  }

  // ---- change extraction ------------------------------------------------------------

  /** Code written by this overlay, by hash (hex). */
  writtenCode(): Map<string, Uint8Array> {
    return this.codes;
  }

  /**
   * Everything the overlay changed relative to its base, with final account encodings
   * (call after {@link getStateRoot}). Storage clears are expanded into per-slot deletions
   * using the base-storage enumerator. Each address's result is remembered until it is written
   * again, so asking after every flashblock costs the addresses that frame touched.
   */
  changes(): { accounts: AccountChange[]; storage: StorageChange[]; cleared: Uint8Array[] } {
    const accounts: AccountChange[] = [];
    const storage: StorageChange[] = [];
    const cleared: Uint8Array[] = [];
    const touched = new Set<string>([...this.accounts.keys(), ...this.storageMap.keys(), ...this.cleared]);
    for (const a of touched) {
      let c = this.unsettled.has(a) ? undefined : this.settled.get(a);
      if (c === undefined) this.settled.set(a, (c = this.changesOf(a)));
      if (c.account !== undefined) accounts.push(c.account);
      for (const sc of c.storage) storage.push(sc);
      if (this.cleared.has(a)) cleared.push(unhex(a));
    }
    this.unsettled.clear();
    return { accounts, storage, cleared };
  }

  /** The account and storage changes of one address (see {@link changes}). */
  private changesOf(a: string): { account: AccountChange | undefined; storage: StorageChange[] } {
    const storage: StorageChange[] = [];
    let account: AccountChange | undefined;
    const addr = unhex(a);
    const hashedAddress = hashAddress(addr);
    const before = this.baseAccount(a, addr);
    let after = this.currentAccount(a, addr);
    if (after !== undefined) {
      after = copyAccount(after);
      after.storageRoot = this.storageRoots.get(a) ?? before?.storageRoot ?? KECCAK256_RLP;
    }
    const b = before === undefined ? undefined : slimAccountRlp(before);
    const f = after === undefined ? undefined : slimAccountRlp(after);
    if (!(b === undefined && f === undefined) && !(b !== undefined && f !== undefined && equalsBytes(b, f))) {
      account = { hashedAddress, address: addr, before: b, after: f };
    }
    const written = this.storageMap.get(a) ?? new Map<string, Uint8Array>();
    if (this.cleared.has(a) && this.enumerateBaseStorage !== undefined) {
      // The base's slots are known by hash only: match the written ones by their hashes.
      const byHash = new Map<string, [string, Uint8Array]>();
      for (const [s, v] of written) byHash.set(hex(this.hashSlot(s)), [s, v]);
      for (const { hashedSlot, value } of this.enumerateBaseStorage(hashedAddress)) {
        const hs = hex(hashedSlot);
        const w = byHash.get(hs);
        const nv = w?.[1] ?? EMPTY;
        if (!equalsBytes(nv, value)) {
          storage.push({ hashedAddress, hashedSlot: new Uint8Array(hashedSlot), address: addr, slot: w === undefined ? undefined : unhex(w[0]), before: new Uint8Array(value), after: nv });
        }
        byHash.delete(hs);
      }
      // Written slots the base did not hold.
      for (const [s, v] of byHash.values()) {
        if (v.length !== 0) storage.push({ hashedAddress, hashedSlot: this.hashSlot(s), address: addr, slot: unhex(s), before: EMPTY, after: v });
      }
    } else {
      for (const [s, v] of written) {
        const slot = unhex(s);
        const bv = this.base.storage(addr, slot);
        if (!equalsBytes(bv, v)) storage.push({ hashedAddress, hashedSlot: this.hashSlot(s), address: addr, slot, before: bv, after: v });
      }
    }
    return { account, storage };
  }
}
