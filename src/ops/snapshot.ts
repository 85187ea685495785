/**
 * `basalt snapshot export|import` over a datadir's chain and its historical-proofs store: the
 * file format, the consistent LMDB copy and the checksums are the store's
 * (src/storage/snapshot.ts); reading the head, genesis and chain id the header records, and
 * verifying an imported chain against it (head, genesis and the whole state: `verifyState`), open
 * the chain and happen here. The proofs store is
 * dumped from a read-only open (src/proofs/dump.ts), checked against the chain
 * (src/proofs/check.ts) at export and again, once restored, at import.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { Chain } from "../blockchain/chain.js";
import { PROOFS_SNAPSHOT_OPEN_ATTEMPTS } from "./constants.js";
import { checkAgainstChain } from "../proofs/check.js";
import { restoreDump, writeDump } from "../proofs/dump.js";
import { verifyState } from "../storage/bulkLoad.js";
import { ProofsError } from "../proofs/errors.js";
import { ProofsStore } from "../proofs/store.js";
import type { BlockRef } from "../proofs/types.js";
import {
  exportSnapshot,
  importSnapshot,
  SnapshotError,
  type ExportProofsSection,
  type ImportProofsSection,
  type ImportSnapshotOptions,
  type ImportSnapshotResult,
  type SnapshotBlock,
  type SnapshotChainInfo,
  type SnapshotHeader,
  type SnapshotProofsHeader,
  type SnapshotProofsInfo,
} from "../storage/snapshot.js";
import { to0x } from "../util/bytes.js";

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
      throw new SnapshotError({ code: "SNAPSHOT_VERIFY_FAILED", file, expected, actual }, `${file}: imported chain ${what} is ${actual}, the snapshot header says ${expected}`);
    };
    const head = chain.head;
    if (to0x(chain.genesisHash) !== header.genesisHash) fail("genesis hash", header.genesisHash, to0x(chain.genesisHash));
    if (chain.chainId.toString() !== header.chainId) fail("chain id", header.chainId, chain.chainId.toString());
    if (to0x(head.hash()) !== header.head.hash) fail("head hash", header.head.hash, to0x(head.hash()));
    if (to0x(head.header.stateRoot) !== header.head.stateRoot) fail("head state root", header.head.stateRoot, to0x(head.header.stateRoot));
    const held = chain.store.getStateRoot();
    if (held === undefined || to0x(held) !== header.head.stateRoot) {
      throw new SnapshotError({ code: "SNAPSHOT_VERIFY_FAILED", file }, `${file}: the imported chain's state is at root ${held === undefined ? "(none)" : to0x(held)}, the head's state root is ${header.head.stateRoot}`);
    }
    // The whole state, not only its root record: every trie rebuilt from the flat tables and compared
    // record by record, every storage root with its account, the state root with the head's.
    const v = verifyState(chain.store, head.header.stateRoot);
    if (v.problems.length > 0) {
      throw new SnapshotError({ code: "SNAPSHOT_VERIFY_FAILED", file }, `${file}: the imported state does not verify (${v.accounts} accounts, ${v.slots} slots checked): ${v.problems.slice(0, 5).join("; ")}${v.problems.length > 5 ? `; and ${v.problems.length - 5} more` : ""}`);
    }
  } finally {
    await chain.close();
  }
}

/** Runs `fn` on the chain of `datadir`, closing it after. */
async function withChain<T>(datadir: string, readOnly: boolean, fn: (chain: Chain) => Promise<T>): Promise<T> {
  const chain = Chain.open(datadir, { readOnly });
  try {
    return await fn(chain);
  } finally {
    await chain.close();
  }
}

function blockOf(ref: BlockRef): SnapshotBlock {
  return { number: ref.number.toString(), hash: to0x(ref.hash) };
}

/**
 * Opens the proofs store at `dir` read-only for an export, with the chain id and genesis of the
 * datadir's chain. A store a running node writes can lose a file between the open's reading of
 * the file list and its opening of them (a flush or compaction): such a failure (an untyped one)
 * is tried again, up to {@link PROOFS_SNAPSHOT_OPEN_ATTEMPTS} times.
 */
async function openForExport(datadir: string, dir: string): Promise<ProofsStore> {
  const { chainId, genesisHash } = await withChain(datadir, true, async (c) => ({ chainId: c.chainId, genesisHash: c.genesisHash }));
  for (let attempt = 1; ; attempt++) {
    try {
      return await ProofsStore.open(dir, { chainId, genesisHash, readOnly: true });
    } catch (e) {
      if (e instanceof ProofsError || attempt >= PROOFS_SNAPSHOT_OPEN_ATTEMPTS) throw e;
    }
  }
}

/** What an export did. */
interface ExportResult {
  header: SnapshotHeader;
  /** Why a proofs store found at the proofs directory was not carried (it has no window yet). */
  proofsLeftOut?: string;
  /** Account proofs checked against the chain copy, both ends of the window together. */
  proofsChecked?: number;
}

