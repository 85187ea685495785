/**
 * The baseline of the proofs store: every node of one block's state that a proof can hold by
 * itself — each trie's root and every node referenced by hash, leaves included — by path: the
 * account trie's, and after each account its storage trie's. `proofs init` (and the proofs worker
 * on its first start) writes them as version 0 before the window is extended backwards.
 *
 * The tries are rebuilt from the main store's flat state (`hashedAccounts`, `hashedStorage`,
 * already in trie order) with the streaming builder (`storage/trie/builder.ts`, its every-hashed-
 * node sink), each storage trie checked against the storage root in its account and the account
 * trie against the block's state root. **One block's state**: everything is read inside one LMDB
 * read transaction, held for the whole baseline however long it runs (blocks the node commits
 * meanwhile are not seen; the cost is that LMDB cannot reuse the pages they free until it ends).
 * The flat tables hold the latest state; the block is the head the transaction sees, or, when
 * resuming an interrupted baseline after the head moved, the block it was started at: the flat
 * leaves are then overlaid with the values at that block of every key the blocks since changed
 * (their change sets and history, read in the same transaction), which needs that block to be
 * within the main store's state history.
 *
 * Resume: the marker written with each batch names the block and the last account whose storage
 * trie is complete; a resumed baseline rebuilds the account trie from the start (its nodes are
 * written again: version-0 writes are idempotent) and skips the storage tries up to that account.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import type { Transaction } from "lmdb";
import type { ChainReader } from "../blockchain/chainReader.js";
import { fullAccountRlp } from "../storage/accountCodec.js";
import { HASHED_KEY_BYTES, prefixEnd } from "../storage/keys.js";
import { TrieBuilder, type HashedNodeSink } from "../storage/trie/builder.js";
import { to0x, toHex } from "../util/bytes.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { sameBytes } from "./trieNode.js";

/** A node of the baseline: its trie (the account trie, or the storage trie of `hashedAddress`), its path (nibbles) and its RLP. */
interface BaselineNode {
  hashedAddress?: Uint8Array;
  path: Uint8Array;
  node: Uint8Array;
}

/** The block a baseline is taken at. */
interface BaselineBlock {
  number: bigint;
  hash: Uint8Array;
  stateRoot: Uint8Array;
}

/** Where an interrupted baseline resumes: its block, and the last account whose storage trie is written (none yet: undefined). */
export interface BaselineProgress {
  number: bigint;
  hash: Uint8Array;
  lastAccount: Uint8Array | undefined;
}

/** Bytes of a progress marker: block number (8), block hash (32), then the last account (32) once one is complete. */
const PROGRESS_HEAD_BYTES = 8 + 32;

/** The store's resume marker for `progress`. */
export function encodeBaselineProgress(progress: BaselineProgress): Uint8Array {
  const out = new Uint8Array(PROGRESS_HEAD_BYTES + (progress.lastAccount === undefined ? 0 : HASHED_KEY_BYTES));
  new DataView(out.buffer).setBigUint64(0, progress.number);
  out.set(progress.hash, 8);
  if (progress.lastAccount !== undefined) out.set(progress.lastAccount, PROGRESS_HEAD_BYTES);
  return out;
}

/**
 * The progress a marker records; undefined for a marker of another form (an older basalt's, which
 * named the last account only, not the block its baseline was taken at).
 */
export function decodeBaselineProgress(marker: Uint8Array): BaselineProgress | undefined {
  if (marker.length !== PROGRESS_HEAD_BYTES && marker.length !== PROGRESS_HEAD_BYTES + HASHED_KEY_BYTES) return undefined;
  const number = new DataView(marker.buffer, marker.byteOffset, marker.byteLength).getBigUint64(0);
  return { number, hash: marker.slice(8, PROGRESS_HEAD_BYTES), lastAccount: marker.length > PROGRESS_HEAD_BYTES ? marker.slice(PROGRESS_HEAD_BYTES) : undefined };
}

/** Receives a batch of nodes and the progress they complete; awaited before the baseline goes on. */
type BaselineBatchSink = (nodes: BaselineNode[], progress: BaselineProgress) => Promise<void>;

/** What a baseline wrote. */
interface BaselineResult {
  block: BaselineBlock;
  /** Nodes passed to the sink (account-trie nodes written again on a resume included). */
  nodes: number;
  accounts: number;
  /** Storage tries built (those skipped on a resume not included). */
  storageTries: number;
}

