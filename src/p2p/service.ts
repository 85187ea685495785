/**
 * The consensus-layer P2P on the main thread's side: runs the P2P worker (`workers/p2p.ts`) on the
 * worker host (`util/workerHost.ts`), hands accepted gossip blocks to listeners, publishes the
 * sequencer's blocks, answers the worker's payload requests from the payload source the node
 * sets, and forwards the `opp2p_*` calls and payload fetches (host requests, failing after a
 * timeout; the worker's errors come back as their classes). Events, notes and requests are in
 * `cl/protocol.ts`; the worker's metrics reach `/metrics` through the host's scrape. The host
 * restarts a crashed worker on the same ports with the same identity; calls made while it is
 * down fail at once with P2P_UNAVAILABLE.
 */
import type { Logger } from "pino";
import type { OpForkSchedule } from "../chain/op/forks.js";
import type { LogFormat, LogLevel } from "../config/options.js";
import { WorkerHost, WorkerHostError, WorkerHostErrorCode } from "../util/workerHost.js";
import { P2P_WORKER_RESTART, P2P_WORKER_STOP_GRACE_MS, P2P_WORKER_CALL_TIMEOUT_MS } from "./constants.js";
import { P2PError, P2PErrorCode } from "./errors.js";
import type { BlocksVersion } from "./gossip/topics.js";
import { ResultCode } from "./cl/payloadByNumber.js";
import type { P2PCall, P2PEvents, P2PNodeSettings, P2PNotes, P2PWorkerData, SelfWire, StatSample } from "./cl/protocol.js";
import { p2pWorkerRestarts, registerP2PMetrics } from "./metrics.js";

/** A block accepted from gossip (its signature, timestamp window, fields and hash were checked in the worker). */
export interface GossipBlock {
  version: BlocksVersion;
  /** The signed bytes: SSZ payload (v1, v2) or parent beacon block root ‖ payload (v3, v4); decode with `decodeSignedBytes`. */
  payloadBytes: Uint8Array;
  /** Peer id it came from. */
  from: string;
  receivedAtMs: number;
}

/** A payload fetched with payload_by_number (number and hash checked; not its place in the chain). */
interface FetchedPayload {
  version: BlocksVersion;
  payloadBytes: Uint8Array;
  peer: string;
}

/** What the node serves to payload_by_number: a block's payload, or undefined when it does not have it. */
type PayloadSource = (n: bigint) => Promise<{ version: BlocksVersion; payloadBytes: Uint8Array } | undefined>;

/** Options of a {@link P2PService}: the node's settings and its chain. */
export interface P2PServiceOptions extends P2PNodeSettings {
  /** L2 chain id. */
  chainId: bigint;
  /** OP fork times (a RollupConfig or the chain's OpChainConfig fits). */
  rollup: OpForkSchedule;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/** The node's own identity and bound ports (`self()`). */
export type P2PSelf = SelfWire;

/** See the module comment. */
export class P2PService {
  private readonly host: WorkerHost;
  private readonly log: Logger;
  private readonly listeners = new Set<(b: GossipBlock) => void>();
  private source: PayloadSource | undefined;
  private signer: Uint8Array | undefined;
  private lastSelf: P2PSelf | undefined;

