/**
 * The consensus-layer P2P worker: runs the libp2p host, gossipsub, discv5 and payload_by_number
 * (`src/p2p/cl/node.ts`) off the main thread. Messages both ways are msgpack bytes
 * (`src/p2p/cl/protocol.ts`); `src/p2p/service.ts` spawns it and restarts it after a crash.
 */
import "../src/p2p/polyfills.js";
import { parentPort, workerData } from "node:worker_threads";
import type { OpForkSchedule } from "../src/chain/op/forks.js";
import { P2P_PAYLOAD_SOURCE_TIMEOUT_MS, P2P_STATS_INTERVAL_MS } from "../src/config/constants.js";
import type { LogFormat, LogLevel } from "../src/config/options.js";
import { P2PNode } from "../src/p2p/cl/node.js";
import { ResultCode } from "../src/p2p/cl/payloadByNumber.js";
import { decodeMessage, encodeMessage, type MainMessage, type P2PWorkerData, type WorkerMessage } from "../src/p2p/cl/protocol.js";
import type { PayloadAnswer } from "../src/p2p/cl/reqResp.js";
import { BasaltError, errorToObject } from "../src/util/errors.js";
import { createLogger } from "../src/util/logger.js";

const data = workerData as P2PWorkerData;
const log = createLogger(data.logLevel as LogLevel, data.logFormat as LogFormat).child({ thread: "p2p", subsystem: "p2p" });
const post = (m: WorkerMessage): void => parentPort!.postMessage(encodeMessage(m));
const rollup: OpForkSchedule = { forkTimes: Object.fromEntries(Object.entries(data.forkTimes).map(([k, v]) => [k, BigInt(v)])) };

// A library promise a peer made fail must not end the thread: log it (the peer's input is already scored where it is read).
process.on("unhandledRejection", (e) => log.warn({ err: e }, "unhandled rejection in the P2P worker"));

let nextId = 1;
const waiting = new Map<number, (a: PayloadAnswer) => void>();

const node = new P2PNode(data, rollup, {
  onBlock: (b) => post({ type: "block", version: b.version, payloadBytes: b.payloadBytes, from: b.from, receivedAtMs: b.receivedAtMs }),
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
      post({ type: "payloadRequest", id, number: n.toString() });
    }),
}, log);

let statsTimer: NodeJS.Timeout | undefined;

parentPort!.on("message", (bytes: Uint8Array) => {
  let m: MainMessage;
  try {
    m = decodeMessage<MainMessage>(bytes);
  } catch (e) {
    log.error({ err: e }, "undecodable message from the main thread");
    return;
  }
  switch (m.type) {
    case "signer":
      node.setSigner(m.address);
      break;
    case "payloadResponse": {
      const done = waiting.get(m.id);
      if (done === undefined) break;
      waiting.delete(m.id);
      if (m.payloadBytes !== undefined && m.version !== undefined) done({ version: m.version, payloadBytes: m.payloadBytes });
      else done({ result: m.result ?? ResultCode.notFound });
      break;
    }
    case "call":
      node
        .call(m.method, m.params)
        .then((result) => post({ type: "reply", id: m.id, result: result ?? null }))
        .catch((e: unknown) => post({ type: "reply", id: m.id, error: errorToObject(e) }));
      break;
    case "stop":
      if (statsTimer !== undefined) clearInterval(statsTimer);
      void node.stop().then(() => post({ type: "stopped" }));
      break;
  }
});

node
  .start()
  .then((self) => {
    log.info({ peerId: self.peerId, tcp: self.tcpPort, udp: self.udpPort, enr: self.enr }, "consensus P2P started");
    post({ type: "ready", self });
    statsTimer = setInterval(() => post({ type: "stats", samples: node.samples() }), P2P_STATS_INTERVAL_MS);
  })
  .catch((e: unknown) => {
    log.error({ err: e }, "consensus P2P cannot start");
    post({ type: "fatal", message: e instanceof Error ? e.message : String(e), code: e instanceof BasaltError ? e.code : undefined });
    void node.stop();
  });