/**
 * Exports the chain of `datadir` to `file` (see {@link exportSnapshot}); the header records the
 * copy's head, state root, genesis and chain id. A proofs store at `proofsDir` is carried when it
 * has a window: dumped from a read-only open before the chain is copied, then checked against
 * the copy ({@link checkAgainstChain}); a store of another chain or a corrupt one refuses the
 * export with its reason.
 */
export async function exportChainSnapshot(datadir: string, file: string, proofsDir: string = join(datadir, "proofs")): Promise<ExportResult> {
  if (!existsSync(join(proofsDir, "CURRENT"))) return { header: await exportSnapshot(datadir, file, describeChain) };
  const store = await openForExport(datadir, proofsDir);
  try {
    if (!store.initialized) {
      const header = await exportSnapshot(datadir, file, describeChain);
      return { header, proofsLeftOut: `the proofs store at ${proofsDir} has no window yet (its first start is still copying the head's state)` };
    }
    let checked = 0;
    const proofs: ExportProofsSection = {
      dump: async (sink: Writable): Promise<SnapshotProofsInfo> => {
        const entries = await writeDump(store, sink);
        const w = store.window();
        return { window: { earliest: blockOf(w.earliest!), latest: blockOf(w.latest!) }, entries };
      },
      check: (copy: string) =>
        withChain(copy, true, async (chain) => {
          checked = (await checkAgainstChain(store, chain)).accounts;
        }).catch((e: unknown) => {
          throw new SnapshotError({ code: "SNAPSHOT_PROOFS_INVALID", datadir }, `the proofs store at ${proofsDir} cannot be exported: ${(e as Error).message}`);
        }),
    };
    const header = await exportSnapshot(datadir, file, describeChain, { proofs });
    return { header, proofsChecked: checked };
  } finally {
    await store.close();
  }
}

/** What an import did. */
interface ImportResult extends ImportSnapshotResult {
  /** Where the proofs store went, when the snapshot carried one. */
  proofsDir?: string;
  /** Account proofs checked against the imported chain, both ends of the window together. */
  proofsChecked?: number;
}

/**
 * Imports `file` into `datadir` (see {@link importSnapshot}), then opens the imported chain and
 * checks that its genesis, chain id, head hash and head state root are the header's and that the
 * whole state verifies (`verifyState`: every trie record rebuilt from the flat state; at Base's
 * scale this is the import's longest part, ~1 hour per 1.5 billion accounts and slots). A proofs store in the snapshot is restored to `proofsDir`
 * (default `<datadir>/proofs`) once it is verified: entry counts as the header says, chain id and
 * genesis, the window the header's, and {@link checkAgainstChain} against the imported chain.
 * Anything else refuses the import with SNAPSHOT_PROOFS_INVALID and leaves nothing imported.
 */
export async function importChainSnapshot(file: string, datadir: string, opts: ImportSnapshotOptions & { proofsDir?: string } = {}): Promise<ImportResult> {
  const dir = opts.proofsDir ?? join(datadir, "proofs");
  let checked: number | undefined;
  const invalid = (reason: string): SnapshotError =>
    new SnapshotError({ code: "SNAPSHOT_PROOFS_INVALID", file }, `${file}: the proofs store in the snapshot does not verify, so nothing was imported: ${reason}`);
  const proofs: ImportProofsSection = {
    dir,
    restore: async (source: Readable, staging: string, info: SnapshotProofsHeader) => {
      const counts = await restoreDump(source, staging).catch((e: unknown) => {
        throw invalid((e as Error).message);
      });
      for (const [family, n] of Object.entries(info.entries)) {
        if (counts[family] !== n) throw invalid(`column family ${family} has ${counts[family] ?? 0} entries, the snapshot header says ${n}`);
      }
    },
    verify: (staging: string, imported: string, info: SnapshotProofsHeader) =>
      withChain(imported, true, async (chain) => {
        const store = await ProofsStore.open(staging, { chainId: chain.chainId, genesisHash: chain.genesisHash, readOnly: true });
        try {
          const w = store.window();
          const got = w.earliest && w.latest ? `${w.earliest.number}..${w.latest.number}` : "none";
          const want = `${info.window.earliest.number}..${info.window.latest.number}`;
          if (got !== want || to0x(w.latest!.hash) !== info.window.latest.hash || to0x(w.earliest!.hash) !== info.window.earliest.hash) {
            throw invalid(`its window is ${got}, the snapshot header says ${want} (${info.window.earliest.hash}..${info.window.latest.hash})`);
          }
          checked = (await checkAgainstChain(store, chain)).accounts;
        } finally {
          await store.close();
        }
      }).catch((e: unknown) => {
        throw e instanceof SnapshotError ? e : invalid((e as Error).message);
      }),
  };
  const result = await importSnapshot(file, datadir, verifyImported, { ...opts, proofs });
  return result.header.proofs === undefined ? result : { ...result, proofsDir: dir, proofsChecked: checked };
}
