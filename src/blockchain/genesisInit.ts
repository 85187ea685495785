/**
 * Writing a datadir's genesis (`Chain.init`, `Chain.initWithState`): the genesis block and its
 * state write built from a genesis JSON's alloc, or the state bulk-loaded from a stream of hashed
 * accounts (storage/bulkLoad.ts) and the block built on its root; either way committed with the
 * pointers and the genesis JSON in one transaction.
 */
import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { KECCAK256_RLP, equalsBytes } from "@ethereumjs/util";
import { encodeBody } from "../chain/blockCodec.js";
import { commonFromGenesis } from "../chain/chainSpec.js";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { allocEntries, genesisBlock, validateGenesis, type GenesisJson } from "../chain/genesis.js";
import { OverlayStateManager } from "../execution/state/overlayStateManager.js";
import { EmptyStateReader } from "../execution/state/stateReader.js";
import { bulkLoadState, type BulkAccount, type BulkLoadProgress } from "../storage/bulkLoad.js";
import { ChainStore, MetaKey, type BlockWrite } from "../storage/store.js";
import { emptyStateTries } from "../storage/trie/stateTries.js";
import { to0x } from "../util/bytes.js";

/** The canonical write of a genesis block (no transactions) carrying the given state changes. */
function genesisWrite(block: Block, state: Pick<BlockWrite, "accountChanges" | "storageChanges" | "code" | "parentStateRoot" | "stateRoot" | "tries">): BlockWrite {
  return { hash: block.hash(), number: block.header.number, headerRlp: block.header.serialize(), bodyRlp: encodeBody(block), senders: [], receipts: [], txHashes: [], canonical: true, ...state };
}

/** Commits the genesis block as head, safe and finalized, with the genesis JSON kept and the archive flag. */
function commitGenesis(store: ChainStore, block: Block, write: BlockWrite, stored: GenesisJson, archive: boolean): void {
  store.root.transactionSync(() => {
    store.commitBlock(write, { head: block.hash(), safe: block.hash(), finalized: block.hash() });
    store.meta.put(MetaKey.genesis, Buffer.from(block.hash()));
    store.meta.put(MetaKey.genesisJson, JSON.stringify(stored));
    store.meta.put(MetaKey.archive, archive);
  });
}

/**
 * Writes the genesis of `genesisJson` into `datadir` (state, block, pointers). Refuses a
 * datadir that already holds a different genesis; re-init with the same one is a no-op.
 */
export async function initChain(datadir: string, genesisJson: unknown, opts: { archive?: boolean } = {}): Promise<{ hash: Uint8Array; created: boolean }> {
  const g = validateGenesis(genesisJson);
  const common = commonFromGenesis(g);
  const store = ChainStore.open(datadir);
  try {
    const { block, write } = await buildGenesis(g, common);
    const existing = store.getPointer("genesis");
    if (existing !== undefined) {
      if (!equalsBytes(existing, block.hash())) {
        throw new ChainError(
          ChainErrorCode.GENESIS_MISMATCH,
          `datadir ${datadir} holds genesis ${to0x(existing)}, but the given genesis has hash ${to0x(block.hash())}; use another --datadir or remove it`,
        );
      }
      return { hash: existing, created: false };
    }
    commitGenesis(store, block, write, g, opts.archive === true);
    return { hash: block.hash(), created: true };
  } finally {
    await store.close();
  }
}

/**
 * Writes a genesis whose state is given as a stream of hashed accounts (ascending, each with
 * its slots) rather than the JSON's `alloc` (ignored): a state too large for JSON — a synthetic
 * one (bench/stateScale.ts), one converted from elsewhere. The state is bulk-loaded
 * (storage/bulkLoad.ts; an interrupted load resumes when called again with the same stream),
 * then the genesis block is built on its root and written with the pointers.
 */
export async function initChainWithState(
  datadir: string,
  genesisJson: unknown,
  accounts: Iterable<BulkAccount>,
  opts: { archive?: boolean; onProgress?: (p: BulkLoadProgress) => void } = {},
): Promise<{ hash: Uint8Array; stateRoot: Uint8Array; accounts: number; slots: number }> {
  const g = validateGenesis(genesisJson);
  const common = commonFromGenesis(g);
  const store = ChainStore.open(datadir);
  try {
    if (store.getPointer("genesis") !== undefined) throw new ChainError(ChainErrorCode.GENESIS_MISMATCH, `datadir ${datadir} already holds a chain: a genesis state is loaded into a new datadir`);
    const loaded = bulkLoadState(store, accounts, { onProgress: opts.onProgress });
    const block = genesisBlock(g, common, loaded.stateRoot);
    // The state is in place already: the block's write carries no state changes.
    const write = genesisWrite(block, { accountChanges: [], storageChanges: [], code: new Map(), parentStateRoot: loaded.stateRoot, stateRoot: loaded.stateRoot, tries: emptyStateTries() });
    commitGenesis(store, block, write, { ...g, alloc: {} }, opts.archive === true);
    return { hash: block.hash(), stateRoot: loaded.stateRoot, accounts: loaded.accounts, slots: loaded.slots };
  } finally {
    await store.close();
  }
}

/** Computes the genesis block and its state write set. */
export async function buildGenesis(g: GenesisJson, common: Common): Promise<{ block: Block; write: BlockWrite }> {
  const state = new OverlayStateManager(new EmptyStateReader(KECCAK256_RLP), emptyStateTries());
  for (const { address, account, code, storage } of allocEntries(g)) {
    await state.putAccount(address, account);
    if (code !== undefined) await state.putCode(address, code);
    for (const [k, v] of storage) await state.putStorage(address, k, v);
  }
  const root = await state.getStateRoot();
  const block = genesisBlock(g, common, root);
  const changes = state.changes();
  return {
    block,
    write: genesisWrite(block, { accountChanges: changes.accounts, storageChanges: changes.storage, code: state.writtenCode(), parentStateRoot: KECCAK256_RLP, stateRoot: root, tries: state.tries }),
  };
}
