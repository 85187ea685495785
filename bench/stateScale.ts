/**
 * The state-scale benchmark (issue 25; `basalt bench state-scale`, bench/state-scale/cli.ts): how
 * basalt's storage layout (docs/ARCHITECTURE.md "Storage layout") behaves with a mainnet-sized
 * state that does not fit the page cache.
 *
 * 1. Disk check: the space the run needs (estimated from measured bytes per account and per
 *    slot) against what the work directory's filesystem has free; refused when short.
 * 2. Synthesis (bench/state-scale/synth.ts): N accounts and M slots streamed into
 *    `Chain.initWithState` in hashed-key order; time, accounts/s, bytes per account and per slot
 *    from LMDB's per-table page counts.
 * 3. Blocks (bench/state-scale/blocks.ts): B blocks of T transactions sealed on a copy of the
 *    datadir (deleted afterwards).
 * 4. Import (bench/state-scale/importPass.ts) in a fresh process after dropping the page cache:
 *    cold / warm / steady thirds, per block wall and CPU time, Mgas/s, state-root time, trie
 *    reads by source, major faults, block-device bytes, disk growth.
 * 5. RPC (bench/state-scale/rpcPass.ts): a real `basalt node` on the datadir, cold and warm
 *    passes of balance, balanceOf, proof and historical balanceOf requests, every answer checked.
 *
 * Run as a script with `--import-child <datadir> <blocks file> <result file>` it is step 4's child.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ChainStore } from "../src/storage/store.js";
import { verifyState } from "../src/storage/bulkLoad.js";
import { buildBlocks } from "./state-scale/blocks.js";
import { importBlocks, type ImportReport, type PassSummary, type Spread } from "./state-scale/importPass.js";
import { RPC_KINDS, rpcPasses, type RpcFigures, type RpcReport } from "./state-scale/rpcPass.js";
import { DEFAULT_SEED, SENDER_COUNT, StateScaleError, planState, synthesize, type StatePlan, type SynthResult } from "./state-scale/synth.js";

/**
 * Bytes of data.mdb per account of the synthesized state, for the disk check: hashedAccounts +
 * accountTrie measured 116 B per account at 200 k accounts (`--accounts 200000 --slots 600000
 * --contracts 200`: flat entries 55 B, account-trie branch records 61 B per account), LMDB's
 * page counts × page size; ~12 % added for the deeper trie and B-trees of a state 50–150 × larger.
 */
export const EST_BYTES_PER_ACCOUNT = 130;
/** Bytes of data.mdb per storage slot: hashedStorage + storageTrie measured 147 B per slot in the same run (82 flat, 65 trie), ~12 % added likewise. */
export const EST_BYTES_PER_SLOT = 165;
/**
 * Bytes a benchmark block adds to data.mdb per transaction, in each of the two copies (body,
 * receipt, senders, tx index, history, change sets, and LMDB's copy-on-write pages before its
 * free list is reused): measured ~4 KiB per transaction at steady state in the same run (50-tx
 * blocks), rounded up.
 */
export const EST_BYTES_PER_TX = 6144;
/**
 * The disk a run needs relative to one state: the synthesized datadir, its copy where the blocks
 * are sealed (both exist until the copy is deleted), and 10 % for LMDB's free pages and growth.
 */
export const STATE_COPIES_FACTOR = 2.2;
/** Requests per kind and pass of the RPC passes. */
export const DEFAULT_RPC_REQUESTS = 200;

/** The presets of the issue: S1 (10 M accounts, 30 M slots), S2 (30 M, 90 M). */
export const PRESETS = {
  S1: { accounts: 10_000_000, slots: 30_000_000 },
  S2: { accounts: 30_000_000, slots: 90_000_000 },
} as const;
export type PresetName = keyof typeof PRESETS;

/** Options of a run. */
export interface StateScaleOptions {
  accounts: number;
  slots: number;
  contracts: number;
  holders: number;
  senders: number;
  blocks: number;
  txs: number;
  seed: number;
  /** Work directory (created; must be empty); default a new one under os.tmpdir(). */
  dir?: string;
  /** Keep the work directory (the datadir after import) at the end. */
  keep: boolean;
  /** Where to write every figure as JSON. */
  json?: string;
  skipRpc: boolean;
  rpcRequests: number;
  /** Rebuild and compare every trie of the synthesized state (`verifyState`) before the blocks (minutes at S1). */
  verify: boolean;
  /** Import in a fresh child process (default; needs the compiled bench) rather than in this one (tests). */
  childProcess: boolean;
  /** Write a V8 CPU profile of the import child into this directory (`node --cpu-prof`; open it in Chrome DevTools). */
  cpuProfDir?: string;
}

