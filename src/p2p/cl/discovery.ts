/**
 * Peer discovery and peering (specs rollup-node-p2p.md "Discv5"; op-node/p2p/discovery.go): a
 * discv5 node on the UDP port whose record carries ip/tcp/udp and the `opstack` entry of the chain;
 * records found in the table, by random lookups and from bootnodes are kept only when their
 * `opstack` entry names this chain at version 0; while the node has fewer than `peersLo`
 * connections it dials such peers (at most 4 at a time, 10 s each) every 5 s, otherwise every 20 s.
 * Static peers are dialed at start and redialed whenever they are not connected.
 *
 * Untrusted input: packets that do not decode are counted and dropped by the discv5 library
 * (`decodeError`); records are checked before use; every dial failure is caught.
 */
import { ENR, SignableENR } from "@chainsafe/enr";
import { Discv5, UDPTransportService } from "@chainsafe/discv5";
import type { PrivateKey } from "@libp2p/interface";
import { multiaddr, type Multiaddr } from "@multiformats/multiaddr";
import type { Socket } from "node:dgram";
import type { EventEmitter } from "node:events";
import type { Logger } from "pino";
import { P2P_DIAL_CONCURRENCY, P2P_DIAL_TIMEOUT_MS, P2P_DISCOVER_INTERVAL_MS, P2P_PEERING_INTERVAL_MS, P2P_STATIC_REDIAL_MS } from "../constants.js";
import type { P2PGater } from "./gater.js";
import type { P2PHost } from "./host.js";
import { OPSTACK_ENR_KEY, encodeOpStackEntry, opStackFilter } from "./opstackEnr.js";
import type { P2PStats } from "./stats.js";

/** What discovery learned of a peer (for `opp2p_peers`). */
interface DiscoveredPeer {
  enr: string;
  chainId: bigint;
  addr: Multiaddr;
}

/** What {@link Discovery} needs. */
interface DiscoveryOptions {
  host: P2PHost;
  privateKey: PrivateKey;
  chainId: bigint;
  listenIp: string;
  /** 0 = any free port. */
  udpPort: number;
  /** IP put in the record. */
  advertiseIp: string;
  tcpPort: number;
  bootnodes: ENR[];
  peersLo: number;
  gater: P2PGater;
  stats: P2PStats;
  log: Logger;
}

/** See the module comment. */
export class Discovery {
  private dv5: Discv5 | undefined;
  private transport: UDPTransportService | undefined;
  /** Peers with a matching record, by peer id; bounded by the discv5 table and lookups (entries are replaced, not grown, per peer). */
  readonly known = new Map<string, DiscoveredPeer>();
  private timers: NodeJS.Timeout[] = [];
  private dialing = 0;
  private stopped = false;
  private lastPeering = 0;
  private lastLookup = 0;
  udpPort = 0;

  constructor(private readonly o: DiscoveryOptions) {}

  /** Starts discv5 and the peering loop; resolves with the record once the UDP socket is bound. */
  async start(): Promise<SignableENR> {
    const o = this.o;
    const enr = SignableENR.createFromPrivateKey(o.privateKey);
    enr.ip = o.advertiseIp;
    enr.tcp = o.tcpPort;
    enr.set(OPSTACK_ENR_KEY, encodeOpStackEntry(o.chainId));
    const bindAddrs = { ip4: multiaddr(`/ip4/${o.listenIp}/udp/${o.udpPort}`) };
    this.transport = new UDPTransportService({ bindAddrs, nodeId: enr.nodeId });
    // The libraries' strict-event-emitter typings do not resolve here; they are node EventEmitters.
    const transportEvents = this.transport as unknown as EventEmitter;
    transportEvents.on("decodeError", () => o.stats.inc("discovery_packets", { result: "malformed" }));
    transportEvents.on("packet", () => o.stats.inc("discovery_packets", { result: "decoded" }));
    const dv5 = Discv5.create({ enr, privateKey: o.privateKey, bindAddrs, transport: this.transport, config: { enrUpdate: false } });
    this.dv5 = dv5;
    const dv5Events = dv5 as unknown as EventEmitter;
    dv5Events.on("discovered", (r: ENR) => this.consider(r));
    dv5Events.on("enrAdded", (r: ENR) => this.consider(r));
    await dv5.start();
    // The library binds the socket itself and does not expose its port (port 0 picks one): read it from the socket.
    const socket = (this.transport as unknown as { ip4?: { socket?: Socket } }).ip4?.socket;
    this.udpPort = socket?.address().port ?? o.udpPort;
    dv5.enr.udp = this.udpPort;
    for (const b of o.bootnodes) {
      try {
        dv5.addEnr(b);
        this.consider(b);
      } catch (e) {
        o.log.warn({ err: e }, "bootnode not added to the discovery table");
      }
    }
    this.timers.push(setInterval(() => this.tick(), 1_000));
    this.tick();
    return dv5.enr;
  }

