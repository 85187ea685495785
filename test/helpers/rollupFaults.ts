/**
 * Helpers of the derivation fault tests (test/e2e/derivationFaults*.test.ts): a local rollup on an
 * anvil L1 — the rollup's contracts deployed, genesis.json and rollup.json written with a small
 * sequencing window — and what the tests do with it: the command lines of a sequencer (with or
 * without its batcher) and a verifier, `optimism_syncStatus` read as numbers, metrics scraped,
 * block hashes of two nodes compared, L1 and L2 transactions signed with the dev keys, the node's
 * JSON log lines at warn, and anvil's mining paused and resumed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { startAnvil, type AnvilNode, type AnvilOptions } from "../../bench/scenario/anvil.js";
import { Chain } from "../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts } from "../../src/chain/devnet.js";
import { devnetRollupConfig, devnetRollupGenesis } from "../../src/chain/devnetRollup.js";
import { rollupConfigJson, type RollupConfig } from "../../src/chain/op/rollupConfig.js";
import { ANVIL_CHAIN_ID, DEVNET_BASE_FEE_SCALAR, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_GAS_LIMIT } from "../../src/chain/constants.js";
import { DEVNET_ROLLUP_BATCH_INBOX } from "../../src/devnet/constants.js";
import { deployRollupContracts } from "../../src/devnet/l1Contracts.js";
import { submitL1Transaction, type L1Key } from "../../src/devnet/l1Tx.js";
import { HttpRpcClient } from "../../src/util/rpcClient.js";
import { to0x } from "../../src/util/bytes.js";
import { makeTempDir, removeDir, startNode, type NodeHandle } from "./basaltProcess.js";
import { pollUntil } from "./poll.js";
import { getFreePort } from "./ports.js";
import { rpcResult, type Json } from "./rpc.js";

/** The batcher's key: dev account 9, the genesis system config's batcher. */
export const BATCHER_KEY = devAccounts()[9]!.privateKey;
/** Another funded key (dev account 3), not the batcher. */
export const STRANGER_KEY = devAccounts()[3]!.privateKey;

/** A local rollup on a fresh anvil L1 (see the module comment). */
export interface FaultRollup {
  anvil: AnvilNode;
  /** A client of the anvil L1. */
  l1: HttpRpcClient;
  dir: string;
  cfg: RollupConfig;
  genesisFile: string;
  rollupFile: string;
  /** Removes what {@link startFaultRollup} made (the nodes are the caller's). */
  stop(): Promise<void>;
}

/**
 * Starts anvil (chain 31337, one block a second unless `anvil` says otherwise), deploys the
 * OptimismPortal and SystemConfig (batcher: dev account 9), and writes genesis.json and
 * rollup.json (L2 block time 1 s, the given sequencing window) to a fresh directory.
 */
export async function startFaultRollup(o: { seqWindowSize: bigint; prefix: string; anvil?: AnvilOptions }): Promise<FaultRollup> {
  const anvil = await startAnvil({ chainId: ANVIL_CHAIN_ID, blockTime: 1, ...o.anvil });
  const l1 = new HttpRpcClient(anvil.url);
  const dir = await makeTempDir(o.prefix);
  const accounts = devAccounts();
  const init = {
    batcher: accounts[9]!.address,
    basefeeScalar: Number(DEVNET_BASE_FEE_SCALAR),
    blobbasefeeScalar: Number(DEVNET_BLOB_BASE_FEE_SCALAR),
    gasLimit: DEVNET_GAS_LIMIT,
    unsafeBlockSigner: accounts[8]!.address,
  };
  const contracts = await deployRollupContracts(anvil.url, { deployerKey: accounts[8]!.privateKey, systemConfig: init });
  const anchor = (await rpcResult(anvil.url, "eth_getBlockByHash", [contracts.deployedAt.hash, false])) as Record<string, string>;
  const l2Time = BigInt(anchor.timestamp!);
  const genesis = devnetRollupGenesis(l2Time);
  const { block } = await Chain.buildGenesis(genesis, commonFromGenesis(genesis));
  const cfg = devnetRollupConfig({
    l1ChainId: ANVIL_CHAIN_ID,
    l1Anchor: { hash: anchor.hash!, number: BigInt(anchor.number!), timestamp: l2Time },
    l2GenesisHash: to0x(block.hash()),
    portal: contracts.optimismPortal,
    systemConfig: contracts.systemConfig,
    batcher: accounts[9]!.address,
    batchInbox: DEVNET_ROLLUP_BATCH_INBOX,
    blockTime: 1n,
    seqWindowSize: o.seqWindowSize,
  });
  mkdirSync(dir, { recursive: true });
  const genesisFile = path.join(dir, "genesis.json");
  const rollupFile = path.join(dir, "rollup.json");
  writeFileSync(genesisFile, JSON.stringify(genesis));
  writeFileSync(rollupFile, JSON.stringify(rollupConfigJson(cfg)));
  return {
    anvil,
    l1,
    dir,
    cfg,
    genesisFile,
    rollupFile,
    stop: async () => {
      l1.close();
      await anvil.stop();
      await removeDir(dir);
    },
  };
}

