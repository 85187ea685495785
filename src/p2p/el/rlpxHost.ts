/**
 * The RLPx side of the execution-layer network: a TCP server for inbound connections and dialing
 * for outbound ones, each connection an @ethereumjs/devp2p `Peer` (ECIES handshake, Hello, frame
 * multiplexing) carrying an {@link EthSession}. The library's own `RLPx` class is not used: it
 * has one peer limit, no handshake deadline and no bound on frame or decompressed sizes. Here
 * inbound and outbound peers have separate limits (trusted peers pass them), a connection must
 * finish the eth Status within {@link P2P_EL_HANDSHAKE_TIMEOUT_MS}, frames above
 * {@link ETH_MAX_MESSAGE_BYTES} and snappy payloads declaring more are refused, and a connection
 * whose bytes do not parse is closed. Every drop is counted by reason.
 */
import { DISCONNECT_REASON, Peer, type Capabilities } from "@ethereumjs/devp2p";
import { createServer, Socket, type Server } from "node:net";
import type { Logger } from "pino";
import { ETH_MAX_MESSAGE_BYTES } from "../constants.js";
import type { Counters } from "../../util/counters.js";
import { EthProtocolError } from "./errors.js";
import { formatEnode, type Enode } from "./enode.js";
import type { EthSession } from "./ethSession.js";

/** The library Peer's internals the guards hook into (protected in its types). */
interface PeerInternals {
  _handleHeader(): void;
  _nextPacketSize: number;
  _state: string;
  _hello: { protocolVersion: number } | null;
  _eciesSession: { parseBody(data: Uint8Array): Uint8Array | undefined };
}

/** One RLPx connection. */
export interface Connection {
  socket: Socket;
  peer: Peer;
  inbound: boolean;
  /** Remote node id (64 bytes), known at once for dials, after the handshake for inbound connections. */
  id: Uint8Array | undefined;
  trusted: boolean;
  /** The eth session once its Status exchange succeeded. */
  session: EthSession | undefined;
  remoteAddress: string;
  localAddress: string;
  /** Bytes of `socket.bytesWritten` already counted. */
  countedOut: number;
  deadline: NodeJS.Timeout;
}

/** Options of an {@link RlpxHost}. */
interface RlpxHostOptions {
  privateKey: Uint8Array;
  id: Uint8Array;
  clientId: string;
  capabilities: Capabilities[];
  maxInbound: number;
  maxOutbound: number;
  handshakeTimeoutMs: number;
  /** Node ids (hex) that pass the peer limits. */
  trusted: Set<string>;
  counters: Counters;
  log: Logger;
}

/** The snappy preamble: the declared uncompressed length (varint), or -1 when malformed. */
function snappyLength(b: Uint8Array): number {
  let result = 0;
  for (let i = 0, shift = 0; i < b.length && shift < 35; i++, shift += 7) {
    result += (b[i]! & 0x7f) * 2 ** shift;
    if (b[i]! < 0x80) return result;
  }
  return -1;
}

const hexId = (id: Uint8Array): string => Buffer.from(id).toString("hex");

/** See the module comment. */
export class RlpxHost {
  private server: Server | undefined;
  private readonly conns = new Set<Connection>();
  private listenPort = 0;
  private closed = false;

  constructor(private readonly opts: RlpxHostOptions) {}

  /** Listens on `host:port` (0 = any free port); resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        server.on("error", (e) => this.opts.log.warn({ err: e }, "RLPx server error"));
        this.listenPort = (server.address() as { port: number }).port;
        resolve(this.listenPort);
      });
    });
  }

  /** Whether the TCP server is listening. */
  get listening(): boolean {
    return this.server?.listening === true && !this.closed;
  }

  /** Connections whose eth Status exchange succeeded. */
  ready(): Connection[] {
    return [...this.conns].filter((c) => c.session !== undefined);
  }

  /** Whether a connection to `id` exists (in any state). */
  isConnected(id: Uint8Array): boolean {
    const h = hexId(id);
    return [...this.conns].some((c) => c.id !== undefined && hexId(c.id) === h);
  }

  private count(inbound: boolean): number {
    let n = 0;
    for (const c of this.conns) if (c.inbound === inbound) n++;
    return n;
  }

