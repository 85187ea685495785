/**
 * What a Base native precompile needs of the EVM it runs in: the world state through the running
 * transaction's journal, with EIP-2929 warm/cold tracking, transient storage, logs and nested
 * checkpoints. Each engine implements it once — the fast engine over its `EvmState`
 * (`execution/evm/precompiles/baseHost.ts`), the reference engine over @ethereumjs/evm's journal
 * and basalt's `OverlayStateManager` (`execution/op/basePrecompiles.ts`) — and the golden tests over
 * a map (`test/helpers/baseMemoryHost.ts`, base/base's `HashMapStorageProvider`).
 *
 * The host charges no gas: {@link ./context.ts} meters every operation from what the host reports
 * (cold or warm, the original and present values of a slot). All methods are synchronous.
 * Addresses are 20 bytes; slots and values are 256-bit unsigned integers.
 */

/** A storage read: the value, and whether the slot was cold in this transaction before the read (the read warms it). */
export interface SlotRead {
  value: bigint;
  cold: boolean;
}

/**
 * A storage write as EIP-2200 meters it: the slot's value at the start of the transaction
 * (`original`), its value just before this write (`present`), and whether it was cold before
 * the write (the write warms it).
 */
export interface SlotWrite {
  original: bigint;
  present: bigint;
  cold: boolean;
}

/** An account read: its fields, and whether the address was cold before the read (the read warms it). */
export interface AccountRead {
  nonce: bigint;
  balance: bigint;
  /** keccak256 of the code (KECCAK256_NULL when there is none). */
  codeHash: Uint8Array;
  /** EIP-161 empty: no nonce, no balance, no code. */
  empty: boolean;
  cold: boolean;
}

/** A log a precompile emits (its address is the emitting precompile's or token's). */
export interface BaseLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** The state operations of one precompile call, journaled in the transaction. */
export interface BaseStateHost {
  /** Reads a persistent slot and warms it. */
  sload(address: Uint8Array, slot: bigint): SlotRead;
  /** Writes a persistent slot (journaled) and warms it. */
  sstore(address: Uint8Array, slot: bigint, value: bigint): SlotWrite;
  /** Reads a transient slot (EIP-1153). */
  tload(address: Uint8Array, slot: bigint): bigint;
  /** Writes a transient slot (EIP-1153, journaled). */
  tstore(address: Uint8Array, slot: bigint, value: bigint): void;
  /** Reads an account and warms it. */
  account(address: Uint8Array): AccountRead;
  /** Sets an account's code (journaled); creates the account when it does not exist. */
  setCode(address: Uint8Array, code: Uint8Array): void;
  /** Appends a log (journaled: dropped when an enclosing checkpoint reverts). */
  log(log: BaseLog): void;
  /** A checkpoint of the journal (state, warm sets, transient storage, logs). */
  checkpoint(): number;
  /** Keeps what happened since `checkpoint` (only the innermost open checkpoint may be committed). */
  commit(checkpoint: number): void;
  /** Undoes everything since `checkpoint`. */
  revert(checkpoint: number): void;
}
