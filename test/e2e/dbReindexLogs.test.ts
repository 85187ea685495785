/**
 * `basalt db reindex-logs` as a user runs it: on a datadir whose blocks were written without the
 * log index, the command rebuilds it; the node then answers eth_getLogs from the index with the
 * scan's logs, and its `--rpc.max-blocks-per-filter` / `--rpc.max-logs-per-response` flags take
 * effect with reth's error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import type { RpcLog } from "../../src/chain/json/index.js";
import { parseLogFilter, rangeLogs } from "../../src/rpc/methods/logs.js";
import { ChainStore, MetaKey } from "../../src/storage/store.js";
import { TOPICS, writeLogChain } from "../../bench/logChain.js";
import { runCli, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { rpcCall, rpcResult } from "../helpers/rpc.js";

const dirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");

describe("basalt db reindex-logs (CLI)", () => {
  it("rebuilds the index of a datadir written without it; the node serves eth_getLogs from it, within its flags", async () => {
    const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-reindexlogs-"));
    dirs.push(datadir);
    const c = await writeLogChain(datadir, { blocks: 30, txsPerBlock: 12, tokens: 10, pools: 3, users: 10, seed: 5 });
    // What a basalt without the index left: no index entries, no coverage mark.
    const old = ChainStore.openForLogReindex(datadir);
    await old.logIndex.clearAsync();
    await old.meta.remove(MetaKey.logIndexFrom);
    await old.close();
    const criteria = { address: [hex(c.tokens[0]!), hex(c.tokens[1]!)], topics: [hex(TOPICS.transfer)] };
    const chain = Chain.open(datadir, { archive: true });
    const scanned: RpcLog[] = [];
    rangeLogs(chain, parseLogFilter(criteria, 0), 1n, 11n, scanned, { useIndex: false, maxLogs: Infinity });
    // Opened once by this basalt: indexed from the next block only.
    expect(chain.store.logIndexFrom()).toBe(31n);
    await chain.close();
    expect(scanned.length).toBeGreaterThan(0);

    const r = await runCli(["db", "reindex-logs", "--datadir", datadir], { timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("log index rebuilt");

    const node = await startNode({ datadir, args: ["--no-sequencer", "--rpc.max-blocks-per-filter", "10", "--rpc.max-logs-per-response", "0"] });
    const logs = await rpcResult(node.url, "eth_getLogs", [{ ...criteria, fromBlock: "0x1", toBlock: "0xb" }]);
    expect(JSON.stringify(logs)).toBe(JSON.stringify(scanned));
    const over = await rpcCall(node.url, "eth_getLogs", [{ ...criteria, fromBlock: "0x1", toBlock: "0xc" }]);
    expect(over.error).toEqual({ code: -32602, message: "query exceeds max block range 10" });
    await node.stop();
  }, 240_000);
});
