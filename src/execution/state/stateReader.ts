/**
 * Read-only views of the state at one block. The latest state is read from the flat tables (no
 * trie walk), by hashed key; older states from the history index over the flat tables.
 */
import { Account, KECCAK256_NULL, KECCAK256_RLP, bytesToBigInt } from "@ethereumjs/util";
import { RLP } from "@ethereumjs/rlp";
import type { ChainStore } from "../../storage/store.js";

import { CODE_CACHE_ENTRIES } from "../constants.js";
import { hashAddress } from "../../storage/hashedKeys.js";
import { keccak256 } from "../../util/keccak.js";
import { LruMap } from "../../util/lru.js";

/** Read access to the state at one block (synchronous: LMDB reads are). */
export interface StateReader {
  /** State root of the block this reader shows. */
  readonly stateRoot: Uint8Array;
  /** The account, or undefined when absent. */
  account(address: Uint8Array): Account | undefined;
  /** A storage value with leading zeros stripped (empty = zero). */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  /** Bytecode by code hash. */
  code(codeHash: Uint8Array): Uint8Array | undefined;
}

const EMPTY = new Uint8Array(0);

/** Bytecode by code hash, shared by the readers of this thread ({@link CODE_CACHE_ENTRIES}). */
const codeCache = new LruMap<string, Uint8Array>(CODE_CACHE_ENTRIES);

function cachedCode(store: ChainStore, codeHash: Uint8Array): Uint8Array | undefined {
  const k = Buffer.from(codeHash).toString("hex");
  const hit = codeCache.get(k);
  if (hit !== undefined) return hit;
  const c = store.getCode(codeHash);
  if (c !== undefined) codeCache.set(k, c);
  return c;
}

/** An account from its slim RLP (storage/accountCodec.ts): empty root and code hash written as empty strings. */
export function accountFromSlim(slim: Uint8Array | undefined): Account | undefined {
  if (slim === undefined) return undefined;
  const [nonce, balance, root, codeHash] = RLP.decode(slim) as Uint8Array[];
  return new Account(bytesToBigInt(nonce!), bytesToBigInt(balance!), root!.length === 0 ? KECCAK256_RLP : root!, codeHash!.length === 0 ? KECCAK256_NULL : codeHash!);
}

/** The latest (head) state, straight from the flat tables. */
export class LatestStateReader implements StateReader {
  constructor(
    private readonly store: ChainStore,
    readonly stateRoot: Uint8Array,
  ) {}
  account(address: Uint8Array): Account | undefined {
    return accountFromSlim(this.store.getAccount(hashAddress(address)));
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.store.getStorage(hashAddress(address), keccak256(slot)) ?? EMPTY;
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return cachedCode(this.store, codeHash);
  }
}

/** The state as of the end of canonical block `block`, via the history index. */
export class HistoricalStateReader implements StateReader {
  constructor(
    private readonly store: ChainStore,
    readonly block: bigint,
    readonly stateRoot: Uint8Array,
  ) {}
  account(address: Uint8Array): Account | undefined {
    return accountFromSlim(this.store.getHistoricalAccount(hashAddress(address), this.block));
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.store.getHistoricalStorage(hashAddress(address), keccak256(slot), this.block) ?? EMPTY;
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return cachedCode(this.store, codeHash);
  }
}

/** An empty state (before genesis). */
export class EmptyStateReader implements StateReader {
  readonly stateRoot: Uint8Array;
  constructor(emptyRoot: Uint8Array) {
    this.stateRoot = emptyRoot;
  }
  account(): Account | undefined {
    return undefined;
  }
  storage(): Uint8Array {
    return EMPTY;
  }
  code(): Uint8Array | undefined {
    return undefined;
  }
}
