/**
 * The execution-layer network on the main thread's side: spawns the devp2p worker
 * (`workers/devp2p.ts`), which owns the sockets and serves peers from the store, keeps its last
 * status (peers, counters) for the RPC and the metrics, hands the transactions peers send to the
 * listeners of {@link DevP2PService.onTransactions} (the node adds them to its pool), answers the
 * worker's pool lookups through {@link DevP2PService.onPoolLookup}, and forwards pool
 * announcements ({@link DevP2PService.announce}, with `--txpool.gossip`). A crashed worker is
 * reported and started again.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import { P2P_EL_WORKER_RESTART_DELAY_MS } from "../../config/constants.js";
import type { LogFormat, LogLevel } from "../../config/options.js";
import { to0x } from "../../util/bytes.js";
import { workerUrl } from "../../util/workerUrl.js";
import { DevP2PStartError } from "./errors.js";
import { chainForkActivations } from "./forkSchedule.js";
import { bindDevP2PMetrics } from "./metrics.js";
import type { ElNetwork, NodeInfoJson, PeerInfoJson } from "./network.js";
import { loadOrCreateNodeKey } from "./nodeKey.js";
import { decodeThreadMessage, encodeThreadMessage, type DevP2PMainMessage, type DevP2PSettings, type DevP2PWorkerData, type DevP2PWorkerMessage, type ListenWire, type PeerWire } from "./threadProtocol.js";

/** Options of a {@link DevP2PService} (from `--port`, `--discovery.*`, `--bootnodes`, …). */
export interface DevP2PServiceOptions extends DevP2PSettings {
  /** Path of the node key file (created when absent). */
  secretKeyPath: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

type StatusMessage = Extract<DevP2PWorkerMessage, { type: "status" }>;

/** See the module comment. */
export class DevP2PService implements ElNetwork {
  private worker: Worker | undefined;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly log: Logger;
  private readonly data: DevP2PWorkerData;
  private listen: ListenWire | undefined;
  private last: StatusMessage | undefined;
  /** Counters of earlier (crashed) workers, so metrics stay monotonic across restarts. */
  private carried: Record<string, number> = {};
  private readonly txListeners = new Set<(raw: Uint8Array[]) => void>();
  private lookup: (hashes: Uint8Array[]) => Uint8Array[] = () => [];
  private nextOp = 1;
  private readonly ops = new Map<number, (ok: boolean, error?: string) => void>();

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
    bindDevP2PMetrics({
      counters: () => this.counters(),
      peerDirections: () => {
        const peers = this.last?.peers ?? [];
        const inbound = peers.filter((p) => p.inbound).length;
        return { inbound, outbound: peers.length - inbound };
      },
      discoveryNodes: () => {
        const n = this.last?.discoveryNodes ?? {};
        const out: { protocol: string; nodes: number }[] = [];
        if (opts.discv4) out.push({ protocol: "discv4", nodes: n.discv4 ?? 0 });
        if (opts.discv5) out.push({ protocol: `discv5-${opts.discv5ProtocolId}`, nodes: n.discv5 ?? 0 });
        return out;
      },
      ethVersions: () => {
        const out: Record<string, number> = {};
        for (const p of this.last?.peers ?? []) out[String(p.version)] = (out[String(p.version)] ?? 0) + 1;
        return out;
      },
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
    if (this.data.txGossip) this.send({ type: "announce", hashes, types, sizes });
  }

  /** The bound ports and enode, once started. */
  listenInfo(): ListenWire | undefined {
    return this.listen;
  }

  /** Every counter: the running worker's plus those of workers that crashed. */
  counters(): Record<string, number> {
    const out = { ...this.carried };
    for (const [k, v] of Object.entries(this.last?.counters ?? {})) out[k] = (out[k] ?? 0) + v;
    return out;
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
    return this.worker !== undefined && (this.last?.listening ?? this.listen !== undefined);
  }

  addPeer(enode: string): Promise<boolean> {
    return this.peerOp("addPeer", enode);
  }

  removePeer(enode: string): Promise<boolean> {
    return this.peerOp("removePeer", enode);
  }

  private peerOp(type: "addPeer" | "removePeer", enode: string): Promise<boolean> {
    if (this.worker === undefined) return Promise.resolve(false);
    const id = this.nextOp++;
    return new Promise((resolve, reject) => {
      this.ops.set(id, (ok, error) => (error === undefined ? resolve(ok) : reject(new DevP2PStartError(error))));
      this.send({ type, id, enode });
    });
  }

  private send(m: DevP2PMainMessage): void {
    this.worker?.postMessage(encodeThreadMessage(m));
  }

  /** Spawns the worker; resolves once RLPx (and discovery) listen. @throws DevP2PStartError with the reason (e.g. a port in use). */
  start(): Promise<void> {
    return this.spawn();
  }

  private spawn(): Promise<void> {
    const worker = new Worker(workerUrl("devp2p"), { workerData: this.data });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let started = false;
      worker.on("message", (bytes: Uint8Array) => {
        const m = decodeThreadMessage<DevP2PWorkerMessage>(bytes);
        switch (m.type) {
          case "ready":
            started = true;
            this.listen = m.listen;
            this.log.info({ enode: m.listen.enode, enr: m.listen.enr, tcp: m.listen.ports.listener, discv4: this.data.discv4 ? m.listen.ports.discovery : undefined, discv5: this.data.discv5 ? m.listen.discv5Port : undefined }, "execution-layer network listening");
            resolve();
            break;
          case "fatal":
            if (!started) reject(new DevP2PStartError(m.message));
            else this.log.error({ reason: m.message }, "devp2p worker failed");
            void worker.terminate();
            break;
          case "status":
            this.last = m;
            break;
          case "txs":
            for (const l of this.txListeners) l(m.raw);
            break;
          case "getTxs": {
            let raw: Uint8Array[] = [];
            try {
              raw = this.lookup(m.hashes);
            } catch (e) {
              this.log.warn({ err: e }, "pool lookup for a peer failed");
            }
            this.send({ type: "txsReply", id: m.id, raw });
            break;
          }
          case "peerOp": {
            const done = this.ops.get(m.id);
            this.ops.delete(m.id);
            done?.(m.ok, m.error);
            break;
          }
          case "stopped":
            break;
        }
      });
      worker.on("error", (e) => {
        this.log.error({ err: e }, "devp2p worker crashed");
        if (!started) reject(new DevP2PStartError(e.message));
      });
      worker.on("exit", (code) => {
        if (this.worker !== worker) return;
        this.worker = undefined;
        // Keep the crashed worker's counters; its peers are gone.
        this.carried = this.counters();
        this.last = undefined;
        for (const done of this.ops.values()) done(false);
        this.ops.clear();
        if (this.stopped || !started) return;
        this.log.error({ code }, "devp2p worker exited; restarting");
        this.restartTimer = setTimeout(() => {
          if (!this.stopped) this.spawn().catch((e: unknown) => this.log.error({ err: e }, "devp2p worker restart failed"));
        }, P2P_EL_WORKER_RESTART_DELAY_MS);
      });
    });
  }

  /** Disconnects every peer and stops the worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    bindDevP2PMetrics(undefined);
    const w = this.worker;
    if (w === undefined) return;
    await new Promise<void>((resolve) => {
      const done = setTimeout(() => void w.terminate().then(() => resolve()), 5_000);
      w.on("message", (bytes: Uint8Array) => {
        if (decodeThreadMessage<DevP2PWorkerMessage>(bytes).type === "stopped") {
          clearTimeout(done);
          void w.terminate().then(() => resolve());
        }
      });
      w.postMessage(encodeThreadMessage({ type: "stop" }));
    });
  }
}
