/**
 * L1 derivation under faults, with real processes: an anvil L1 (chain 31337, one block a second),
 * a sequencer (`--sequencer --batcher`, batches in calldata) and a verifier deriving from L1 alone.
 *
 * 1. An L1 reorg that removes the batcher transaction the verifier's safe head was derived from:
 *    the verifier's safe head goes back (`resets_total{cause="l1Reorg"}`), the batcher posts the
 *    blocks again, and the verifier derives them again — every block equal to the sequencer's.
 * 2. The batcher stops (the sequencer restarted without `--batcher`) while the sequencer keeps
 *    building blocks with user transactions: the verifier's safe head stays at the last batched
 *    block until the sequencing window of its epoch has passed, then it derives deposit-only blocks
 *    (timestamps one block time apart); the sequencer, deriving too, replaces its own blocks with
 *    them, and both nodes hold the same chain.
 *
 * The sequencer takes L1 origins 6 blocks deep (`--sequencer.l1-confs 6`), so the reorg of (1),
 * shallower than that, removes batches but no L2 block's origin.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { stopAllProcesses } from "../helpers/basaltProcess.js";
import {
  expectAgreeUpTo,
  expectSameBlocks,
  inboxTxs,
  l1Head,
  l2Block,
  metric,
  receipt,
  sendTx,
  setL1Mining,
  startFaultRollup,
  startRollupNode,
  syncStatus,
  until,
  type FaultRollup,
  type RollupNode,
} from "../helpers/rollupFaults.js";
import type { Json } from "../helpers/rpc.js";

/**
 * Sequencing window (L1 blocks): small, so a missing batch turns into empty batches within
 * seconds, yet wider than the ~8 L1 blocks between a block's origin and its batch (the origin
 * 6 deep, then a channel a block) plus the few blocks the batcher takes to post again after (1).
 */
const SEQ_WINDOW = 24n;
const L1_CONFS = 6;

let r: FaultRollup;
let sequencer: RollupNode;
let verifier: RollupNode;

beforeAll(async () => {
  r = await startFaultRollup({ seqWindowSize: SEQ_WINDOW, prefix: "basalt-derive-faults-" });
  sequencer = await startRollupNode(r, "sequencer", { sequencer: true, l1Confs: L1_CONFS, batcher: "calldata" });
  verifier = await startRollupNode(r, "verifier");
}, 120_000);

afterAll(async () => {
  await stopAllProcesses();
  await r?.stop();
});

