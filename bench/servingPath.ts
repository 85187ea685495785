/**
 * Bench: the serving path of cached block answers. basalt (the real process, `--dev.block-time 0`)
 * seals a devnet chain whose head holds ~120 transactions (the shared workload); its exact
 * answers to the block methods are captured and served by bare uWebSockets.js handlers (one per
 * case, nothing but the bytes); then wrk loads basalt and the bare handler of each case
 * alternately, for several rounds, with the same request body. The ratio basalt/bare says how
 * much of the machine basalt's own path costs beyond writing those bytes. Each run also reads
 * the server's CPU time (user + system, /proc/<pid>/stat) and prints it per request: on a shared
 * machine this figure moves less than req/s.
 *
 * Cases: eth_getBlockByNumber(n, true) (the main one), (latest, true), (n, false), and
 * eth_getBlockReceipts(n).
 *
 * Usage: node dist/bench/servingPath.js [--rounds 3] [--seconds 5] [--txs 120] [--connections 32]
 *   [--threads 2] [--cases full,latest,hashes,receipts] [--profile DIR]
 * `--profile DIR` writes basalt's CPU profile (`node --cpu-prof`) to DIR and prints its top
 * functions by self time. Needs wrk (`apt-get install wrk`; `WRK=/path/to/wrk`); skipped without it.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEVNET_CHAIN_ID } from "../src/chain/constants.js";
import { startBareServer, type BareServer } from "./scenario/bareServer.js";
import { startBasalt, type BasaltNode } from "./scenario/basalt.js";
import { applyWorkload } from "./scenario/chain.js";
import { ScenarioError } from "./scenario/errors.js";
import { stopAllChildren } from "./scenario/processes.js";
import { postText } from "./scenario/rpc.js";
import { buildWorkload } from "./workload/workload.js";

/** Where wrk is looked up (PATH first). */
const WRK = process.env.WRK ?? "wrk";
/** Seconds of the unmeasured warm-up run on each server before the rounds (JIT, connection setup). */
const WARMUP_SECONDS = 2;
/** Functions listed from the CPU profile. */
const PROFILE_TOP = 25;

/** Options of the bench. */
interface Options {
  rounds: number;
  seconds: number;
  txs: number;
  connections: number;
  threads: number;
  cases: string[];
  profile?: string;
}

/** One request shape measured against basalt and its bare twin. */
interface Case {
  /** short name (for --cases) */
  key: string;
  /** label printed */
  label: string;
  /** request body, sent verbatim by wrk and by the capture */
  body: string;
}

