/**
 * The `opp2p_*` methods of the consensus-side RPC, as op-node serves them (op-node/p2p/rpc_api.go,
 * rpc_server.go; namespace "opp2p"): `self`, `peers(connected)`, `peerStats`, `discoveryTable`,
 * `blockPeer`/`unblockPeer`/`listBlockedPeers`, `blockAddr`/`unblockAddr`/`listBlockedAddrs`,
 * `blockSubnet`/`unblockSubnet`/`listBlockedSubnets`, `protectPeer`/`unprotectPeer`,
 * `connectPeer(multiaddr)` and `disconnectPeer(id)`. The P2P worker builds each answer in op-node's
 * JSON shape (`src/p2p/cl/peerInfo.ts`); the operations answer null.
 */
import type { P2PService } from "../p2p/service.js";
import { InvalidParamsError } from "../rpc/errors.js";
import { maxParams, parseBool, required } from "../rpc/params.js";
import type { MethodTable } from "../rpc/types.js";

/** A string parameter at `index`. */
function stringParam(params: unknown[], index: number, what: string): string {
  const v = required(params, index);
  if (typeof v !== "string") throw new InvalidParamsError(`invalid argument ${index}: expected ${what} as a string`);
  return v;
}

/**
 * The `opp2p_*` handlers over a running {@link P2PService} (mount them on the rollup server).
 * @param p2p the consensus P2P service
 */
export function p2pMethods(p2p: P2PService): MethodTable {
  const none = (method: string) => (params: unknown[]) => {
    maxParams(params, 0);
    return p2p.call(method);
  };
  const withString = (method: string, what: string) => (params: unknown[]) => {
    maxParams(params, 1);
    return p2p.call(method, [stringParam(params, 0, what)]);
  };
  return {
    /** opp2p_self(): this node's PeerInfo (ENR, addresses, protocols, scores). */
    opp2p_self: none("self"),
    /** opp2p_peers(connected: bool): PeerDump of connected peers, or of every peer in the peer store. */
    opp2p_peers: (params) => {
      maxParams(params, 1);
      return p2p.call("peers", [parseBool(required(params, 0), 0)]);
    },
    /** opp2p_peerStats(): PeerStats (connected, table, peers per blocks topic, banned, known). */
    opp2p_peerStats: none("peerStats"),
    /** opp2p_discoveryTable(): the ENRs in the discv5 table. */
    opp2p_discoveryTable: none("discoveryTable"),
    /** opp2p_blockPeer(peerID): refuse the peer's connections until unblocked. */
    opp2p_blockPeer: withString("blockPeer", "a peer ID"),
    /** opp2p_unblockPeer(peerID). */
    opp2p_unblockPeer: withString("unblockPeer", "a peer ID"),
    /** opp2p_listBlockedPeers(): blocked and score-banned peer IDs. */
    opp2p_listBlockedPeers: none("listBlockedPeers"),
    /** opp2p_blockAddr(ip): refuse connections from and dials to the IP (open connections stay, as op-node). */
    opp2p_blockAddr: withString("blockAddr", "an IP address"),
    /** opp2p_unblockAddr(ip). */
    opp2p_unblockAddr: withString("unblockAddr", "an IP address"),
    /** opp2p_listBlockedAddrs(). */
    opp2p_listBlockedAddrs: none("listBlockedAddrs"),
    /** opp2p_blockSubnet(cidr). */
    opp2p_blockSubnet: withString("blockSubnet", "a CIDR subnet"),
    /** opp2p_unblockSubnet(cidr). */
    opp2p_unblockSubnet: withString("unblockSubnet", "a CIDR subnet"),
    /** opp2p_listBlockedSubnets(): subnets as Go's net.IPNet JSON ({IP, Mask}). */
    opp2p_listBlockedSubnets: none("listBlockedSubnets"),
    /** opp2p_protectPeer(peerID): never pruned, never score-banned. */
    opp2p_protectPeer: withString("protectPeer", "a peer ID"),
    /** opp2p_unprotectPeer(peerID). */
    opp2p_unprotectPeer: withString("unprotectPeer", "a peer ID"),
    /** opp2p_connectPeer(multiaddr): dial /ip4/…/tcp/…/p2p/<id> (30 s limit). */
    opp2p_connectPeer: withString("connectPeer", "a multiaddr"),
    /** opp2p_disconnectPeer(peerID): close every connection to the peer. */
    opp2p_disconnectPeer: withString("disconnectPeer", "a peer ID"),
  };
}
