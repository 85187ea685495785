/**
 * L1 derivation end to end, with no batcher at all: an anvil L1 carrying the rollup's real
 * OptimismPortal and SystemConfig, and a `basalt node` of a custom OP chain (genesis anchored to
 * the contracts' block, rollup.json) given only `--l1.rpc`. With no batch ever posted, the rules
 * still define the chain: once each epoch's sequencing window has passed, derivation makes the
 * empty batches (deposits only) — so the node derives L2 blocks from L1 alone, an L1 deposit
 * lands in the first block of its epoch, `optimism_syncStatus` reports the L1 side, the metrics
 * count the work, and a restart resumes from the safe head instead of deriving from genesis.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../bench/scenario/anvil.js";
import { Chain } from "../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { decodeL1InfoCalldata } from "../../src/chain/op/l1InfoTx.js";
import { rollupConfigJson, type RollupConfig } from "../../src/chain/op/rollupConfig.js";
import { ANVIL_CHAIN_ID, DEVNET_BASE_FEE_SCALAR, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT } from "../../src/chain/constants.js";
import { DEVNET_ROLLUP_BATCH_INBOX } from "../../src/devnet/constants.js";
import { deployRollupContracts } from "../../src/devnet/l1Contracts.js";
import { sendL1Deposit } from "../../src/devnet/optimismPortal.js";
import { rollupGenesisSystemConfig, type SystemConfigInit } from "../../src/devnet/systemConfigInit.js";
import { to0x } from "../../src/util/bytes.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { getFreePort } from "../helpers/ports.js";
import { rpcResult } from "../helpers/rpc.js";

type Json = Record<string, unknown>;
const L2_BLOCK_TIME = 1n;
const SEQ_WINDOW = 4n;
const RECIPIENT = "0x00000000000000000000000000000000000d0e05";
const MINT = 10n ** 18n;

let anvil: AnvilNode;
let dir: string;
let cfg: RollupConfig;
let args: string[];

async function metric(port: number, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: ANVIL_CHAIN_ID, blockTime: 1 });
  dir = await makeTempDir("basalt-derive-e2e-");
  const accounts = devAccounts();
  const init: SystemConfigInit = {
    batcher: accounts[9]!.address,
    basefeeScalar: Number(DEVNET_BASE_FEE_SCALAR),
    blobbasefeeScalar: Number(DEVNET_BLOB_BASE_FEE_SCALAR),
    gasLimit: DEVNET_GAS_LIMIT,
    unsafeBlockSigner: accounts[8]!.address,
  };
  const contracts = await deployRollupContracts(anvil.url, { deployerKey: accounts[8]!.privateKey, systemConfig: init });
  const anchor = (await rpcResult(anvil.url, "eth_getBlockByHash", [contracts.deployedAt.hash, false])) as Json;
  const l2Time = BigInt(anchor.timestamp as string);
  const genesis = { ...devnetGenesis(), timestamp: "0x" + l2Time.toString(16) };
  const { block } = await Chain.buildGenesis(genesis, commonFromGenesis(genesis));
  const op = genesis.config as Record<string, unknown>;
  cfg = {
    chainId: DEVNET_CHAIN_ID,
    l1ChainId: ANVIL_CHAIN_ID,
    blockTime: L2_BLOCK_TIME,
    seqWindowSize: SEQ_WINDOW,
    maxSequencerDrift: 600n,
    channelTimeout: 300n,
    channelTimeoutGranite: 50n,
    batchInboxAddress: DEVNET_ROLLUP_BATCH_INBOX,
    depositContractAddress: contracts.optimismPortal,
    l1SystemConfigAddress: contracts.systemConfig,
    forkTimes: { regolith: 0n, canyon: 0n, delta: 0n, ecotone: 0n, fjord: 0n, granite: 0n, holocene: 0n, isthmus: 0n, jovian: 0n },
    eip1559: { ...(op.optimism as { eip1559Elasticity: number; eip1559Denominator: number; eip1559DenominatorCanyon: number }) },
    genesis: {
      l1: { hash: anchor.hash as string, number: BigInt(anchor.number as string) },
      l2: { hash: to0x(block.hash()), number: 0n },
      l2Time,
      systemConfig: rollupGenesisSystemConfig(init),
    },
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "genesis.json"), JSON.stringify(genesis));
  writeFileSync(path.join(dir, "rollup.json"), JSON.stringify(rollupConfigJson(cfg)));
  args = ["--network", path.join(dir, "genesis.json"), "--rollup.config", path.join(dir, "rollup.json"), "--l1.rpc", anvil.url, "--l1.block-time", "1"];
}, 120_000);

afterAll(async () => {
  await stopAllProcesses();
  await anvil?.stop();
  if (dir !== undefined) await removeDir(dir);
});

describe("derivation from L1 alone (no batcher)", () => {
  let node: NodeHandle;
  let metricsPort: number;

  it("derives deposit-only blocks after each sequencing window, with the L1 deposit in its epoch's first block", async () => {
    metricsPort = await getFreePort();
    node = await startNode({ datadir: path.join(dir, "data"), args: [...args, "--metrics", "--metrics.port", String(metricsPort)] });
    const deposit = await sendL1Deposit(anvil.url, devAccounts()[0]!.privateKey, cfg.depositContractAddress, { to: RECIPIENT, mint: MINT, value: MINT, gasLimit: 100_000n });
    // The deposit's epoch is derived once its sequencing window has passed.
    const status = await pollUntil("a safe head past the deposit's epoch", 90_000, async () => {
      const s = (await rpcResult(node.rollupUrl, "optimism_syncStatus", [])) as Json;
      const safe = s.safe_l2 as { number: number; l1origin: { number: number } };
      return safe.l1origin.number > Number(deposit.blockNumber) ? s : undefined;
    }, 250);
    const safe = status.safe_l2 as { number: number; hash: string };
    expect(safe.number).toBeGreaterThan(0);
    // L1 side of the status: derivation's.
    for (const k of ["current_l1", "head_l1", "safe_l1"]) expect((status[k] as { number: number }).number).toBeGreaterThan(Number(cfg.genesis.l1.number));
    expect((status.head_l1 as { number: number }).number).toBeGreaterThanOrEqual((status.current_l1 as { number: number }).number);
    // Every derived block: exact timestamps, deposits only, origins walking L1 block by block.
    let depositBlock: Json | undefined;
    let prevOrigin = cfg.genesis.l1.number;
    for (let n = 1; n <= safe.number; n++) {
      const b = (await rpcResult(node.url, "eth_getBlockByNumber", ["0x" + n.toString(16), true])) as Json;
      expect(BigInt(b.timestamp as string)).toBe(cfg.genesis.l2Time + BigInt(n) * L2_BLOCK_TIME);
      const txs = b.transactions as Json[];
      expect(txs.every((t) => t.type === "0x7e")).toBe(true);
      const info = decodeL1InfoCalldata(Buffer.from((txs[0]!.input as string).slice(2), "hex"));
      expect(info.values.number - prevOrigin <= 1n).toBe(true);
      prevOrigin = info.values.number;
      if (txs.some((t) => (t.sourceHash as string) !== undefined && t.to?.toString().toLowerCase() === RECIPIENT)) depositBlock = b;
    }
    expect(depositBlock).toBeDefined();
    const info = decodeL1InfoCalldata(Buffer.from((((depositBlock!.transactions as Json[])[0]!.input) as string).slice(2), "hex"));
    expect(info.values.number).toBe(deposit.blockNumber);
    expect(info.values.sequenceNumber).toBe(0n);
    expect(BigInt((await rpcResult(node.url, "eth_getBalance", [RECIPIENT, "latest"])) as unknown as string)).toBe(MINT);
    // The metrics count the derived blocks (the worker's counters reach the main thread within a status interval) and the L1 requests.
    await pollUntil("the derived-block counter", 10_000, async () => ((await metric(metricsPort, "basalt_derivation_blocks_total", '{result="built"}')) >= safe.number ? true : undefined), 250);
    expect(await metric(metricsPort, "basalt_derivation_l1_requests_total", '{method="eth_getBlockByNumber"}')).toBeGreaterThan(0);
    expect(await metric(metricsPort, "basalt_derivation_l1_head_number")).toBeGreaterThan(0);
  }, 180_000);

  it("resumes from its safe head after a restart, without deriving from genesis again", async () => {
    const before = (await rpcResult(node.rollupUrl, "optimism_syncStatus", [])) as Json;
    const safeBefore = (before.safe_l2 as { number: number }).number;
    await node.stop();
    node = await startNode({ datadir: path.join(dir, "data"), args: [...args, "--metrics", "--metrics.port", String(metricsPort)] });
    const after = await pollUntil("the safe head moving on after the restart", 90_000, async () => {
      const s = (await rpcResult(node.rollupUrl, "optimism_syncStatus", [])) as Json;
      return (s.safe_l2 as { number: number }).number > safeBefore + 2 ? s : undefined;
    }, 250);
    expect((after.safe_l2 as { number: number }).number).toBeGreaterThan(safeBefore + 2);
    const derivedNow = await metric(metricsPort, "basalt_derivation_blocks_total", '{result="built"}');
    // Only the blocks after the old safe head were derived in this run. The counter is the worker's
    // own (read live by the scrape) while the status reaches the main thread within a status interval:
    // wait (briefly: L1 paces this derivation) for a status showing the safe head moved by at least
    // as many blocks as were built. Deriving from genesis again would build far more, and time out.
    await pollUntil("the safe head moved by as many blocks as were built", 5_000, async () => {
      const s = (await rpcResult(node.rollupUrl, "optimism_syncStatus", [])) as Json;
      return (s.safe_l2 as { number: number }).number - safeBefore >= derivedNow ? true : undefined;
    });
    expect(await metric(metricsPort, "basalt_derivation_resets_total", '{cause="start"}')).toBe(1);
  }, 180_000);
});
