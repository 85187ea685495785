/**
 * A devp2p peer for tests, built on @ethereumjs/devp2p's own `Peer` (ECIES handshake, Hello,
 * framing, snappy) with a bare eth/68 capability that records every message: the test writes
 * and reads eth messages itself, so it checks basalt's node against the wire protocol, not
 * against basalt's own encoders.
 */
import { ETH, Peer, type Capabilities, type SendMethod } from "@ethereumjs/devp2p";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { Socket } from "node:net";
import * as snappy from "snappyjs";

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

/** The bare eth/68 capability: records messages, sends what it is given. */
class RecordingEth extends ProtocolClass {
  readonly inbox: EthMessage[] = [];
  waiters: (() => void)[] = [];
  constructor(version: number, peer: Peer, send: SendMethod) {
    super(peer, send, "eth", version, {});
    clearTimeout(this._statusTimeoutId);
  }
  _handleMessage(code: number, data: Uint8Array): void {
    this.inbox.push({ code, data });
    for (const w of this.waiters.splice(0)) w();
  }
}

const CAPABILITY: Capabilities = { name: "eth", version: 68, length: 17, constructor: RecordingEth as unknown as Capabilities["constructor"] };

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

  /** Connects to `enode` and completes the RLPx handshake (Hello); rejects after `timeoutMs`. */
  static async connect(enode: string, timeoutMs = 10_000): Promise<TestEthPeer> {
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
      capabilities: [CAPABILITY],
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

  /** The next message with `code` (removed from the inbox); rejects after `timeoutMs`. */
  async next(code: number, timeoutMs = 10_000): Promise<Uint8Array> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.eth.inbox.findIndex((msg) => msg.code === code);
      if (i >= 0) return this.eth.inbox.splice(i, 1)[0]!.data;
      if (this.closedFlag) throw new Error(`connection closed while waiting for eth message 0x${code.toString(16)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no eth message 0x${code.toString(16)} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.eth.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
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
