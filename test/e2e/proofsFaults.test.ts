/**
 * Faults of the historical-proofs store in real `basalt` processes:
 *
 * - refused at start: `basalt node --historical-proofs` exits non-zero, naming the reason, on a
 *   proofs store of another chain, one whose window record is garbage, and one missing a column
 *   family;
 * - a full disk: the store on a tiny tmpfs (`--proofs.path`) fills up while a devnet node seals
 *   blocks of mixed traffic. The proofs writer stops with one error line naming the full disk and
 *   the store's path, and `basalt_proofs_writer_stopped_number` turns 1. The node keeps sealing and
 *   serving, and `debug_proofsSyncStatus` keeps answering the last window written whole, whose
 *   proofs still verify. Mounting needs root; without it the test is skipped with the reason.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devnetGenesis } from "../../src/chain/devnet.js";
import { rocksOpen } from "../../src/proofs/rocks.js";
import { PROOFS_COLUMN_FAMILIES } from "../../src/proofs/store.js";
import { keccak256 } from "../../src/util/keccak.js";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type CliResult, type NodeHandle } from "../helpers/basaltProcess.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { pollUntil } from "../helpers/poll.js";
import { ProofsTraffic, rpcTarget, writeProofsMeta } from "../helpers/proofs.js";
import { rpcResult } from "../helpers/rpc.js";

const dirs: string[] = [];
const tempDir = async (prefix: string): Promise<string> => {
  const d = await makeTempDir(prefix);
  dirs.push(d);
  return d;
};

afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) await removeDir(d);
});

type Status = { earliest: number | null; latest: number | null };
const status = async (url: string): Promise<Status> => (await rpcResult(url, "debug_proofsSyncStatus")) as Status;

describe("historical proofs: a bad store refuses the start (e2e)", () => {
  /** A closed devnet proofs store with a window (a node ran with the extension for a few blocks). */
  let devnetProofs = "";

  beforeAll(async () => {
    const datadir = await tempDir("basalt-proofs-refused-");
    const node = await startNode({ datadir, args: ["--dev.block-time", "0", "--historical-proofs", "--log.level", "warn"] });
    for (let i = 0; i < 3; i++) await rpcResult(node.url, "evm_mine");
    await pollUntil("the proofs window to reach block 3", 30_000, async () => ((await status(node.url)).latest === 3 ? true : undefined));
    await node.stop();
    devnetProofs = path.join(datadir, "proofs");
  }, 60_000);

  /** `basalt node --historical-proofs --proofs.path <store> ...args` on a fresh datadir, run to its exit. */
  async function start(store: string, args: string[] = []): Promise<CliResult> {
    const [http, auth, flashblocks, rollup] = await getFreePorts(4);
    const argv = ["node", "--datadir", await tempDir("basalt-proofs-refused-dd-"), "--historical-proofs", "--proofs.path", store, ...args];
    argv.push("--http.port", String(http), "--authrpc.port", String(auth), "--flashblocks.port", String(flashblocks), "--rollup.port", String(rollup), "--log.level", "warn");
    const r = await runCli(argv, { timeoutMs: 60_000 });
    expect(r.timedOut, describeCliResult(argv, r)).toBe(false);
    expect(r.code, describeCliResult(argv, r)).not.toBe(0);
    return r;
  }

  it("refuses a proofs store of another chain, naming both chains", async () => {
    const genesis = devnetGenesis();
    const other = path.join(await tempDir("basalt-proofs-other-"), "genesis.json");
    await writeFile(other, JSON.stringify({ ...genesis, config: { ...genesis.config, chainId: 845338 } }));
    const r = await start(devnetProofs, ["--network", other]);
    expect(r.stderr).toMatch(new RegExp(`proofs store ${devnetProofs} belongs to chain 845337 with genesis 0x[0-9a-f]{64}, expected chain 845338 with genesis 0x[0-9a-f]{64}`));
  });

  it("refuses a proofs store whose window record is garbage, as corrupt", async () => {
    const store = path.join(await tempDir("basalt-proofs-garbage-"), "proofs");
    cpSync(devnetProofs, store, { recursive: true });
    await writeProofsMeta(store, { latest: Buffer.from("garbage") });
    const r = await start(store);
    expect(r.stderr).toMatch(new RegExp(`proofs store ${store} is corrupt: a window record is 7 bytes, expected 40`));
  });

  it("refuses a proofs store missing a column family, as corrupt, naming it", async () => {
    const store = path.join(await tempDir("basalt-proofs-nocf-"), "proofs");
    const db = rocksOpen(store, { columnFamilies: [PROOFS_COLUMN_FAMILIES.account, PROOFS_COLUMN_FAMILIES.storage, PROOFS_COLUMN_FAMILIES.meta] });
    await db.ready();
    await db.close();
    const r = await start(store);
    expect(r.stderr).toMatch(new RegExp(`proofs store ${store} is corrupt: its column family change_index is missing`));
  });
});

/**
 * Size of the tmpfs the full-disk test mounts: a new store takes ~140 KiB (RocksDB's LOG and
 * OPTIONS files), and the write-ahead log grows ~4 KiB per empty devnet block, more with the
 * traffic, so the disk fills after a few dozen blocks.
 */
