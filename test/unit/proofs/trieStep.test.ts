/**
 * The sync steps of the historical-proofs extension (src/proofs/trieStep.ts, stateStep.ts)
 * against @ethereumjs/mpt tries: random sequences of blocks (inserts, updates, deletes, down to
 * one key and to the empty trie) over hashed keys and over 32-byte keys with long shared
 * prefixes, with values small enough to embed nodes and large ones. Every block is stepped
 * forward (over a versioned-by-path model fed by the previous steps) and back (over the trie's
 * own nodes): the new root is @ethereumjs/mpt's, the changed paths are exactly the paths whose
 * node differs between the two tries, with the node on each side, and at every block the model
 * holds exactly the trie's nodes and proves every key (present and absent) as @ethereumjs/mpt
 * does. Also: the reads a step makes (a changed key's path, the sibling a deletion folds up, not
 * an unchanged subtree), a step run without prefetch (every node through the miss path), a store
 * that lacks or alters a node, and the state step (storage tries, then accounts) the same way,
 * with wiped storage, deleted and new accounts.
 */
import { KECCAK256_RLP } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProofsError } from "../../../src/proofs/errors.js";
import { stepState } from "../../../src/proofs/stateStep.js";
import { stepTrie, type PathRead, type TrieStepResult } from "../../../src/proofs/trieStep.js";
import { TrieProofError, pathName } from "../../../src/proofs/trieErrors.js";
import { StateTrieError } from "../../../src/storage/trie/errors.js";
import type { TrieChange } from "../../../src/storage/trie/update.js";
import type { TrieRef } from "../../../src/proofs/types.js";
import { toHex } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";
import {
  PathVersions,
  StateHistory,
  b,
  changeRows,
  cloneWorld,
  deltasBetween,
  expectSameProof,
  hexOrNull,
  listingReader,
  mpt,
  nodeMap,
  storedNodes,
  type NodeDelta,
  type World,
} from "./fixtures.js";

/** A block's changes: puts (a value) and deletes (undefined) of keys by index in the pool, or a drain of all keys but the first live one, or of all. */
type Batch = [number, Uint8Array | undefined][] | "keepOne" | "clear";

/** A read counted by path. */
function counting(read: PathRead): { read: PathRead; paths: string[] } {
  const paths: string[] = [];
  return { read: async (p) => (paths.push(pathName(p)), read(p)), paths };
}

/** The rows of one trie's step in comparable form. */
function rows(step: TrieStepResult): [string, string, string][] {
  return step.changes.map((c) => [pathName(c.path), hexOrNull(c.base), hexOrNull(c.result)]);
}

/** The same rows expected from the nodes of the two tries. */
function expectedRows(before: Map<string, string>, after: Map<string, string>): [string, string, string][] {
  return deltasBetween(before, after).map((d) => [pathName(d.path), hexOrNull(d.before), hexOrNull(d.after)]);
}

/** A trie built block by block with @ethereumjs/mpt, its by-path model fed by forward steps, and each block's root and contents. */
class TrieHistory {
  readonly db = nodeMap();
  readonly model = new PathVersions();
  readonly roots: Uint8Array[] = [KECCAK256_RLP];
  /** The keys each block changed (hex, in order), and the contents after each block (hex key → value). */
  readonly touched: string[][] = [[]];
  readonly contents: Map<string, Uint8Array>[] = [new Map()];
  private readonly trie;

  constructor(readonly keys: Uint8Array[]) {
    this.trie = mpt(this.db, false);
  }