  constructor(
    private readonly opts: P2PServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "p2p" });
    this.signer = opts.signer;
    registerP2PMetrics();
    this.host = new WorkerHost({
      entry: "p2p",
      subsystem: "p2p",
      log: this.log,
      // Asked at each spawn: a restarted worker keeps the ports the first one bound and the current signer.
      workerData: () => ({ ...this.workerData() }),
      stopGraceMs: P2P_WORKER_STOP_GRACE_MS,
      requestTimeoutMs: P2P_WORKER_CALL_TIMEOUT_MS,
      restart: P2P_WORKER_RESTART,
      restartsCounter: p2pWorkerRestarts(),
      errors: [P2PError],
      onEvent: (name, payload) => this.onEvent(name as keyof P2PEvents, payload),
    });
  }

  /** Starts the worker; resolves once libp2p (and discovery) listen, rejects with why they cannot (P2PError P2P_INVALID_CONFIG). */
  async start(): Promise<P2PSelf> {
    await this.host.start();
    return this.self();
  }

  /** The node's peer id, addresses, ENR and bound ports (after {@link start}). */
  self(): P2PSelf {
    if (this.lastSelf === undefined) throw new P2PError({ code: P2PErrorCode.UNAVAILABLE }, "consensus P2P has not started");
    return this.lastSelf;
  }

  /** Calls `listener` with every block accepted from gossip; returns the unsubscribe function. */
  onBlock(listener: (b: GossipBlock) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sets what payload_by_number requests are answered from (not set: every request answers "not found"). */
  setPayloadSource(fn: PayloadSource): void {
    this.source = fn;
  }

  /** Signs `payloadBytes` with the sequencer key and publishes it on the `version` blocks topic; resolves with the peers it went to. */
  publish(version: BlocksVersion, payloadBytes: Uint8Array): Promise<number> {
    return this.call("publish", [version, payloadBytes]) as Promise<number>;
  }

  /** Changes the address gossiped blocks must be signed by (20 bytes). */
  setSigner(address: Uint8Array): void {
    this.signer = address;
    this.send("signer", { address });
  }

  /** Fetches block `n` from peers with payload_by_number (checked: number and block hash). */
  fetchPayloadByNumber(n: bigint): Promise<FetchedPayload> {
    return this.call("fetchPayload", [n.toString()]) as Promise<FetchedPayload>;
  }

  /**
   * Runs one of op-node's `opp2p_*` operations in the worker (`method` without the prefix:
   * "self", "peers", "peerStats", "discoveryTable", "blockPeer", …); resolves with its JSON.
   */
  call(method: string, params: unknown[] = []): Promise<unknown> {
    const call: P2PCall = { method, params };
    return this.request(method, "call", call);
  }

  /** A host request, its host failures as P2PError (P2P_TIMEOUT, P2P_UNAVAILABLE). */
  private async request(what: string, method: "call" | "samples", params?: unknown): Promise<unknown> {
    try {
      return await this.host.request(method, params);
    } catch (e) {
      if (!(e instanceof WorkerHostError)) throw e;
      if (e.type.code === WorkerHostErrorCode.TIMEOUT) throw new P2PError({ code: P2PErrorCode.TIMEOUT, what, timeoutMs: e.type.timeoutMs }, `P2P ${what} did not answer within ${e.type.timeoutMs} ms`);
      throw new P2PError({ code: P2PErrorCode.UNAVAILABLE }, "consensus P2P is not running");
    }
  }

  /** The worker's counters and gauges now, as samples (tests, diagnostics; `/metrics` scrapes the worker's registry). */
  async stats(): Promise<StatSample[]> {
    return (await this.request("samples", "samples")) as StatSample[];
  }

  /** Whether the worker runs and has started. */
  get running(): boolean {
    return this.host.running;
  }

  private send<K extends keyof P2PNotes>(name: K, payload: P2PNotes[K]): void {
    this.host.notify(name, payload);
  }

  private workerData(): P2PWorkerData {
    const o = this.opts;
    const { chainId, rollup, ...settings } = o;
    return {
      ...settings,
      chainId: chainId.toString(),
      signer: this.signer,
      tcpPort: this.lastSelf?.tcpPort ?? o.tcpPort,
      udpPort: this.lastSelf?.udpPort ?? o.udpPort,
      forkTimes: Object.fromEntries(Object.entries(rollup.forkTimes).flatMap(([k, v]) => (v === undefined ? [] : [[k, v.toString()]]))),
    };
  }

  private onEvent(name: keyof P2PEvents, payload: unknown): void {
    switch (name) {
      case "started":
        this.lastSelf = payload as SelfWire;
        return;
      case "block": {
        const m = payload as P2PEvents["block"];
        const b: GossipBlock = { version: m.version, payloadBytes: m.payloadBytes, from: m.from, receivedAtMs: m.receivedAtMs };
        for (const l of this.listeners) {
          try {
            l(b);
          } catch (e) {
            this.log.error({ err: e }, "gossip block listener failed");
          }
        }
        return;
      }
      case "payloadRequest": {
        const m = payload as P2PEvents["payloadRequest"];
        void this.answerPayload(m.id, BigInt(m.number));
        return;
      }
    }
  }

  private async answerPayload(id: number, n: bigint): Promise<void> {
    try {
      const r = this.source === undefined ? undefined : await this.source(n);
      if (r === undefined) this.send("payloadResponse", { id, result: ResultCode.notFound });
      else this.send("payloadResponse", { id, version: r.version, payloadBytes: r.payloadBytes });
    } catch (e) {
      this.log.warn({ err: e, number: n.toString() }, "payload source failed");
      this.send("payloadResponse", { id, result: ResultCode.unknownError });
    }
  }

  /** Stops the worker (libp2p and discovery close their sockets). */
  async stop(): Promise<void> {
    await this.host.stop();
  }
}
