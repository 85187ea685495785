/**
 * The JSON of op-node's `opp2p_*` answers (op-node/p2p/rpc_api.go `PeerInfo`, `PeerDump`,
 * rpc_server.go `PeerStats`; op-node/p2p/store/iface.go `PeerScores`), built in the worker from
 * the libp2p peer store, gossipsub's score statistics and the application scores. Field names and
 * encodings are op-node's: `nodeID` is 64 hex characters without 0x (go-ethereum `enode.ID`),
 * `connectedness` and `direction` are go-libp2p's numbers (0 NotConnected / 1 Connected;
 * 0 Unknown / 1 Inbound / 2 Outbound), `latency` is nanoseconds (always 0: no ping service).
 *
 * Deviation: op-node's `scores.gossip.blocks` is the v1 blocks topic; basalt sums the four blocks
 * topics (all of them are scored here).
 */
import type { GossipSub } from "@chainsafe/libp2p-gossipsub";
import type { PeerId } from "@libp2p/interface";
import { peerIdFromString } from "@libp2p/peer-id";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { toHex } from "../../util/bytes.js";
import { keccak256 } from "../../util/keccak.js";
import type { ReqRespScores } from "./appScores.js";
import type { Subnet } from "./gater.js";
import type { P2PHost } from "./host.js";

/** op-node `store.TopicScores`. */
interface TopicScoresJson {
  timeInMesh: number;
  firstMessageDeliveries: number;
  meshMessageDeliveries: number;
  invalidMessageDeliveries: number;
}

/** op-node `store.PeerScores`. */
interface PeerScoresJson {
  gossip: { total: number; blocks: TopicScoresJson; IPColocationFactor: number; behavioralPenalty: number };
  reqResp: ReqRespScores;
}

/** op-node `PeerInfo`. */
export interface PeerInfoJson {
  peerID: string;
  nodeID: string;
  userAgent: string;
  protocolVersion: string;
  ENR: string;
  addresses: string[];
  protocols: string[];
  connectedness: number;
  direction: number;
  protected: boolean;
  chainID: number;
  latency: number;
  gossipBlocks: boolean;
  scores: PeerScoresJson;
}

/** op-node `PeerDump`. */
export interface PeerDumpJson {
  totalConnected: number;
  peers: Record<string, PeerInfoJson>;
  bannedPeers: string[];
  bannedIPS: string[];
  bannedSubnets: { IP: string; Mask: string }[];
}

/** op-node `PeerStats`. */
export interface PeerStatsJson {
  connected: number;
  table: number;
  blocksTopic: number;
  blocksTopicV2: number;
  blocksTopicV3: number;
  blocksTopicV4: number;
  banned: number;
  known: number;
}

/** go-ethereum's v4 node id of a peer: keccak256 of its uncompressed public key; "" when the id carries no secp256k1 key. */
export function nodeIdOf(peer: PeerId): string {
  const pub = peer.publicKey;
  if (pub === undefined || pub.type !== "secp256k1") return "";
  const xy = secp256k1.Point.fromBytes(pub.raw).toBytes(false).subarray(1);
  return toHex(keccak256(xy));
}

/** A subnet as Go's `net.IPNet` marshals to JSON: the IP and the mask bytes in base64. */
export function subnetJson(s: Subnet): { IP: string; Mask: string } {
  const v4 = !s.ip.includes(":");
  const bytes = new Uint8Array(v4 ? 4 : 16);
  for (let i = 0; i < s.prefix; i++) bytes[i >> 3]! |= 0x80 >> (i & 7);
  return { IP: s.ip, Mask: Buffer.from(bytes).toString("base64") };
}

const DECODER = new TextDecoder();

/** What {@link dumpPeer} reads besides the host. */
export interface PeerContext {
  host: P2PHost;
  pubsub: GossipSub;
  blocksTopics: readonly string[];
  topicPeers: Set<string>;
  reqResp: (peer: string) => ReqRespScores;
  isProtected: (peer: string) => boolean;
  discovered: (peer: string) => { enr: string; chainId: bigint } | undefined;
}

/** op-node's `dumpPeer`. */
export async function dumpPeer(id: string, c: PeerContext): Promise<PeerInfoJson> {
  const peerId = peerIdFromString(id);
  let userAgent = "";
  let protocolVersion = "";
  let addresses: string[] = [];
  let protocols: string[] = [];
  try {
    const p = await c.host.peerStore.get(peerId);
    const agent = p.metadata.get("AgentVersion");
    const proto = p.metadata.get("ProtocolVersion");
    if (agent !== undefined) userAgent = DECODER.decode(agent);
    if (proto !== undefined) protocolVersion = DECODER.decode(proto);
    addresses = p.addresses.map((a) => `${a.multiaddr.toString()}/p2p/${id}`);
    protocols = [...p.protocols];
  } catch {
    // not in the peer store (e.g. a blocked peer never seen)
  }
  const conns = c.host.getConnections(peerId);
  const stats = c.pubsub.dumpPeerScoreStats()[id];
  const blocks: TopicScoresJson = { timeInMesh: 0, firstMessageDeliveries: 0, meshMessageDeliveries: 0, invalidMessageDeliveries: 0 };
  for (const t of c.blocksTopics) {
    const ts = stats?.topics[t];
    if (ts === undefined) continue;
    blocks.timeInMesh += ts.inMesh ? ts.meshTime / 1000 : 0;
    blocks.firstMessageDeliveries += ts.firstMessageDeliveries;
    blocks.meshMessageDeliveries += ts.meshMessageDeliveries;
    blocks.invalidMessageDeliveries += ts.invalidMessageDeliveries;
  }
  const disc = c.discovered(id);
  return {
    peerID: id,
    nodeID: nodeIdOf(peerId),
    userAgent,
    protocolVersion,
    ENR: disc?.enr ?? "",
    addresses,
    protocols,
    connectedness: conns.length > 0 ? 1 : 0,
    direction: conns.length === 0 ? 0 : conns[0]!.direction === "inbound" ? 1 : 2,
    protected: c.isProtected(id),
    chainID: disc === undefined ? 0 : Number(disc.chainId),
    latency: 0,
    gossipBlocks: c.topicPeers.has(id),
    scores: {
      gossip: { total: c.pubsub.getScore(id), blocks, IPColocationFactor: 0, behavioralPenalty: stats?.behaviourPenalty ?? 0 },
      reqResp: c.reqResp(id),
    },
  };
}
