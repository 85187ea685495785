/**
 * Bench: the historical proofs extension on a devnet chain of `blocks` blocks of mixed traffic
 * (a transfer to a new account, an ERC-20 transfer and a balance written and cleared per block).
 *
 * 1. In-process, on the built chain:
 *    - init: the baseline at the head, then the backward backfill to genesis (blocks/s);
 *    - forward sync of `forward` more blocks (ms per block);
 *    - the store's size on disk per block of window.
 * 2. `eth_getProof` of the ERC-20 (one account, two storage slots) over HTTP, each server in its
 *    own process, driven by the load generator (bench/load): sequential p50/p99 (one request in
 *    flight) and req/s with `concurrency` in flight, `seconds` each, after a warm-up. The requests
 *    are {@link DISTINCT_BODIES} distinct bodies, round-robin: each asks for the balances of two
 *    other token holders (as a bridge proving its users' balances would). On a chain this small
 *    the proofs store's version cache ends up holding every node those bodies read at one block,
 *    so a third basalt row spreads the bodies over blocks 1–256: each block's upper trie nodes
 *    are other versions, read from RocksDB (the cache keeps a few ranges per path).
 *    - `basalt node --historical-proofs` on that datadir, at the window's far end (block 1) and
 *      at `latest`;
 *    - anvil at `latest`, after the same signed transactions in the same blocks (same token,
 *      balances and new accounts), so the answers compare;
 *    - the calibration: a bare uWebSockets.js handler answering basalt's `latest` answer bytes
 *      with no work. A req/s figure at or above {@link GENERATOR_BOUND_FRACTION} of the bare
 *      handler's is the generator's as much as the server's: it is marked GENERATOR-BOUND and
 *      not printed as the server's.
 *    Printed: one JSON line, then the table (with far end / latest).
 *
 * Usage: node dist/bench/proofs.js [blocks=300] [forward=50] [seconds=3] [concurrency=8]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, createAddressFromString, createContractAddress, hexToBytes } from "@ethereumjs/util";
import { pino } from "pino";
import { Chain } from "../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { ProofsStore } from "../src/proofs/store.js";
import { ProofsSync } from "../src/proofs/sync.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";
import { keccak256 } from "../src/util/keccak.js";
import { GENERATOR_BOUND_FRACTION, isGeneratorBound } from "./load/calibrate.js";
import { DEFAULT_THREADS, LoadGenerator, SAMPLE_BYTES } from "./load/generator.js";
import { renderTable } from "./load/report.js";
import { DEFAULT_TIMEOUT_MS } from "./load/run.js";
import { fmtMs, fmtRate, GENERATOR_BOUND } from "./load/table.js";
import { startAnvil } from "./scenario/anvil.js";
import { startBareServer } from "./scenario/bareServer.js";
import { startBasalt } from "./scenario/basalt.js";
import { applyWorkload } from "./scenario/chain.js";
import { ScenarioError } from "./scenario/errors.js";
import { stopAllChildren } from "./scenario/processes.js";
import { rpc } from "./scenario/rpc.js";
import { balanceSlot, tokenInitCode, transferCalldata } from "./workload/contracts.js";

const log = pino({ level: "silent" });
const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): Uint8Array => hexToBytes(accounts[i]!.address as `0x${string}`);
/**
 * Distinct `eth_getProof` bodies each measurement cycles through: the token holders' balance slots
 * of different pairs, so no body repeats within a second at the measured rates.
 */
const DISTINCT_BODIES = 256;
/** Unmeasured closed-loop seconds before each server's figures (JIT, connections, caches). */
const WARMUP_SECONDS = 1;
/** How long the proofs store of the started node may take to publish its window. */
const WINDOW_TIMEOUT_MS = 60_000;

