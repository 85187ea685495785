/**
 * An execution witness: the preimages a stateless executor needs to run one block on its
 * parent's state (alloy's `ExecutionWitness`, what `debug_executionWitness` and
 * `debug_executePayload` answer).
 */
import { toData } from "../../chain/json/quantity.js";

/** The witness of one block's execution. */
export interface ExecutionWitness {
  /** Account-trie and storage-trie nodes of the parent's state (RLP), unordered. */
  state: Uint8Array[];
  /** Bytecodes the execution read. */
  codes: Uint8Array[];
  /** Unhashed keys the execution read: 20-byte addresses and 32-byte storage slots. */
  keys: Uint8Array[];
  /** RLP headers from the lowest BLOCKHASH target (or the parent) up to the parent, ascending. */
  headers: Uint8Array[];
}

/** The JSON-RPC form: `{state, codes, keys, headers}`, each a list of 0x hex strings (alloy's field names). */
export function executionWitnessJson(w: ExecutionWitness): string {
  return JSON.stringify({ state: w.state.map(toData), codes: w.codes.map(toData), keys: w.keys.map(toData), headers: w.headers.map(toData) });
}
