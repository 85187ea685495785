/**
 * The streaming trie builder (storage/trie/builder.ts) and the table comparison
 * (storage/trie/verify.ts) against @ethereumjs/mpt with raw 32-byte keys: roots for the empty
 * trie, one leaf, long shared prefixes, extensions of every length, embedded leaves, branches
 * and extensions (1-byte values under keys sharing 60+ nibbles), long values (2-byte RLP
 * lengths) and random sets of 1..2000 keys drawn to share prefixes. The emitted nodes are
 * exactly @ethereumjs/mpt's hash-referenced branches and extensions plus the root, at their
 * paths, with correct stored-children masks, in strictly ascending path-key order, each hashing
 * to its parent's reference. Unsorted, duplicate and malformed input throws the typed error;
 * the comparison finds missing, extra and changed nodes.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTrie, TrieBuilder, type TrieLeaf } from "../../../../src/storage/trie/builder.js";
import { StateTrieError, StateTrieErrorCode } from "../../../../src/storage/trie/errors.js";
import { packNibbles, pathKey } from "../../../../src/storage/trie/path.js";
import { branchRecord, extensionRecord, readRecord } from "../../../../src/storage/trie/record.js";
import { compareTrie, TrieComparator, verifyTrie, type StoredNode } from "../../../../src/storage/trie/verify.js";
import { toHex } from "../../../../src/util/bytes.js";
import { keccak256 } from "../../../../src/util/keccak.js";

/** A stored node as the tests compare them: path key and record, hex. */
interface Emitted {
  key: string;
  record: string;
}

type RawNode = (Uint8Array | RawNode)[];

/** Whether a decoded 2-item node is a leaf (hex-prefix flag 2 or 3). */
const isLeaf = (raw: RawNode): boolean => raw.length === 2 && ((raw[0] as Uint8Array)[0]! >> 4) >= 2;

/** The nibbles of a decoded 2-item node's hex-prefix path. */
function hexPrefixNibbles(compact: Uint8Array): number[] {
  const out: number[] = [];
  if ((compact[0]! >> 4) & 1) out.push(compact[0]! & 0x0f);
  for (let i = 1; i < compact.length; i++) out.push(compact[i]! >> 4, compact[i]! & 0x0f);
  return out;
}

async function mptOf(leaves: TrieLeaf[]): Promise<MerklePatriciaTrie> {
  const t = new MerklePatriciaTrie(); // raw keys: no key hashing
  for (const { key, value } of leaves) await t.put(key, value);
  return t;
}

/**
 * The nodes the tables store for @ethereumjs/mpt's trie: every branch and extension that is the
 * root or referenced by hash, as (path key, record), sorted by path key.
 */
