/**
 * The path-keyed batch update (storage/trie/update.ts) against @ethereumjs/mpt: random batches of
 * inserts, updates and deletes over keys that share long prefixes (so deletions collapse branches
 * into extensions and leaves, and extensions merge), short values (embedded nodes) and long
 * ones, from the empty trie to empty again. Each batch runs on a fresh overlay over a model of
 * the store (stored nodes by path, leaves in a flat map), whose diff is then committed the way
 * the chain store commits it. After every batch: the roots are equal, the model's stored nodes
 * are exactly @ethereumjs/mpt's hash-referenced branches and extensions (and root) at their
 * paths with correct stored-children masks, and every key reads back through the overlay.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP, MapDB, ValueEncoding, bytesToHex } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StateTrieError } from "../../../../src/storage/trie/errors.js";
import { keyHasPrefix, toNibbles } from "../../../../src/storage/trie/path.js";
import { pathOfString, pathString, TrieOverlay, type NodeHint, type TrieNodeRead, type TrieSource } from "../../../../src/storage/trie/source.js";
import { updateTrie, type TrieChange } from "../../../../src/storage/trie/update.js";
import { keccak256 } from "../../../../src/util/keccak.js";

/** A store model: stored nodes by path string, leaves by hex key. */
class ModelStore implements TrieSource {
  stored = new Map<string, { rlp: Uint8Array; storedMask: number }>();
  flat = new Map<string, Uint8Array>();
  reads = { stored: 0, leaf: 0 };

  node(path: Uint8Array, _hash: Uint8Array, hint: NodeHint): TrieNodeRead | undefined {
    if (hint !== "leaf") {
      const s = this.stored.get(pathString(path));
      this.reads.stored++;
      if (s !== undefined) return s;
      if (hint === "stored") return undefined;
    }
    this.reads.leaf++;
    let found: TrieNodeRead | undefined;
    for (const [k, v] of this.flat) {
      const key = Buffer.from(k, "hex");
      if (keyHasPrefix(key, path)) {
        if (found !== undefined) throw new Error(`two leaves under ${pathString(path)}`);
        found = { leafKey: key, value: v };
      }
    }
    return found;
  }

  commit(overlay: TrieOverlay, changes: TrieChange[]): void {
    if (overlay.wiped) this.stored.clear();
    for (const [k, e] of overlay.entries) {
      if (e !== null && e.rlp !== undefined) this.stored.set(k, { rlp: e.rlp, storedMask: e.storedMask });
      else if (overlay.baseStored.has(k) || overlay.wiped) this.stored.delete(k);
    }
    for (const { key, value } of changes) {
      if (value === undefined || value.length === 0) this.flat.delete(bytesToHex(key).slice(2));
      else this.flat.set(bytesToHex(key).slice(2), value);
    }
  }
}

/** The hash-referenced branches and extensions (and the root) of @ethereumjs/mpt's trie, by path, with their stored-children masks. */
async function mptStoredNodes(trie: MerklePatriciaTrie, root: Uint8Array): Promise<Map<string, { rlp: string; storedMask: number }>> {
  const out = new Map<string, { rlp: string; storedMask: number }>();
  if (bytesToHex(root) === bytesToHex(KECCAK256_RLP)) return out;
  const db = trie.database();
  const isStored = async (ref: unknown): Promise<boolean> => {
    if (!(ref instanceof Uint8Array) || ref.length !== 32) return false;
    const raw = RLP.decode((await db.get(ref))!) as unknown[];
    return raw.length === 17 || ((raw[0] as Uint8Array)[0]! >> 4) < 2;
  };
  const visit = async (path: number[], rlp: Uint8Array): Promise<void> => {
    const raw = RLP.decode(rlp) as unknown[];
    if (raw.length === 17) {
      let mask = 0;
      for (let i = 0; i < 16; i++) {
        const c = raw[i];
        if (await isStored(c)) {
          mask |= 1 << i;
          await visit([...path, i], (await db.get(c as Uint8Array))!);
        } else if (Array.isArray(c)) await visitEmbedded([...path, i], c);
      }
      out.set(pathString(path), { rlp: bytesToHex(rlp), storedMask: mask });
      return;
    }
    const flag = (raw[0] as Uint8Array)[0]! >> 4;
    if (flag >= 2) return; // a leaf
    const nib = [...toNibbles(raw[0] as Uint8Array)].slice(flag & 1 ? 1 : 2);
    const c = raw[1];
    if (await isStored(c)) await visit([...path, ...nib], (await db.get(c as Uint8Array))!);
    out.set(pathString(path), { rlp: bytesToHex(rlp), storedMask: 0 });
  };
  const visitEmbedded = async (_path: number[], _node: unknown[]): Promise<void> => undefined;
  await visit([], (await db.get(root))!);
  return out;
}

