/**
 * The libp2p host of the consensus-layer P2P (specs rollup-node-p2p.md "LibP2P"; op-node/p2p/host.go):
 * TCP, noise (XX, the secp256k1 identity), yamux and mplex, identify, and gossipsub with op-node's
 * parameters (gossip.go): mesh D/Dlo/Dhi/Dlazy 8/6/12/6, 500 ms heartbeat, fanout TTL 24 s,
 * 12 history windows of which 3 gossiped, seen TTL 65 s, StrictNoSign without author, op-node's
 * message id (with the topic), 10 MiB messages, no peer exchange, only the blocks topics allowed,
 * and op-node's light peer scoring.
 *
 * Deviations: no ping service (@libp2p/ping is not a dependency; PeerInfo latency is 0); libp2p's
 * connection manager has one limit (`maxConnections` = peers.hi) and no low-water pruning with a
 * grace period, so discovery dials up to peers.lo (`discovery.ts`) and libp2p refuses beyond
 * peers.hi; gossipsub-js has no validate-queue/throttle options (op-node 256/512), so validation
 * runs inline per message (bounded work per message).
 */
import { gossipsub, type GossipSub, type GossipSubComponents } from "@chainsafe/libp2p-gossipsub";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { identify, type Identify } from "@libp2p/identify";
import type { PrivateKey } from "@libp2p/interface";
import { mplex } from "@libp2p/mplex";
import { tcp } from "@libp2p/tcp";
import { createLibp2p, type Libp2p } from "libp2p";
import { P2P_GOSSIP_FANOUT_TTL_MS, P2P_GOSSIP_HEARTBEAT_MS, P2P_GOSSIP_HISTORY, P2P_GOSSIP_MESH, P2P_GOSSIP_SEEN_TTL_MS, GOSSIP_MAX_MESSAGE_BYTES } from "../constants.js";
import { gossipMessageId } from "../gossip/message.js";
import { byteMeter, type ByteTotals } from "./byteMeter.js";
import type { P2PGater } from "./gater.js";
import { PEER_SCORE_THRESHOLDS, peerScoreParams } from "./peerScoring.js";

/** The host's services. */
type HostServices = {
  identify: Identify;
  pubsub: GossipSub;
};

/** A running libp2p host with basalt's services. */
export type P2PHost = Libp2p<HostServices>;

/** What {@link createHost} needs. */
interface HostOptions {
  privateKey: PrivateKey;
  listenIp: string;
  tcpPort: number;
  /** IP announced to peers (identify) instead of the listen IP. */
  announceIp?: string;
  peersHi: number;
  userAgent: string;
  /** The blocks topics v1..v4 (subscriptions to other topics are refused). */
  topics: string[];
  blockTimeS?: number;
  appSpecificScore: (peerId: string) => number;
  gater: P2PGater;
  bytes: ByteTotals;
}

/** Creates and starts the host. */
export async function createHost(o: HostOptions): Promise<P2PHost> {
  const ipProto = o.listenIp.includes(":") ? "ip6" : "ip4";
  const announce = o.announceIp === undefined ? [] : [`/${o.announceIp.includes(":") ? "ip6" : "ip4"}/${o.announceIp}/tcp/${o.tcpPort}`];
  return createLibp2p({
    privateKey: o.privateKey,
    addresses: { listen: [`/${ipProto}/${o.listenIp}/tcp/${o.tcpPort}`], announce: o.tcpPort === 0 ? [] : announce },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux(), mplex()],
    connectionGater: o.gater.libp2pGater(),
    connectionManager: { maxConnections: o.peersHi },
    metrics: byteMeter(o.bytes),
    services: {
      identify: identify({ agentVersion: o.userAgent }),
      // gossipsub() is typed as the generic PubSub; the service it creates is the GossipSub class.
      pubsub: gossipsub({
        ...P2P_GOSSIP_MESH,
        heartbeatInterval: P2P_GOSSIP_HEARTBEAT_MS,
        fanoutTTL: P2P_GOSSIP_FANOUT_TTL_MS,
        mcacheLength: P2P_GOSSIP_HISTORY.length,
        mcacheGossip: P2P_GOSSIP_HISTORY.gossip,
        seenTTL: P2P_GOSSIP_SEEN_TTL_MS,
        globalSignaturePolicy: "StrictNoSign",
        msgIdFn: (msg) => gossipMessageId(msg.data, msg.topic),
        asyncValidation: true,
        allowPublishToZeroTopicPeers: true,
        doPX: false,
        floodPublish: false,
        fallbackToFloodsub: false,
        allowedTopics: o.topics,
        maxInboundDataLength: GOSSIP_MAX_MESSAGE_BYTES,
        maxOutboundBufferSize: GOSSIP_MAX_MESSAGE_BYTES * 4,
        scoreParams: peerScoreParams(o.topics, o.blockTimeS, o.appSpecificScore),
        scoreThresholds: PEER_SCORE_THRESHOLDS,
      }) as (components: GossipSubComponents) => GossipSub,
    },
  });
}