  /** Whether an outbound slot is free. */
  hasOutboundSlot(): boolean {
    return this.count(false) < this.opts.maxOutbound;
  }

  /** Dials a node (unless connected already, or out of outbound slots and not trusted). */
  dial(node: Enode): void {
    if (this.closed || this.isConnected(node.id)) return;
    const trusted = this.opts.trusted.has(hexId(node.id));
    if (!trusted && !this.hasOutboundSlot()) return;
    const socket = new Socket();
    socket.setTimeout(this.opts.handshakeTimeoutMs, () => socket.destroy());
    socket.once("error", (e) => this.opts.log.debug({ err: e, enode: formatEnode(node) }, "devp2p dial failed"));
    socket.connect(node.tcpPort, node.address, () => {
      socket.setTimeout(0);
      this.attach(socket, node.id, trusted);
    });
  }

  /** Disconnects the peer `id` if connected. */
  drop(id: Uint8Array, reason: DISCONNECT_REASON = DISCONNECT_REASON.DISCONNECT_REQUESTED): boolean {
    const h = hexId(id);
    for (const c of this.conns) {
      if (c.id !== undefined && hexId(c.id) === h) {
        this.close(c, reason);
        return true;
      }
    }
    return false;
  }

  private accept(socket: Socket): void {
    // Unknown node ids: trusted ones are recognised after the handshake; leave room for them.
    if (this.closed || this.count(true) >= this.opts.maxInbound + this.opts.trusted.size) {
      this.opts.counters.inc("dropped:tooManyPeers");
      socket.destroy();
      return;
    }
    this.attach(socket, null, false);
  }

  private attach(socket: Socket, remoteId: Uint8Array | null, trusted: boolean): void {
    const inbound = remoteId === null;
    socket.on("data", (b: Buffer) => this.opts.counters.inc("bytes:in", b.length));
    const peer = new Peer({
      socket,
      remoteId: remoteId as Uint8Array,
      privateKey: this.opts.privateKey,
      id: this.opts.id,
      timeout: this.opts.handshakeTimeoutMs,
      clientId: Buffer.from(this.opts.clientId),
      capabilities: this.opts.capabilities,
      common: undefined as never,
      port: this.listenPort,
    });
    const conn: Connection = {
      socket,
      peer,
      inbound,
      id: remoteId ?? undefined,
      trusted,
      session: undefined,
      remoteAddress: `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? 0}`,
      localAddress: `${socket.localAddress ?? "?"}:${socket.localPort ?? 0}`,
      countedOut: 0,
      deadline: setTimeout(() => {
        this.opts.counters.inc("dropped:handshakeTimeout");
        this.opts.log.debug({ remote: conn.remoteAddress }, "devp2p handshake timed out");
        socket.destroy();
      }, this.opts.handshakeTimeoutMs),
    };
    this.conns.add(conn);
    this.guard(conn);
    peer.events.on("error", (e: unknown) => {
      const code = (e as { code?: unknown }).code;
      // Socket errors (ECONNRESET, EPIPE) are the network's; anything else is bytes that do not parse.
      if (typeof code === "string" && code.startsWith("E") && !(e instanceof EthProtocolError)) return;
      this.opts.counters.inc(e instanceof EthProtocolError && e.meta.message === "frame" ? "dropped:oversized" : "dropped:invalid");
      this.opts.log.debug({ err: e, remote: conn.remoteAddress }, "devp2p connection broke the protocol; closing");
      this.close(conn, DISCONNECT_REASON.PROTOCOL_ERROR);
    });
    peer.events.once("connect", () => {
      const id = peer.getId();
      if (id === null) return this.close(conn, DISCONNECT_REASON.INVALID_IDENTITY);
      conn.id = id;
      conn.trusted ||= this.opts.trusted.has(hexId(id));
      if (Buffer.from(id).equals(Buffer.from(this.opts.id))) return this.close(conn, DISCONNECT_REASON.SAME_IDENTITY);
      const h = hexId(id);
      const dup = [...this.conns].find((c) => c !== conn && c.id !== undefined && hexId(c.id) === h && c.peer.getHelloMessage() !== null);
      if (dup !== undefined) {
        // Two nodes that dialled each other at once hold two connections, each side seeing them
        // complete in its own order: both sides must keep the same one, or each closes the other's
        // and neither survives (until the next round of dials races again). Kept: the connection
        // dialled by the node with the lower id, as both ends can tell.
        if (this.preferred(conn) && !this.preferred(dup)) {
          this.close(dup, DISCONNECT_REASON.ALREADY_CONNECTED);
        } else return this.close(conn, DISCONNECT_REASON.ALREADY_CONNECTED);
      }
      if (inbound && !conn.trusted && this.ready().filter((c) => c.inbound).length >= this.opts.maxInbound) {
        this.opts.counters.inc("dropped:tooManyPeers");
        return this.close(conn, DISCONNECT_REASON.TOO_MANY_PEERS);
      }
    });
    socket.once("close", () => {
      clearTimeout(conn.deadline);
      this.opts.counters.inc("bytes:out", socket.bytesWritten - conn.countedOut);
      conn.countedOut = socket.bytesWritten;
      this.conns.delete(conn);
      if (conn.session !== undefined) this.onRemoved?.(conn);
    });
  }