describe("derivation faults: L1 reorg, batcher stopped", () => {
  it("goes back when an L1 reorg removes the batch its safe head came from, and derives the re-posted batch", async () => {
    // The verifier derives some blocks; the L1 block its safe head came from holds their batch.
    // Past the start (whose first blocks share the anchor as origin, however long the nodes took to start).
    const anchor = Number(r.cfg.genesis.l1.number);
    const before = await until("a verifier safe head past block 6, with an origin past the start", async () => {
      const s = await syncStatus(verifier);
      return s.safe >= 6 && s.safeL1 > 0 && s.safeOrigin >= anchor + 4 ? s : undefined;
    });
    // The newest L1 block at or below it with a batcher transaction: where the safe head's batch is.
    const batcher = devAccounts()[9]!.address.toLowerCase();
    let batchBlock = before.safeL1;
    while (!(await inboxTxs(r, batchBlock)).some((t) => t.from === batcher)) batchBlock--;
    expect(batchBlock).toBeGreaterThan(Number(r.cfg.genesis.l1.number));
    // The sequencer's blocks up to the safe head, as batched.
    const batched: string[] = [];
    for (let n = 1; n <= before.safe; n++) batched.push((await l2Block(sequencer, n))!.hash as string);
    const hashBefore = (await r.l1.call<{ hash: string }>("eth_getBlockByNumber", ["0x" + batchBlock.toString(16), false])).hash;
    // Reorganize L1 from that block on (mining paused so the depth is exact; the new blocks are empty).
    await setL1Mining(r, false);
    const head = await l1Head(r);
    const depth = head - batchBlock + 1;
    expect(depth).toBeLessThan(L1_CONFS);
    await r.l1.call("anvil_reorg", [depth, []]);
    const hashAfter = (await r.l1.call<{ hash: string }>("eth_getBlockByNumber", ["0x" + batchBlock.toString(16), false])).hash;
    expect(hashAfter).not.toBe(hashBefore);
    expect((await inboxTxs(r, batchBlock)).length).toBe(0);
    await setL1Mining(r, true);
    // The verifier's safe head goes back below the blocks whose batch is gone.
    let lowest = before.safe;
    await until("the verifier's safe head to go back", async () => {
      const s = await syncStatus(verifier);
      lowest = Math.min(lowest, s.safe);
      return s.safe < before.safe ? true : undefined;
    }, 60_000);
    expect(lowest).toBeLessThan(before.safe);
    // The worker's counters reach the metrics within a status interval.
    await until("the l1Reorg reset counted", async () => ((await metric(verifier, "basalt_derivation_resets_total", '{cause="l1Reorg"}')) >= 1 ? true : undefined), 10_000);
    // The batcher posts them again; the verifier derives them again, and more, equal to the sequencer's.
    const target = (await syncStatus(sequencer)).unsafe;
    expect(target).toBeGreaterThan(before.safe);
    await expectAgreeUpTo(sequencer, verifier, target);
    // Those are the blocks derived again, from their batches posted again (no sequencing window ran out meanwhile).
    for (let n = 1; n <= before.safe; n++) expect((await l2Block(verifier, n))!.hash, `block ${n}`).toBe(batched[n - 1]);
    expect(await metric(verifier, "basalt_derivation_blocks_total", '{result="emptyBatch"}')).toBe(0);
    // The batcher started over when the sequencer's own safe head went back.
    expect(await metric(sequencer, "basalt_batcher_resets_total", '{reason="safe_head_reorg"}')).toBeGreaterThanOrEqual(1);
    expect(sequencer.node.exitInfo()).toBeUndefined();
    expect(verifier.node.exitInfo()).toBeUndefined();
  }, 150_000);

  it("derives deposit-only blocks once the sequencing window passes without batches, and the sequencer reorgs to them", async () => {
    // Stop the batcher: the sequencer posts its open channel on shutdown and comes back without --batcher.
    await sequencer.node.stop();
    sequencer = await startRollupNode(r, "sequencer", { sequencer: true, l1Confs: L1_CONFS });
    const restartedAt = await l1Head(r);
    // User transactions on the sequencer: its blocks now carry more than deposits.
    const user = devAccounts()[2]!;
    const recipient = "0x00000000000000000000000000000000000b0b01";
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++) hashes.push(await sendTx(sequencer.node.url, user.privateKey, { to: recipient, value: 1000n + BigInt(i), gasLimit: 21_000n, nonce: BigInt(i) }));
    const included = await Promise.all(hashes.map((h) => receipt(sequencer.node.url, h)));
    const userBlocks = [...new Set(included.map((x) => x.blockNumber))];
    const sequencedHash = new Map<number, string>();
    for (const n of userBlocks) sequencedHash.set(n, (await l2Block(sequencer, n))!.hash as string);
    // The last batch lands (the shutdown's); then the verifier's safe head settles on the last batched block.
    await until("L1 past the batcher's last transaction", async () => ((await l1Head(r)) > restartedAt + 2 ? true : undefined));
    const settled = await until("the verifier's current L1 past the last batch", async () => {
      const s = await syncStatus(verifier);
      return s.currentL1 > restartedAt + 2 ? s : undefined;
    });
    const lastBatched = settled.safe;
    const epoch = settled.safeOrigin;
    expect(userBlocks.every((n) => n > lastBatched)).toBe(true);
    // Until derivation has read L1 block epoch + window, nothing new is safe.
    const expiry = epoch + Number(SEQ_WINDOW);
    await until(`the verifier's current L1 at the window's end (${expiry})`, async () => {
      const s = await syncStatus(verifier);
      if (s.currentL1 < expiry) {
        expect(s.safe).toBe(lastBatched);
        return undefined;
      }
      return true;
    }, 90_000);
    // Then the deposit-only blocks: past the user transactions' blocks.
    const target = Math.max(...userBlocks) + 1;
    await expectAgreeUpTo(sequencer, verifier, target);
    const l2Time = Number(r.cfg.genesis.l2Time);
    for (let n = lastBatched + 1; n <= target; n++) {
      const b = (await l2Block(verifier, n, true))!;
      expect(Number(b.timestamp), `block ${n} timestamp`).toBe(l2Time + n);
      const txs = b.transactions as Record<string, Json>[];
      expect(txs.length).toBeGreaterThanOrEqual(1);
      expect(txs.every((t) => t.type === "0x7e"), `block ${n} has only deposits`).toBe(true);
    }
    // The sequencer's blocks with the user transactions were replaced.
    for (const n of userBlocks) expect((await l2Block(sequencer, n))!.hash).not.toBe(sequencedHash.get(n));
    await expectSameBlocks(sequencer, verifier, target);
    expect(await metric(sequencer, "basalt_derivation_blocks_total", '{result="replaced"}')).toBeGreaterThan(0);
    expect(await metric(verifier, "basalt_derivation_blocks_total", '{result="emptyBatch"}')).toBeGreaterThan(0);
    expect(sequencer.node.exitInfo()).toBeUndefined();
    expect(verifier.node.exitInfo()).toBeUndefined();
  }, 150_000);
});
