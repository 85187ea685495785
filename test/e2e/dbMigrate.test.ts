/**
 * `basalt db migrate` as a user runs it: a devnet datadir written by basalt with the plain-keyed
 * state layout (test/fixtures/legacy-layout-1) is refused by `basalt node` with the command to
 * run; `basalt db migrate` converts it; the node then starts on it, answers the old state (head
 * and an older block, from the converted history) as the old node did, and builds new blocks on it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { runCli, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { receipt, sendTx } from "../helpers/rollupFaults.js";
import { rpcResult } from "../helpers/rpc.js";

const FIXTURE = new URL("../fixtures/legacy-layout-1/data.mdb.gz", import.meta.url);
/** The fixture's contract (the first deployment of dev account 0) and a slot it set in every round. */
const CONTRACT = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const dirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("basalt db migrate (CLI)", () => {
  it("converts an older datadir that the node then serves and extends", async () => {
    const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-dbmigrate-"));
    dirs.push(datadir);
    mkdirSync(path.join(datadir, "chain"));
    writeFileSync(path.join(datadir, "chain", "data.mdb"), gunzipSync(readFileSync(FIXTURE)));

    const refused = await runCli(["node", "--datadir", datadir, "--p2p.disable", "--p2p.el.disable"], { timeoutMs: 60_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain(`basalt db migrate --datadir ${datadir}`);

    const migrated = await runCli(["db", "migrate", "--datadir", datadir], { timeoutMs: 120_000 });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain("datadir migrated");
    const again = await runCli(["db", "migrate", "--datadir", datadir], { timeoutMs: 60_000 });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing to do");

    const node = await startNode({ datadir, args: ["--history.blocks", "64"] });
    try {
      const head = Number(await rpcResult(node.url, "eth_blockNumber", []));
      expect(head).toBeGreaterThan(6);
      // Odd rounds write slots 7s+1: round 5 (the last) 501..508, round 3 zero to even s, round 1 101..108.
      const slot = "0x" + (7 * 2 + 1).toString(16).padStart(64, "0");
      expect(BigInt((await rpcResult(node.url, "eth_getStorageAt", [CONTRACT, slot, "latest"])) as string)).toBe(503n);
      const code = (await rpcResult(node.url, "eth_getCode", [CONTRACT, "latest"])) as string;
      expect(code).toBe("0x6020356000355500");
      // The slot's values block by block, read through the converted history: 103 (round 1), zeroed (round 3), 503 (round 5).
      const values: bigint[] = [];
      for (let b = 1; b <= head; b++) {
        const v = BigInt((await rpcResult(node.url, "eth_getStorageAt", [CONTRACT, slot, "0x" + b.toString(16)])) as string);
        if (values[values.length - 1] !== v) values.push(v);
      }
      expect(values).toEqual([0n, 103n, 0n, 503n]);
      // New blocks on the migrated state.
      const recipient = "0x" + "ab".repeat(20);
      const h = await sendTx(node.url, devAccounts()[2]!.privateKey, { to: recipient, value: 12345n, gasLimit: 21_000n });
      const r = await receipt(node.url, h);
      expect(r.status).toBe(1);
      expect(r.blockNumber).toBeGreaterThan(head);
      expect(BigInt((await rpcResult(node.url, "eth_getBalance", [recipient, "latest"])) as string)).toBe(12345n);
    } finally {
      await node.stop();
    }
  }, 180_000);
});