/** One wrk run. */
interface WrkResult {
  rps: number;
  requests: number;
  /** non-2xx answers plus socket errors: must be 0 for a valid run */
  failures: number;
  /** the server's CPU time (user + system) per request, µs; NaN where /proc is missing */
  cpuUs: number;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_S = 100;

/** CPU time (user + system, all threads) of process `pid` in seconds; NaN when /proc cannot tell. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesized command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

const DEFAULTS: Options = { rounds: 3, seconds: 5, txs: 120, connections: 32, threads: 2, cases: ["full", "latest", "hashes", "receipts"] };

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[++i];
    if (value === undefined) throw new ScenarioError("BENCH_SCENARIO_ARG", `${flag}: missing value`, { option: flag });
    const int = (): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new ScenarioError("BENCH_SCENARIO_ARG", `${flag}: an integer >= 1 expected, got ${value}`, { option: flag });
      return n;
    };
    if (flag === "--rounds") o.rounds = int();
    else if (flag === "--seconds") o.seconds = int();
    else if (flag === "--txs") o.txs = int();
    else if (flag === "--connections") o.connections = int();
    else if (flag === "--threads") o.threads = int();
    else if (flag === "--cases") o.cases = value.split(",");
    else if (flag === "--profile") o.profile = path.resolve(value);
    else throw new ScenarioError("BENCH_SCENARIO_ARG", `${flag}: unknown flag (see the header of bench/servingPath.ts)`, { option: flag });
  }
  return o;
}

function request(method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
}

/** The measured cases for head block `head`. */
function casesFor(head: bigint): Case[] {
  const n = `0x${head.toString(16)}`;
  return [
    { key: "full", label: `eth_getBlockByNumber(${n},true)`, body: request("eth_getBlockByNumber", [n, true]) },
    { key: "latest", label: "eth_getBlockByNumber(latest,true)", body: request("eth_getBlockByNumber", ["latest", true]) },
    { key: "hashes", label: `eth_getBlockByNumber(${n},false)`, body: request("eth_getBlockByNumber", [n, false]) },
    { key: "receipts", label: `eth_getBlockReceipts(${n})`, body: request("eth_getBlockReceipts", [n]) },
  ];
}

/** basalt's exact answer bytes to `body` (checked to carry a non-null result). */
async function capture(url: string, c: Case): Promise<Buffer> {
  const text = await postText(url, c.body);
  const parsed = JSON.parse(text) as { result?: unknown };
  if (parsed.result === undefined || parsed.result === null) {
    throw new ScenarioError("BENCH_SCENARIO_RPC", `basalt ${c.label}: a result expected, got ${text.slice(0, 200)}`);
  }
  return Buffer.from(text, "utf8");
}

/** Runs wrk with a POST of `body` against `url`; throws when wrk is missing or fails. */
function runWrk(url: string, pid: number, body: string, seconds: number, o: Options, scriptDir: string): Promise<WrkResult> {
  const script = path.join(scriptDir, "post.lua");
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);
  const args = [`-t${o.threads}`, `-c${o.connections}`, `-d${seconds}s`, "-s", script, url];
  const cpuBefore = cpuSeconds(pid);
  return new Promise((resolve, reject) => {
    const p = spawn(WRK, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
    p.stderr.setEncoding("utf8").on("data", (s: string) => (out += s));
    p.once("error", (e) => reject(new ScenarioError("BENCH_SCENARIO_SPAWN", `${WRK}: ${e.message} (apt-get install wrk)`, {}, { cause: e })));
    p.once("exit", (code) => {
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const requests = /(\d+) requests in/.exec(out);
      if (code !== 0 || rps === null || requests === null) {
        reject(new ScenarioError("BENCH_SCENARIO_RPC", `wrk ${args.join(" ")} exited ${code}:\n${out}`));
        return;
      }
      const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const failures = Number(non2xx?.[1] ?? 0) + (sock === null ? 0 : sock.slice(1).reduce((a, b) => a + Number(b), 0));
      const n = Number(requests[1]);
      resolve({ rps: Number(rps[1]), requests: n, failures, cpuUs: ((cpuSeconds(pid) - cpuBefore) * 1e6) / n });
    });
  });
}

/** Top functions by self time of the `.cpuprofile` files in `dir`. */
function profileTop(dir: string): string[] {
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const lines: string[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith(".cpuprofile"))) {
    const p = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    let total = 0;
    let idle = 0;
    p.samples.forEach((id, i) => {
      const n = byId.get(id)!;
      const dt = p.timeDeltas[i] ?? 0;
      if (n.callFrame.functionName === "(idle)") {
        idle += dt;
        return;
      }
      const where = n.callFrame.url === "" ? "" : ` ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
      const key = `${n.callFrame.functionName || "(anonymous)"}${where}`;
      self.set(key, (self.get(key) ?? 0) + dt);
      total += dt;
    });
    lines.push(`${f}: ${(total / 1e6).toFixed(1)} s busy (${(idle / 1e6).toFixed(1)} s idle); self time, % of busy:`);
    for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, PROFILE_TOP)) {
      lines.push(`  ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
    }
  }
  return lines;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  // `npm run bench` runs this in its sequence: without wrk, say so and let the others run.
  if (spawnSync(WRK, ["-v"], { stdio: "ignore" }).error !== undefined) {
    console.log(`servingPath: ${WRK} not found (apt-get install wrk, or WRK=/path/to/wrk); skipped`);
    return;
  }
  const scratch = mkdtempSync(path.join(tmpdir(), "basalt-serving-"));
  let basalt: BasaltNode | undefined;
  const bares: BareServer[] = [];
  try {
    if (o.profile !== undefined) mkdirSync(o.profile, { recursive: true });
    basalt = await startBasalt(o.profile === undefined ? {} : { nodeArgs: ["--cpu-prof", "--cpu-prof-dir", o.profile] });
    const w = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 1, txsPerBlock: o.txs });
    const applied = await applyWorkload({ name: "basalt", url: basalt.url }, w, (l) => console.log(l));
    const cases = casesFor(applied.head).filter((c) => o.cases.includes(c.key));
    const targets: Array<{ c: Case; bare: BareServer; bytes: number }> = [];
    for (const c of cases) {
      const bytes = await capture(basalt.url, c);
      const bare = await startBareServer({ "/": bytes });
      bares.push(bare);
      // The bare server must answer the very same bytes.
      if (!Buffer.from(await postText(`${bare.base}/`, c.body), "utf8").equals(bytes)) {
        throw new ScenarioError("BENCH_SCENARIO_RPC", `bare server of ${c.label} answers other bytes`);
      }
      targets.push({ c, bare, bytes: bytes.length });
    }
    console.log(`head ${applied.head} with ${applied.blockTxCounts.at(-1) ?? 0} workload txs; wrk -t${o.threads} -c${o.connections} -d${o.seconds}s, ${o.rounds} rounds`);
    for (const t of targets) {
      await runWrk(basalt.url, basalt.pid, t.c.body, WARMUP_SECONDS, o, scratch);
      await runWrk(`${t.bare.base}/`, t.bare.pid, t.c.body, WARMUP_SECONDS, o, scratch);
    }
    const results = new Map<string, Record<"basalt" | "bare", WrkResult[]>>(targets.map((t) => [t.c.key, { basalt: [], bare: [] }]));
    for (let r = 0; r < o.rounds; r++) {
      for (const t of targets) {
        // Alternate which server goes first, so drift of the machine's load hits both alike.
        const order = r % 2 === 0 ? (["basalt", "bare"] as const) : (["bare", "basalt"] as const);
        const got = results.get(t.c.key)!;
        for (const who of order) {
          const [url, pid] = who === "basalt" ? [basalt.url, basalt.pid] : [`${t.bare.base}/`, t.bare.pid];
          const res = await runWrk(url, pid, t.c.body, o.seconds, o, scratch);
          if (res.failures > 0) throw new ScenarioError("BENCH_SCENARIO_RPC", `${who} ${t.c.label}: ${res.failures} failed requests of ${res.requests}`);
          got[who].push(res);
        }
        const a = got.basalt.at(-1)!;
        const b = got.bare.at(-1)!;
        const line = [
          `round ${r + 1}  ${t.c.label.padEnd(36)}`,
          `basalt ${a.rps.toFixed(0).padStart(6)} req/s ${a.cpuUs.toFixed(0).padStart(4)} µs CPU/req`,
          `bare ${b.rps.toFixed(0).padStart(6)} req/s ${b.cpuUs.toFixed(0).padStart(4)} µs CPU/req`,
          `ratio ${(a.rps / b.rps).toFixed(2)}`,
        ];
        console.log(line.join("  "));
      }
    }
    console.log("");
    for (const t of targets) {
      const r = results.get(t.c.key)!;
      const ratios = r.basalt.map((a, i) => a.rps / r.bare[i]!.rps);
      const summary = {
        bench: "serving-path",
        case: t.c.label,
        answerBytes: t.bytes,
        basaltRps: r.basalt.map((x) => Math.round(x.rps)),
        bareRps: r.bare.map((x) => Math.round(x.rps)),
        ratios: ratios.map((x) => Number(x.toFixed(3))),
        medianRatio: Number(median(ratios).toFixed(3)),
        basaltCpuUsPerReq: Number(median(r.basalt.map((x) => x.cpuUs)).toFixed(1)),
        bareCpuUsPerReq: Number(median(r.bare.map((x) => x.cpuUs)).toFixed(1)),
      };
      console.log(JSON.stringify(summary));
    }
  } finally {
    await Promise.all(bares.map((b) => b.stop()));
    await basalt?.stop();
    await stopAllChildren();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (o.profile !== undefined) for (const l of profileTop(o.profile)) console.log(l);
}

await main();
// Keep-alive sockets of the JSON-RPC client may hold the event loop a while: exit now.
process.exit(process.exitCode ?? 0);