/** A `PROOFS_BASELINE_UNRESUMABLE` error for the store at `dir`. */
export function unresumable(dir: string, block: bigint | undefined, reason: string): ProofsError {
  return new ProofsError(
    { code: ProofsErrorCode.BASELINE_UNRESUMABLE, dir, ...(block === undefined ? {} : { block: block.toString() }), reason },
    `the interrupted baseline of the proofs store at ${dir} cannot be finished: ${reason}; remove ${dir} and initialize it again`,
  );
}

/** The values at block `at` of every key the blocks after it (up to the snapshot's head) changed: the flat state's overlay back to `at`. */
interface Reverted {
  /** Hashed address (hex) → slim account RLP at `at` (undefined: absent), ascending. */
  accounts: [string, Buffer | undefined][];
  /** Hashed address (hex) → hashed slot (hex) → value at `at` (empty: zero), ascending. */
  slots: Map<string, [string, Buffer][]>;
}

/** Reads (synchronously: one snapshot) the changes of blocks `at`+1..`head` and their keys' values at `at`. */
function revertedSince(chain: ChainReader, at: bigint, head: bigint): Reverted {
  const store = chain.store;
  const accounts = new Map<string, Buffer>();
  const slots = new Map<string, Map<string, [Buffer, Buffer]>>();
  for (let n = at + 1n; n <= head; n++) {
    const set = store.changeSetOf(n);
    for (const a of set.accounts) accounts.set(toHex(a), a);
    for (const [a, s] of set.slots) {
      let m = slots.get(toHex(a));
      if (m === undefined) slots.set(toHex(a), (m = new Map()));
      m.set(toHex(s), [a, s]);
    }
  }
  const out: Reverted = { accounts: [], slots: new Map() };
  for (const k of [...accounts.keys()].sort()) out.accounts.push([k, store.getHistoricalAccount(accounts.get(k)!, at)]);
  for (const [k, m] of slots) {
    out.slots.set(
      k,
      [...m.keys()].sort().map((s) => {
        const [a, slot] = m.get(s)!;
        return [s, store.getHistoricalStorage(a, slot, at) ?? Buffer.alloc(0)];
      }),
    );
  }
  return out;
}

/**
 * Leaves in ascending key order: `flat` (the latest state's) with the keys of `reverted` replaced
 * by its values (an undefined or empty one drops the key). `keyOf` gives a flat entry's key.
 */
function* overlaid(flat: Iterable<{ key: Buffer; value: Buffer }>, keyOf: (key: Buffer) => Buffer, reverted: [string, Buffer | undefined][]): Generator<{ key: Buffer; value: Buffer }> {
  let i = 0;
  const present = (v: Buffer | undefined): v is Buffer => v !== undefined && v.length > 0;
  for (const entry of flat) {
    const key = Buffer.from(keyOf(entry.key));
    const k = key.toString("hex");
    for (; i < reverted.length && reverted[i]![0] < k; i++) {
      const [rk, rv] = reverted[i]!;
      if (present(rv)) yield { key: Buffer.from(rk, "hex"), value: rv };
    }
    if (i < reverted.length && reverted[i]![0] === k) {
      const rv = reverted[i++]![1];
      if (present(rv)) yield { key, value: rv };
    } else yield { key, value: Buffer.from(entry.value) };
  }
  for (; i < reverted.length; i++) {
    const [rk, rv] = reverted[i]!;
    if (present(rv)) yield { key: Buffer.from(rk, "hex"), value: rv };
  }
}

function rootMismatch(block: BaselineBlock, trie: string, expected: Uint8Array, actual: Uint8Array): ProofsError {
  return new ProofsError(
    { code: ProofsErrorCode.ROOT_MISMATCH, block: block.number.toString(), trie, expected: to0x(expected), actual: to0x(actual) },
    `the ${trie === "account" ? "account trie" : `storage trie of ${trie}`} rebuilt from the main store's flat state at block ${block.number} has root ${to0x(actual)}, expected ${to0x(expected)}: the main store is inconsistent (nothing more was written)`,
  );
}