async function mptStoredNodes(t: MerklePatriciaTrie): Promise<Emitted[]> {
  const out: Emitted[] = [];
  if (toHex(t.root()) === toHex(KECCAK256_RLP)) return out;
  const load = async (hash: Uint8Array): Promise<Uint8Array> => (await t.lookupNode(hash)).serialize();
  /** Visits the node `rlp` at `path`; returns whether it is stored (by hash, a branch or extension). */
  const visit = async (rlp: Uint8Array, path: number[], byHash: boolean): Promise<boolean> => {
    const raw = RLP.decode(rlp) as RawNode;
    if (raw.length === 17) {
      let mask = 0;
      for (let i = 0; i < 16; i++) {
        const c = raw[i]!;
        if (c instanceof Uint8Array && c.length === 0) continue;
        const hashed = c instanceof Uint8Array;
        const childRlp = hashed ? await load(c) : RLP.encode(c as never);
        if (hashed) expect(toHex(keccak256(childRlp))).toBe(toHex(c));
        if (await visit(childRlp, [...path, i], hashed)) mask |= 1 << i;
      }
      expect((raw[16] as Uint8Array).length).toBe(0);
      if (byHash) out.push({ key: toHex(pathKey(path)), record: toHex(branchRecord(mask, rlp)) });
      return byHash;
    }
    if (isLeaf(raw)) return false;
    const c = raw[1]!;
    const hashed = c instanceof Uint8Array;
    const childRlp = hashed ? await load(c) : RLP.encode(c as never);
    await visit(childRlp, [...path, ...hexPrefixNibbles(raw[0] as Uint8Array)], hashed);
    if (byHash) out.push({ key: toHex(pathKey(path)), record: toHex(extensionRecord(rlp)) });
    return byHash;
  };
  await visit(await load(t.root()), [], true);
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Builds with the builder, collecting the emission in order. */
function build(leaves: TrieLeaf[]): { root: Uint8Array; nodes: { path: Uint8Array; record: Buffer }[] } {
  const nodes: { path: Uint8Array; record: Buffer }[] = [];
  const root = buildTrie(leaves, (path, record) => nodes.push({ path, record }));
  return { root, nodes };
}

/**
 * Checks the emission on its own: strictly ascending path keys, records that decode, every
 * non-root node hashing to the reference its nearest emitted ancestor (its parent) holds for
 * it, and the root record (when the root is stored) hashing to the root.
 */
function checkEmission(root: Uint8Array, nodes: { path: Uint8Array; record: Buffer }[]): void {
  const byPath = new Map<string, { path: Uint8Array; raw: RawNode; rlp: Uint8Array }>();
  for (let i = 0; i < nodes.length; i++) {
    const { path, record } = nodes[i]!;
    if (i > 0) expect(Buffer.compare(pathKey(nodes[i - 1]!.path), pathKey(path))).toBeLessThan(0);
    const rec = readRecord(record);
    expect(rec).toBeDefined();
    const raw = RLP.decode(rec!.rlp) as RawNode;
    expect(raw.length === 17 ? "branch" : "extension").toBe(rec!.kind);
    byPath.set(toHex(path), { path, raw, rlp: rec!.rlp });
    if (path.length === 0) {
      expect(i).toBe(nodes.length - 1); // the root is last
      expect(toHex(keccak256(rec!.rlp))).toBe(toHex(root));
      continue;
    }
    if (rec!.rlp.length < 32) throw new Error(`non-root node of ${rec!.rlp.length} bytes emitted at ${toHex(path)}`);
  }
  for (const { path, rlp } of byPath.values()) {
    if (path.length === 0) continue;
    let parent: { path: Uint8Array; raw: RawNode } | undefined;
    for (let d = path.length - 1; d >= 0 && parent === undefined; d--) parent = byPath.get(toHex(path.subarray(0, d)));
    expect(parent, `parent of ${toHex(path)}`).toBeDefined();
    const { path: pp, raw } = parent!;
    const ref = raw.length === 17 ? raw[path[pp.length]!] : raw[1];
    if (raw.length === 2) expect(pp.length + hexPrefixNibbles(raw[0] as Uint8Array).length).toBe(path.length);
    else expect(path.length).toBe(pp.length + 1);
    expect(toHex(ref as Uint8Array)).toBe(toHex(keccak256(rlp)));
  }
}

/** Builder and @ethereumjs/mpt agree on the root and the stored nodes; the emission checks out. */
async function expectSameAsMpt(leaves: TrieLeaf[]): Promise<{ path: Uint8Array; record: Buffer }[]> {
  const sorted = [...leaves].sort((a, b) => Buffer.compare(a.key, b.key));
  const { root, nodes } = build(sorted);
  const t = await mptOf(sorted);
  expect(toHex(root)).toBe(toHex(t.root()));
  checkEmission(root, nodes);
  const want = await mptStoredNodes(t);
  expect(nodes.map((n) => ({ key: toHex(pathKey(n.path)), record: toHex(n.record) }))).toEqual(want);
  return nodes;
}

/** A key from nibbles (padded with `fill`). */
function keyOf(nibbles: number[], fill = 0): Uint8Array {
  const n = [...nibbles];
  while (n.length < 64) n.push(fill);
  return packNibbles(n);
}

/** A deterministic pseudo-random byte string. */
function bytes(seed: number, len: number): Uint8Array {
  const out = new Uint8Array(len);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < len; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** An account-like leaf value (~70 bytes, RLP of [nonce, balance, storageRoot, codeHash]). */
const accountValue = (seed: number): Uint8Array => RLP.encode([seed % 1000, bytes(seed, 8), bytes(seed + 1, 32), bytes(seed + 2, 32)]);

/** The error a call throws, as a StateTrieError. */
function thrown(f: () => unknown): StateTrieError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(StateTrieError);
    return e as StateTrieError;
  }
  throw new Error("expected a StateTrieError");
}