/** The default options for `accounts` and `slots`: holders min(1 M, N/10), 3,000 contracts, 300 blocks of 200 transactions. */
export function defaultOptions(accounts: number = PRESETS.S1.accounts, slots: number = PRESETS.S1.slots): StateScaleOptions {
  return {
    accounts,
    slots,
    contracts: 3000,
    holders: Math.min(1_000_000, Math.floor(accounts / 10)),
    senders: SENDER_COUNT,
    blocks: 300,
    txs: 200,
    seed: DEFAULT_SEED,
    keep: false,
    skipRpc: false,
    rpcRequests: DEFAULT_RPC_REQUESTS,
    verify: false,
    childProcess: true,
  };
}

/** The disk a run needs, estimated. */
export interface DiskEstimate {
  stateBytes: number;
  blocksBytes: number;
  neededBytes: number;
  freeBytes: number;
}

/** Estimates the disk of a run and reads the free space of `dir`'s filesystem (statfs: blocks available to this user). */
export function estimateDisk(opts: Pick<StateScaleOptions, "accounts" | "slots" | "blocks" | "txs">, dir: string): DiskEstimate {
  const stateBytes = opts.accounts * EST_BYTES_PER_ACCOUNT + opts.slots * EST_BYTES_PER_SLOT;
  const blocksBytes = 2 * opts.blocks * opts.txs * EST_BYTES_PER_TX;
  const fs = statfsSync(dir);
  return { stateBytes, blocksBytes, neededBytes: Math.ceil(stateBytes * STATE_COPIES_FACTOR + blocksBytes), freeBytes: fs.bavail * fs.bsize };
}

const GIB = 1024 ** 3;
const gib = (b: number): string => `${(b / GIB).toFixed(2)} GiB`;

/** @throws StateScaleError `BENCH_STATE_SCALE_DISK` when `e` needs more than is free. */
export function checkDisk(e: DiskEstimate, dir: string): void {
  if (e.neededBytes > e.freeBytes) {
    throw new StateScaleError(
      "BENCH_STATE_SCALE_DISK",
      `the run needs about ${gib(e.neededBytes)} in ${dir} (state ~${gib(e.stateBytes)} × ${STATE_COPIES_FACTOR} for the datadir and its copy, blocks ~${gib(e.blocksBytes)}); ` +
        `${gib(e.freeBytes)} is free there: free some space or give --dir on a larger filesystem`,
      { neededBytes: e.neededBytes, freeBytes: e.freeBytes },
    );
  }
}

/** Everything a run measured (the JSON file). */
export interface StateScaleReport {
  options: Omit<StateScaleOptions, "json" | "dir" | "childProcess">;
  machine: { cpu: string; cores: number; node: string; evm: string };
  workDir: string;
  disk: DiskEstimate;
  plan: { senders: number; holders: number; tokenSlots: number; allocAccounts: number; allocSlots: number; fillerAccounts: number; fillerContracts: number; largestContractSlots: number };
  synth: SynthResult;
  verify?: { seconds: number; accounts: number; slots: number; nodes: number; problems: string[] };
  blocks: { count: number; txsPerBlock: number; kinds: Record<string, number>; sealSeconds: number; touchedHolders: number };
  import: ImportReport;
  rpc?: RpcReport;
}

/** Writes `rlps` length-prefixed (4-byte big-endian length, then the bytes) to `file`. */
function writeBlocks(file: string, rlps: Uint8Array[]): void {
  const parts: Buffer[] = [];
  for (const r of rlps) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(r.length);
    parts.push(len, Buffer.from(r));
  }
  writeFileSync(file, Buffer.concat(parts));
}

