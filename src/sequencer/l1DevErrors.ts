/**
 * Typed errors of basalt's local L1 (`--network devnet-l1`): its slot clock, block producer and
 * blob archive. Stable codes; messages say what was wrong and what was expected.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link L1DevError}. */
export const L1DevErrorCode = {
  /** `--dev.block-time` is not a whole number of seconds ≥ 1 (a slot length). */
  INVALID_SLOT_LENGTH: "L1DEV_INVALID_SLOT_LENGTH",
  /** The datadir's blocks were produced with another slot length: their slots would change. */
  SLOT_LENGTH_CHANGED: "L1DEV_SLOT_LENGTH_CHANGED",
  /** `debug_setHead` to a block above the head: it only rewinds. */
  SET_HEAD_ABOVE_HEAD: "L1DEV_SET_HEAD_ABOVE_HEAD",
  /** A built block holds a blob transaction whose sidecar the pool no longer has (the block is not committed). */
  SIDECAR_MISSING: "L1DEV_SIDECAR_MISSING",
} as const;

/** A {@link L1DevError}'s code with its metadata (numbers as decimal strings). */
type L1DevErrorType =
  | { code: typeof L1DevErrorCode.INVALID_SLOT_LENGTH; value: number }
  | { code: typeof L1DevErrorCode.SLOT_LENGTH_CHANGED; stored: number; given: number; dir: string }
  | { code: typeof L1DevErrorCode.SET_HEAD_ABOVE_HEAD; number: string; head: string }
  | { code: typeof L1DevErrorCode.SIDECAR_MISSING; number: string; tx: string };

/** A refusal of the local L1's producer or archive. */
export class L1DevError extends TypedError<L1DevErrorType> {}