describe("TrieBuilder roots and stored nodes against @ethereumjs/mpt", () => {
  it("the empty trie: KECCAK256_RLP, nothing stored", async () => {
    const { root, nodes } = build([]);
    expect(toHex(root)).toBe(toHex(KECCAK256_RLP));
    expect(nodes).toEqual([]);
    expect(await expectSameAsMpt([])).toEqual([]);
  });

  it("one leaf: the root is the leaf, never stored (long and short values)", async () => {
    for (const value of [accountValue(1), Uint8Array.of(1), Uint8Array.of(0x80), bytes(3, 300)]) {
      const nodes = await expectSameAsMpt([{ key: bytes(7, 32), value }]);
      expect(nodes).toEqual([]);
    }
  });

  it("two leaves sharing long prefixes: a root extension over a branch", async () => {
    for (const shared of [1, 2, 17, 40, 62, 63]) {
      const prefix = Array.from({ length: shared }, (_, i) => (i * 7 + 3) & 15);
      const a = keyOf([...prefix, 2], 5);
      const b = keyOf([...prefix, 9], 1);
      for (const value of [accountValue(shared), Uint8Array.of(1)]) await expectSameAsMpt([{ key: a, value }, { key: b, value }]);
    }
  });

  it("extensions of every length below the root, odd and even, next to a sibling leaf", async () => {
    for (let len = 1; len <= 62; len++) {
      const prefix = Array.from({ length: len }, (_, i) => (i * 5 + 1) & 15);
      // Two keys under nibble 3 sharing `len` more nibbles (an extension of len at depth 1), a third under nibble 8.
      const leaves = [
        { key: keyOf([3, ...prefix, 0], 1), value: accountValue(len) },
        { key: keyOf([3, ...prefix, 15], 2), value: accountValue(len + 1) },
        { key: keyOf([8], 3), value: Uint8Array.of(len) },
      ];
      await expectSameAsMpt(leaves);
    }
  });

  it("embedded leaves, branches and extensions (1-byte values under keys sharing 60+ nibbles)", async () => {
    const base = Array.from({ length: 60 }, (_, i) => (i * 3 + 2) & 15);
    const sets: number[][][] = [
      // Leaves at depth 64 under a branch at 63: the branch embeds them and is itself short.
      [[...base, 1, 1, 1, 0], [...base, 1, 1, 1, 5]],
      [[...base, 1, 1, 1, 0], [...base, 1, 1, 1, 5], [...base, 1, 1, 1, 15]],
      // A short branch at 63 under an extension from 61, next to other leaves.
      [[...base, 1, 2, 3, 0], [...base, 1, 2, 3, 9], [...base, 1, 7, 0, 0], [...base, 4, 0, 0, 0]],
      // Deep short structures next to ordinary leaves elsewhere: extensions ≥ 32 bytes over embedded branches.
      [[0, 1], [...base, 7, 7, 7, 1], [...base, 7, 7, 7, 2], [15, 15]],
      [[...base, 0, 0, 0, 0], [...base, 0, 0, 0, 1], [...base, 0, 0, 1, 0], [...base, 0, 1, 0, 0], [...base, 1, 0, 0, 0]],
    ];
    for (const set of sets) {
      for (const value of [Uint8Array.of(1), Uint8Array.of(0x7f), Uint8Array.of(0x81, 2)]) {
        await expectSameAsMpt(set.map((n) => ({ key: keyOf(n), value })));
      }
    }
    // Every key of a 2-nibble-wide subtree at the bottom: 256 leaves, all embedded.
    const full: TrieLeaf[] = [];
    for (let i = 0; i < 256; i++) full.push({ key: keyOf([...base, 9, 9, i >> 4, i & 15]), value: Uint8Array.of(1 + (i % 100)) });
    await expectSameAsMpt(full);
  });

  it("long values: RLP strings and lists with 1- and 2-byte lengths", async () => {
    const leaves: TrieLeaf[] = [];
    for (const [i, len] of [55, 56, 57, 200, 255, 256, 300, 70_000].entries()) {
      leaves.push({ key: bytes(100 + i, 32), value: bytes(i, len) });
    }
    await expectSameAsMpt(leaves);
  });

  it("random sets of 1..2000 keys sharing prefixes, account-like and tiny values (property)", async () => {
    /** A key: a prefix from a small pool (0..64 nibbles) then random nibbles. */
    const keyArb = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.uint8Array({ minLength: 32, maxLength: 32 })).map(([pool, tail]) => {
      const nib = [...tail].flatMap((b) => [b >> 4, b & 15]);
      const shared = [0, 1, 2, 7, 32, 61][pool]!;
      for (let i = 0; i < shared; i++) nib[i] = (i * 11 + pool) & 15;
      return Buffer.from(packNibbles(nib)).toString("hex");
    });
    const valueArb = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 2 }), fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 1e6 }).map(accountValue));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(keyArb, valueArb), { minLength: 1, maxLength: 2000, size: "max", selector: ([k]) => k }), async (entries) => {
        await expectSameAsMpt(entries.map(([k, value]) => ({ key: Buffer.from(k, "hex"), value })));
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it("20 000 random hashed keys with account values", async () => {
    const leaves = Array.from({ length: 20_000 }, (_, i) => ({ key: keccak256(bytes(i, 20)), value: accountValue(i) }));
    const nodes = await expectSameAsMpt(leaves);
    expect(nodes.length).toBeGreaterThan(5_000);
  }, 60_000);

  it("counts leaves and emitted nodes, also without a sink", () => {
    const leaves = Array.from({ length: 500 }, (_, i) => ({ key: keccak256(bytes(i, 20)), value: accountValue(i) })).sort((a, b) => Buffer.compare(a.key, b.key));
    const { root, nodes } = build(leaves);
    const b = new TrieBuilder();
    for (const l of leaves) b.add(l.key, l.value);
    expect(toHex(b.finish())).toBe(toHex(root));
    expect(b.leafCount).toBe(500);
    expect(b.nodeCount).toBe(nodes.length);
  });

  it("copies keys and values: a caller may reuse its buffers", () => {
    const leaves = Array.from({ length: 300 }, (_, i) => ({ key: keccak256(bytes(i, 20)), value: accountValue(i) })).sort((a, b) => Buffer.compare(a.key, b.key));
    const b = new TrieBuilder();
    const key = new Uint8Array(32);
    let value = new Uint8Array(0);
    for (const l of leaves) {
      key.set(l.key);
      value = new Uint8Array(l.value.length);
      value.set(l.value);
      b.add(key, value);
      value.fill(0xee);
    }
    expect(toHex(b.finish())).toBe(toHex(buildTrie(leaves)));
  });
});

