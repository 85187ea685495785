/**
 * discv5 under another protocol id (Base's `basev0`) on @chainsafe/discv5 11, which hard-codes
 * `discv5`, without changing the library's files:
 *
 * - {@link ProtocolIdTransport}: the UDP transport handed to `Discv5.create` (its `transport`
 *   option), which writes the packets the library gives it under the instance's protocol id and
 *   decodes incoming ones with `discv5Packet.ts`. A datagram of another protocol id (a standard
 *   `discv5` node's, say) or one that does not decode is dropped and reported.
 * - The protocol id is also part of every message's AES-GCM associated data and of the WHOAREYOU
 *   challenge data from which session keys are derived, which the library computes from its own
 *   `discv5` header before the packet reaches the transport. {@link withProtocolId} therefore,
 *   for the instances it is given only (told apart by their local node id): re-seals the messages
 *   the library's `Session` encrypts (`encryptMessage`, `encryptWithHeader`) with the session key
 *   and associated data under the instance's protocol id, and rewrites the protocol id inside the
 *   challenge data the session service keeps for its WHOAREYOU packets. Every other instance in
 *   the process (the consensus layer's discv5) keeps the library's behaviour unchanged.
 */
import { Session, encryptMessage, getSocketAddressOnENR, type Discv5, type ITransportService, type IPMode } from "@chainsafe/discv5";
import type { BaseENR } from "@chainsafe/enr";
import { multiaddr, type Multiaddr } from "@multiformats/multiaddr";
import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import { EventEmitter } from "node:events";
import { associatedData, decodePacket, Discv5PacketError, encodePacket, MASKING_IV_BYTES, MAX_PACKET_BYTES, protocolIdBytes, type Packet, type PacketRefusal } from "./discv5Packet.js";

/** Local node ids (hex) of the instances that seal under another protocol id, with its bytes. */
const sealing = new Map<string, Uint8Array>();
let hooked = false;

/** Replaces a packet's message with `plaintext` sealed under `key` and the associated data of protocol `id`. */
function reseal(packet: Packet, key: Uint8Array, plaintext: Uint8Array, id: Uint8Array): void {
  packet.header.protocolId = Buffer.from(id).toString("latin1");
  packet.message = encryptMessage(key, packet.header.nonce, plaintext, associatedData(packet.maskingIv, packet.header, id));
}

type EncryptMessage = (this: Session, srcId: string, destId: string, message: Uint8Array) => Packet;
type EncryptWithHeader = (remote: unknown, localKey: unknown, localNodeId: string, updatedEnr: Uint8Array | null, challengeData: Uint8Array, message: Uint8Array) => [Packet, Session];

/** Wraps the two `Session` encryptions once per process (see the module comment); unregistered node ids pass through. */
function hookSessions(): void {
  if (hooked) return;
  hooked = true;
  const proto = Session.prototype as unknown as { encryptMessage: EncryptMessage };
  const plainMessage = proto.encryptMessage;
  proto.encryptMessage = function (this: Session, srcId, destId, message) {
    const packet = plainMessage.call(this, srcId, destId, message);
    const id = sealing.get(srcId);
    if (id !== undefined) reseal(packet, this.keys.encryptionKey, message, id);
    return packet;
  };
  const statics = Session as unknown as { encryptWithHeader: EncryptWithHeader };
  const plainHandshake = statics.encryptWithHeader;
  statics.encryptWithHeader = (remote, localKey, localNodeId, updatedEnr, challengeData, message) => {
    const [packet, session] = plainHandshake.call(Session, remote, localKey, localNodeId, updatedEnr, challengeData, message);
    const id = sealing.get(localNodeId);
    if (id !== undefined) reseal(packet, session.keys.encryptionKey, message, id);
    return [packet, session];
  };
}

/** The session service's record of a WHOAREYOU it sent (lru-cache), reached past its `private`. */
interface Challenges {
  set(key: string, value: { data: Uint8Array }, ...rest: unknown[]): unknown;
}

/**
 * Makes `dv5` (created with a {@link ProtocolIdTransport} of the same id) seal and challenge under
 * `protocolId`. Returns the function that undoes the registration (call it when the instance stops).
 * @throws Discv5PacketError for an id that is not 6 ASCII characters.
 */
