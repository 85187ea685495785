/**
 * A leaner EIP-1153 transient storage for @ethereumjs 10.1.3 (its `TransientStorage` methods,
 * replaced on the class by `installEvmCaches`, evmSpeedups.ts).
 *
 * @ethereumjs keeps, for every TSTORE, a 66-character hex key, a journal object and a fresh
 * 32-byte array for a slot's previous value. A transaction that fills transient storage (the
 * 120-Mgas loops of EEST `test_run_until_out_of_gas`: 1.2 million slots) keeps ~400 bytes per store
 * alive and spent more than half of its 18 s in garbage collection (CPU profile, 2-core dev machine).
 * Here a slot key is its 32 bytes as a 32-character latin1 string, the journal is one flat array of
 * (slot map, key, previous value) triples, and a previous value is the stored array itself, or
 * undefined for an empty slot (restored by deleting the slot).
 *
 * What the EVM sees is unchanged: `get` answers the stored value or 32 zero bytes, `revert` undoes
 * every `put` since the matching `checkpoint`, `commit` keeps them, `clear` empties everything;
 * `toJSON` gives the same 0x-hex form. The EEST state and blockchain tests of EIP-1153 run on it.
 */
import type { Address } from "@ethereumjs/util";

/** Largest transient storage value (a 256-bit word). */
const MAX_VALUE_BYTES = 32;
/** Transient storage slot key length. */
const KEY_BYTES = 32;

/** The fields a TransientStorage instance has (its constructor sets `_storage`, `_changeJournal`, `_indices`). */
interface Fields {
  /** Slot values by contract address (0x hex) and slot (32-character latin1). */
  _storage: Map<string, Map<string, Uint8Array>>;
  /** (slot map, slot, previous value or undefined) triples, oldest first. */
  _changeJournal: unknown[];
  /** The journal length at the start of each open call frame. */
  _indices: number[];
}

/** The 0x hex of an address, cached per Address object (the interpreter passes the frame's one). */
const addressKeys = new WeakMap<Address, string>();
function addressKey(addr: Address): string {
  let k = addressKeys.get(addr);
  if (k === undefined) addressKeys.set(addr, (k = addr.toString()));
  return k;
}

/** A 32-byte slot as a 32-character latin1 string. */
const slotKey = (key: Uint8Array): string => Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("latin1");

/** The method bodies installed on @ethereumjs's `TransientStorage.prototype`. */
export const leanTransientStorageMethods = {
  get(this: Fields, addr: Address, key: Uint8Array): Uint8Array {
    return this._storage.get(addressKey(addr))?.get(slotKey(key)) ?? new Uint8Array(MAX_VALUE_BYTES);
  },

  put(this: Fields, addr: Address, key: Uint8Array, value: Uint8Array): void {
    if (key.length !== KEY_BYTES) throw new Error("Transient storage key must be 32 bytes long");
    if (value.length > MAX_VALUE_BYTES) throw new Error("Transient storage value cannot be longer than 32 bytes");
    const a = addressKey(addr);
    let slots = this._storage.get(a);
    if (slots === undefined) this._storage.set(a, (slots = new Map()));
    const k = slotKey(key);
    this._changeJournal.push(slots, k, slots.get(k));
    slots.set(k, value);
  },

  commit(this: Fields): void {
    if (this._indices.length === 0) throw new Error("Nothing to commit");
    this._indices.pop();
  },

  checkpoint(this: Fields): void {
    this._indices.push(this._changeJournal.length);
  },

  revert(this: Fields): void {
    const last = this._indices.pop();
    if (last === undefined) throw new Error("Nothing to revert");
    const j = this._changeJournal;
    for (let i = j.length - 3; i >= last; i -= 3) {
      const slots = j[i] as Map<string, Uint8Array>;
      const prev = j[i + 2] as Uint8Array | undefined;
      if (prev === undefined) slots.delete(j[i + 1] as string);
      else slots.set(j[i + 1] as string, prev);
    }
    // A `clear` since the checkpoint emptied the journal below it: nothing to cut (as @ethereumjs's splice).
    if (j.length > last) j.length = last;
  },

  toJSON(this: Fields): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [address, slots] of this._storage) {
      const o: Record<string, string> = {};
      for (const [k, v] of slots) o[`0x${Buffer.from(k, "latin1").toString("hex")}`] = `0x${Buffer.from(v).toString("hex")}`;
      out[address] = o;
    }
    return out;
  },

  clear(this: Fields): void {
    this._storage = new Map();
    this._changeJournal = [];
  },
};
