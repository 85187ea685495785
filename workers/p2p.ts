/**
 * The consensus-layer P2P worker: runs the libp2p host, gossipsub, discv5 and payload_by_number
 * (`src/p2p/cl/node.ts`) off the main thread, served through the worker host (events, notes and
 * the "call" request of `src/p2p/cl/protocol.ts`); `src/p2p/service.ts` runs it and the host
 * restarts it after a crash. Its metrics are this thread's, scraped by the host.
 */
import "../src/p2p/polyfills.js";
import { workerData } from "node:worker_threads";
import type { OpForkSchedule } from "../src/chain/op/forks.js";
import { P2P_PAYLOAD_SOURCE_TIMEOUT_MS } from "../src/p2p/constants.js";
import type { LogFormat, LogLevel } from "../src/config/options.js";
import { P2PNode } from "../src/p2p/cl/node.js";
import { ResultCode } from "../src/p2p/cl/payloadByNumber.js";
import type { P2PCall, P2PEvents, P2PNotes, P2PWorkerData } from "../src/p2p/cl/protocol.js";
import type { PayloadAnswer } from "../src/p2p/cl/reqResp.js";
import { P2PError, P2PErrorCode } from "../src/p2p/errors.js";
import { bindP2PMetrics } from "../src/p2p/metrics.js";
import { BasaltError } from "../src/util/errors.js";
import { createLogger } from "../src/util/logger.js";
import { serveWorker } from "../src/util/workerServe.js";

serveWorker(async (outbox) => {
  const data = workerData as P2PWorkerData;
  const log = createLogger(data.logLevel as LogLevel, data.logFormat as LogFormat).child({ thread: "p2p", subsystem: "p2p" });
  const emit = <K extends keyof P2PEvents>(name: K, payload: P2PEvents[K]): void => outbox.emit(name, payload);
  const rollup: OpForkSchedule = { forkTimes: Object.fromEntries(Object.entries(data.forkTimes).map(([k, v]) => [k, BigInt(v)])) };

  // A library promise a peer made fail must not end the thread: log it (the peer's input is already scored where it is read).
  process.on("unhandledRejection", (e) => log.warn({ err: e }, "unhandled rejection in the P2P worker"));

  let nextId = 1;
  const waiting = new Map<number, (a: PayloadAnswer) => void>();

  /** A node that cannot be built or cannot listen (an unusable key, a port in use) fails the start as P2PError P2P_INVALID_CONFIG. */
  const cannotStart = (e: unknown): P2PError => {
    log.error({ err: e }, "consensus P2P cannot start");
    const message = e instanceof Error ? e.message : String(e);
    return new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what: e instanceof BasaltError ? e.code : "start" }, `consensus P2P cannot start: ${message}`);
  };
  let node: P2PNode;
  try {
    node = new P2PNode(
      data,
      rollup,
      {
        onBlock: (b) => emit("block", { version: b.version, payloadBytes: b.payloadBytes, from: b.from, receivedAtMs: b.receivedAtMs }),
        onPayloadRequest: (n) =>
          new Promise<PayloadAnswer>((resolve) => {
            const id = nextId++;
            const timer = setTimeout(() => {
              waiting.delete(id);
              resolve({ result: ResultCode.unknownError });
            }, P2P_PAYLOAD_SOURCE_TIMEOUT_MS);
            waiting.set(id, (a) => {
              clearTimeout(timer);
              resolve(a);
            });
            emit("payloadRequest", { id, number: n.toString() });
          }),
      },
      log,
    );
  } catch (e) {
    throw cannotStart(e);
  }
  bindP2PMetrics(() => node.samples());

  try {
    const self = await node.start();
    log.info({ peerId: self.peerId, tcp: self.tcpPort, udp: self.udpPort, enr: self.enr }, "consensus P2P started");
    emit("started", self);
  } catch (e) {
    await node.stop().catch(() => undefined);
    throw cannotStart(e);
  }

  return {
    handlers: {
      call: async (p) => {
        const { method, params } = p as P2PCall;
        return (await node.call(method, params)) ?? null;
      },
      samples: () => node.samples(),
    },
    notes: {
      signer: (p) => node.setSigner((p as P2PNotes["signer"]).address),
      payloadResponse: (p) => {
        const m = p as P2PNotes["payloadResponse"];
        const done = waiting.get(m.id);
        if (done === undefined) return;
        waiting.delete(m.id);
        if (m.payloadBytes !== undefined && m.version !== undefined) done({ version: m.version, payloadBytes: m.payloadBytes });
        else done({ result: m.result ?? ResultCode.notFound });
      },
    },
    stop: () => node.stop(),
  };
});
