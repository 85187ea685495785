/**
 * The execution-layer network on the main thread's side: runs the devp2p worker
 * (`workers/devp2p.ts`) on the worker host (`util/workerHost.ts`); the worker owns the sockets,
 * serves peers from the store and keeps its metrics in its own registry (scraped by the host).
 * The service keeps the worker's last status (peers, head, ENR) for the RPC, hands the transactions peers send to the
 * listeners of {@link DevP2PService.onTransactions} (the node adds them to its pool), answers the
 * worker's pool lookups through {@link DevP2PService.onPoolLookup}, and forwards pool
 * announcements ({@link DevP2PService.announce}, with `--txpool.gossip`). The host restarts a
 * crashed worker.
 */
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import type { LogFormat, LogLevel } from "../../config/options.js";
import { to0x } from "../../util/bytes.js";
import { WorkerHost, WorkerHostError } from "../../util/workerHost.js";
import { P2P_WORKER_RESTART, P2P_WORKER_STOP_GRACE_MS } from "../constants.js";
import { DevP2PStartError } from "./errors.js";
import { chainForkActivations } from "./forkSchedule.js";
import type { ElNetwork, NodeInfoJson, PeerInfoJson } from "./network.js";
import { loadOrCreateNodeKey } from "./nodeKey.js";
import type { DevP2PEvents, DevP2PNotes, DevP2PRequests, DevP2PSettings, DevP2PStatusWire, DevP2PWorkerData, ListenWire, PeerWire } from "./threadProtocol.js";

/** Options of a {@link DevP2PService} (from `--port`, `--discovery.*`, `--bootnodes`, …). */
export interface DevP2PServiceOptions extends DevP2PSettings {
  /** Path of the node key file (created when absent). */
  secretKeyPath: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/** See the module comment. */
export class DevP2PService implements ElNetwork {
  private readonly host: WorkerHost;
  private readonly log: Logger;
  private readonly data: DevP2PWorkerData;
  private listen: ListenWire | undefined;
  private last: DevP2PStatusWire | undefined;
  private readonly txListeners = new Set<(raw: Uint8Array[]) => void>();
  private lookup: (hashes: Uint8Array[]) => Uint8Array[] = () => [];

