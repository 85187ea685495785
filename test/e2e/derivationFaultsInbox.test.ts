/**
 * L1 derivation under faults, with real processes (anvil L1, a sequencer, a verifier deriving
 * from L1 alone):
 *
 * 3. Garbage in the batch inbox. With the sequencer's batcher off, the batcher key posts data that
 *    is not a batch — bytes of an unknown derivation version, version 0 followed by random bytes,
 *    two truncated frames, a frame whose length field passes `MAX_FRAME_LEN`, frame 5 of a channel
 *    never opened, a brotli bomb and a zlib bomb (channels decompressing past the 100 MB limit) —
 *    and another key posts frames too. Both nodes keep running; each drop is counted
 *    (`batcher_items_dropped_total`, `channels_total`, `unauthorized_transactions_total`) and
 *    logged at warn once per reason, not once per item. Then the batcher runs, with the other key
 *    still posting frames between its transactions: the verifier derives the sequencer's chain.
 * 5. The verifier killed (SIGKILL) while only some frames of a channel are on L1 (anvil's mining
 *    paused after the block holding the first frames of L2 transactions of 130 kB of incompressible
 *    calldata, a channel of several 120 kB frames): restarted, it resumes from its stored safe head
 *    (one `start` reset, not deriving from genesis) and reaches the sequencer's head with the same
 *    block hashes.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { MAX_FRAME_LEN } from "../../src/config/constants.js";
import { BATCHER_MAX_CALLDATA_BYTES } from "../../src/batcher/constants.js";
import { compressChannel } from "../../src/derivation/channelCompression.js";
import { channelToFrames, encodeBatcherData, encodeFrame, parseBatcherData, type Frame } from "../../src/derivation/frame.js";
import { stopAllProcesses } from "../helpers/basaltProcess.js";
import {
  BATCHER_KEY,
  STRANGER_KEY,
  calldataGas,
  expectAgreeUpTo,
  inboxTxs,
  l1Head,
  metric,
  mineL1,
  receipt,
  sendTx,
  setL1Mining,
  startFaultRollup,
  startRollupNode,
  syncStatus,
  until,
  warnLines,
  type FaultRollup,
  type RollupNode,
} from "../helpers/rollupFaults.js";

/** Sequencing window (L1 blocks): long enough for the garbage phase to pass without forcing empty batches. */
const SEQ_WINDOW = 30n;

let r: FaultRollup;
let sequencer: RollupNode;
let verifier: RollupNode;

beforeAll(async () => {
  r = await startFaultRollup({ seqWindowSize: SEQ_WINDOW, prefix: "basalt-derive-inbox-" });
  sequencer = await startRollupNode(r, "sequencer", { sequencer: true });
  verifier = await startRollupNode(r, "verifier");
}, 120_000);

afterAll(async () => {
  await stopAllProcesses();
  await r?.stop();
});

const id = (b: number): Uint8Array => new Uint8Array(16).fill(b);
const frame = (channel: number, frameNumber: number, isLast: boolean, data: Uint8Array = randomBytes(64)): Frame => ({ channelId: id(channel), frameNumber, data, isLast });
/** Version 0 batcher data of raw bytes after the version byte. */
const v0 = (bytes: Uint8Array): Uint8Array => Uint8Array.of(0, ...bytes);

/** A frame whose length field says MAX_FRAME_LEN + 1 (the data that follows is short). */
function oversizeFrame(): Uint8Array {
  const f = encodeFrame(frame(0x33, 0, true, new Uint8Array(100)));
  new DataView(f.buffer, f.byteOffset).setUint32(18, MAX_FRAME_LEN + 1);
  return f;
}

/** A one-frame channel whose data decompresses past the 100 MB channel limit. */
function bomb(channel: number, compression: "brotli" | "zlib", megabytes: number): Uint8Array {
  const data = compressChannel(new Uint8Array(megabytes * 1024 * 1024), { compression, level: compression === "brotli" ? 5 : 9 });
  const frames = channelToFrames(id(channel), data, 119_999);
  expect(frames.length).toBe(1);
  return encodeBatcherData(frames);
}

