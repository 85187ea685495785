/**
 * Flashblocks worker thread (run by `src/flashblocks/service.ts` on a WorkerHost): subscribes to
 * the stream, executes each flashblock on a read-only view of the chain database (LMDB is shared
 * by every thread of the process) and publishes the pending state into the SharedArrayBuffer the
 * RPC thread reads. Its counters are this thread's prom-client metrics (`ingestStats.ts`), scraped
 * by the host.
 *
 * Notes from the main thread: "head" (the canonical head moved; re-read it from the store). On
 * stop it closes the stream, drains the queue and closes its view of the store.
 */
import { workerData } from "node:worker_threads";
import { Chain } from "../src/blockchain/chain.js";
import type { ChainReader } from "../src/blockchain/chainReader.js";
import { FlashblocksIngest } from "../src/flashblocks/ingest.js";
import { IngestStats } from "../src/flashblocks/ingestStats.js";
import { PendingBufferWriter } from "../src/flashblocks/pendingBuffer.js";
import { FlashblocksStreamClient } from "../src/flashblocks/streamClient.js";
import type { FlashblocksWorkerData } from "../src/flashblocks/service.js";
import { createLogger } from "../src/util/logger.js";
import { setDefaultEvmEngine } from "../src/execution/evm/engine.js";
import { installEvmCaches } from "../src/execution/evmSpeedups.js";
import { IdleYoungGc } from "../src/util/youngGc.js";
import { serveWorker } from "../src/util/workerServe.js";
import { FLASHBLOCKS_IDLE_GC_FRACTION } from "../src/flashblocks/constants.js";

serveWorker(async () => {
  const data = workerData as FlashblocksWorkerData;
  setDefaultEvmEngine(data.evm);
  // Pending blocks build their reference VM only on a fallback; the Common caches serve every block.
  await installEvmCaches();
  const threadLog = createLogger(data.logLevel, data.logFormat).child({ thread: "flashblocks" });
  const chain: ChainReader = Chain.open(data.datadir, { readOnly: true, logger: threadLog });
  const stats = new IngestStats();
  const idleGc = process.env.BASALT_FLASHBLOCKS_IDLE_GC === "0" ? undefined : new IdleYoungGc(FLASHBLOCKS_IDLE_GC_FRACTION);
  const ingest = new FlashblocksIngest(chain, new PendingBufferWriter(data.pending), stats, threadLog, () => {
    if (idleGc?.maybeCollect() === true) stats.inc("idleCollections");
  });
  const log = threadLog.child({ subsystem: "flashblocks" });
  const client = new FlashblocksStreamClient(
    data.url,
    {
      frame: (bytes, at) => ingest.onFrame(bytes, at),
      connected: () => {
        stats.set("connected", 1);
        log.info({ url: data.url }, "flashblocks stream connected");
      },
      disconnected: (reason, detail, retryInMs) => {
        stats.set("connected", 0);
        stats.inc(`disconnect:${reason}`);
        ingest.onDisconnected();
        // The detail may be the remote's close reason: untrusted text stays at debug.
        log.warn({ url: data.url, reason, retryInMs }, "flashblocks stream down; reconnecting");
        log.debug({ url: data.url, reason, detail: detail.slice(0, 200) }, "flashblocks stream disconnect detail");
      },
    },
    data.stream,
  );
  ingest.onCanonical();
  client.start();
  return {
    notes: { head: () => ingest.onCanonical() },
    stop: async () => {
      client.stop();
      await ingest.drained();
      await chain.close();
    },
  };
});
