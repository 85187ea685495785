/**
 * Reference proofs for the historical-proofs tests: what the main store's `eth_getProof` path
 * computes for a canonical block (@ethereumjs/mpt's `createMerkleProof` over the LMDB trie nodes),
 * with values read by walking the block's tries (no history index: any stored block, archive or
 * not), as hex strings in the EIP-1186 answer's form.
 */
import { createMerkleProof, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, createAccountFromRLP, KECCAK256_NULL, KECCAK256_RLP, ValueEncoding } from "@ethereumjs/util";
import type { Chain } from "../../src/blockchain/chain.js";
import { TrieNodeDb } from "../../src/execution/state/trieNodeDb.js";
import { trieGet } from "../../src/execution/state/witnessState.js";
import { keccak256 } from "../../src/util/keccak.js";

/** The main store's proof of `address` and `slots` at canonical block `number`. */
export async function mainStoreProof(chain: Chain, number: bigint, address: Uint8Array, slots: Uint8Array[]) {
  const header = chain.getHeaderByHash(chain.getCanonicalHash(number)!)!;
  const nodes = new TrieNodeDb(chain.store);
  const trie = (root: Uint8Array) => new MerklePatriciaTrie({ db: nodes, valueEncoding: ValueEncoding.Bytes, useKeyHashing: true, useKeyHashingFunction: keccak256, root });
  const accRlp = trieGet(chain.store, header.stateRoot, keccak256(address));
  const acc = accRlp === undefined ? undefined : createAccountFromRLP(accRlp);
  const accountProof = await createMerkleProof(trie(header.stateRoot), address);
  const storageRoot = acc?.storageRoot ?? KECCAK256_RLP;
  const storageProof = [];
  for (const slot of slots) {
    const leaf = trieGet(chain.store, storageRoot, keccak256(slot));
    const v = leaf === undefined ? new Uint8Array(0) : (RLP.decode(leaf) as Uint8Array);
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
