/**
 * Node discovery v4 (UDP) through @ethereumjs/devp2p's DPT: pings the bootnodes, walks the
 * Kademlia table with FindNode, answers other nodes, and reports every node that answered so the
 * RLPx side can dial it. Packets that fail the library's checks (hash, signature recovery, RLP,
 * unknown type, truncated) are dropped by the library; each one is counted here as
 * `dropped:discv4Invalid`, and bytes in and out are counted on the UDP socket.
 */
import { DPT, type PeerInfo } from "@ethereumjs/devp2p";
import { createSocket, type Socket } from "node:dgram";
import type { Logger } from "pino";
import type { Counters } from "../../util/counters.js";
import type { Enode } from "./enode.js";

/** Options of a {@link Discovery}. */
interface DiscoveryOptions {
  /** The endpoint announced in pings: the address others reach this node at and the RLPx TCP port. */
  announce: { address: string; tcpPort: number };
  counters: Counters;
  log: Logger;
  /** A node answered a ping: a dial candidate. */
  onNode(node: Enode): void;
}

/** See the module comment. */
export class Discovery {
  private readonly dpt: DPT;
  private socket: Socket | undefined;
  private readonly endpoint: { address: string; udpPort: number | null; tcpPort: number | null };

  constructor(privateKey: Uint8Array, opts: DiscoveryOptions) {
    this.endpoint = { address: opts.announce.address, udpPort: null, tcpPort: opts.announce.tcpPort };
    this.dpt = new DPT(privateKey, {
      endpoint: this.endpoint,
      shouldFindNeighbours: true,
      createSocket: () => {
        const s = createSocket({ type: "udp4" });
        s.on("message", (msg: Buffer) => opts.counters.inc("bytes:in", msg.length));
        const send = s.send.bind(s) as (msg: Uint8Array, offset: number, length: number, port: number, address: string) => void;
        (s as unknown as { send: typeof send }).send = (msg, offset, length, port, address) => {
          opts.counters.inc("bytes:out", length);
          send(msg, offset, length, port, address);
        };
        this.socket = s;
        return s;
      },
    });
    // The library reports packets its handler refused (and socket errors) on its server's events.
    const server = (this.dpt as unknown as { _server: { events: { on(e: "error", l: (e: Error) => void): void } } })._server;
    server.events.on("error", (e) => {
      opts.counters.inc("dropped:discv4Invalid");
      opts.log.debug({ err: e }, "discv4 packet dropped");
    });
    this.dpt.events.on("error", (e: Error) => opts.log.debug({ err: e }, "discv4"));
    this.dpt.events.on("peer:new", (p: PeerInfo) => {
      if (p.id === undefined || p.address === undefined || typeof p.tcpPort !== "number" || typeof p.udpPort !== "number") return;
      opts.onNode({ id: p.id, address: p.address, tcpPort: p.tcpPort, udpPort: p.udpPort });
    });
  }

  /** Binds the UDP socket (port 0 = any free port); resolves with the bound port. */
  bind(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const s = this.socket!;
      s.once("error", reject);
      s.once("listening", () => {
        s.off("error", reject);
        const bound = s.address().port;
        this.endpoint.udpPort = bound;
        resolve(bound);
      });
      this.dpt.bind(port, host);
    });
  }

  /** Pings the bootnodes and asks them for neighbours (failures are logged at debug). */
  bootstrap(nodes: readonly Enode[]): void {
    for (const n of nodes) void this.dpt.bootstrap({ id: n.id, address: n.address, udpPort: n.udpPort, tcpPort: n.tcpPort });
  }

  /** Nodes in the Kademlia table. */
  size(): number {
    return this.dpt.numPeers();
  }

  /** Closes the UDP socket and stops the table refresh. */
  stop(): void {
    this.dpt.destroy();
  }
}
