/**
 * Typed errors of transaction tracing (debug_trace*): stable codes, geth's messages
 * (eth/tracers/api.go). They answer geth's generic -32000 (src/rpc/errors.ts).
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link TraceError}. */
export const TraceErrorCode = {
  /** The tracer name is not one of the built-in tracers (JavaScript tracers are not served). */
  UNKNOWN_TRACER: "TRACE_UNKNOWN_TRACER",
  /** The trace config or the tracer config is malformed (types, unknown timeout syntax). */
  BAD_CONFIG: "TRACE_BAD_CONFIG",
  /** The transaction hash is not in the chain's index. */
  TX_NOT_FOUND: "TRACE_TX_NOT_FOUND",
  /** The block is not stored. */
  BLOCK_NOT_FOUND: "TRACE_BLOCK_NOT_FOUND",
  /** The genesis block has no parent state to replay on. */
  GENESIS: "TRACE_GENESIS",
  /** The trace ran past its `timeout`. */
  TIMEOUT: "TRACE_TIMEOUT",
  /** The struct log grew past the byte cap (TRACE_STRUCT_LOG_MAX_BYTES). */
  TOO_LARGE: "TRACE_TOO_LARGE",
  /** The parent's state is pruned (outside `--history.blocks` without `--archive`). */
  STATE_UNAVAILABLE: "TRACE_STATE_UNAVAILABLE",
} as const;
/** One of the {@link TraceErrorCode} values. */
export type TraceErrorCode = (typeof TraceErrorCode)[keyof typeof TraceErrorCode];

/** A {@link TraceError}'s code with its metadata. */
type TraceErrorType =
  | { code: typeof TraceErrorCode.UNKNOWN_TRACER; tracer: string }
  /**
   * `argument`: geth's JSON decoding of the trace config argument itself failed (a field of
   * `tracers.TraceConfig` of the wrong type): an invalid argument (-32602), where the other bad
   * configs (a tracer's own config, a timeout) are found when the tracer is built (-32000).
   */
  | { code: typeof TraceErrorCode.BAD_CONFIG; field: string; argument?: true }
  | { code: typeof TraceErrorCode.TX_NOT_FOUND; hash: string }
  | { code: typeof TraceErrorCode.BLOCK_NOT_FOUND; block: string }
  | { code: typeof TraceErrorCode.GENESIS }
  | { code: typeof TraceErrorCode.TIMEOUT; timeoutMs: number }
  | { code: typeof TraceErrorCode.TOO_LARGE; limitBytes: number }
  | { code: typeof TraceErrorCode.STATE_UNAVAILABLE; block: string };

/** A trace that could not be produced. */
export class TraceError extends TypedError<TraceErrorType> {
}
