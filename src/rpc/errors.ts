/**
 * JSON-RPC error types and the single boundary that maps any thrown value to a JSON-RPC
 * error object. Codes follow EIP-1474 and, where the execution-apis suite fixes them, geth.
 * The subsystems below the RPC layer throw their own typed errors (stable string codes); this
 * file alone decides which JSON-RPC code each one answers with.
 */
import { ProofsErrorCode } from "../proofs/errors.js";
import { TrieProofErrorCode } from "../proofs/trieErrors.js";
import { ExecutionError, ExecutionErrorCode } from "../execution/errors.js";
import { SimulateErrorCode } from "../execution/simulate/errors.js";
import { PoolErrorCode } from "../execution/pool/errors.js";
import { MeteringErrorCode } from "../execution/metering/errors.js";
import { UpstreamRpcError } from "../util/rpcClient.js";
import { TxPoolErrorCode } from "../txpool/errors.js";
import { BasaltError, TypedError } from "../util/errors.js";
import { UnknownUpgradeError } from "../chain/errors.js";
import { FlashblockPositionErrorCode } from "../flashblocks/errors.js";

/** Standard JSON-RPC 2.0 / EIP-1474 codes used by basalt. */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  /** geth's generic server error: "execution reverted" without data, nonce/fee failures, … */
  Server: -32000,
  /** geth's code for a revert that carries data (eth_call/eth_estimateGas). */
  Reverted: 3,
  /** Resource limit, e.g. the execution queue is full. */
  LimitExceeded: -32005,
  /** EIP-1474 "method not supported" / engine: unsupported fork. */
  UnsupportedFork: -38005,
  /** Engine API: unknown payload id. */
  UnknownPayload: -38001,
  /** Engine API: invalid forkchoice state. */
  InvalidForkchoiceState: -38002,
  /** Engine API: invalid payload attributes. */
  InvalidPayloadAttributes: -38003,
  /** Engine API: request too large. */
  TooLargeRequest: -38004,
  /** alloy/reth `ResourceNotFound`: reth's "block not found: …" for an unknown block. */
  ResourceNotFound: -32001,
  /**
   * EIP-1474 "resource unavailable": a `{blockNumber, flashblockIndex}` this node has not reached
   * (or no longer retains). Its own code, so a load balancer retries another node on the code
   * alone, never on a message; `data` gives the position asked and this node's height.
   */
  ResourceUnavailable: -32002,
} as const;

/**
 * Stable codes of {@link RpcError} and its subclasses (the basalt code; the JSON-RPC code the
 * error answers with is its `rpcCode`).
 */
export const RpcErrorCode = {
  /** An RpcError that names no more specific code. */
  ERROR: "RPC_ERROR",
  PARSE_ERROR: "RPC_PARSE_ERROR",
  INVALID_REQUEST: "RPC_INVALID_REQUEST",
  METHOD_NOT_FOUND: "RPC_METHOD_NOT_FOUND",
  INVALID_PARAMS: "RPC_INVALID_PARAMS",
  INTERNAL: "RPC_INTERNAL",
  SERVER_ERROR: "RPC_SERVER_ERROR",
  FILTER_NOT_FOUND: "RPC_FILTER_NOT_FOUND",
  LIMIT_EXCEEDED: "RPC_LIMIT_EXCEEDED",
  /** A method the public mode (`--rpc.public`) does not serve. */
  PUBLIC_FORBIDDEN: "RPC_PUBLIC_FORBIDDEN",
  /** eth_sendBundle parameters of the wrong shape. */
  BUNDLE_PARAMS: "RPC_BUNDLE_PARAMS",
  /** eth_sendBundle refused. */
  BUNDLE_REJECTED: "RPC_BUNDLE_REJECTED",
  /** eth_sendBundle: an empty raw transaction. */
  EMPTY_RAW_TX: "RPC_EMPTY_RAW_TX",
  /** eth_sendBundle: a raw transaction that does not decode. */
  UNDECODABLE_TX: "RPC_UNDECODABLE_TX",
  /** eth_subscribe over a transport without notifications (HTTP). */
  NOTIFICATIONS_UNSUPPORTED: "RPC_NOTIFICATIONS_UNSUPPORTED",
  /** eth_subscribe of a kind that does not exist. */
  SUBSCRIPTION_NOT_FOUND: "RPC_SUBSCRIPTION_NOT_FOUND",
  /** eth_sign and friends with an account the dev node does not hold. */
  UNKNOWN_ACCOUNT: "RPC_UNKNOWN_ACCOUNT",
  /** txpool methods while the node is behind the network. */
  NODE_SYNCING: "RPC_NODE_SYNCING",
  /** eth_sendRawTransactionSync: the transaction was not included in time. */
  TX_CONFIRMATION_TIMEOUT: "RPC_TX_CONFIRMATION_TIMEOUT",
} as const;
/** One of the {@link RpcErrorCode} values. */
type RpcErrorCode = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

