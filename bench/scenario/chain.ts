/**
 * Builds the scenario's chain on a node: each setup round and each workload block is sent with
 * `eth_sendRawTransaction` (JSON-RPC batches), mined with `evm_mine`, and waited for until every
 * receipt is there. Then the two nodes' outcomes are compared transaction by transaction (status,
 * gasUsed) and block by block (how many workload transactions each block holds): a disagreement
 * means they did not execute the same thing, and the scenario stops.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { to0x } from "../../src/util/bytes.js";
import type { Workload } from "../workload/workload.js";
import { ScenarioError } from "./errors.js";
import { rpc, rpcBatch, type RpcResponse } from "./rpc.js";

/** Raw transactions per `eth_sendRawTransaction` batch: 100 × ~250 bytes, far below both nodes' body limits (basalt 5 MiB, anvil 2 MiB). */
const SEND_BATCH = 100;
/** Receipt lookups per batch: a 200-transaction block in one request (basalt's batch limit is 1000). */
const RECEIPT_BATCH = 200;
/** Extra `evm_mine` calls allowed for one round when transactions are still pending after the first (a round normally fits one block). */
const MAX_EXTRA_MINES = 4;

/** A JSON-RPC node the chain is built on. */
export interface ChainNode {
  name: string;
  url: string;
}

/** What one workload transaction did on one node. */
export interface TxOutcome {
  /** "0x1" or "0x0" */
  status: string;
  gasUsed: bigint;
  blockNumber: bigint;
}

/** The result of applying a workload to one node. */
export interface AppliedChain {
  node: string;
  /** outcome by transaction hash (0x-lowercase) */
  outcomes: Map<string, TxOutcome>;
  /** workload transactions per mined block, in block order */
  blockTxCounts: number[];
  /** number of the head after the last round */
  head: bigint;
}

/** The two nodes' agreement, as checked by {@link checkAgreement}. */
export interface Agreement {
  /** workload transactions compared (every one of setup and blocks) */
  txs: number;
  /** blocks compared */
  blocks: number;
  /** total gasUsed of the workload transactions (the same on both) */
  gasUsed: bigint;
  /** workload transactions in the head block (the block the block/receipts corpora read) */
  headTxs: number;
}

/** Hash of a raw signed (typed) transaction: keccak256 of its envelope. */
export function txHash(raw: Uint8Array): string {
  return to0x(keccak_256(raw));
}

/** Every workload transaction with a label naming it ("setup round 1 tx 3", "block 2 tx 17"). */
export function labelledTxs(w: Workload): Array<{ label: string; raw: Uint8Array; hash: string }> {
  const out: Array<{ label: string; raw: Uint8Array; hash: string }> = [];
  w.setup.forEach((round, r) => round.forEach((raw, i) => out.push({ label: `setup round ${r + 1} tx ${i}`, raw, hash: txHash(raw) })));
  w.blocks.forEach((block, b) => block.forEach((raw, i) => out.push({ label: `block ${b + 1} tx ${i}`, raw, hash: txHash(raw) })));
  return out;
}

function quantity(v: unknown, what: string): bigint {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]+$/.test(v)) {
    throw new ScenarioError("BENCH_SCENARIO_RPC", `${what}: hex quantity expected, got ${JSON.stringify(v)}`);
  }
  return BigInt(v);
}

/** Sends one round's raw transactions; throws naming the first transaction the node refused. */
async function sendRound(node: ChainNode, round: Uint8Array[], name: string): Promise<string[]> {
  const hashes = round.map(txHash);
  for (let i = 0; i < round.length; i += SEND_BATCH) {
    const chunk = round.slice(i, i + SEND_BATCH);
    const answers = await rpcBatch(node.url, chunk.map((raw) => ({ method: "eth_sendRawTransaction", params: [to0x(raw)] })));
    answers.forEach((a, j) => {
      const hash = hashes[i + j]!;
      if (a.error !== undefined && a.error !== null) {
        const why = `${a.error.code} ${a.error.message}`;
        throw new ScenarioError("BENCH_SCENARIO_TX", `${node.name} refused ${name} tx ${i + j} (${hash}): ${why}`, { node: node.name, hash });
      }
      if (typeof a.result !== "string" || a.result.toLowerCase() !== hash) {
        const got = JSON.stringify(a.result);
        throw new ScenarioError("BENCH_SCENARIO_TX", `${node.name} answered ${got} for ${name} tx ${i + j}, expected its hash ${hash}`);
      }
    });
  }
  return hashes;
}

/** Receipts of `hashes` (null for a transaction not mined yet). */
async function receipts(node: ChainNode, hashes: string[]): Promise<Array<Record<string, unknown> | null>> {
  const out: Array<Record<string, unknown> | null> = [];
  for (let i = 0; i < hashes.length; i += RECEIPT_BATCH) {
    const calls = hashes.slice(i, i + RECEIPT_BATCH).map((h) => ({ method: "eth_getTransactionReceipt", params: [h] }));
    const answers: RpcResponse[] = await rpcBatch(node.url, calls);
    for (const [j, a] of answers.entries()) {
      if (a.error !== undefined && a.error !== null) {
        throw new ScenarioError("BENCH_SCENARIO_RPC", `${node.name} eth_getTransactionReceipt(${hashes[i + j]}): ${a.error.code} ${a.error.message}`);
      }
      out.push((a.result ?? null) as Record<string, unknown> | null);
    }
  }
  return out;
}

