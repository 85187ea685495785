/**
 * Typed errors of the execution pool (the queue, the timeout and the worker threads): stable codes
 * with metadata per code. Their JSON-RPC codes are chosen in src/rpc/errors.ts only (a full queue
 * answers -32005, a timeout -32000 as geth's `--rpc.evmtimeout`, a shut-down pool or a lost worker
 * -32603).
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link PoolError}. */
export const PoolErrorCode = {
  /** `--rpc.queue` requests are waiting already: refused at once. */
  QUEUE_FULL: "POOL_QUEUE_FULL",
  /** The request ran (or waited) past `--rpc.evmtimeout`. */
  TIMEOUT: "POOL_TIMEOUT",
  /** The pool is shut down. */
  CLOSED: "POOL_CLOSED",
  /** The worker running the request died (crash, heap limit, terminated). */
  WORKER_CRASHED: "POOL_WORKER_CRASHED",
} as const;
/** One of the {@link PoolErrorCode} values. */
export type PoolErrorCode = (typeof PoolErrorCode)[keyof typeof PoolErrorCode];

/** A {@link PoolError}'s code with its metadata. */
type PoolErrorType =
  /** `waiting`: requests in the queue; `maxQueue`: its bound. */
  | { code: typeof PoolErrorCode.QUEUE_FULL; waiting: number; maxQueue: number }
  /** `timeoutMs`: the limit that fired. */
  | { code: typeof PoolErrorCode.TIMEOUT; timeoutMs: number }
  | { code: typeof PoolErrorCode.CLOSED }
  /** `cause`: what the worker died of, as piscina reported it. */
  | { code: typeof PoolErrorCode.WORKER_CRASHED; cause: string };

/** A call-family request the execution pool could not run. */
export class PoolError extends TypedError<PoolErrorType> {
}
