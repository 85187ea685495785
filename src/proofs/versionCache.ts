/**
 * The proofs store's cache of node versions: for recently used paths, block ranges over which the
 * node at the path is known — `[from, to]`, `to` = the block before the path's next version, or
 * open-ended for its newest version — so a read at any block of a known range needs no RocksDB
 * read. The upper levels of the tries are read by every proof and change at most once per
 * block, so proofs at the same or nearby blocks (a challenger's output-root block, `latest`)
 * share them; the leaves of different keys mostly miss.
 *
 * The store keeps it exact: ranges come from reads that no write overlapped (the version v found
 * at or below block N holds over [v, N], and from v on when N is the latest) and from the
 * versions each new block commits; a write that moves or removes versions of a path (a step back,
 * an unwind, a prune) forgets that path. Ranges of one version grow together: [v, N₁] and
 * [v, N₂] are [v, max(N₁, N₂)], since version v holds from v until the path's next version.
 */
import { LruMap } from "../util/lru.js";

/** A block range over which a path holds one value (empty: no node). */
interface KnownRange {
  from: bigint;
  /** Last block of the range; undefined: open-ended (the path's newest version). */
  to: bigint | undefined;
  value: Uint8Array;
}

/** The known ranges of each recently used path (LRU over paths, a few ranges each). */
export class VersionCache {
  readonly #paths: LruMap<string, KnownRange[]>;

  constructor(
    maxPaths: number,
    private readonly maxRangesPerPath: number,
  ) {
    this.#paths = new LruMap(maxPaths);
  }

  /** The value of `path` at `block` if a known range covers it (empty: no node), else undefined. */
  get(path: string, block: bigint): Uint8Array | undefined {
    const ranges = this.#paths.get(path);
    if (ranges === undefined) return undefined;
    for (const r of ranges) if (r.from <= block && (r.to === undefined || block <= r.to)) return r.value;
    return undefined;
  }

  /** Records that `path` holds `value` over `[from, to]` (`to` undefined: from `from` on). */
  learn(path: string, from: bigint, to: bigint | undefined, value: Uint8Array): void {
    const ranges = this.#paths.get(path) ?? [];
    const same = ranges.find((r) => r.from === from);
    if (same !== undefined) {
      // One version: the union of what is known of it.
      if (same.to !== undefined && (to === undefined || to > same.to)) same.to = to;
      return;
    }
    ranges.push({ from, to, value });
    if (ranges.length > this.maxRangesPerPath) ranges.shift();
    this.#paths.set(path, ranges);
  }

  /**
   * A new newest version of `path` at `block` (a committed block): the open-ended range ends at
   * the block before, and the new one starts.
   */
  supersede(path: string, block: bigint, value: Uint8Array): void {
    const ranges = this.#paths.get(path);
    if (ranges !== undefined) for (const r of ranges) if (r.to === undefined) r.to = block - 1n;
    this.learn(path, block, undefined, value);
  }

  /** Forgets everything known of `path`. */
  forget(path: string): void {
    this.#paths.delete(path);
  }

  /** Paths held. */
  get size(): number {
    return this.#paths.size;
  }
}
