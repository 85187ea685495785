import { TypedError } from "../util/errors.js";

/** Stable codes of storage errors. */
export const StorageErrorCode = {
  GENESIS_MISMATCH: "STORAGE_GENESIS_MISMATCH",
  NOT_INITIALIZED: "STORAGE_NOT_INITIALIZED",
  MISSING_DATA: "STORAGE_MISSING_DATA",
  STATE_UNAVAILABLE: "STORAGE_STATE_UNAVAILABLE",
  WRITE_FAILED: "STORAGE_WRITE_FAILED",
  /** The datadir holds an older state layout: `basalt db migrate` converts it. */
  LAYOUT_OUTDATED: "STORAGE_LAYOUT_OUTDATED",
  /** The datadir holds a state layout this basalt does not know (a newer one). */
  LAYOUT_UNKNOWN: "STORAGE_LAYOUT_UNKNOWN",
  /** A block's state changes were computed on another state than the store holds. */
  STATE_MISMATCH: "STORAGE_STATE_MISMATCH",
  /** A reorg or historical view reaches below the kept state history. */
  HISTORY_PRUNED: "STORAGE_HISTORY_PRUNED",
  /** Reverting a block's changes did not give its parent's state root: the store is corrupt. */
  REVERT_MISMATCH: "STORAGE_REVERT_MISMATCH",
  /** A bulk load into a store that holds a state, or from a stream out of order. */
  BULK_LOAD_REFUSED: "STORAGE_BULK_LOAD_REFUSED",
  /** A bulk load gave another state root than expected. */
  BULK_LOAD_ROOT: "STORAGE_BULK_LOAD_ROOT",
  /** An interrupted `basalt db reindex-logs`: the log index is partial until it is run again. */
  LOG_REINDEX_UNFINISHED: "STORAGE_LOG_REINDEX_UNFINISHED",
  /** A stored record's bytes do not follow their encoding (truncated, undefined type byte). */
  RECORD_CORRUPT: "STORAGE_RECORD_CORRUPT",
} as const;

/** A {@link StorageError}'s code with its metadata. */
type StorageErrorType =
  | { code: typeof StorageErrorCode.RECORD_CORRUPT; pos?: number; length?: number }
  | { code: typeof StorageErrorCode.LOG_REINDEX_UNFINISHED; datadir: string }
  | { code: typeof StorageErrorCode.LAYOUT_OUTDATED; datadir: string; found: number; expected: number }
  | { code: typeof StorageErrorCode.LAYOUT_UNKNOWN; datadir: string; found: number; expected: number }
  | { code: typeof StorageErrorCode.STATE_MISMATCH; number: string }
  | { code: typeof StorageErrorCode.BULK_LOAD_REFUSED }
  | { code: typeof StorageErrorCode.BULK_LOAD_ROOT }
  | { code: typeof StorageErrorCode.HISTORY_PRUNED; number: string; floor: string }
  | { code: typeof StorageErrorCode.REVERT_MISMATCH; number: string }
  | { code: typeof StorageErrorCode.MISSING_DATA };

/** An error of the chain store. */
export class StorageError extends TypedError<StorageErrorType> {}
