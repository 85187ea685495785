/**
 * The consensus-layer P2P node as it runs in the P2P worker: the libp2p host (`host.ts`), the
 * blocks topics (`blockGossip.ts`), discovery and static peers (`discovery.ts`), payload_by_number
 * (`reqResp.ts`), the connection gater and op-node's peer monitor (a peer whose gossip score falls
 * below the ban threshold is disconnected and banned, static and protected peers excepted), and
 * the `opp2p_*` calls. It talks to the main thread only through the callbacks it is given.
 */
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import type { PrivateKey } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr, type Multiaddr } from "@multiformats/multiaddr";
import { isIP } from "node:net";
import type { Logger } from "pino";
import type { OpForkSchedule } from "../../chain/op/forks.js";
import { P2P_PEER_MONITOR_INTERVAL_MS } from "../constants.js";
import { bytesEqual } from "../../util/bytes.js";
import { P2PError, P2PErrorCode } from "../errors.js";
import { payloadBlockHash } from "../gossip/blockHash.js";
import { decodeSignedBytes } from "../gossip/ssz.js";
import type { BlocksVersion } from "../gossip/topics.js";
import { AppScores } from "./appScores.js";
import { BlockGossip, type AcceptedBlock } from "./blockGossip.js";
import type { ByteTotals } from "./byteMeter.js";
import { Discovery, StaticPeers } from "./discovery.js";
import { parseNodeRecord } from "./enrText.js";
import { P2PGater, parseSubnet } from "./gater.js";
import { createHost, type P2PHost } from "./host.js";
import { dumpPeer, nodeIdOf, subnetJson, type PeerContext, type PeerDumpJson, type PeerInfoJson, type PeerStatsJson } from "./peerInfo.js";
import type { P2PWorkerData, SelfWire, StatSample } from "./protocol.js";
import { PayloadByNumber, type FetchedPayload, type PayloadAnswer } from "./reqResp.js";
import { P2PStats } from "./stats.js";

/** Most peers one fetch asks before it gives up. */
const FETCH_MAX_PEERS = 4;
/** op-node's `ConnectPeer` sanity limit on one connection attempt. */
const CONNECT_PEER_TIMEOUT_MS = 30_000;

/** What the node tells its owner. */
interface P2PNodeEvents {
  onBlock: (b: AcceptedBlock) => void;
  onPayloadRequest: (n: bigint) => Promise<PayloadAnswer>;
}

function badArg(what: string, message: string): P2PError {
  return new P2PError({ code: P2PErrorCode.INVALID_ARGUMENT, what }, message);
}

/** A peer id argument, checked. */
function peerArg(v: unknown): string {
  if (typeof v !== "string") throw badArg("peer", `expected a peer id string, got ${typeof v}`);
  try {
    return peerIdFromString(v).toString();
  } catch {
    throw badArg("peer", `invalid peer ID ${JSON.stringify(v.slice(0, 100))}: expected a base58 libp2p peer id`);
  }
}

/** A payload check: decodes at `version`, is block `n`, and hashes to its block hash. */
function checkPayload(version: BlocksVersion, payloadBytes: Uint8Array, n: bigint): string | undefined {
  let env;
  try {
    env = decodeSignedBytes(version, payloadBytes);
  } catch (e) {
    return `does not decode as v${version}: ${(e as Error).message}`;
  }
  if (env.payload.blockNumber !== n) return `block ${env.payload.blockNumber}, expected ${n}`;
  if (!bytesEqual(payloadBlockHash(env, version), env.payload.blockHash)) return "block hash does not match the payload";
  return undefined;
}

/** See the module comment. */
export class P2PNode {
  readonly stats = new P2PStats();
  readonly gater = new P2PGater();
  readonly bytes: ByteTotals = { inbound: 0, outbound: 0 };
  private readonly chainId: bigint;
  private readonly appScores: AppScores;
  private readonly protectedPeers = new Set<string>();
  private signer: Uint8Array | undefined;
  private host!: P2PHost;
  private gossip!: BlockGossip;
  private discovery: Discovery | undefined;
  private statics!: StaticPeers;
  private reqResp!: PayloadByNumber;
  private timers: NodeJS.Timeout[] = [];
  private privateKey: PrivateKey;

