/**
 * Proofs from the versioned-by-path store (src/proofs/proof.ts): the shape of @ethereumjs/mpt's
 * proofs (embedded nodes listed after the node holding them, the empty trie's empty proof, a root
 * under 32 bytes), the check of every node read against its parent's reference, and the EIP-1186
 * pieces of accounts that exist or not. Random sequences of blocks are in trieStep.test.ts.
 */
import { KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { accountProof, proveKey, type NodeAt } from "../../../src/proofs/proof.js";
import { TrieProofError, pathName } from "../../../src/proofs/trieErrors.js";
import { toHex } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { PathVersions, StateHistory, b, deltasBetween, expectSameProof, mpt, nodeMap, storedNodes } from "./fixtures.js";

/** A trie of `entries` (hex key → value) written in one block, with its by-path model at block 1 (every node it stores). */
async function oneBlock(entries: [string, Uint8Array][], hashing = false) {
  const db = nodeMap();
  const trie = mpt(db, hashing);
  for (const [k, v] of entries) await trie.put(b(k), v);
  const model = new PathVersions();
  model.apply(1, deltasBetween(new Map(), storedNodes(db, trie.root())));
  return { db, trie, model, root: trie.root() };
}

/** A reader that counts the paths it is asked for. */
function counting(nodeAt: NodeAt): { nodeAt: NodeAt; paths: string[] } {
  const paths: string[] = [];
  return { nodeAt: async (p) => (paths.push(pathName(p)), nodeAt(p)), paths };
}

/** The error a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<TrieProofError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TrieProofError);
    return e as TrieProofError;
  }
  throw new Error("no rejection");
}

describe("proveKey", () => {
  it("lists embedded nodes after the node that holds them, as @ethereumjs/mpt, without reading them from the store", async () => {
    // Short keys and one-byte values: the branch at "1" and its leaves are embedded in the root.
    const { trie, model, root } = await oneBlock([
      ["12", Uint8Array.of(5)],
      ["13", Uint8Array.of(6)],
      ["23", new Uint8Array(40).fill(7)],
    ]);
    const reader = counting(model.nodeAt(1));
    const { proof, value } = await proveKey(reader.nodeAt, root, b("12"));
    expect(proof.map(toHex)).toEqual(["f84680d58080c22005c2200680808080808080808080808080a0fcb9b5217ebe3b4c8f989ef80c5401ccff97be986c5a7ba9a1adf420e89f2c2c8080808080808080808080808080", "d58080c22005c2200680808080808080808080808080", "c22005"]);
    expect(toHex(value!)).toBe("05");
    expect(reader.paths).toEqual([""]);
    for (const key of ["12", "13", "14", "1", "23", "2", "33", "1234"]) await expectSameProof(model.nodeAt(1), trie, false, b(key), (await trie.get(b(key))) ?? undefined);
  });

  it("proves the empty trie with an empty proof, reading nothing", async () => {
    const db = nodeMap();
    const reader = counting(async () => undefined);
    expect(await proveKey(reader.nodeAt, KECCAK256_RLP, keccak256(b("01")))).toEqual({ proof: [], value: undefined });
    expect(reader.paths).toEqual([]);
    await expectSameProof(reader.nodeAt, mpt(db, true), true, b("01"), undefined);
  });

  it("reads a root of under 32 bytes from the root path", async () => {
    const { trie, model, root } = await oneBlock([["12", Uint8Array.of(5)]]);
    const { proof } = await proveKey(model.nodeAt(1), root, b("12"));
    expect(proof.map(toHex)).toEqual(["c482201205"]);
    await expectSameProof(model.nodeAt(1), trie, false, b("13"), undefined);
  });

  it("throws PROOFS_INCONSISTENT naming the path of a node that does not match its parent's reference", async () => {
    const keys = Array.from({ length: 64 }, (_, i) => toHex(Uint8Array.of(i)));
    const { model, root } = await oneBlock(keys.map((k) => [k, new Uint8Array(40).fill(1)]), true);
    const key = keccak256(b(keys[3]!));
    const { proof } = await proveKey(model.nodeAt(1), root, key);
    expect(proof.length).toBeGreaterThanOrEqual(3);
    // Swap the node at the key's second level for another stored node of the same depth.
    const path = pathName(key.subarray(0, 1)).slice(0, 1);
    const other = model.paths().find((p) => p.length === 1 && p !== path)!;
    const good = model.at(path, 1)!;
    model.overwrite(path, 1, model.at(other, 1));
    const swapped = await rejection(proveKey(model.nodeAt(1), root, key));
    expect(swapped.type).toEqual({ code: "PROOFS_INCONSISTENT", path, expected: "0x" + toHex(keccak256(good)), actual: "0x" + toHex(keccak256(model.at(other, 1)!)) });
    // A node missing where its parent references one.
    model.overwrite(path, 1, null);
    expect((await rejection(proveKey(model.nodeAt(1), root, key))).type).toEqual({ code: "PROOFS_INCONSISTENT", path, expected: "0x" + toHex(keccak256(good)) });
    // A root that is not the state root's.
    model.overwrite(path, 1, good);
    const otherRoot = keccak256(b("00"));
    const wrongRoot = await rejection(proveKey(model.nodeAt(1), otherRoot, key));
    expect(wrongRoot.code).toBe("PROOFS_INCONSISTENT");
    expect(wrongRoot.type).toMatchObject({ path: "", expected: "0x" + toHex(otherRoot), actual: "0x" + toHex(root) });
    expect((await proveKey(model.nodeAt(1), root, key)).proof.map(toHex)).toEqual(proof.map(toHex));
  });
});

describe("accountProof", () => {
  const A = b("00000000000000000000000000000000000000aa");
  const ABSENT = b("00000000000000000000000000000000000000bb");
  const slot = (i: number): Uint8Array => b(i.toString(16).padStart(64, "0"));

  async function history(): Promise<StateHistory> {
    const h = new StateHistory();
    await h.commit(
      new Map([
        [toHex(A), { nonce: 3n, balance: 10n ** 18n, codeHash: keccak256(b("6000")), storage: new Map([[toHex(slot(1)), 0x1234n], [toHex(slot(2)), 2n ** 255n]]) }],
        [toHex(b("00000000000000000000000000000000000000cc")), { nonce: 0n, balance: 1n, codeHash: KECCAK256_NULL, storage: new Map() }],
      ]),
    );
    return h;
  }

  it("gives an account's fields and slot values with @ethereumjs/mpt's proofs", async () => {
    const h = await history();
    await h.check(1, [A, ABSENT], [slot(1), slot(2), slot(3)]);
    const p = await accountProof(h.accountModel.nodeAt(1), (x) => h.storageModels.get(toHex(x))!.nodeAt(1), h.roots[1]!, A, [slot(1), slot(2), slot(3)]);
    expect({ nonce: p.nonce, balance: p.balance, codeHash: toHex(p.codeHash), values: p.storageProof.map((s) => s.value) }).toEqual({ nonce: 3n, balance: 10n ** 18n, codeHash: toHex(keccak256(b("6000"))), values: [0x1234n, 2n ** 255n, 0n] });
  });

  it("gives an absent account the empty code hash, the empty storage root and empty storage proofs", async () => {
    const h = await history();
    const p = await accountProof(h.accountModel.nodeAt(1), () => async () => undefined, h.roots[1]!, ABSENT, [slot(1)]);
    expect(p.accountProof.length).toBeGreaterThan(0);
    expect({ nonce: p.nonce, balance: p.balance, codeHash: toHex(p.codeHash), storageRoot: toHex(p.storageRoot), storage: p.storageProof }).toEqual({
      nonce: 0n,
      balance: 0n,
      codeHash: toHex(KECCAK256_NULL),
      storageRoot: toHex(KECCAK256_RLP),
      storage: [{ slot: slot(1), value: 0n, proof: [] }],
    });
  });

  it("left-pads short slots to 32 bytes and refuses longer ones", async () => {
    const h = await history();
    const storageNodeAt = (x: Uint8Array): NodeAt => h.storageModels.get(toHex(x))!.nodeAt(1);
    const p = await accountProof(h.accountModel.nodeAt(1), storageNodeAt, h.roots[1]!, A, [b("01"), slot(1)]);
    expect(p.storageProof[0]!.value).toBe(0x1234n);
    expect(p.storageProof[0]!.proof.map(toHex)).toEqual(p.storageProof[1]!.proof.map(toHex));
    const long = await rejection(accountProof(h.accountModel.nodeAt(1), storageNodeAt, h.roots[1]!, A, [new Uint8Array(33)]));
    expect(long.type).toEqual({ code: "PROOFS_INVALID_SLOT", length: 33 });
  });
});
