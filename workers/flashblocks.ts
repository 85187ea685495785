/**
 * Flashblocks worker thread: subscribes to the stream, executes each flashblock on a read-only
 * view of the chain database (LMDB is shared by every thread of the process) and publishes the
 * pending state into the SharedArrayBuffer the RPC thread reads.
 *
 * Messages from the main thread are plain strings: "head" (the canonical head moved; re-read it
 * from the store) and "stop". The worker answers "ready" once subscribed and "stopped" when done.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Chain } from "../src/blockchain/chain.js";
import { FlashblocksIngest } from "../src/flashblocks/ingest.js";
import { IngestStats } from "../src/flashblocks/ingestStats.js";
import { PendingBufferWriter } from "../src/flashblocks/pendingBuffer.js";
import { FlashblocksStreamClient, type StreamClientOptions } from "../src/flashblocks/streamClient.js";
import { createLogger } from "../src/util/logger.js";
import type { EvmEngineName } from "../src/config/options.js";
import { setDefaultEvmEngine } from "../src/execution/evm/engine.js";
import { installEvmCaches } from "../src/execution/evmSpeedups.js";
import { IdleYoungGc } from "../src/util/youngGc.js";
import { FLASHBLOCKS_IDLE_GC_FRACTION } from "../src/config/constants.js";

/** What the main thread passes at spawn (see `src/flashblocks/service.ts`). */
export interface FlashblocksWorkerData {
  datadir: string;
  url: string;
  pending: SharedArrayBuffer;
  stats: SharedArrayBuffer;
  logLevel: string;
  logFormat: "json" | "pretty";
  evm: EvmEngineName;
  stream?: StreamClientOptions;
}

const data = workerData as FlashblocksWorkerData;
setDefaultEvmEngine(data.evm);
// Pending blocks build their reference VM only on a fallback; the Common caches serve every block.
await installEvmCaches();
const threadLog = createLogger(data.logLevel, data.logFormat).child({ thread: "flashblocks" });
const chain = Chain.open(data.datadir, { readOnly: true, logger: threadLog });
const stats = new IngestStats(data.stats);
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

parentPort!.on("message", (msg: string) => {
  if (msg === "head") ingest.onCanonical();
  else if (msg === "stop") {
    client.stop();
    void ingest
      .drained()
      .then(() => chain.close())
      .finally(() => parentPort!.postMessage("stopped"));
  }
});
ingest.onCanonical();
client.start();
parentPort!.postMessage("ready");
