/**
 * End-to-end: `basalt node --network genesis.json --rollup.config rollup.json --l1.rpc <anvil>
 * --sequencer` — a local rollup sequenced on a real L1 (anvil mining every second, chain 31337),
 * in a real process:
 * - blocks at genesis time + n × block time, each naming a block anvil has (hash by number);
 * - `optimism_syncStatus`: `unsafe_l2`'s origin is a block anvil has; `head_l1`/`current_l1`
 *   (derivation's: the node also derives with `--l1.rpc`) are blocks anvil has;
 *   `optimism_rollupConfig` is the rollup.json given;
 * - a deposit emitted on L1 from the portal address reaches the L2 recipient; `dev_sendDeposit` is
 *   not served (deposits come from L1);
 * - `--sequencer` on that chain without `--l1.rpc` refuses to start, naming the flag.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Address, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../bench/scenario/anvil.js";
import { Chain } from "../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devnetRollupConfig, devnetRollupGenesis } from "../../src/chain/devnetRollup.js";
import { encodeDepositLog } from "../../src/chain/op/depositLog.js";
import { decodeL1InfoCalldata } from "../../src/chain/op/l1InfoTx.js";
import { rollupConfigJson } from "../../src/chain/op/rollupConfig.js";
import { ANVIL_CHAIN_ID } from "../../src/chain/constants.js";
import { HttpRpcClient } from "../../src/util/rpcClient.js";
import { to0x } from "../../src/util/bytes.js";
import { makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { emitterCalldata, L1Wallet } from "../helpers/l1LogEmitters.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcCall, rpcResult } from "../helpers/rpc.js";

type RpcBlock = { number: string; hash: string; parentHash: string; timestamp: string; transactions: { input: string; type: string }[] };
type L1Ref = { hash: string; number: number; parentHash: string; timestamp: number };

const INBOX = "0xff00000000000000000000000000000000000042";
const BATCHER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

let anvil: AnvilNode;
let l1: HttpRpcClient;
let node: NodeHandle;
let dir: string;
let anchor: RpcBlock;
let portal: string;
let rollupJson: Record<string, unknown>;
let genesisPath: string;
let rollupPath: string;

const l2Block = async (n: number | "latest"): Promise<RpcBlock> => (await rpcResult(node.url, "eth_getBlockByNumber", [n === "latest" ? n : `0x${n.toString(16)}`, true])) as unknown as RpcBlock;
const l1Block = async (n: bigint): Promise<RpcBlock> => (await l1.call("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as RpcBlock;
const originOf = (b: RpcBlock) => decodeL1InfoCalldata(hexToBytes(b.transactions[0]!.input as `0x${string}`)).values;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: ANVIL_CHAIN_ID, blockTime: 1 });
  l1 = new HttpRpcClient(anvil.url);
  const wallet = new L1Wallet(l1, ANVIL_CHAIN_ID);
  ({ portal } = await wallet.deployEmitters());
  anchor = (await l1.call("eth_getBlockByNumber", ["latest", false])) as RpcBlock;
  dir = await makeTempDir("basalt-e2e-seql1-");
  const genesis = devnetRollupGenesis(BigInt(anchor.timestamp));
  const { block } = await Chain.buildGenesis(genesis, commonFromGenesis(genesis));
  const cfg = devnetRollupConfig({
    l1ChainId: ANVIL_CHAIN_ID,
    l1Anchor: { hash: anchor.hash, number: BigInt(anchor.number), timestamp: BigInt(anchor.timestamp) },
    l2GenesisHash: to0x(block.hash()),
    portal,
    systemConfig: "0x" + "00".repeat(19) + "5c",
    batcher: BATCHER,
    batchInbox: INBOX,
    blockTime: 1n,
  });
  rollupJson = rollupConfigJson(cfg);
  genesisPath = path.join(dir, "genesis.json");
  rollupPath = path.join(dir, "rollup.json");
  writeFileSync(genesisPath, JSON.stringify(genesis));
  writeFileSync(rollupPath, JSON.stringify(rollupJson));
  node = await startNode({ datadir: path.join(dir, "data"), args: ["--network", genesisPath, "--rollup.config", rollupPath, "--l1.rpc", anvil.url, "--sequencer"] });
}, 90_000);

afterAll(async () => {
  await stopAllProcesses();
  l1?.close();
  await anvil?.stop();
  if (dir !== undefined) await removeDir(dir);
});

describe("sequencer on a real L1 (e2e)", () => {
  it("seals blocks at exact block times, each naming a block the L1 has; the rollup RPC reports that L1", async () => {
    await pollUntil("L2 block 3", 30_000, async () => (Number((await rpcResult(node.url, "eth_blockNumber")) as string) >= 3 ? true : undefined));
    for (let n = 1; n <= 3; n++) {
      const b = await l2Block(n);
      expect(BigInt(b.timestamp)).toBe(BigInt(anchor.timestamp) + BigInt(n));
      const o = originOf(b);
      expect(to0x(o.hash)).toBe((await l1Block(o.number)).hash);
    }
    const { status, head } = await pollUntil("a sync status of a stable head", 20_000, async () => {
      const s = (await rpcResult(node.rollupUrl, "optimism_syncStatus")) as unknown as Record<string, L1Ref & { l1origin: { hash: string; number: number } }>;
      const h = await l2Block("latest");
      return s.unsafe_l2!.hash === h.hash ? { status: s, head: h } : undefined;
    });
    const o = originOf(head);
    const l1o = await l1Block(o.number);
    const expected: L1Ref = { hash: l1o.hash, number: Number(o.number), parentHash: l1o.parentHash, timestamp: Number(l1o.timestamp) };
    // With --l1.rpc the node also derives: head_l1 is the newest L1 block derivation has seen and
    // current_l1 the block its pipeline is at — both blocks anvil has, at or after what the head names.
    for (const ref of [status.head_l1!, status.current_l1!]) {
      const b = await l1Block(BigInt(ref.number));
      expect(ref.hash).toBe(b.hash);
    }
    expect(status.head_l1!.number).toBeGreaterThanOrEqual(status.current_l1!.number);
    expect(status.head_l1!.number).toBeGreaterThanOrEqual(expected.number);
    expect(status.unsafe_l2!.l1origin).toEqual({ hash: l1o.hash, number: Number(o.number) });
    expect(await rpcResult(node.rollupUrl, "optimism_rollupConfig")).toEqual(JSON.parse(JSON.stringify(rollupJson)));
  }, 60_000);

  it("takes deposits from the L1 portal's logs and does not serve dev_sendDeposit", async () => {
    const to = "0x000000000000000000000000000000000000d0d0";
    const value = 12_345n;
    const log = encodeDepositLog({ from: new Address(new Uint8Array(20).fill(0xd1)), to: createAddressFromString(to), mint: value, value, gasLimit: 100_000n, data: new Uint8Array(0) }, hexToBytes(portal as `0x${string}`));
    await new L1Wallet(l1, ANVIL_CHAIN_ID, hexToBytes("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")).send(portal, emitterCalldata(log));
    await pollUntil("the deposit's value on L2", 30_000, async () => (BigInt((await rpcResult(node.url, "eth_getBalance", [to, "latest"])) as string) === value ? true : undefined));
    const r = await rpcCall(node.url, "dev_sendDeposit", [{ from: to }]);
    expect(r.error?.code).toBe(-32601);
  }, 60_000);

  it("refuses --sequencer on that chain without --l1.rpc, naming the flag", async () => {
    const r = await runCli(["node", "--datadir", path.join(dir, "data2"), "--network", genesisPath, "--rollup.config", rollupPath, "--sequencer", "--http.port", "0", "--authrpc.port", "0", "--rollup.port", "0"], { timeoutMs: 60_000 });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/--sequencer: .*set --l1\.rpc/);
  }, 90_000);
});
