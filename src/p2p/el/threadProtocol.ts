/**
 * What the devp2p worker (`workers/devp2p.ts`) and the main thread (`service.ts`) exchange
 * through the worker host (`util/workerHost.ts`): plain values (bigints as decimal strings,
 * hashes and transactions as bytes). The worker owns the sockets and serves blocks from the
 * store; the main thread owns the transaction pool, so transactions go up (event `txs`) and pool
 * lookups for peers' GetPooledTransactions go through it (event `getTxs` → note `txsReply`).
 * Peer operations (admin_addPeer, admin_removePeer) are requests ({@link DevP2PRequests}).
 */

/** The network settings of the options (`--port`, `--discovery.*`, `--bootnodes`, …), as the worker takes them. */
export interface DevP2PSettings {
  clientId: string;
  addr: string;
  port: number;
  /** UDP listen address of both discovery protocols (`--discovery.addr`). */
  discoveryAddr: string;
  /** Discovery v4 (`--discovery.port`): on for plain Ethereum chains, on OP chains only with `--rollup.discovery.v4`. */
  discv4: boolean;
  discoveryPort: number;
  /** Discovery v5 under `discv5ProtocolId` (`--discovery.v5.port`): on OP chains, Base's execution network. */
  discv5: boolean;
  discv5Port: number;
  discv5ProtocolId: string;
  /** Address announced in enode URLs and discovery pings (`--nat extip:`), else the listen address. */
  externalIp: string | undefined;
  /** Enode URLs discovery v4 starts from. */
  discv4Bootnodes: string[];
  /** Enode URLs or `enr:` records discovery v5 starts from. */
  discv5Bootnodes: string[];
  trustedPeers: string[];
  maxInbound: number;
  maxOutbound: number;
  txGossip: boolean;
  /** Transaction types the pool takes (announcements of other types are not fetched). */
  poolTxTypes: number[];
  datadir: string;
  logLevel: string;
  logFormat: string;
}

/** What the worker needs to start (its `workerData`, all strings and numbers): the settings and the chain's identity. */
export interface DevP2PWorkerData extends DevP2PSettings {
  privateKeyHex: string;
  chainId: string;
  genesisHash: string;
  genesisTime: string;
  blockForks: string[];
  timeForks: string[];
  /** OP chains: Regolith and Canyon times, between which receipts roots leave deposit nonces out (for checking peers' receipts). */
  depositNonceRoot: { regolith: string | null; canyon: string | null };
}

/** A connected peer as admin_peers shows it. */
export interface PeerWire {
  id: string;
  enode: string;
  name: string;
  caps: string[];
  remoteAddress: string;
  localAddress: string;
  inbound: boolean;
  trusted: boolean;
  static: boolean;
  version: number;
}

/** Where the node listens, as the worker bound it. */
export interface ListenWire {
  enode: string;
  /** The discv5 node record (`enr:…`) when discv5 runs. */
  enr: string | undefined;
  id: string;
  ip: string;
  listenAddr: string;
  /** `discovery`: the discv4 UDP port, or the discv5 one when only discv5 runs (0 without discovery). */
  ports: { discovery: number; listener: number };
  /** The discv5 UDP port (0 when discv5 is off). */
  discv5Port: number;
}

/** What the worker reports every P2P_EL_STATUS_INTERVAL_MS (admin_peers, net_peerCount, admin_nodeInfo, net_listening). */
export interface DevP2PStatusWire {
  peers: PeerWire[];
  listening: boolean;
  head: { number: string; hash: Uint8Array };
  enr: string | undefined;
}

/** Worker → main events, by name. */
export interface DevP2PEvents {
  /** Where the worker's node listens (sent once it does, before the host's ready handshake). */
  listening: ListenWire;
  status: DevP2PStatusWire;
  /** Raw transactions peers sent, for the main thread's pool. */
  txs: { raw: Uint8Array[] };
  /** A peer's GetPooledTransactions: the pool's raw transactions of these hashes, answered by a `txsReply` note of the same id. */
  getTxs: { id: number; hashes: Uint8Array[] };
}

/** Main → worker notes, by name. */
export interface DevP2PNotes {
  /** New pool transactions to announce (with `--txpool.gossip`). */
  announce: { hashes: Uint8Array[]; types: number[]; sizes: number[] };
  txsReply: { id: number; raw: Uint8Array[] };
}

/** Main → worker requests, by method: parameter and answer. */
export interface DevP2PRequests {
  /** Adds a static peer (answers true). */
  addPeer: { params: string; result: boolean };
  /** Removes a peer (answers whether it was known). */
  removePeer: { params: string; result: boolean };
}