  /** Applies a batch as the next block and steps the model forward over it; returns the step. */
  async block(batch: Batch, opts: { prefetch?: boolean } = {}): Promise<TrieStepResult> {
    const live = [...this.contents.at(-1)!.keys()];
    const ops: [string, Uint8Array | undefined][] =
      batch === "clear" ? live.map((k) => [k, undefined]) : batch === "keepOne" ? live.slice(1).map((k) => [k, undefined]) : batch.map(([i, v]) => [toHex(this.keys[i % this.keys.length]!), v]);
    const contents = new Map(this.contents.at(-1)!);
    for (const [key, value] of ops) {
      if (value === undefined) {
        await this.trie.del(b(key));
        contents.delete(key);
      } else {
        await this.trie.put(b(key), value);
        contents.set(key, value);
      }
    }
    const n = this.roots.length;
    const root = this.trie.root();
    const changes: TrieChange[] = ops.map(([k, v]) => ({ key: b(k), value: v }));
    const step = await stepTrie({ read: this.model.nodeAt(n - 1), root: this.roots[n - 1]!, changes, name: "the test trie", ...opts });
    expect(toHex(step.root), `root after block ${n}`).toBe(toHex(root));
    expect(rows(step), `changes of block ${n}`).toEqual(expectedRows(storedNodes(this.db, this.roots[n - 1]!), storedNodes(this.db, root)));
    this.model.apply(
      n,
      step.changes.map((c): NodeDelta => ({ path: c.path, before: c.base, after: c.result })),
    );
    this.roots.push(root);
    this.touched.push(ops.map(([k]) => k));
    this.contents.push(contents);
    return step;
  }

  /** Steps back over block `n` (its keys at their values in block `n - 1`) over the trie's nodes at `n`. */
  async back(n: number, opts: { prefetch?: boolean } = {}): Promise<TrieStepResult> {
    const changes: TrieChange[] = [...new Set(this.touched[n]!)].map((k) => ({ key: b(k), value: this.contents[n - 1]!.get(k) }));
    const at = storedNodes(this.db, this.roots[n]!);
    const step = await stepTrie({ read: listingReader(at), root: this.roots[n]!, changes, name: "the test trie", ...opts });
    expect(toHex(step.root), `root stepping back over block ${n}`).toBe(toHex(this.roots[n - 1]!));
    expect(rows(step), `changes stepping back over block ${n}`).toEqual(expectedRows(at, storedNodes(this.db, this.roots[n - 1]!)));
    return step;
  }

  /** At every block: the model holds the trie's stored nodes, and proves the pool's keys and `absent` as @ethereumjs/mpt does. */
  async checkAll(absent: Uint8Array[] = []): Promise<void> {
    for (let n = 0; n < this.roots.length; n++) {
      expect(this.model.snapshot(n), `stored nodes at block ${n}`).toEqual(storedNodes(this.db, this.roots[n]!));
      const trie = mpt(this.db, false, this.roots[n]);
      for (const key of [...this.keys, ...absent]) await expectSameProof(this.model.nodeAt(n), trie, false, key, this.contents[n]!.get(toHex(key)));
    }
  }
}

/** Values of 1-2 bytes (their leaves embed deep enough in the trie) or 33-48 bytes (never embedded). */
const valueArb = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 2 }), fc.uint8Array({ minLength: 33, maxLength: 48 }));

function batchesArb(poolSize: number): fc.Arbitrary<Batch[]> {
  const op = fc.tuple(fc.nat(poolSize - 1), fc.option(valueArb, { freq: 4, nil: undefined }));
  const batch: fc.Arbitrary<Batch> = fc.oneof({ weight: 8, arbitrary: fc.array(op, { minLength: 1, maxLength: 6 }) }, { weight: 1, arbitrary: fc.constant("keepOne" as const) }, { weight: 1, arbitrary: fc.constant("clear" as const) });
  return fc.array(batch, { minLength: 1, maxLength: 12 });
}

/** 32-byte keys that all share a random stem and differ from some nibble on: long extensions that split and merge. */
const stemKeysArb = fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.array(fc.tuple(fc.integer({ min: 40, max: 63 }), fc.uint8Array({ minLength: 32, maxLength: 32 })), { minLength: 3, maxLength: 16 })).map(([stem, variants]) =>
  variants.map(([from, tail]) => {
    const k = Uint8Array.from(stem);
    // Keep the stem's first `from` nibbles, take the rest from `tail`.
    for (let n = from; n < 64; n++) {
      const byte = n >> 1;
      const nibble = n & 1 ? tail[byte]! & 0x0f : tail[byte]! >> 4;
      k[byte] = n & 1 ? (k[byte]! & 0xf0) | nibble : (k[byte]! & 0x0f) | (nibble << 4);
    }
    return k;
  }),
);

