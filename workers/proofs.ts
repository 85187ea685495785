/**
 * Proofs worker thread (run by `src/proofs/service.ts` on a WorkerHost): the single owner of the
 * proofs store (RocksDB, `<datadir>/proofs`). It writes the store (baseline and backward backfill
 * at first start, each new canonical block, pruning every 15 s, unwinds after reorgs) and answers
 * proof reads for the RPC thread.
 *
 * Setup fails (the node refuses to start with the reason) when the store belongs to another chain
 * or is corrupt. Requests: "proof" `{address, keys, block}`. Notes: "head" (the canonical head
 * moved). Events: "latest" when the window's latest block moved or the writer stopped (the follow
 * mode's gate waits on it). The window's ends are written to the shared slots (`proofs/stats.ts`);
 * the counters are this thread's metrics, scraped by the host. On stop it finishes the turn and
 * closes the store and its view of the chain.
 */
import { workerData } from "node:worker_threads";
import { Chain } from "../src/blockchain/chain.js";
import type { ChainReader } from "../src/blockchain/chainReader.js";
import { createLogger } from "../src/util/logger.js";
import { ProofsStore } from "../src/proofs/store.js";
import { ProofsSync } from "../src/proofs/sync.js";
import { ProofsReader } from "../src/proofs/reader.js";
import { ProofsStats } from "../src/proofs/stats.js";
import type { ProofsWorkerData } from "../src/proofs/service.js";
import { IMPORT_PROGRESS_INTERVAL_MS } from "../src/config/constants.js";
import { PROOFS_BACKFILL_BLOCKS_PER_TURN, PROOFS_FORWARD_BLOCKS_PER_TURN, PROOFS_PRUNE_BATCH_BLOCKS, PROOFS_PRUNE_INTERVAL_MS } from "../src/proofs/constants.js";
import { ProgressMeter } from "../src/util/progress.js";
import { ProofsError, ProofsErrorCode } from "../src/proofs/errors.js";
import { serveWorker, type WorkerOutbox } from "../src/util/workerServe.js";

serveWorker(async (outbox: WorkerOutbox) => {
  const data = workerData as ProofsWorkerData;
  const log = createLogger(data.logLevel, data.logFormat).child({ thread: "proofs", subsystem: "proofs" });
  const chain: ChainReader = Chain.open(data.datadir, { readOnly: true, logger: log });
  let store: ProofsStore;
  try {
    store = await ProofsStore.open(data.path, { chainId: chain.chainId, genesisHash: chain.genesisHash });
  } catch (e) {
    // Another chain's or a corrupted store: the node refuses to start with the reason.
    await chain.close();
    throw e;
  }
  const stats = new ProofsStats(data.stats);
  const sync = new ProofsSync(chain, store, BigInt(data.window), log, { stats });
  const reader = new ProofsReader(chain, store);

  let stopping = false;
  let wake: (() => void) | undefined;
  // The first turn prunes (a window shrunk while the node was down starts moving at once), then every interval.
  let pruneDue = Date.now();

  /** Writes the window's ends to the shared slots; tells the main thread when the latest one moved. */
  const publishWindow = (): void => {
    const w = store.window();
    const latest = w.latest === undefined ? -1 : Number(w.latest.number);
    stats.set("earliest", w.earliest === undefined ? -1 : Number(w.earliest.number));
    if (latest === stats.get("latest")) return;
    stats.set("latest", latest);
    outbox.emit("latest");
  };

  /** The writer loop: baseline, then forward sync first (the tip matters most), backfill and pruning in between. */
  const run = async (): Promise<void> => {
    const started = Date.now();
    const backfillMeter = new ProgressMeter();
    let backfilled = 0;
    const init = await sync.initBaseline((n) => stats.set("baselineNodes", n));
    if (init.created) log.info({ nodes: init.nodes, ms: Date.now() - started }, "proofs store initialized at the head; extending the window backwards");
    publishWindow();
    while (!stopping) {
      const f = await sync.forward(PROOFS_FORWARD_BLOCKS_PER_TURN);
      if (f.forward > 0) stats.inc("forwardBlocks", f.forward);
      if (f.unwound > 0) stats.inc("unwoundBlocks", f.unwound);
      // The tip first: a follower held by the gate moves on before this turn's backfill and pruning.
      if (f.forward > 0 || f.unwound > 0) publishWindow();
      const t0 = performance.now();
      const back = f.forward < PROOFS_FORWARD_BLOCKS_PER_TURN ? await sync.backfill(PROOFS_BACKFILL_BLOCKS_PER_TURN) : 0;
      // What backfill can still do: down to the configured floor, or to where the main store's state history ends.
      const remaining = Math.max(0, Number((store.window().earliest?.number ?? 0n) - sync.backfillTarget()));
      stats.set("backfillRemaining", remaining);
      if (back > 0) {
        stats.inc("backfillBlocks", back);
        stats.set("backfillMicrosPerBlock", Math.round(((performance.now() - t0) * 1000) / back));
        backfilled += back;
        if (backfillMeter.due(IMPORT_PROGRESS_INTERVAL_MS)) {
          const p = backfillMeter.sample(backfilled, remaining);
          log.info({ earliest: store.window().earliest!.number.toString(), target: sync.backfillTarget().toString(), blocksPerSecond: p.blocksPerSecond, eta: p.eta }, "extending the proofs window backwards");
        }
      }
      if (Date.now() >= pruneDue) {
        pruneDue = Date.now() + PROOFS_PRUNE_INTERVAL_MS;
        const p = await sync.prune(PROOFS_PRUNE_BATCH_BLOCKS);
        if (p > 0) stats.inc("prunedBlocks", p);
      }
      publishWindow();
      if (f.forward === 0 && back === 0) {
        // Caught up: wait for the next head (or the next prune).
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, Math.max(0, pruneDue - Date.now()));
        });
        wake = undefined;
      }
    }
  };

  const running = run().catch((e: unknown) => {
    // A full disk or a store fault stops the writer (one error line); reads keep being answered
    // from the window stored, which stays the last one written whole.
    const w = store.window();
    const diskFull = e instanceof ProofsError && e.type.code === ProofsErrorCode.WRITE_FAILED && e.type.diskFull;
    log.error(
      { err: e, path: data.path, earliest: w.earliest?.number.toString(), latest: w.latest?.number.toString(), reason: (e as Error).message },
      diskFull
        ? "proofs writer stopped: the disk holding the proofs store is full; eth_getProof keeps answering within the window stored; free space and restart to resume"
        : "proofs writer stopped; eth_getProof keeps answering within the window stored; restart to resume",
    );
    stats.set("writerStopped", 1);
    outbox.emit("latest");
  });

  return {
    handlers: {
      proof: (p) => {
        const { address, keys, block } = p as { address: string; keys: string[]; block: string };
        return reader.proof(address, keys, BigInt(block));
      },
    },
    notes: { head: () => wake?.() },
    stop: async () => {
      stopping = true;
      wake?.();
      await running;
      await store.close();
      await chain.close();
    },
  };
});
