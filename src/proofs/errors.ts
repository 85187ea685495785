/**
 * Typed errors of the historical proofs store (`src/proofs/store.ts`): stable codes, metadata per
 * code (block numbers decimal, hashes 0x hex), and messages that say what was wrong and what was
 * expected.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link ProofsError}. */
export const ProofsErrorCode = {
  /** A block written out of order: not the child of the window's latest (or the parent of its earliest). */
  OUT_OF_ORDER: "PROOFS_OUT_OF_ORDER",
  /** An unwind to a block below the window's earliest: the versions needed are gone. */
  UNWIND_BEYOND_EARLIEST: "PROOFS_UNWIND_BEYOND_EARLIEST",
  /** The store on disk belongs to another chain (chain id or genesis hash). */
  OTHER_CHAIN: "PROOFS_OTHER_CHAIN",
  /** The store on disk is unreadable: bad metadata, another schema, or data that contradicts a write. */
  CORRUPT: "PROOFS_CORRUPT",
  /** The store has no window yet (its baseline is not committed), or no store exists for a read-only open. */
  NOT_INITIALIZED: "PROOFS_NOT_INITIALIZED",
  /** A baseline write to a store whose window is already set. */
  ALREADY_INITIALIZED: "PROOFS_ALREADY_INITIALIZED",
  /** A read at a block outside the window `[earliest, latest]`. */
  OUTSIDE_WINDOW: "PROOFS_OUTSIDE_WINDOW",
  /** A block reference whose hash is not the store's block of that number. */
  BLOCK_MISMATCH: "PROOFS_BLOCK_MISMATCH",
  /** A write to a store opened read-only. */
  READ_ONLY: "PROOFS_READ_ONLY",
  /** An argument that cannot be stored (a bad nibble path, hash length, or duplicate entry). */
  INVALID_INPUT: "PROOFS_INVALID_INPUT",
  /** The proofs worker is not running or did not answer (the main thread's side). */
  UNAVAILABLE: "PROOFS_UNAVAILABLE",
  /** RocksDB refused a write (a full disk, an I/O error); the store keeps answering reads of what it holds. */
  WRITE_FAILED: "PROOFS_WRITE_FAILED",
  /** The store disagrees with the chain it is checked against (`proofs/check.ts`): its window or a proof at one of the window's ends. */
  CHAIN_MISMATCH: "PROOFS_CHAIN_MISMATCH",
  /**
   * A sync step needs the state history of a block the main store no longer keeps (below its
   * history floor: `--history.blocks`; `--archive` keeps all): the store cannot be moved forward
   * over that block.
   */
  HISTORY_UNAVAILABLE: "PROOFS_HISTORY_UNAVAILABLE",
  /**
   * A block's changes applied to the proofs store's tries do not give the block's state root (or
   * an account's storage root the main store records): the two stores disagree, nothing is written.
   */
  ROOT_MISMATCH: "PROOFS_ROOT_MISMATCH",
  /** An interrupted baseline that cannot be finished (its block's state is gone from the main store): the store must be made again. */
  BASELINE_UNRESUMABLE: "PROOFS_BASELINE_UNRESUMABLE",
  /**
   * A read-write open of an existing store failed with RocksDB's I/O error (`EIO`), which is what
   * its LOCK file held by another process (a running node) gives.
   */
  IN_USE: "PROOFS_IN_USE",
} as const;
/** One of the {@link ProofsErrorCode} values. */
export type ProofsErrorCode = (typeof ProofsErrorCode)[keyof typeof ProofsErrorCode];

/** A {@link ProofsError}'s code with its metadata. */
type ProofsErrorType =
  /** `expected`/`got`: `number:0xhash` of the block the store wanted and of the one it was given. */
  | { code: typeof ProofsErrorCode.OUT_OF_ORDER; expected: string; got: string }
  | { code: typeof ProofsErrorCode.UNWIND_BEYOND_EARLIEST; target: string; earliest: string }
  | { code: typeof ProofsErrorCode.OTHER_CHAIN; storeChainId: string; chainId: string; storeGenesis: string; genesis: string }
  | { code: typeof ProofsErrorCode.CORRUPT; reason: string }
  | { code: typeof ProofsErrorCode.NOT_INITIALIZED }
  | { code: typeof ProofsErrorCode.ALREADY_INITIALIZED; earliest: string; latest: string }
  | { code: typeof ProofsErrorCode.OUTSIDE_WINDOW; block: string; earliest?: string; latest?: string }
  | { code: typeof ProofsErrorCode.BLOCK_MISMATCH; number: string; storeHash: string; hash: string }
  | { code: typeof ProofsErrorCode.READ_ONLY }
  | { code: typeof ProofsErrorCode.INVALID_INPUT; reason: string }
  | { code: typeof ProofsErrorCode.UNAVAILABLE; reason: string }
  /** `diskFull`: the device holding the store has no space left (ENOSPC). */
  | { code: typeof ProofsErrorCode.WRITE_FAILED; dir: string; diskFull: boolean; reason: string }
  | { code: typeof ProofsErrorCode.CHAIN_MISMATCH; dir: string; reason: string }
  /** `block`: the block whose history is needed; `floor`: the lowest block the main store keeps history of. */
  | { code: typeof ProofsErrorCode.HISTORY_UNAVAILABLE; block: string; floor: string }
  /** `trie`: "account" or the storage trie's hashed address (0x hex); roots 0x hex. */
  | { code: typeof ProofsErrorCode.ROOT_MISMATCH; block: string; trie: string; expected: string; actual: string }
  /** `block`: the block the interrupted baseline was taken at (absent when its marker names none). */
  | { code: typeof ProofsErrorCode.BASELINE_UNRESUMABLE; dir: string; block?: string; reason: string }
  /** `reason`: RocksDB's own words. */
  | { code: typeof ProofsErrorCode.IN_USE; dir: string; reason: string };

/** An error of the historical proofs store. */
export class ProofsError extends TypedError<ProofsErrorType> {}

/** A {@link ProofsErrorCode.CORRUPT} error naming the store directory and the reason. */
export function corrupt(dir: string, reason: string): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.CORRUPT, reason }, `proofs store ${dir} is corrupt: ${reason}`);
}

/** A {@link ProofsErrorCode.INVALID_INPUT} error with the reason. */
export function invalidInput(reason: string): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.INVALID_INPUT, reason }, `invalid proofs store input: ${reason}`);
}

/** What RocksDB says when the device is full (its message for ENOSPC, and the errno's name). */
const NO_SPACE = /No space left on device|ENOSPC/i;

/**
 * A {@link ProofsErrorCode.WRITE_FAILED} error for a write RocksDB refused: the reason is the
 * database's own message (and its cause's, which names the file), and a full disk says so.
 */
export function writeFailed(dir: string, e: unknown): ProofsError {
  const messages: string[] = [];
  for (let c: unknown = e; c instanceof Error && messages.length < 4; c = c.cause) messages.push(c.message);
  const reason = messages.length > 0 ? messages.join(": ") : String(e);
  const diskFull = NO_SPACE.test(reason);
  const what = diskFull ? `the disk holding it is full (${reason})` : reason;
  return new ProofsError({ code: ProofsErrorCode.WRITE_FAILED, dir, diskFull, reason }, `cannot write the proofs store at ${dir}: ${what}`, { cause: e });
}

/** A {@link ProofsErrorCode.CHAIN_MISMATCH} error naming the store directory and what disagrees. */
export function chainMismatch(dir: string, reason: string): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.CHAIN_MISMATCH, dir, reason }, `proofs store ${dir} does not match the chain: ${reason}`);
}