/** What a node of the rollup runs. */
export interface RollupNodeOptions {
  /** Sequence blocks (`--sequencer`). */
  sequencer?: boolean;
  /** Post batches (`--batcher` with the batcher key), in calldata or blobs. */
  batcher?: "calldata" | "blobs";
  /** `--l1.beacon`. */
  beacon?: string;
  /** `--sequencer.l1-confs`. */
  l1Confs?: number;
  extra?: string[];
}

/** A running node of the rollup and its metrics port. */
export interface RollupNode {
  node: NodeHandle;
  metricsPort: number;
  datadir: string;
}

/** Starts a `basalt node` of the rollup (datadir `<dir>/<name>`, kept across restarts), with metrics and JSON logs at info. */
export async function startRollupNode(r: FaultRollup, name: string, o: RollupNodeOptions = {}): Promise<RollupNode> {
  const metricsPort = await getFreePort();
  const datadir = path.join(r.dir, name);
  const args = [
    "--network", r.genesisFile,
    "--rollup.config", r.rollupFile,
    "--l1.rpc", r.anvil.url,
    "--l1.block-time", "1",
    "--metrics", "--metrics.port", String(metricsPort),
    "--log.level", process.env.BASALT_TEST_LOG_LEVEL ?? "info", "--log.format", "json",
    ...(o.beacon === undefined ? [] : ["--l1.beacon", o.beacon]),
    ...(o.sequencer === true ? ["--sequencer", "--sequencer.l1-confs", String(o.l1Confs ?? 0)] : []),
    ...(o.batcher === undefined ? [] : ["--batcher", "--batcher.key", BATCHER_KEY, "--batcher.data", o.batcher]),
    ...(o.extra ?? []),
  ];
  // BASALT_TEST_LOG_DIR keeps each node's output in <dir>/<name>.log (for looking into a failure).
  const logDir = process.env.BASALT_TEST_LOG_DIR;
  const node = await startNode({ datadir, args, readyTimeoutMs: 60_000, ...(logDir === undefined ? {} : { logFile: path.join(logDir, `${path.basename(r.dir)}-${name}.log`) }) });
  return { node, metricsPort, datadir };
}

/** `optimism_syncStatus` as numbers (and the safe head's hash). */
export interface Sync {
  safe: number;
  safeHash: string;
  safeOrigin: number;
  unsafe: number;
  currentL1: number;
  headL1: number;
  safeL1: number;
}

/** The node's `optimism_syncStatus`. */
export async function syncStatus(n: RollupNode): Promise<Sync> {
  const s = (await rpcResult(n.node.rollupUrl, "optimism_syncStatus", [])) as Record<string, { number: number; hash: string; l1origin?: { number: number } } | undefined>;
  return {
    safe: s.safe_l2!.number,
    safeHash: s.safe_l2!.hash,
    safeOrigin: s.safe_l2!.l1origin?.number ?? -1,
    unsafe: s.unsafe_l2!.number,
    currentL1: s.current_l1?.number ?? -1,
    headL1: s.head_l1?.number ?? -1,
    safeL1: s.safe_l1?.number ?? -1,
  };
}

