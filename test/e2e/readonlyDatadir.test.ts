/**
 * Full disk under a running devnet node. The datadir lives on a small tmpfs mounted for the test;
 * mid-run a filler file takes every free byte, so LMDB cannot grow its data file and block commits
 * fail (ENOSPC). The node must not crash: sealing stops with an error logged, reads (balances,
 * blocks) keep being served, and once the filler is removed the node produces blocks again on an
 * intact chain.
 *
 * Why a full tmpfs and not a read-only datadir: the tests run as root in CI containers, and root
 * ignores file modes (chmod 0444 does not stop its writes); a tmpfs cannot be remounted read-only
 * while LMDB holds its file open for writing, and tmpfs has no immutable attribute (chattr +i).
 * Filling a private tmpfs is what works (it needs root for `mount`; the test is skipped otherwise).
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { rpcResult } from "../helpers/rpc.js";
import { checkChainLinked, checkHeadState, TxLoad, waitForBlockAbove } from "../faults/txLoad.js";
import { waitUntil } from "../helpers/poll.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";

/** Size of the test filesystem: room for the node's LMDB file and some growth, small enough to fill in a moment. */
const TMPFS_SIZE = "96m";
/** Chunk written by the filler until the filesystem is full. */
const FILL_CHUNK_BYTES = 1024 * 1024;

/** Mounts a tmpfs at `dir`; false when this environment cannot (not root, no mount permission). */
function tryMount(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_SIZE}`, "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Writes `file` until the filesystem is full; returns the bytes written. */
function fill(file: string): number {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(FILL_CHUNK_BYTES, 0xab);
  let total = 0;
  try {
    for (;;) {
      try {
        total += writeSync(fd, chunk);
      } catch {
        break;
      }
    }
    // The last partial pages.
    for (let size = 4096; size >= 1; size >>= 1) {
      try {
        for (;;) total += writeSync(fd, chunk.subarray(0, size));
      } catch {
        // next smaller size
      }
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

const base = await makeTempDir("basalt-fulldisk-");
const mnt = path.join(base, "mnt");
mkdirSync(mnt);
const mounted = tryMount(mnt);

describe.skipIf(!mounted)("full disk under a running node (e2e, tmpfs; skipped unless root can mount a tmpfs)", () => {
  let node: NodeHandle;
  let load: TxLoad | undefined;
  const filler = path.join(mnt, "filler");
  let metricsUrl = "";
  /** Failed production and seal attempts so far (basalt_sequencer_production_failures_total). */
  const failures = async (): Promise<number> => {
    const text = await (await fetch(metricsUrl)).text();
    let n = 0;
    for (const m of text.matchAll(/^basalt_sequencer_production_failures_total\{[^}]*\} (\S+)$/gm)) n += Number(m[1]);
    return n;
  };

  beforeAll(async () => {
    const [metricsPort] = (await getFreePorts(1)) as [number];
    metricsUrl = `http://${LOCALHOST}:${metricsPort}/metrics`;
    node = await startNode({ datadir: path.join(mnt, "data"), args: ["--dev.block-time", "1", "--metrics", "--metrics.port", String(metricsPort), "--log.level", "info"] });
    load = new TxLoad(node.url, { txPerSecond: 20 });
    load.start();
    await waitForBlockAbove(node.url, 3n, 30_000);
  });

  afterAll(async () => {
    await load?.stop();
    await stopAllProcesses();
    rmSync(filler, { force: true });
    if (mounted) {
      try {
        execFileSync("umount", [mnt], { stdio: "ignore" });
      } catch {
        execFileSync("umount", ["-l", mnt], { stdio: "ignore" });
      }
    }
    await removeDir(base);
  });

  it("stops sealing with an error logged, keeps serving reads, and resumes once space is freed", async () => {
    const filled = fill(filler);
    expect(filled).toBeGreaterThan(0);
    // Commits fail as soon as LMDB needs a page beyond its file: the error is logged (at error level), the process lives on.
    await waitUntil("a block production error in the log", 60_000, () => /"level":50.*devnet block (seal|production) failed/.test(node.stdout() + node.stderr()), 200);
    expect(node.exitInfo(), node.outputTail()).toBeUndefined();
    console.log((node.stdout() + node.stderr()).split("\n").find((l) => /"level":50/.test(l)));
    const stalled = BigInt((await rpcResult(node.url, "eth_blockNumber")) as string);
    // Three more production attempts fail (counted, not timed), and none of them commits a block.
    const failedBefore = await failures();
    await waitUntil("three more failed production attempts", 60_000, async () => (await failures()) >= failedBefore + 3, 200);
    const still = BigInt((await rpcResult(node.url, "eth_blockNumber")) as string);
    expect(still - stalled, "blocks kept being committed on a full disk").toBeLessThanOrEqual(1n);
    // Reads are served from the store meanwhile.
    const block = (await rpcResult(node.url, "eth_getBlockByNumber", ["latest", false])) as { number: string; hash: string };
    expect(BigInt(block.number)).toBe(still);
    expect(await rpcResult(node.url, "eth_getBalance", ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "latest"])).toMatch(/^0x[0-9a-f]+$/);
    expect(await rpcResult(node.url, "eth_chainId")).toBe("0xce619");

    rmSync(filler);
    await waitForBlockAbove(node.url, still + 2n, 60_000);
    expect(node.stdout() + node.stderr()).toMatch(/devnet block production resumed|sealed/);
    expect(node.exitInfo()).toBeUndefined();
    // The chain written around the failure is intact.
    await checkChainLinked(node.url);
    await checkHeadState(node.url);
  }, 180_000);
});