describe("TrieBuilder input errors", () => {
  const k = (n: number): Uint8Array => keyOf([n >> 4, n & 15], 0);

  it("a descending key: STATE_TRIE_UNSORTED_LEAVES, the builder unchanged", () => {
    const b = new TrieBuilder();
    b.add(k(5), Uint8Array.of(1));
    b.add(k(9), Uint8Array.of(2));
    const e = thrown(() => b.add(k(7), Uint8Array.of(3)));
    expect(e.code).toBe(StateTrieErrorCode.UNSORTED_LEAVES);
    expect(e.meta).toMatchObject({ index: 2, duplicate: false });
    expect(e.message).toMatch(/expected strictly ascending keys/);
    b.add(k(12), Uint8Array.of(4));
    expect(toHex(b.finish())).toBe(toHex(buildTrie([5, 9, 12].map((n, i) => ({ key: k(n), value: Uint8Array.of(i === 2 ? 4 : i + 1) })))));
  });

  it("an equal key: STATE_TRIE_UNSORTED_LEAVES with duplicate set", () => {
    const e = thrown(() => buildTrie([{ key: k(5), value: Uint8Array.of(1) }, { key: k(5), value: Uint8Array.of(2) }]));
    expect(e.code).toBe(StateTrieErrorCode.UNSORTED_LEAVES);
    expect(e.meta).toMatchObject({ index: 1, duplicate: true });
  });

  it("keys that differ only in the low nibble of the last byte, descending", () => {
    const a = keyOf([], 0);
    const b = Uint8Array.from(a);
    b[31] = 1;
    const e = thrown(() => buildTrie([{ key: b, value: Uint8Array.of(1) }, { key: a, value: Uint8Array.of(1) }]));
    expect(e.code).toBe(StateTrieErrorCode.UNSORTED_LEAVES);
  });

  it("a key of the wrong length: STATE_TRIE_BAD_KEY; an empty value: STATE_TRIE_EMPTY_VALUE", () => {
    const b = new TrieBuilder();
    const e = thrown(() => b.add(new Uint8Array(31), Uint8Array.of(1)));
    expect(e.code).toBe(StateTrieErrorCode.BAD_KEY);
    expect(e.meta).toMatchObject({ length: 31 });
    expect(thrown(() => b.add(new Uint8Array(33), Uint8Array.of(1))).code).toBe(StateTrieErrorCode.BAD_KEY);
    expect(thrown(() => b.add(k(1), new Uint8Array(0))).code).toBe(StateTrieErrorCode.EMPTY_VALUE);
    expect(b.leafCount).toBe(0);
    expect(toHex(b.finish())).toBe(toHex(KECCAK256_RLP));
  });

  it("use after finish: STATE_TRIE_FINISHED", () => {
    const b = new TrieBuilder();
    b.add(k(1), Uint8Array.of(1));
    b.finish();
    expect(thrown(() => b.add(k(2), Uint8Array.of(1))).code).toBe(StateTrieErrorCode.FINISHED);
    expect(thrown(() => b.finish()).code).toBe(StateTrieErrorCode.FINISHED);
  });
});