describe("derivation faults: garbage in the inbox, verifier killed mid-channel", () => {
  it("drops garbage from the batcher and ignores other senders, counting and warning once per reason; both nodes stay up and agree", async () => {
    const truncated = encodeFrame(frame(0x22, 0, true, randomBytes(200)));
    const garbage: { what: string; data: Uint8Array }[] = [
      { what: "unknown version", data: Uint8Array.of(0xa5, ...randomBytes(300)) },
      { what: "version 0 and random bytes", data: v0(randomBytes(300)) },
      { what: "truncated frame", data: v0(truncated.subarray(0, 120)) },
      { what: "truncated frame again", data: v0(truncated.subarray(0, 30)) },
      { what: "frame length over MAX_FRAME_LEN", data: v0(oversizeFrame()) },
      { what: "frame 5 of an unknown channel", data: encodeBatcherData([frame(0x55, 5, false)]) },
      { what: "brotli bomb", data: bomb(0x66, "brotli", 200) },
      { what: "zlib bomb", data: bomb(0x77, "zlib", 101) },
    ];
    expect(parseBatcherData(garbage[5]!.data).status).toBe("frames");
    const inbox = r.cfg.batchInboxAddress;
    const batcher = devAccounts()[9]!.address;
    // The batcher key's garbage, nonces counted here (no batcher runs).
    let nonce = BigInt(await r.l1.call<string>("eth_getTransactionCount", [batcher, "pending"]));
    const sent: string[] = [];
    for (const g of garbage) sent.push(await sendTx(r.anvil.url, BATCHER_KEY, { to: inbox, data: g.data, gasLimit: calldataGas(g.data), nonce: nonce++ }));
    // Another key's frames: a channel's first frame, a truncated frame, random bytes.
    const strangers = [encodeBatcherData([frame(0x88, 0, false)]), v0(truncated.subarray(0, 50)), randomBytes(100)];
    let strangerNonce = BigInt(await r.l1.call<string>("eth_getTransactionCount", [devAccounts()[3]!.address, "pending"]));
    for (const data of strangers) sent.push(await sendTx(r.anvil.url, STRANGER_KEY, { to: inbox, data, gasLimit: calldataGas(data), nonce: strangerNonce++ }));
    const included = await Promise.all(sent.map((h) => receipt(r.anvil.url, h)));
    expect(included.every((x) => x.status === 1)).toBe(true);
    const last = Math.max(...included.map((x) => x.blockNumber));
    // Both nodes read past them.
    for (const n of [verifier, sequencer]) await until("derivation past the garbage", async () => ((await syncStatus(n)).currentL1 > last ? true : undefined));
    for (const n of [verifier, sequencer]) {
      const dropped = (reason: string) => metric(n, "basalt_derivation_batcher_items_dropped_total", `{reason="${reason}"}`);
      await until("the drops counted", async () => ((await metric(n, "basalt_derivation_unauthorized_transactions_total")) >= 3 ? true : undefined), 10_000);
      expect(await dropped("DERIVATION_FRAME_TRUNCATED")).toBeGreaterThanOrEqual(2);
      expect(await dropped("DERIVATION_FRAME_TOO_LARGE")).toBeGreaterThanOrEqual(1);
      expect(await metric(n, "basalt_derivation_channels_total", '{outcome="FRAME_OUT_OF_ORDER"}')).toBeGreaterThanOrEqual(1);
      expect(await metric(n, "basalt_derivation_channels_total", '{outcome="readError"}')).toBeGreaterThanOrEqual(2);
      expect(await metric(n, "basalt_derivation_unauthorized_transactions_total")).toBe(3);
      expect(n.node.exitInfo()).toBeUndefined();
    }
    // One warn line per reason, however many items had it.
    const warns = warnLines(verifier);
    const count = (msg: string, reason?: string) => warns.filter((w) => w.msg === msg && (reason === undefined || w.reason === reason)).length;
    expect(count("batcher data dropped", "DERIVATION_FRAME_TRUNCATED")).toBe(1);
    expect(count("batcher data dropped", "DERIVATION_FRAME_TOO_LARGE")).toBe(1);
    expect(count("channel frames dropped", "FRAME_OUT_OF_ORDER")).toBe(1);
    expect(count("channel read stopped early: keeping the batches before the problem")).toBe(1);
    expect(count("batch inbox transactions from a sender other than the batcher ignored")).toBe(1);

    // The batcher runs now; the other key keeps posting frames between its transactions.
    await sequencer.node.stop();
    sequencer = await startRollupNode(r, "sequencer", { sequencer: true, batcher: "calldata" });
    const strangerLoop = (async () => {
      for (let i = 0; i < 12; i++) {
        const data = encodeBatcherData([frame(0x90 + i, i % 2, i % 3 === 0)]);
        const l1Before = BigInt(await r.l1.call<string>("eth_blockNumber", []));
        await sendTx(r.anvil.url, STRANGER_KEY, { to: inbox, data, gasLimit: calldataGas(data), nonce: strangerNonce++ });
        // One frame per L1 block: the next one goes out once L1 has moved on.
        await until("the next L1 block", async () => (BigInt(await r.l1.call<string>("eth_blockNumber", [])) > l1Before ? true : undefined), 30_000);
      }
    })();
    const target = (await syncStatus(sequencer)).unsafe + 3;
    await until("the sequencer past the target", async () => ((await syncStatus(sequencer)).unsafe >= target ? true : undefined));
    await strangerLoop;
    await expectAgreeUpTo(sequencer, verifier, target);
    await until("every other sender's transaction seen", async () => ((await metric(verifier, "basalt_derivation_unauthorized_transactions_total")) >= 3 + 12 ? true : undefined), 30_000);
    expect(verifier.node.exitInfo()).toBeUndefined();
  }, 150_000);

  it("resumes from its stored safe head after a SIGKILL while a channel is half on L1, and reaches the sequencer's head", async () => {
    await setL1Mining(r, false);
    // L2 transactions of 130 kB of incompressible calldata: a block holding one needs a channel of several 120 kB frames (at most 4 batcher transactions in flight).
    const user = devAccounts()[4]!;
    const sink = "0x00000000000000000000000000000000000bea70";
    const hashes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const data = randomBytes(130_000);
      hashes.push(await sendTx(sequencer.node.url, user.privateKey, { to: sink, data, gasLimit: calldataGas(data), nonce: BigInt(i) }));
    }
    const bigBlocks = (await Promise.all(hashes.map((h) => receipt(sequencer.node.url, h)))).map((x) => x.blockNumber);
    // Mine L1 block by block until one holds frames of a channel whose last frame is not on L1 yet.
    const batcher = devAccounts()[9]!.address.toLowerCase();
    // L1 blocks hold one full-size frame transaction at most, so a channel of several frames always
    // spans blocks; otherwise a batcher that sends all of a channel's frames between two mined blocks
    // (timing on a loaded machine) leaves no block with only some of them.
    const frameTxGas = BigInt(
      await r.l1.call<string>("eth_estimateGas", [{ from: batcher, to: r.cfg.batchInboxAddress, data: "0x" + randomBytes(BATCHER_MAX_CALLDATA_BYTES).toString("hex") }]),
    );
    const l1GasLimit = (await r.l1.call<{ gasLimit: string }>("eth_getBlockByNumber", ["latest", false])).gasLimit;
    await r.l1.call("evm_setBlockGasLimit", ["0x" + ((frameTxGas * 3n) / 2n).toString(16)]);
    const open = new Map<string, number>();
    let midChannel: number | undefined;
    // Bounded by 60 L1 blocks: on a loaded machine the batcher may take a while to post the first frames.
    for (let i = 0; i < 60 && midChannel === undefined; i++) {
      // The batcher has a frame transaction waiting in L1's pool: mine it.
      await until("a batcher transaction in L1's pool", async () => {
        const [pending, latest] = await Promise.all([r.l1.call<string>("eth_getTransactionCount", [batcher, "pending"]), r.l1.call<string>("eth_getTransactionCount", [batcher, "latest"])]);
        return BigInt(pending) > BigInt(latest) ? true : undefined;
      }, 30_000);
      const n = await mineL1(r);
      for (const tx of await inboxTxs(r, n)) {
        if (tx.from !== batcher) continue;
        const parsed = parseBatcherData(tx.input);
        if (parsed.status !== "frames") continue;
        for (const f of parsed.frames) {
          const key = Buffer.from(f.channelId).toString("hex");
          if (f.isLast) open.delete(key);
          else open.set(key, f.frameNumber);
        }
      }
      if (open.size > 0) midChannel = n;
    }
    expect(midChannel, "an L1 block with only some frames of a channel").toBeDefined();
    // The verifier has read that block (it waits for the next one), then it is killed.
    await until("the verifier at the half-posted channel", async () => ((await syncStatus(verifier)).currentL1 >= midChannel! ? true : undefined), 30_000);
    expect(await l1Head(r)).toBe(midChannel);
    const beforeKill = await syncStatus(verifier);
    verifier.node.child.kill("SIGKILL");
    expect((await verifier.node.exited).signal).toBe("SIGKILL");
    await verifier.node.stop();
    await r.l1.call("evm_setBlockGasLimit", [l1GasLimit]);
    await setL1Mining(r, true);
    // Restarted: the stored safe head is its starting point.
    verifier = await startRollupNode(r, "verifier");
    const restarted = await syncStatus(verifier);
    expect(restarted.safe).toBeGreaterThan(0);
    expect(restarted.safe).toBeLessThanOrEqual(beforeKill.safe);
    const target = Math.max(...bigBlocks, (await syncStatus(sequencer)).unsafe);
    await expectAgreeUpTo(sequencer, verifier, target);
    expect(await metric(verifier, "basalt_derivation_resets_total", '{cause="start"}')).toBe(1);
    const derivedNow =
      (await metric(verifier, "basalt_derivation_blocks_total", '{result="replaced"}')) + (await metric(verifier, "basalt_derivation_blocks_total", '{result="consolidated"}'));
    const safeNow = (await syncStatus(verifier)).safe;
    expect(derivedNow).toBeLessThanOrEqual(safeNow - restarted.safe);
    expect(sequencer.node.exitInfo()).toBeUndefined();
  }, 240_000);
});
