/**
 * Network probes of the `basalt doctor` P2P checks: binding a TCP or UDP port, connecting to a
 * TCP port, a discv5 PING→PONG round trip to a node record (`enr:…`, @chainsafe/discv5 as a
 * client) and a discv4 PING→PONG round trip to an enode (@ethereumjs/devp2p's DPT as a client),
 * plus the parsing of what the node reports about itself (`opp2p_self`, `admin_nodeInfo`) and the
 * scope of an IP address. Every probe is bounded by a time limit and closes its socket.
 */
import "../../p2p/polyfills.js";
import dgram from "node:dgram";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { Discv5 } from "@chainsafe/discv5";
import { ENR, SignableENR } from "@chainsafe/enr";
import { DPT } from "@ethereumjs/devp2p";
import { generateKeyPair } from "@libp2p/crypto/keys";
import { ProtocolIdTransport, withProtocolId } from "../../p2p/el/discv5Transport.js";
import { multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { DoctorError } from "./types.js";
import { DOCTOR_P2P_BACKGROUND_INTERVAL_MS, DOCTOR_P2P_LIBRARY_GRACE_MS } from "../constants.js";

/** Tries to bind UDP `host:port` exclusively; resolves undefined when it could, else the socket error code. */
export function tryBindUdp(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket({ type: net.isIPv6(host) ? "udp6" : "udp4" });
    socket.once("error", (e: NodeJS.ErrnoException) => {
      socket.close();
      resolve(e.code ?? e.message);
    });
    socket.bind({ address: host, port, exclusive: true }, () => socket.close(() => resolve(undefined)));
  });
}

/** What one TCP connection attempt saw. */
type TcpProbe = { ok: true; latencyMs: number } | { ok: false; code: string };

/** Opens a TCP connection to `host:port` and closes it at once; `code` is the socket error or `"ETIMEDOUT"` after `timeoutMs`. */
export function tcpConnect(host: string, port: number, timeoutMs: number): Promise<TcpProbe> {
  const start = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (r: TcpProbe): void => {
      socket.removeAllListeners();
      socket.on("error", () => undefined);
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(timeoutMs, () => finish({ ok: false, code: "ETIMEDOUT" }));
    socket.once("connect", () => finish({ ok: true, latencyMs: performance.now() - start }));
    socket.once("error", (e: NodeJS.ErrnoException) => finish({ ok: false, code: e.code ?? e.message }));
  });
}

