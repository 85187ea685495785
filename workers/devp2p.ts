/**
 * The devp2p worker: the execution layer's presence on the network (discovery on UDP: discv5
 * under `basev0` on Base's network, discovery v4 on plain Ethereum chains; RLPx with eth/68 and
 * eth/69 on TCP; `src/p2p/el/devp2pNode.ts`). It opens the chain store read-only and serves
 * peers' block, body and receipt requests from it without the main thread; transactions from
 * peers go up to the main thread's pool, and the pool's lookups for peers' GetPooledTransactions
 * come back down, through the worker host (`src/p2p/el/threadProtocol.ts`). It reports its peers
 * every P2P_EL_STATUS_INTERVAL_MS; its metrics are this thread's, scraped by the host.
 */
import { workerData } from "node:worker_threads";
import { P2P_EL_POOL_LOOKUP_TIMEOUT_MS, P2P_EL_STATUS_INTERVAL_MS } from "../src/p2p/constants.js";
import type { LogFormat, LogLevel } from "../src/config/options.js";
import { DevP2PNode } from "../src/p2p/el/devp2pNode.js";
import { DevP2PStartError } from "../src/p2p/el/errors.js";
import { bindDevP2PMetrics } from "../src/p2p/el/metrics.js";
import type { DevP2PEvents, DevP2PNotes, DevP2PWorkerData } from "../src/p2p/el/threadProtocol.js";
import { ChainStore } from "../src/storage/store.js";
import { createLogger } from "../src/util/logger.js";
import { serveWorker } from "../src/util/workerServe.js";

serveWorker(async (outbox) => {
  const data = workerData as DevP2PWorkerData;
  const log = createLogger(data.logLevel as LogLevel, data.logFormat as LogFormat).child({ thread: "devp2p", subsystem: "p2p" });
  const emit = <K extends keyof DevP2PEvents>(name: K, payload: DevP2PEvents[K]): void => outbox.emit(name, payload);

  let store: ChainStore;
  try {
    store = ChainStore.open(data.datadir, { readOnly: true });
  } catch (e) {
    throw new DevP2PStartError((e as Error).message);
  }
  let nextLookup = 1;
  const lookups = new Map<number, (raw: Uint8Array[]) => void>();

  const node = new DevP2PNode(store, data, log, {
    forwardTxs: (raw) => emit("txs", { raw }),
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
        emit("getTxs", { id, hashes });
      }),
  });

  bindDevP2PMetrics({
    counters: () => node.snapshot().counters,
    peerDirections: () => {
      const peers = node.peers();
      const inbound = peers.filter((p) => p.inbound).length;
      return { inbound, outbound: peers.length - inbound };
    },
    discoveryNodes: () => {
      const n = node.snapshot().discoveryNodes;
      const out: { protocol: string; nodes: number }[] = [];
      if (data.discv4) out.push({ protocol: "discv4", nodes: n.discv4 ?? 0 });
      if (data.discv5) out.push({ protocol: `discv5-${data.discv5ProtocolId}`, nodes: n.discv5 ?? 0 });
      return out;
    },
    ethVersions: () => {
      const out: Record<string, number> = {};
      for (const p of node.peers()) out[String(p.version)] = (out[String(p.version)] ?? 0) + 1;
      return out;
    },
  });

  try {
    emit("listening", await node.start());
  } catch (e) {
    await node.stop().catch(() => undefined);
    await store.close();
    throw new DevP2PStartError((e as Error).message);
  }

  const status = setInterval(() => {
    try {
      const head = node.head();
      emit("status", { peers: node.peers(), listening: node.snapshot().listening, head: { number: head.number.toString(), hash: head.hash }, enr: node.enr() });
    } catch (e) {
      log.warn({ err: e }, "devp2p status failed");
    }
  }, P2P_EL_STATUS_INTERVAL_MS);

  /** admin_addPeer / admin_removePeer: a refused enode fails as DevP2PStartError with its reason, as before the worker host. */
  const peerOp = (op: () => boolean): boolean => {
    try {
      return op();
    } catch (e) {
      throw new DevP2PStartError((e as Error).message);
    }
  };

  return {
    handlers: {
      addPeer: (enode) =>
        peerOp(() => {
          node.addPeer(enode as string);
          return true;
        }),
      removePeer: (enode) => peerOp(() => node.removePeer(enode as string)),
    },
    notes: {
      announce: (p) => {
        const m = p as DevP2PNotes["announce"];
        node.announce(m.hashes, m.types, m.sizes);
      },
      txsReply: (p) => {
        const m = p as DevP2PNotes["txsReply"];
        const resolve = lookups.get(m.id);
        lookups.delete(m.id);
        resolve?.(m.raw);
      },
    },
    stop: async () => {
      clearInterval(status);
      try {
        await node.stop();
      } finally {
        await store.close();
      }
    },
  };
});
