/**
 * Helpers of the historical-proofs trie tests: an in-memory versioned-by-path store (the model of
 * the RocksDB store the diffs feed), @ethereumjs/mpt tries over an in-memory node map, and an
 * independent listing of the nodes a trie stores by path (walked with @ethereumjs/mpt's own node
 * decoding) to compare the model with.
 */
import { BranchMPTNode, ExtensionMPTNode, MerklePatriciaTrie, createMerkleProof, decodeMPTNode, decodeRawMPTNode, verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_NULL, KECCAK256_RLP, ValueEncoding, bigIntToUnpaddedBytes, type NestedUint8Array } from "@ethereumjs/util";
import { expect } from "vitest";
import { TrieNodeDb } from "../../../src/execution/state/trieNodeDb.js";
import { accountProof, proveKey, type NodeAt } from "../../../src/proofs/proof.js";
import { diffState, type NodeDelta, type StateDiff } from "../../../src/proofs/trieDiff.js";
import { pathName } from "../../../src/proofs/trieErrors.js";
import { bytesEqual, fromHex, toHex } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";

/** Hex of bytes, "null" for null (readable expectations). */
export function hexOrNull(b: Uint8Array | null | undefined): string {
  return b === null || b === undefined ? "null" : toHex(b);
}

/** An @ethereumjs/mpt trie over `db` (keys hashed with keccak256 when `hashing`), at `root` or empty. */
export function mpt(db: TrieNodeDb, hashing: boolean, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ db, valueEncoding: ValueEncoding.Bytes, useKeyHashing: hashing, useKeyHashingFunction: keccak256, ...(root === undefined ? {} : { root }) });
}

/** A `get` by hash over an in-memory node map, counting its reads. */
export function nodeSource(db: TrieNodeDb): { get: (hash: Uint8Array) => Uint8Array | undefined; reads: () => number } {
  let reads = 0;
  return {
    get: (hash) => {
      reads++;
      return db.getSync(toHex(hash));
    },
    reads: () => reads,
  };
}

/**
 * The versioned-by-path store in memory: per path, the node stored there from each block on (null
 * for "none from here on"). Applying a diff checks that each delta's `before` is what the model
 * holds at the previous block, that paths come in order (so none twice) and none without a change.
 */
export class PathVersions {
  private readonly byPath = new Map<string, { block: number; node: Uint8Array | null }[]>();

  /** Records the deltas of block `block` (the diff from block `block - 1`). */
  apply(block: number, deltas: NodeDelta[]): void {
    let previous: string | undefined;
    for (const d of deltas) {
      const path = pathName(d.path);
      // In path order (one hex digit a nibble sorts as the nibbles do), so no path twice.
      if (previous !== undefined) expect(path > previous, `"${path}" after "${previous}"`).toBe(true);
      previous = path;
      expect(hexOrNull(d.before), `delta at "${path}" changes nothing`).not.toBe(hexOrNull(d.after));
      expect(hexOrNull(d.before), `"before" at "${path}"`).toBe(hexOrNull(this.at(path, block - 1)));
      let versions = this.byPath.get(path);
      if (versions === undefined) this.byPath.set(path, (versions = []));
      versions.push({ block, node: d.after });
    }
  }

  /** The node stored at a path (as named by `pathName`) at a block: the newest version at or before it. */
  at(path: string, block: number): Uint8Array | null {
    const versions = this.byPath.get(path) ?? [];
    let node: Uint8Array | null = null;
    for (const v of versions) if (v.block <= block) node = v.node;
    return node;
  }

  /** The store's reader at a block. */
  nodeAt(block: number): NodeAt {
    return async (path) => this.at(pathName(path), block) ?? undefined;
  }

  /** Every stored node at a block: path name → hex RLP. */
  snapshot(block: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const path of this.byPath.keys()) {
      const node = this.at(path, block);
      if (node !== null) out.set(path, toHex(node));
    }
    return out;
  }

  /** Replaces the node at a path from a block on (to corrupt the model). */
  overwrite(path: string, block: number, node: Uint8Array | null): void {
    const versions = this.byPath.get(path) ?? [];
    this.byPath.set(path, [...versions.filter((v) => v.block < block), { block, node }]);
  }

  /** The paths with any version. */
  paths(): string[] {
    return [...this.byPath.keys()];
  }
}

