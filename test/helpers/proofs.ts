/**
 * Reference proofs for the historical-proofs tests: what the main store's `eth_getProof` path
 * computes for a canonical block (@ethereumjs/mpt's `createMerkleProof` over the LMDB trie nodes,
 * values from the block's state), as hex strings in the EIP-1186 answer's form; and
 * {@link writeProofsMeta}, raw `meta` records written into a closed store (to corrupt it).
 */
import { createMerkleProof, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { bytesToHex, KECCAK256_NULL, KECCAK256_RLP, ValueEncoding } from "@ethereumjs/util";
import type { Chain } from "../../src/blockchain/chain.js";
import { TrieNodeDb } from "../../src/execution/state/trieNodeDb.js";
import { AtomicBatch, rocksOpen } from "../../src/proofs/rocks.js";
import { PROOFS_COLUMN_FAMILIES } from "../../src/proofs/store.js";
import { keccak256 } from "../../src/util/keccak.js";

/** The main store's proof of `address` and `slots` at canonical block `number`. */
export async function mainStoreProof(chain: Chain, number: bigint, address: Uint8Array, slots: Uint8Array[]) {
  const header = chain.getHeaderByHash(chain.getCanonicalHash(number)!)!;
  const nodes = new TrieNodeDb(chain.store);
  const trie = (root: Uint8Array) => new MerklePatriciaTrie({ db: nodes, valueEncoding: ValueEncoding.Bytes, useKeyHashing: true, useKeyHashingFunction: keccak256, root });
  const state = chain.stateAt(header);
  const acc = state.account(address);
  const accountProof = await createMerkleProof(trie(header.stateRoot), address);
  const storageRoot = acc?.storageRoot ?? KECCAK256_RLP;
  const storageProof = [];
  for (const slot of slots) {
    const v = state.storage(address, slot);
    storageProof.push({ value: "0x" + (v.length === 0 ? 0n : BigInt(bytesToHex(v))).toString(16), proof: (await createMerkleProof(trie(storageRoot), slot)).map(bytesToHex) });
  }
  return {
    stateRoot: header.stateRoot,
    accountProof: accountProof.map(bytesToHex),
    balance: "0x" + (acc?.balance ?? 0n).toString(16),
    codeHash: bytesToHex(acc?.codeHash ?? KECCAK256_NULL),
    nonce: "0x" + (acc?.nonce ?? 0n).toString(16),
    storageHash: bytesToHex(storageRoot),
    storageProof,
  };
}

/** Writes raw `meta` records (by key name; null deletes) into the closed proofs store at `dir`. */
export async function writeProofsMeta(dir: string, records: Record<string, Uint8Array | null>): Promise<void> {
  const db = rocksOpen(dir, { columnFamilies: Object.values(PROOFS_COLUMN_FAMILIES) });
  await db.ready();
  const meta = db.columnFamily(PROOFS_COLUMN_FAMILIES.meta);
  const batch = new AtomicBatch(meta);
  for (const [k, v] of Object.entries(records)) {
    if (v) batch.put(meta, Buffer.from(k), v);
    else batch.delete(meta, Buffer.from(k));
  }
  await batch.commit();
  await db.close();
}
