/**
 * The devp2p worker: the execution layer's presence on the network (discovery on UDP: discv5
 * under `basev0` on Base's network, discovery v4 on plain Ethereum chains; RLPx with eth/68 and
 * eth/69 on TCP; `src/p2p/el/devp2pNode.ts`). It opens the chain store read-only and serves
 * peers' block, body and receipt requests from it without the main thread; transactions from
 * peers go up to the main thread's pool, and the pool's lookups for peers' GetPooledTransactions
 * come back down (see `src/p2p/el/threadProtocol.ts`). It reports its peers and counters every
 * P2P_EL_STATUS_INTERVAL_MS.
 */
import { parentPort, workerData } from "node:worker_threads";
import { P2P_EL_POOL_LOOKUP_TIMEOUT_MS, P2P_EL_STATUS_INTERVAL_MS } from "../src/config/constants.js";
import type { LogFormat, LogLevel } from "../src/config/options.js";
import { DevP2PNode } from "../src/p2p/el/devp2pNode.js";
import { decodeThreadMessage, encodeThreadMessage, type DevP2PMainMessage, type DevP2PWorkerData, type DevP2PWorkerMessage } from "../src/p2p/el/threadProtocol.js";
import { ChainStore } from "../src/storage/store.js";
import { createLogger } from "../src/util/logger.js";

const data = workerData as DevP2PWorkerData;
const log = createLogger(data.logLevel as LogLevel, data.logFormat as LogFormat).child({ thread: "devp2p", subsystem: "p2p" });
const post = (m: DevP2PWorkerMessage): void => parentPort!.postMessage(encodeThreadMessage(m));

const store = ChainStore.open(data.datadir, { readOnly: true });
let nextLookup = 1;
const lookups = new Map<number, (raw: Uint8Array[]) => void>();

const node = new DevP2PNode(store, data, log, {
  forwardTxs: (raw) => post({ type: "txs", raw }),
  lookupTxs: (hashes) =>
    new Promise((resolve) => {
      const id = nextLookup++;
      const timer = setTimeout(() => {
        lookups.delete(id);
        resolve([]);
      }, P2P_EL_POOL_LOOKUP_TIMEOUT_MS);
      lookups.set(id, (raw) => {
        clearTimeout(timer);
        resolve(raw);
      });
      post({ type: "getTxs", id, hashes });
    }),
});

const status = setInterval(() => {
  try {
    const head = node.head();
    post({ type: "status", peers: node.peers(), ...node.snapshot(), head: { number: head.number.toString(), hash: head.hash }, enr: node.enr() });
  } catch (e) {
    log.warn({ err: e }, "devp2p status failed");
  }
}, P2P_EL_STATUS_INTERVAL_MS);

parentPort!.on("message", (bytes: Uint8Array) => {
  const m = decodeThreadMessage<DevP2PMainMessage>(bytes);
  switch (m.type) {
    case "announce":
      node.announce(m.hashes, m.types, m.sizes);
      break;
    case "txsReply": {
      const resolve = lookups.get(m.id);
      lookups.delete(m.id);
      resolve?.(m.raw);
      break;
    }
    case "addPeer":
    case "removePeer":
      try {
        if (m.type === "addPeer") node.addPeer(m.enode);
        const ok = m.type === "addPeer" ? true : node.removePeer(m.enode);
        post({ type: "peerOp", id: m.id, ok });
      } catch (e) {
        post({ type: "peerOp", id: m.id, ok: false, error: (e as Error).message });
      }
      break;
    case "stop":
      clearInterval(status);
      void node
        .stop()
        .then(() => store.close())
        .finally(() => post({ type: "stopped" }));
      break;
  }
});

node.start().then(
  (listen) => post({ type: "ready", listen }),
  (e: unknown) => post({ type: "fatal", message: (e as Error).message }),
);