/** Hashed keys: keccak256 of random 20-byte addresses (what the state tries hold). */
const hashedKeysArb = fc.uniqueArray(fc.uint8Array({ minLength: 20, maxLength: 20 }), { minLength: 4, maxLength: 24, selector: toHex }).map((as) => as.map((a) => keccak256(a)));

/** A value too large for any node holding it to be embedded. */
const LARGE = new Uint8Array(40).fill(1);

/** A history of 32-byte keys starting with `prefixes` (then 7s), whose first `written` keys get {@link LARGE} in block 1. */
async function stemmed(prefixes: string[], written: number): Promise<TrieHistory> {
  const history = new TrieHistory(prefixes.map((p) => b(p.padEnd(64, "7"))));
  await history.block(prefixes.slice(0, written).map((_, i) => [i, LARGE]));
  return history;
}

/** The error a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("no rejection");
}

describe("stepTrie", () => {
  const cases: [string, fc.Arbitrary<Uint8Array[]>, Uint8Array[]][] = [
    ["hashed keys", hashedKeysArb, [new Uint8Array(32)]],
    ["32-byte keys sharing long prefixes", stemKeysArb, [new Uint8Array(32), new Uint8Array(32).fill(0xff)]],
  ];
  for (const [name, keysArb, absent] of cases) {
    it(`steps forward and back to @ethereumjs/mpt's root and node changes, feeding a model that proves every block: ${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          keysArb.chain((keys) => fc.tuple(fc.constant(keys), batchesArb(keys.length))),
          async ([keys, batches]) => {
            const history = new TrieHistory(keys);
            for (const batch of batches) await history.block(batch);
            for (let n = history.roots.length - 1; n >= 1; n--) await history.back(n);
            await history.checkAll(absent);
          },
        ),
        { seed: 0x5eed, numRuns: 120 },
      );
    });
  }

  it("gives the same changes without prefetch, every node read through the miss path", async () => {
    await fc.assert(
      fc.asyncProperty(
        hashedKeysArb.chain((keys) => fc.tuple(fc.constant(keys), batchesArb(keys.length))),
        async ([keys, batches]) => {
          const history = new TrieHistory(keys);
          for (const batch of batches) {
            const step = await history.block(batch, { prefetch: false });
            expect(step.misses).toBe(step.reads);
          }
          for (let n = history.roots.length - 1; n >= 1; n--) await history.back(n, { prefetch: false });
        },
      ),
      { seed: 0x5eed, numRuns: 40 },
    );
  });

  it("changes only the root when an empty trie gets its first key, and when its last key goes", async () => {
    const history = new TrieHistory([b("01".padEnd(64, "0")), b("02".padEnd(64, "0"))]);
    const added = await history.block([[0, new Uint8Array(40)]]);
    expect(added.changes.map((c) => [pathName(c.path), c.base === null, c.result === null])).toEqual([["", true, false]]);
    expect(added.reads).toBe(0);
    expect((await history.block([[0, new Uint8Array(40)]])).changes).toEqual([]);
    const removed = await history.block("clear");
    expect(removed.changes.map((c) => [pathName(c.path), hexOrNull(c.result)])).toEqual([["", "null"]]);
    expect(hexOrNull(removed.changes[0]!.base)).toBe(hexOrNull(added.changes[0]!.result));
    await history.back(3);
    await history.checkAll([b("03".padEnd(64, "0"))]);
  });

  it("moves a leaf up after its sibling's deletion (its old path left with no node), prefetching the sibling", async () => {
    // Root branch: at "1" a branch of leaves at "10" and "11"; at "2" a leaf.
    const history = await stemmed(["10", "11", "20"], 3);
    const step = await history.block([[1, undefined]]);
    const shape = new Map(step.changes.map((c) => [pathName(c.path), [c.base === null ? "-" : "node", c.result === null ? "-" : "node"]]));
    expect(Object.fromEntries(shape)).toEqual({ "": ["node", "node"], "1": ["node", "node"], "10": ["node", "-"], "11": ["node", "-"] });
    // The leaf now at "1" is the one that was at "10", with one more nibble of key; read ahead, not missed.
    expect(toHex(step.changes.find((c) => pathName(c.path) === "1")!.result!)).toBe(storedNodes(history.db, history.roots.at(-1)!).get("1"));
    expect(step.misses).toBe(0);
    // The root, "1", the deleted leaf and its sibling "10"; and "2", which the root would fold up had the deletion emptied "1".
    expect(step.reads).toBe(5);
    await history.back(2);
    await history.checkAll();
  });

  it("leaves an unchanged branch alone when the extension above it splits", async () => {
    // Two keys under the stem "1234…": a root extension to a branch at "1234" whose subtree does not change.
    const history = await stemmed(["12340", "12341", "125"], 2);
    expect([...storedNodes(history.db, history.roots.at(-1)!).keys()].sort()).toEqual(["", "1234", "12340", "12341"]);
    const reads = counting(history.model.nodeAt(1));
    const step = await stepTrie({ read: reads.read, root: history.roots[1]!, changes: [{ key: history.keys[2]!, value: LARGE }], name: "t" });
    // The root extension "1234" becomes extension "12" → branch at "12": "123" an extension "4" → the same branch at "1234".
    expect(step.changes.map((c) => pathName(c.path))).toEqual(["", "12", "123", "125"]);
    // Only the root is read; never the branch at "1234" nor its leaves.
    expect(reads.paths).toEqual([""]);
  });

  it("reads only the nodes on a changed key's path in a large trie, all at once per level", async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => keccak256(Uint8Array.of(i >> 8, i & 0xff)));
    const history = new TrieHistory(keys);
    await history.block(keys.map((_, i): [number, Uint8Array] => [i, new Uint8Array(36).fill(i & 0xff)]));
    const trie = mpt(history.db, false, history.roots.at(-1));
    const depth = (await trie.findPath(keys[7]!)).stack.length;
    const step = await history.block([[7, new Uint8Array(36).fill(0xee)]]);
    // Every node from the root to the leaf changed, and nothing else was read.
    expect(step.changes.length).toBe(depth);
    expect(step.reads).toBe(depth);
    expect(step.misses).toBe(0);
  });

  it("refuses a store that lacks or alters a node its parent references (PROOFS_INCONSISTENT naming the path)", async () => {
    const history = new TrieHistory([b("01".padEnd(64, "0")), b("02".padEnd(64, "0")), b("03".padEnd(64, "0"))]);
    await history.block([
      [0, LARGE],
      [1, LARGE],
    ]);
    const root = history.roots[1]!;
    const nodes = storedNodes(history.db, root);
    const change: TrieChange[] = [{ key: history.keys[0]!, value: new Uint8Array(40).fill(9) }];
    const missing = new Map(nodes);
    missing.delete("0");
    const e1 = await rejection(stepTrie({ read: listingReader(missing), root, changes: change, name: "the test trie" }));
    expect(e1).toBeInstanceOf(TrieProofError);
    expect((e1 as TrieProofError).type).toEqual({ code: "PROOFS_INCONSISTENT", path: "0", expected: "0x" + toHex(keccak256(b(nodes.get("0")!))) });
    const altered = new Map(nodes);
    altered.set("", nodes.get("0")!);
    const e2 = await rejection(stepTrie({ read: listingReader(altered), root, changes: change, name: "the test trie" }));
    expect((e2 as TrieProofError).type).toEqual({ code: "PROOFS_INCONSISTENT", path: "", expected: "0x" + toHex(root), actual: "0x" + toHex(keccak256(b(nodes.get("0")!))) });
    expect((e2 as Error).message).toMatch(/the test trie of the proofs store holds node 0x[0-9a-f]+ at path \(root\)/);
  });

  it("refuses a stored node that is not a trie node", async () => {
    for (const rlp of ["01", "c3010203"]) {
      const root = keccak256(b(rlp));
      const e = await rejection(stepTrie({ read: listingReader(new Map([["", rlp]])), root, changes: [{ key: new Uint8Array(32), value: LARGE }], name: "t" }));
      expect(e, rlp).toBeInstanceOf(StateTrieError);
      expect((e as StateTrieError).code).toBe("STATE_TRIE_BAD_NODE");
    }
  });
});

/** 12 addresses and 5 storage slots of the random state tests. */
const ADDRESSES = Array.from({ length: 12 }, (_, i) => b((i + 1).toString(16).padStart(40, "0")));
const SLOTS = Array.from({ length: 5 }, (_, i) => b(i.toString(16).padStart(64, "0")));
/** A slot no account ever writes (an absent storage key in every proof). */
const UNUSED_SLOT = b("ff".repeat(32));

