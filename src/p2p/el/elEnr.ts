/**
 * The entries of an execution-layer node record (ENR, EIP-778) on Base's discv5 network:
 *
 * - `opel`: the EIP-2124 fork id of the node's chain, as the OP Stack's reth puts it (reth
 *   `NetworkStackId::OPEL`), in the EIP-868 entry form `[[forkhash, forknext], …]` (reth
 *   `EnrForkIdEntry`, geth `eth` entry: a list whose first item is the fork id; trailing items are
 *   allowed and ignored). Base's node refreshes it when a fork activates.
 * - `base`: an RLP string, the client version (base/base `BaseDiscoveryFilter::ENR_KEY`, value
 *   `version_enr_value()`): marks a member of Base's execution network whatever its value.
 *
 * Which records are dial candidates: those carrying `base`, or an `opel` fork id that passes the
 * EIP-2124 rules against the local chain. (Base's own filter, `BaseDiscoveryFilter::matches_enr`,
 * accepts `base`, or an `opel` equal to the chain's Azul fork id; basalt accepts any compatible
 * fork id, so that it also finds peers at the current fork.)
 */
import type { ForkFilter, ForkHead, ForkId } from "./forkId.js";
import { rlpUint } from "./rlpItems.js";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";

/** The ENR key of the execution-layer fork id on OP Stack chains. */
export const OPEL_ENR_KEY = "opel";
/** The ENR key marking a node of Base's execution network. */
export const BASE_ENR_KEY = "base";

/** The `opel` value as an ENR holds it: the decoded RLP list `[[hash, next]]`. */
type OpelEntry = [[Uint8Array, Uint8Array]];

/** The `opel` entry of `forkId`. */
export function opelEntry(forkId: ForkId): OpelEntry {
  return [[forkId.hash, bigIntToUnpaddedBytes(forkId.next)]];
}

/** The fork id of an `opel` entry (an ENR's decoded value), or undefined when it is not `[[4-byte hash, next], …]`. */
export function decodeOpelEntry(value: unknown): ForkId | undefined {
  if (!Array.isArray(value) || value.length < 1) return undefined;
  const f = value[0] as unknown;
  if (!Array.isArray(f) || f.length < 2 || !(f[0] instanceof Uint8Array) || f[0].length !== 4) return undefined;
  const next = rlpUint(f[1]);
  return next === undefined ? undefined : { hash: f[0], next };
}

/** Why a record is not a dial candidate, or undefined when it is. */
type ElEnrRefusal = "noBaseOrOpel" | "opelMalformed" | "opelIncompatible";

/** Whether a record with entries `kvs` is a peer of this chain (see the module comment). */
export function elEnrFilter(kvs: ReadonlyMap<string, unknown>, forks: ForkFilter, head: ForkHead): ElEnrRefusal | undefined {
  if (kvs.has(BASE_ENR_KEY)) return undefined;
  if (!kvs.has(OPEL_ENR_KEY)) return "noBaseOrOpel";
  const forkId = decodeOpelEntry(kvs.get(OPEL_ENR_KEY));
  if (forkId === undefined) return "opelMalformed";
  try {
    forks.validate(head, forkId);
    return undefined;
  } catch {
    return "opelIncompatible";
  }
}
