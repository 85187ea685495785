/**
 * `basalt snapshot export|import` over a datadir's chain: the file format, the consistent LMDB
 * copy and the checksums are the store's (src/storage/snapshot.ts); reading the head, genesis and
 * chain id the header records, and verifying an imported chain against it, open the chain and
 * happen here.
 */
import { Chain } from "../blockchain/chain.js";
import { exportSnapshot, importSnapshot, SnapshotError, type ImportSnapshotOptions, type SnapshotChainInfo, type SnapshotHeader } from "../storage/snapshot.js";
import { fromHex, to0x } from "../util/bytes.js";

/** Reads the head, genesis and chain id of a datadir's chain (the private copy of an export). */
async function describeChain(datadir: string): Promise<SnapshotChainInfo> {
  const chain = Chain.open(datadir);
  try {
    const h = chain.head.header;
    return {
      chainId: chain.chainId.toString(),
      genesisHash: to0x(chain.genesisHash),
      head: { number: h.number.toString(), hash: to0x(chain.head.hash()), stateRoot: to0x(h.stateRoot) },
    };
  } finally {
    await chain.close();
  }
}

/** Opens the imported chain and checks it against the header. */
async function verifyImported(datadir: string, header: SnapshotHeader, file: string): Promise<void> {
  const chain = Chain.open(datadir);
  try {
    const fail = (what: string, expected: string, actual: string): never => {
      throw new SnapshotError("SNAPSHOT_VERIFY_FAILED", `${file}: imported chain ${what} is ${actual}, the snapshot header says ${expected}`, { file, expected, actual });
    };
    const head = chain.head;
    if (to0x(chain.genesisHash) !== header.genesisHash) fail("genesis hash", header.genesisHash, to0x(chain.genesisHash));
    if (chain.chainId.toString() !== header.chainId) fail("chain id", header.chainId, chain.chainId.toString());
    if (to0x(head.hash()) !== header.head.hash) fail("head hash", header.head.hash, to0x(head.hash()));
    if (to0x(head.header.stateRoot) !== header.head.stateRoot) fail("head state root", header.head.stateRoot, to0x(head.header.stateRoot));
    if (chain.store.getTrieNode(fromHex(header.head.stateRoot)) === undefined) {
      throw new SnapshotError("SNAPSHOT_VERIFY_FAILED", `${file}: the state trie root node ${header.head.stateRoot} of the head is missing from the imported chain`, {
        file,
      });
    }
  } finally {
    await chain.close();
  }
}

/**
 * Exports the chain of `datadir` to `file` (see {@link exportSnapshot}); the header records the
 * copy's head, state root, genesis and chain id.
 */
export function exportChainSnapshot(datadir: string, file: string): Promise<SnapshotHeader> {
  return exportSnapshot(datadir, file, describeChain);
}

/**
 * Imports `file` into `datadir` (see {@link importSnapshot}), then opens the imported chain and
 * checks that its genesis, chain id, head hash and head state root are the header's and that the
 * state trie's root node is stored.
 */
export function importChainSnapshot(file: string, datadir: string, opts: ImportSnapshotOptions = {}): Promise<SnapshotHeader> {
  return importSnapshot(file, datadir, verifyImported, opts);
}
