/**
 * One block's trie changes over the proofs store's own tries: the state after the block from the
 * state before it (forward sync), or before it from after it (backfill), by the batch trie update
 * of the main store (`storage/trie/update.ts`) run over the proofs store's nodes at the base block.
 * The result is every path whose hash-referenced node (or root) differs between the two sides,
 * with the node on each side: what the versioned-by-path store writes for the block.
 *
 * The store's reads are asynchronous (RocksDB) and the update is synchronous, so a step
 * 1. **prefetches** the nodes along every changed key's path, level by level, all keys of all
 *    tries at once (reads shared by path, {@link PROOFS_SYNC_READ_CONCURRENCY} in flight), plus
 *    the sibling a deletion may fold up into its parent where the branch could collapse;
 * 2. runs the update on a source over those nodes (each checked against its parent's hash: a
 *    store that disagrees with the root fails loudly); when it needs a node not prefetched, the
 *    miss is fetched and the update runs again on a fresh overlay;
 * 3. reads the diff off the overlay: its entries are the nodes of the result side at every path
 *    the update touched (null: none any more), its base reads the other side.
 * The caller checks the roots (trie by trie: a storage root against the account's, the account
 * trie's against the header's).
 */
import { KECCAK256_RLP } from "@ethereumjs/util";
import { PROOFS_SYNC_READ_CONCURRENCY } from "./constants.js";
import { TrieOverlay, pathOfString, pathString, type TrieNodeRead, type TrieSource } from "../storage/trie/source.js";
import { updateTrie, type TrieChange } from "../storage/trie/update.js";
import { toNibbles } from "../storage/trie/path.js";
import { nodeRlp } from "../storage/trie/walk.js";
import { to0x } from "../util/bytes.js";
import { keccak256 } from "../util/keccak.js";
import { TrieProofError, TrieProofErrorCode, pathName } from "./trieErrors.js";
import { decodeNode, isHashRef, sameBytes, type TrieNode } from "./trieNode.js";

/** Reads the node stored at a path of one trie at the step's base block (undefined: none). */
export type PathRead = (path: Uint8Array) => Promise<Uint8Array | undefined>;

/** One trie's part of a step. */
interface TrieStepInput {
  /** Reads the trie's nodes at the base block. */
  read: PathRead;
  /** The trie's root at the base block ({@link KECCAK256_RLP}: the empty trie). */
  root: Uint8Array;
  /** The changes to apply (hashed keys, values as the trie holds them; undefined deletes). */
  changes: TrieChange[];
  /** The trie in error messages: "the account trie", "the storage trie of 0x…". */
  name: string;
  /** Whether the changed keys' paths are read ahead (default true; false reads every node through the miss path: tests). */
  prefetch?: boolean;
}

/** A path whose node differs between the two sides of a step: RLP, or null for no node. */
export interface PathChange {
  path: Uint8Array;
  /** The node at the base block (what the update read). */
  base: Uint8Array | null;
  /** The node after the changes. */
  result: Uint8Array | null;
}

/** What a step over one trie gives. */
export interface TrieStepResult {
  /** The root after the changes. */
  root: Uint8Array;
  /** Every path whose node differs, in path order (a path before the paths it prefixes). */
  changes: PathChange[];
  /** Nodes read from the store (prefetched or missed). */
  reads: number;
  /** Nodes the update needed that were not prefetched (each costs one more run). */
  misses: number;
}

/** A source that cannot tell leaves from stored nodes marks every child stored: the hint only steers reads. */
const ALL_STORED = 0xffff;

/** Thrown by the cache's source at a path not read yet: fetched, then the update runs again. */
class CacheMiss extends Error {
  constructor(readonly path: Uint8Array) {
    super(`trie node at path ${pathName(path) || "(root)"} was not prefetched`);
  }
}

/** Runs at most `limit` of the tasks given to it at once (one per step, shared by its tries). */
export class ReadLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** One trie's nodes read from the store, by path string (null: the store has none there). */
class NodeCache {
  readonly nodes = new Map<string, Uint8Array | null>();
  reads = 0;

  constructor(
    private readonly read: PathRead,
    private readonly limiter: ReadLimiter,
  ) {}

  /** Reads the paths not cached yet, in parallel (callers await it before looking at {@link nodes}). */
  async fetch(paths: Iterable<Uint8Array>): Promise<void> {
    const todo: Promise<void>[] = [];
    for (const path of paths) {
      const k = pathString(path);
      if (this.nodes.has(k)) continue;
      this.nodes.set(k, null); // claimed (a path listed twice is read once); the read below fills it
      this.reads++;
      todo.push(
        this.limiter.run(async () => {
          const node = await this.read(path);
          this.nodes.set(k, node === undefined ? null : node);
        }),
      );
    }
    await Promise.all(todo);
  }
}

/** A changed key on its way down the prefetch: its nibbles and whether it is a deletion. */
interface Walker {
  nibbles: Uint8Array;
  del: boolean;
}


function childPath(path: Uint8Array, tail: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(path.length + tail.length);
  out.set(path);
  out.set(tail as Uint8Array, path.length);
  return out;
}

/**
 * Reads, level by level, the nodes on every changed key's path (and the lone sibling a deletion
 * could fold into a collapsing branch), all keys at once. A node that is missing or does not
 * decode is left for the update, which reports it with the path and hash.
 */