  constructor(
    private readonly chain: Chain,
    opts: DevP2PServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "p2p", protocol: "devp2p" });
    const key = loadOrCreateNodeKey(opts.secretKeyPath);
    const { blocks, times } = chainForkActivations(chain);
    const genesis = chain.getHeaderByHash(chain.genesisHash);
    const { secretKeyPath: _path, ...settings } = opts;
    this.data = {
      ...settings,
      privateKeyHex: Buffer.from(key).toString("hex"),
      chainId: chain.chainId.toString(),
      genesisHash: to0x(chain.genesisHash),
      genesisTime: (genesis?.timestamp ?? 0n).toString(),
      blockForks: blocks.map(String),
      timeForks: times.map(String),
      depositNonceRoot: { regolith: chain.op?.forkTimes.regolith?.toString() ?? null, canyon: chain.op?.forkTimes.canyon?.toString() ?? null },
    };
    this.host = new WorkerHost({
      entry: "devp2p",
      subsystem: "p2p",
      log: this.log,
      workerData: { ...this.data },
      stopGraceMs: P2P_WORKER_STOP_GRACE_MS,
      restart: P2P_WORKER_RESTART,
      // basalt_p2p_worker_restarts_total is the consensus P2P worker's (no labels); the devp2p worker's restarts are logged.
      restartsCounter: { inc: () => undefined },
      errors: [DevP2PStartError],
      onEvent: (name, payload) => this.onEvent(name as keyof DevP2PEvents, payload),
      // Its peers are gone with it.
      onExit: () => (this.last = undefined),
    });
  }

  /** Listens for the raw transactions peers send (the node adds them to its pool); returns the unsubscribe function. */
  onTransactions(listener: (raw: Uint8Array[]) => void): () => void {
    this.txListeners.add(listener);
    return () => this.txListeners.delete(listener);
  }

  /** Sets how peers' GetPooledTransactions are answered: the raw pool transactions of the hashes the pool holds. */
  onPoolLookup(lookup: (hashes: Uint8Array[]) => Uint8Array[]): void {
    this.lookup = lookup;
  }

  /** Announces new pool transactions to peers (the worker sends them only with `--txpool.gossip`). */
  announce(hashes: Uint8Array[], types: number[], sizes: number[]): void {
    if (this.data.txGossip) this.send("announce", { hashes, types, sizes });
  }

  /** The bound ports and enode, once started. */
  listenInfo(): ListenWire | undefined {
    return this.listen;
  }

  nodeInfo(): NodeInfoJson | undefined {
    const l = this.listen;
    if (l === undefined) return undefined;
    const enr = this.last?.enr ?? l.enr;
    return {
      id: l.id,
      name: this.data.clientId,
      enode: l.enode,
      ...(enr === undefined ? {} : { enr }),
      ip: l.ip,
      ports: l.ports,
      listenAddr: l.listenAddr,
      protocols: {
        eth: {
          network: Number(this.chain.chainId),
          difficulty: 0,
          genesis: this.data.genesisHash,
          config: this.chain.genesis.config,
          head: to0x(this.last?.head.hash ?? this.chain.head.hash()),
        },
      },
    };
  }

  peers(): PeerInfoJson[] {
    return (this.last?.peers ?? []).map((p: PeerWire) => ({
      id: p.id,
      name: p.name,
      enode: p.enode,
      caps: p.caps,
      network: { localAddress: p.localAddress, remoteAddress: p.remoteAddress, inbound: p.inbound, trusted: p.trusted, static: p.static },
      protocols: { eth: { version: p.version } },
    }));
  }

  peerCount(): number {
    return this.last?.peers.length ?? 0;
  }

  listening(): boolean {
    return this.host.running && (this.last?.listening ?? this.listen !== undefined);
  }

  addPeer(enode: string): Promise<boolean> {
    return this.peerOp("addPeer", enode);
  }

  removePeer(enode: string): Promise<boolean> {
    return this.peerOp("removePeer", enode);
  }

  private async peerOp(method: keyof DevP2PRequests, enode: string): Promise<boolean> {
    try {
      return await this.host.request<boolean>(method, enode);
    } catch (e) {
      // No worker (not started, stopped, restarting): nothing to add a peer to.
      if (e instanceof WorkerHostError) return false;
      throw e;
    }
  }

  private send<K extends keyof DevP2PNotes>(name: K, payload: DevP2PNotes[K]): void {
    this.host.notify(name, payload);
  }

  private onEvent(name: keyof DevP2PEvents, payload: unknown): void {
    switch (name) {
      case "listening": {
        const l = (this.listen = payload as ListenWire);
        this.log.info({ enode: l.enode, enr: l.enr, tcp: l.ports.listener, discv4: this.data.discv4 ? l.ports.discovery : undefined, discv5: this.data.discv5 ? l.discv5Port : undefined }, "execution-layer network listening");
        return;
      }
      case "status":
        this.last = payload as DevP2PStatusWire;
        return;
      case "txs": {
        const { raw } = payload as DevP2PEvents["txs"];
        for (const l of this.txListeners) l(raw);
        return;
      }
      case "getTxs": {
        const m = payload as DevP2PEvents["getTxs"];
        let raw: Uint8Array[] = [];
        try {
          raw = this.lookup(m.hashes);
        } catch (e) {
          this.log.warn({ err: e }, "pool lookup for a peer failed");
        }
        this.send("txsReply", { id: m.id, raw });
        return;
      }
    }
  }

  /** Starts the worker; resolves once RLPx (and discovery) listen. @throws DevP2PStartError with the reason (e.g. a port in use). */
  async start(): Promise<void> {
    try {
      await this.host.start();
    } catch (e) {
      throw e instanceof DevP2PStartError ? e : new DevP2PStartError((e as Error).message);
    }
  }

  /** Disconnects every peer and stops the worker (it closes its store). */
  async stop(): Promise<void> {
    await this.host.stop();
  }
}
