/**
 * `basalt db reindex-logs`: rebuilds the log index (storage/logIndex.ts) of a stopped node's
 * datadir from the receipts of its canonical blocks, from block 0 to the head, in batches of
 * {@link LOG_REINDEX_BATCH_BLOCKS} blocks per LMDB write transaction. Progress (the next block)
 * is written with each batch in meta `logReindex`, so an interrupted run continues where it
 * stopped; while it is present the node refuses to open the datadir (the index is partial).
 * When done the index covers every block (meta `logIndexFrom` = 0).
 */
import { ChainStore, MetaKey } from "./store.js";
import { decodeReceiptLogs } from "./receiptCodec.js";
import { numberKey } from "./keys.js";
import { appendBlocks, blockLogKeys } from "./logIndex.js";

/**
 * Blocks per write transaction: a Base block has a few hundred distinct index keys, so a batch
 * gathers at most a few hundred thousand (key, block) pairs in memory and commits every second
 * or so, the unit of progress an interrupt loses.
 */
const LOG_REINDEX_BATCH_BLOCKS = 1000;

/** Progress of a rebuild. */
interface LogReindexProgress {
  /** Blocks indexed so far (from 0). */
  done: number;
  /** Blocks to index (head + 1). */
  total: number;
}

/** What a rebuild did. */
interface LogReindexResult {
  outcome: "done" | "stopped";
  /** Whether it continued an interrupted run. */
  resumed: boolean;
  /** Blocks indexed by this run. */
  blocks: number;
  /** (key, block) pairs added by this run. */
  entries: number;
}

interface Saved {
  next: string;
}

/** Indexes canonical blocks [from, to] of `store` in one write transaction; returns the (key, block) pairs added. */
function indexBatch(store: ChainStore, from: bigint, to: bigint): number {
  let entries = 0;
  store.root.transactionSync(() => {
    const perKey = new Map<string, { key: Buffer; blocks: number[] }>();
    for (let n = from; n <= to; n++) {
      const hash = store.canonical.get(numberKey(n));
      const raw = hash === undefined ? undefined : store.receipts.get(hash);
      if (raw === undefined) continue;
      for (const key of blockLogKeys(decodeReceiptLogs(raw))) {
        const s = key.toString("latin1");
        const e = perKey.get(s);
        if (e === undefined) perKey.set(s, { key, blocks: [Number(n)] });
        else e.blocks.push(Number(n));
        entries++;
      }
    }
    for (const { key, blocks } of perKey.values()) appendBlocks(store.logIndex, key, blocks);
    store.meta.put(MetaKey.logReindex, { next: (to + 1n).toString() } satisfies Saved);
  });
  return entries;
}

/**
 * Rebuilds the log index of `datadir` (node stopped). `stopRequested` is polled between batches;
 * a stopped run is continued by the next one.
 */
export async function reindexLogs(
  datadir: string,
  opts: { stopRequested?: () => boolean; onProgress?: (p: LogReindexProgress) => void; batchBlocks?: number } = {},
): Promise<LogReindexResult> {
  const store = ChainStore.openForLogReindex(datadir);
  try {
    const batch = BigInt(opts.batchBlocks ?? LOG_REINDEX_BATCH_BLOCKS);
    const saved = store.getMeta<Saved>(MetaKey.logReindex);
    let next = saved === undefined ? 0n : BigInt(saved.next);
    const resumed = next > 0n;
    if (next === 0n) {
      // Marked first: a run killed while clearing starts over (next = 0 clears again).
      store.putMetaSync(MetaKey.logReindex, { next: "0" } satisfies Saved);
      await store.logIndex.clearAsync();
    }
    let head = -1n;
    for (const key of store.canonical.getKeys({ reverse: true, limit: 1 })) head = key.readBigUInt64BE(0);
    const total = Number(head + 1n);
    let blocks = 0;
    let entries = 0;
    while (next <= head) {
      if (opts.stopRequested?.() === true) return { outcome: "stopped", resumed, blocks, entries };
      const to = next + batch - 1n < head ? next + batch - 1n : head;
      entries += indexBatch(store, next, to);
      blocks += Number(to - next + 1n);
      next = to + 1n;
      opts.onProgress?.({ done: Number(next), total });
      // Lets signal handlers run between batches.
      await new Promise<void>((r) => setImmediate(r));
    }
    store.root.transactionSync(() => {
      store.meta.put(MetaKey.logIndexFrom, "0");
      store.meta.remove(MetaKey.logReindex);
    });
    return { outcome: "done", resumed, blocks, entries };
  } finally {
    await store.close();
  }
}
