/**
 * Typed errors of `basalt import` and `basalt export` (`src/cli/commands/import.ts`, `export.ts`):
 * the chain file or the block range is wrong. Block numbers are decimal strings.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link ChainFileError}. */
const ChainFileErrorCode = {
  /** `basalt export`: `--from` after `--to`, or `--to` beyond the head block. */
  EXPORT_RANGE: "EXPORT_RANGE",
  /** `basalt export`: a canonical block of the range is not in the store. */
  EXPORT_MISSING: "EXPORT_MISSING",
  /** `basalt import`: a block of the file does not decode or does not import; the blocks before it stay. */
  IMPORT_FAILED: "IMPORT_FAILED",
} as const;

/**
 * A {@link ChainFileError}'s code with its metadata: `from`/`to` the range asked, `head` the
 * store's head block; `number` the missing block; `file` the RLP file being imported,
 * `lastImported` the last block of it imported (absent when none was).
 */
type ChainFileErrorType =
  | { code: typeof ChainFileErrorCode.EXPORT_RANGE; from: string; to: string; head: string }
  | { code: typeof ChainFileErrorCode.EXPORT_MISSING; number: string }
  | { code: typeof ChainFileErrorCode.IMPORT_FAILED; file: string; head: string; lastImported?: string };

/** An RLP chain file that cannot be written (export) or read into the chain (import). */
export class ChainFileError extends TypedError<ChainFileErrorType> {}
