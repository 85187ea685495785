/**
 * A {@link StateReader} as the fast EVM's {@link StateSource}, without a cache of its own: call
 * contexts read the target's state through this, and the EVM state's admission-controlled cache
 * (evm/loadAdmission.ts) is the only one (the overlay state manager would cache every account
 * read for the context's lifetime).
 */
import type { Account } from "@ethereumjs/util";
import type { StateSource } from "../evm/state.js";
import type { StateReader } from "./stateReader.js";

/** Reads `reader` directly: the state a call context runs on. */
export function readerSource(reader: StateReader): StateSource {
  return {
    getAccountSync: (address: Uint8Array): Account | undefined => reader.account(address),
    getStorageSync: (address: Uint8Array, slot: Uint8Array): Uint8Array => reader.storage(address, slot),
    codeByHash: (codeHash: Uint8Array): Uint8Array | undefined => reader.code(codeHash),
  };
}
