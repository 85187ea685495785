/**
 * The RPC passes of the scale benchmark: a real `basalt node` on the imported datadir (page cache
 * dropped first), sent one request at a time — eth_getBalance of a holder, eth_call balanceOf at
 * latest, eth_getProof of the token's balance slot of a holder, eth_call balanceOf at head − 64 —
 * each kind for N holders never asked before in the run and untouched by the blocks (so the
 * right answer is the synthesized balance), a cold pass then a warm one. Every answer is checked;
 * proofs against the head's state root with @ethereumjs/mpt.
 *
 * Timed with the load generator's own client, one keep-alive connection (bench/load/sequential.ts);
 * the anchor of each pass is a bare uWebSockets.js handler in its own process
 * (bench/scenario/bareServer.ts) sent the same number of distinct eth_getBalance bodies and
 * answering a balance-sized result: what HTTP on loopback and the client cost on this machine, so
 * basalt's own share of a latency is the difference.
 */
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from "@ethereumjs/util";
import { readRssMiB } from "../load/rss.js";
import { latencyStats } from "../load/stats.js";
import { SequentialClient } from "../load/sequential.js";
import { startBareServer } from "../scenario/bareServer.js";
import { startBasalt } from "../scenario/basalt.js";
import { rpc } from "../scenario/rpc.js";
import { keccak256 } from "../../src/util/keccak.js";
import { balanceOfCalldata, balanceSlot } from "../workload/contracts.js";
import { cachedBytes, evictPageCache } from "./importPass.js";
import { Rng } from "./rng.js";
import { StateScaleError, TOKEN_ADDRESS, dataFile, holderAddress, holderEth, holderTokens, type StatePlan } from "./synth.js";

/** The request kinds, in the order each pass sends them. */
export const RPC_KINDS = ["eth_getBalance", "eth_call balanceOf", "eth_getProof", "eth_call balanceOf @head-64"] as const;
export type RpcKind = (typeof RPC_KINDS)[number];
/** How far below the head the historical balanceOf reads: inside the default 128 blocks of history, past the reverted-state cache. */
const HISTORY_DEPTH = 64;
/** Seed stream of the holders sampled for requests. */
const RPC_STREAM = 5;

/** Latencies of one kind in one pass. */
export interface RpcFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** Answers that were not the expected value (or a proof that does not verify). */
  wrong: number;
  /** The first wrong answer, explained. */
  firstWrong?: string;
}

/** What the RPC passes measured. */
export interface RpcReport {
  head: number;
  historicalBlock: number;
  cachedBeforeEvictBytes?: number;
  cachedAfterEvictBytes?: number;
  /** Milliseconds from spawning the node to its first JSON-RPC answer. */
  startMs: number;
  /** Requests per kind and pass actually sent (fewer than asked when there are not enough untouched holders). */
  perKind: number;
  /** Per pass: basalt's figures per kind, and the bare handler's (the anchor) measured just before them. */
  passes: { name: "cold" | "warm"; anchor: RpcFigures; kinds: Record<RpcKind, RpcFigures> }[];
  nodeRssMiB?: number;
}

/** `count` distinct holders out of those the blocks did not touch, in seeded random order. */
function sampleHolders(rng: Rng, holders: number, touched: Set<number>, count: number): number[] {
  const untouched = holders - touched.size;
  if (count > untouched) throw new StateScaleError("BENCH_STATE_SCALE_RPC", `${count} untouched holders needed, ${untouched} exist`);
  if (count * 2 <= untouched) {
    const picked = new Set<number>();
    while (picked.size < count) {
      const h = rng.int(holders);
      if (!touched.has(h)) picked.add(h);
    }
    return [...picked];
  }
  const all: number[] = [];
  for (let h = 0; h < holders; h++) if (!touched.has(h)) all.push(h);
  for (let i = 0; i < count; i++) {
    const j = i + rng.int(all.length - i);
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, count);
}

