import { TypedError } from "../util/errors.js";

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
  /** A new head whose common ancestor with the current one is below the kept state history: the unwind cannot be done. */
  REORG_TOO_DEEP: "CHAIN_REORG_TOO_DEEP",
} as const;
type ChainErrorCodeT = (typeof ChainErrorCode)[keyof typeof ChainErrorCode];

/** A {@link ChainError}'s code with its metadata. */
type ChainErrorType = { code: ChainErrorCodeT; number?: string; hash?: string };

/** An error of block import / chain management, naming the block it concerns. */
export class ChainError extends TypedError<ChainErrorType> {
  constructor(code: ChainErrorCodeT, message: string, meta: { number?: bigint; hash?: string } = {}) {
    super({ code, number: meta.number?.toString(), hash: meta.hash }, message);
  }
}

/** Codes and details of {@link ChainConfigError}: the genesis `config` key concerned. */
type ChainConfigErrorType =
  /** A fork key basalt does not know (e.g. `amsterdamTime`, a `blobSchedule` entry for an unknown fork). */
  | { code: "CHAIN_CONFIG_UNKNOWN_FORK"; key: string }
  /** A known key with a value basalt cannot use (not a number, forks out of order, a missing blob schedule). */
  | { code: "CHAIN_CONFIG_INVALID"; key: string };

/**
 * A genesis `config` basalt cannot run: an unknown fork or a malformed schedule. The message is one
 * line naming the key, what was wrong and what was expected (`basalt init` / `basalt node` print it
 * as is).
 */
export class ChainConfigError extends TypedError<ChainConfigErrorType> {}

/** What {@link UnknownUpgradeError} names: the refused block and the upgrade it would run under. */
interface UnknownUpgradeMeta extends Record<string, unknown> {
  /** The refused block's number and timestamp (decimal). */
  number: string;
  timestamp: string;
  /** "import" (a block from elsewhere) or "build" (a block made here). */
  action: "import" | "build";
  upgrade: string;
  /** The upgrade's activation time (L2 timestamp, decimal). */
  activation: string;
  /** Who scheduled it: "l1" (Base's upgrade-signal contract) or "follow-rpc" (the followed node's eth_config). */
  source: string;
  kind: "unknown" | "conflict";
}

/** A {@link UnknownUpgradeError}'s code with its metadata. */
type UnknownUpgradeErrorType = { code: typeof UnknownUpgradeError.CODE } & UnknownUpgradeMeta;

/**
 * A block at or after the activation of an upgrade basalt does not implement (or schedules at
 * another time than the network does) was refused: executing it would silently diverge from the
 * network. Code `CHAIN_UNKNOWN_UPGRADE`; the node stays up and serves what it has.
 */
export class UnknownUpgradeError extends TypedError<UnknownUpgradeErrorType> {
  static readonly CODE = "CHAIN_UNKNOWN_UPGRADE";
  constructor(message: string, meta: UnknownUpgradeMeta) {
    super({ code: UnknownUpgradeError.CODE, ...meta }, message);
  }
}