/** An {@link RpcError}'s code with its metadata: the JSON-RPC `data`, if any. */
type RpcErrorType = { code: RpcErrorCode; data?: unknown };

/** An error that already knows its JSON-RPC code (and optional `data`). */
export class RpcError extends TypedError<RpcErrorType> {
  readonly rpcCode: number;
  constructor(rpcCode: number, message: string, data?: unknown, code: RpcErrorCode = RpcErrorCode.ERROR) {
    super(data === undefined ? { code } : { code, data }, message);
    this.rpcCode = rpcCode;
  }
  get data(): unknown {
    return this.type.data;
  }
}

export class ParseError extends RpcError {
  constructor(message = "parse error") {
    super(RpcCode.ParseError, message, undefined, RpcErrorCode.PARSE_ERROR);
  }
}
export class MethodNotFoundError extends RpcError {
  constructor(method: string) {
    super(RpcCode.MethodNotFound, `the method ${method} does not exist/is not available`, undefined, RpcErrorCode.METHOD_NOT_FOUND);
  }
}
export class InvalidParamsError extends RpcError {
  constructor(message: string) {
    super(RpcCode.InvalidParams, message, undefined, RpcErrorCode.INVALID_PARAMS);
  }
}
export class InternalError extends RpcError {
  constructor(message = "internal error") {
    super(RpcCode.Internal, message, undefined, RpcErrorCode.INTERNAL);
  }
}
/** geth-style generic server error (-32000) with a message such as "nonce too low". */
export class ServerError extends RpcError {
  constructor(message: string, data?: unknown, code: RpcErrorCode = RpcErrorCode.SERVER_ERROR) {
    super(RpcCode.Server, message, data, code);
  }
}
/** eth_getFilterChanges / eth_getFilterLogs of an id that is not an installed filter of the right kind: geth's `errFilterNotFound`. */
export class FilterNotFoundError extends RpcError {
  constructor() {
    super(RpcCode.Server, "filter not found", undefined, RpcErrorCode.FILTER_NOT_FOUND);
  }
}
export class LimitExceededError extends RpcError {
  constructor(message: string) {
    super(RpcCode.LimitExceeded, message, undefined, RpcErrorCode.LIMIT_EXCEEDED);
  }
}

/** The JSON-RPC error object put in a response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * The JSON-RPC code of each typed error of the layers below, by its stable code. A revert with
 * data is the one exception (code 3 with the data, {@link toJsonRpcError}); a code not listed
 * here answers geth's generic -32000.
 */
