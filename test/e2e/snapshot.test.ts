/**
 * End-to-end: `basalt snapshot export|import`. A devnet node seals blocks with transfers; the
 * snapshot is exported while the node RUNS (LMDB copies one read transaction, so the copy is
 * consistent), imported into a fresh datadir, and a node started on it serves the same head block
 * and balances as the source at that block. A corrupted file (one flipped byte) and a non-empty
 * datadir are refused with clear messages, and --network checks the snapshot's genesis.
 */
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { readSnapshotHeader } from "../../src/storage/snapshot.js";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { waitUntil } from "../helpers/poll.js";
import { rpcResult } from "../helpers/rpc.js";
import { checkHeadState, hexQ, TxLoad, waitForBlockAbove } from "../faults/txLoad.js";

describe("basalt snapshot export/import (e2e)", () => {
  const dirs: string[] = [];
  let source: NodeHandle;
  let load: TxLoad | undefined;
  let work = "";
  let file = "";

  const tempDir = async (prefix: string): Promise<string> => {
    const d = await makeTempDir(prefix);
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    work = await tempDir("basalt-snap-work-");
    file = path.join(work, "devnet.snapshot");
    source = await startNode({ datadir: await tempDir("basalt-snap-src-"), args: ["--dev.block-time", "1", "--log.level", "warn"] });
    load = new TxLoad(source.url, { txPerSecond: 10 });
    load.start();
    // A few blocks with transfers in them.
    await waitForBlockAbove(source.url, 4n, 30_000);
    await waitUntil("ten acknowledged transfers", 10_000, () => load!.acked.size >= 10, 200);
  });

  afterAll(async () => {
    await load?.stop();
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  it("exports a running node, imports into a fresh datadir, and the imported node serves the same head and balances", async () => {
    // Export while the node is sealing blocks and taking transactions.
    const exp = await runCli(["snapshot", "export", "--datadir", source.datadir, file], { timeoutMs: 60_000 });
    expect(exp.code, describeCliResult(["snapshot", "export"], exp)).toBe(0);
    const { header } = readSnapshotHeader(file);
    expect(header.chainId).toBe("845337");
    // No proofs store: the format basalt wrote before proofs were carried, which any basalt reads.
    expect(header.formatVersion).toBe(1);
    expect(header.proofs).toBeUndefined();
    const headNumber = BigInt(header.head.number);
    expect(headNumber).toBeGreaterThanOrEqual(4n);
    // The source still serves that block: the snapshot's head is one of its canonical blocks.
    const srcBlock = (await rpcResult(source.url, "eth_getBlockByNumber", [hexQ(headNumber), false])) as { hash: string; stateRoot: string };
    expect(srcBlock.hash).toBe(header.head.hash);
    expect(srcBlock.stateRoot).toBe(header.head.stateRoot);

    const target = await tempDir("basalt-snap-dst-");
    const dst = path.join(target, "data");
    const imp = await runCli(["snapshot", "import", "--datadir", dst, file], { timeoutMs: 60_000 });
    expect(imp.code, describeCliResult(["snapshot", "import"], imp)).toBe(0);

    const copy = await startNode({ datadir: dst, args: ["--dev.block-time", "0", "--log.level", "warn"] });
    expect(BigInt((await rpcResult(copy.url, "eth_blockNumber")) as string)).toBe(headNumber);
    const head = (await rpcResult(copy.url, "eth_getBlockByNumber", ["latest", false])) as { hash: string };
    expect(head.hash).toBe(header.head.hash);
    for (const a of devAccounts()) {
      const want = await rpcResult(source.url, "eth_getBalance", [a.address, hexQ(headNumber)]);
      expect(await rpcResult(copy.url, "eth_getBalance", [a.address, "latest"])).toBe(want);
    }
    // Receipts acknowledged up to that block are in the copy too.
    for (const [hash, r] of load!.acked) {
      if (r.blockNumber > headNumber) continue;
      const rc = (await rpcResult(copy.url, "eth_getTransactionReceipt", [hash])) as { blockHash: string };
      expect(rc.blockHash).toBe(r.blockHash);
    }
    // The head state is provable from the head's state root and equals the flat state.
    await checkHeadState(copy.url);
    // And the copy keeps producing on top of it.
    await rpcResult(copy.url, "evm_mine", []);
    expect(BigInt((await rpcResult(copy.url, "eth_blockNumber")) as string)).toBe(headNumber + 1n);
    await checkHeadState(copy.url);
    await copy.stop();
  });

  it("refuses a corrupted file with a checksum error and writes nothing", async () => {
    const bad = path.join(work, "corrupt.snapshot");
    await copyFile(file, bad);
    const bytes = await readFile(bad);
    const at = bytes.length - Math.floor((bytes.length - 200) / 2);
    bytes[at] = (bytes[at] as number) ^ 0x01;
    await writeFile(bad, bytes);
    const dst = path.join(await tempDir("basalt-snap-bad-"), "data");
    const r = await runCli(["snapshot", "import", "--datadir", dst, bad], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/checksum mismatch/);
    expect(r.stderr).toMatch(/corrupt/);
    // A flipped header byte is caught by the header checksum.
    const hdr = path.join(work, "corrupt-header.snapshot");
    const b2 = await readFile(file);
    b2[60] = (b2[60] as number) ^ 0x20;
    await writeFile(hdr, b2);
    const r2 = await runCli(["snapshot", "import", "--datadir", dst, hdr], { timeoutMs: 60_000 });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/checksum mismatch|corrupt/);
  });

  it("refuses a non-empty datadir unless --force, and checks the genesis of --network", async () => {
    const r = await runCli(["snapshot", "import", "--datadir", source.datadir, file], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty/);
    expect(r.stderr).toMatch(/--force/);

    const other = await tempDir("basalt-snap-net-");
    const wrong = await runCli(["snapshot", "import", "--network", "base-sepolia", "--datadir", path.join(other, "d"), file], { timeoutMs: 60_000 });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/expected the genesis of base-sepolia/);

    const dst = path.join(other, "forced");
    const first = await runCli(["snapshot", "import", "--network", "devnet", "--datadir", dst, file], { timeoutMs: 60_000 });
    expect(first.code, describeCliResult(["snapshot", "import"], first)).toBe(0);
    const forced = await runCli(["snapshot", "import", "--force", "--datadir", dst, file], { timeoutMs: 60_000 });
    expect(forced.code, describeCliResult(["snapshot", "import", "--force"], forced)).toBe(0);

    const usage = await runCli(["snapshot", "copy", "x"], { timeoutMs: 30_000 });
    expect(usage.code).toBe(1);
    expect(usage.stderr).toMatch(/export\|import/);
  });
});
