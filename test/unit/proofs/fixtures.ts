/**
 * Helpers of the historical-proofs trie tests: an in-memory versioned-by-path store (the model of
 * the RocksDB store the sync steps feed), @ethereumjs/mpt tries over an in-memory node map (the
 * reference), and an independent listing of the nodes a trie holds by path (walked with
 * @ethereumjs/mpt's own node decoding) to compare the model and the steps with.
 */
import { BranchMPTNode, ExtensionMPTNode, MerklePatriciaTrie, createMerkleProof, decodeMPTNode, decodeRawMPTNode, verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_NULL, KECCAK256_RLP, MapDB, ValueEncoding, bigIntToUnpaddedBytes, type NestedUint8Array } from "@ethereumjs/util";
import { expect } from "vitest";
import { accountProof, proveKey, type NodeAt } from "../../../src/proofs/proof.js";
import { stepState, type StateChanges, type StateNodeChange } from "../../../src/proofs/stateStep.js";
import type { PathRead } from "../../../src/proofs/trieStep.js";
import { pathName } from "../../../src/proofs/trieErrors.js";
import type { TrieRef } from "../../../src/proofs/types.js";
import type { TrieChange } from "../../../src/storage/trie/update.js";
import { bytesEqual, fromHex, toHex } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";

/** The in-memory node map of @ethereumjs/mpt tries: unprefixed hex hash → node RLP. */
export type NodeMap = MapDB<string, Uint8Array>;

/** A new {@link NodeMap}. */
export function nodeMap(): NodeMap {
  return new MapDB<string, Uint8Array>();
}

/** A node of a {@link NodeMap} by hash (synchronously). */
export function nodeByHash(db: NodeMap, hash: Uint8Array): Uint8Array | undefined {
  return db._database.get(toHex(hash));
}

/** One path's change between two tries, as the model takes it. */
export interface NodeDelta {
  path: Uint8Array;
  before: Uint8Array | null;
  after: Uint8Array | null;
}

/** The path of a {@link pathName} (one hex digit a nibble). */
export function pathOfName(name: string): Uint8Array {
  return Uint8Array.from([...name].map((c) => parseInt(c, 16)));
}

/** The deltas that take a trie holding nodes `before` to one holding `after` (path name → hex RLP), in path order. */
export function deltasBetween(before: Map<string, string>, after: Map<string, string>): NodeDelta[] {
  const out: NodeDelta[] = [];
  for (const p of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [x, y] = [before.get(p), after.get(p)];
    if (x !== y) out.push({ path: pathOfName(p), before: x === undefined ? null : fromHex(x), after: y === undefined ? null : fromHex(y) });
  }
  return out;
}

/** A reader (of one trie, at one block) over a listing of its nodes. */
export function listingReader(nodes: Map<string, string>): PathRead {
  return async (path) => {
    const rlp = nodes.get(pathName(path));
    return rlp === undefined ? undefined : fromHex(rlp);
  };
}

/** Hex of bytes, "null" for null (readable expectations). */
export function hexOrNull(b: Uint8Array | null | undefined): string {
  return b === null || b === undefined ? "null" : toHex(b);
}

/** An @ethereumjs/mpt trie over `db` (keys hashed with keccak256 when `hashing`), at `root` or empty. */
export function mpt(db: NodeMap, hashing: boolean, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ db, valueEncoding: ValueEncoding.Bytes, useKeyHashing: hashing, useKeyHashingFunction: keccak256, ...(root === undefined ? {} : { root }) });
}

/**
 * The versioned-by-path store in memory: per path, the node stored there from each block on (null
 * for "none from here on"). Applying a block's deltas checks that each delta's `before` is what
 * the model holds at the previous block, that paths come in order (so none twice) and none
 * without a change.
 */
export class PathVersions {
  private readonly byPath = new Map<string, { block: number; node: Uint8Array | null }[]>();

  /** Records the deltas of block `block` (the changes from block `block - 1`). */
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
export function storedNodes(db: NodeMap, root: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (ref: Uint8Array | NestedUint8Array, path: number[]): void => {
    let node;
    if (ref instanceof Uint8Array) {
      const rlp = nodeByHash(db, ref);
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

/** A trie of a test state by name: {@link ACCOUNT_TRIE}, or a storage trie's hashed address (hex). */
export const ACCOUNT_TRIE = "account";

/** The name of a {@link TrieRef}. */
export function trieName(trie: TrieRef): string {
  return trie.kind === "account" ? ACCOUNT_TRIE : toHex(trie.hashedAddress);
}

/** A changed path of a state step in a comparable form: trie name, path name, hex RLP or "null" on each side. */
export type ChangeRow = [trie: string, path: string, base: string, result: string];

/** Rows of a step's changes, sorted. */
export function changeRows(changes: StateNodeChange[]): ChangeRow[] {
  return changes.map((c): ChangeRow => [trieName(c.trie), pathName(c.path), hexOrNull(c.base), hexOrNull(c.result)]).sort(compareRows);
}

function compareRows(a: ChangeRow, b: ChangeRow): number {
  return a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1;
}

/** The RLP of a test account's trie leaf with storage root `storageRoot`. */
function accountRlp(account: TestAccount, storageRoot: Uint8Array): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(account.nonce), bigIntToUnpaddedBytes(account.balance), storageRoot, account.codeHash]);
}

/** Which way a state step goes over a block: to the state after it, or to the one before it. */
export type Direction = "forward" | "back";

/**
 * A chain of test states written as @ethereumjs/mpt account and storage tries over one node map,
 * block by block from the empty state (block 0), with the historical-proofs models fed by the
 * sync's state steps ({@link stepState} over the models at the previous block) at each block.
 */
export class StateHistory {
  readonly db = nodeMap();
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