const quantity = (v: bigint): string => `0x${v.toString(16)}`;
const word = (v: bigint): string => `0x${v.toString(16).padStart(64, "0")}`;
const strippedRlp = (v: bigint): Uint8Array => RLP.encode(bigIntToUnpaddedBytes(v));

interface ProofAnswer {
  accountProof: string[];
  storageHash: string;
  storageProof: { key: string; value: string; proof: string[] }[];
}

/** Why a proof answer is wrong, or undefined when it verifies and proves `expected`. */
async function checkProof(p: ProofAnswer, stateRoot: Uint8Array, slot: Uint8Array, expected: bigint): Promise<string | undefined> {
  try {
    const leaf = await verifyMerkleProof(keccak256(TOKEN_ADDRESS), p.accountProof.map((x) => hexToBytes(x as `0x${string}`)), { root: stateRoot });
    if (leaf === null) return "the account proof proves the token absent";
    const storageRoot = (RLP.decode(leaf) as Uint8Array[])[2]!;
    if (bytesToHex(storageRoot) !== p.storageHash.toLowerCase()) return `the account leaf names storage root ${bytesToHex(storageRoot)}, the answer ${p.storageHash}`;
    const sp = p.storageProof[0];
    if (sp === undefined) return "no storage proof";
    if (BigInt(sp.value) !== expected) return `storage value ${sp.value}, expected ${quantity(expected)}`;
    const v = await verifyMerkleProof(keccak256(slot), sp.proof.map((x) => hexToBytes(x as `0x${string}`)), { root: storageRoot });
    if (v === null || bytesToHex(v) !== bytesToHex(strippedRlp(expected))) return `the storage proof proves ${v === null ? "absence" : bytesToHex(v)}, expected ${bytesToHex(strippedRlp(expected))}`;
    return undefined;
  } catch (e) {
    return `does not verify: ${(e as Error).message}`;
  }
}

/** The bytes the bare handler answers: a JSON-RPC result the size of a typical balance answer. */
const ANCHOR_ANSWER = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":"0x${"d".repeat(18)}"}`);

function figures(times: number[], wrong: number, firstWrong: string | undefined): RpcFigures {
  const st = latencyStats(times);
  const n = times.length;
  return { requests: n, p50Ms: st.p50, p99Ms: st.p99, meanMs: times.reduce((a, b) => a + b, 0) / Math.max(1, n), maxMs: st.max, wrong, ...(firstWrong === undefined ? {} : { firstWrong }) };
}