/** Every node the trie of `root` stores by path (hashed nodes and the root): path name → hex RLP, read with @ethereumjs/mpt's decoding. */
export function storedNodes(db: TrieNodeDb, root: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (ref: Uint8Array | NestedUint8Array, path: number[]): void => {
    let node;
    if (ref instanceof Uint8Array) {
      const rlp = db.getSync(toHex(ref));
      if (rlp === undefined) throw new Error(`node ${toHex(ref)} missing`);
      out.set(pathName(Uint8Array.from(path)), toHex(rlp));
      node = decodeMPTNode(rlp);
    } else {
      node = decodeRawMPTNode(ref as Uint8Array[]);
    }
    if (node instanceof BranchMPTNode) for (const [i, child] of node.getChildren()) visit(child, [...path, i]);
    else if (node instanceof ExtensionMPTNode) visit(node.value() as Uint8Array | NestedUint8Array, [...path, ...node.key()]);
  };
  if (!bytesEqual(root, KECCAK256_RLP)) visit(root, []);
  return out;
}

/**
 * Checks the proof of `key` from the model at `block` against @ethereumjs/mpt's for the trie `trie`
 * (the trie of that block), byte for byte, its value against `expected`, and that the proof
 * verifies against the root (ethereumjs refuses to verify the empty trie's empty proof).
 */
export async function expectSameProof(nodeAt: NodeAt, trie: MerklePatriciaTrie, hashing: boolean, key: Uint8Array, expected: Uint8Array | undefined): Promise<void> {
  const root = trie.root();
  const ours = await proveKey(nodeAt, root, hashing ? keccak256(key) : key);
  const theirs = await createMerkleProof(trie, key);
  expect(ours.proof.map(toHex)).toEqual(theirs.map(toHex));
  expect(hexOrNull(ours.value)).toBe(hexOrNull(expected));
  if (bytesEqual(root, KECCAK256_RLP)) return;
  const verified = await verifyMerkleProof(key, ours.proof, { root, useKeyHashing: hashing, useKeyHashingFunction: keccak256 });
  expect(hexOrNull(verified)).toBe(hexOrNull(expected));
}

/** An account of a test state: its storage by slot (hex of the 32-byte word; zero values are absent). */
export interface TestAccount {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  storage: Map<string, bigint>;
}

/** A test state: accounts by address (hex). */
export type World = Map<string, TestAccount>;

/** A copy of a world that can be changed without changing the original. */
export function cloneWorld(w: World): World {
  return new Map([...w].map(([a, acc]) => [a, { ...acc, storage: new Map(acc.storage) }]));
}

/** The reader of a store with no node anywhere (a storage trie never written). */
const nothingStored: NodeAt = async () => undefined;

/**
 * A chain of test states written as @ethereumjs/mpt account and storage tries over one node map,
 * block by block from the empty state (block 0), with the historical-proofs model fed by
 * {@link diffState} at each block.
 */
export class StateHistory {
  readonly db = new TrieNodeDb(undefined);
  private readonly stateTrie = mpt(this.db, true);
  /** State root of each block. */
  readonly roots: Uint8Array[] = [KECCAK256_RLP];
  /** The state of each block. */
  readonly worlds: World[] = [new Map()];
  /** Storage root of each account at each block (by address hex). */
  readonly storageRoots: Map<string, Uint8Array>[] = [new Map()];
  readonly accountModel = new PathVersions();
  /** Models of the storage tries by hashed address (hex). */
  readonly storageModels = new Map<string, PathVersions>();

