/**
 * `--http.api`: a node serves only the namespaces listed (as geth's and reth's flag), and refuses
 * to start when the list names a namespace it has none of.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { getFreePorts } from "../helpers/ports.js";
import { rpcCall } from "../helpers/rpc.js";

const dirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) await removeDir(d);
});

describe("--http.api (e2e)", () => {
  it("serves the listed namespaces only", async () => {
    const dir = await makeTempDir("basalt-e2e-httpapi-");
    dirs.push(dir);
    const node = await startNode({ datadir: path.join(dir, "data"), args: ["--http.api", "eth,net"] });
    expect((await rpcCall(node.url, "eth_chainId")).result).toBe("0xce619");
    expect((await rpcCall(node.url, "net_version")).result).toBe("845337");
    expect((await rpcCall(node.url, "debug_getRawBlock", ["0x0"])).error?.code).toBe(-32601);
    expect((await rpcCall(node.url, "web3_clientVersion")).error?.code).toBe(-32601);
    await node.stop();
  }, 60_000);

  it("refuses a namespace it does not have", async () => {
    const dir = await makeTempDir("basalt-e2e-httpapi-");
    dirs.push(dir);
    const [http, auth] = await getFreePorts(2);
    const args = ["node", "--datadir", path.join(dir, "data"), "--http.port", String(http), "--authrpc.port", String(auth), "--p2p.disable", "--p2p.el.disable", "--http.api", "eth,debg"];
    const r = await runCli(args, { timeoutMs: 30_000 });
    expect(r.timedOut, describeCliResult(args, r)).toBe(false);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('--http.api: unknown namespace "debg"');
  }, 60_000);
});
