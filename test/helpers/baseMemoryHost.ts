/**
 * An in-memory {@link BaseStateHost} for unit tests of the Base native precompiles — basalt's
 * counterpart of base/base's `HashMapStorageProvider`, which the golden vectors were pinned over:
 * storage, transient storage, accounts (code) and logs in maps, with a journal for checkpoints.
 * Every slot and account is warm (the golden schedule charges nothing for access anyway), and a
 * slot's "original" value is its value when {@link MemoryBaseHost.endTransaction} last ran.
 */
import { KECCAK256_NULL } from "@ethereumjs/util";
import type { AccountRead, BaseLog, BaseStateHost, SlotRead, SlotWrite } from "../../src/execution/base/host.js";
import { keccak256 } from "../../src/util/keccak.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** A stored account (only what the precompiles touch). */
export interface MemoryAccount {
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
}

/** The in-memory host. Keys are lower-case hex without 0x. */
export class MemoryBaseHost implements BaseStateHost {
  /** address → slot → value (zero values are deleted). */
  readonly storage = new Map<string, Map<bigint, bigint>>();
  readonly transient = new Map<string, Map<bigint, bigint>>();
  readonly accounts = new Map<string, MemoryAccount>();
  readonly logs: BaseLog[] = [];
  private originals = new Map<string, Map<bigint, bigint>>();
  private journal: (() => void)[] = [];

  /** The value of a slot (no journal, no warmth). */
  get(address: Uint8Array, slot: bigint): bigint {
    return this.storage.get(hex(address))?.get(slot) ?? 0n;
  }

  /** Writes a slot directly (test setup; not journaled). */
  set(address: Uint8Array, slot: bigint, value: bigint): void {
    const a = hex(address);
    let m = this.storage.get(a);
    if (m === undefined) this.storage.set(a, (m = new Map()));
    if (value === 0n) m.delete(slot);
    else m.set(slot, value);
  }

  /** Starts a new transaction: current values become the originals, transient storage is cleared. */
  endTransaction(): void {
    this.originals = new Map([...this.storage].map(([a, m]) => [a, new Map(m)]));
    this.transient.clear();
    this.journal = [];
  }

  sload(address: Uint8Array, slot: bigint): SlotRead {
    return { value: this.get(address, slot), cold: false };
  }

  sstore(address: Uint8Array, slot: bigint, value: bigint): SlotWrite {
    const present = this.get(address, slot);
    const original = this.originals.get(hex(address))?.get(slot) ?? 0n;
    this.set(address, slot, value);
    this.journal.push(() => this.set(address, slot, present));
    return { original, present, cold: false };
  }

  tload(address: Uint8Array, slot: bigint): bigint {
    return this.transient.get(hex(address))?.get(slot) ?? 0n;
  }

  tstore(address: Uint8Array, slot: bigint, value: bigint): void {
    const a = hex(address);
    let m = this.transient.get(a);
    if (m === undefined) this.transient.set(a, (m = new Map()));
    const before = m.get(slot) ?? 0n;
    m.set(slot, value);
    this.journal.push(() => m.set(slot, before));
  }

  account(address: Uint8Array): AccountRead {
    const acc = this.accounts.get(hex(address));
    if (acc === undefined) return { nonce: 0n, balance: 0n, codeHash: KECCAK256_NULL, empty: true, cold: false };
    const codeHash = acc.code.length === 0 ? KECCAK256_NULL : keccak256(acc.code);
    return { nonce: acc.nonce, balance: acc.balance, codeHash, empty: acc.nonce === 0n && acc.balance === 0n && acc.code.length === 0, cold: false };
  }

  setCode(address: Uint8Array, code: Uint8Array): void {
    const a = hex(address);
    const before = this.accounts.get(a);
    this.accounts.set(a, { nonce: before?.nonce ?? 0n, balance: before?.balance ?? 0n, code });
    this.journal.push(() => {
      if (before === undefined) this.accounts.delete(a);
      else this.accounts.set(a, before);
    });
  }

  log(log: BaseLog): void {
    this.logs.push(log);
    this.journal.push(() => void this.logs.pop());
  }

  checkpoint(): number {
    return this.journal.length;
  }

  commit(_checkpoint: number): void {
    // The journal is flat: committing keeps the entries for an enclosing checkpoint.
  }

  revert(checkpoint: number): void {
    while (this.journal.length > checkpoint) this.journal.pop()!();
  }

  /** Logs emitted by `address`, oldest first. */
  logsOf(address: Uint8Array): BaseLog[] {
    const a = hex(address);
    return this.logs.filter((l) => hex(l.address) === a);
  }
}

/**
 * {@link MemoryBaseHost} with EIP-2929 access tracking, for tests that price under
 * `EVM_SCHEDULE`: a slot or account is cold until first touched in the transaction
 * ({@link MemoryBaseHost.endTransaction} starts a new one); {@link warmAccount} pre-warms an
 * address as the EVM does for the call's target, sender and precompiles. Warmth is not undone
 * when a checkpoint reverts (the EVM would undo it with the reverted frame).
 */
export class AccessTrackingHost extends MemoryBaseHost {
  private warm = new Set<string>();

  private touch(key: string): boolean {
    const cold = !this.warm.has(key);
    this.warm.add(key);
    return cold;
  }

  /** Marks `address` warm for the rest of the transaction. */
  warmAccount(address: Uint8Array): void {
    this.warm.add(hex(address));
  }

  override endTransaction(): void {
    super.endTransaction();
    this.warm = new Set();
  }

  override sload(address: Uint8Array, slot: bigint): SlotRead {
    return { ...super.sload(address, slot), cold: this.touch(`${hex(address)}:${slot}`) };
  }

  override sstore(address: Uint8Array, slot: bigint, value: bigint): SlotWrite {
    return { ...super.sstore(address, slot, value), cold: this.touch(`${hex(address)}:${slot}`) };
  }

  override account(address: Uint8Array): AccountRead {
    return { ...super.account(address), cold: this.touch(hex(address)) };
  }
}
