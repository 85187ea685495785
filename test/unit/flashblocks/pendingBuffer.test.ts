/**
 * The shared pending-block buffer: one writer, lock-free readers, a generation counter, and
 * readers in another thread seeing every publication without a message.
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { allocatePendingBuffer, PendingBufferReader, PendingBufferWriter, PendingSnapshotTooLargeError } from "../../../src/flashblocks/pendingBuffer.js";
import { PENDING_SNAPSHOT_VERSION, type PendingSnapshot } from "../../../src/flashblocks/pendingSnapshot.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

function snapshot(block: number, index: number, filler = ""): PendingSnapshot {
  return {
    version: PENDING_SNAPSHOT_VERSION,
    anchor: { number: block - 1, hash: "0x" + "11".repeat(32) },
    blocks: [
      {
        number: block,
        hash: "0x" + index.toString(16).padStart(64, "0"),
        parentHash: "0x" + "11".repeat(32),
        timestamp: 1000 + block,
        index,
        payloadId: "0x0102030405060708",
        headerRlp: new Uint8Array([0xc0]),
        blockJson: `{"number":"0x${block.toString(16)}","filler":"${filler}"}`,
        blockJsonFull: "{}",
        receiptsJson: "[]",
        txs: [],
        newTxCount: 0,
      },
    ],
    state: { accounts: [[new Uint8Array(20).fill(1), null]], storage: [], code: [], cleared: [] },
    flashblock: { block, index },
    receivedAt: 1,
    executedAt: 2,
  };
}

describe("pending buffer", () => {
  it("publishes snapshots by generation, decodes each once, and clears", () => {
    const sab = allocatePendingBuffer(64 * 1024);
    const w = new PendingBufferWriter(sab);
    const r = new PendingBufferReader(sab);
    expect(r.read()).toBeUndefined();
    expect(w.publish(snapshot(5, 0))).toBe(1);
    const a = r.read()!;
    expect(a.flashblock).toEqual({ block: 5, index: 0 });
    expect(r.read()).toBe(a); // same generation: the decoded object is reused
    w.publish(snapshot(5, 1));
    w.publish(snapshot(5, 2));
    expect(r.read()!.flashblock.index).toBe(2);
    expect(r.generation()).toBe(3);
    w.clear();
    expect(r.read()).toBeUndefined();
  });

  it("records when each snapshot was published, per slot, for the reader to report", () => {
    const sab = allocatePendingBuffer(64 * 1024);
    const w = new PendingBufferWriter(sab);
    const r = new PendingBufferReader(sab);
    const clock = (): number => performance.timeOrigin + performance.now();
    const before = clock();
    w.publish(snapshot(5, 0));
    const between = clock();
    r.read();
    const first = r.lastPublication!;
    expect(first.publishedAt).toBeGreaterThanOrEqual(before);
    expect(first.publishedAt).toBeLessThanOrEqual(between);
    expect(first.decodeMs).toBeGreaterThanOrEqual(0);
    w.publish(snapshot(5, 1));
    r.read();
    expect(r.lastPublication!.publishedAt).toBeGreaterThanOrEqual(between);
    w.clear();
    r.read();
    expect(r.lastPublication).toBeUndefined();
  });

  it("refuses a snapshot larger than a slot without disturbing the current one", () => {
    const sab = allocatePendingBuffer(1024);
    const w = new PendingBufferWriter(sab);
    const r = new PendingBufferReader(sab);
    w.publish(snapshot(1, 0));
    expect(() => w.publish(snapshot(1, 1, "x".repeat(4096)))).toThrow(PendingSnapshotTooLargeError);
    expect(r.read()!.flashblock.index).toBe(0);
  });

  it("a reader on another thread sees every generation through Atomics.waitAsync and never a torn snapshot", async () => {
    // The writer runs in a worker as in the node, from the compiled module (`npm test` builds first).
    const compiled = path.join(REPO, "dist", "src", "flashblocks", "pendingBuffer.js");
    const sab = allocatePendingBuffer(256 * 1024);
    const r = new PendingBufferReader(sab);
    const waiting = r.waitForChange(0, 10_000);
    const src = `
      const { workerData, parentPort } = require("node:worker_threads");
      import(workerData.module).then(({ PendingBufferWriter }) => {
        const w = new PendingBufferWriter(workerData.sab);
        for (let n = 1; n <= 1500; n++) {
          const filler = String.fromCharCode(97 + (n % 26)).repeat(20000 + (n % 7) * 3000);
          w.publish({ ...workerData.template, flashblock: { block: 9, index: n }, blocks: [{ ...workerData.template.blocks[0], index: n, blockJson: filler }] });
        }
        parentPort.postMessage("done");
      });
    `;
    const worker = new Worker(src, { eval: true, workerData: { sab, module: pathToFileURL(compiled).href, template: snapshot(9, 0) } });
    let finished = false;
    const done = new Promise((res) => worker.once("message", res)).then(() => (finished = true));
    expect(await waiting).toBeGreaterThan(0);
    let seen = 0;
    let last = 0;
    while (!finished || seen === 0) {
      const s = r.read();
      if (s !== undefined && s.flashblock.index !== last) {
        const b = s.blocks[0]!;
        // Consistent: the block's index and its filler come from the same publication.
        expect(b.index).toBe(s.flashblock.index);
        expect(b.blockJson).toBe(String.fromCharCode(97 + (b.index % 26)).repeat(20000 + (b.index % 7) * 3000));
        expect(b.index).toBeGreaterThan(last);
        last = b.index;
        seen++;
      }
      await new Promise((res) => setImmediate(res));
    }
    await done;
    await worker.terminate();
    expect(seen).toBeGreaterThan(1);
    expect(r.read()!.flashblock.index).toBe(1500);
  });
});
