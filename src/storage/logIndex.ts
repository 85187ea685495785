/**
 * The log index: address and position-tagged topic → the canonical blocks holding such a log
 * (`logIndex` sub-database; keys and shard encoding in storage/logIndexCodec.ts). Written in the
 * block's own LMDB write transaction when a block becomes canonical, its entries removed when the
 * block is unwound, rebuilt by `basalt db reindex-logs` (storage/logReindex.ts). eth_getLogs
 * (rpc/methods/logs.ts) intersects the candidate blocks of a filter's criteria and reads only
 * those blocks' receipts.
 *
 * Every function here runs inside the caller's write transaction (or a read).
 */
import type { Database } from "lmdb";
import type { Log } from "./types.js";
import { prefixEnd } from "./keys.js";
import {
  addressKey,
  decodeShard,
  encodeShard,
  LOG_INDEX_SHARD_BYTES,
  markRuns,
  OPEN_SHARD_END,
  popRun,
  shardKey,
  topicKey,
  type BlockRun,
} from "./logIndexCodec.js";

type Bin = Database<Buffer, Buffer>;

/** The distinct index key prefixes (address, and topic by position) of a block's logs. */
export function blockLogKeys(receipts: readonly { logs: readonly Log[] }[]): Buffer[] {
  const seen = new Set<string>();
  const out: Buffer[] = [];
  const add = (k: Buffer): void => {
    const s = k.toString("latin1");
    if (seen.has(s)) return;
    seen.add(s);
    out.push(k);
  };
  for (const r of receipts) {
    for (const l of r.logs) {
      add(addressKey(l.address));
      for (let i = 0; i < l.topics.length && i < 4; i++) add(topicKey(i, l.topics[i]!));
    }
  }
  return out;
}

function varintBytes(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** Encoded bytes of run `r` after a run ending at `prevLast` (`first`: the shard's first run, its start absolute). */
function runBytes(r: BlockRun, prevLast: number, first: boolean): number {
  return varintBytes(first ? r.start : r.start - prevLast) + varintBytes(r.count - 1);
}

/** Encoded bytes of every run of `runs` but the last. */
function bytesBeforeLast(runs: readonly BlockRun[]): number {
  let bytes = 0;
  for (let i = 0; i + 1 < runs.length; i++) bytes += runBytes(runs[i]!, i === 0 ? 0 : runs[i - 1]!.start + runs[i - 1]!.count - 1, i === 0);
  return bytes;
}

/**
 * Adds ascending `blocks` (each above every block already indexed under `prefix`; those not above
 * the open shard's last are skipped, so a repeated write is harmless) to the key's open shard.
 * A block that extends the last run always joins it; one that starts a new run first closes the
 * open shard when that has reached {@link LOG_INDEX_SHARD_BYTES}. The shards are therefore a
 * function of the blocks alone: appending block by block (import) or in batches (reindex) writes
 * the same bytes. Returns the bytes written (keys + values).
 */
export function appendBlocks(db: Bin, prefix: Buffer, blocks: readonly number[]): number {
  const openKey = shardKey(prefix, OPEN_SHARD_END);
  const held = db.get(openKey);
  if (blocks.length === 1) return appendOne(db, prefix, openKey, held, blocks[0]!);
  // Only the open shard is read (one get per key and block): closed shards hold older blocks only.
  let runs: BlockRun[] = held === undefined ? [] : decodeShard(held);
  let before = bytesBeforeLast(runs);
  let written = 0;
  let added = false;
  for (const n of blocks) {
    const tail = runs.at(-1);
    if (tail !== undefined && n <= tail.start + tail.count - 1) continue;
    added = true;
    if (tail !== undefined && tail.start + tail.count === n) {
      tail.count++;
      continue;
    }
    if (tail !== undefined) {
      const prev = runs.length > 1 ? runs[runs.length - 2]! : undefined;
      const bytes = before + runBytes(tail, prev === undefined ? 0 : prev.start + prev.count - 1, prev === undefined);
      if (bytes >= LOG_INDEX_SHARD_BYTES) {
        const v = encodeShard(runs);
        db.put(shardKey(prefix, BigInt(tail.start + tail.count - 1)), v);
        written += v.length + openKey.length;
        runs = [];
        before = 0;
      } else before = bytes;
    }
    runs.push({ start: n, count: 1 });
  }
  if (!added) return 0;
  const v = encodeShard(runs);
  db.put(openKey, v);
  return written + v.length + openKey.length;
}

function pushVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/**
 * {@link appendBlocks} of one block (import) on the encoded open shard, without decoding it into
 * runs: only its last run changes, or a run is appended, or the shard closes. Same bytes.
 */
function appendOne(db: Bin, prefix: Buffer, openKey: Buffer, held: Buffer | undefined, n: number): number {
  if (held === undefined || held.length === 0) {
    const v = encodeShard([{ start: n, count: 1 }]);
    db.put(openKey, v);
    return v.length + openKey.length;
  }
  // Walk the varints: where the last run's pair starts, its gap, start and count.
  let pos = 0;
  let lastPairAt = 0;
  let lastGap = 0;
  let lastStart = 0;
  let lastCount = 0;
  let prevEnd = 0;
  let first = true;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const byte = held[pos++];
      if (byte === undefined) throw new RangeError("log index shard: truncated varint");
      v += (byte & 0x7f) * mul;
      if (byte < 0x80) return v;
      mul *= 0x80;
    }
  };
  while (pos < held.length) {
    lastPairAt = pos;
    lastGap = varint();
    lastStart = first ? lastGap : prevEnd + lastGap;
    lastCount = varint() + 1;
    prevEnd = lastStart + lastCount - 1;
    first = false;
  }
  if (n <= prevEnd) return 0;
  const tail: number[] = [];
  let v: Buffer;
  let written = 0;
  if (n === prevEnd + 1) {
    pushVarint(tail, lastGap);
    pushVarint(tail, lastCount);
    v = Buffer.concat([held.subarray(0, lastPairAt), Buffer.from(tail)]);
  } else if (held.length >= LOG_INDEX_SHARD_BYTES) {
    db.put(shardKey(prefix, BigInt(prevEnd)), Buffer.from(held));
    written += held.length + openKey.length;
    v = encodeShard([{ start: n, count: 1 }]);
  } else {
    pushVarint(tail, n - prevEnd);
    tail.push(0);
    v = Buffer.concat([held, Buffer.from(tail)]);
  }
  db.put(openKey, v);
  return written + v.length + openKey.length;
}

