/**
 * Errors of the consensus-layer P2P subsystem (the libp2p worker and its main-thread service).
 * Codes are stable; `src/rpc/errors.ts` maps them (all answer JSON-RPC -32000 with the message,
 * as op-node's `opp2p_*` errors do).
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link P2PError}. */
export const P2PErrorCode = {
  /** A P2P option or init value is unusable (a bad key, multiaddr, ENR). */
  INVALID_CONFIG: "P2P_INVALID_CONFIG",
  /** An `opp2p_*` argument is malformed (peer id, IP, subnet, multiaddr). */
  INVALID_ARGUMENT: "P2P_INVALID_ARGUMENT",
  /** The P2P worker is not running (stopped, crashed and not yet restarted). */
  UNAVAILABLE: "P2P_UNAVAILABLE",
  /** The worker did not answer in time. */
  TIMEOUT: "P2P_TIMEOUT",
  /** Discovery is off (`--p2p.no-discovery`), so there is no discovery table. */
  DISCOVERY_DISABLED: "P2P_DISCOVERY_DISABLED",
  /** No sequencer key: this node cannot sign blocks for gossip. */
  NO_SIGNER: "P2P_NO_SIGNER",
  /** A payload_by_number request got no usable answer from any peer. */
  FETCH_FAILED: "P2P_FETCH_FAILED",
  /** A peer's req/resp answer broke the protocol (bad framing, wrong block, bad hash). */
  BAD_RESPONSE: "P2P_BAD_RESPONSE",
  /** An operation inside the worker failed (dial, publish). */
  OPERATION_FAILED: "P2P_OPERATION_FAILED",
} as const;

/** Metadata of each {@link P2PErrorCode}. */
type P2PErrorType =
  | { code: typeof P2PErrorCode.INVALID_CONFIG; what: string }
  | { code: typeof P2PErrorCode.INVALID_ARGUMENT; what: string }
  | { code: typeof P2PErrorCode.UNAVAILABLE }
  | { code: typeof P2PErrorCode.TIMEOUT; what: string; timeoutMs: number }
  | { code: typeof P2PErrorCode.DISCOVERY_DISABLED }
  | { code: typeof P2PErrorCode.NO_SIGNER }
  | { code: typeof P2PErrorCode.FETCH_FAILED; number: string; peers: number }
  | { code: typeof P2PErrorCode.BAD_RESPONSE; reason: string }
  | { code: typeof P2PErrorCode.OPERATION_FAILED; what: string };

/** An error of the P2P subsystem; crosses the worker boundary as `toObject()`. */
export class P2PError extends TypedError<P2PErrorType> {}
