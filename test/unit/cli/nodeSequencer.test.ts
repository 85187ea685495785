/**
 * How `basalt node` decides to sequence, from parsed options and the opened chain: the built-in
 * devnet by default (simulated L1) unless it follows another node; `--no-sequencer` turns it off;
 * a custom chain only with `--sequencer`, which needs its `--rollup.config` and an `--l1.rpc`
 * serving the rollup's L1 chain id (checked against a real anvil); each refusal names its flag.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../../bench/scenario/anvil.js";
import { Chain } from "../../../src/blockchain/chain.js";
import { parseCli } from "../../../src/cli/args.js";
import { nodeSequencing } from "../../../src/cli/commands/nodeSequencer.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { devnetRollupConfig, devnetRollupGenesis } from "../../../src/chain/devnetRollup.js";
import { rollupConfigJson } from "../../../src/chain/op/rollupConfig.js";
import { ANVIL_CHAIN_ID } from "../../../src/chain/constants.js";
import { to0x } from "../../../src/util/bytes.js";

const silent = pino({ level: "silent" });
const tmp = mkdtempSync(path.join(os.tmpdir(), "basalt-node-seq-"));
let anvil: AnvilNode;
let devnet: Chain;
let rollup: Chain;
/** rollup.json files: for the rollup chain on anvil's chain id, and on another L1. */
let onAnvil: string;
let onOtherL1: string;

function rollupFile(name: string, l1ChainId: bigint, genesisHash: string): string {
  const cfg = devnetRollupConfig({
    l1ChainId,
    l1Anchor: { hash: "0x" + "ab".repeat(32), number: 0n, timestamp: 1_000n },
    l2GenesisHash: genesisHash,
    portal: "0x" + "01".repeat(20),
    systemConfig: "0x" + "02".repeat(20),
    batcher: "0x" + "03".repeat(20),
    batchInbox: "0x" + "04".repeat(20),
  });
  const file = path.join(tmp, name);
  writeFileSync(file, JSON.stringify(rollupConfigJson(cfg)));
  return file;
}

async function openChain(name: string, genesis: unknown): Promise<Chain> {
  const dir = path.join(tmp, name);
  await Chain.init(dir, genesis);
  return Chain.open(dir, { logger: silent });
}

const opts = (args: string[]) => parseCli(["node", ...args], {}).options;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: ANVIL_CHAIN_ID });
  devnet = await openChain("devnet", devnetGenesis());
  rollup = await openChain("rollup", devnetRollupGenesis(1_000n));
  onAnvil = rollupFile("rollup.json", ANVIL_CHAIN_ID, to0x(rollup.genesisHash));
  onOtherL1 = rollupFile("rollup-l1.json", 1n, to0x(rollup.genesisHash));
}, 60_000);

afterAll(async () => {
  await devnet?.close();
  await rollup?.close();
  await anvil?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The message of the BasaltError `p` rejects with, which must have code CLI_INVALID_VALUE. */
async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err as { code: string; message: string },
  );
  expect(e?.code).toBe("CLI_INVALID_VALUE");
  return e!.message;
}

describe("node sequencing decision", () => {
  it("sequences the built-in devnet on its simulated L1 unless it follows or --no-sequencer", async () => {
    expect(await nodeSequencing(opts([]), devnet, { isDevChain: true, following: false, log: silent })).toEqual({ sequencing: true });
    expect((await nodeSequencing(opts([]), devnet, { isDevChain: true, following: true, log: silent })).sequencing).toBe(false);
    expect((await nodeSequencing(opts(["--no-sequencer"]), devnet, { isDevChain: true, following: false, log: silent })).sequencing).toBe(false);
    expect(await refusal(nodeSequencing(opts(["--sequencer"]), devnet, { isDevChain: true, following: true, log: silent }))).toMatch(/^--sequencer: .*--follow-rpc/);
  });

  it("does not sequence a custom chain without --sequencer, and refuses --sequencer without its rollup config or L1", async () => {
    const verifier = await nodeSequencing(opts(["--rollup.config", onAnvil]), rollup, { isDevChain: false, following: false, log: silent });
    expect(verifier.sequencing).toBe(false);
    expect(verifier.rollupConfig?.l1ChainId).toBe(ANVIL_CHAIN_ID);
    expect(await refusal(nodeSequencing(opts(["--sequencer"]), rollup, { isDevChain: false, following: false, log: silent }))).toMatch(/^--sequencer: .*--rollup\.config/);
    expect(await refusal(nodeSequencing(opts(["--sequencer", "--rollup.config", onAnvil]), rollup, { isDevChain: false, following: false, log: silent }))).toMatch(/^--sequencer: .*set --l1\.rpc/);
    expect(await refusal(nodeSequencing(opts(["--sequencer", "--rollup.config", onOtherL1, "--l1.rpc", anvil.url]), rollup, { isDevChain: false, following: false, log: silent }))).toMatch(
      /^--l1\.rpc: .* serves chain 31337, but the rollup config names L1 chain 1/,
    );
  });

  it("sequences a custom chain on the L1 of --l1.rpc, its blocks at the rollup's block time, safe and final left to derivation", async () => {
    const plan = await nodeSequencing(opts(["--sequencer", "--rollup.config", onAnvil, "--l1.rpc", anvil.url, "--sequencer.l1-confs", "2"]), rollup, { isDevChain: false, following: false, log: silent });
    try {
      expect(plan.sequencing).toBe(true);
      expect(plan.rollupConfig?.chainId).toBe(rollup.chainId);
      expect(plan.l1?.origins.blockTime).toBe(plan.rollupConfig?.blockTime);
      expect(plan.l1?.origins.sealsFinal).toBe(false);
    } finally {
      plan.l1?.client.close();
    }
  });
});
