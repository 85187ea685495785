/**
 * The consensus-layer P2P on the main thread's side: spawns the P2P worker (`workers/p2p.ts`),
 * hands accepted gossip blocks to listeners, publishes the sequencer's blocks, answers the worker's
 * payload requests from the payload source the node sets, and forwards the `opp2p_*` calls and
 * payload fetches (each a message with an id, answered once, failing after a timeout). Only msgpack
 * bytes cross the thread boundary (`cl/protocol.ts`). A crashed worker is restarted after a delay,
 * as the derivation worker is; calls made while it is down fail at once.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "pino";
import type { OpForkSchedule } from "../chain/op/forks.js";
import { P2P_WORKER_CALL_TIMEOUT_MS, P2P_WORKER_RESTART_DELAY_MS } from "../config/constants.js";
import type { LogFormat, LogLevel } from "../config/options.js";
import { BasaltError, type ErrorObject } from "../util/errors.js";
import { workerUrl } from "../util/workerUrl.js";
import { stopWorker } from "../util/workerStop.js";
import { P2PError, P2PErrorCode } from "./errors.js";
import type { BlocksVersion } from "./gossip/topics.js";
import { ResultCode } from "./cl/payloadByNumber.js";
import { decodeMessage, encodeMessage, type MainMessage, type P2PNodeSettings, type P2PWorkerData, type SelfWire, type StatSample, type WorkerMessage } from "./cl/protocol.js";
import { bindP2PMetrics } from "./metrics.js";

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
export interface FetchedPayload {
  version: BlocksVersion;
  payloadBytes: Uint8Array;
  peer: string;
}

/** What the node serves to payload_by_number: a block's payload, or undefined when it does not have it. */
export type PayloadSource = (n: bigint) => Promise<{ version: BlocksVersion; payloadBytes: Uint8Array } | undefined>;

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

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

function errorFrom(o: ErrorObject): Error {
  if (o.code !== undefined) return BasaltError.fromObject({ code: o.code, message: o.message, meta: o.meta });
  return new Error(o.message);
}

/** See the module comment. */
export class P2PService {
  private worker: Worker | undefined;
  private ready = false;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly log: Logger;
  private readonly listeners = new Set<(b: GossipBlock) => void>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private source: PayloadSource | undefined;
  private signer: Uint8Array | undefined;
  private lastSelf: P2PSelf | undefined;
  private samples: StatSample[] = [];
  private restarts = 0;

  constructor(
    private readonly opts: P2PServiceOptions,
    log: Logger,
  ) {
    this.log = log.child({ subsystem: "p2p" });
    this.signer = opts.signer;
    bindP2PMetrics(() => this.samples, () => this.restarts);
  }

