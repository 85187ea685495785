/**
 * One peer's eth session on top of an RLPx connection (an @ethereumjs/devp2p `Protocol`, so the
 * library's `Peer` multiplexes it), on the version RLPx negotiated: eth/69 when both sides have it
 * (basalt advertises eth/68 and eth/69), else eth/68. It sends the Status of that version at once,
 * checks the peer's (network, genesis, fork id, and on eth/69 its block range), keeps the peer's
 * range current from its BlockRangeUpdate messages (refusing a range that is no range or whose
 * latest block goes backwards), then hands every other message to its {@link EthSessionHost}. A
 * message before the Status, a Status refused, a false range or a message that breaks the protocol
 * disconnects the peer; the host counts why.
 */
import { DISCONNECT_REASON, ETH, ProtocolType, type Capabilities, type Peer, type SendMethod } from "@ethereumjs/devp2p";
import * as snappy from "snappyjs";
import { BasaltError } from "../../util/errors.js";
import { EthPeerFaultError, EthProtocolError, EthStatusError } from "./errors.js";
import { decodeBlockRangeUpdate, encodeBlockRangeUpdate, EthCode, ETH_68_LENGTH, ETH_69_LENGTH, ethMessageName } from "./ethMessages.js";
import type { HeadInfo } from "./blockServer.js";
import { checkRange, checkStatus, decodeStatus, encodeStatus, ETH_69, ETH_VERSIONS, type BlockRange, type EthStatus, type LocalChain } from "./status.js";

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
  /** The blocks this node serves (read fresh), for eth/69's Status. */
  range(): BlockRange;
  /** The Status exchange succeeded. */
  onReady(session: EthSession): void;
  /** A message after the Status; may throw {@link EthProtocolError} (the peer is then disconnected). */
  onMessage(session: EthSession, code: number, payload: Uint8Array): void;
  /** The peer is being disconnected for `err` (a refused Status or a protocol breach). */
  onRefused(session: EthSession, err: BasaltError, messageName: string): void;
  /** An eth/69 peer announced a new range (already checked to be a range, not going backwards). */
  onRangeUpdate(session: EthSession, range: BlockRange): void;
}

/** See the module comment. */
export class EthSession extends ProtocolClass {
  /** The peer's Status once accepted. */
  remoteStatus: EthStatus | undefined;
  /** eth/69: the range the peer serves, from its Status and its latest BlockRangeUpdate. */
  remoteRange: BlockRange | undefined;
  /** eth/69: the range last announced to the peer (Status or BlockRangeUpdate). */
  announcedRange: BlockRange | undefined;
  private closed = false;
  /** Our Status is out (it must precede every other message of ours, e.g. the range check's requests). */
  private statusSent = false;

  constructor(
    /** The negotiated eth version. */
    readonly version: number,
    readonly peer: Peer,
    send: SendMethod,
    private readonly host: EthSessionHost,
  ) {
    super(peer, send, ProtocolType.ETH, version, EthCode);
    // After this tick: the library sends its Hello before any capability message.
    setImmediate(() => this.sendStatus());
  }

  /** The capabilities to give RLPx: eth/68 and eth/69 (the highest shared one is run), whose sessions report to `host`. */
  static capabilities(host: EthSessionHost): Capabilities[] {
    class HostedEthSession extends EthSession {
      constructor(version: number, peer: Peer, send: SendMethod) {
        super(version, peer, send, host);
      }
    }
    const ctor = HostedEthSession as unknown as Capabilities["constructor"];
    return ETH_VERSIONS.map((version) => ({ name: "eth", version, length: version >= ETH_69 ? ETH_69_LENGTH : ETH_68_LENGTH, constructor: ctor }));
  }

  private sendStatus(): void {
    if (this.closed || this.statusSent) return;
    this.statusSent = true;
    const head = this.host.head();
    const base = { version: this.version, networkId: this.host.local.networkId, genesis: this.host.local.genesis, forkId: this.host.local.forks.forkId(head) };
    if (this.version >= ETH_69) {
      this.announcedRange = this.host.range();
      this.send(EthCode.Status, encodeStatus({ ...base, range: this.announcedRange }));
    } else {
      this.send(EthCode.Status, encodeStatus({ ...base, legacy: { totalDifficulty: 0n, head: head.hash } }));
    }
  }

  /** eth/69: announces a new served range (BlockRangeUpdate). */
  sendRangeUpdate(range: BlockRange): void {
    if (this.closed || this.version < ETH_69) return;
    this.announcedRange = range;
    this.send(EthCode.BlockRangeUpdate, encodeBlockRangeUpdate(range));
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
        const status = decodeStatus(data, this.version);
        checkStatus(this.host.local, this.host.head(), status, this.version);
        this.remoteStatus = status;
        this.remoteRange = status.range;
        clearTimeout(this._statusTimeoutId);
        // The peer's Status can arrive before our own went out (it is sent on the next tick): send ours
        // first, or the requests onReady makes (the eth/69 range check) would reach the peer before it.
        this.sendStatus();
        this.host.onReady(this);
        return;
      }
      if (code === EthCode.Status) throw new EthProtocolError(name, "a second Status");
      if (code === EthCode.BlockRangeUpdate) {
        if (this.version < ETH_69) throw new EthProtocolError(name, `BlockRangeUpdate is an eth/69 message; this session is eth/${this.version}`);
        this.onRangeUpdate(decodeBlockRangeUpdate(data));
        return;
      }
      this.host.onMessage(this, code, data);
    } catch (e) {
      const err = e instanceof BasaltError ? e : new EthProtocolError(name, e instanceof Error ? e.message : String(e));
      this.host.onRefused(this, err, name);
      this.disconnect(err instanceof EthStatusError ? DISCONNECT_REASON.USELESS_PEER : DISCONNECT_REASON.SUBPROTOCOL_ERROR);
    }
  }

  /** Ends the session for a fault found outside message handling (a false range, bad receipts). */
  refuse(err: BasaltError, messageName: string): void {
    if (this.closed) return;
    this.host.onRefused(this, err, messageName);
    this.disconnect(DISCONNECT_REASON.SUBPROTOCOL_ERROR);
  }

  /** Whether the session has ended. */
  get isClosed(): boolean {
    return this.closed;
  }

  private onRangeUpdate(range: BlockRange): void {
    checkRange(range, "BlockRangeUpdate");
    const prev = this.remoteRange;
    if (prev !== undefined && range.latest < prev.latest) {
      throw new EthPeerFaultError("rangeBackwards", `BlockRangeUpdate: latest block ${range.latest} is below the ${prev.latest} announced before`);
    }
    this.remoteRange = range;
    this.host.onRangeUpdate(this, range);
  }
}
