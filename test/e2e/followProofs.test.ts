/**
 * End-to-end: follow mode with historical proofs (`--follow-rpc` with `--historical-proofs`) in
 * real `basalt node` processes. A devnet source seals 40 blocks on demand (`evm_mine`); a fresh
 * follower with `--proofs.max-blocks-ahead 5` follows it. The test polls the follower's
 * `eth_blockNumber` and then its `debug_proofsSyncStatus` back to back until the follower has the
 * source's head: at no observed moment is the head more than 5 blocks above the proofs store's
 * latest block (the head is read first and both only grow, so a passing gate never fails this).
 * The gate is known to have held the follower: at its first round its head is 0, so the store's
 * latest is at most 0 and block 6 must wait, which `basalt_sync_follow_gated_total` counts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { pollUntil } from "../helpers/poll.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { rpcResult } from "../helpers/rpc.js";

const BLOCKS = 40;
const MAX_AHEAD = 5;
/** Pause between two observations: frequent, without keeping a core busy. */
const OBSERVE_EVERY_MS = 2;

const tempDirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of tempDirs) await removeDir(d);
});

async function tempDir(): Promise<string> {
  const d = await makeTempDir("basalt-e2e-follow-proofs-");
  tempDirs.push(d);
  return d;
}

/** Value of an unlabelled sample in the Prometheus exposition text. */
function sample(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  if (m === null) throw new Error(`no sample ${name} in /metrics`);
  return Number(m[1]);
}

describe("follow mode with --historical-proofs (e2e)", () => {
  it("reaches the source's head without ever being more than --proofs.max-blocks-ahead blocks above the proofs store", async () => {
    const source = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--dev.block-time", "0"] });
    for (let i = 0; i < BLOCKS; i++) await rpcResult(source.url, "evm_mine");
    expect(Number(await rpcResult(source.url, "eth_blockNumber"))).toBe(BLOCKS);

    const [metricsPort] = (await getFreePorts(1)) as [number];
    const metricsUrl = `http://${LOCALHOST}:${metricsPort}/metrics`;
    const fol = await startNode({
      datadir: await tempDir(),
      args: [
        "--network", "devnet",
        "--follow-rpc", source.url, "--follow.poll-interval", "100",
        "--historical-proofs", "--proofs.max-blocks-ahead", String(MAX_AHEAD),
        "--metrics", "--metrics.port", String(metricsPort),
      ],
    });
    const violations: string[] = [];
    let observations = 0;
    let closest = -Infinity;
    await pollUntil(`the follower at block ${BLOCKS}`, 45_000, async () => {
      // The head first: the store's latest read after it is at least what it was then.
      const head = Number(await rpcResult(fol.url, "eth_blockNumber"));
      const { latest } = (await rpcResult(fol.url, "debug_proofsSyncStatus")) as { latest: number | null };
      observations++;
      const ahead = head - (latest ?? 0);
      closest = Math.max(closest, ahead);
      if (ahead > MAX_AHEAD) violations.push(`head ${head} with proofs latest ${latest}`);
      return head === BLOCKS ? true : undefined;
    }, { intervalMs: OBSERVE_EVERY_MS, detail: () => fol.outputTail(30) });
    expect(violations).toEqual([]);
    expect(observations).toBeGreaterThan(1);
    expect(closest).toBeLessThanOrEqual(MAX_AHEAD);
    expect(await rpcResult(fol.url, "eth_getBlockByNumber", ["latest", false])).toEqual(await rpcResult(source.url, "eth_getBlockByNumber", ["latest", false]));

    // The gate held the follower at least once, and lets go once it is at the source's head.
    const text = await pollUntil("the held period to end", 15_000, async () => {
      const t = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
      return sample(t, "basalt_sync_follow_gate_held_blocks") === 0 ? t : undefined;
    });
    expect(sample(text, "basalt_sync_follow_gated_total")).toBeGreaterThanOrEqual(1);
    await pollUntil("the proofs store at the head", 15_000, async () =>
      ((await rpcResult(fol.url, "debug_proofsSyncStatus")) as { latest: number | null }).latest === BLOCKS ? true : undefined,
    );
  }, 90_000);
});
