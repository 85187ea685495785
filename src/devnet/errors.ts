/**
 * Typed errors of the local rollup's L1 tooling (src/devnet/): compiling the L1 contracts, sending
 * their transactions and waiting for receipts. Stable codes; metadata per code (hashes and data 0x
 * hex, numbers decimal); messages say what was wrong and what was expected.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link DevnetError}. */
export const DevnetErrorCode = {
  /** solc refused the contract sources (its messages in `errors`). */
  CONTRACT_COMPILE: "DEVNET_CONTRACT_COMPILE",
  /** An argument that does not fit what the contract or transaction takes (a key, an address, a uint range). */
  INVALID_ARGUMENT: "DEVNET_INVALID_ARGUMENT",
  /** The L1 refused the transaction before it was sent: gas estimation reverted (a contract's check failed). */
  CALL_REVERTED: "DEVNET_L1_CALL_REVERTED",
  /** The transaction was included and reverted (receipt status 0). */
  TX_REVERTED: "DEVNET_L1_TX_REVERTED",
  /** No receipt within the timeout: the L1 did not include the transaction (not mining, fee too low, dropped). */
  RECEIPT_TIMEOUT: "DEVNET_L1_RECEIPT_TIMEOUT",
  /** A contract-creation receipt without a contract address. */
  NO_CONTRACT_ADDRESS: "DEVNET_L1_NO_CONTRACT_ADDRESS",
  /** The L1 RPC answered something that is not what the method returns (a malformed receipt, chain id, …). */
  BAD_RPC_ANSWER: "DEVNET_L1_BAD_RPC_ANSWER",
} as const;
/** One of the {@link DevnetErrorCode} values. */
export type DevnetErrorCode = (typeof DevnetErrorCode)[keyof typeof DevnetErrorCode];

/** A {@link DevnetError}'s code with its metadata. */
type DevnetErrorType =
  | { code: typeof DevnetErrorCode.CONTRACT_COMPILE; files: string; errors: string }
  | { code: typeof DevnetErrorCode.INVALID_ARGUMENT; field: string; value: string }
  /** `reason`: the decoded custom error or revert string, else the raw revert data; `data`: the revert data (0x hex, may be empty). */
  | { code: typeof DevnetErrorCode.CALL_REVERTED; to: string; reason: string; data: string }
  | { code: typeof DevnetErrorCode.TX_REVERTED; txHash: string; blockNumber: string }
  | { code: typeof DevnetErrorCode.RECEIPT_TIMEOUT; txHash: string; timeoutMs: number }
  | { code: typeof DevnetErrorCode.NO_CONTRACT_ADDRESS; txHash: string }
  | { code: typeof DevnetErrorCode.BAD_RPC_ANSWER; method: string; value: string };

/** A failure of the devnet's L1 tooling (see {@link DevnetErrorCode}). */
export class DevnetError extends TypedError<DevnetErrorType> {}