/**
 * Every node of the state at one block (see the module doc) passed to `onBatch` in batches of
 * about `batchNodes`, each with the progress it completes. Without `resume` the block is the
 * head the read transaction sees.
 * @param dir the proofs store's directory (named in errors).
 * @throws ProofsError `PROOFS_BASELINE_UNRESUMABLE` when `resume`'s block is no longer canonical or
 *   its state is below the main store's history; `PROOFS_ROOT_MISMATCH` when a rebuilt trie is not
 *   the state's (a corrupt main store).
 */
export async function baselineOf(chain: ChainReader, dir: string, batchNodes: number, onBatch: BaselineBatchSink, resume?: BaselineProgress): Promise<BaselineResult> {
  const store = chain.store;
  // One read transaction for everything; the reads of this synchronous part use it implicitly.
  const txn: Transaction = store.root.useReadTransaction();
  try {
    const headHash = store.getPointer("head");
    const head = headHash === undefined ? undefined : chain.getHeaderByHash(headHash);
    if (headHash === undefined || head === undefined) throw new Error("the main store has no head block: initialize the chain first");
    let block: BaselineBlock = { number: head.number, hash: headHash, stateRoot: head.stateRoot };
    let reverted: Reverted = { accounts: [], slots: new Map() };
    if (resume !== undefined && !sameBytes(resume.hash, headHash)) {
      const canonical = store.getCanonicalHash(resume.number);
      const header = canonical === undefined ? undefined : chain.getHeaderByHash(canonical);
      if (canonical === undefined || header === undefined || !sameBytes(canonical, resume.hash) || resume.number > head.number) {
        throw unresumable(dir, resume.number, `its block ${resume.number} (${to0x(resume.hash)}) is no longer on the main store's canonical chain`);
      }
      const floor = store.historyFloor();
      if (resume.number + 1n < floor) {
        throw unresumable(dir, resume.number, `its block ${resume.number}'s state needs the main store's history from block ${resume.number + 1n}, which keeps it from block ${floor} (--history.blocks; --archive keeps all)`);
      }
      block = { number: resume.number, hash: resume.hash, stateRoot: header.stateRoot };
      reverted = revertedSince(chain, resume.number, head.number);
    }
    const after = resume?.lastAccount;
    let batch: BaselineNode[] = [];
    let lastAccount = after;
    const result: BaselineResult = { block, nodes: 0, accounts: 0, storageTries: 0 };
    const flush = async (): Promise<void> => {
      const nodes = batch;
      batch = [];
      result.nodes += nodes.length;
      await onBatch(nodes, { number: block.number, hash: block.hash, lastAccount });
    };
    const accountSink: HashedNodeSink = (path, node) => void batch.push({ path, node });
    const accountTrie = new TrieBuilder(undefined, { onHashedNode: accountSink });
    const flatAccounts = store.hashedAccounts.getRange({ transaction: txn });
    for (const { key: hashedAddress, value: slim } of overlaid(flatAccounts, (k) => k, reverted.accounts)) {
      result.accounts++;
      const fields = RLP.decode(slim) as Uint8Array[];
      const storageRoot = fields[2]!.length === 0 ? KECCAK256_RLP : Uint8Array.from(fields[2]!);
      if (after === undefined || Buffer.compare(hashedAddress, after) > 0) {
        if (!sameBytes(storageRoot, KECCAK256_RLP)) {
          const storageTrie = new TrieBuilder(undefined, { onHashedNode: (path, node) => void batch.push({ hashedAddress, path, node }) });
          const range = { start: hashedAddress, end: prefixEnd(hashedAddress), transaction: txn };
          const slots = overlaid(store.hashedStorage.getRange(range), (k) => k.subarray(HASHED_KEY_BYTES), reverted.slots.get(hashedAddress.toString("hex")) ?? []);
          for (const { key, value } of slots) {
            storageTrie.add(key, RLP.encode(value));
            // A large storage trie is written in several batches; the marker moves past it once it is complete.
            if (batch.length >= batchNodes) await flush();
          }
          const root = storageTrie.finish();
          if (!sameBytes(root, storageRoot)) throw rootMismatch(block, to0x(hashedAddress), storageRoot, root);
          result.storageTries++;
        }
        lastAccount = hashedAddress;
      }
      accountTrie.add(hashedAddress, fullAccountRlp(slim));
      if (batch.length >= batchNodes) await flush();
    }
    const root = accountTrie.finish();
    if (!sameBytes(root, block.stateRoot)) throw rootMismatch(block, "account", block.stateRoot, root);
    await flush();
    return result;
  } finally {
    txn.done();
  }
}