/** Rejects with a `DOCTOR_PROBE_FAILED` {@link DoctorError} naming `what` when `p` has not settled within `timeoutMs`. */
function within<T>(p: Promise<T>, timeoutMs: number, what: string, target: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DoctorError({ code: "DOCTOR_PROBE_FAILED", target }, `no ${what} from ${target} within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The private key type discv5 takes. */
type Discv5Key = Parameters<typeof Discv5.create>[0]["privateKey"];

/** A discv5 PONG. */
interface Discv5Pong {
  latencyMs: number;
  /** Sequence number of the node's record, as the PONG gives it. */
  enrSeq: bigint;
  /** The address the node saw the probe come from (`ip:port`). */
  observed: string;
}

/**
 * Sends one discv5 PING to the node of record `enrText` at `host:port` (UDP), from a throw-away
 * node on an ephemeral loopback (or `::1`) port, and waits for its PONG. The session handshake
 * runs against the record's public key, so only that node can answer. With `protocolId` (Base's
 * execution layer: `basev0`) the probe speaks discv5 under that id (`p2p/el/discv5Transport.ts`).
 * Rejects on a bad record (`DOCTOR_BAD_ANSWER`) or no PONG within `timeoutMs` (`DOCTOR_PROBE_FAILED`).
 */
export async function discv5Ping(enrText: string, host: string, port: number, timeoutMs: number, protocolId?: string): Promise<Discv5Pong> {
  let target: ENR;
  try {
    target = ENR.decodeTxt(enrText);
  } catch (e) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER" }, `the node record ${enrText.slice(0, 40)}… does not decode: ${(e as Error).message}`, { cause: e });
  }
  const v6 = net.isIPv6(host);
  // @libp2p/crypto builds its keys on a newer @libp2p/interface than discv5 names; the key object is the same at run time.
  const key = (await generateKeyPair("secp256k1")) as unknown as Discv5Key;
  const bindAddrs = v6 ? { ip6: multiaddr("/ip6/::1/udp/0") } : { ip4: multiaddr("/ip4/127.0.0.1/udp/0") };
  if (protocolId !== undefined && v6) throw new DoctorError({ code: "DOCTOR_PROBE_FAILED", target: host }, `a '${protocolId}' discv5 probe runs over IPv4 only; ${host} is IPv6`);
  const enr = SignableENR.createFromPrivateKey(key);
  const transport =
    protocolId === undefined ? undefined : new ProtocolIdTransport({ bindAddr: bindAddrs.ip4!, nodeId: enr.nodeId, protocolId, onRefused: () => undefined }).asService();
  const dv5 = Discv5.create({
    enr,
    privateKey: key,
    bindAddrs,
    transport,
    // One request, no retry, no background pings or record updates: a probe, not a member of the network. The
    // library's own time limits are longer than the probe's, so silence is always reported as the probe's timeout.
    config: {
      requestTimeout: timeoutMs + DOCTOR_P2P_LIBRARY_GRACE_MS,
      requestRetries: 0,
      sessionEstablishTimeout: timeoutMs + DOCTOR_P2P_LIBRARY_GRACE_MS,
      enrUpdate: false,
      pingInterval: DOCTOR_P2P_BACKGROUND_INTERVAL_MS,
    },
  });
  const where = `${v6 ? `[${host}]` : host}:${port}/udp`;
  const undo = protocolId === undefined ? () => undefined : withProtocolId(dv5, protocolId);
  await dv5.start();
  try {
    const to = atAddress(target, host, port);
    const start = performance.now();
    const pong = await within(dv5.sendPing(to), timeoutMs, "discv5 PONG", where).catch((e: unknown) => {
      if (e instanceof DoctorError) throw e;
      throw new DoctorError({ code: "DOCTOR_PROBE_FAILED", target: where }, `no discv5 PONG from ${where}: ${(e as Error).message}`, { cause: e });
    });
    const o = pong.addr;
    return { latencyMs: performance.now() - start, enrSeq: pong.enrSeq, observed: `${o.ip.type === 6 ? `[${ipText(o.ip.octets)}]` : ipText(o.ip.octets)}:${o.port}` };
  } finally {
    undo();
    await dv5.stop().catch(() => undefined);
  }
}

/**
 * The record `r` as a contact at `host:port` (UDP) instead of its advertised address: the same
 * keys and signature with `ip`/`ip6` and `udp`/`udp6` replaced. Used only to address the PING
 * (nothing re-verifies its signature); the session handshake still runs against the record's
 * public key. (A raw `/ip4/…/udp/…/p2p/<id>` contact does not work with discv5 11.0.0: it
 * compares the PONG's sender with the whole multiaddr, `/p2p` part included, and refuses it.)
 */
function atAddress(r: ENR, host: string, port: number): ENR {
  const v6 = net.isIPv6(host);
  const kvs = new Map(r.kvs);
  kvs.set(v6 ? "ip6" : "ip", ipBytes(host));
  kvs.set(v6 ? "udp6" : "udp", Uint8Array.of(port >> 8, port & 0xff));
  return new ENR(kvs, r.seq, r.signature);
}

/** The bytes of an IPv4 (4) or IPv6 (16) address. */
function ipBytes(host: string): Uint8Array {
  if (net.isIPv4(host)) return Uint8Array.from(host.split(".").map(Number));
  const [head, tail] = host.split("::") as [string, string | undefined];
  const groups = (t: string): number[] => (t === "" ? [] : t.split(":").map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return Uint8Array.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

/** Dotted (IPv4) or colon (IPv6) text of an address's bytes. */
function ipText(octets: Uint8Array): string {
  if (octets.length === 4) return [...octets].join(".");
  const groups: string[] = [];
  for (let i = 0; i + 1 < octets.length; i += 2) groups.push((((octets[i] as number) << 8) | (octets[i + 1] as number)).toString(16));
  return groups.join(":");
}

/** A discv4 PONG. */
interface Discv4Pong {
  latencyMs: number;
}

/**
 * Sends one discv4 PING to `host:udpPort`, from a throw-away node on an ephemeral loopback port,
 * and waits for the PONG; the PONG must be signed by `publicKey` (the 64-byte key of the enode),
 * else it came from another node (`DOCTOR_BAD_ANSWER`). No PONG within `timeoutMs`:
 * `DOCTOR_PROBE_FAILED`.
 */
export async function discv4Ping(publicKey: Uint8Array, host: string, udpPort: number, tcpPort: number, timeoutMs: number): Promise<Discv4Pong> {
  const v6 = net.isIPv6(host);
  const dpt = new DPT(secp256k1.utils.randomSecretKey(), {
    timeout: timeoutMs + DOCTOR_P2P_LIBRARY_GRACE_MS,
    shouldFindNeighbours: false,
    refreshInterval: DOCTOR_P2P_BACKGROUND_INTERVAL_MS,
    createSocket: () => dgram.createSocket({ type: v6 ? "udp6" : "udp4" }),
  });
  const where = `${v6 ? `[${host}]` : host}:${udpPort}/udp`;
  try {
    await new Promise<void>((resolve, reject) => {
      dpt.events.once("listening", () => resolve());
      dpt.events.once("error", reject);
      dpt.bind(0, v6 ? "::1" : "127.0.0.1");
    });
    const start = performance.now();
    const peer = await within(dpt.addPeer({ address: host, udpPort, tcpPort }), timeoutMs, "discv4 PONG", where).catch((e: unknown) => {
      if (e instanceof DoctorError) throw e;
      throw new DoctorError({ code: "DOCTOR_PROBE_FAILED", target: where }, `no discv4 PONG from ${where}: ${(e as Error).message}`, { cause: e });
    });
    const latencyMs = performance.now() - start;
    if (peer.id === undefined || Buffer.compare(Buffer.from(peer.id), Buffer.from(publicKey)) !== 0) {
      const got = peer.id === undefined ? "an unsigned answer" : `node ${Buffer.from(peer.id).toString("hex").slice(0, 16)}…`;
      throw new DoctorError({ code: "DOCTOR_BAD_ANSWER", target: where }, `${where} answered as ${got}, expected node ${Buffer.from(publicKey).toString("hex").slice(0, 16)}… of the enode`);
    }
    return { latencyMs };
  } finally {
    dpt.destroy();
  }
}

/** The parts of an enode URL (`enode://<128 hex>@<ip>:<tcp port>[?discport=<udp port>]`). */
export interface Enode {
  /** The 64-byte uncompressed public key without its 0x04 prefix (the node id of discv4). */
  publicKey: Uint8Array;
  host: string;
  tcpPort: number;
  /** The discovery port: `discport`, else the TCP port. */
  udpPort: number;
}

/** Parses an enode URL; throws `DOCTOR_BAD_ANSWER` naming what is wrong. */
export function parseEnode(url: string): Enode {
  const m = /^enode:\/\/([0-9a-fA-F]{128})@(\[[0-9a-fA-F:.]+\]|[^:/?]+):(\d{1,5})(?:\?discport=(\d{1,5}))?$/.exec(url.trim());
  if (m === null) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER" }, `${JSON.stringify(url.slice(0, 200))} is not an enode URL (expected enode://<128 hex digits>@<ip>:<port>[?discport=<port>])`);
  }
  const tcpPort = Number(m[3]);
  const udpPort = m[4] === undefined ? tcpPort : Number(m[4]);
  if (tcpPort > 65_535 || udpPort > 65_535) throw new DoctorError({ code: "DOCTOR_BAD_ANSWER" }, `${url}: a port above 65535`);
  const host = (m[2] as string).replace(/^\[(.*)\]$/, "$1");
  return { publicKey: Uint8Array.from(Buffer.from(m[1] as string, "hex")), host, tcpPort, udpPort };
}

/** What the consensus layer reports about itself (op-node's `PeerInfo` from `opp2p_self`), the parts the doctor reads. */
export interface SelfPeerInfo {
  peerID: string;
  /** The node record, `enr:…`; empty when discovery is off. */
  ENR: string;
  /** Listen multiaddrs (`/ip4/…/tcp/…`). */
  addresses: string[];
}

/** Reads an `opp2p_self` result; throws `DOCTOR_BAD_ANSWER` when it lacks `peerID`. */
export function parseSelfPeerInfo(result: unknown): SelfPeerInfo {
  const r = result as { peerID?: unknown; ENR?: unknown; addresses?: unknown } | null;
  if (r === null || typeof r !== "object" || typeof r.peerID !== "string") {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER" }, `opp2p_self answered ${JSON.stringify(result)?.slice(0, 200)}, expected op-node's PeerInfo with a peerID`);
  }
  const addresses = Array.isArray(r.addresses) ? r.addresses.filter((a): a is string => typeof a === "string") : [];
  return { peerID: r.peerID, ENR: typeof r.ENR === "string" ? r.ENR : "", addresses };
}

/** The IP and the TCP/UDP ports of a node record; throws `DOCTOR_BAD_ANSWER` when it does not decode. */
export function enrEndpoint(enrText: string): { ip?: string; tcp?: number; udp?: number } {
  try {
    const r = ENR.decodeTxt(enrText);
    const out: { ip?: string; tcp?: number; udp?: number } = {};
    if (r.ip !== undefined) out.ip = r.ip;
    if (r.tcp !== undefined) out.tcp = r.tcp;
    if (r.udp !== undefined) out.udp = r.udp;
    return out;
  } catch (e) {
    throw new DoctorError({ code: "DOCTOR_BAD_ANSWER" }, `the node record ${enrText.slice(0, 40)}… does not decode: ${(e as Error).message}`, { cause: e });
  }
}

/** The TCP port of the first `/ip4|ip6/…/tcp/<port>` multiaddr in `addresses`, if any. */
export function tcpPortOf(addresses: readonly string[]): number | undefined {
  for (const a of addresses) {
    const m = /^\/(?:ip4|ip6|dns4|dns6|dns)\/[^/]+\/tcp\/(\d{1,5})(?:\/|$)/.exec(a);
    if (m !== null) return Number(m[1]);
  }
  return undefined;
}

/** Who can reach an address: nobody (unspecified), this machine (loopback), the local network (private, link-local), or anyone (public). */
type IpScope = "unspecified" | "loopback" | "private" | "link-local" | "public" | "invalid";

/** The {@link IpScope} of an IPv4 or IPv6 address (RFC 1918, RFC 6598 shared space, RFC 3927, RFC 4193, RFC 4291). */
export function ipScope(ip: string): IpScope {
  const addr = ip.replace(/^\[(.*)\]$/, "$1");
  if (net.isIPv4(addr)) {
    const [a, b] = addr.split(".").map(Number) as [number, number];
    if (a === 0) return "unspecified";
    if (a === 127) return "loopback";
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "private";
    if (a === 169 && b === 254) return "link-local";
    return "public";
  }
  if (net.isIPv6(addr)) {
    const lower = addr.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped !== null) return ipScope(mapped[1] as string);
    if (/^(0*:)*:?0*$/.test(lower) || lower === "::") return "unspecified";
    if (/^(0*:)*:?0*1$/.test(lower)) return "loopback";
    const first = parseInt(lower.split(":")[0] || "0", 16);
    if ((first & 0xfe00) === 0xfc00) return "private";
    if ((first & 0xffc0) === 0xfe80) return "link-local";
    return "public";
  }
  return "invalid";
}