const TMPFS_SIZE = "512k";
/** Most blocks sealed waiting for the disk to fill (far more than it takes). */
const MAX_BLOCKS = 400;

describe("historical proofs: a full disk (e2e)", () => {
  let mountPoint = "";
  /** Why the tmpfs could not be mounted (the test is skipped then). */
  let mountError: string | undefined;
  let node: NodeHandle | undefined;

  beforeAll(async () => {
    mountPoint = path.join(await tempDir("basalt-proofs-full-"), "mnt");
    mkdirSync(mountPoint);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_SIZE}`, "tmpfs", mountPoint], { stdio: "pipe" });
    } catch (e) {
      mountError = `mount -t tmpfs -o size=${TMPFS_SIZE} failed: ${(e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message}`;
    }
  });

  afterAll(async () => {
    await node?.stop();
    if (mountError === undefined && mountPoint !== "") execFileSync("umount", [mountPoint], { stdio: "pipe" });
  });

  it("stops the proofs writer with one clear error while the node keeps serving", async (ctx) => {
    if (mountError !== undefined) {
      console.warn(`skipped: ${mountError}`);
      ctx.skip(mountError);
    }
    const proofsDir = path.join(mountPoint, "proofs");
    const [metricsPort] = await getFreePorts(1);
    const datadir = await tempDir("basalt-proofs-full-dd-");
    node = await startNode({
      datadir,
      args: ["--dev.block-time", "0", "--historical-proofs", "--proofs.path", proofsDir, "--metrics", "--metrics.port", String(metricsPort), "--log.level", "warn"],
    });
    const url = node.url;
    const metric = async (): Promise<number> => {
      const text = await (await fetch(`http://${LOCALHOST}:${metricsPort}/metrics`)).text();
      return Number(/^basalt_proofs_writer_stopped_number (\S+)$/m.exec(text)?.[1]);
    };
    const stopLines = (): string[] => node!.stdout().split("\n").filter((l) => l.includes("proofs writer stopped"));
    expect(await metric()).toBe(0);

    const traffic = new ProofsTraffic(rpcTarget(() => url));
    let blocks = 0;
    while (stopLines().length === 0 && blocks < MAX_BLOCKS) {
      await traffic.block();
      blocks++;
    }
    expect(stopLines(), `the proofs writer did not stop within ${blocks} blocks on a ${TMPFS_SIZE} tmpfs\n${node.outputTail()}`).toHaveLength(1);
    const line = JSON.parse(stopLines()[0]!) as { level: number; msg: string; path: string; reason: string; earliest: string; latest: string };
    expect(line.level).toBe(50);
    expect(line.msg).toMatch(/^proofs writer stopped: the disk holding the proofs store is full/);
    expect(line.path).toBe(proofsDir);
    expect(line.reason).toMatch(new RegExp(`cannot write the proofs store at ${proofsDir}: the disk holding it is full .*${proofsDir}/\\S+: No space left on device`));
    await pollUntil("the writer-stopped gauge", 10_000, async () => ((await metric()) === 1 ? true : undefined));

    // The last window written whole is still served, and its proofs verify.
    const head = Number(await rpcResult(url, "eth_blockNumber"));
    const window = await status(url);
    expect(window.earliest).toBe(0);
    expect(window.latest).toBe(Number(line.latest));
    expect(window.latest!).toBeLessThan(head);
    for (const n of [0, window.latest!]) await expectProofVerifies(url, traffic.addresses[1]!, n);

    // The node keeps sealing and serving; the window stays, and the error is not repeated.
    for (let i = 0; i < 3; i++) await traffic.block();
    expect(Number(await rpcResult(url, "eth_blockNumber"))).toBe(head + 3);
    const recipient = bytesToHex(traffic.lastRecipient!);
    expect(BigInt((await rpcResult(url, "eth_getBalance", [recipient, "latest"])) as string)).toBeGreaterThan(0n);
    await expectProofVerifies(url, traffic.addresses[1]!, head + 3);
    expect(await status(url)).toEqual(window);
    expect(stopLines()).toHaveLength(1);
    expect(node.exitInfo()).toBeUndefined();
    console.info(`proofs writer stopped after ${blocks} blocks on a ${TMPFS_SIZE} tmpfs; window 0..${window.latest}`);
    expect((await node.stop()).code).toBe(0);
  }, 120_000);
});

/** eth_getProof of `address` at block `n` verifies against that block's state root. */
async function expectProofVerifies(url: string, address: Uint8Array, n: number): Promise<void> {
  const block = (await rpcResult(url, "eth_getBlockByNumber", ["0x" + n.toString(16), false])) as { stateRoot: string };
  const proof = (await rpcResult(url, "eth_getProof", [bytesToHex(address), [], "0x" + n.toString(16)])) as { accountProof: string[] };
  const leaf = await verifyMerkleProof(keccak256(address), proof.accountProof.map((p) => hexToBytes(p as `0x${string}`)), { root: hexToBytes(block.stateRoot as `0x${string}`) });
  expect(leaf, `account ${bytesToHex(address)} at block ${n}`).not.toBeNull();
}