function readBlocks(file: string): Uint8Array[] {
  const b = readFileSync(file);
  const out: Uint8Array[] = [];
  for (let at = 0; at < b.length; ) {
    const len = b.readUInt32BE(at);
    out.push(b.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

/** Runs the import in a fresh `node` process (this module as a script) and returns its report. */
async function importInChild(datadir: string, blocksFile: string, resultFile: string, cpuProfDir?: string): Promise<ImportReport> {
  const script = fileURLToPath(import.meta.url);
  if (!script.endsWith(".js")) {
    throw new StateScaleError("BENCH_STATE_SCALE_CHILD", `the import child runs the compiled module, but this is ${script}: run the compiled bench (npm run build) or import in process`);
  }
  const profile = cpuProfDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", cpuProfDir];
  const child = spawn(process.execPath, [...profile, script, "--import-child", datadir, blocksFile, resultFile], { stdio: ["ignore", "inherit", "inherit"] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (c) => resolve(c));
  });
  if (code !== 0 || !existsSync(resultFile)) throw new StateScaleError("BENCH_STATE_SCALE_CHILD", `the import child exited with ${code}: expected 0 and its report in ${resultFile}`);
  return JSON.parse(readFileSync(resultFile, "utf8")) as ImportReport;
}

/** The work directory: `dir` (created, must be empty) or a new temporary one. */
function workDirOf(dir: string | undefined): string {
  if (dir === undefined) return mkdtempSync(join(tmpdir(), "basalt-state-scale-"));
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length > 0) throw new StateScaleError("BENCH_STATE_SCALE_ARGS", `--dir ${dir} is not empty: an empty or new directory expected`);
  return dir;
}

/**
 * Runs the benchmark (module comment) and returns every figure; writes them to `opts.json` when
 * given. Progress lines go to `log`. The work directory is removed at the end unless `keep`.
 * @throws StateScaleError on a short disk, impossible counts, a failed child; an RPC pass with wrong
 *   answers throws `BENCH_STATE_SCALE_RPC` after the report is written.
 */
export async function runStateScale(opts: StateScaleOptions, log: (line: string) => void = (l) => process.stderr.write(l + "\n")): Promise<StateScaleReport> {
  const plan: StatePlan = planState({ accounts: opts.accounts, slots: opts.slots, contracts: opts.contracts, holders: opts.holders, senders: opts.senders, seed: opts.seed });
  const probe = opts.dir === undefined ? tmpdir() : existsSync(opts.dir) ? opts.dir : dirname(opts.dir);
  const disk = estimateDisk(opts, probe);
  checkDisk(disk, probe);
  log(`state-scale: needs ~${gib(disk.neededBytes)}, ${gib(disk.freeBytes)} free`);
  const work = workDirOf(opts.dir);
  const synthDir = join(work, "datadir");
  try {
    log(`state-scale: synthesizing ${opts.accounts} accounts, ${opts.slots} slots (${opts.contracts} filler contracts, ${opts.holders} holders, ${opts.senders} senders) in ${synthDir}`);
    let lastLog = performance.now();
    const synth = await synthesize(synthDir, plan, (p) => {
      if (performance.now() - lastLog < 5000) return;
      lastLog = performance.now();
      log(`state-scale:   phase ${p.phase}: ${p.accounts} accounts, ${p.slots} slots`);
    });
    log(`state-scale: synthesized in ${synth.seconds.toFixed(1)} s (${Math.round(synth.accountsPerSecond)} accounts/s), data.mdb ${gib(synth.dataBytes)}`);
    let verify: StateScaleReport["verify"];
    if (opts.verify) {
      const t0 = performance.now();
      const store = ChainStore.open(synthDir, { readOnly: true });
      try {
        const v = verifyState(store, Buffer.from(synth.stateRoot, "hex"));
        verify = { seconds: (performance.now() - t0) / 1000, accounts: v.accounts, slots: v.slots, nodes: v.nodes, problems: v.problems };
      } finally {
        await store.close();
      }
      log(`state-scale: verified ${verify.accounts} accounts, ${verify.slots} slots, ${verify.nodes} trie nodes: ${verify.problems.length} problems`);
    }
    log(`state-scale: sealing ${opts.blocks} blocks of ${opts.txs} transactions on a copy`);
    const built = await buildBlocks(synthDir, join(work, "build"), plan, opts.blocks, opts.txs);
    log(`state-scale: sealed in ${built.seconds.toFixed(1)} s; importing ${built.rlps.length} blocks${opts.childProcess ? " in a fresh process" : ""}`);
    let imported: ImportReport;
    if (opts.childProcess) {
      const blocksFile = join(work, "blocks.bin");
      writeBlocks(blocksFile, built.rlps);
      imported = await importInChild(synthDir, blocksFile, join(work, "import.json"), opts.cpuProfDir);
    } else {
      imported = await importBlocks(synthDir, built.rlps, { evict: true });
    }
    let rpc: RpcReport | undefined;
    if (!opts.skipRpc) {
      log(`state-scale: RPC passes on a basalt node`);
      rpc = await rpcPasses(synthDir, plan, built.touchedHolders, opts.rpcRequests);
    }
    const report: StateScaleReport = {
      options: { accounts: opts.accounts, slots: opts.slots, contracts: opts.contracts, holders: opts.holders, senders: opts.senders, blocks: opts.blocks, txs: opts.txs, seed: opts.seed, keep: opts.keep, skipRpc: opts.skipRpc, rpcRequests: opts.rpcRequests, verify: opts.verify },
      machine: { cpu: cpus()[0]?.model ?? "?", cores: availableParallelism(), node: process.version, evm: process.env.BASALT_EVM ?? "fast" },
      workDir: work,
      disk,
      plan: {
        senders: plan.senders.length,
        holders: plan.shape.holders,
        tokenSlots: plan.tokenSlots,
        allocAccounts: plan.allocAccounts,
        allocSlots: plan.allocSlots,
        fillerAccounts: plan.fillerAccounts,
        fillerContracts: plan.fillerSlotCounts.length,
        largestContractSlots: Math.max(0, ...plan.fillerSlotCounts),
      },
      synth,
      ...(verify === undefined ? {} : { verify }),
      blocks: { count: built.rlps.length, txsPerBlock: opts.txs, kinds: built.kinds, sealSeconds: built.seconds, touchedHolders: built.touchedHolders.size },
      import: imported,
      ...(rpc === undefined ? {} : { rpc }),
    };
    if (opts.json !== undefined) writeFileSync(opts.json, JSON.stringify(report, null, 2) + "\n");
    const wrong = rpc?.passes.flatMap((p) => RPC_KINDS.map((k) => p.kinds[k])).filter((f) => f.wrong > 0) ?? [];
    if (wrong.length > 0) {
      process.stdout.write(formatReport(report));
      throw new StateScaleError("BENCH_STATE_SCALE_RPC", `wrong RPC answers: ${wrong.map((f) => f.firstWrong).join("; ")}`);
    }
    return report;
  } finally {
    if (opts.keep) log(`state-scale: kept ${work}`);
    // A --dir given is emptied, not removed; a temporary work directory is removed.
    else if (opts.dir === undefined) rmSync(work, { recursive: true, force: true });
    else for (const f of readdirSync(work)) rmSync(join(work, f), { recursive: true, force: true });
  }
}

// ---- the report -------------------------------------------------------------------------------

const MIB = 1024 ** 2;
const f1 = (x: number): string => x.toFixed(1);
const f0 = (x: number): string => Math.round(x).toString();
const sp = (s: Spread, fmt: (x: number) => string): string => `${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.mean)}`;
const kib = (x: number): string => (x / 1024).toFixed(0);

function table(head: string[], rows: string[][]): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n") + "\n";
}

