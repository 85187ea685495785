/**
 * A devp2p peer for tests, built on @ethereumjs/devp2p's own `Peer` (ECIES handshake, Hello,
 * framing, snappy) with a bare eth capability (eth/68 or eth/69, one version only, so that it is
 * the negotiated one) that records every message: the test writes and reads eth messages itself,
 * so it checks basalt's node against the wire protocol, not against basalt's own encoders.
 */
import { ETH, Peer, type Capabilities, type SendMethod } from "@ethereumjs/devp2p";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { Socket } from "node:net";
import * as snappy from "snappyjs";
import { pollUntil } from "./poll.js";

interface ProtocolBase {
  _send: SendMethod;
  _statusTimeoutId?: NodeJS.Timeout;
}
const ProtocolClass = Object.getPrototypeOf(ETH) as new (peer: Peer, send: SendMethod, protocol: string, version: number, codes: Record<string, number>) => ProtocolBase;

/** One message as received: eth code and snappy-decompressed RLP. */
export interface EthMessage {
  code: number;
  data: Uint8Array;
}

/** The remote's block requests the peer answers: GetBlockHeaders (0x03), GetBlockBodies (0x05), GetReceipts (0x0f). */
const BLOCK_REQUESTS = new Set([0x03, 0x05, 0x0f]);

/** The bare eth capability: records messages (or hands block requests to a server), sends what it is given. */
class RecordingEth extends ProtocolClass {
  readonly inbox: EthMessage[] = [];
  waiters: (() => void)[] = [];
  server: ((code: number, data: Uint8Array) => void) | undefined;
  constructor(version: number, peer: Peer, send: SendMethod) {
    super(peer, send, "eth", version, {});
    clearTimeout(this._statusTimeoutId);
  }
  _handleMessage(code: number, data: Uint8Array): void {
    if (this.server !== undefined && BLOCK_REQUESTS.has(code)) return this.server(code, data);
    this.inbox.push({ code, data });
    for (const w of this.waiters.splice(0)) w();
  }
}

const uint = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString("hex")}`));

/** The capability of eth `version`: eth/68 spans 17 message codes, eth/69 18 (BlockRangeUpdate). */
const capability = (version: 68 | 69): Capabilities => ({ name: "eth", version, length: version === 69 ? 18 : 17, constructor: RecordingEth as unknown as Capabilities["constructor"] });

/** A connected test peer. */
export class TestEthPeer {
  private closedFlag = false;
  private constructor(
    readonly peer: Peer,
    readonly socket: Socket,
    private readonly eth: RecordingEth,
    /** This peer's 64-byte node id. */
    readonly id: Uint8Array,
  ) {
    socket.once("close", () => (this.closedFlag = true));
  }

  /** Connects to `enode` offering eth `version` only and completes the RLPx handshake (Hello); rejects after `timeoutMs`. */
  static async connect(enode: string, timeoutMs = 10_000, version: 68 | 69 = 68): Promise<TestEthPeer> {
    const m = /^enode:\/\/([0-9a-f]{128})@([^:]+):(\d+)/.exec(enode);
    if (m === null) throw new Error(`not an enode: ${enode}`);
    const key = Uint8Array.from(randomBytes(32));
    const id = secp256k1.getPublicKey(key, false).subarray(1);
    const socket = new Socket();
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.connect(Number(m[3]), m[2]!, () => resolve());
    });
    const peer = new Peer({
      socket,
      remoteId: Uint8Array.from(Buffer.from(m[1]!, "hex")),
      privateKey: key,
      id,
      timeout: timeoutMs,
      clientId: Buffer.from("basalt-test-peer"),
      capabilities: [capability(version)],
      common: undefined as never,
      port: 0,
    });
    peer.events.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("RLPx handshake timed out")), timeoutMs);
      peer.events.once("connect", () => {
        clearTimeout(t);
        resolve();
      });
      socket.once("close", () => reject(new Error("closed during the RLPx handshake")));
    });
    const eth = peer.getProtocols()[0] as unknown as RecordingEth;
    return new TestEthPeer(peer, socket, eth, id);
  }

  /** Sends an eth message (RLP bytes; snappy-compressed as devp2p v5 requires). */
  send(code: number, rlp: Uint8Array): void {
    this.eth._send(code, snappy.compress(rlp));
  }

  /** The version the remote's Hello offered for eth (all of them). */
  remoteEthVersions(): number[] {
    return (this.peer.getHelloMessage()?.capabilities ?? []).filter((c) => c.name === "eth").map((c) => c.version);
  }

  private nextId = 1_000_000n;

  /** Sends request `code` with `body` under a fresh request id and resolves with the items of the answer (code + 1, same id). */
  async request(code: number, body: unknown, timeoutMs = 10_000): Promise<unknown[]> {
    const id = this.nextId++;
    this.send(code, RLP.encode([bigIntToUnpaddedBytes(id), body] as never));
    const reply = RLP.decode(await this.next(code + 1, timeoutMs, (data) => uint((RLP.decode(data) as Uint8Array[])[0]!) === id)) as unknown[];
    return reply[1] as unknown[];
  }

  /**
   * Answers the remote's block requests (GetBlockHeaders, GetBlockBodies, GetReceipts) with the
   * items `answer` gives for the request's code and body (`[request-id, items]` is built here);
   * `undefined` leaves the request unanswered.
   */
  serve(answer: (code: number, body: unknown) => Promise<unknown[] | undefined>): void {
    this.eth.server = (code, data) => {
      const [id, body] = RLP.decode(data) as [Uint8Array, unknown];
      void answer(code, body).then(
        (items) => {
          if (items !== undefined && !this.closedFlag) this.send(code + 1, RLP.encode([id, items] as never));
        },
        () => undefined,
      );
    };
  }

  /** The next message with `code` (and passing `match`), removed from the inbox; rejects after `timeoutMs`. */
  async next(code: number, timeoutMs = 10_000, match: (data: Uint8Array) => boolean = () => true): Promise<Uint8Array> {
    return pollUntil(
      `eth message 0x${code.toString(16)}`,
      timeoutMs,
      () => {
        const i = this.eth.inbox.findIndex((msg) => msg.code === code && match(msg.data));
        if (i >= 0) return this.eth.inbox.splice(i, 1)[0]!.data;
        if (this.closedFlag) throw new Error(`connection closed while waiting for eth message 0x${code.toString(16)}`);
        return undefined;
      },
      { intervalMs: 200, wake: (wakeUp) => this.eth.waiters.push(wakeUp) },
    );
  }

  /** Whether the TCP connection is closed. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Waits until the remote closes the connection; rejects after `timeoutMs`. */
  async waitClosed(timeoutMs = 10_000): Promise<void> {
    if (this.closedFlag) return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`connection still open after ${timeoutMs} ms`)), timeoutMs);
      this.socket.once("close", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Closes the connection (devp2p Disconnect, then the socket). */
  close(): void {
    this.peer.disconnect();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 500).unref();
  }
}
