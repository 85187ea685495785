/**
 * A reference model of the proofs store for the tests: a tree of blocks, each with the full
 * state of a fixed set of trie slots (what a read at that block must return), a canonical
 * window over it, and a seeded generator of store operations (forward blocks, backward steps,
 * unwinds, prunes) that keeps the model in step. Used in-process by store.test.ts and by the
 * child process of its kill test (crashChild.ts), which gets the operations as JSON.
 */
import type { ProofsStore } from "../../../src/proofs/store.js";
import type { BlockRef, NodeEntry, TrieRef } from "../../../src/proofs/types.js";
import { seededRandom } from "../../helpers/random.js";

/** A trie path of one trie: what a read names. */
export interface Slot {
  trie: TrieRef;
  path: Uint8Array;
}

/** A store operation, with slots by index into {@link ChainModel.slots}. */
export type Op =
  | { kind: "block"; block: BlockRef; parentHash: Uint8Array; changes: { slot: number; node: Uint8Array | null }[] }
  | { kind: "stepBack"; block: bigint; parent: BlockRef; deltas: { slot: number; before: Uint8Array | null; after: Uint8Array | null }[] }
  | { kind: "unwind"; target: BlockRef }
  | { kind: "prune"; target: BlockRef; maxBlocks: number };

/** A window as block numbers and hex hashes (what the store's window must equal). */
export interface WindowShape {
  earliest: string;
  latest: string;
}

interface ModelBlock {
  number: bigint;
  hash: Uint8Array;
  /** the parent's hash in hex, once known (a block stepped back over learns it then) */
  parent?: string;
  /** node per slot index; undefined = no node */
  state: (Uint8Array | undefined)[];
}

/** Sizes of a generated history. */
export interface ModelOptions {
  seed: number;
  /** trie slots (beyond the fixed corner cases) */
  slots: number;
  /** most slots one block changes */
  maxChanges: number;
  /** bytes of a generated node: 1..this */
  maxNodeBytes: number;
  /** the baseline's block number (room to step back below it) */
  baseline: bigint;
  /** the window is pruned rather than grown beyond this many blocks */
  maxWindow: number;
}

const hex = (b: Uint8Array | undefined | null): string => (b ? Buffer.from(b).toString("hex") : "-");

/** The store's window in the {@link WindowShape} form. */
export function windowShape(store: ProofsStore): WindowShape {
  const w = store.window();
  return { earliest: `${w.earliest?.number}:${hex(w.earliest?.hash)}`, latest: `${w.latest?.number}:${hex(w.latest?.hash)}` };
}

/** The model of one chain history and the window a store following the generated operations has. */
export class ChainModel {
  readonly slots: Slot[];
  /** every window a batch can leave, in order (one per unwound block for unwinds) */
  readonly windows: WindowShape[] = [];
  /** index into {@link windows} after each operation (the first is the baseline's) */
  readonly windowAfterOp: number[] = [];
  readonly #rand: () => number;
  readonly #opts: ModelOptions;
  /** canonical blocks of the window by number */
  readonly #canon = new Map<bigint, ModelBlock>();
  /** every block ever generated, by hex hash */
  readonly #blocks = new Map<string, ModelBlock>();
  #earliest: bigint;
  #latest: bigint;

