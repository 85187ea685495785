/**
 * One peer's eth/68 session on top of an RLPx connection (an @ethereumjs/devp2p `Protocol`, so
 * the library's `Peer` multiplexes it): sends the Status at once, checks the peer's Status
 * (network, genesis, fork id), then hands every message to its {@link EthSessionHost}. A message
 * before the Status, a Status refused or a message that breaks the protocol disconnects the peer;
 * the host counts why.
 */
import { DISCONNECT_REASON, ETH, ProtocolType, type Capabilities, type Peer, type SendMethod } from "@ethereumjs/devp2p";
import * as snappy from "snappyjs";
import { BasaltError } from "../../util/errors.js";
import { EthProtocolError, EthStatusError } from "./errors.js";
import { EthCode, ETH_68_LENGTH, ethMessageName } from "./ethMessages.js";
import type { HeadInfo } from "./blockServer.js";
import { checkStatus, decodeStatus, encodeStatus, ETH_VERSION, type EthStatus, type LocalChain } from "./status.js";

/** The members of the library's (unexported) `Protocol` base class a session uses. */
interface ProtocolBase {
  _send: SendMethod;
  _statusTimeoutId?: NodeJS.Timeout;
}

/**
 * @ethereumjs/devp2p 10 exports its `ETH` protocol (whose fork rules come from an @ethereumjs
 * Common) but not the `Protocol` base class a capability must extend: reach it as ETH's parent.
 */
const ProtocolClass = Object.getPrototypeOf(ETH) as new (peer: Peer, send: SendMethod, protocol: ProtocolType, version: number, codes: Record<string, number>) => ProtocolBase;

/** What a session needs from the node that runs it. */
export interface EthSessionHost {
  local: LocalChain;
  /** The current head (read fresh). */
  head(): HeadInfo;
  /** The Status exchange succeeded. */
  onReady(session: EthSession): void;
  /** A message after the Status; may throw {@link EthProtocolError} (the peer is then disconnected). */
  onMessage(session: EthSession, code: number, payload: Uint8Array): void;
  /** The peer is being disconnected for `err` (a refused Status or a protocol breach). */
  onRefused(session: EthSession, err: BasaltError, messageName: string): void;
}

/** See the module comment. */
export class EthSession extends ProtocolClass {
  /** The peer's Status once accepted. */
  remoteStatus: EthStatus | undefined;
  private closed = false;

  constructor(
    version: number,
    readonly peer: Peer,
    send: SendMethod,
    private readonly host: EthSessionHost,
  ) {
    super(peer, send, ProtocolType.ETH, version, EthCode);
    // After this tick: the library sends its Hello before any capability message.
    setImmediate(() => this.sendStatus());
  }

  /** The capability to give RLPx: eth/68 whose sessions report to `host`. */
  static capability(host: EthSessionHost): Capabilities {
    class HostedEthSession extends EthSession {
      constructor(version: number, peer: Peer, send: SendMethod) {
        super(version, peer, send, host);
      }
    }
    return { name: "eth", version: ETH_VERSION, length: ETH_68_LENGTH, constructor: HostedEthSession as unknown as Capabilities["constructor"] };
  }

  private sendStatus(): void {
    if (this.closed) return;
    const head = this.host.head();
    this.send(
      EthCode.Status,
      encodeStatus({ version: ETH_VERSION, networkId: this.host.local.networkId, totalDifficulty: 0n, head: head.hash, genesis: this.host.local.genesis, forkId: this.host.local.forks.forkId(head) }),
    );
  }

  /** Sends an RLP-encoded message (snappy-compressed, as every message after Hello of devp2p v5). */
  send(code: number, rlp: Uint8Array): void {
    if (this.closed) return;
    const hello = this.peer.getHelloMessage();
    const data = hello !== null && hello.protocolVersion >= 5 ? snappy.compress(rlp) : rlp;
    this._send(code, data);
  }

  /** Ends the session with a devp2p disconnect reason. */
  disconnect(reason: DISCONNECT_REASON): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this._statusTimeoutId);
    this.peer.disconnect(reason);
  }

  /** Called by the library's Peer with the (decompressed) message. */
  _handleMessage(code: number, data: Uint8Array): void {
    if (this.closed) return;
    const name = ethMessageName(code);
    try {
      if (this.remoteStatus === undefined) {
        if (code !== EthCode.Status) throw new EthProtocolError(name, "received before the Status exchange");
        const status = decodeStatus(data);
        checkStatus(this.host.local, this.host.head(), status);
        this.remoteStatus = status;
        clearTimeout(this._statusTimeoutId);
        this.host.onReady(this);
        return;
      }
      if (code === EthCode.Status) throw new EthProtocolError(name, "a second Status");
      this.host.onMessage(this, code, data);
    } catch (e) {
      const err = e instanceof BasaltError ? e : new EthProtocolError(name, e instanceof Error ? e.message : String(e));
      this.host.onRefused(this, err, name);
      this.disconnect(err instanceof EthStatusError ? DISCONNECT_REASON.USELESS_PEER : DISCONNECT_REASON.SUBPROTOCOL_ERROR);
    }
  }
}