  private preferred(conn: Connection): boolean {
    return keepsConnection(this.opts.id, conn.id!, conn.inbound);
  }

  /** Called when a connection with a ready session closes. */
  onRemoved: ((conn: Connection) => void) | undefined;

  /** Marks a connection's eth session as ready (its Status was accepted). */
  sessionReady(session: EthSession): Connection | undefined {
    for (const c of this.conns) {
      if (c.peer === session.peer) {
        clearTimeout(c.deadline);
        c.session = session;
        return c;
      }
    }
    return undefined;
  }

  /** Adds the bytes written since the last call to the `bytes:out` counter. */
  countBytesOut(): void {
    for (const c of this.conns) {
      this.opts.counters.inc("bytes:out", c.socket.bytesWritten - c.countedOut);
      c.countedOut = c.socket.bytesWritten;
    }
  }

  /**
   * Bounds what one frame can make this node hold: a frame header announcing more than
   * {@link ETH_MAX_MESSAGE_BYTES}, or a snappy payload declaring more once decompressed, ends the
   * connection before the bytes are buffered or the buffer is allocated.
   */
  private guard(conn: Connection): void {
    const p = conn.peer as unknown as PeerInternals;
    const handleHeader = p._handleHeader.bind(conn.peer);
    p._handleHeader = () => {
      handleHeader();
      if (p._state === "Body" && p._nextPacketSize > ETH_MAX_MESSAGE_BYTES + 64) {
        throw new EthProtocolError("frame", `a frame of ${p._nextPacketSize} bytes: expected at most ${ETH_MAX_MESSAGE_BYTES}`);
      }
    };
    const session = p._eciesSession;
    const parseBody = session.parseBody.bind(session);
    session.parseBody = (data: Uint8Array) => {
      const body = parseBody(data);
      if (body !== undefined && p._hello !== null && p._hello.protocolVersion >= 5 && body.length > 1) {
        const declared = snappyLength(body.subarray(1));
        if (declared < 0 || declared > ETH_MAX_MESSAGE_BYTES) {
          throw new EthProtocolError("frame", `a message declaring ${declared} bytes uncompressed: expected at most ${ETH_MAX_MESSAGE_BYTES}`);
        }
      }
      return body;
    };
  }

  /** Sends a disconnect (when the session is up) and closes the socket. */
  close(conn: Connection, reason: DISCONNECT_REASON): void {
    if (conn.session !== undefined) conn.session.disconnect(reason);
    else if (conn.peer.getHelloMessage() !== null) conn.peer.disconnect(reason);
    conn.socket.end();
    setTimeout(() => conn.socket.destroy(), 1_000).unref();
  }

  /** Closes the server and every connection. */
  async stop(): Promise<void> {
    this.closed = true;
    for (const c of this.conns) this.close(c, DISCONNECT_REASON.CLIENT_QUITTING);
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * Of two connections between the same two nodes (they dialled each other at once), whether the one
 * `local` sees with `remote`, inbound or not, is the one to keep: the one the lower node id dialled.
 * Both ends decide alike, so exactly one connection survives.
 */
export function keepsConnection(local: Uint8Array, remote: Uint8Array, inbound: boolean): boolean {
  const l = hexId(local);
  const r = hexId(remote);
  return inbound ? r < l : l < r;
}
