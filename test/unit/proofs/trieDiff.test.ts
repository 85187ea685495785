/**
 * The trie diffs of the historical-proofs extension (src/proofs/trieDiff.ts) against
 * @ethereumjs/mpt tries: random sequences of blocks (inserts, updates, deletes, down to one key and
 * to the empty trie) over hashed keys, 32-byte keys with long shared prefixes and short keys of
 * varied lengths (branch values), with values small enough to embed nodes and large ones. Each
 * block's diff feeds an in-memory versioned-by-path model; afterwards, at every block, the model
 * holds exactly the trie's stored nodes by path and proves every key (present and absent) as
 * @ethereumjs/mpt does. diffState is checked the same way on account tries with storage tries.
 */
import { KECCAK256_RLP } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TrieNodeDb } from "../../../src/execution/state/trieNodeDb.js";
import { diffTrie, type NodeDelta } from "../../../src/proofs/trieDiff.js";
import { TrieProofError, pathName } from "../../../src/proofs/trieErrors.js";
import { bytesEqual, toHex } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { PathVersions, StateHistory, b, cloneWorld, expectSameProof, hexOrNull, mpt, nodeSource, storedNodes, type World } from "./fixtures.js";

/** A block's changes: puts (a value) and deletes (undefined) of keys by index in the pool, or a drain of all keys but the first live one, or of all. */
type Batch = [number, Uint8Array | undefined][] | "keepOne" | "clear";

/** A trie built block by block, with the model fed by its diffs and each block's root and contents. */
class TrieHistory {
  readonly db = new TrieNodeDb(undefined);
  readonly source = nodeSource(this.db);
  readonly model = new PathVersions();
  readonly roots: Uint8Array[] = [KECCAK256_RLP];
  /** The keys live after the last block (hex). */
  private readonly live = new Set<string>();
  private readonly trie;

  constructor(
    readonly keys: Uint8Array[],
    readonly hashing: boolean,
  ) {
    this.trie = mpt(this.db, hashing);
  }

  /** Applies a batch as the next block; returns its diff. */
  async block(batch: Batch): Promise<NodeDelta[]> {
    const live = [...this.live];
    const ops: [string, Uint8Array | undefined][] =
      batch === "clear" ? live.map((k) => [k, undefined]) : batch === "keepOne" ? live.slice(1).map((k) => [k, undefined]) : batch.map(([i, v]) => [toHex(this.keys[i % this.keys.length]!), v]);
    for (const [key, value] of ops) {
      if (value === undefined) {
        await this.trie.del(b(key));
        this.live.delete(key);
      } else {
        await this.trie.put(b(key), value);
        this.live.add(key);
      }
    }
    const root = this.trie.root();
    const deltas = diffTrie(this.source.get, this.roots.at(-1)!, root);
    this.model.apply(this.roots.length, deltas);
    this.roots.push(root);
    return deltas;
  }