  /** Writes `next` as the next block's state; returns the forward step's changes (already applied to the models). */
  async commit(next: World): Promise<StateNodeChange[]> {
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
      await this.stateTrie.put(fromHex(address), accountRlp(n, storageRoot));
    }
    const root = this.stateTrie.root();
    this.roots.push(root);
    this.worlds.push(cloneWorld(next));
    this.storageRoots.push(roots);
    const models = (trie: TrieRef): PathVersions | undefined => (trie.kind === "account" ? this.accountModel : this.storageModels.get(toHex(trie.hashedAddress)));
    const step = await stepState({
      block: BigInt(block),
      readAt: (trie) => models(trie)?.nodeAt(block - 1) ?? nothingStored,
      baseRoot: this.roots[block - 1]!,
      targetRoot: root,
      changes: this.changes(block, "forward"),
    });
    const byTrie = new Map<string, NodeDelta[]>();
    for (const c of step.changes) {
      const name = trieName(c.trie);
      if (!byTrie.has(name)) byTrie.set(name, []);
      byTrie.get(name)!.push({ path: c.path, before: c.base, after: c.result });
    }
    for (const [name, deltas] of byTrie) {
      let model = name === ACCOUNT_TRIE ? this.accountModel : this.storageModels.get(name);
      if (model === undefined) this.storageModels.set(name, (model = new PathVersions()));
      model.apply(block, deltas);
    }
    return step.changes;
  }

  /**
   * Block `block`'s changes as trie changes towards the state after it (`forward`) or before it
   * (`back`): every account and slot that differs between the two states, with its value on the
   * side the step goes to, and each changed storage trie's roots.
   */
  changes(block: number, direction: Direction): StateChanges {
    const [from, to] = direction === "forward" ? [block - 1, block] : [block, block - 1];
    const [a, b] = [this.worlds[from]!, this.worlds[to]!];
    const [rootsA, rootsB] = [this.storageRoots[from]!, this.storageRoots[to]!];
    const out: StateChanges = { accounts: [], storage: [] };
    for (const address of [...new Set([...a.keys(), ...b.keys()])].sort()) {
      const [x, y] = [a.get(address), b.get(address)];
      const [rootX, rootY] = [rootsA.get(address) ?? KECCAK256_RLP, rootsB.get(address) ?? KECCAK256_RLP];
      const slots: TrieChange[] = [];
      for (const slot of [...new Set([...(x?.storage.keys() ?? []), ...(y?.storage.keys() ?? [])])].sort()) {
        const v = y?.storage.get(slot) ?? 0n;
        if (v !== (x?.storage.get(slot) ?? 0n)) slots.push({ key: keccak256(fromHex(slot)), value: v === 0n ? undefined : RLP.encode(bigIntToUnpaddedBytes(v)) });
      }
      const hashedAddress = keccak256(fromHex(address));
      if (slots.length > 0) out.storage.push({ hashedAddress, baseRoot: rootX, targetRoot: rootY, changes: slots });
      const [leafX, leafY] = [x === undefined ? undefined : accountRlp(x, rootX), y === undefined ? undefined : accountRlp(y, rootY)];
      if (hexOrNull(leafX) !== hexOrNull(leafY)) out.accounts.push({ key: hashedAddress, value: leafY });
    }
    return out;
  }

  /** Every node of the state at `block` by trie name and path name (hex RLP): what the proofs store holds at that block. */
  storedState(block: number): Map<string, Map<string, string>> {
    const out = new Map<string, Map<string, string>>([[ACCOUNT_TRIE, storedNodes(this.db, this.roots[block]!)]]);
    for (const [address, root] of this.storageRoots[block]!) {
      if (!bytesEqual(root, KECCAK256_RLP)) out.set(toHex(keccak256(fromHex(address))), storedNodes(this.db, root));
    }
    return out;
  }

  /** The changes a state step from block `from` to block `to` must give: every path whose node differs, in {@link changeRows} form. */
  expectedChanges(from: number, to: number): ChangeRow[] {
    const [a, b] = [this.storedState(from), this.storedState(to)];
    const rows: ChangeRow[] = [];
    for (const trie of new Set([...a.keys(), ...b.keys()])) {
      for (const d of deltasBetween(a.get(trie) ?? new Map(), b.get(trie) ?? new Map())) rows.push([trie, pathName(d.path), hexOrNull(d.before), hexOrNull(d.after)]);
    }
    return rows.sort(compareRows);
  }

  /** A state step over block `block` (`forward`: from `block - 1`; `back`: from `block`) reading a faithful store of the base block's nodes. */
  async step(block: number, direction: Direction, opts: { concurrency?: number } = {}): Promise<Awaited<ReturnType<typeof stepState>>> {
    const [from, to] = direction === "forward" ? [block - 1, block] : [block, block - 1];
    const state = this.storedState(from);
    return stepState({
      block: BigInt(block),
      readAt: (trie) => listingReader(state.get(trieName(trie)) ?? new Map()),
      baseRoot: this.roots[from]!,
      targetRoot: this.roots[to]!,
      changes: this.changes(block, direction),
      ...opts,
    });
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