/** Sends one JSON-RPC call on `client`; the result (or an Error for an error answer) and the latency. */
async function timedCall(client: SequentialClient, id: number, method: string, params: unknown[]): Promise<{ result: unknown; ms: number }> {
  const a = await client.request(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  if (a.status !== 200) return { result: new Error(`HTTP ${a.status}: ${a.body.toString("utf8", 0, 200)}`), ms: a.ms };
  const res = JSON.parse(a.body.toString("utf8")) as { result?: unknown; error?: { code: number; message: string } };
  return { result: res.error != null ? new Error(`error ${res.error.code} ${res.error.message}`) : res.result, ms: a.ms };
}

/**
 * Starts `basalt node` on `datadir` (free loopback ports, no P2P), runs the cold and warm passes
 * of `perKind` requests per kind, stops the node. Wrong answers are counted, not thrown.
 */
export async function rpcPasses(datadir: string, plan: StatePlan, touched: Set<number>, perKind: number): Promise<RpcReport> {
  const file = dataFile(datadir);
  const cachedBeforeEvictBytes = cachedBytes(file);
  evictPageCache(file);
  const cachedAfterEvictBytes = cachedBytes(file);
  const available = Math.floor((plan.shape.holders - touched.size) / (2 * RPC_KINDS.length));
  const n = Math.min(perKind, available);
  const sample = sampleHolders(new Rng(plan.shape.seed, RPC_STREAM), plan.shape.holders, touched, n * 2 * RPC_KINDS.length);
  const t0 = performance.now();
  const node = await startBasalt({ datadir, logLevel: "warn" });
  const startMs = performance.now() - t0;
  const bare = await startBareServer({ "/": ANCHOR_ANSWER });
  const client = new SequentialClient(node.url);
  const anchorClient = new SequentialClient(`${bare.base}/`);
  let id = 0;
  try {
    const headHex = (await rpc(node.url, "eth_blockNumber")) as string;
    const head = Number(BigInt(headHex));
    const block = (await rpc(node.url, "eth_getBlockByNumber", [headHex, false])) as { stateRoot: string };
    const stateRoot = hexToBytes(block.stateRoot as `0x${string}`);
    const historicalBlock = Math.max(0, head - HISTORY_DEPTH);
    const token = bytesToHex(TOKEN_ADDRESS);
    const passes: RpcReport["passes"] = [];
    let next = 0;
    for (const name of ["cold", "warm"] as const) {
      const anchorTimes: number[] = [];
      let anchorWrong = 0;
      for (let i = 0; i < n; i++) {
        const { result, ms } = await timedCall(anchorClient, ++id, "eth_getBalance", [bytesToHex(holderAddress(sample[(next + i) % sample.length]!)), "latest"]);
        anchorTimes.push(ms);
        if (typeof result !== "string") anchorWrong++;
      }
      const anchor = figures(anchorTimes, anchorWrong, anchorWrong > 0 ? "the bare handler answered without a result" : undefined);
      const kinds = {} as Record<RpcKind, RpcFigures>;
      for (const kind of RPC_KINDS) {
        const times: number[] = [];
        let wrong = 0;
        let firstWrong: string | undefined;
        for (let i = 0; i < n; i++) {
          const h = sample[next++]!;
          const holder = holderAddress(h);
          const addr = bytesToHex(holder);
          let method: string;
          let params: unknown[];
          if (kind === "eth_getBalance") [method, params] = ["eth_getBalance", [addr, "latest"]];
          else if (kind === "eth_getProof") [method, params] = ["eth_getProof", [token, [bytesToHex(balanceSlot(holder))], "latest"]];
          else {
            const at = kind === "eth_call balanceOf" ? "latest" : quantity(BigInt(historicalBlock));
            [method, params] = ["eth_call", [{ to: token, data: bytesToHex(balanceOfCalldata(holder)) }, at]];
          }
          const { result, ms } = await timedCall(client, ++id, method, params);
          times.push(ms);
          let why: string | undefined;
          if (result instanceof Error) why = result.message;
          else if (kind === "eth_getBalance") why = BigInt(result as string) === holderEth(h) ? undefined : `balance ${String(result)}, expected ${quantity(holderEth(h))}`;
          else if (kind === "eth_getProof") why = await checkProof(result as ProofAnswer, stateRoot, balanceSlot(holder), holderTokens(h));
          else why = (result as string).toLowerCase() === word(holderTokens(h)) ? undefined : `balanceOf ${String(result)}, expected ${word(holderTokens(h))}`;
          if (why !== undefined) {
            wrong++;
            firstWrong ??= `${kind} of holder ${h} (${addr}): ${why}`;
          }
        }
        kinds[kind] = figures(times, wrong, firstWrong);
      }
      passes.push({ name, anchor, kinds });
    }
    const headAfter = Number(BigInt((await rpc(node.url, "eth_blockNumber")) as string));
    if (headAfter !== head) throw new StateScaleError("BENCH_STATE_SCALE_RPC", `the node's head moved from ${head} to ${headAfter} during the RPC passes: expected it to stay (no transactions are sent)`);
    const nodeRssMiB = readRssMiB(node.pid);
    return { head, historicalBlock, cachedBeforeEvictBytes, cachedAfterEvictBytes, startMs, perKind: n, passes, ...(nodeRssMiB === undefined ? {} : { nodeRssMiB }) };
  } finally {
    client.close();
    anchorClient.close();
    await Promise.all([node.stop(), bare.stop()]);
  }
}
