/**
 * Errors of the execution-layer network (devp2p): a peer's Status refused, a message that breaks
 * the eth protocol, a node key or enode URL that cannot be used. Each has a stable `P2P_…` code.
 */
import { TypedError } from "../../util/errors.js";

/** Stable code of {@link EthStatusError}. */
const EthStatusErrorCode = { STATUS_REFUSED: "P2P_STATUS_REFUSED" } as const;
/** A {@link EthStatusError}'s code with its metadata. */
type EthStatusErrorType = { code: typeof EthStatusErrorCode.STATUS_REFUSED; reason: string };

/** A peer's eth Status was refused (other network, genesis, protocol version or fork id). */
export class EthStatusError extends TypedError<EthStatusErrorType> {
  constructor(reason: string, message: string) {
    super({ code: EthStatusErrorCode.STATUS_REFUSED, reason }, message);
  }
}

/** Stable code of {@link EthProtocolError}. */
const EthProtocolErrorCode = { BAD_MESSAGE: "P2P_BAD_MESSAGE" } as const;
/** A {@link EthProtocolError}'s code with its metadata. */
type EthProtocolErrorType = { code: typeof EthProtocolErrorCode.BAD_MESSAGE; message: string };

/** A peer sent an eth message that does not follow eth/68 (bad RLP, wrong shape, over a limit). */
export class EthProtocolError extends TypedError<EthProtocolErrorType> {
  constructor(messageName: string, what: string) {
    super({ code: EthProtocolErrorCode.BAD_MESSAGE, message: messageName }, `${messageName}: ${what}`);
  }
}

/** Stable code of {@link EnodeUrlError}. */
const EnodeUrlErrorCode = { BAD_ENODE: "P2P_BAD_ENODE" } as const;
/** A {@link EnodeUrlError}'s code with its metadata. */
type EnodeUrlErrorType = { code: typeof EnodeUrlErrorCode.BAD_ENODE; url: string };

/** An enode URL that does not parse (`enode://<128 hex>@<ip>:<port>[?discport=<port>]` expected). */
export class EnodeUrlError extends TypedError<EnodeUrlErrorType> {
  constructor(url: string, why: string) {
    super({ code: EnodeUrlErrorCode.BAD_ENODE, url }, `enode URL ${JSON.stringify(url)}: ${why}; expected enode://<128 hex digits>@<ip>:<port>[?discport=<port>]`);
  }
}

/** Stable code of {@link NodeKeyError}. */
const NodeKeyErrorCode = { BAD_NODE_KEY: "P2P_BAD_NODE_KEY" } as const;
/** A {@link NodeKeyError}'s code with its metadata. */
type NodeKeyErrorType = { code: typeof NodeKeyErrorCode.BAD_NODE_KEY; path: string };

/** The node key file cannot be used (not 32 bytes of hex, not a valid secp256k1 key). */
export class NodeKeyError extends TypedError<NodeKeyErrorType> {
  constructor(path: string, why: string) {
    super({ code: NodeKeyErrorCode.BAD_NODE_KEY, path }, `node key ${path}: ${why}; expected 64 hex digits of a secp256k1 private key`);
  }
}

/** Stable code of {@link DevP2PStartError}. */
const DevP2PStartErrorCode = { EL_START_FAILED: "P2P_EL_START_FAILED" } as const;
/** A {@link DevP2PStartError}'s code with its metadata. */
type DevP2PStartErrorType = { code: typeof DevP2PStartErrorCode.EL_START_FAILED; reason: string };

/** The devp2p worker could not start (ports in use, store unreadable). */
export class DevP2PStartError extends TypedError<DevP2PStartErrorType> {
  constructor(message: string) {
    super({ code: DevP2PStartErrorCode.EL_START_FAILED, reason: message }, `execution-layer network cannot start: ${message}`);
  }
}

/** Stable code of {@link EthPeerFaultError}. */
const EthPeerFaultErrorCode = { PEER_FAULT: "P2P_PEER_FAULT" } as const;
/** A {@link EthPeerFaultError}'s code with its metadata. */
type EthPeerFaultErrorType = { code: typeof EthPeerFaultErrorCode.PEER_FAULT; reason: string };

/**
 * A peer answered or announced something false or of the wrong form for the negotiated version:
 * a block range it cannot serve, a range going backwards, receipts with a bloom on eth/69,
 * receipts or a body that do not match the header. `reason` names it for the drop counters.
 */
export class EthPeerFaultError extends TypedError<EthPeerFaultErrorType> {
  constructor(reason: string, message: string) {
    super({ code: EthPeerFaultErrorCode.PEER_FAULT, reason }, message);
  }
}

/** Stable code of {@link P2POptionError} (the command line's code for an unusable value). */
const P2POptionErrorCode = { INVALID_VALUE: "CLI_INVALID_VALUE" } as const;
/** A {@link P2POptionError}'s code with its metadata: `option` the flag, `value` what was given. */
type P2POptionErrorType = { code: typeof P2POptionErrorCode.INVALID_VALUE; option: string; value: string };

/** An execution-layer P2P option (`--bootnodes`, `--trusted-peers`, `--nat` …) whose value cannot be used. */
export class P2POptionError extends TypedError<P2POptionErrorType> {
  constructor(option: string, value: string, message: string) {
    super({ code: P2POptionErrorCode.INVALID_VALUE, option, value }, message);
  }
}
