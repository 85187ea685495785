/**
 * Typed errors of the upgrade watch (`src/ops/upgrades/`): a bad `--upgrade-signal.contract`, or
 * the L1 upgrade signal asked of a chain that has none.
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link UpgradeWatchError}. */
export const UpgradeWatchErrorCode = {
  /** An upgrade-watch option with a value of the wrong form (the same code as `CliError`'s). */
  INVALID_VALUE: "CLI_INVALID_VALUE",
  /** The L1 upgrade signal watched on a chain that is not an OP Stack chain. */
  SIGNAL_NOT_OP: "UPGRADE_SIGNAL_NOT_OP",
} as const;

/**
 * An {@link UpgradeWatchError}'s code with its metadata: `option` the flag, `value` what was given,
 * `expected` its form (as `CliError`'s `CLI_INVALID_VALUE`); `chainId` decimal.
 */
type UpgradeWatchErrorType =
  | { code: typeof UpgradeWatchErrorCode.INVALID_VALUE; option: string; expected: string; value?: string }
  | { code: typeof UpgradeWatchErrorCode.SIGNAL_NOT_OP; chainId: string };

/** An upgrade watch that cannot be set up from the options and chain given. */
export class UpgradeWatchError extends TypedError<UpgradeWatchErrorType> {}
