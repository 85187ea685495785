import { BasaltError } from "../util/errors.js";

/** Stable codes of block import and chain errors. */
export const ChainErrorCode = {
  UNKNOWN_PARENT: "CHAIN_UNKNOWN_PARENT",
  INVALID_HEADER: "CHAIN_INVALID_HEADER",
  INVALID_BLOCK: "CHAIN_INVALID_BLOCK",
  STATE_UNAVAILABLE: "CHAIN_STATE_UNAVAILABLE",
  UNKNOWN_BLOCK: "CHAIN_UNKNOWN_BLOCK",
  GENESIS_MISMATCH: "CHAIN_GENESIS_MISMATCH",
  /** The datadir's chain was created with another fork schedule than the one asked for (same genesis block). */
  SCHEDULE_MISMATCH: "CHAIN_SCHEDULE_MISMATCH",
  NOT_INITIALIZED: "CHAIN_NOT_INITIALIZED",
} as const;
export type ChainErrorCodeT = (typeof ChainErrorCode)[keyof typeof ChainErrorCode];

/** An error of block import / chain management, naming the block it concerns. */
export class ChainError extends BasaltError<{ number?: string; hash?: string }> {
  constructor(code: ChainErrorCodeT, message: string, meta: { number?: bigint; hash?: string } = {}) {
    super(code, message, { number: meta.number?.toString(), hash: meta.hash });
  }
}