  /** Spawns the worker; resolves once libp2p (and discovery) listen, rejects with why they cannot. */
  start(): Promise<P2PSelf> {
    this.stopped = false;
    return this.spawn();
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
    this.send({ type: "signer", address });
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
    const w = this.worker;
    if (w === undefined || !this.ready) return Promise.reject(new P2PError({ code: P2PErrorCode.UNAVAILABLE }, "consensus P2P is not running"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new P2PError({ code: P2PErrorCode.TIMEOUT, what: method, timeoutMs: P2P_WORKER_CALL_TIMEOUT_MS }, `P2P ${method} did not answer within ${P2P_WORKER_CALL_TIMEOUT_MS} ms`));
      }, P2P_WORKER_CALL_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.send({ type: "call", id, method, params });
    });
  }

  /** The worker's last counters and gauges (for tests and the metrics). */
  stats(): StatSample[] {
    return this.samples.map((s) => ({ ...s, labels: { ...s.labels } }));
  }

  /** Whether the worker runs and has started. */
  get running(): boolean {
    return this.worker !== undefined && this.ready;
  }

  private send(m: MainMessage): void {
    this.worker?.postMessage(encodeMessage(m));
  }

  private failPending(why: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new P2PError({ code: P2PErrorCode.UNAVAILABLE }, `consensus P2P ${why}`));
      this.pending.delete(id);
    }
  }

  private spawn(): Promise<P2PSelf> {
    const o = this.opts;
    const { chainId, rollup, ...settings } = o;
    const data: P2PWorkerData = {
      ...settings,
      chainId: chainId.toString(),
      signer: this.signer,
      tcpPort: this.lastSelf?.tcpPort ?? o.tcpPort,
      udpPort: this.lastSelf?.udpPort ?? o.udpPort,
      forkTimes: Object.fromEntries(Object.entries(rollup.forkTimes).flatMap(([k, v]) => (v === undefined ? [] : [[k, v.toString()]]))),
    };
    const worker = new Worker(workerUrl("p2p"), { workerData: data });
    this.worker = worker;
    this.ready = false;
    return new Promise((resolve, reject) => {
      worker.on("message", (bytes: Uint8Array) => {
        let m: WorkerMessage;
        try {
          m = decodeMessage<WorkerMessage>(bytes);
        } catch (e) {
          this.log.error({ err: e }, "undecodable message from the P2P worker");
          return;
        }
        this.handle(m, resolve, reject);
      });
      worker.on("error", (e) => {
        this.log.error({ err: e }, "P2P worker failed");
        if (!this.ready) reject(e);
      });
      worker.on("exit", (code) => {
        const wasReady = this.ready;
        if (this.worker === worker) {
          this.worker = undefined;
          this.ready = false;
        }
        this.failPending("worker exited");
        if (this.stopped || !wasReady) return;
        this.restarts++;
        this.log.error({ code }, "P2P worker exited; restarting");
        this.restartTimer = setTimeout(() => {
          if (!this.stopped) this.spawn().catch((e: unknown) => this.log.error({ err: e }, "P2P worker restart failed"));
        }, P2P_WORKER_RESTART_DELAY_MS);
      });
    });
  }

  private handle(m: WorkerMessage, resolve: (s: P2PSelf) => void, reject: (e: unknown) => void): void {
    switch (m.type) {
      case "ready":
        this.ready = true;
        this.lastSelf = m.self;
        resolve(m.self);
        break;
      case "fatal": {
        const e = new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what: m.code ?? "start" }, `consensus P2P cannot start: ${m.message}`);
        if (!this.ready) {
          reject(e);
          void this.worker?.terminate();
        } else this.log.error({ reason: m.message }, "P2P worker failed");
        break;
      }
      case "block": {
        const b: GossipBlock = { version: m.version, payloadBytes: m.payloadBytes, from: m.from, receivedAtMs: m.receivedAtMs };
        for (const l of this.listeners) {
          try {
            l(b);
          } catch (e) {
            this.log.error({ err: e }, "gossip block listener failed");
          }
        }
        break;
      }
      case "payloadRequest":
        void this.answerPayload(m.id, BigInt(m.number));
        break;
      case "reply": {
        const p = this.pending.get(m.id);
        if (p === undefined) break;
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.error !== undefined) p.reject(errorFrom(m.error));
        else p.resolve(m.result);
        break;
      }
      case "stats":
        this.samples = m.samples;
        break;
      case "stopped":
        break;
    }
  }

  private async answerPayload(id: number, n: bigint): Promise<void> {
    try {
      const r = this.source === undefined ? undefined : await this.source(n);
      if (r === undefined) this.send({ type: "payloadResponse", id, result: ResultCode.notFound });
      else this.send({ type: "payloadResponse", id, version: r.version, payloadBytes: r.payloadBytes });
    } catch (e) {
      this.log.warn({ err: e, number: n.toString() }, "payload source failed");
      this.send({ type: "payloadResponse", id, result: ResultCode.unknownError });
    }
  }

  /** Stops the worker (libp2p and discovery close their sockets). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    const w = this.worker;
    if (w === undefined) return;
    await stopWorker(w, encodeMessage({ type: "stop" }), (bytes) => decodeMessage<WorkerMessage>(bytes).type === "stopped");
    this.failPending("stopped");
    this.worker = undefined;
    this.ready = false;
  }
}
