import { BasaltError } from "../util/errors.js";

/** Stable codes of storage errors. */
export const StorageErrorCode = {
  GENESIS_MISMATCH: "STORAGE_GENESIS_MISMATCH",
  NOT_INITIALIZED: "STORAGE_NOT_INITIALIZED",
  MISSING_DATA: "STORAGE_MISSING_DATA",
  STATE_UNAVAILABLE: "STORAGE_STATE_UNAVAILABLE",
  WRITE_FAILED: "STORAGE_WRITE_FAILED",
} as const;

/** An error of the chain store. */
export class StorageError extends BasaltError {
  constructor(code: (typeof StorageErrorCode)[keyof typeof StorageErrorCode], message: string, meta: Record<string, unknown> = {}) {
    super(code, message, meta);
  }
}
