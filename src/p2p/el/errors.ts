/**
 * Errors of the execution-layer network (devp2p): a peer's Status refused, a message that breaks
 * the eth protocol, a node key or enode URL that cannot be used. Each has a stable `P2P_…` code.
 */
import { BasaltError } from "../../util/errors.js";

/** A peer's eth Status was refused (other network, genesis, protocol version or fork id). */
export class EthStatusError extends BasaltError<{ reason: string }> {
  constructor(reason: string, message: string) {
    super("P2P_STATUS_REFUSED", message, { reason });
  }
}

/** A peer sent an eth message that does not follow eth/68 (bad RLP, wrong shape, over a limit). */
export class EthProtocolError extends BasaltError<{ message: string }> {
  constructor(messageName: string, what: string) {
    super("P2P_BAD_MESSAGE", `${messageName}: ${what}`, { message: messageName });
  }
}

/** An enode URL that does not parse (`enode://<128 hex>@<ip>:<port>[?discport=<port>]` expected). */
export class EnodeUrlError extends BasaltError<{ url: string }> {
  constructor(url: string, why: string) {
    super("P2P_BAD_ENODE", `enode URL ${JSON.stringify(url)}: ${why}; expected enode://<128 hex digits>@<ip>:<port>[?discport=<port>]`, { url });
  }
}

/** The node key file cannot be used (not 32 bytes of hex, not a valid secp256k1 key). */
export class NodeKeyError extends BasaltError<{ path: string }> {
  constructor(path: string, why: string) {
    super("P2P_BAD_NODE_KEY", `node key ${path}: ${why}; expected 64 hex digits of a secp256k1 private key`, { path });
  }
}

/** The devp2p worker could not start (ports in use, store unreadable). */
export class DevP2PStartError extends BasaltError<{ reason: string }> {
  constructor(message: string) {
    super("P2P_EL_START_FAILED", `execution-layer network cannot start: ${message}`, { reason: message });
  }
}

/**
 * A peer answered or announced something false or of the wrong form for the negotiated version:
 * a block range it cannot serve, a range going backwards, receipts with a bloom on eth/69,
 * receipts or a body that do not match the header. `reason` names it for the drop counters.
 */
export class EthPeerFaultError extends BasaltError<{ reason: string }> {
  constructor(reason: string, message: string) {
    super("P2P_PEER_FAULT", message, { reason });
  }
}
