/**
 * Metering, bundles and the miner API on a running devnet node: without `--enable-metering` the
 * base_meter* methods do not exist (-32601, as on base-reth-node); with it they run on the
 * execution pool's workers (base_meterBundle on a bundle signed by a dev account,
 * base_meterBlockByNumber on the block that sealed a bundle sent with eth_sendBundle); the miner
 * namespace is served on an operator endpoint and refused on a `--public` one.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { rpcCall } from "../helpers/rpc.js";

const dirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) await removeDir(d);
});

const from = devAccounts()[1]!.address;
const SINK = "0x000000000000000000000000000000000000bEEF";

describe("metering, bundles and the miner API (e2e)", () => {
  it("answers -32601 for the metering methods without --enable-metering; miner_* is off on --public", async () => {
    const dir = await makeTempDir("basalt-e2e-metering-");
    dirs.push(dir);
    const node = await startNode({ datadir: path.join(dir, "data"), args: ["--public"] });
    for (const method of ["base_meterBundle", "base_meterBlockByHash", "base_meterBlockByNumber", "base_meteredPriorityFeePerGas"]) {
      expect((await rpcCall(node.url, method, [])).error?.code, method).toBe(-32601);
    }
    expect((await rpcCall(node.url, "miner_setGasLimit", [30_000_000])).error?.code).toBe(-32601);
    await node.stop();
  }, 60_000);

  it("meters a bundle and a sealed block on the execution pool with --enable-metering", async () => {
    const dir = await makeTempDir("basalt-e2e-metering-");
    dirs.push(dir);
    const node = await startNode({ datadir: path.join(dir, "data"), args: ["--enable-metering", "--rpc.threads", "1"] });
    expect((await rpcCall(node.url, "miner_setGasLimit", ["0x0"])).result).toBe(true);
    const signed = (await rpcCall(node.url, "eth_signTransaction", [{ from, to: SINK, value: "0x1", gas: "0x5208", maxFeePerGas: "0x2540be400", maxPriorityFeePerGas: "0xf4240" }])).result as {
      raw: string;
      tx: { hash: string };
    };
    // The devnet seals its first block on its clock: metering needs a state block with L1 info.
    await pollUntil("block 1", 30_000, async () => ((await rpcCall(node.url, "eth_blockNumber")).result !== "0x0" ? true : undefined));
    const metered = (await rpcCall(node.url, "base_meterBundle", [{ txs: [signed.raw], blockNumber: "0x0" }])).result as { results: { txHash: string; gasUsed: number }[]; totalExecutionTimeUs: number };
    expect(metered.results).toEqual([expect.objectContaining({ txHash: signed.tx.hash, gasUsed: 21_000 })]);
    expect(Number.isInteger(metered.totalExecutionTimeUs)).toBe(true);
    const sent = await rpcCall(node.url, "eth_sendBundle", [{ txs: [signed.raw], blockNumber: "0x0", revertingTxHashes: [signed.tx.hash] }]);
    expect(sent.result).toEqual({ bundleHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const receipt = await pollUntil("bundle receipt", 30_000, async () => ((await rpcCall(node.url, "eth_getTransactionReceipt", [signed.tx.hash])).result as { blockNumber: string } | null) ?? undefined);
    const block = (await rpcCall(node.url, "base_meterBlockByNumber", [receipt.blockNumber])).result as { blockNumber: number; transactions: { txHash: string; gasUsed: number }[]; totalTimeUs: number };
    expect(block.blockNumber).toBe(Number(receipt.blockNumber));
    expect(block.transactions).toContainEqual(expect.objectContaining({ txHash: signed.tx.hash, gasUsed: 21_000 }));
    expect((await rpcCall(node.url, "base_meteredPriorityFeePerGas", [{ txs: [signed.raw], blockNumber: "0x0" }])).error).toEqual({ code: -32603, message: "Priority fee estimation not configured" });
    await node.stop();
  }, 90_000);
});