  /** Writes `next` as the next block's state; returns its diff from the previous block (already applied to the models). */
  async commit(next: World): Promise<StateDiff> {
    const block = this.roots.length;
    const prev = this.worlds[block - 1]!;
    const prevRoots = this.storageRoots[block - 1]!;
    const roots = new Map<string, Uint8Array>();
    for (const address of new Set([...prev.keys(), ...next.keys()])) {
      const p = prev.get(address);
      const n = next.get(address);
      if (n === undefined) {
        await this.stateTrie.del(fromHex(address));
        continue;
      }
      const storage = mpt(this.db, true, prevRoots.get(address) ?? KECCAK256_RLP);
      for (const slot of new Set([...(p?.storage.keys() ?? []), ...n.storage.keys()])) {
        const v = n.storage.get(slot) ?? 0n;
        if (v === (p?.storage.get(slot) ?? 0n)) continue;
        if (v === 0n) await storage.del(fromHex(slot));
        else await storage.put(fromHex(slot), RLP.encode(bigIntToUnpaddedBytes(v)));
      }
      const storageRoot = storage.root();
      roots.set(address, storageRoot);
      await this.stateTrie.put(fromHex(address), RLP.encode([bigIntToUnpaddedBytes(n.nonce), bigIntToUnpaddedBytes(n.balance), storageRoot, n.codeHash]));
    }
    const root = this.stateTrie.root();
    const diff = diffState((h) => this.db.getSync(toHex(h)), this.roots[block - 1]!, root);
    this.accountModel.apply(block, diff.account);
    for (const { hashedAddress, deltas } of diff.storage) {
      const key = toHex(hashedAddress);
      let model = this.storageModels.get(key);
      if (model === undefined) this.storageModels.set(key, (model = new PathVersions()));
      model.apply(block, deltas);
    }
    this.roots.push(root);
    this.worlds.push(cloneWorld(next));
    this.storageRoots.push(roots);
    return diff;
  }

  /** The hashed addresses (hex, sorted) whose storage root differs between a block and the one before. */
  storageChanged(block: number): string[] {
    const [before, after] = [this.storageRoots[block - 1]!, this.storageRoots[block]!];
    const out: string[] = [];
    for (const address of new Set([...before.keys(), ...after.keys()])) {
      if (!bytesEqual(before.get(address) ?? KECCAK256_RLP, after.get(address) ?? KECCAK256_RLP)) out.push(toHex(keccak256(fromHex(address))));
    }
    return out.sort();
  }

  /**
   * At `block`: the models hold exactly the stored nodes of the account trie and of every storage
   * trie, and the proofs of `addresses` and `slots` from the models are @ethereumjs/mpt's, with
   * the state's values.
   */
  async check(block: number, addresses: Uint8Array[], slots: Uint8Array[]): Promise<void> {
    const root = this.roots[block]!;
    expect(this.accountModel.snapshot(block)).toEqual(storedNodes(this.db, root));
    for (const address of new Set([...this.worlds.flatMap((w) => [...w.keys()])])) {
      const model = this.storageModels.get(toHex(keccak256(fromHex(address))));
      const storageRoot = this.storageRoots[block]!.get(address) ?? KECCAK256_RLP;
      expect(model?.snapshot(block) ?? new Map(), `storage of ${address} at block ${block}`).toEqual(storedNodes(this.db, storageRoot));
    }
    const stateTrie = mpt(this.db, true, root);
    const storageNodeAt = (h: Uint8Array): NodeAt => this.storageModels.get(toHex(h))?.nodeAt(block) ?? nothingStored;
    for (const address of addresses) {
      const account = this.worlds[block]!.get(toHex(address));
      const ours = await accountProof(this.accountModel.nodeAt(block), storageNodeAt, root, address, slots);
      expect(ours.accountProof.map(toHex)).toEqual((await createMerkleProof(stateTrie, address)).map(toHex));
      const storageRoot = this.storageRoots[block]!.get(toHex(address)) ?? KECCAK256_RLP;
      expect({ nonce: ours.nonce, balance: ours.balance, storageRoot: toHex(ours.storageRoot), codeHash: toHex(ours.codeHash) }).toEqual({
        nonce: account?.nonce ?? 0n,
        balance: account?.balance ?? 0n,
        storageRoot: toHex(storageRoot),
        codeHash: toHex(account?.codeHash ?? KECCAK256_NULL),
      });
      const storageTrie = mpt(this.db, true, storageRoot);
      for (const [i, slot] of slots.entries()) {
        const p = ours.storageProof[i]!;
        expect(p.slot).toBe(slot);
        expect(p.value).toBe(account?.storage.get(toHex(slot)) ?? 0n);
        expect(p.proof.map(toHex)).toEqual((await createMerkleProof(storageTrie, slot)).map(toHex));
      }
    }
  }
}

/** Bytes of a hex string (test shorthand). */
export const b = fromHex;
