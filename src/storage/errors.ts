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
type StorageErrorType = { code: (typeof StorageErrorCode)[keyof typeof StorageErrorCode] } & Record<string, unknown>;

/** An error of the chain store. */
export class StorageError extends TypedError<StorageErrorType> {
  constructor(code: (typeof StorageErrorCode)[keyof typeof StorageErrorCode], message: string, meta: Record<string, unknown> = {}) {
    super({ code, ...meta }, message);
  }
}