/**
 * Applies `w` to `node`: per setup round, then per block, sends the transactions, mines with
 * `evm_mine` and waits for every receipt (mining again, a few times at most, if some are still
 * pending). Throws `BENCH_SCENARIO_TX` naming a transaction the node refused or never mined.
 */
export async function applyWorkload(node: ChainNode, w: Workload, onProgress: (line: string) => void = () => undefined): Promise<AppliedChain> {
  const outcomes = new Map<string, TxOutcome>();
  const rounds = [
    ...w.setup.map((r, i) => ({ name: `setup round ${i + 1}`, txs: r })),
    ...w.blocks.map((b, i) => ({ name: `block ${i + 1}`, txs: b })),
  ];
  const started = performance.now();
  for (const round of rounds) {
    const hashes = await sendRound(node, round.txs, round.name);
    let pending = hashes;
    for (let mines = 0; pending.length > 0; mines++) {
      if (mines > MAX_EXTRA_MINES) {
        const what = `${pending.length} txs of ${round.name} still unmined after ${mines} evm_mine calls, e.g. ${pending[0]}`;
        throw new ScenarioError("BENCH_SCENARIO_TX", `${node.name}: ${what}`);
      }
      await rpc(node.url, "evm_mine", []);
      const got = await receipts(node, pending);
      const still: string[] = [];
      got.forEach((r, i) => {
        const hash = pending[i]!;
        if (r === null) still.push(hash);
        else {
          const where = `${node.name} receipt of ${round.name} tx ${hash}`;
          outcomes.set(hash, { status: String(r.status), gasUsed: quantity(r.gasUsed, where), blockNumber: quantity(r.blockNumber, where) });
        }
      });
      pending = still;
    }
  }
  const perBlock = new Map<bigint, number>();
  for (const o of outcomes.values()) perBlock.set(o.blockNumber, (perBlock.get(o.blockNumber) ?? 0) + 1);
  const numbers = [...perBlock.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const head = quantity(await rpc(node.url, "eth_blockNumber", []), `${node.name} eth_blockNumber`);
  onProgress(`${node.name}: ${outcomes.size} txs in ${numbers.length} blocks, head ${head}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { node: node.name, outcomes, blockTxCounts: numbers.map((n) => perBlock.get(n)!), head };
}

/**
 * Checks that `a` and `b` ran `w` identically: every workload transaction has a receipt on both
 * with status 0x1 and the same gasUsed, and the blocks hold the same number of workload
 * transactions in the same order. Throws `BENCH_SCENARIO_DISAGREE` naming the first transaction
 * or block that differs (`BENCH_SCENARIO_TX` for a transaction that failed on both).
 */
export function checkAgreement(w: Workload, a: AppliedChain, b: AppliedChain): Agreement {
  let gasUsed = 0n;
  const txs = labelledTxs(w);
  for (const { label, hash } of txs) {
    const x = a.outcomes.get(hash);
    const y = b.outcomes.get(hash);
    if (x === undefined || y === undefined) {
      throw new ScenarioError("BENCH_SCENARIO_DISAGREE", `${label} (${hash}) has no receipt on ${x === undefined ? a.node : b.node}`, { hash });
    }
    if (x.status !== y.status) {
      throw new ScenarioError("BENCH_SCENARIO_DISAGREE", `${label} (${hash}): status ${x.status} on ${a.node}, ${y.status} on ${b.node}`, { hash });
    }
    if (x.gasUsed !== y.gasUsed) {
      const what = `gasUsed ${x.gasUsed} on ${a.node}, ${y.gasUsed} on ${b.node}`;
      throw new ScenarioError("BENCH_SCENARIO_DISAGREE", `${label} (${hash}): ${what}`, { hash });
    }
    if (x.status !== "0x1") {
      const what = `failed (status ${x.status}) on both nodes: the workload expects success`;
      throw new ScenarioError("BENCH_SCENARIO_TX", `${label} (${hash}) ${what}`, { hash });
    }
    gasUsed += x.gasUsed;
  }
  const ca = a.blockTxCounts;
  const cb = b.blockTxCounts;
  for (let i = 0; i < Math.max(ca.length, cb.length); i++) {
    if (ca[i] !== cb[i]) {
      throw new ScenarioError(
        "BENCH_SCENARIO_DISAGREE",
        `mined block ${i + 1} of the workload holds ${ca[i] ?? "no"} workload txs on ${a.node} and ${cb[i] ?? "no"} on ${b.node}`,
      );
    }
  }
  return { txs: txs.length, blocks: ca.length, gasUsed, headTxs: ca[ca.length - 1] ?? 0 };
}

/** Applies `w` to both nodes (in parallel: they are separate processes) and checks they agree. */
export async function buildChains(
  w: Workload,
  basalt: ChainNode,
  anvil: ChainNode,
  onProgress: (line: string) => void = () => undefined,
): Promise<{ basalt: AppliedChain; anvil: AppliedChain; agreement: Agreement }> {
  const [a, b] = await Promise.all([applyWorkload(basalt, w, onProgress), applyWorkload(anvil, w, onProgress)]);
  const agreement = checkAgreement(w, a, b);
  onProgress(`chains agree: ${agreement.txs} txs (status, gasUsed) and ${agreement.blocks} blocks (tx counts); ${agreement.gasUsed} gas in all`);
  return { basalt: a, anvil: b, agreement };
}
