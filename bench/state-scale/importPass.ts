/**
 * The import passes of the scale benchmark: blocks replayed on the synthesized datadir through
 * `Chain.importBlock` (the path of `basalt import`: execute, verify every header root, commit),
 * measured block by block. Run in a fresh process (bench/stateScale.ts spawns it) after the
 * datadir's pages are dropped from the page cache, so the first third (cold) starts with nothing
 * cached by the kernel or by the process; the second third is "warm", the last "steady".
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { pino } from "pino";
import { Chain } from "../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../src/chain/blockCodec.js";
import { stateRootSeconds } from "../../src/execution/state/metrics.js";
import { trieReadsTotal, type TrieReadSource } from "../../src/storage/stateMetrics.js";
import { latencyStats } from "../load/stats.js";
import { dataFile, diskBytes } from "./synth.js";

/** The figures of one imported block. */
export interface BlockRecord {
  number: number;
  /** Transactions in the block, the L1 attributes deposit included. */
  txs: number;
  gas: number;
  /** Wall time of `Chain.importBlock` (decoding the RLP is done before and not included). */
  wallMs: number;
  /** Process CPU time over the import, every thread (process.cpuUsage: user + system). */
  cpuMs: number;
  mgasPerSecond: number;
  mgasPerCpuSecond: number;
  /** Time of the final state root (basalt_execution_state_root_seconds: its sum's increase). */
  stateRootMs: number;
  /** Trie node reads by where they were answered (basalt_storage_trie_reads_total increases). */
  trieReads: Record<TrieReadSource, number>;
  /** Major page faults of the process (pages read from disk through the LMDB map). */
  majorFaults: number;
  /** /proc/self/io read_bytes increase: bytes this process caused to be read from the block device. */
  ioReadBytes: number;
  /** /proc/self/io write_bytes increase: bytes this process caused to be written (dirty map pages may be attributed when the kernel writes them back). */
  ioWriteBytes: number;
  /** data.mdb's allocated bytes after minus before. */
  diskDeltaBytes: number;
}

/** p50 / p99 / mean of one figure over a pass. */
export interface Spread {
  p50: number;
  p99: number;
  mean: number;
}

/** The figures of a pass (a third of the blocks). */
export interface PassSummary {
  name: "cold" | "warm" | "steady";
  blocks: number;
  firstBlock: number;
  lastBlock: number;
  gas: number;
  /** Total gas over total wall time of the pass. */
  mgasPerSecond: number;
  /** Total gas over total CPU time of the pass. */
  mgasPerCpuSecond: number;
  wallMs: Spread;
  cpuMs: Spread;
  stateRootMs: Spread;
  trieReadsDisk: Spread;
  trieReadsCache: Spread;
  trieReadsMissing: Spread;
  majorFaults: Spread;
  ioReadBytes: Spread;
  ioWriteBytes: Spread;
  /** data.mdb growth over the pass divided by its blocks. */
  diskGrowthPerBlockBytes: number;
}

/** What an import run measured. */
export interface ImportReport {
  /** Bytes of data.mdb in the page cache before and after the eviction (fincore; undefined without it). */
  cachedBeforeEvictBytes?: number;
  cachedAfterEvictBytes?: number;
  evicted: boolean;
  /** Seconds to open the chain (store, genesis, head). */
  openSeconds: number;
  blocks: BlockRecord[];
  passes: PassSummary[];
  /** Resident set size of the importing process at the end. */
  rssBytes: number;
  dataBytesBefore: number;
  dataBytesAfter: number;
  headStateRoot: string;
}

/**
 * Drops `file`'s pages from the page cache: `dd iflag=nocache count=0` makes GNU dd call
 * posix_fadvise(POSIX_FADV_DONTNEED) on the whole file (dirty pages are not dropped; the
 * datadir is closed and synced when this is called). Returns whether dd succeeded.
 */
export function evictPageCache(file: string): boolean {
  return spawnSync("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"]).status === 0;
}