describe("compareTrie", () => {
  const leaves = Array.from({ length: 3000 }, (_, i) => ({ key: keccak256(bytes(i, 20)), value: accountValue(i) })).sort((a, b) => Buffer.compare(a.key, b.key));
  const { nodes } = build(leaves);
  const table = (prefix?: Uint8Array): StoredNode[] => nodes.map((n) => ({ key: pathKey(n.path, prefix), value: Buffer.from(n.record) }));

  it("an identical table: no difference", () => {
    const r = compareTrie(nodes, table());
    expect(r).toMatchObject({ ok: true, matched: nodes.length, missing: 0, extra: 0, different: 0, truncated: false });
    expect(r.differences).toEqual([]);
  });

  it("finds a missing node, an extra node and a changed record, in key order", () => {
    const t = table();
    const missing = t.splice(100, 1)[0]!;
    const changed = t[500]!;
    changed.value = Buffer.from(changed.value);
    changed.value[changed.value.length - 1]! ^= 1;
    // An extra node: a path below a stored branch where nothing is stored (a nibble path of 63 nibbles).
    const extraKey = pathKey(new Uint8Array(63).fill(15));
    const extra = { key: extraKey, value: Buffer.from([1, 2, 3]) };
    const at = t.findIndex((e) => Buffer.compare(e.key, extraKey) > 0);
    t.splice(at, 0, extra);
    const r = compareTrie(nodes, t);
    expect(r).toMatchObject({ ok: false, matched: nodes.length - 2, missing: 1, extra: 1, different: 1 });
    expect(r.differences.map((d) => toHex(d.key))).toEqual([missing.key, changed.key, extraKey].map(toHex).sort());
    const byKind = Object.fromEntries(r.differences.map((d) => [d.kind, d]));
    expect(toHex(byKind.missing!.key)).toBe(toHex(missing.key));
    expect(byKind.missing).toMatchObject({ built: Buffer.from(missing.value) });
    expect(byKind.different).toMatchObject({ key: Buffer.from(changed.key), stored: changed.value });
    expect(byKind.extra).toMatchObject({ key: extraKey, stored: extra.value });
  });

  it("an empty table: every node missing; no built node: every entry extra; differences bounded", () => {
    const r = compareTrie(nodes, [], { maxDifferences: 10 });
    expect(r).toMatchObject({ ok: false, missing: nodes.length, matched: 0, truncated: true });
    expect(r.differences).toHaveLength(10);
    const e = compareTrie([], table(), { maxDifferences: 5 });
    expect(e).toMatchObject({ ok: false, extra: nodes.length, truncated: true });
    expect(e.differences).toHaveLength(5);
  });

  it("a storage trie's table (prefixed keys), streamed from the leaves without holding either side", () => {
    const prefix = bytes(42, 32);
    function* stored(): Generator<StoredNode> {
      for (const e of table(prefix)) yield e;
    }
    const { root, comparison } = verifyTrie(leaves, stored(), { prefix });
    expect(toHex(root)).toBe(toHex(buildTrie(leaves)));
    expect(comparison).toMatchObject({ ok: true, matched: nodes.length });
    const unprefixed = verifyTrie(leaves, table(prefix)).comparison;
    expect(unprefixed).toMatchObject({ ok: false, matched: 0, missing: nodes.length, extra: nodes.length });
  });

  it("the comparator as a builder's sink, and order checks on both sides", () => {
    const cmp = new TrieComparator(table());
    const b = new TrieBuilder(cmp.onNode);
    for (const l of leaves) b.add(l.key, l.value);
    b.finish();
    expect(cmp.finish()).toMatchObject({ ok: true, matched: nodes.length });
    expect(thrown(() => cmp.onNode(new Uint8Array(0), Buffer.from([1]))).code).toBe(StateTrieErrorCode.FINISHED);

    const swapped = table();
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    const e = thrown(() => compareTrie(nodes, swapped));
    expect(e.code).toBe(StateTrieErrorCode.UNSORTED_NODES);
    expect(e.meta.side).toBe("stored");
    const builtSwapped = [...nodes];
    [builtSwapped[3], builtSwapped[4]] = [builtSwapped[4]!, builtSwapped[3]!];
    expect(thrown(() => compareTrie(builtSwapped, table())).meta.side).toBe("built");
  });
});