/** Builds `blocks` blocks of traffic on the chain; returns the token and each block's signed transactions (to replay elsewhere). */
async function buildChain(chain: Chain, blocks: number, from = 0): Promise<{ token: Uint8Array; rounds: Uint8Array[][] }> {
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, log);
  const nonces = [0n, 0n, 0n].map((_, i) => chain.stateAt(chain.head.header).account(addr(i))?.nonce ?? 0n);
  const rounds: Uint8Array[][] = [];
  const send = async (i: number, to: Uint8Array | undefined, data: Uint8Array, value: bigint): Promise<void> => {
    const common = chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n);
    const tx = createFeeMarket1559Tx({ chainId: chain.chainId, nonce: nonces[i]!++, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 500_000n, to, data, value }, { common }).sign(key(i));
    const raw = tx.serialize();
    rounds[rounds.length - 1]!.push(raw);
    await pool.addRaw(raw);
  };
  const token = createContractAddress(createAddressFromString(bytesToHex(addr(0))), 0n).bytes;
  for (let b = from; b < from + blocks; b++) {
    rounds.push([]);
    if (b === 0) await send(0, undefined, tokenInitCode(10n ** 24n), 0n);
    else {
      await send(1, keccak256(Uint8Array.of(b >> 8, b & 0xff, 9)).subarray(12), new Uint8Array(0), 1n);
      await send(0, token, transferCalldata(holderOf(b), 5n), 0n);
      if (b % 2 === 1) await send(0, token, transferCalldata(addr(2), 50n), 0n);
      else await send(2, token, transferCalldata(addr(0), 50n), 0n);
    }
    await seq.sealOne();
  }
  return { token, rounds };
}

/** The token holder block `b` pays (a new one each block). */
function holderOf(b: number): Uint8Array {
  return keccak256(Uint8Array.of(b >> 8, b & 0xff, 7)).subarray(12);
}

function duBytes(dir: string): number {
  return Number(execFileSync("du", ["-sb", dir]).toString().split("\t")[0]);
}

/** One server's `eth_getProof` figures. */
interface Served {
  /** sequential latency (one request in flight), ms */
  p50: number;
  p99: number;
  /** req/s with `concurrency` in flight */
  rps: number;
  /** rps is at least GENERATOR_BOUND_FRACTION of the bare handler's: not the server's figure */
  generatorBound?: boolean;
  failed: number;
  answerBytes: number;
  /** nodes of the account proof (the depth of the account trie at the token) */
  accountProofNodes: number;
}

/** Measures `bodies` (round-robin) against `url` with the load generator; returns the figures and the first answer's bytes. */
async function measure(url: string, bodies: string[], seconds: number, concurrency: number): Promise<{ served: Served; answer: Buffer }> {
  const gen = await LoadGenerator.start({ url, corpus: { name: "eth_getProof", bodies }, threads: DEFAULT_THREADS, timeoutMs: DEFAULT_TIMEOUT_MS, sampleBytes: SAMPLE_BYTES });
  try {
    const { outcome, ok } = await gen.capture(0);
    // The body crosses from a generator thread as a plain Uint8Array.
    const answer = outcome.body === undefined ? undefined : Buffer.from(outcome.body);
    if (!ok || answer === undefined) {
      throw new ScenarioError("BENCH_SCENARIO_RPC", `${url} eth_getProof: a result expected, got ${answer?.toString("utf8").slice(0, 200) ?? outcome.error}`);
    }
    const result = (JSON.parse(answer.toString("utf8")) as { result?: { accountProof?: unknown[] } }).result;
    await gen.closed({ concurrency: 1, pipeline: 1, seconds: WARMUP_SECONDS });
    const seq = await gen.closed({ concurrency: 1, pipeline: 1, seconds });
    const par = await gen.closed({ concurrency, pipeline: 1, seconds });
    const served = { p50: seq.p50, p99: seq.p99, rps: Math.round(par.rps), failed: seq.failed + par.failed, answerBytes: answer.length, accountProofNodes: result?.accountProof?.length ?? 0 };
    return { served, answer };
  } finally {
    await gen.close();
  }
}