async function prefetch(cache: NodeCache, root: Uint8Array, changes: TrieChange[]): Promise<void> {
  if (sameBytes(root, KECCAK256_RLP) || changes.length === 0) return;
  let frontier = new Map<string, { path: Uint8Array; walkers: Walker[] }>([["", { path: new Uint8Array(0), walkers: changes.map((c) => ({ nibbles: toNibbles(c.key), del: c.value === undefined || c.value.length === 0 })) }]]);
  while (frontier.size > 0) {
    await cache.fetch([...frontier.values()].map((f) => f.path));
    const next = new Map<string, { path: Uint8Array; walkers: Walker[] }>();
    const visit = (path: Uint8Array, walkers: Walker[]): void => {
      const k = pathString(path);
      const at = next.get(k);
      if (at === undefined) next.set(k, { path, walkers });
      else at.walkers.push(...walkers);
    };
    for (const [k, { path, walkers }] of frontier) {
      const rlp = cache.nodes.get(k);
      if (rlp === null || rlp === undefined) continue;
      let node: TrieNode;
      try {
        node = decodeNode(rlp, k);
      } catch {
        continue;
      }
      descend(node, path, walkers, visit);
    }
    frontier = next;
  }
}

/** Hands each walker at `node` (at `path`) on to the hash-referenced child its key goes through. */
function descend(node: TrieNode, path: Uint8Array, walkers: Walker[], visit: (path: Uint8Array, walkers: Walker[]) => void): void {
  const depth = path.length;
  if (node.kind === "leaf") return;
  if (node.kind === "extension") {
    if (!isHashRef(node.child)) return; // an embedded subtree holds no stored node
    const through = walkers.filter((w) => w.nibbles.length >= depth + node.key.length && sameBytes(w.nibbles.subarray(depth, depth + node.key.length), node.key));
    if (through.length > 0) visit(childPath(path, node.key), through);
    return;
  }
  const groups = new Map<number, Walker[]>();
  for (const w of walkers) {
    if (w.nibbles.length <= depth) continue; // a key ending at this branch (its value)
    const n = w.nibbles[depth]!;
    const g = groups.get(n);
    if (g === undefined) groups.set(n, [w]);
    else g.push(w);
  }
  let children = 0;
  let vanishing = 0;
  for (let i = 0; i < node.children.length; i++) {
    const c = node.children[i];
    if (c === undefined) continue;
    children++;
    const g = groups.get(i);
    if (g !== undefined && g.every((w) => w.del)) vanishing++;
    if (g !== undefined && isHashRef(c)) visit(childPath(path, [i]), g);
  }
  // Deletions may leave one child, which the update then reads to merge it into this branch's place.
  if (vanishing > 0 && children - vanishing <= 1) {
    for (let i = 0; i < node.children.length; i++) {
      const c = node.children[i];
      if (c !== undefined && !groups.has(i) && isHashRef(c)) visit(childPath(path, [i]), []);
    }
  }
}

/** The update's source: the cache's nodes, each checked against the hash its parent holds. */
function cacheSource(cache: NodeCache, name: string): TrieSource {
  const checked = new Set<string>();
  return {
    node(path, hash): TrieNodeRead {
      const k = pathString(path);
      const rlp = cache.nodes.get(k);
      if (rlp === undefined) throw new CacheMiss(Uint8Array.from(path));
      if (!checked.has(k)) {
        const actual = rlp === null ? undefined : keccak256(rlp);
        if (actual === undefined || !sameBytes(actual, hash)) {
          const where = pathName(path);
          throw new TrieProofError(
            { code: TrieProofErrorCode.INCONSISTENT, path: where, expected: to0x(hash), ...(actual === undefined ? {} : { actual: to0x(actual) }) },
            `${name} of the proofs store holds ${actual === undefined ? "no node" : `node ${to0x(actual)}`} at path ${where || "(root)"}, where its parent references ${to0x(hash)}`,
          );
        }
        checked.add(k);
      }
      return { rlp: rlp!, storedMask: ALL_STORED };
    },
  };
}

function sameNode(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === null || b === null ? a === b : sameBytes(a, b);
}

/**
 * Applies `input.changes` to the trie of root `input.root` read through `input.read`; returns the
 * new root and every path whose node changed. Reads share `limiter` with the step's other tries.
 * @throws TrieProofError `PROOFS_INCONSISTENT` when the store lacks, or holds another node than,
 *   one its parent references; `PROOFS_MALFORMED_NODE`/StateTrieError for a node that does not decode.
 */
export async function stepTrie(input: TrieStepInput, limiter = new ReadLimiter(PROOFS_SYNC_READ_CONCURRENCY)): Promise<TrieStepResult> {
  const cache = new NodeCache(input.read, limiter);
  if (input.prefetch !== false) await prefetch(cache, input.root, input.changes);
  const source = cacheSource(cache, input.name);
  let misses = 0;
  for (;;) {
    const overlay = new TrieOverlay(source, { trackReads: true });
    let root: Uint8Array;
    try {
      root = updateTrie(overlay, input.root, input.changes);
    } catch (e) {
      if (!(e instanceof CacheMiss)) throw e;
      misses++;
      await cache.fetch([e.path]);
      continue;
    }
    const changes: PathChange[] = [];
    for (const p of [...overlay.entries.keys()].sort()) {
      const entry = overlay.entries.get(p)!;
      const depth = p.length;
      const result = entry === null ? null : nodeRlp(entry, depth);
      const read = overlay.baseReads!.get(p);
      const base = read === undefined ? null : nodeRlp(read, depth);
      if (!sameNode(base, result)) changes.push({ path: pathOfString(p), base, result });
    }
    return { root, changes, reads: cache.reads, misses };
  }
}
