/**
 * Typed errors of the transaction pool: why a raw transaction was refused, with stable codes and
 * metadata per code. Messages are geth's (op-reth's on OP chains) texts for the same refusals; the
 * JSON-RPC code they answer with (-32000, as geth) is chosen in src/rpc/errors.ts only.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link TxPoolError}. */
export const TxPoolErrorCode = {
  /** The bytes do not decode as a transaction (RLP or field rules). */
  DECODE_FAILED: "TXPOOL_DECODE_FAILED",
  /** OP chains: a deposit (0x7e) or blob (0x03) transaction, which the pool does not take (op-reth). */
  UNSUPPORTED_TX_TYPE: "TXPOOL_UNSUPPORTED_TX_TYPE",
  /** The transaction is in the pool already. */
  ALREADY_KNOWN: "TXPOOL_ALREADY_KNOWN",
  /** The transaction is not signed (zero v, r, s). */
  INVALID_SIGNATURE: "TXPOOL_INVALID_SIGNATURE",
  /** The signature does not recover a sender. */
  INVALID_SENDER: "TXPOOL_INVALID_SENDER",
  /** The transaction is signed for another chain. */
  INVALID_CHAIN_ID: "TXPOOL_INVALID_CHAIN_ID",
  /** The gas limit is above the head block's gas limit. */
  EXCEEDS_BLOCK_GAS_LIMIT: "TXPOOL_EXCEEDS_BLOCK_GAS_LIMIT",
  /** The gas limit is below the transaction's intrinsic gas. */
  INTRINSIC_GAS_TOO_LOW: "TXPOOL_INTRINSIC_GAS_TOO_LOW",
  /** OP chains from Azul: the gas limit is above the EIP-7825 per-transaction cap. */
  GAS_LIMIT_TOO_HIGH: "TXPOOL_GAS_LIMIT_TOO_HIGH",
  /** The priority fee is above the fee cap. */
  TIP_ABOVE_FEE_CAP: "TXPOOL_TIP_ABOVE_FEE_CAP",
  /** fee cap × gas limit is above the node's transaction fee cap (`RPC_TX_FEE_CAP_WEI`). */
  FEE_CAP_EXCEEDED: "TXPOOL_FEE_CAP_EXCEEDED",
  /** The nonce is below the sender's state nonce. */
  NONCE_TOO_LOW: "TXPOOL_NONCE_TOO_LOW",
  /** The sender cannot pay the upfront cost (plus the L1 data fee on OP chains). */
  INSUFFICIENT_FUNDS: "TXPOOL_INSUFFICIENT_FUNDS",
  /** A replacement that does not pay the price bump over the transaction it replaces. */
  REPLACEMENT_UNDERPRICED: "TXPOOL_REPLACEMENT_UNDERPRICED",
  /** The pool holds its maximum of transactions. */
  POOL_FULL: "TXPOOL_FULL",
  /** The sender holds its maximum of pooled transactions. */
  ACCOUNT_LIMIT: "TXPOOL_ACCOUNT_LIMIT",
  /** Plain Ethereum chains: a blob transaction without its sidecar, or one whose sidecar does not verify. */
  INVALID_BLOB_SIDECAR: "TXPOOL_INVALID_BLOB_SIDECAR",
} as const;
/** One of the {@link TxPoolErrorCode} values. */
export type TxPoolErrorCode = (typeof TxPoolErrorCode)[keyof typeof TxPoolErrorCode];

/** A {@link TxPoolError}'s code with its metadata (hashes and addresses 0x hex, amounts decimal). */
type TxPoolErrorType =
  /** `gasLimitTooHigh`: the decoder refused a gas limit above the EIP-7825 cap (reported as {@link TxPoolErrorCode.GAS_LIMIT_TOO_HIGH} on OP chains). */
  | { code: typeof TxPoolErrorCode.DECODE_FAILED; gasLimitTooHigh?: boolean }
  | { code: typeof TxPoolErrorCode.UNSUPPORTED_TX_TYPE; type: number }
  | { code: typeof TxPoolErrorCode.ALREADY_KNOWN; hash: string }
  | { code: typeof TxPoolErrorCode.INVALID_SIGNATURE }
  | { code: typeof TxPoolErrorCode.INVALID_SENDER }
  | { code: typeof TxPoolErrorCode.INVALID_CHAIN_ID; have: string; want: string }
  | { code: typeof TxPoolErrorCode.EXCEEDS_BLOCK_GAS_LIMIT; gasLimit: string; blockGasLimit: string }
  | { code: typeof TxPoolErrorCode.INTRINSIC_GAS_TOO_LOW; gasLimit: string; intrinsicGas: string }
  /** `max`: the cap, when the pool's own check refused it (not the decoder). */
  | { code: typeof TxPoolErrorCode.GAS_LIMIT_TOO_HIGH; max?: string }
  | { code: typeof TxPoolErrorCode.TIP_ABOVE_FEE_CAP }
  | { code: typeof TxPoolErrorCode.FEE_CAP_EXCEEDED; feeWei: string; capWei: string }
  | { code: typeof TxPoolErrorCode.NONCE_TOO_LOW; nonce: string; next: string }
  | { code: typeof TxPoolErrorCode.INSUFFICIENT_FUNDS; address: string; have: string; want: string }
  | { code: typeof TxPoolErrorCode.REPLACEMENT_UNDERPRICED; hash: string }
  | { code: typeof TxPoolErrorCode.POOL_FULL; limit: number }
  | { code: typeof TxPoolErrorCode.ACCOUNT_LIMIT; address: string; limit: number }
  /** `reason`: the `BLOB_SIDECAR_*` code of chain/blobSidecar.ts saying what is wrong. */
  | { code: typeof TxPoolErrorCode.INVALID_BLOB_SIDECAR; reason: string };

/** A raw transaction the pool refused. */
export class TxPoolError extends TypedError<TxPoolErrorType> {}