/** Polls `fn` every 250 ms until it gives a value (errors count as no value); throws after `timeoutMs`, naming `what` and the last error. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  return pollUntil(what, timeoutMs, fn, { intervalMs: 250, retryErrors: true });
}

/** One sample of a metric (0 when the series is absent). `labels` as in the exposition, e.g. `{result="replaced"}`. */
export async function metric(n: RollupNode, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${n.metricsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

/** Every series of a counter family, as `labels → value`. */
export async function metricSeries(n: RollupNode, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${n.metricsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const l of text.split("\n")) {
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(l);
    if (m !== null && m[1] === name) out.set(m[2] ?? "", Number(m[3]));
  }
  return out;
}

/** An L2 block of the node (full transactions when `full`). */
export async function l2Block(n: RollupNode, number: number, full = false): Promise<Record<string, Json> | null> {
  return (await rpcResult(n.node.url, "eth_getBlockByNumber", ["0x" + number.toString(16), full])) as Record<string, Json> | null;
}

/** Checks that blocks `from`..`to` of `a` and `b` have the same hashes. */
export async function expectSameBlocks(a: RollupNode, b: RollupNode, to: number, from = 1): Promise<void> {
  for (let n = from; n <= to; n++) {
    const [x, y] = await Promise.all([l2Block(a, n), l2Block(b, n)]);
    expect(x, `block ${n}`).not.toBeNull();
    expect(y?.hash, `block ${n}`).toBe(x?.hash);
  }
}

/** Waits until both nodes' safe heads reach `target`, then checks their blocks 1..target are the same. */
export async function expectAgreeUpTo(seq: RollupNode, ver: RollupNode, target: number, timeoutMs = 90_000): Promise<void> {
  await until(`the verifier's safe head at ${target}`, async () => ((await syncStatus(ver)).safe >= target ? true : undefined), timeoutMs);
  await until(`the sequencer's safe head at ${target}`, async () => ((await syncStatus(seq)).safe >= target ? true : undefined), timeoutMs);
  await expectSameBlocks(seq, ver, target);
}

/** Signs and sends an EIP-1559 transaction (any chain; gas limit given, so nothing is estimated); resolves with its hash. */
export async function sendTx(url: string, key: L1Key, req: { to: string; data?: Uint8Array; value?: bigint; gasLimit: bigint; nonce?: bigint }): Promise<string> {
  const rpc = new HttpRpcClient(url);
  try {
    const sent = await submitL1Transaction(rpc, key, { to: req.to, data: req.data ?? new Uint8Array(), value: req.value ?? 0n, gasLimit: req.gasLimit, ...(req.nonce === undefined ? {} : { nonce: req.nonce }) });
    return sent.hash;
  } finally {
    rpc.close();
  }
}

/** Calldata gas of `data` with EIP-7623's floor (Prague): enough gas for a transaction carrying it, with room. */
export function calldataGas(data: Uint8Array): bigint {
  let tokens = 0n;
  for (const b of data) tokens += b === 0 ? 1n : 4n;
  return 21_000n + tokens * 10n + tokens * 6n + 50_000n;
}

/** The receipt of an L1 or L2 transaction once it is there. */
export async function receipt(url: string, hash: string, timeoutMs = 60_000): Promise<{ blockNumber: number; status: number }> {
  return until(`receipt of ${hash}`, async () => {
    const r = (await rpcResult(url, "eth_getTransactionReceipt", [hash])) as Record<string, string> | null;
    return r === null ? undefined : { blockNumber: Number(r.blockNumber), status: Number(r.status) };
  }, timeoutMs);
}

/** The node's JSON log lines at warn (level 40). */
export function warnLines(n: RollupNode): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of n.node.stdout().split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const j = JSON.parse(line) as Record<string, unknown>;
      if (j.level === 40) out.push(j);
    } catch {
      // a partial line
    }
  }
  return out;
}

/** Stops anvil's interval mining (blocks only on {@link mineL1}) or starts it again at one block a second. */
export async function setL1Mining(r: FaultRollup, on: boolean): Promise<void> {
  await r.l1.call("evm_setIntervalMining", [on ? 1 : 0]);
}

/** Mines one L1 block now; resolves with its number. */
export async function mineL1(r: FaultRollup): Promise<number> {
  await r.l1.call("evm_mine", []);
  return Number(await r.l1.call<string>("eth_blockNumber", []));
}

/** The L1 head's number. */
export async function l1Head(r: FaultRollup): Promise<number> {
  return Number(await r.l1.call<string>("eth_blockNumber", []));
}

/** Batch inbox transactions of L1 block `n`: sender and calldata (blob transactions give their blob count instead). */
export async function inboxTxs(r: FaultRollup, n: number): Promise<{ from: string; input: Uint8Array; blobs: number }[]> {
  const b = await r.l1.call<{ transactions: { from: string; to: string | null; input: string; blobVersionedHashes?: string[] }[] } | null>("eth_getBlockByNumber", ["0x" + n.toString(16), true]);
  return (b?.transactions ?? [])
    .filter((t) => t.to?.toLowerCase() === r.cfg.batchInboxAddress.toLowerCase())
    .map((t) => ({ from: t.from.toLowerCase(), input: new Uint8Array(Buffer.from(t.input.slice(2), "hex")), blobs: t.blobVersionedHashes?.length ?? 0 }));
}