export function withProtocolId(dv5: Discv5, protocolId: string): () => void {
  const id = protocolIdBytes(protocolId);
  hookSessions();
  const nodeId = dv5.enr.nodeId;
  sealing.set(nodeId, id);
  const challenges = (dv5.sessionService as unknown as { activeChallenges: Challenges }).activeChallenges;
  const set = challenges.set.bind(challenges);
  // The challenge data is `masking-iv ‖ static header ‖ authdata`: the protocol id follows the IV.
  challenges.set = (key, value, ...rest) => {
    value.data.set(id, MASKING_IV_BYTES);
    return set(key, value, ...rest);
  };
  return () => {
    if (sealing.get(nodeId) === id) sealing.delete(nodeId);
  };
}

/** Options of a {@link ProtocolIdTransport}. */
interface ProtocolIdTransportInit {
  /** `/ip4/<ip>/udp/<port>` (port 0 = any free port). */
  bindAddr: Multiaddr;
  /** The local node id (hex), the key incoming headers are masked with. */
  nodeId: string;
  protocolId: string;
  /** A datagram was dropped: of another protocol id, or not a packet. */
  onRefused(refusal: PacketRefusal, from: string, err: Discv5PacketError): void;
  /** Bytes received and sent. */
  onBytes?(direction: "in" | "out", n: number): void;
}

/** See the module comment. IPv4 only, as the execution layer's discovery address. */
export class ProtocolIdTransport extends EventEmitter {
  readonly bindAddrs: Multiaddr[];
  readonly ipMode: IPMode = { ip4: true, ip6: false };
  private socket: Socket | undefined;
  private readonly id: Uint8Array;

  constructor(private readonly init: ProtocolIdTransportInit) {
    super();
    this.id = protocolIdBytes(init.protocolId);
    const o = init.bindAddr.toOptions();
    if (o.transport !== "udp" || o.family !== 4) throw new Discv5PacketError("malformed", `discv5 bind address ${init.bindAddr.toString()}: expected /ip4/<ip>/udp/<port>`);
    this.bindAddrs = [init.bindAddr];
  }

  /** This transport as the library's `ITransportService` (its strict-event-emitter typings are not this class's). */
  asService(): ITransportService {
    return this as unknown as ITransportService;
  }

  /** The bound UDP port (after {@link start}). */
  get port(): number {
    return this.socket?.address().port ?? 0;
  }

  async start(): Promise<void> {
    const o = this.init.bindAddr.toOptions();
    const s = createSocket({ type: "udp4", recvBufferSize: 16 * MAX_PACKET_BYTES, sendBufferSize: MAX_PACKET_BYTES });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.bind(o.port, o.host, () => {
        s.off("error", reject);
        resolve();
      });
    });
    s.on("message", (data: Buffer, rinfo: RemoteInfo) => this.receive(data, rinfo));
    this.socket = s;
  }

  async stop(): Promise<void> {
    const s = this.socket;
    this.socket = undefined;
    if (s !== undefined) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Sends a packet of the library under this transport's protocol id. */
  async send(to: Multiaddr, toId: string, packet: Packet): Promise<void> {
    const s = this.socket;
    if (s === undefined) return;
    const o = to.toOptions();
    if (o.family !== 4) return;
    packet.header.protocolId = Buffer.from(this.id).toString("latin1");
    const bytes = encodePacket(toId, packet, this.id);
    this.init.onBytes?.("out", bytes.length);
    s.send(bytes, o.port, o.host);
  }

  getContactableAddr(enr: BaseENR): ReturnType<ITransportService["getContactableAddr"]> {
    return getSocketAddressOnENR(enr, this.ipMode);
  }

  private receive(data: Buffer, rinfo: RemoteInfo): void {
    this.init.onBytes?.("in", data.length);
    const from = multiaddr(`/ip4/${rinfo.address}/udp/${rinfo.port}`);
    let packet: Packet;
    try {
      packet = decodePacket(this.init.nodeId, data, this.id);
    } catch (e) {
      const err = e instanceof Discv5PacketError ? e : new Discv5PacketError("malformed", (e as Error).message);
      this.init.onRefused(err.type.refusal, `${rinfo.address}:${rinfo.port}`, err);
      this.emit("decodeError", err, from);
      return;
    }
    this.emit("packet", from, packet);
  }
}
