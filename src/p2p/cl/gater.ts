/**
 * The connection gater of the libp2p host (op-node/p2p/gating): peers, IPs and subnets blocked by
 * `opp2p_block*`, and score bans with an expiry (op-node's peer monitor bans for
 * `--p2p.ban.duration`). A blocked or banned peer is neither dialed nor accepted; a blocked IP or
 * subnet is neither dialed nor accepted from. Bounded by what operators add plus one entry per
 * banned peer; expired bans are dropped when read.
 *
 * Deviation: op-node keeps score bans in its peerstore and lists only manual blocks in
 * `opp2p_listBlockedPeers`; basalt lists active bans there too, so a banned peer is visible.
 */
import { BlockList, isIP } from "node:net";
import type { ConnectionGater, MultiaddrConnection, PeerId } from "@libp2p/interface";
import type { Multiaddr } from "@multiformats/multiaddr";

/** An IP subnet in CIDR form, e.g. `10.0.0.0/8`. */
export interface Subnet {
  ip: string;
  prefix: number;
}

/** Parses `a.b.c.d/n` or an IPv6 CIDR; undefined when malformed. */
export function parseSubnet(cidr: string): Subnet | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  if (m === null) return undefined;
  const ip = m[1]!;
  const prefix = Number(m[2]);
  const family = isIP(ip);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  return { ip, prefix };
}

function ipOf(ma: Multiaddr): string | undefined {
  for (const c of ma.getComponents()) {
    if (c.name === "ip4" || c.name === "ip6") return c.value;
  }
  return undefined;
}

/** See the module comment. */
export class P2PGater {
  /** Blocked peers: expiry in ms since the epoch (Infinity: until unblocked). */
  private readonly peers = new Map<string, number>();
  private readonly ips = new Set<string>();
  private readonly subnets = new Map<string, Subnet>();
  private blockList = new BlockList();

  constructor(private readonly now: () => number = Date.now) {}

  /** Blocks a peer until {@link unblockPeer}. */
  blockPeer(id: string): void {
    this.peers.set(id, Number.POSITIVE_INFINITY);
  }

  /** Bans a peer until `untilMs` (a manual block is kept if longer). */
  banPeer(id: string, untilMs: number): void {
    this.peers.set(id, Math.max(untilMs, this.peers.get(id) ?? 0));
  }

  /** Lifts a block or ban. */
  unblockPeer(id: string): void {
    this.peers.delete(id);
  }

  /** Whether a peer is blocked or banned now. */
  isPeerBlocked(id: string): boolean {
    const until = this.peers.get(id);
    if (until === undefined) return false;
    if (until <= this.now()) {
      this.peers.delete(id);
      return false;
    }
    return true;
  }

  /** Blocked and banned peers, expired bans dropped. */
  listBlockedPeers(): string[] {
    return [...this.peers.keys()].filter((id) => this.isPeerBlocked(id));
  }

  /** Blocks an IP address (`isIP` must accept it). */
  blockAddr(ip: string): void {
    this.ips.add(ip);
    this.rebuild();
  }

  unblockAddr(ip: string): void {
    this.ips.delete(ip);
    this.rebuild();
  }

  listBlockedAddrs(): string[] {
    return [...this.ips];
  }

  blockSubnet(s: Subnet): void {
    this.subnets.set(`${s.ip}/${s.prefix}`, s);
    this.rebuild();
  }

  unblockSubnet(s: Subnet): void {
    this.subnets.delete(`${s.ip}/${s.prefix}`);
    this.rebuild();
  }

  listBlockedSubnets(): Subnet[] {
    return [...this.subnets.values()];
  }

  /** Whether an IP is blocked (itself or by a subnet). */
  isIpBlocked(ip: string): boolean {
    const family = isIP(ip);
    if (family === 0) return false;
    return this.blockList.check(ip, family === 4 ? "ipv4" : "ipv6");
  }

  private rebuild(): void {
    const b = new BlockList();
    for (const ip of this.ips) b.addAddress(ip, isIP(ip) === 4 ? "ipv4" : "ipv6");
    for (const s of this.subnets.values()) b.addSubnet(s.ip, s.prefix, isIP(s.ip) === 4 ? "ipv4" : "ipv6");
    this.blockList = b;
  }

  private addrBlocked(ma: Multiaddr): boolean {
    const ip = ipOf(ma);
    return ip !== undefined && this.isIpBlocked(ip);
  }

  /** The libp2p gater over these lists. */
  libp2pGater(): ConnectionGater {
    return {
      denyDialPeer: (peer: PeerId) => this.isPeerBlocked(peer.toString()),
      denyDialMultiaddr: (ma: Multiaddr) => this.addrBlocked(ma),
      denyInboundConnection: (c: MultiaddrConnection) => this.addrBlocked(c.remoteAddr),
      denyOutboundConnection: (peer: PeerId, c: MultiaddrConnection) => this.isPeerBlocked(peer.toString()) || this.addrBlocked(c.remoteAddr),
      denyInboundEncryptedConnection: (peer: PeerId) => this.isPeerBlocked(peer.toString()),
      denyOutboundEncryptedConnection: (peer: PeerId) => this.isPeerBlocked(peer.toString()),
    };
  }
}