  /** The local record as `enr:…`. */
  enrText(): string {
    return this.dv5?.enr.encodeTxt() ?? "";
  }

  /** The discovery table: every record in the kademlia buckets. */
  table(): ENR[] {
    return this.dv5?.kadValues() ?? [];
  }

  private consider(r: ENR): void {
    try {
      const refusal = opStackFilter(r.kvs.get(OPSTACK_ENR_KEY), this.o.chainId);
      if (refusal !== undefined) {
        this.o.stats.inc("discovery_rejected_nodes", { reason: refusal });
        return;
      }
      const addr = r.getLocationMultiaddr("tcp");
      if (addr === undefined) {
        this.o.stats.inc("discovery_rejected_nodes", { reason: "noTcpAddress" });
        return;
      }
      const peerId = r.peerId.toString();
      if (peerId === this.o.host.peerId.toString()) return;
      this.known.set(peerId, { enr: r.encodeTxt(), chainId: this.o.chainId, addr: addr.encapsulate(`/p2p/${peerId}`) });
    } catch (e) {
      this.o.stats.inc("discovery_rejected_nodes", { reason: "badRecord" });
      this.o.log.debug({ err: e }, "discovered record refused");
    }
  }

  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    const below = this.o.host.getPeers().length < this.o.peersLo;
    if (now - this.lastLookup >= (below ? P2P_DISCOVER_INTERVAL_MS.fast : P2P_DISCOVER_INTERVAL_MS.slow)) {
      this.lastLookup = now;
      for (const r of this.dv5?.kadValues() ?? []) this.consider(r);
      this.dv5?.findRandomNode().catch((e: unknown) => this.o.log.debug({ err: e }, "discv5 random lookup failed"));
    }
    if (now - this.lastPeering >= (below ? P2P_PEERING_INTERVAL_MS.fast : P2P_PEERING_INTERVAL_MS.slow) || (below && this.lastPeering === 0)) {
      this.lastPeering = now;
      if (below) this.dialSome();
    }
  }

  private dialSome(): void {
    const connected = new Set(this.o.host.getPeers().map((p) => p.toString()));
    const candidates = [...this.known.entries()].filter(([id]) => !connected.has(id) && !this.o.gater.isPeerBlocked(id));
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    for (const [id, p] of candidates) {
      if (this.dialing >= P2P_DIAL_CONCURRENCY || this.o.host.getPeers().length + this.dialing >= this.o.peersLo) break;
      this.dialing++;
      this.o.host
        .dial(p.addr, { signal: AbortSignal.timeout(P2P_DIAL_TIMEOUT_MS) })
        .then(() => this.o.stats.inc("dials", { source: "discovery", result: "ok" }))
        .catch((e: unknown) => {
          this.o.stats.inc("dials", { source: "discovery", result: "failed" });
          this.o.log.debug({ err: e, peer: id }, "dial of a discovered peer failed");
        })
        .finally(() => this.dialing--);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.dv5?.stop().catch(() => undefined);
  }
}

/** Keeps static peers connected: dials each at start and again whenever it is not connected. */
export class StaticPeers {
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<string>();
  /** Peer ids of the static peers. */
  readonly ids: Set<string>;

  constructor(
    private readonly host: P2PHost,
    private readonly addrs: Multiaddr[],
    private readonly stats: P2PStats,
    private readonly log: Logger,
  ) {
    this.ids = new Set(addrs.map((a) => a.getPeerId()).filter((p): p is string => p !== null));
  }

  start(): void {
    if (this.addrs.length === 0) return;
    this.redial();
    this.timer = setInterval(() => this.redial(), P2P_STATIC_REDIAL_MS);
  }

  private redial(): void {
    const connected = new Set(this.host.getPeers().map((p) => p.toString()));
    for (const a of this.addrs) {
      const id = a.getPeerId();
      if (id === null || connected.has(id) || this.inFlight.has(id)) continue;
      this.inFlight.add(id);
      this.host
        .dial(a, { signal: AbortSignal.timeout(P2P_DIAL_TIMEOUT_MS) })
        .then(() => this.stats.inc("dials", { source: "static", result: "ok" }))
        .catch((e: unknown) => {
          this.stats.inc("dials", { source: "static", result: "failed" });
          this.log.debug({ err: e, peer: id }, "static peer dial failed");
        })
        .finally(() => this.inFlight.delete(id));
    }
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }
}
