/**
 * Verification of a stored path-keyed trie table against the nodes rebuilt from the flat leaves:
 * a merge of two ascending streams — the builder's emission (path, record) and the table's
 * entries (path key, record) — reporting the nodes the table lacks, the ones it has beyond the
 * rebuild, and the ones whose records differ. Neither side is held in memory: the comparator
 * pulls the stored iterator as the built nodes arrive, so a whole table is checked in one pass
 * (`new TrieBuilder(comparator.onNode)` fed the flat state, or {@link verifyTrie}).
 */
import { to0x } from "../../util/bytes.js";
import { TrieBuilder, type TrieLeaf } from "./builder.js";
import { StateTrieError, StateTrieErrorCode } from "./errors.js";
import { pathKey } from "./path.js";

/** A node of the rebuilt trie: its path (nibbles) and its record. */
interface BuiltNode {
  path: Uint8Array;
  record: Uint8Array;
}

/** An entry of a stored trie table: its path key (after the storage prefix, if any) and its record. */
export interface StoredNode {
  key: Uint8Array;
  value: Uint8Array;
}

/** One difference between the rebuilt and the stored trie, keys being path keys (with the prefix); bytes are copies. */
type TrieDifference =
  /** The rebuild has a node the table lacks. */
  | { kind: "missing"; key: Buffer; built: Buffer }
  /** The table has a node the rebuild lacks (stale, or outside the trie). */
  | { kind: "extra"; key: Buffer; stored: Buffer }
  /** Both have the node, with different records. */
  | { kind: "different"; key: Buffer; built: Buffer; stored: Buffer };

/** The outcome of a comparison: counts of every kind, and the first differences. */
export interface TrieComparison {
  /** Nodes in both with equal records. */
  matched: number;
  missing: number;
  extra: number;
  different: number;
  /** The first differences in key order, at most `maxDifferences`. */
  differences: TrieDifference[];
  /** Whether there were more differences than kept. */
  truncated: boolean;
  /** No difference at all. */
  ok: boolean;
}

/** Options of a comparison. */
interface CompareOptions {
  /** Prepended to the built paths' keys: the hashed address of a storage trie. */
  prefix?: Uint8Array;
  /** Differences kept in {@link TrieComparison.differences} (the counts cover all); default {@link DEFAULT_MAX_DIFFERENCES}. */
  maxDifferences?: number;
}

/** Differences kept by default: enough to see a pattern, bounded for a table that is wholly off. */
const DEFAULT_MAX_DIFFERENCES = 100;

/**
 * A streaming comparison: pass {@link onNode} the rebuilt nodes in ascending path-key order (a
 * {@link TrieBuilder}'s sink), then call {@link finish}. `stored` yields the table's entries in
 * ascending key order — every one is part of the comparison, so give the range of one trie (a
 * storage trie's prefix range). It is pulled lazily, an entry at a time; entries are copied only
 * when they go into a difference, so an iterator reusing its buffers is fine.
 */
export class TrieComparator {
  private readonly stored: Iterator<StoredNode>;
  private current: StoredNode | undefined;
  private lastBuilt: Buffer | undefined;
  private lastStored: Buffer | undefined;
  private readonly prefix: Uint8Array | undefined;
  private readonly max: number;
  private readonly result: TrieComparison = { matched: 0, missing: 0, extra: 0, different: 0, differences: [], truncated: false, ok: true };
  private done = false;

  constructor(stored: Iterable<StoredNode> | Iterator<StoredNode>, options: CompareOptions = {}) {
    this.stored = Symbol.iterator in stored ? stored[Symbol.iterator]() : stored;
    this.prefix = options.prefix;
    this.max = options.maxDifferences ?? DEFAULT_MAX_DIFFERENCES;
    this.advance();
  }