/** Bytes of `file` in the page cache (util-linux fincore), or undefined when fincore is missing or fails. */
export function cachedBytes(file: string): number | undefined {
  const r = spawnSync("fincore", ["--bytes", "--noheadings", "--output", "RES", file], { encoding: "utf8" });
  if (r.status !== 0) return undefined;
  const n = Number(r.stdout.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** read_bytes and write_bytes of /proc/self/io (zeros where it does not exist). */
function procIo(): { read: number; write: number } {
  if (!existsSync("/proc/self/io")) return { read: 0, write: 0 };
  const text = readFileSync("/proc/self/io", "utf8");
  const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(text)?.[1] ?? 0);
  return { read: field("read_bytes"), write: field("write_bytes") };
}

async function trieReads(): Promise<Record<TrieReadSource, number>> {
  const out: Record<TrieReadSource, number> = { cache: 0, disk: 0, missing: 0 };
  for (const v of (await trieReadsTotal.get()).values) out[v.labels.source as TrieReadSource] = v.value;
  return out;
}

async function stateRootSum(): Promise<number> {
  const v = (await stateRootSeconds.get()).values.find((x) => x.metricName === "basalt_execution_state_root_seconds_sum");
  return v?.value ?? 0;
}

/** p50 / p99 (nearest rank) and mean of `xs`. */
export function spread(xs: number[]): Spread {
  if (xs.length === 0) return { p50: 0, p99: 0, mean: 0 };
  const s = latencyStats(xs);
  return { p50: s.p50, p99: s.p99, mean: xs.reduce((a, b) => a + b, 0) / xs.length };
}

/** The three passes' summaries: blocks [0, ⌊B/3⌋), [⌊B/3⌋, ⌊2B/3⌋), [⌊2B/3⌋, B). */
export function summarizePasses(blocks: BlockRecord[]): PassSummary[] {
  const n = blocks.length;
  const cuts = [0, Math.floor(n / 3), Math.floor((2 * n) / 3), n];
  const names = ["cold", "warm", "steady"] as const;
  const out: PassSummary[] = [];
  for (let p = 0; p < 3; p++) {
    const bs = blocks.slice(cuts[p], cuts[p + 1]);
    if (bs.length === 0) continue;
    const gas = bs.reduce((a, b) => a + b.gas, 0);
    const wall = bs.reduce((a, b) => a + b.wallMs, 0);
    const cpu = bs.reduce((a, b) => a + b.cpuMs, 0);
    const of = (f: (b: BlockRecord) => number): Spread => spread(bs.map(f));
    out.push({
      name: names[p]!,
      blocks: bs.length,
      firstBlock: bs[0]!.number,
      lastBlock: bs[bs.length - 1]!.number,
      gas,
      mgasPerSecond: gas / 1e6 / (wall / 1000),
      mgasPerCpuSecond: gas / 1e6 / (cpu / 1000),
      wallMs: of((b) => b.wallMs),
      cpuMs: of((b) => b.cpuMs),
      stateRootMs: of((b) => b.stateRootMs),
      trieReadsDisk: of((b) => b.trieReads.disk),
      trieReadsCache: of((b) => b.trieReads.cache),
      trieReadsMissing: of((b) => b.trieReads.missing),
      majorFaults: of((b) => b.majorFaults),
      ioReadBytes: of((b) => b.ioReadBytes),
      ioWriteBytes: of((b) => b.ioWriteBytes),
      diskGrowthPerBlockBytes: bs.reduce((a, b) => a + b.diskDeltaBytes, 0) / bs.length,
    });
  }
  return out;
}

/**
 * Imports `rlps` (blocks 1..B of the datadir's chain) into `datadir` (archive off, default
 * history), measuring each block; with `evict`, first drops data.mdb from the page cache.
 * Senders are recovered on the importing thread (no execution pool), so the CPU figure is the
 * whole import's. Throws what `Chain.importBlock` throws (a header root that does not match, …).
 */
export async function importBlocks(datadir: string, rlps: Uint8Array[], opts: { evict: boolean; onBlock?: (r: BlockRecord) => void }): Promise<ImportReport> {
  const file = dataFile(datadir);
  const cachedBeforeEvictBytes = cachedBytes(file);
  const evicted = opts.evict && evictPageCache(file);
  const cachedAfterEvictBytes = cachedBytes(file);
  const dataBytesBefore = diskBytes(file);
  const t0 = performance.now();
  // As the node opens it: kernel readahead off (`--db.read-ahead` not given).
  const chain = Chain.open(datadir, { archive: false, logger: pino({ level: "silent" }), readAhead: false });
  const openSeconds = (performance.now() - t0) / 1000;
  const records: BlockRecord[] = [];
  try {
    for (const rlp of rlps) {
      const block = decodeBlockFromRlp(chain, rlp);
      const reads0 = await trieReads();
      const root0 = await stateRootSum();
      const io0 = procIo();
      const disk0 = diskBytes(file);
      const faults0 = process.resourceUsage().majorPageFault;
      const cpu0 = process.cpuUsage();
      const w0 = performance.now();
      const ex = await chain.importBlock(block);
      const wallMs = performance.now() - w0;
      const cpu = process.cpuUsage(cpu0);
      const faults = process.resourceUsage().majorPageFault - faults0;
      const io = procIo();
      const reads = await trieReads();
      const gas = Number(ex.gasUsed);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const r: BlockRecord = {
        number: Number(block.header.number),
        txs: block.transactions.length,
        gas,
        wallMs,
        cpuMs,
        mgasPerSecond: gas / 1e6 / (wallMs / 1000),
        mgasPerCpuSecond: cpuMs === 0 ? 0 : gas / 1e6 / (cpuMs / 1000),
        stateRootMs: ((await stateRootSum()) - root0) * 1000,
        trieReads: { cache: reads.cache - reads0.cache, disk: reads.disk - reads0.disk, missing: reads.missing - reads0.missing },
        majorFaults: faults,
        ioReadBytes: io.read - io0.read,
        ioWriteBytes: io.write - io0.write,
        diskDeltaBytes: diskBytes(file) - disk0,
      };
      records.push(r);
      opts.onBlock?.(r);
    }
    return {
      cachedBeforeEvictBytes,
      cachedAfterEvictBytes,
      evicted,
      openSeconds,
      blocks: records,
      passes: summarizePasses(records),
      rssBytes: process.memoryUsage().rss,
      dataBytesBefore,
      dataBytesAfter: diskBytes(file),
      headStateRoot: Buffer.from(chain.head.header.stateRoot).toString("hex"),
    };
  } finally {
    await chain.close();
  }
}