/** One change to a state: by address index, slot index, value. */
type StateOp =
  | { kind: "account"; a: number; nonce: number; balance: bigint }
  | { kind: "slot"; a: number; s: number; value: bigint }
  | { kind: "clearStorage"; a: number }
  | { kind: "delete"; a: number };

const stateOpArb: fc.Arbitrary<StateOp> = fc.oneof(
  fc.record({ kind: fc.constant("account" as const), a: fc.nat(ADDRESSES.length - 1), nonce: fc.nat(3), balance: fc.bigInt({ min: 0n, max: 2n ** 80n }) }),
  fc.record({ kind: fc.constant("slot" as const), a: fc.nat(ADDRESSES.length - 1), s: fc.nat(SLOTS.length - 1), value: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 2n ** 256n - 1n })) }),
  fc.record({ kind: fc.constant("clearStorage" as const), a: fc.nat(ADDRESSES.length - 1) }),
  fc.record({ kind: fc.constant("delete" as const), a: fc.nat(ADDRESSES.length - 1) }),
);

/** `w` after `op` (a slot write or an account change creates the account). */
function applyStateOp(w: World, op: StateOp): void {
  const address = toHex(ADDRESSES[op.a]!);
  if (op.kind === "delete") return void w.delete(address);
  let account = w.get(address);
  if (account === undefined) w.set(address, (account = { nonce: 0n, balance: 0n, codeHash: keccak256(Uint8Array.of(op.a)), storage: new Map() }));
  if (op.kind === "account") Object.assign(account, { nonce: BigInt(op.nonce), balance: op.balance });
  else if (op.kind === "clearStorage") account.storage.clear();
  else if (op.value === 0n) account.storage.delete(toHex(SLOTS[op.s]!));
  else account.storage.set(toHex(SLOTS[op.s]!), op.value);
}