  constructor(
    private readonly d: P2PWorkerData,
    private readonly rollup: OpForkSchedule,
    private readonly events: P2PNodeEvents,
    private readonly log: Logger,
  ) {
    this.chainId = BigInt(d.chainId);
    this.appScores = new AppScores(d.blockTimeS);
    this.signer = d.signer;
    // @libp2p/crypto's typings resolve another copy of @libp2p/interface; the key object is the same at run time.
    this.privateKey = privateKeyFromRaw(d.nodeKey) as unknown as PrivateKey;
  }

  /** Starts everything; resolves with the node's identity and bound ports. */
  async start(): Promise<SelfWire> {
    const d = this.d;
    const bootnodes = d.bootnodes.map(parseNodeRecord);
    const statics: Multiaddr[] = d.staticPeers.map((s) => {
      let a: Multiaddr;
      try {
        a = multiaddr(s);
      } catch (e) {
        throw new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what: "static peer" }, `static peer ${JSON.stringify(s)}: ${(e as Error).message}`);
      }
      if (a.getPeerId() === null) throw new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what: "static peer" }, `static peer ${s}: expected a multiaddr ending in /p2p/<peer id>`);
      return a;
    });
    const advertiseIp = d.advertiseIp ?? (d.listenIp === "0.0.0.0" ? "127.0.0.1" : d.listenIp);
    this.host = await createHost({
      privateKey: this.privateKey,
      listenIp: d.listenIp,
      tcpPort: d.tcpPort,
      announceIp: d.advertiseIp,
      peersHi: d.peersHi,
      userAgent: d.userAgent,
      topics: BlockGossip.topicsOf(this.chainId),
      blockTimeS: d.blockTimeS,
      appSpecificScore: (p) => this.appScores.score(p),
      gater: this.gater,
      bytes: this.bytes,
    });
    const tcpPort = this.boundTcpPort();
    this.gossip = new BlockGossip({
      pubsub: this.host.services.pubsub,
      chainId: this.chainId,
      rollup: this.rollup,
      signer: () => this.signer,
      sequencerKey: d.sequencerKey,
      onBlock: this.events.onBlock,
      stats: this.stats,
      log: this.log,
    });
    this.gossip.start();
    this.reqResp = new PayloadByNumber({
      host: this.host,
      chainId: this.chainId,
      source: this.events.onPayloadRequest,
      check: checkPayload,
      appScores: this.appScores,
      stats: this.stats,
      log: this.log,
    });
    await this.reqResp.start();
    this.statics = new StaticPeers(this.host, statics, this.stats, this.log);
    this.statics.start();
    let udpPort = 0;
    if (!d.noDiscovery) {
      this.discovery = new Discovery({
        host: this.host,
        privateKey: this.privateKey,
        chainId: this.chainId,
        listenIp: d.listenIp,
        udpPort: d.udpPort !== 0 ? d.udpPort : d.tcpPort !== 0 ? tcpPort : 0,
        advertiseIp,
        tcpPort,
        bootnodes,
        peersLo: d.peersLo,
        gater: this.gater,
        stats: this.stats,
        log: this.log,
      });
      await this.discovery.start();
      udpPort = this.discovery.udpPort;
    }
    this.timers.push(setInterval(() => this.appScores.decayAll(), this.appScores.intervalMs));
    if (d.banPeers) this.timers.push(setInterval(() => this.monitor(), P2P_PEER_MONITOR_INTERVAL_MS));
    return this.self(tcpPort, udpPort);
  }

  private boundTcpPort(): number {
    for (const a of this.host.getMultiaddrs()) {
      const tcp = a.getComponents().find((c) => c.name === "tcp");
      if (tcp?.value !== undefined) return Number(tcp.value);
    }
    return this.d.tcpPort;
  }

  private self(tcpPort: number, udpPort: number): SelfWire {
    return {
      peerId: this.host.peerId.toString(),
      nodeId: nodeIdOf(this.host.peerId),
      enr: this.discovery?.enrText() ?? "",
      addresses: this.host.getMultiaddrs().map((a) => a.toString()),
      tcpPort,
      udpPort,
    };
  }

  /** op-node's peer monitor: ban and disconnect peers below the threshold. */
  private monitor(): void {
    const pubsub = this.host.services.pubsub;
    for (const p of this.host.getPeers()) {
      const id = p.toString();
      if (this.statics.ids.has(id) || this.protectedPeers.has(id)) continue;
      const score = pubsub.getScore(id);
      if (score >= this.d.banThreshold) continue;
      this.gater.banPeer(id, Date.now() + this.d.banDurationS * 1000);
      this.stats.inc("peer_bans");
      this.log.info({ peer: id, score }, "peer banned for its gossip score");
      this.host.hangUp(p).catch(() => undefined);
    }
  }

  /** Changes the unsafe block signer. */
  setSigner(address: Uint8Array): void {
    this.signer = address;
  }

  /** Counters and gauges for the main thread's registry. */
  samples(): StatSample[] {
    const out = this.stats.samples();
    const dir = { inbound: 0, outbound: 0 };
    for (const c of this.host.getConnections()) dir[c.direction]++;
    out.push({ name: "peers", labels: { protocol: "libp2p", direction: "inbound" }, value: dir.inbound });
    out.push({ name: "peers", labels: { protocol: "libp2p", direction: "outbound" }, value: dir.outbound });
    out.push({ name: "discovery_nodes", labels: {}, value: this.discovery?.table().length ?? 0 });
    out.push({ name: "banned_peers", labels: {}, value: this.gater.listBlockedPeers().length });
    out.push({ name: "bytes", labels: { direction: "inbound" }, value: this.bytes.inbound });
    out.push({ name: "bytes", labels: { direction: "outbound" }, value: this.bytes.outbound });
    return out;
  }

  private context(): PeerContext {
    return {
      host: this.host,
      pubsub: this.host.services.pubsub,
      blocksTopics: this.gossip.topics,
      topicPeers: this.gossip.allTopicPeers(),
      reqResp: (p) => this.appScores.scores(p),
      isProtected: (p) => this.protectedPeers.has(p) || this.statics.ids.has(p),
      discovered: (p) => this.discovery?.known.get(p),
    };
  }

  /** Fetches block `n` from connected peers serving payload_by_number, one after the other. */
  async fetchPayload(n: bigint): Promise<FetchedPayload> {
    const peers = this.host.getPeers().map((p) => p.toString());
    const serving: string[] = [];
    for (const p of peers) {
      try {
        const rec = await this.host.peerStore.get(peerIdFromString(p));
        if (rec.protocols.includes(this.reqResp.protocol)) serving.push(p);
      } catch {
        // unknown to the peer store
      }
    }
    let lastError: unknown;
    for (const p of serving.slice(0, FETCH_MAX_PEERS)) {
      try {
        return await this.reqResp.requestFrom(p, n);
      } catch (e) {
        lastError = e;
        this.log.debug({ err: e, peer: p, number: n.toString() }, "payload_by_number failed");
      }
    }
    throw new P2PError(
      { code: P2PErrorCode.FETCH_FAILED, number: n.toString(), peers: serving.length },
      `no peer served block ${n} (${serving.length} peers serve payload_by_number)${lastError instanceof Error ? `: last error ${lastError.message}` : ""}`,
    );
  }

  /** Runs an `opp2p_*` call or a service call; the result is plain JSON. */
  async call(method: string, params: unknown[]): Promise<unknown> {
    switch (method) {
      case "self": {
        const info = await dumpPeer(this.host.peerId.toString(), this.context());
        info.gossipBlocks = true;
        // The own peer-store entry may hold no addresses yet (go-libp2p's has them): the listen addresses, as op-node prints.
        info.addresses = this.host.getMultiaddrs().map((a) => a.toString());
        if (info.protocols.length === 0) info.protocols = this.host.getProtocols();
        info.ENR = this.discovery?.enrText() ?? "";
        info.chainID = Number(this.chainId);
        return info;
      }
      case "peers":
        return this.peers(params[0] === true);
      case "peerStats":
        return this.peerStats();
      case "discoveryTable":
        if (this.discovery === undefined) throw new P2PError({ code: P2PErrorCode.DISCOVERY_DISABLED }, "discovery disabled");
        return this.discovery.table().map((r) => r.encodeTxt());
      case "blockPeer":
        this.gater.blockPeer(peerArg(params[0]));
        return null;
      case "unblockPeer":
        this.gater.unblockPeer(peerArg(params[0]));
        return null;
      case "listBlockedPeers":
        return this.gater.listBlockedPeers();
      case "blockAddr":
      case "unblockAddr": {
        const ip = params[0];
        if (typeof ip !== "string" || isIP(ip) === 0) throw badArg("ip", `invalid IP ${JSON.stringify(ip)}: expected an IPv4 or IPv6 address`);
        if (method === "blockAddr") this.gater.blockAddr(ip);
        else this.gater.unblockAddr(ip);
        return null;
      }
      case "listBlockedAddrs":
        return this.gater.listBlockedAddrs();
      case "blockSubnet":
      case "unblockSubnet": {
        const s = typeof params[0] === "string" ? parseSubnet(params[0]) : undefined;
        if (s === undefined) throw badArg("subnet", `invalid subnet ${JSON.stringify(params[0])}: expected CIDR notation like 10.0.0.0/8`);
        if (method === "blockSubnet") this.gater.blockSubnet(s);
        else this.gater.unblockSubnet(s);
        return null;
      }
      case "listBlockedSubnets":
        return this.gater.listBlockedSubnets().map(subnetJson);
      case "protectPeer":
        this.protect(peerArg(params[0]), true);
        return null;
      case "unprotectPeer":
        this.protect(peerArg(params[0]), false);
        return null;
      case "connectPeer":
        return this.connect(params[0]);
      case "disconnectPeer":
        await this.host.hangUp(peerIdFromString(peerArg(params[0])));
        return null;
      case "publish": {
        const [version, payloadBytes] = params as [BlocksVersion, Uint8Array];
        return this.gossip.publish(version, payloadBytes);
      }
      case "fetchPayload": {
        const r = await this.fetchPayload(BigInt(params[0] as string));
        return { version: r.version, payloadBytes: r.payloadBytes, peer: r.peer };
      }
      case "scoreOf":
        return this.host.services.pubsub.getScore(peerArg(params[0]));
      default:
        throw badArg("method", `unknown P2P call ${method}`);
    }
  }

  private protect(id: string, on: boolean): void {
    if (on) this.protectedPeers.add(id);
    else this.protectedPeers.delete(id);
    this.host.peerStore
      .merge(peerIdFromString(id), { tags: { "basalt-protected": on ? { value: 100 } : undefined } })
      .catch((e: unknown) => this.log.debug({ err: e }, "peer protection tag not set"));
  }

  private async connect(addr: unknown): Promise<null> {
    if (typeof addr !== "string") throw badArg("addr", "expected a multiaddr string");
    let ma: Multiaddr;
    try {
      ma = multiaddr(addr);
    } catch (e) {
      throw badArg("addr", `bad peer address ${JSON.stringify(addr.slice(0, 200))}: ${(e as Error).message}`);
    }
    if (ma.getPeerId() === null) throw badArg("addr", `bad peer address ${addr}: expected /p2p/<peer id> at the end`);
    try {
      await this.host.dial(ma, { signal: AbortSignal.timeout(CONNECT_PEER_TIMEOUT_MS) });
    } catch (e) {
      throw new P2PError({ code: P2PErrorCode.OPERATION_FAILED, what: "connectPeer" }, `cannot connect to ${addr}: ${(e as Error).message}`);
    }
    return null;
  }

  private async peers(connectedOnly: boolean): Promise<PeerDumpJson> {
    const ids = connectedOnly ? this.host.getPeers().map((p) => p.toString()) : (await this.host.peerStore.all()).map((p) => p.id.toString());
    const c = this.context();
    const peers: Record<string, PeerInfoJson> = {};
    let totalConnected = 0;
    for (const id of ids) {
      if (id === this.host.peerId.toString()) continue;
      const info = await dumpPeer(id, c);
      peers[id] = info;
      if (info.connectedness === 1) totalConnected++;
    }
    return {
      totalConnected,
      peers,
      bannedPeers: this.gater.listBlockedPeers(),
      bannedIPS: this.gater.listBlockedAddrs(),
      bannedSubnets: this.gater.listBlockedSubnets().map(subnetJson),
    };
  }

  private async peerStats(): Promise<PeerStatsJson> {
    return {
      connected: this.host.getPeers().length,
      table: this.discovery?.table().length ?? 0,
      blocksTopic: this.gossip.topicPeers(1).length,
      blocksTopicV2: this.gossip.topicPeers(2).length,
      blocksTopicV3: this.gossip.topicPeers(3).length,
      blocksTopicV4: this.gossip.topicPeers(4).length,
      banned: this.gater.listBlockedPeers().length,
      known: (await this.host.peerStore.all()).length,
    };
  }

  /** Stops everything (never throws). */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.statics?.stop();
    await this.discovery?.stop();
    try {
      this.gossip?.stop();
    } catch {
      // already stopped
    }
    try {
      await this.host?.stop();
    } catch {
      // stopping twice or mid-start
    }
  }
}

