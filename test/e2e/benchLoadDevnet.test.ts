/**
 * The load tool against a real `basalt node` devnet (1 s blocks): corpus discovery after a few
 * signed transfers, a contract deployment and a call to it builds every corpus, each body of which
 * succeeds; and `basalt bench load` run as a command exits 0 and writes its JSON and HTML reports.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address, createContractAddress, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISCOVERABLE_CORPORA, discoverCorpora } from "../../bench/load/corpus.js";
import { LoadGenerator } from "../../bench/load/generator.js";
import type { Corpus, LoadReport } from "../../bench/load/types.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { rpcResult, type Json } from "../helpers/rpc.js";
import { pollUntil } from "../helpers/poll.js";

/** Devnet chain id 845337 ("8453" + "37"). */
const CHAIN_ID = 845337n;
const GWEI = 10n ** 9n;
/** Init code of a contract whose runtime returns the 32-byte word 42 for any call (as in test/e2e/devnet.test.ts). */
const INIT_CODE = "0x69602a60005260206000f3600052600a6016f3";
/** Gas for the deployment and the call: far above what they use (≈ 55k and ≈ 21k). */
const DEPLOY_GAS = 100_000n;
const CALL_GAS = 50_000n;
const RECEIPT_TIMEOUT_MS = 20_000;

const accounts = devAccounts();
const common: Common = commonFromGenesis(devnetGenesis(), "devnet");

function sign(from: number, nonce: bigint, fields: { to?: string; value?: bigint; data?: string; gasLimit: bigint }): string {
  const tx = createFeeMarket1559Tx(
    {
      chainId: CHAIN_ID,
      nonce,
      maxPriorityFeePerGas: GWEI,
      maxFeePerGas: 10n * GWEI,
      gasLimit: fields.gasLimit,
      to: fields.to as `0x${string}` | undefined,
      value: fields.value ?? 0n,
      data: (fields.data ?? "0x") as `0x${string}`,
    },
    { common },
  ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
  return `0x${Buffer.from(tx.serialize()).toString("hex")}`;
}

describe("load tool against a basalt devnet", () => {
  let datadir = "";
  let outDir = "";
  let node: NodeHandle;
  let corpora: Corpus[] = [];

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-load-devnet-");
    outDir = await makeTempDir("basalt-load-out-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1", "--log.level", "warn"] });
    const contract = createContractAddress(new Address(hexToBytes(accounts[2]!.address as `0x${string}`)), 0n).toString();
    const raws = [
      sign(0, 0n, { to: accounts[1]!.address, value: 10n ** 18n, gasLimit: 21_000n }),
      sign(1, 0n, { to: accounts[3]!.address, value: 12_345n, gasLimit: 21_000n }),
      sign(2, 0n, { data: INIT_CODE, gasLimit: DEPLOY_GAS }),
      sign(2, 1n, { to: contract, data: "0x01", gasLimit: CALL_GAS }),
    ];
    const hashes: string[] = [];
    for (const raw of raws) hashes.push((await rpcResult(node.url, "eth_sendRawTransaction", [raw])) as string);
    for (const h of hashes) {
      const r = await pollUntil(`the receipt of ${h}`, RECEIPT_TIMEOUT_MS, async () => {
        const receipt = (await rpcResult(node.url, "eth_getTransactionReceipt", [h])) as { [k: string]: Json } | null;
        return receipt ?? undefined;
      }, 200);
      expect(r.status, `receipt of ${h}`).toBe("0x1");
    }
    corpora = await discoverCorpora(node.url, { blocks: 8 });
  });

  afterAll(async () => {
    await stopAllProcesses();
    for (const d of [datadir, outDir]) if (d !== "") await removeDir(d);
  });

  it("discovers every corpus from the chain's recent blocks", () => {
    expect(corpora.map((c) => c.name)).toEqual([...DISCOVERABLE_CORPORA]);
    for (const c of corpora) expect(c.bodies.length, c.name).toBeGreaterThan(0);
    const byName = new Map(corpora.map((c) => [c.name, c]));
    // The four transactions and the accounts they touched are in the corpora.
    expect(byName.get("eth_getTransactionReceipt")!.bodies.length).toBeGreaterThanOrEqual(4);
    const balances = byName.get("eth_getBalance")!.bodies.join("\n").toLowerCase();
    for (const i of [0, 1, 2, 3]) expect(balances).toContain(accounts[i]!.address.toLowerCase());
    expect(byName.get("eth_call")!.bodies).toHaveLength(1);
    expect(byName.get("eth_estimateGas")!.bodies.length).toBeGreaterThanOrEqual(2);
  });

  it("builds bodies that all succeed and pass their validators, checked on the generator's threads", async () => {
    for (const corpus of corpora) {
      expect(corpus.validator, corpus.name).toBeDefined();
      const gen = await LoadGenerator.start({ url: node.url, corpus, threads: 2, timeoutMs: 10_000, sampleBytes: Infinity });
      try {
        expect(gen.threads).toBe(2);
        const { tally } = await gen.warm(corpus.bodies.length);
        expect(tally.failures, corpus.name).toEqual({});
        expect(tally.ok, corpus.name).toBe(corpus.bodies.length);
      } finally {
        await gen.close();
      }
    }
  });

  it("validators reject wrong answers", () => {
    const byName = new Map(corpora.map((c) => [c.name, c]));
    const blocks = byName.get("eth_getBlockByNumber")!;
    expect(blocks.validate!(null, 0)).toBe("block is null");
    expect(blocks.validate!({ number: "0xffffff", transactions: [] }, 0)).toBe("wrong block number");
    expect(byName.get("eth_getBalance")!.validate!("12", 0)).toBe("not a quantity");
    expect(byName.get("eth_chainId")!.validate!("0x1", 0)).toBe("wrong chain id");
    expect(byName.get("eth_getTransactionReceipt")!.validate!(null, 0)).toBe("receipt is null");
  });

  it("runs as `basalt bench load` and writes the JSON and HTML reports", async () => {
    const args = ["bench", "load", "--url", `a=${node.url}`, "--steps", "4", "--step-seconds", "1", "--no-peak", "--blocks", "8", "--out", outDir];
    const r = await runCli(args, { timeoutMs: 60_000 });
    expect(r.code, describeCliResult(args, r)).toBe(0);
    const json = path.join(outDir, "load.json");
    const html = path.join(outDir, "load.html");
    expect(existsSync(json) && existsSync(html)).toBe(true);
    const report = JSON.parse(readFileSync(json, "utf8")) as LoadReport;
    expect(report.plan).toEqual({ steps: [4], stepSeconds: 1 });
    expect(report.results.map((x) => x.corpus)).toEqual([...DISCOVERABLE_CORPORA]);
    for (const res of report.results) {
      expect(res.endpoint).toBe("a");
      expect(res.steps[0]!.failed, `${res.corpus}: ${JSON.stringify(res.steps[0]!.failures)}`).toBe(0);
      expect(res.steps[0]!.ok).toBe(4);
    }
    expect(r.stdout).toContain("eth_getBlockByNumber(full)");
    expect(r.stdout).toContain(`wrote ${json}`);
    expect(r.stderr).toContain("corpora:");
    expect(readFileSync(html, "utf8")).toContain("<svg");
  });
});
