/**
 * The pieces of the proofs baseline (src/proofs/baseline.ts): the trie builder's sink of every
 * hash-referenced node (src/storage/trie/builder.ts, `onHashedNode`) against @ethereumjs/mpt —
 * exactly the nodes a proof can hold by themselves (the root whatever its size, hashed branches,
 * extensions and leaves; no embedded node), with their RLP, in ascending path-key order, and the
 * builder's stored-node sink unchanged beside it — and the resume marker (its block and last
 * account; an older basalt's marker, which names no block, refused with the reason).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Chain } from "../../../src/blockchain/chain.js";
import { decodeBaselineProgress, encodeBaselineProgress } from "../../../src/proofs/baseline.js";
import { ProofsError } from "../../../src/proofs/errors.js";
import { ProofsStore } from "../../../src/proofs/store.js";
import { ProofsSync } from "../../../src/proofs/sync.js";
import { TrieBuilder, type HashedNodeKind } from "../../../src/storage/trie/builder.js";
import { pathKey } from "../../../src/storage/trie/path.js";
import { toHex } from "../../../src/util/bytes.js";
import pino from "pino";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mpt, nodeMap, storedNodes } from "./fixtures.js";

/** Values of 1-2 bytes (embedded leaves) or 33-48 bytes (hashed ones). */
const valueArb = fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 2 }), fc.uint8Array({ minLength: 33, maxLength: 48 }));

/** Sorted unique 32-byte keys, some sharing long prefixes (extensions). */
const leavesArb = fc
  .tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 63 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), valueArb), { maxLength: 40 }))
  .map(([stem, variants]) => {
    const byKey = new Map<string, { key: Uint8Array; value: Uint8Array }>();
    for (const [from, tail, value] of variants) {
      const key = Uint8Array.from(stem);
      for (let n = from; n < 64; n++) {
        const byte = n >> 1;
        const nibble = n & 1 ? tail[byte]! & 0x0f : tail[byte]! >> 4;
        key[byte] = n & 1 ? (key[byte]! & 0xf0) | nibble : (key[byte]! & 0x0f) | (nibble << 4);
      }
      byKey.set(toHex(key), { key, value });
    }
    return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
  });

describe("TrieBuilder's every-hashed-node sink", () => {
  it("gives exactly @ethereumjs/mpt's nodes by path with their RLP, in ascending path-key order, beside an unchanged stored-node sink", async () => {
    await fc.assert(
      fc.asyncProperty(leavesArb, async (leaves) => {
        const db = nodeMap();
        const trie = mpt(db, false);
        for (const { key, value } of leaves) await trie.put(key, value);
        const hashed: { path: Uint8Array; rlp: Uint8Array; kind: HashedNodeKind }[] = [];
        const stored: string[] = [];
        const builder = new TrieBuilder((p, record) => stored.push(toHex(pathKey(p)) + ":" + toHex(record)), { onHashedNode: (p, rlp, kind) => hashed.push({ path: p, rlp, kind }) });
        for (const { key, value } of leaves) builder.add(key, value);
        const root = builder.finish();
        expect(toHex(root)).toBe(toHex(trie.root()));
        const got = new Map(hashed.map((n) => [[...n.path].map((x) => x.toString(16)).join(""), toHex(n.rlp)]));
        expect(got.size).toBe(hashed.length);
        expect(got).toEqual(storedNodes(db, root));
        const keys = hashed.map((n) => pathKey(n.path));
        for (let i = 1; i < keys.length; i++) expect(Buffer.compare(keys[i - 1]!, keys[i]!)).toBeLessThan(0);
        // Leaves are the only kind not stored in the main store's tables; the stored-node sink is what a builder without the option gives.
        const plain: string[] = [];
        const alone = new TrieBuilder((p, record) => plain.push(toHex(pathKey(p)) + ":" + toHex(record)));
        for (const { key, value } of leaves) alone.add(key, value);
        alone.finish();
        expect(stored).toEqual(plain);
        expect(hashed.filter((n) => n.kind !== "leaf").length).toBe(plain.length);
      }),
      { seed: 0x5eed, numRuns: 200 },
    );
  });

  it("gives a lone leaf as the root, whatever its size", () => {
    for (const value of [Uint8Array.of(1), new Uint8Array(40).fill(2)]) {
      const out: [string, HashedNodeKind][] = [];
      const builder = new TrieBuilder(undefined, { onHashedNode: (p, _rlp, kind) => out.push([toHex(p), kind]) });
      builder.add(new Uint8Array(32).fill(0xab), value);
      builder.finish();
      expect(out).toEqual([["", "leaf"]]);
    }
  });
});

describe("the baseline's resume marker", () => {
  it("records the block and the last account whose storage trie is written", () => {
    const hash = new Uint8Array(32).fill(7);
    const account = new Uint8Array(32).fill(9);
    for (const lastAccount of [undefined, account]) {
      const marker = encodeBaselineProgress({ number: 123_456_789n, hash, lastAccount });
      expect(decodeBaselineProgress(marker)).toEqual({ number: 123_456_789n, hash, lastAccount });
    }
    // An older basalt's marker: the last account alone (or nothing yet).
    expect(decodeBaselineProgress(account)).toBeUndefined();
    expect(decodeBaselineProgress(new Uint8Array(0))).toBeUndefined();
  });

  it("refuses to resume an older basalt's baseline, which does not say which block's state it holds", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-proofs-legacy-"));
    const store = await ProofsStore.open(dir, { chainId: 1n, genesisHash: new Uint8Array(32) });
    try {
      await store.writeBaseline([{ trie: { kind: "account" }, path: new Uint8Array(0), node: Uint8Array.of(0xc0) }], new Uint8Array(32).fill(1));
      const sync = new ProofsSync({} as Chain, store, 10n, pino({ level: "silent" }));
      const e = await sync.initBaseline().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProofsError);
      expect((e as ProofsError).type).toMatchObject({ code: "PROOFS_BASELINE_UNRESUMABLE", dir });
      expect((e as Error).message).toMatch(/older basalt's.*remove .* and initialize it again/);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