  /**
   * Takes the next rebuilt node (bound: usable as a builder's sink).
   * @throws StateTrieError `STATE_TRIE_UNSORTED_NODES` when a node or a stored entry is not above the previous one, `STATE_TRIE_FINISHED` after {@link finish}.
   */
  readonly onNode = (path: Uint8Array, record: Uint8Array): void => {
    if (this.done) throw finishedError();
    const key = pathKey(path, this.prefix);
    if (this.lastBuilt !== undefined && Buffer.compare(this.lastBuilt, key) >= 0) throw unsorted("built", this.lastBuilt, key);
    this.lastBuilt = key;
    let cur = this.current;
    while (cur !== undefined && Buffer.compare(cur.key, key) < 0) {
      this.extra(cur);
      cur = this.advance();
    }
    if (cur !== undefined && Buffer.compare(cur.key, key) === 0) {
      if (Buffer.compare(cur.value, record) === 0) this.result.matched++;
      else {
        this.result.different++;
        this.keep({ kind: "different", key, built: Buffer.from(record), stored: Buffer.from(cur.value) });
      }
      this.advance();
    } else {
      this.result.missing++;
      this.keep({ kind: "missing", key, built: Buffer.from(record) });
    }
  };

  /**
   * Ends the comparison: the stored entries left are extra. Returns the result (the same object on a second call).
   * @throws StateTrieError `STATE_TRIE_UNSORTED_NODES` when a remaining stored entry is out of order.
   */
  finish(): TrieComparison {
    if (!this.done) {
      for (let cur = this.current; cur !== undefined; cur = this.advance()) this.extra(cur);
      this.done = true;
    }
    return this.result;
  }

  private extra(cur: StoredNode): void {
    this.result.extra++;
    this.keep({ kind: "extra", key: Buffer.from(cur.key), stored: Buffer.from(cur.value) });
  }

  private keep(d: TrieDifference): void {
    this.result.ok = false;
    if (this.result.differences.length < this.max) this.result.differences.push(d);
    else this.result.truncated = true;
  }

  /** The next stored entry, checked to be above the previous one. */
  private advance(): StoredNode | undefined {
    const next = this.stored.next();
    if (next.done === true) return (this.current = undefined);
    const key = next.value.key;
    if (this.lastStored !== undefined && Buffer.compare(this.lastStored, key) >= 0) throw unsorted("stored", this.lastStored, key);
    // A copy of the key only: the order check needs it after the iterator moves on.
    this.lastStored = Buffer.from(key);
    return (this.current = next.value);
  }
}

function unsorted(side: "built" | "stored", previous: Uint8Array, key: Uint8Array): StateTrieError {
  return new StateTrieError({ code: StateTrieErrorCode.UNSORTED_NODES, side, previous: to0x(previous), key: to0x(key) }, `${side} trie node ${to0x(key)} is not above the previous one ${to0x(previous)}; expected strictly ascending path keys`);
}

function finishedError(): StateTrieError {
  return new StateTrieError({ code: StateTrieErrorCode.FINISHED }, "trie comparison fed a node after finish(); expected a new TrieComparator");
}

/** Compares rebuilt nodes (ascending path keys) with a stored table's entries (ascending keys) in one merge. */
export function compareTrie(built: Iterable<BuiltNode>, stored: Iterable<StoredNode> | Iterator<StoredNode>, options?: CompareOptions): TrieComparison {
  const cmp = new TrieComparator(stored, options);
  for (const { path, record } of built) cmp.onNode(path, record);
  return cmp.finish();
}

/**
 * Rebuilds the trie of `leaves` (strictly ascending 32-byte keys: the flat state) and compares
 * its nodes with the stored table's entries in the same pass; returns the root and the comparison.
 */
export function verifyTrie(leaves: Iterable<TrieLeaf>, stored: Iterable<StoredNode> | Iterator<StoredNode>, options?: CompareOptions): { root: Uint8Array; comparison: TrieComparison } {
  const cmp = new TrieComparator(stored, options);
  const builder = new TrieBuilder(cmp.onNode);
  for (const { key, value } of leaves) builder.add(key, value);
  const root = builder.finish();
  return { root, comparison: cmp.finish() };
}
