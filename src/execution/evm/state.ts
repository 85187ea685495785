/**
 * The fast EVM's world state: a cache of the accounts and storage slots a block's transactions
 * touch, read through from a {@link StateSource} (basalt's flat-state overlay) on first use, with
 * a journal for the EVM's nested checkpoints, EIP-2929 warm sets, EIP-1153 transient storage,
 * logs and the refund counter. Storage values are kept as 8-limb words (see u256.ts) so SLOAD
 * and SSTORE move limbs between the stack and the state without conversion.
 *
 * One instance serves one block (or one call target): per-transaction state (warm flags,
 * transient storage, the journal, "original" slot values of EIP-2200) is reset by
 * {@link EvmState.endTransaction}; what the transactions changed is handed to a
 * {@link StateSink} by {@link EvmState.flush} (the overlay the state root is computed from).
 */
import type { Account } from "@ethereumjs/util";
import { KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import type { LoadAdmission } from "./loadAdmission.js";
import { strippedBytes, toBytes32, wordFromBytes, wordKey } from "./u256.js";

/** Synchronous reads of the state the EVM starts from (OverlayStateManager implements it). */
export interface StateSource {
  getAccountSync(address: Uint8Array): Account | undefined;
  /** A storage value, leading zeros stripped (empty = zero). */
  getStorageSync(address: Uint8Array, slot: Uint8Array): Uint8Array;
  codeByHash(codeHash: Uint8Array): Uint8Array | undefined;
}

/** Where {@link EvmState.flush} writes what changed. */
export interface StateSink {
  /**
   * The account now exists with these fields. Its storage root is the sink's business;
   * `hasStorage` says whether any non-zero slot may remain (a hint for collision checks).
   */
  putAccountFields(address: Uint8Array, nonce: bigint, balance: bigint, codeHash: Uint8Array, hasStorage: boolean): void;
  /** The account no longer exists (and its storage is gone). */
  deleteAccount(address: Uint8Array): void;
  /** The account's storage from before this state's changes is gone (it was destroyed and re-created). */
  wipeStorage(address: Uint8Array): void;
  /** A storage slot's new value (32-byte key, value without leading zeros). */
  putStorageValue(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void;
  /** New bytecode by hash. */
  putCode(codeHash: Uint8Array, code: Uint8Array): void;
}

/** The account key of the RIPEMD-160 precompile (0x…03). */
const RIPEMD_KEY = String.fromCharCode(0, 0, 0, 0, 0, 0, 0, 0, 0, 3);

/** The zero word (shared, never written). */
export const ZERO_WORD: Uint32Array = new Uint32Array(8);
const EMPTY = new Uint8Array(0);

/** A storage slot of an account. */
class Slot {
  /** The value at the start of the current transaction (EIP-2200's "original value"). */
  committed: Uint32Array;
  current: Uint32Array;
  warm = false;
  /** Written since the last flush. */
  dirty = false;
  /** Listed in the transaction's slot list (reset at its end). */
  inTx = false;
  constructor(
    readonly key: Uint8Array,
    value: Uint32Array,
  ) {
    this.committed = value;
    this.current = value;
  }
}

/** An account as the EVM sees it. */
export class AccountEntry {
  exists: boolean;
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /** Loaded on first use. */
  code: Uint8Array | undefined;
  /** The source account has a non-empty storage trie. */
  baseHasStorage: boolean;
  /** Storage from the source no longer applies (the account was destroyed in this block). */
  storageWiped = false;
  readonly slots = new Map<string, Slot>();
  transient: Map<string, Uint32Array> | undefined;
  warm = false;
  /** Warm in every transaction (a precompile). */
  alwaysWarm = false;
  /** Changed (or touched, EIP-161) in the current transaction, journaled. */
  touched = false;
  /** Created by CREATE/CREATE2 or a creation transaction in the current transaction (EIP-6780). */
  created = false;
  /** SELFDESTRUCT executed in the current transaction. */
  destructed = false;
  /** Account fields changed since the last flush. */
  dirty = false;
  codeDirty = false;
  wipedSinceFlush = false;
  /** Listed in the transaction's account list. */
  inTx = false;
  /** RIPEMD-160's touch survives reverts (geth/@ethereumjs keep the 2016 consensus quirk). */
  stickyTouch = false;

  constructor(
    readonly address: Uint8Array,
    readonly key: string,
    account: Account | undefined,
  ) {
    if (account === undefined) {
      this.exists = false;
      this.nonce = 0n;
      this.balance = 0n;
      this.codeHash = KECCAK256_NULL;
      this.code = EMPTY;
      this.baseHasStorage = false;
    } else {
      this.exists = true;
      this.nonce = account.nonce;
      this.balance = account.balance;
      this.codeHash = account.codeHash;
      this.code = isEmptyCodeHash(account.codeHash) ? EMPTY : undefined;
      this.baseHasStorage = !bytesEqual(account.storageRoot, KECCAK256_RLP);
    }
  }

  /** EIP-161 emptiness: no code, nonce 0, balance 0 (also true for an account that does not exist). */
  isEmpty(): boolean {
    return this.nonce === 0n && this.balance === 0n && isEmptyCodeHash(this.codeHash);
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `h` is keccak256 of the empty string. */
export function isEmptyCodeHash(h: Uint8Array): boolean {
  return h === KECCAK256_NULL || bytesEqual(h, KECCAK256_NULL);
}

/** The account key of an address: its 20 bytes as 10 UTF-16 code units. */
export function addressKey(a: Uint8Array): string {
  return String.fromCharCode(
    (a[0]! << 8) | a[1]!,
    (a[2]! << 8) | a[3]!,
    (a[4]! << 8) | a[5]!,
    (a[6]! << 8) | a[7]!,
    (a[8]! << 8) | a[9]!,
    (a[10]! << 8) | a[11]!,
    (a[12]! << 8) | a[13]!,
    (a[14]! << 8) | a[15]!,
    (a[16]! << 8) | a[17]!,
    (a[18]! << 8) | a[19]!,
  );
}

/** A log emitted by a transaction. */
export interface EvmLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

// Journal entry kinds.
const J_BALANCE = 1;
const J_NONCE = 2;
const J_CODE = 3;
const J_SLOT = 4;
const J_TRANSIENT = 5;
const J_WARM_ACCOUNT = 6;
const J_WARM_SLOT = 7;
const J_TOUCH = 8;
const J_EXISTS = 9;
const J_CREATED = 10;
const J_DESTRUCT = 11;

/** Accesses recorded for eth_createAccessList: address → slot keys, in first-access order. */
export type AccessRecord = Map<string, { address: Uint8Array; slots: Map<string, Uint8Array> }>;

/** The EVM's state over one source. */
export class EvmState {
  private readonly accounts = new Map<string, AccountEntry>();
  private readonly kinds: number[] = [];
  private readonly objs: unknown[] = [];
  private readonly vals: unknown[] = [];
  /** Accounts and slots the current transaction listed (their per-transaction flags are reset at its end). */
  private txAccounts: AccountEntry[] = [];
  private txSlots: Slot[] = [];
  logs: EvmLog[] = [];
  /** The refund counter (EIP-3529 rules; may dip below zero inside a transaction). */
  refund = 0;
  /** When set, cold→warm transitions are recorded (eth_createAccessList). */
  accessRecord: AccessRecord | undefined;
  /** Keys of accounts warm in every transaction (the precompiles, EIP-2929). */
  private alwaysWarm: ReadonlySet<string> = new Set();
  /** Accounts and slots loaded since the last {@link EvmState.evictLoads} (only when tracking loads). */
  private readonly loadedAccounts: AccountEntry[] = [];
  private readonly loadedSlotOwners: AccountEntry[] = [];
  private readonly loadedSlotKeys: string[] = [];

  /**
   * @param trackLoads remember what each call loads, for {@link EvmState.evictLoads} (call
   *   contexts, whose cache outlives many calls; a block's state needs no eviction).
   */
  constructor(
    private readonly source: StateSource,
    private readonly trackLoads = false,
  ) {}

  /**
   * Sets the accounts that are warm in every transaction (the fork's precompiles): they are
   * never listed or journaled, which saves a transaction their per-account bookkeeping.
   */
  setAlwaysWarm(keys: ReadonlySet<string>): void {
    if (keys === this.alwaysWarm) return;
    this.alwaysWarm = keys;
    for (const e of this.accounts.values()) e.alwaysWarm = keys.has(e.key);
  }

  /** Journal length: a checkpoint (with the logs length and the refund, see {@link revertTo}). */
  get journalLength(): number {
    return this.kinds.length;
  }

  /** The account entry of `address` (loaded from the source on first use). */
  account(address: Uint8Array): AccountEntry {
    const key = addressKey(address);
    let e = this.accounts.get(key);
    if (e === undefined) {
      e = new AccountEntry(address, key, this.source.getAccountSync(address));
      e.alwaysWarm = this.alwaysWarm.has(key);
      this.accounts.set(key, e);
      if (this.trackLoads) this.loadedAccounts.push(e);
    }
    return e;
  }

  /** The account entry by its key, when loaded. */
  loaded(key: string): AccountEntry | undefined {
    return this.accounts.get(key);
  }

  /** The bytecode of `e` (loaded on first use). */
  code(e: AccountEntry): Uint8Array {
    let c = e.code;
    if (c === undefined) {
      c = this.source.codeByHash(e.codeHash) ?? EMPTY;
      e.code = c;
    }
    return c;
  }

  private listAccount(e: AccountEntry): void {
    if (!e.inTx) {
      e.inTx = true;
      this.txAccounts.push(e);
    }
  }

  private record(kind: number, obj: unknown, val: unknown): void {
    this.kinds.push(kind);
    this.objs.push(obj);
    this.vals.push(val);
  }

  /** Marks `e` touched (EIP-161: an empty touched account is deleted at the end of the transaction). */
  touch(e: AccountEntry): void {
    if (!e.touched) {
      e.touched = true;
      this.listAccount(e);
      this.record(J_TOUCH, e, undefined);
    }
  }

  /** Makes `e` exist (an account created by a value transfer, a creation or a fee credit). */
  private ensureExists(e: AccountEntry): void {
    if (!e.exists) {
      e.exists = true;
      this.record(J_EXISTS, e, undefined);
    }
  }

  setBalance(e: AccountEntry, balance: bigint): void {
    this.record(J_BALANCE, e, e.balance);
    e.balance = balance;
    e.dirty = true;
    this.ensureExists(e);
    this.touch(e);
  }

  addBalance(e: AccountEntry, amount: bigint): void {
    if (amount === 0n) {
      // geth: adding zero only touches (so an empty account is cleared), it does not create.
      // RIPEMD-160's touch is never undone (the 2016 consensus quirk geth and @ethereumjs keep).
      this.touch(e);
      if (e.key === RIPEMD_KEY) {
        e.stickyTouch = true;
        this.listAccount(e);
      }
      return;
    }
    this.setBalance(e, e.balance + amount);
  }

  subBalance(e: AccountEntry, amount: bigint): void {
    if (amount === 0n) return;
    this.setBalance(e, e.balance - amount);
  }

  setNonce(e: AccountEntry, nonce: bigint): void {
    this.record(J_NONCE, e, e.nonce);
    e.nonce = nonce;
    e.dirty = true;
    this.ensureExists(e);
    this.touch(e);
  }

  setCode(e: AccountEntry, codeHash: Uint8Array, code: Uint8Array): void {
    this.record(J_CODE, e, [e.codeHash, e.code, e.codeDirty]);
    e.codeHash = codeHash;
    e.code = code;
    e.dirty = true;
    e.codeDirty = code.length > 0;
    this.ensureExists(e);
    this.touch(e);
  }

  /** Marks `e` as created in this transaction (CREATE/CREATE2/creation tx), making it exist. */
  markCreated(e: AccountEntry): void {
    if (!e.created) {
      e.created = true;
      this.listAccount(e);
      this.record(J_CREATED, e, undefined);
    }
    this.ensureExists(e);
    e.dirty = true;
    this.touch(e);
  }

  markDestructed(e: AccountEntry): void {
    if (!e.destructed) {
      e.destructed = true;
      this.listAccount(e);
      this.record(J_DESTRUCT, e, undefined);
    }
  }

  /**
   * Warms `e`; returns true when it was cold (EIP-2929). While an access list is recorded
   * (eth_createAccessList), every account an opcode names is listed, warm already or not, as
   * geth's access-list tracer does; `reported` false keeps it out — the address a CREATE/CREATE2
   * makes is warmed by the EVM but named by no opcode (geth and anvil do not list it).
   */
  warmAccount(e: AccountEntry, reported = true): boolean {
    if (e.alwaysWarm) return false;
    if (reported && this.accessRecord !== undefined && !this.accessRecord.has(e.key)) this.accessRecord.set(e.key, { address: e.address, slots: new Map() });
    if (e.warm) return false;
    e.warm = true;
    this.listAccount(e);
    this.record(J_WARM_ACCOUNT, e, undefined);
    return true;
  }

  /** Warms `e` for the whole transaction without journaling (sender, recipient, precompiles, access list). */
  warmAccountForTx(e: AccountEntry, reported = false): void {
    if (!e.warm) {
      e.warm = true;
      this.listAccount(e);
    }
    if (reported && this.accessRecord !== undefined && !this.accessRecord.has(e.key)) {
      this.accessRecord.set(e.key, { address: e.address, slots: new Map() });
    }
  }

  /** The slot of `e` keyed by the word at `o` of `s` (loaded on first use). */
  slot(e: AccountEntry, s: Uint32Array, o: number): Slot {
    const k = wordKey(s, o);
    let sl = e.slots.get(k);
    if (sl === undefined) sl = this.loadSlot(e, k, toBytes32(s, o));
    return sl;
  }

  /** The slot of `e` at the 32-byte `key` (access lists, system code). */
  slotByBytes(e: AccountEntry, key: Uint8Array): Slot {
    const w = wordFromBytes(key);
    const k = wordKey(w, 0);
    return e.slots.get(k) ?? this.loadSlot(e, k, key.length === 32 ? key : padKey(key));
  }

  private loadSlot(e: AccountEntry, k: string, key: Uint8Array): Slot {
    let value: Uint32Array = ZERO_WORD;
    if (e.exists && !e.storageWiped) {
      const raw = this.source.getStorageSync(e.address, key);
      if (raw.length > 0) value = wordFromBytes(raw);
    }
    const sl = new Slot(key, value);
    e.slots.set(k, sl);
    if (this.trackLoads) {
      this.loadedSlotOwners.push(e);
      this.loadedSlotKeys.push(k);
    }
    return sl;
  }

  /** Warms a slot; returns true when it was cold (EIP-2929). */
  warmSlot(e: AccountEntry, sl: Slot): boolean {
    if (sl.warm) return false;
    sl.warm = true;
    if (!sl.inTx) {
      sl.inTx = true;
      this.txSlots.push(sl);
    }
    this.record(J_WARM_SLOT, sl, undefined);
    if (this.accessRecord !== undefined) this.recordSlot(e, sl);
    return true;
  }

  /** Warms a slot for the whole transaction (access list), without journaling. */
  warmSlotForTx(e: AccountEntry, sl: Slot): void {
    if (!sl.warm) {
      sl.warm = true;
      if (!sl.inTx) {
        sl.inTx = true;
        this.txSlots.push(sl);
      }
    }
    if (this.accessRecord !== undefined) this.recordSlot(e, sl);
  }

  private recordSlot(e: AccountEntry, sl: Slot): void {
    const rec = this.accessRecord!;
    let a = rec.get(e.key);
    if (a === undefined) {
      a = { address: e.address, slots: new Map() };
      rec.set(e.key, a);
    }
    const sk = Buffer.from(sl.key).toString("hex");
    if (!a.slots.has(sk)) a.slots.set(sk, sl.key);
  }

  /** Writes a slot (the word must not be mutated afterwards). */
  setSlot(e: AccountEntry, sl: Slot, value: Uint32Array): void {
    this.record(J_SLOT, sl, sl.current);
    sl.current = value;
    sl.dirty = true;
    if (!sl.inTx) {
      sl.inTx = true;
      this.txSlots.push(sl);
    }
    this.touch(e);
  }

  /** Transient storage read (EIP-1153). */
  tload(e: AccountEntry, k: string): Uint32Array {
    return e.transient?.get(k) ?? ZERO_WORD;
  }

  /** Transient storage write (EIP-1153), journaled. */
  tstore(e: AccountEntry, k: string, value: Uint32Array): void {
    let t = e.transient;
    if (t === undefined) {
      t = new Map();
      e.transient = t;
    }
    this.listAccount(e);
    this.record(J_TRANSIENT, e, [k, t.get(k)]);
    t.set(k, value);
  }

  addLog(log: EvmLog): void {
    this.logs.push(log);
    if (this.onLog !== undefined) this.onLog(log);
  }

  /**
   * Called with every log as it is emitted, including logs a revert later drops
   * (eth_simulateV1 numbers logs in emission order, as geth's log tracer does).
   */
  onLog: ((log: EvmLog) => void) | undefined = undefined;

  /** Undoes everything journaled after `journalLength`, and truncates logs and the refund. */
  revertTo(journalLength: number, logsLength: number, refund: number): void {
    const kinds = this.kinds;
    const objs = this.objs;
    const vals = this.vals;
    for (let i = kinds.length - 1; i >= journalLength; i--) {
      const o = objs[i];
      switch (kinds[i]) {
        case J_BALANCE:
          (o as AccountEntry).balance = vals[i] as bigint;
          break;
        case J_NONCE:
          (o as AccountEntry).nonce = vals[i] as bigint;
          break;
        case J_CODE: {
          const [h, c, d] = vals[i] as [Uint8Array, Uint8Array | undefined, boolean];
          (o as AccountEntry).codeHash = h;
          (o as AccountEntry).code = c;
          (o as AccountEntry).codeDirty = d;
          break;
        }
        case J_SLOT:
          (o as Slot).current = vals[i] as Uint32Array;
          break;
        case J_TRANSIENT: {
          const [k, prev] = vals[i] as [string, Uint32Array | undefined];
          const t = (o as AccountEntry).transient!;
          if (prev === undefined) t.delete(k);
          else t.set(k, prev);
          break;
        }
        case J_WARM_ACCOUNT:
          (o as AccountEntry).warm = false;
          break;
        case J_WARM_SLOT:
          (o as Slot).warm = false;
          break;
        case J_TOUCH:
          (o as AccountEntry).touched = false;
          break;
        case J_EXISTS:
          (o as AccountEntry).exists = false;
          break;
        case J_CREATED:
          (o as AccountEntry).created = false;
          break;
        case J_DESTRUCT:
          (o as AccountEntry).destructed = false;
          break;
      }
    }
    kinds.length = journalLength;
    objs.length = journalLength;
    vals.length = journalLength;
    if (this.logs.length > logsLength) this.logs.length = logsLength;
    this.refund = refund;
  }

  /**
   * Ends a transaction: destroys the accounts that self-destructed (all of them before EIP-6780,
   * only those created in the transaction after it), deletes touched empty accounts (EIP-161),
   * makes the current slot values the next transaction's originals, and clears warm sets,
   * transient storage, the journal, logs and the refund.
   * @param selfdestructOnlyCreated EIP-6780 in force.
   */
  endTransaction(selfdestructOnlyCreated: boolean): void {
    for (const e of this.txAccounts) {
      const destroy = e.destructed && (!selfdestructOnlyCreated || e.created);
      if (destroy || ((e.touched || e.stickyTouch) && e.exists && e.isEmpty())) this.destroy(e);
    }
    for (const sl of this.txSlots) sl.committed = sl.current;
    this.resetTransaction();
  }

  /** Clears the per-transaction flags, lists, journal, logs and refund. */
  private resetTransaction(): void {
    for (const e of this.txAccounts) {
      e.warm = false;
      e.touched = false;
      e.created = false;
      e.destructed = false;
      e.stickyTouch = false;
      e.transient = undefined;
      e.inTx = false;
    }
    for (const sl of this.txSlots) {
      sl.warm = false;
      sl.inTx = false;
    }
    this.txAccounts = [];
    this.txSlots = [];
    this.kinds.length = 0;
    this.objs.length = 0;
    this.vals.length = 0;
    this.logs = [];
    this.refund = 0;
    this.accessRecord = undefined;
  }

  /**
   * Undoes the current transaction entirely (calls, gas estimation, a transaction another
   * engine will run instead): the state is as before it, with its caches kept.
   */
  discardTransaction(): void {
    this.revertTo(0, 0, 0);
    this.resetTransaction();
  }

  /**
   * Between calls of a call context (after {@link EvmState.discardTransaction}, so the cache holds
   * only values read from the source): keeps the accounts and slots loaded since the last eviction
   * only where `admission` admits them (read before, recently), and bounds what stays — past
   * `maxAccounts` accounts, or `maxSlots` slots of one account, that cache starts over.
   */
  evictLoads(admission: LoadAdmission, maxAccounts: number, maxSlots: number): void {
    const accounts = this.accounts;
    for (const e of this.loadedAccounts) {
      if (accounts.get(e.key) === e && !admission.admit(e.key)) accounts.delete(e.key);
    }
    const owners = this.loadedSlotOwners;
    const keys = this.loadedSlotKeys;
    for (let i = 0; i < owners.length; i++) {
      const e = owners[i]!;
      if (accounts.get(e.key) !== e) continue;
      if (e.slots.size > maxSlots) e.slots.clear();
      else if (!admission.admit(keys[i]!, e.key)) e.slots.delete(keys[i]!);
    }
    this.loadedAccounts.length = 0;
    owners.length = 0;
    keys.length = 0;
    if (accounts.size > maxAccounts) accounts.clear();
  }

  private destroy(e: AccountEntry): void {
    e.exists = false;
    e.nonce = 0n;
    e.balance = 0n;
    e.codeHash = KECCAK256_NULL;
    e.code = EMPTY;
    e.codeDirty = false;
    e.storageWiped = true;
    e.wipedSinceFlush = true;
    e.baseHasStorage = false;
    e.slots.clear();
    e.dirty = true;
  }

  /** True when `e` has storage (for EIP-7610's collision check). */
  hasStorage(e: AccountEntry): boolean {
    if (e.baseHasStorage && !e.storageWiped) return true;
    for (const sl of e.slots.values()) if (sl.current !== ZERO_WORD && !isZeroWord(sl.current)) return true;
    return false;
  }

  /** Writes every change since the last flush to `sink`. Call between transactions. */
  flush(sink: StateSink): void {
    for (const e of this.accounts.values()) {
      if (e.wipedSinceFlush) {
        if (e.exists) sink.wipeStorage(e.address);
        else sink.deleteAccount(e.address);
        e.wipedSinceFlush = false;
        if (!e.exists) e.dirty = false;
      }
      if (e.dirty) {
        if (e.exists) {
          if (e.codeDirty) sink.putCode(e.codeHash, e.code!);
          sink.putAccountFields(e.address, e.nonce, e.balance, e.codeHash, this.hasStorage(e));
        } else sink.deleteAccount(e.address);
        e.dirty = false;
        e.codeDirty = false;
      }
      for (const sl of e.slots.values()) {
        if (sl.dirty) {
          if (e.exists) sink.putStorageValue(e.address, sl.key, strippedBytes(sl.current));
          sl.dirty = false;
        }
      }
    }
  }

  /** Drops every cached account (after the source was changed behind this state's back). */
  invalidate(): void {
    this.accounts.clear();
  }
}

function padKey(key: Uint8Array): Uint8Array {
  const k = new Uint8Array(32);
  k.set(key, 32 - key.length);
  return k;
}

/** True when every limb of `w` is zero. */
function isZeroWord(w: Uint32Array): boolean {
  return (w[0]! | w[1]! | w[2]! | w[3]! | w[4]! | w[5]! | w[6]! | w[7]!) === 0;
}