function passRow(p: PassSummary): string[] {
  return [
    `${p.name} (${p.firstBlock}–${p.lastBlock})`,
    f1(p.mgasPerSecond),
    f1(p.mgasPerCpuSecond),
    sp(p.wallMs, f1),
    sp(p.cpuMs, f1),
    sp(p.stateRootMs, f1),
    sp(p.trieReadsDisk, f0),
    sp(p.trieReadsCache, f0),
    sp(p.majorFaults, f0),
    sp(p.ioReadBytes, kib),
    sp(p.ioWriteBytes, kib),
    kib(p.diskGrowthPerBlockBytes),
  ];
}

/** The report as readable text: what each figure includes is said beside it. */
export function formatReport(r: StateScaleReport): string {
  const s = r.synth;
  const out: string[] = [];
  out.push(`basalt state-scale: ${r.options.accounts} accounts, ${r.options.slots} slots, ${r.options.contracts} filler contracts (largest ${r.plan.largestContractSlots} slots), ${r.plan.holders} holders, ${r.plan.senders} senders; seed ${r.options.seed}`);
  out.push(`machine: ${r.machine.cpu} × ${r.machine.cores}, node ${r.machine.node}, EVM ${r.machine.evm}; work dir ${r.workDir}`);
  out.push("");
  out.push(`Synthesis (Chain.initWithState: flat tables, storage tries, account trie, genesis block): ${f1(s.seconds)} s, ${f0(s.accountsPerSecond)} accounts/s (slots included in the time)`);
  out.push(`data.mdb ${(s.dataBytes / MIB).toFixed(1)} MiB allocated = ${f1(s.bytesPerEntry)} B per (account + slot); per table (LMDB page counts × page size):`);
  out.push(
    table(
      ["table", "entries", "MiB", "B/entry", "depth"],
      Object.entries(s.tables)
        .filter(([, t]) => t.entries > 0)
        .map(([name, t]) => [name, String(t.entries), (t.bytes / MIB).toFixed(1), f1(t.bytes / t.entries), String(t.depth)]),
    ),
  );
  out.push(`bytes per account (hashedAccounts + accountTrie) ${f1(s.bytesPerAccount)}; per slot (hashedStorage + storageTrie) ${f1(s.bytesPerSlot)}; estimate used for the disk check: ${EST_BYTES_PER_ACCOUNT} / ${EST_BYTES_PER_SLOT}`);
  if (r.verify !== undefined) out.push(`verifyState: ${r.verify.accounts} accounts, ${r.verify.slots} slots, ${r.verify.nodes} trie nodes, ${r.verify.problems.length} problems, ${f1(r.verify.seconds)} s`);
  out.push("");
  const i = r.import;
  const cached = (b: number | undefined): string => (b === undefined ? "?" : `${(b / MIB).toFixed(1)} MiB`);
  out.push(
    `Import (${r.blocks.count} blocks × ${r.blocks.txsPerBlock} txs: ${r.blocks.kinds.erc20} ERC-20 to existing holders, ${r.blocks.kinds.ethHolder} ETH to existing holders, ${r.blocks.kinds.ethNew} ETH to new accounts; ` +
      `Chain.importBlock in a fresh process, archive off, kernel readahead off as the node has it, senders recovered inline). Page cache of data.mdb: ${cached(i.cachedBeforeEvictBytes)} before, ${cached(i.cachedAfterEvictBytes)} after eviction${i.evicted ? "" : " (eviction FAILED)"}; open ${f1(i.openSeconds * 1000)} ms`,
  );
  out.push("Mgas/s = pass gas / pass wall time; Mgas per CPU-s = pass gas / pass CPU time (all threads); other cells p50 / p99 / mean per block; IO = /proc/self/io block-device bytes");
  out.push(
    table(
      ["pass (blocks)", "Mgas/s", "Mgas/CPU-s", "wall ms", "CPU ms", "state root ms", "trie reads disk", "trie reads cache", "major faults", "IO read KiB", "IO write KiB", "disk growth KiB/block"],
      i.passes.map(passRow),
    ),
  );
  out.push(`RSS of the importing process at the end: ${(i.rssBytes / MIB).toFixed(0)} MiB; data.mdb ${(i.dataBytesBefore / MIB).toFixed(1)} → ${(i.dataBytesAfter / MIB).toFixed(1)} MiB`);
  if (r.rpc !== undefined) {
    const p = r.rpc;
    out.push("");
    out.push(
      `RPC (basalt node, one request at a time on one keep-alive connection of the load generator's client, ${p.perKind} per kind and pass, holders distinct and untouched by the blocks; latency = request written to response read, in ms; ` +
        `anchor: a bare uWebSockets.js handler in its own process answering a balance-sized result to the same client, just before each pass; head ${p.head}, historical block ${p.historicalBlock}). ` +
        `Page cache ${cached(p.cachedBeforeEvictBytes)} before, ${cached(p.cachedAfterEvictBytes)} after eviction; node ready in ${f0(p.startMs)} ms; node RSS at the end ${p.nodeRssMiB ?? "?"} MiB`,
    );
    out.push(
      table(
        ["pass", "kind", "p50 ms", "p99 ms", "mean ms", "max ms", "wrong"],
        p.passes.flatMap((pass) => {
          const row = (kind: string, f: RpcFigures): string[] => [pass.name, kind, f.p50Ms.toFixed(2), f.p99Ms.toFixed(2), f.meanMs.toFixed(2), f.maxMs.toFixed(2), String(f.wrong)];
          return [row("bare handler (anchor)", pass.anchor), ...RPC_KINDS.map((k) => row(k, pass.kinds[k]))];
        }),
      ),
    );
  }
  return out.join("\n") + "\n";
}

// ---- the import child -------------------------------------------------------------------------

async function childMain(argv: string[]): Promise<void> {
  const [datadir, blocksFile, resultFile] = argv;
  if (datadir === undefined || blocksFile === undefined || resultFile === undefined) {
    throw new StateScaleError("BENCH_STATE_SCALE_ARGS", "--import-child needs <datadir> <blocks file> <result file>");
  }
  const report = await importBlocks(datadir, readBlocks(blocksFile), {
    evict: true,
    onBlock: (b) => {
      if (b.number % 25 === 0) process.stderr.write(`state-scale:   imported block ${b.number}\n`);
    },
  });
  writeFileSync(resultFile, JSON.stringify(report));
}

if (process.argv[1] !== undefined && process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "--import-child") {
  try {
    await childMain(process.argv.slice(3));
  } catch (e) {
    process.stderr.write(`state-scale import child: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  }
}
