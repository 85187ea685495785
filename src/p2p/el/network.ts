/**
 * The execution-layer network as the JSON-RPC sees it (admin_nodeInfo, admin_peers,
 * admin_addPeer, admin_removePeer, net_peerCount, net_listening), in reth's JSON shapes.
 */

/** admin_nodeInfo (reth `NodeInfo`). */
export interface NodeInfoJson {
  id: string;
  name: string;
  enode: string;
  /** The node's discv5 record (`enr:…`, with its `opel` fork id and `base` entry), when discv5 runs. */
  enr?: string;
  ip: string;
  ports: { discovery: number; listener: number };
  listenAddr: string;
  protocols: { eth: { network: number; difficulty: number; genesis: string; config: Record<string, unknown>; head: string } };
}

/** One entry of admin_peers (reth / geth `PeerInfo`). */
export interface PeerInfoJson {
  id: string;
  name: string;
  enode: string;
  caps: string[];
  network: { localAddress: string; remoteAddress: string; inbound: boolean; trusted: boolean; static: boolean };
  protocols: { eth: { version: number } };
}

/** What the RPC methods need of the execution-layer network. */
export interface ElNetwork {
  /** admin_nodeInfo. */
  nodeInfo(): NodeInfoJson | undefined;
  /** admin_peers. */
  peers(): PeerInfoJson[];
  /** net_peerCount: peers with an eth session. */
  peerCount(): number;
  /** net_listening: whether RLPx accepts connections. */
  listening(): boolean;
  /** admin_addPeer: dial an enode and keep it as a static peer. */
  addPeer(enode: string): Promise<boolean>;
  /** admin_removePeer: forget a static peer and disconnect it. */
  removePeer(enode: string): Promise<boolean>;
}
