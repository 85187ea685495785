/**
 * Errors of the fast EVM: transactions it refuses as invalid (with geth's wording, since
 * eth_call and eth_estimateGas answer with it), and requests it does not support and hands to
 * the reference engine. Codes are stable; JSON-RPC codes are assigned only in rpc/errors.ts.
 */
import { TypedError } from "../../util/errors.js";

/** Why a transaction is invalid (it cannot be included, or a call cannot run). */
export enum TxInvalidCode {
  TYPE_NOT_SUPPORTED = "TX_TYPE_NOT_SUPPORTED",
  GAS_LIMIT_EXCEEDS_BLOCK = "TX_GAS_LIMIT_EXCEEDS_BLOCK",
  GAS_LIMIT_EXCEEDS_CAP = "TX_GAS_LIMIT_EXCEEDS_CAP",
  INTRINSIC_GAS_TOO_LOW = "TX_INTRINSIC_GAS_TOO_LOW",
  FEE_CAP_BELOW_BASE_FEE = "TX_FEE_CAP_BELOW_BASE_FEE",
  TIP_ABOVE_FEE_CAP = "TX_TIP_ABOVE_FEE_CAP",
  BLOB_FEE_CAP_TOO_LOW = "TX_BLOB_FEE_CAP_TOO_LOW",
  BLOB_HASHES_INVALID = "TX_BLOB_HASHES_INVALID",
  CREATE_NOT_ALLOWED = "TX_CREATE_NOT_ALLOWED",
  EMPTY_AUTHORIZATION_LIST = "TX_EMPTY_AUTHORIZATION_LIST",
  INITCODE_TOO_LARGE = "TX_INITCODE_TOO_LARGE",
  SENDER_NOT_EOA = "TX_SENDER_NOT_EOA",
  NONCE_TOO_LOW = "TX_NONCE_TOO_LOW",
  NONCE_TOO_HIGH = "TX_NONCE_TOO_HIGH",
  NONCE_MAX = "TX_NONCE_MAX",
  INSUFFICIENT_FUNDS = "TX_INSUFFICIENT_FUNDS",
}

/** A {@link TxInvalidError}'s code with its metadata: the code is the reason. */
type TxInvalidErrorType = { code: TxInvalidCode; reason: TxInvalidCode };

/** A transaction the fast engine refuses, before any state change. */
export class TxInvalidError extends TypedError<TxInvalidErrorType> {
  constructor(
    readonly reason: TxInvalidCode,
    message: string,
  ) {
    super({ code: reason, reason }, message);
  }
}

/** Why the fast engine hands work to the reference engine. */
export enum FastEvmUnsupportedCode {
  FORK = "FAST_EVM_FORK_UNSUPPORTED",
  PRECOMPILE = "FAST_EVM_PRECOMPILE_UNSUPPORTED",
  GAS_RANGE = "FAST_EVM_GAS_RANGE_UNSUPPORTED",
  TX_TYPE = "FAST_EVM_TX_TYPE_UNSUPPORTED",
}

/** A {@link FastEvmUnsupported}'s code with its metadata: the code is the reason. */
type FastEvmUnsupportedType = { code: FastEvmUnsupportedCode; reason: FastEvmUnsupportedCode; detail: string };

/** Work the fast engine does not support (the caller re-runs it on the reference engine). */
export class FastEvmUnsupported extends TypedError<FastEvmUnsupportedType> {
  constructor(reason: FastEvmUnsupportedCode, detail: string) {
    super({ code: reason, reason, detail }, `fast EVM does not support this: ${detail}`);
  }
}
