/**
 * What the P2P worker (`workers/p2p.ts`) and the main thread (`src/p2p/service.ts`) exchange
 * through the worker host (`util/workerHost.ts`): plain values (bytes stay bytes, numbers beyond
 * 2^53 are decimal strings). The worker reports accepted gossip blocks and asks for payloads it
 * serves (events, {@link P2PEvents}); the main thread changes the signer and answers payload
 * requests (notes, {@link P2PNotes}) and makes calls (the `opp2p_*` RPC, publish, fetches: the
 * request "call", answered once, errors rebuilt by the host's registry).
 */
import type { BlocksVersion } from "../gossip/topics.js";

/** The node's settings, the same on both sides of the thread boundary (strings, numbers, bytes). */
export interface P2PNodeSettings {
  /** L2 block time in seconds (the scoring slot; op-node's 2 s when absent). */
  blockTimeS?: number;
  /** The 32-byte secp256k1 node key. */
  nodeKey: Uint8Array;
  /** The 32-byte sequencer key blocks are signed with when published. */
  sequencerKey?: Uint8Array;
  /** The 20-byte address gossiped blocks must be signed by (none: every block is ignored, as op-node). */
  signer?: Uint8Array;
  listenIp: string;
  /** 0 = any free port. */
  tcpPort: number;
  /** 0 = the TCP port when that was given, else any free port. */
  udpPort: number;
  /** IP put in the ENR and announced (default: the listen IP, 127.0.0.1 for 0.0.0.0). */
  advertiseIp?: string;
  /** ENR texts (`enr:…`) or enode URLs. */
  bootnodes: string[];
  /** Multiaddrs with /p2p/<id>. */
  staticPeers: string[];
  noDiscovery: boolean;
  peersLo: number;
  peersHi: number;
  banPeers: boolean;
  banThreshold: number;
  banDurationS: number;
  userAgent: string;
}

/** What the main thread gives the worker (workerData). */
export interface P2PWorkerData extends P2PNodeSettings {
  /** L2 chain id, decimal. */
  chainId: string;
  /** OP fork times by fork name, decimal seconds (the gossip validator needs Jovian's). */
  forkTimes: Record<string, string>;
  logLevel: string;
  logFormat: string;
}

/** The node's own identity and bound ports. */
export interface SelfWire {
  peerId: string;
  /** discv5 node id, 64 hex characters without 0x (as op-node's JSON prints it). */
  nodeId: string;
  /** `enr:…`, "" with discovery off. */
  enr: string;
  /** Multiaddrs the host listens on, with /p2p/<id>. */
  addresses: string[];
  tcpPort: number;
  /** 0 with discovery off. */
  udpPort: number;
}

/** A counter or gauge sample of the worker's tally (read by its own collectors, `metrics.ts`, and by `P2PService.stats()`). */
export interface StatSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Worker → main events, by name. */
export interface P2PEvents {
  /** The node listens (sent once it does, before the host's ready handshake). */
  started: SelfWire;
  /** A block accepted from gossip. */
  block: { version: BlocksVersion; payloadBytes: Uint8Array; from: string; receivedAtMs: number };
  /** A peer's payload_by_number: answered by a `payloadResponse` note of the same id. */
  payloadRequest: { id: number; number: string };
}

/** Main → worker notes, by name. */
export interface P2PNotes {
  signer: { address: Uint8Array };
  payloadResponse: { id: number; version?: BlocksVersion; payloadBytes?: Uint8Array; result?: number };
}

/** The parameters of the worker's one request, "call" (answered with the operation's JSON, `null` for none). */
export interface P2PCall {
  method: string;
  params: unknown[];
}