  constructor(opts: ModelOptions) {
    this.#opts = opts;
    this.#rand = seededRandom(opts.seed);
    this.slots = this.#makeSlots(opts.slots);
    const base: ModelBlock = { number: opts.baseline, hash: this.#bytes(32), state: this.slots.map(() => (this.#rand() < 0.7 ? this.#node() : undefined)) };
    this.#add(base);
    this.#earliest = this.#latest = base.number;
    this.#recordWindow();
  }

  /** The baseline's nodes (every slot that has one at the baseline block). */
  baselineEntries(): NodeEntry[] {
    const base = this.#canon.get(this.#earliest)!;
    return base.state.flatMap((node, i) => (node ? [{ trie: this.slots[i]!.trie, path: this.slots[i]!.path, node }] : []));
  }

  /** The baseline block. */
  baselineHead(): BlockRef {
    return this.ref(this.#earliest);
  }

  /** The canonical block `n` of the window. */
  ref(n: bigint): BlockRef {
    const b = this.#canon.get(n);
    if (!b) throw new Error(`model has no canonical block ${n}`);
    return { number: b.number, hash: b.hash };
  }

  get earliest(): bigint {
    return this.#earliest;
  }

  get latest(): bigint {
    return this.#latest;
  }

  /** The window after the operations generated so far. */
  current(): WindowShape {
    return this.windows[this.windows.length - 1]!;
  }

  /** A random operation, applied to the model. */
  next(): Op {
    const r = this.#rand();
    const size = Number(this.#latest - this.#earliest);
    let op: Op;
    if (size > this.#opts.maxWindow || r < 0.2) op = this.#prune();
    else if (r < 0.35 && this.#latest > this.#earliest) op = this.#unwind();
    else if (r < 0.5 && this.#earliest > 0n) op = this.#stepBack();
    else op = this.#block();
    this.windowAfterOp.push(this.windows.length - 1);
    return op;
  }

  /** A child of the latest block with random changes. */
  #block(): Op {
    const parent = this.#canon.get(this.#latest)!;
    const state = [...parent.state];
    const changes = this.#pick().map((slot) => {
      const node = this.#rand() < 0.25 ? null : this.#node();
      state[slot] = node ?? undefined;
      return { slot, node };
    });
    const block: ModelBlock = { number: parent.number + 1n, hash: this.#bytes(32), parent: hex(parent.hash), state };
    this.#add(block);
    this.#latest = block.number;
    this.#recordWindow();
    return { kind: "block", block: { number: block.number, hash: block.hash }, parentHash: parent.hash, changes };
  }

  /** The window's start back by one block: to its known parent (after a prune), or to a parent with invented changes. */
  #stepBack(): Op {
    const child = this.#canon.get(this.#earliest)!;
    const known = child.parent === undefined ? undefined : this.#blocks.get(child.parent);
    if (known) {
      const deltas = known.state.flatMap((before, slot) => {
        const after = child.state[slot];
        return hex(before) === hex(after) ? [] : [{ slot, before: before ?? null, after: after ?? null }];
      });
      this.#add(known);
      this.#earliest = known.number;
      this.#recordWindow();
      return { kind: "stepBack", block: child.number, parent: { number: known.number, hash: known.hash }, deltas };
    }
    const state = [...child.state];
    const deltas = this.#pick().map((slot) => {
      const before = this.#rand() < 0.3 ? null : this.#node();
      state[slot] = before ?? undefined;
      return { slot, before, after: child.state[slot] ?? null };
    });
    const parent: ModelBlock = { number: child.number - 1n, hash: this.#bytes(32), state };
    child.parent = hex(parent.hash);
    this.#add(parent);
    this.#earliest = parent.number;
    this.#recordWindow();
    return { kind: "stepBack", block: child.number, parent: { number: parent.number, hash: parent.hash }, deltas };
  }

  #unwind(): Op {
    const target = this.#earliest + BigInt(Math.floor(this.#rand() * Number(this.#latest - this.#earliest + 1n)));
    const ref = this.ref(target);
    while (this.#latest > target) {
      this.#canon.delete(this.#latest);
      this.#latest--;
      this.#recordWindow();
    }
    return { kind: "unwind", target: ref };
  }

  #prune(): Op {
    const targetNumber = this.#earliest + BigInt(Math.floor(this.#rand() * Number(this.#latest - this.#earliest + 4n)));
    const target = targetNumber <= this.#latest ? this.ref(targetNumber) : { number: targetNumber, hash: this.#bytes(32) };
    const maxBlocks = Math.floor(this.#rand() * 7);
    let to = this.#earliest + BigInt(maxBlocks);
    if (target.number < to) to = target.number;
    if (this.#latest < to) to = this.#latest;
    if (to > this.#earliest) {
      for (let n = this.#earliest; n < to; n++) this.#canon.delete(n);
      this.#earliest = to;
      this.#recordWindow();
    }
    return { kind: "prune", target, maxBlocks };
  }

  #add(block: ModelBlock): void {
    this.#canon.set(block.number, block);
    this.#blocks.set(hex(block.hash), block);
  }

  /**
   * What reads must return in window `w` (one of {@link windows}): per block number of the
   * window, per slot, the node in hex ("-" for none), from the chain ending at w's latest.
   */
  readsOf(w: WindowShape): Map<bigint, string[]> {
    const out = new Map<bigint, string[]>();
    const earliest = BigInt(w.earliest.split(":")[0]!);
    let block = this.#blocks.get(w.latest.split(":")[1]!);
    while (block && block.number >= earliest) {
      out.set(block.number, block.state.map(hex));
      if (block.number === earliest && `${block.number}:${hex(block.hash)}` !== w.earliest) throw new Error(`window ${w.earliest} is not on the chain of ${w.latest}`);
      block = block.parent === undefined ? undefined : this.#blocks.get(block.parent);
    }
    if (!out.has(earliest)) throw new Error(`window ${w.earliest}..${w.latest} is not a chain of the model`);
    return out;
  }

  /** Distinct random slot indexes, 1..maxChanges of them. */
  #pick(): number[] {
    const count = 1 + Math.floor(this.#rand() * this.#opts.maxChanges);
    const picked = new Set<number>();
    while (picked.size < Math.min(count, this.slots.length)) picked.add(Math.floor(this.#rand() * this.slots.length));
    return [...picked];
  }

  #recordWindow(): void {
    const e = this.#canon.get(this.#earliest)!;
    const l = this.#canon.get(this.#latest)!;
    this.windows.push({ earliest: `${e.number}:${hex(e.hash)}`, latest: `${l.number}:${hex(l.hash)}` });
  }

  /**
   * Slots over four tries (the account trie and three storage tries), with the corner cases
   * first: the root path in every trie, one path shared by every trie, an odd path next to the
   * same path with a 0 nibble appended (equal packed bytes, different lengths), a full 64-nibble
   * path; then `count` random paths.
   */
  #makeSlots(count: number): Slot[] {
    const tries: TrieRef[] = [
      { kind: "account" },
      { kind: "storage", hashedAddress: new Uint8Array(32).fill(0x11) },
      { kind: "storage", hashedAddress: new Uint8Array(32).fill(0x22) },
      { kind: "storage", hashedAddress: this.#bytes(32) },
    ];
    const fixed = [Uint8Array.of(), Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 3, 0), new Uint8Array(64).fill(15)];
    const slots = new Map<string, Slot>();
    const add = (trie: TrieRef, path: Uint8Array): void => {
      slots.set(`${trie.kind === "storage" ? hex(trie.hashedAddress) : "account"}/${path.join(",")}`, { trie, path });
    };
    for (const trie of tries) for (const path of fixed) add(trie, path);
    while (slots.size < tries.length * fixed.length + count) {
      const path = new Uint8Array(Math.floor(this.#rand() * 65)).map(() => Math.floor(this.#rand() * 16));
      add(tries[Math.floor(this.#rand() * tries.length)]!, path);
    }
    return [...slots.values()];
  }

  #node(): Uint8Array {
    return this.#bytes(1 + Math.floor(this.#rand() * this.#opts.maxNodeBytes));
  }

  #bytes(n: number): Uint8Array {
    return new Uint8Array(n).map(() => Math.floor(this.#rand() * 256));
  }
}

/** Runs `op` on `store`. */
export async function runOp(store: ProofsStore, slots: Slot[], op: Op): Promise<void> {
  switch (op.kind) {
    case "block":
      return store.writeBlock(op.block, op.parentHash, op.changes.map((c) => ({ ...slots[c.slot]!, node: c.node })));
    case "stepBack":
      return store.stepBack(op.block, op.parent, op.deltas.map((d) => ({ ...slots[d.slot]!, before: d.before, after: d.after })));
    case "unwind":
      return store.unwindTo(op.target);
    case "prune":
      await store.pruneTo(op.target, op.maxBlocks);
  }
}

/** JSON with bigints and byte arrays (for handing operations to a child process). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "bigint") return { $bigint: v.toString() };
    if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString("hex") };
    return v;
  });
}

/** The inverse of {@link toJson}. */
export function fromJson<T>(text: string): T {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === "object" && "$bigint" in v) return BigInt((v as { $bigint: string }).$bigint);
    if (v && typeof v === "object" && "$bytes" in v) return new Uint8Array(Buffer.from((v as { $bytes: string }).$bytes, "hex"));
    return v;
  }) as T;
}