describe("stepState", () => {
  it("steps storage tries and the account trie forward and back to every changed node, feeding models that prove every account and slot at every block", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(stateOpArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }), async (blocks) => {
        const history = new StateHistory();
        let world: World = new Map();
        for (const ops of blocks) {
          world = cloneWorld(world);
          for (const op of ops) applyStateOp(world, op);
          const changes = await history.commit(world);
          const n = history.roots.length - 1;
          expect(changeRows(changes)).toEqual(history.expectedChanges(n - 1, n));
          // The storage tries stepped are those whose root changed.
          const storageTries = [...new Set(changes.flatMap((c) => (c.trie.kind === "storage" ? [toHex(c.trie.hashedAddress)] : [])))].sort();
          expect(storageTries).toEqual(history.storageChanged(n));
        }
        for (let n = history.roots.length - 1; n >= 1; n--) expect(changeRows((await history.step(n, "back")).changes)).toEqual(history.expectedChanges(n, n - 1));
        for (let n = 0; n < history.roots.length; n++) await history.check(n, ADDRESSES, [...SLOTS, UNUSED_SLOT]);
      }),
      { seed: 0x5eed, numRuns: 40 },
    );
  });

  it("steps over wiped storage, a deleted account and a new one, with one read in flight at a time", async () => {
    const account = (storage: [number, bigint][]) => ({ nonce: 1n, balance: 5n, codeHash: keccak256(b("6000")), storage: new Map(storage.map(([s, v]) => [toHex(SLOTS[s]!), v])) });
    const [A, B, C] = ADDRESSES.map(toHex) as [string, string, string];
    const history = new StateHistory();
    await history.commit(new Map([[A, account([[0, 1n], [1, 2n], [2, 3n]])], [B, account([[0, 7n]])]]));
    // A's storage wiped and one slot written again; B deleted with its storage; C created with storage.
    await history.commit(new Map([[A, account([[4, 9n]])], [C, account([[1, 1n], [3, 2n ** 200n]])]]));
    for (const [n, direction] of [[2, "forward"], [2, "back"], [1, "back"]] as const) {
      const step = await history.step(n, direction, { concurrency: 1 });
      const [from, to] = direction === "forward" ? [n - 1, n] : [n, n - 1];
      expect(changeRows(step.changes)).toEqual(history.expectedChanges(from, to));
    }
    // B's storage trie goes whole: its root node (every node) has no successor.
    const wipedB = (await history.step(2, "forward")).changes.filter((c) => c.trie.kind === "storage" && toHex(c.trie.hashedAddress) === toHex(keccak256(b(B))));
    expect(wipedB.length).toBeGreaterThan(0);
    expect(wipedB.every((c) => c.result === null)).toBe(true);
    await history.check(2, ADDRESSES.slice(0, 4), [...SLOTS, UNUSED_SLOT]);
  });

  it("refuses changes that do not give the main store's storage root or state root (PROOFS_ROOT_MISMATCH), writing nothing", async () => {
    const history = new StateHistory();
    const [A] = ADDRESSES.map(toHex) as [string];
    await history.commit(new Map([[A, { nonce: 1n, balance: 5n, codeHash: keccak256(b("6000")), storage: new Map([[toHex(SLOTS[0]!), 1n]]) }]]));
    await history.commit(new Map([[A, { nonce: 2n, balance: 5n, codeHash: keccak256(b("6000")), storage: new Map([[toHex(SLOTS[0]!), 2n]]) }]]));
    const state = history.storedState(1);
    const read = (trie: TrieRef): PathRead => listingReader(state.get(trie.kind === "account" ? "account" : toHex(trie.hashedAddress)) ?? new Map());
    const changes = history.changes(2, "forward");
    // A slot change dropped: the storage trie's root is not the account's.
    const noSlot = { ...changes, storage: changes.storage.map((s) => ({ ...s, changes: [] })) };
    const e1 = await rejection(stepState({ block: 2n, readAt: read, baseRoot: history.roots[1]!, targetRoot: history.roots[2]!, changes: noSlot }));
    expect(e1).toBeInstanceOf(ProofsError);
    expect((e1 as ProofsError).type).toMatchObject({ code: "PROOFS_ROOT_MISMATCH", block: "2", trie: "0x" + toHex(keccak256(b(A))) });
    // The account change dropped: the state root is not the header's.
    const noAccount = { ...changes, accounts: [] };
    const e2 = await rejection(stepState({ block: 2n, readAt: read, baseRoot: history.roots[1]!, targetRoot: history.roots[2]!, changes: noAccount }));
    expect((e2 as ProofsError).type).toMatchObject({ code: "PROOFS_ROOT_MISMATCH", block: "2", trie: "account", expected: "0x" + toHex(history.roots[2]!) });
  });
});