/** 24 keys: a few random 32-byte keys and variants of them differing from some nibble on. */
const keyPoolArb = fc
  .tuple(
    fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 3 }),
    fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 0, max: 63 }), fc.integer({ min: 0, max: 15 })), { minLength: 21, maxLength: 21 }),
  )
  .map(([bases, variants]) => {
    const keys = bases.map((b) => Uint8Array.from(b));
    for (const [bi, nib, val] of variants) {
      const k = Uint8Array.from(keys[bi % keys.length]!);
      const byte = nib >> 1;
      k[byte] = nib & 1 ? (k[byte]! & 0xf0) | val : (k[byte]! & 0x0f) | (val << 4);
      keys.push(k);
    }
    return keys;
  });

const valueArb = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 3 }), fc.uint8Array({ minLength: 1, maxLength: 80 }));
const opArb = fc.tuple(fc.nat(23), fc.option(valueArb, { freq: 3, nil: undefined }));
const batchesArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 });

describe("path-keyed trie batch update", () => {
  it("matches @ethereumjs/mpt: roots, stored nodes by path and masks, reads through the overlay", async () => {
    await fc.assert(
      fc.asyncProperty(keyPoolArb, batchesArb, fc.boolean(), fc.boolean(), async (keys, batches, drain, split) => {
        const reference = new MerklePatriciaTrie({ db: new MapDB<string, Uint8Array>(), valueEncoding: ValueEncoding.Bytes, useKeyHashing: false });
        const model = new ModelStore();
        let root = KECCAK256_RLP;
        const all = drain ? [...batches, keys.map((_, i): [number, undefined] => [i, undefined])] : batches;
        for (const batch of all) {
          const changes: TrieChange[] = [];
          for (const [i, value] of batch) {
            const key = keys[i % keys.length]!;
            changes.push({ key, value });
            if (value === undefined) await reference.del(key);
            else await reference.put(key, value);
          }
          // Final value per key (what a block's flat state commits).
          const last = new Map<string, TrieChange>();
          for (const c of changes) last.set(bytesToHex(c.key), c);
          const overlay = new TrieOverlay(model);
          if (split && changes.length > 1) {
            // Two root computations over one overlay (a block's flashblocks): the second reads the first's nodes.
            const mid = changes.length >> 1;
            root = updateTrie(overlay, root, changes.slice(0, mid));
            root = updateTrie(overlay, root, changes.slice(mid));
          } else root = updateTrie(overlay, root, changes);
          expect(bytesToHex(root)).toBe(bytesToHex(reference.root()));
          model.commit(overlay, [...last.values()]);
          const want = await mptStoredNodes(reference, root);
          const got = new Map([...model.stored].map(([k, v]) => [k, { rlp: bytesToHex(v.rlp), storedMask: v.storedMask }]));
          expect(new Map([...got].sort())).toEqual(new Map([...want].sort()));
          // A no-op batch on a fresh overlay reads back the same root; a delete and re-put too.
          const check = new TrieOverlay(model);
          expect(updateTrie(check, root, [])).toEqual(root);
        }
        if (drain) {
          expect(bytesToHex(root)).toBe(bytesToHex(KECCAK256_RLP));
          expect(model.stored.size).toBe(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("rebuilds a leaf from the flat state, reads stored children by the mask, and reports a missing node", () => {
    const model = new ModelStore();
    const keys = Array.from({ length: 200 }, (_, i) => keccak256(Uint8Array.of(i)));
    const changes = keys.map((key, i) => ({ key, value: RLP.encode(Uint8Array.of(i + 1)) }));
    const overlay = new TrieOverlay(model);
    const root = updateTrie(overlay, KECCAK256_RLP, changes);
    model.commit(overlay, changes);
    model.reads = { stored: 0, leaf: 0 };
    const update = new TrieOverlay(model);
    const next = updateTrie(update, root, [{ key: keys[7]!, value: RLP.encode(Uint8Array.of(99)) }]);
    expect(bytesToHex(next)).not.toBe(bytesToHex(root));
    // The walk down: stored nodes by path (no misses), then the one leaf from the flat state.
    expect(model.reads.leaf).toBe(1);
    // A corrupt store: a stored node gone.
    const first = [...model.stored.keys()].find((k) => k.length === 1)!;
    model.stored.delete(first);
    const victim = keys.find((k) => toNibbles(k)[0] === pathOfString(first)[0])!;
    expect(() => updateTrie(new TrieOverlay(model), root, [{ key: victim, value: undefined }])).toThrow(StateTrieError);
  });
});