/** The figures as a table, bound req/s figures marked instead of printed. */
function table(rows: Array<[string, string, Served]>, concurrency: number): string[] {
  return renderTable({
    header: ["endpoint", "block", "answer B", "proof nodes", "p50 ms", "p99 ms", `req/s x${concurrency}`],
    rows: rows.map(([endpoint, block, s]) => [
      endpoint,
      block,
      String(s.answerBytes),
      String(s.accountProofNodes),
      fmtMs(s.p50),
      fmtMs(s.p99),
      s.generatorBound === true ? GENERATOR_BOUND : fmtRate(s.rps),
    ]),
  });
}

async function main(): Promise<void> {
  const blocks = Number(process.argv[2] ?? 300);
  const forward = Number(process.argv[3] ?? 50);
  const seconds = Number(process.argv[4] ?? 3);
  const concurrency = Number(process.argv[5] ?? 8);
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-proofs-"));
  try {
    await Chain.init(datadir, devnetGenesis(), { archive: true });
    const chain = Chain.open(datadir, { logger: log });
    const built = await buildChain(chain, blocks);
    const token = built.token;

    // 1. In-process: init (baseline + backward backfill), forward sync, size.
    const proofsDir = join(datadir, "proofs");
    const store = await ProofsStore.open(proofsDir, { chainId: chain.chainId, genesisHash: chain.genesisHash });
    const sync = new ProofsSync(chain, store, 1_000_000n, log);
    let t0 = performance.now();
    const baseline = await sync.initBaseline();
    const baselineMs = performance.now() - t0;
    t0 = performance.now();
    let back = 0;
    for (let n = await sync.backfill(100); n > 0; n = await sync.backfill(100)) back += n;
    const backfillMs = performance.now() - t0;
    const rounds = [...built.rounds, ...(await buildChain(chain, forward, blocks)).rounds];
    t0 = performance.now();
    const f = await sync.forward(forward);
    const forwardMs = performance.now() - t0;
    const cf = (await store.stats()).columnFamilies;
    const entries = Object.values(cf).reduce((a, c) => a + c.estimatedKeys, 0);
    const liveBytes = Object.values(cf).reduce((a, c) => a + c.bytes, 0);
    await store.close();
    const bytes = duBytes(proofsDir);
    const window = blocks + forward + 1;
    const chainId = chain.chainId;
    await chain.close();

    // 2. The servers, each in its own process: basalt with the extension on this datadir, anvil
    // with the same transactions, and the bare handler of the calibration.
    const basalt = await startBasalt({ datadir, extraArgs: ["--historical-proofs"] });
    const head = blocks + forward;
    const deadline = Date.now() + WINDOW_TIMEOUT_MS;
    let status = (await rpc(basalt.url, "debug_proofsSyncStatus")) as { earliest: number | null; latest: number | null };
    while (status.latest !== head) {
      if (Date.now() > deadline) throw new ScenarioError("BENCH_SCENARIO_RPC", `basalt's proofs window is ${JSON.stringify(status)}: latest ${head} expected`);
      await new Promise((r) => setTimeout(r, 100));
      status = (await rpc(basalt.url, "debug_proofsSyncStatus")) as typeof status;
    }
    const anvil = await startAnvil();
    const anvilChain = await applyWorkload(
      { name: "anvil", url: anvil.url },
      { chainId, setup: [], blocks: rounds, tokens: [token], pools: [], senders: [addr(0), addr(1), addr(2)], probe: { token, from: addr(0), to: addr(2) }, holders: [] },
    );
    // The first body asks for accounts 0 and 2 (balances at every block); the others for two of the holders buildChain paid.
    const holders = [addr(0), addr(2), ...Array.from({ length: Math.min(blocks, DISTINCT_BODIES) }, (_, i) => holderOf(i + 1))];
    const bodies = (blockOf: (i: number) => string): string[] =>
      Array.from({ length: DISTINCT_BODIES }, (_, i) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "eth_getProof",
          params: [bytesToHex(token), [holders[i % holders.length]!, holders[(i + 1) % holders.length]!].map((h) => bytesToHex(balanceSlot(h))), blockOf(i)],
        }),
      );
    const spreadBlocks = Math.min(DISTINCT_BODIES, head);
    const far = await measure(basalt.url, bodies(() => "0x1"), seconds, concurrency);
    const spread = await measure(basalt.url, bodies((i) => "0x" + ((i % spreadBlocks) + 1).toString(16)), seconds, concurrency);
    const latest = await measure(basalt.url, bodies(() => "latest"), seconds, concurrency);
    await basalt.stop();
    const onAnvil = await measure(anvil.url, bodies(() => "latest"), seconds, concurrency);
    await anvil.stop();
    const bare = await startBareServer({ "/": latest.answer });
    const calibration = await measure(`${bare.base}/`, bodies(() => "latest"), seconds, concurrency);
    await bare.stop();
    for (const s of [far.served, spread.served, latest.served, onAnvil.served]) s.generatorBound = isGeneratorBound(s.rps, calibration.served.rps);
    const failed = [far, spread, latest, onAnvil, calibration].reduce((a, m) => a + m.served.failed, 0);
    if (failed > 0) throw new ScenarioError("BENCH_SCENARIO_RPC", `${failed} eth_getProof requests failed during the measurement`);
    const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));

    const result = {
      bench: "proofs",
      machine: { cpus: cpus().length, model: cpus()[0]?.model },
      chain: { blocks: head, status, anvilHead: Number(anvilChain.head) },
      init: { baselineNodes: baseline.nodes, baselineMs: Math.round(baselineMs), backfillBlocks: back, backfillBlocksPerSecond: Math.round((back * 1000) / backfillMs) },
      forward: { blocks: f.forward, msPerBlock: Number((forwardMs / Math.max(1, f.forward)).toFixed(3)) },
      // On disk (`du`: with RocksDB's write-ahead log and fixed-size files), and the column families' own data (SST + memtables).
      disk: { bytes, liveBytes, entries, blocksInWindow: window, bytesPerBlock: Math.round(bytes / window), liveBytesPerBlock: Math.round(liveBytes / window) },
      getProof: {
        concurrency,
        seconds,
        farEnd: { block: 1, ...far.served },
        spread: { blocks: `1-${spreadBlocks}`, ...spread.served },
        latest: latest.served,
        anvilLatest: onAnvil.served,
        bareHandler: { ...calibration.served, boundFraction: GENERATOR_BOUND_FRACTION },
        farOverLatest: { p50: ratio(far.served.p50, latest.served.p50), p99: ratio(far.served.p99, latest.served.p99), rps: ratio(far.served.rps, latest.served.rps) },
        spreadOverLatest: { p50: ratio(spread.served.p50, latest.served.p50), p99: ratio(spread.served.p99, latest.served.p99), rps: ratio(spread.served.rps, latest.served.rps) },
        latestOverAnvil: { p50: ratio(latest.served.p50, onAnvil.served.p50), rps: ratio(latest.served.rps, onAnvil.served.rps) },
      },
    };
    console.log(JSON.stringify(result));
    const lines = table(
      [
        ["basalt far end", "1", far.served],
        ["basalt spread", `1-${spreadBlocks}`, spread.served],
        ["basalt latest", "latest", latest.served],
        ["anvil latest", "latest", onAnvil.served],
        ["bare handler", "-", calibration.served],
      ],
      concurrency,
    );
    const r = result.getProof.farOverLatest;
    const sp = result.getProof.spreadOverLatest;
    console.log([...lines, `far end / latest: p50 ${r.p50}, p99 ${r.p99}, req/s ${r.rps}`, `spread / latest: p50 ${sp.p50}, p99 ${sp.p99}, req/s ${sp.rps}`].join("\n"));
  } finally {
    await stopAllChildren();
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
// Keep-alive sockets may hold the event loop a while: exit now.
process.exit(process.exitCode ?? 0);