/**
 * Removes block `n` (the last block indexed under `prefix`) from the key's open shard; when that
 * empties, the last closed shard becomes the open one again (the state appending without `n`
 * would have left). Nothing when `n` is not the key's last block (a block indexed before the
 * index existed).
 */
export function removeLastBlock(db: Bin, prefix: Buffer, n: number): void {
  const openKey = shardKey(prefix, OPEN_SHARD_END);
  const held = db.get(openKey);
  if (held !== undefined) {
    const runs = decodeShard(held);
    if (!popRun(runs, n)) return;
    if (runs.length > 0) {
      db.put(openKey, encodeShard(runs));
      return;
    }
    db.remove(openKey);
    for (const { key, value } of db.getRange({ start: openKey, end: prefix, reverse: true, limit: 1 })) {
      db.remove(Buffer.from(key));
      db.put(openKey, Buffer.from(value));
    }
    return;
  }
  // No open shard (pruned): the last closed one, if it ends at `n`.
  for (const { key, value } of db.getRange({ start: openKey, end: prefix, reverse: true, limit: 1 })) {
    const runs = decodeShard(value);
    if (!popRun(runs, n)) return;
    db.remove(Buffer.from(key));
    if (runs.length > 0) db.put(openKey, encodeShard(runs));
  }
}

/** Indexes the logs of canonical block `n`; returns the bytes written (keys + values). */
export function indexBlockLogs(db: Bin, n: bigint, receipts: readonly { logs: readonly Log[] }[]): number {
  const num = [Number(n)];
  let written = 0;
  for (const k of blockLogKeys(receipts)) written += appendBlocks(db, k, num);
  return written;
}

/** Removes the index entries of canonical block `n` (being unwound) with its logs. */
export function unindexBlockLogs(db: Bin, n: bigint, receipts: readonly { logs: readonly Log[] }[]): void {
  const num = Number(n);
  for (const k of blockLogKeys(receipts)) removeLastBlock(db, k, num);
}

/** Marks in `marks` (index = block − `from`) the blocks of [from, to] indexed under `prefix`. */
export function markKeyBlocks(db: Bin, prefix: Buffer, from: number, to: number, marks: Uint8Array): void {
  for (const { value } of db.getRange({ start: shardKey(prefix, BigInt(from)), end: prefixEnd(prefix) })) {
    const runs = decodeShard(value);
    if (runs.length > 0 && runs[0]!.start > to) break;
    markRuns(runs, from, to, marks);
  }
}

/**
 * The blocks of [from, to] that may hold a log matching the criteria: for each group (the
 * addresses; the topics at one position) the union of its keys' blocks, intersected across
 * groups. `groups` must hold at least one non-empty group. Ascending.
 */
export function candidateBlocks(db: Bin, groups: readonly (readonly Buffer[])[], from: number, to: number): number[] {
  const size = to - from + 1;
  let acc: Uint8Array | undefined;
  for (const g of groups) {
    const marks = new Uint8Array(size);
    for (const k of g) markKeyBlocks(db, k, from, to, marks);
    if (acc === undefined) acc = marks;
    else for (let i = 0; i < size; i++) acc[i] &= marks[i]!;
  }
  const out: number[] = [];
  if (acc === undefined) return out;
  for (let i = 0; i < size; i++) if (acc[i] === 1) out.push(from + i);
  return out;
}

/**
 * Drops every index entry of blocks below `floor` (for a store that prunes receipts: whatever
 * drops a block's receipts calls this with the same floor). Walks the whole index.
 */
export function pruneLogIndexBelow(db: Bin, floor: number): void {
  for (const { key, value } of db.getRange({})) {
    const end = key.readBigUInt64BE(key.length - 8);
    if (end !== OPEN_SHARD_END && end < BigInt(floor)) {
      db.remove(Buffer.from(key));
      continue;
    }
    const runs = decodeShard(value);
    if (runs.length === 0 || runs[0]!.start >= floor) continue;
    const kept: BlockRun[] = [];
    for (const r of runs) {
      const z = r.start + r.count - 1;
      if (z < floor) continue;
      const s = Math.max(r.start, floor);
      kept.push({ start: s, count: z - s + 1 });
    }
    if (kept.length === 0) db.remove(Buffer.from(key));
    else db.put(Buffer.from(key), encodeShard(kept));
  }
}