  /**
   * At every block: the model holds the trie's stored nodes, and proves the pool's keys and
   * `absent` as @ethereumjs/mpt does, with the value @ethereumjs/mpt reads. (Its reads, not the
   * values written: @ethereumjs/mpt 10 loses a branch's value when a deletion leaves the branch one
   * child, e.g. puts of 0011, 00f0, 00 then a delete of 0011 lose 00; the trie it wrote is the
   * reference whatever it holds.)
   */
  async checkAll(absent: Uint8Array[] = []): Promise<void> {
    for (let n = 0; n < this.roots.length; n++) {
      expect(this.model.snapshot(n), `stored nodes at block ${n}`).toEqual(storedNodes(this.db, this.roots[n]!));
      const trie = mpt(this.db, this.hashing, this.roots[n]);
      for (const key of [...this.keys, ...absent]) await expectSameProof(this.model.nodeAt(n), trie, this.hashing, key, (await trie.get(key)) ?? undefined);
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

/** Keys of 1-3 bytes over a few byte values: many keys are prefixes of others (values in branches), many short nodes embed. */
const shortKeysArb = fc.uniqueArray(fc.array(fc.constantFrom(0x00, 0x01, 0x10, 0x11, 0xf0), { minLength: 1, maxLength: 3 }).map((k) => Uint8Array.from(k)), { minLength: 4, maxLength: 16, selector: toHex });

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

/** Addresses as random 20-byte keys, hashed by the trie. */
const hashedKeysArb = fc.uniqueArray(fc.uint8Array({ minLength: 20, maxLength: 20 }), { minLength: 4, maxLength: 24, selector: toHex });

/** A value too large for any node holding it to be embedded. */
const LARGE = new Uint8Array(40).fill(1);

/** A history of 32-byte keys starting with `prefixes` (then 7s), whose first `written` keys get {@link LARGE} in block 1. */
async function stemmed(prefixes: string[], written: number): Promise<TrieHistory> {
  const history = new TrieHistory(
    prefixes.map((p) => b(p.padEnd(64, "7"))),
    false,
  );
  await history.block(prefixes.slice(0, written).map((_, i) => [i, LARGE]));
  return history;
}

describe("diffTrie", () => {
  const cases: [string, fc.Arbitrary<Uint8Array[]>, boolean, Uint8Array[]][] = [
    ["hashed keys", hashedKeysArb, true, [new Uint8Array(20)]],
    ["32-byte keys sharing long prefixes (unhashed)", stemKeysArb, false, [new Uint8Array(32), new Uint8Array(32).fill(0xff)]],
    ["short keys of varied lengths, values in branches (unhashed)", shortKeysArb, false, [b("0000"), b("01"), b("1011"), b("f0f0f0f0")]],
  ];
  for (const [name, keysArb, hashing, absent] of cases) {
    it(`feeds a by-path model that proves every block as @ethereumjs/mpt does: ${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          keysArb.chain((keys) => fc.tuple(fc.constant(keys), batchesArb(keys.length))),
          async ([keys, batches]) => {
            const history = new TrieHistory(keys, hashing);
            for (const batch of batches) await history.block(batch);
            await history.checkAll(absent);
          },
        ),
        { seed: 0x5eed, numRuns: 150 },
      );
    });
  }

  it("reports the root only when an empty trie gets its first key, and when its last key goes", async () => {
    const history = new TrieHistory([b("01"), b("02")], false);
    const added = await history.block([[0, new Uint8Array(40)]]);
    expect(added.map((d) => [pathName(d.path), d.before === null, d.after === null])).toEqual([["", true, false]]);
    expect(await history.block([[0, new Uint8Array(40)]])).toEqual([]);
    const removed = await history.block("clear");
    expect(removed.map((d) => [pathName(d.path), hexOrNull(d.after)])).toEqual([["", "null"]]);
    expect(hexOrNull(removed[0]!.before)).toBe(hexOrNull(added[0]!.after));
    await history.checkAll([b("03")]);
  });

  it("reports a leaf that moves up after its sibling's deletion at its old path with no node after", async () => {
    // Root branch: at "1" a branch of leaves at "10" and "11"; at "2" a leaf.
    const history = await stemmed(["10", "11", "20"], 3);
    const deltas = await history.block([[1, undefined]]);
    const shape = new Map(deltas.map((d) => [pathName(d.path), [d.before === null ? "-" : "node", d.after === null ? "-" : "node"]]));
    expect(Object.fromEntries(shape)).toEqual({ "": ["node", "node"], "1": ["node", "node"], "10": ["node", "-"], "11": ["node", "-"] });
    // The leaf now at "1" is the one that was at "10", with one more nibble of key.
    const at1 = deltas.find((d) => pathName(d.path) === "1")!;
    expect(toHex(at1.after!)).toBe(storedNodes(history.db, history.roots.at(-1)!).get("1"));
    await history.checkAll();
  });

  it("leaves an unchanged branch alone when the extension above it splits", async () => {
    // Two keys under the stem "1234…": a root extension to a branch at "1234" whose subtree does not change.
    const history = await stemmed(["12340", "12341", "125"], 2);
    const before = storedNodes(history.db, history.roots.at(-1)!);
    expect([...before.keys()].sort()).toEqual(["", "1234", "12340", "12341"]);
    const reads = history.source.reads();
    const deltas = await history.block([[2, LARGE]]);
    // The root extension "1234" becomes extension "12" → branch at "12": "123" an extension "4" → the same branch at "1234".
    expect(deltas.map((d) => pathName(d.path))).toEqual(["", "12", "123", "125"]);
    // The two roots and the three new nodes; never the branch at "1234" (the same hash on both sides) nor its leaves.
    expect(history.source.reads() - reads).toBe(5);
    await history.checkAll();
  });

  it("reads only the nodes on a changed key's paths in a large trie", async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => keccak256(Uint8Array.of(i >> 8, i & 0xff)).subarray(0, 20));
    const history = new TrieHistory(keys, true);
    await history.block(keys.map((_, i): [number, Uint8Array] => [i, new Uint8Array(36).fill(i & 0xff)]));
    const trie = mpt(history.db, true, history.roots.at(-1));
    const depth = (await trie.findPath(keccak256(keys[7]!))).stack.length;
    const reads = history.source.reads();
    const deltas = await history.block([[7, new Uint8Array(36).fill(0xee)]]);
    // Every node from the root to the leaf changed, and nothing else was read.
    expect(deltas.length).toBe(depth);
    expect(history.source.reads() - reads).toBe(2 * depth);
  });

  it("gives no delta for the same root, and throws PROOFS_MISSING_NODE naming a node it cannot read", async () => {
    const history = new TrieHistory([b("01"), b("02"), b("03")], false);
    await history.block([
      [0, new Uint8Array(40)],
      [1, new Uint8Array(40)],
    ]);
    await history.block([[2, new Uint8Array(40)]]);
    const [, r1, r2] = history.roots as [Uint8Array, Uint8Array, Uint8Array];
    expect(diffTrie(history.source.get, r1, r1)).toEqual([]);
    const withoutR2 = (h: Uint8Array): Uint8Array | undefined => (bytesEqual(h, r2) ? undefined : history.source.get(h));
    let error: unknown;
    try {
      diffTrie(withoutR2, r1, r2);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TrieProofError);
    expect((error as TrieProofError).type).toEqual({ code: "PROOFS_MISSING_NODE", hash: "0x" + toHex(r2) });
  });

  it("throws PROOFS_MALFORMED_NODE naming a stored node that is not a trie node", () => {
    const root = keccak256(b("01"));
    const malformed: [string, string][] = [
      ["01", "not an RLP list"],
      ["c3010203", "a list of 3 items"],
      ["c2c0c0", "bad hex-prefix path"],
      ["c24001", "bad hex-prefix flag"],
      ["c20080", "empty extension"],
      ["c31081ff", "a child reference of 1 bytes"],
      ["c5cc0102", "truncated RLP"],
      ["d1" + "80".repeat(16) + "c0", "branch value is a list"],
    ];
    for (const [rlp, reason] of malformed) {
      let error: unknown;
      try {
        diffTrie(() => b(rlp), KECCAK256_RLP, root);
      } catch (e) {
        error = e;
      }
      expect((error as TrieProofError).type, rlp).toEqual({ code: "PROOFS_MALFORMED_NODE", where: "0x" + toHex(root), reason });
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

describe("diffState", () => {
  it("lists exactly the storage tries whose root changed, and feeds models that prove every account and slot at every block", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(stateOpArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }), async (blocks) => {
        const history = new StateHistory();
        let world: World = new Map();
        for (const ops of blocks) {
          world = cloneWorld(world);
          for (const op of ops) applyStateOp(world, op);
          const diff = await history.commit(world);
          expect(diff.storage.map((s) => toHex(s.hashedAddress))).toEqual(history.storageChanged(history.roots.length - 1));
        }
        for (let n = 0; n < history.roots.length; n++) await history.check(n, ADDRESSES, [...SLOTS, UNUSED_SLOT]);
      }),
      { seed: 0x5eed, numRuns: 40 },
    );
  });

  it("does not take an account whose leaf moved (its sibling deleted) for a storage change", async () => {
    // Three addresses: A and B share the first nibble of their hashed keys, C does not.
    const byNibble = new Map<number, Uint8Array[]>();
    for (let i = 0; ; i++) {
      const address = b(i.toString(16).padStart(40, "0"));
      const nibble = keccak256(address)[0]! >> 4;
      byNibble.set(nibble, [...(byNibble.get(nibble) ?? []), address]);
      if ([...byNibble.values()].some((v) => v.length === 2) && byNibble.size >= 2) break;
    }
    const [A, B] = [...byNibble.values()].find((v) => v.length === 2)!;
    const C = [...byNibble.values()].find((v) => v.length === 1)![0]!;
    const account = (slot?: number) => ({ nonce: 1n, balance: 5n, codeHash: keccak256(new Uint8Array(0)), storage: new Map(slot === undefined ? [] : [[toHex(SLOTS[slot]!), 7n]]) });
    const history = new StateHistory();
    await history.commit(new Map([[toHex(A!), account(0)], [toHex(B!), account(1)], [toHex(C!), account(2)]]));
    // Block 2: B goes; A's leaf moves up from below the branch it shared with B to that branch's place.
    const moved = await history.commit(new Map([[toHex(A!), account(0)], [toHex(C!), account(2)]]));
    const [keyA, keyB] = [toHex(keccak256(A!)), toHex(keccak256(B!))];
    let shared = 0;
    while (keyA[shared] === keyB[shared]) shared++;
    const deltaAt = (p: string): NodeDelta | undefined => moved.account.find((d) => pathName(d.path) === p);
    expect(deltaAt(keyA.slice(0, shared + 1))?.after).toBeNull();
    expect(deltaAt(keyA.slice(0, 1))?.after).not.toBeNull();
    expect(moved.storage.map((s) => toHex(s.hashedAddress))).toEqual([keyB]);
    expect(moved.storage[0]!.deltas.every((d) => d.after === null)).toBe(true);
    // Block 3: B comes back without storage (its storage root stays the empty root), A's storage changes.
    const third = await history.commit(new Map([[toHex(A!), account(3)], [toHex(B!), account()], [toHex(C!), account(2)]]));
    expect(third.storage.map((s) => toHex(s.hashedAddress))).toEqual([keyA]);
    for (let n = 0; n < history.roots.length; n++) await history.check(n, [A!, B!, C!, ADDRESSES[0]!], [...SLOTS, UNUSED_SLOT]);
  });
});