const RPC_CODE_OF: Readonly<Record<string, number>> = {
  // Call execution: geth answers every failure of eth_call/eth_estimateGas with -32000 and its message.
  [ExecutionErrorCode.REVERTED]: RpcCode.Server,
  [ExecutionErrorCode.HALTED]: RpcCode.Server,
  [ExecutionErrorCode.INVALID_CALL]: RpcCode.Server,
  [ExecutionErrorCode.GAS_ALLOWANCE_EXCEEDED]: RpcCode.Server,
  [ExecutionErrorCode.HEADER_NOT_FOUND]: RpcCode.Server,
  // eth_simulateV1 and call overrides: geth's codes (internal/ethapi/errors.go; execution-apis -380xx).
  [SimulateErrorCode.BAD_OVERRIDE]: RpcCode.Server,
  [SimulateErrorCode.INVALID_PARAMS]: RpcCode.InvalidParams,
  [SimulateErrorCode.LIMIT_EXCEEDED]: -38026,
  [SimulateErrorCode.BLOCK_NUMBER_ORDER]: -38020,
  [SimulateErrorCode.BLOCK_TIMESTAMP_ORDER]: -38021,
  [SimulateErrorCode.BLOCK_GAS_LIMIT]: -38015,
  [SimulateErrorCode.NONCE_TOO_LOW]: -38010,
  [SimulateErrorCode.NONCE_TOO_HIGH]: -38011,
  [SimulateErrorCode.BASE_FEE_TOO_LOW]: -38012,
  [SimulateErrorCode.INTRINSIC_GAS]: -38013,
  [SimulateErrorCode.INSUFFICIENT_FUNDS]: -38014,
  [SimulateErrorCode.SENDER_NOT_EOA]: -38024,
  [SimulateErrorCode.INIT_CODE_TOO_LARGE]: -38025,
  [SimulateErrorCode.INVALID_FEES]: RpcCode.InvalidParams,
  [SimulateErrorCode.INVALID_TX]: RpcCode.Internal,
  // The execution pool: a full queue is a resource limit; a timeout is geth's `--rpc.evmtimeout` answer.
  [PoolErrorCode.QUEUE_FULL]: RpcCode.LimitExceeded,
  [PoolErrorCode.TIMEOUT]: RpcCode.Server,
  [PoolErrorCode.CLOSED]: RpcCode.Internal,
  [PoolErrorCode.WORKER_CRASHED]: RpcCode.Internal,
  // eth_signTypedData_v4 with typed data that does not follow EIP-712.
  CHAIN_TYPED_DATA_INVALID: RpcCode.InvalidParams,
  // base_transactionStatus asked of the sequencer: Base's node answers a failure with -32603.
  SYNC_SEQUENCER_STATUS_FAILED: RpcCode.Internal,
  // Historical proofs: Base's node answers a block outside the window, and every store fault, with -32603.
  ...Object.fromEntries(Object.values(ProofsErrorCode).map((code) => [code, RpcCode.Internal])),
  ...Object.fromEntries(Object.values(TrieProofErrorCode).map((code) => [code, RpcCode.Internal])),
  // A block at or after an upgrade basalt does not implement (Engine API payloads and builds): the Engine API's "unsupported fork".
  [UnknownUpgradeError.CODE]: RpcCode.UnsupportedFork,
  // Metering (base/base `crates/client/metering/src/rpc.rs`): what the caller named wrongly is -32602, a failed metering -32603.
  [MeteringErrorCode.PARSE]: RpcCode.InvalidParams,
  [MeteringErrorCode.BLOCK_NOT_FOUND]: RpcCode.InvalidParams,
  [MeteringErrorCode.NO_L1_INFO]: RpcCode.InvalidParams,
  [MeteringErrorCode.BUNDLE_FAILED]: RpcCode.Internal,
  [MeteringErrorCode.BLOCK_FAILED]: RpcCode.Internal,
  [MeteringErrorCode.NOT_CONFIGURED]: RpcCode.Internal,
  [MeteringErrorCode.ESTIMATE_FAILED]: RpcCode.Internal,
  // The transaction pool: geth answers every refusal of eth_sendRawTransaction with -32000 and its message.
  ...Object.fromEntries(Object.values(TxPoolErrorCode).map((code) => [code, RpcCode.Server])),
};

/** Codes of a flashblock position this node cannot serve (-32002 with the position and height as `data`). */
const POSITION_CODES: ReadonlySet<string> = new Set(Object.values(FlashblockPositionErrorCode));

/**
 * The answer of a failed `debug_executionWitness` / `debug_executePayload`: Base's node answers
 * every failure of these two with -32603 and the error's text (its provider errors go through
 * `ToRpcResult`); errors that already carry a code (bad parameters, a full queue) keep it.
 */
export function witnessFailure(err: unknown): unknown {
  if (err instanceof RpcError || err instanceof UpstreamRpcError) return err;
  if (err instanceof BasaltError && err.code === PoolErrorCode.QUEUE_FULL) return err;
  return new InternalError(err instanceof Error ? err.message : String(err));
}

/**
 * Maps any thrown value to a JSON-RPC error object. This is the only place where basalt's
 * typed errors become wire codes; unknown errors become -32603 with their message.
 */
export function toJsonRpcError(err: unknown): JsonRpcErrorObject {
  // An error another node answered with (`--sequencer-http`) goes back to the caller unchanged, as an RpcError does.
  if (err instanceof RpcError || err instanceof UpstreamRpcError) {
    const o: JsonRpcErrorObject = { code: err.rpcCode, message: err.message };
    if (err.data !== undefined) o.data = err.data;
    return o;
  }
  // geth: a revert that carries data answers code 3 with the data; without data, -32000 without it.
  if (err instanceof ExecutionError && err.type.code === ExecutionErrorCode.REVERTED && err.type.data !== "0x") {
    return { code: RpcCode.Reverted, message: err.message, data: err.type.data };
  }
  if (err instanceof BasaltError && POSITION_CODES.has(err.code)) {
    // Also when rebuilt from an execution worker's answer (a plain BasaltError with the same code and metadata).
    return { code: RpcCode.ResourceUnavailable, message: err.message, data: err.meta };
  }
  if (err instanceof BasaltError) {
    return { code: RPC_CODE_OF[err.code] ?? RpcCode.Server, message: err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: RpcCode.Internal, message };
}
