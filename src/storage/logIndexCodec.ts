/**
 * Keys and shard encoding of the log index (`logIndex` sub-database, storage/logIndex.ts): which
 * canonical blocks hold a log of an address, or a log with a topic at a position.
 *
 * Key: tag(1) ++ value ++ shardEnd(8 BE). Tag 0 = emitting address (20 bytes); tags 1–4 = a
 * topic (32 bytes) at position 0–3 (eth_getLogs matches topics by position, so a tagged key
 * answers a position exactly). `shardEnd` is the last block of a closed shard, or
 * {@link OPEN_SHARD_END} for the one shard per key still being appended to.
 *
 * Value: the sorted block numbers as runs of consecutive blocks, each run two LEB128 varints
 * (gap from the previous run's last block — the first run's start absolute — and the run's
 * length minus one). A key in every block (a hot contract, the Transfer topic) costs a few bytes
 * for any number of blocks; a key seen once costs 2–5 bytes.
 */

/** Tag byte of an address key. */
const LOG_INDEX_ADDRESS_TAG = 0;
/** Tag byte of a topic key at position 0 (position i is tag 1 + i). */
const LOG_INDEX_TOPIC0_TAG = 1;
/** End of the open (last) shard of a key: u64 max, so it sorts after the key's closed shards (reth/erigon do the same). */
export const OPEN_SHARD_END = 0xffff_ffff_ffff_ffffn;
/**
 * A shard is closed once its encoding reaches this many bytes: the open shard is rewritten at
 * every block that has the key, so it stays small enough to live in one LMDB leaf page (values
 * above ~2 KiB go to overflow pages that are copied whole on every write).
 */
export const LOG_INDEX_SHARD_BYTES = 1024;

/** A run of consecutive blocks: first block and count (≥ 1). */
export interface BlockRun {
  start: number;
  count: number;
}

/** The key prefix (tag ++ value) of an address. */
export function addressKey(address: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(21);
  b[0] = LOG_INDEX_ADDRESS_TAG;
  b.set(address, 1);
  return b;
}

/** The key prefix (tag ++ value) of a topic at `position` (0–3). */
export function topicKey(position: number, topic: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(33);
  b[0] = LOG_INDEX_TOPIC0_TAG + position;
  b.set(topic, 1);
  return b;
}

/** prefix ++ end(8 BE): the key of one shard. */
export function shardKey(prefix: Uint8Array, end: bigint): Buffer {
  const b = Buffer.allocUnsafe(prefix.length + 8);
  b.set(prefix, 0);
  b.writeBigUInt64BE(end, prefix.length);
  return b;
}

function pushVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Encodes ascending, non-overlapping, non-adjacent runs. */
export function encodeShard(runs: readonly BlockRun[]): Buffer {
  const out: number[] = [];
  let prevLast = 0;
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i]!;
    pushVarint(out, i === 0 ? r.start : r.start - prevLast);
    pushVarint(out, r.count - 1);
    prevLast = r.start + r.count - 1;
  }
  return Buffer.from(out);
}

/** Decodes {@link encodeShard}. */
export function decodeShard(b: Uint8Array): BlockRun[] {
  const runs: BlockRun[] = [];
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const byte = b[pos++];
      if (byte === undefined) throw new RangeError("log index shard: truncated varint");
      v += (byte & 0x7f) * mul;
      if (byte < 0x80) return v;
      mul *= 0x80;
    }
  };
  let prevLast = 0;
  while (pos < b.length) {
    const gap = varint();
    const start = runs.length === 0 ? gap : prevLast + gap;
    const count = varint() + 1;
    runs.push({ start, count });
    prevLast = start + count - 1;
  }
  return runs;
}

/** Appends block `n` (greater than every block in `runs`) in place. */
export function appendRun(runs: BlockRun[], n: number): void {
  const last = runs.at(-1);
  if (last !== undefined && last.start + last.count === n) last.count++;
  else runs.push({ start: n, count: 1 });
}

/** Removes block `n` when it is the last block of `runs` (in place); whether it was. */
export function popRun(runs: BlockRun[], n: number): boolean {
  const last = runs.at(-1);
  if (last === undefined || last.start + last.count - 1 !== n) return false;
  if (last.count === 1) runs.pop();
  else last.count--;
  return true;
}

/** Sets in `marks` (index = block − `from`) every block of `runs` within [from, to]. */
export function markRuns(runs: readonly BlockRun[], from: number, to: number, marks: Uint8Array): void {
  for (const r of runs) {
    const a = Math.max(r.start, from);
    const z = Math.min(r.start + r.count - 1, to);
    for (let n = a; n <= z; n++) marks[n - from] = 1;
  }
}
