/**
 * The proofs store's dump: every entry of every column family as one byte stream, what
 * `basalt snapshot export` carries of a proofs store (RocksDB has no checkpoint or backup API in
 * `rocksdb-native`, so the store is copied entry by entry, from one snapshot of a read-only open:
 * see {@link ProofsStore.entries}) and `basalt snapshot import` restores into a new store.
 *
 * Layout: records, then one end byte. A record is the column family's index in
 * {@link PROOFS_COLUMN_FAMILIES} order (1 byte), the key's length and the value's length (4 bytes
 * big-endian each), the key, the value. The end byte is {@link END}: a dump cut short has none.
 * Checksums are the snapshot file's (`storage/snapshot.ts`).
 */
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import { PROOFS_DUMP_CHUNK_BYTES, PROOFS_RESTORE_BATCH_BYTES } from "./constants.js";
import { corrupt } from "./errors.js";
import { AtomicBatch, rocksOpen, type RocksSession } from "./rocks.js";
import { PROOFS_COLUMN_FAMILIES, type ProofsStore } from "./store.js";

/** The column families by their index in a dump. */
const FAMILIES: readonly string[] = Object.values(PROOFS_COLUMN_FAMILIES);
/** The byte that ends a dump (no column family has this index). */
const END = 0xff;
/** Bytes of a record before its key: family index, key length, value length. */
const RECORD_HEAD = 9;

/** Entries per column family name (every family listed, 0 when empty). */
type DumpCounts = Record<string, number>;

function zeroCounts(): DumpCounts {
  return Object.fromEntries(FAMILIES.map((f) => [f, 0]));
}

/**
 * Writes the dump of `store` (a read-only open: {@link ProofsStore.entries}) into `sink` and
 * ends it, waiting whenever the sink asks to; returns the entries written per column family.
 */
export async function writeDump(store: ProofsStore, sink: Writable): Promise<DumpCounts> {
  const counts = zeroCounts();
  let parts: Buffer[] = [];
  let size = 0;
  const push = async (): Promise<void> => {
    const chunk = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    if (!sink.write(chunk)) await once(sink, "drain");
  };
  for await (const { family, key, value } of store.entries()) {
    const head = Buffer.alloc(RECORD_HEAD);
    head.writeUInt8(FAMILIES.indexOf(family), 0);
    head.writeUInt32BE(key.length, 1);
    head.writeUInt32BE(value.length, 5);
    parts.push(head, key, value);
    size += RECORD_HEAD + key.length + value.length;
    counts[family]!++;
    if (size >= PROOFS_DUMP_CHUNK_BYTES) await push();
  }
  parts.push(Buffer.of(END));
  size++;
  await push();
  sink.end();
  await once(sink, "finish");
  return counts;
}

/** Splits a dump into its records; throws PROOFS_CORRUPT (naming `dir`) on a bad family index or a dump cut short. */
async function* records(source: AsyncIterable<Buffer>, dir: string): AsyncGenerator<{ family: number; key: Buffer; value: Buffer }> {
  let pending: Buffer = Buffer.alloc(0);
  let ended = false;
  for await (const chunk of source) {
    if (ended) throw corrupt(dir, "the dump has bytes after its end");
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = 0;
    while (at < pending.length) {
      const family = pending.readUInt8(at);
      if (family === END) {
        if (at + 1 !== pending.length) throw corrupt(dir, "the dump has bytes after its end");
        ended = true;
        at++;
        break;
      }
      if (family >= FAMILIES.length) throw corrupt(dir, `a dump record names column family ${family}, expected 0 to ${FAMILIES.length - 1}`);
      if (pending.length - at < RECORD_HEAD) break;
      const keyLength = pending.readUInt32BE(at + 1);
      const valueLength = pending.readUInt32BE(at + 5);
      const end = at + RECORD_HEAD + keyLength + valueLength;
      if (end > pending.length) break;
      yield { family, key: pending.subarray(at + RECORD_HEAD, at + RECORD_HEAD + keyLength), value: pending.subarray(at + RECORD_HEAD + keyLength, end) };
      at = end;
    }
    pending = pending.subarray(at);
  }
  if (!ended) throw corrupt(dir, "the dump ends without its end byte: it was cut short");
}

/**
 * Builds a new store at `dir` (which must hold no store) from the dump read from `source`: the
 * entries as they were, in batches of about {@link PROOFS_RESTORE_BATCH_BYTES}, then every column
 * family flushed to its files. Returns the entries written per column family. The caller opens
 * and checks the result ({@link ProofsStore.open}, `proofs/check.ts`); a failed restore leaves a
 * partial store at `dir` for the caller to remove.
 */
export async function restoreDump(source: Readable, dir: string): Promise<DumpCounts> {
  const db = rocksOpen(dir, { columnFamilies: [...FAMILIES] });
  await db.ready();
  const counts = zeroCounts();
  try {
    const families: RocksSession[] = FAMILIES.map((f) => db.columnFamily(f));
    let batch = new AtomicBatch(families[0]!);
    let size = 0;
    try {
      for await (const r of records(source, dir)) {
        batch.put(families[r.family]!, r.key, r.value);
        counts[FAMILIES[r.family]!]!++;
        size += r.key.length + r.value.length;
        if (size >= PROOFS_RESTORE_BATCH_BYTES) {
          await batch.commit();
          batch = new AtomicBatch(families[0]!);
          size = 0;
        }
      }
      await batch.commit();
    } finally {
      batch.discard();
    }
    for (const cf of families) await cf.flush();
  } finally {
    await db.close();
  }
  return counts;
}
