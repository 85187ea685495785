/**
 * The devnet flashblocks WebSocket server (`FlashblocksPublisher`), with the `ws` client:
 * - subscribers connect at `/` and `/ws`; other paths answer 404, a plain HTTP request 426;
 * - `?format=text` gets text frames, `?format=brotli` binary brotli frames, no query the
 *   server default; every format decodes (`decodeFlashblockFrame`) to the published payload;
 * - a subscriber that stops reading is disconnected (buffer bound / no progress);
 * - `close()` says goodbye with 1001 and frees the port; metrics count frames and bytes.
 */
import { randomBytes } from "node:crypto";
import { register } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { decodeFlashblockFrame, flashblockToJson, type FlashblocksPayloadV1 } from "../../../src/flashblocks/codec.js";
import { FlashblocksPublisher, type FlashblocksPublisherOptions } from "../../../src/flashblocks/publisher.js";
import { LOCALHOST } from "../../helpers/ports.js";
import { waitUntil } from "../../helpers/poll.js";

/** Bound of every wait in this file. */
const WAIT_MS = 5_000;

const publishers: FlashblocksPublisher[] = [];
const clients: WebSocket[] = [];

afterEach(() => {
  for (const c of clients.splice(0)) c.terminate();
  for (const p of publishers.splice(0)) p.close();
});

function payload(index: number, txBytes = 4): FlashblocksPayloadV1 {
  const p: FlashblocksPayloadV1 = {
    payloadId: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]),
    index,
    diff: {
      stateRoot: new Uint8Array(32),
      receiptsRoot: new Uint8Array(32).fill(5),
      logsBloom: new Uint8Array(256),
      gasUsed: 21_000n * BigInt(index + 1),
      blockHash: new Uint8Array(32).fill(6),
      transactions: [Uint8Array.from(randomBytes(txBytes))],
      withdrawals: [],
      withdrawalsRoot: new Uint8Array(32).fill(7),
      blobGasUsed: 0n,
    },
    metadata: { blockNumber: 9n, prevFlashblockId: { block: 9n, index: index - 1 } },
  };
  if (index === 0) {
    p.metadata.prevFlashblockId = { block: 8n, index: 4 };
    p.base = {
      parentBeaconBlockRoot: new Uint8Array(32).fill(1),
      parentHash: new Uint8Array(32).fill(2),
      feeRecipient: new Uint8Array(20).fill(0x42),
      prevRandao: new Uint8Array(32).fill(3),
      blockNumber: 9n,
      gasLimit: 30_000_000n,
      timestamp: 1_700_000_000n,
      extraData: Uint8Array.from([1, 0, 0, 0, 0x32]),
      baseFeePerGas: 1_000_000n,
    };
  }
  return p;
}

async function startPublisher(opts: Partial<FlashblocksPublisherOptions> = {}): Promise<{ pub: FlashblocksPublisher; port: number }> {
  const pub = new FlashblocksPublisher({ host: LOCALHOST, port: 0, format: "brotli", ...opts });
  publishers.push(pub);
  const port = await pub.listen();
  return { pub, port };
}

/** A connected client that records every frame it receives. */
async function subscribe(url: string): Promise<{ ws: WebSocket; frames: { data: Buffer; isBinary: boolean }[] }> {
  const ws = new WebSocket(url);
  clients.push(ws);
  const frames: { data: Buffer; isBinary: boolean }[] = [];
  ws.on("message", (data, isBinary) => frames.push({ data: data as Buffer, isBinary }));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no connection to ${url} within ${WAIT_MS} ms`)), WAIT_MS);
    ws.once("open", () => {
      clearTimeout(t);
      resolve();
    });
    ws.once("error", (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
  return { ws, frames };
}

/** The HTTP status a WebSocket upgrade at `url` is refused with. */
function refusedStatus(url: string): Promise<number> {
  const ws = new WebSocket(url);
  clients.push(ws);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer from ${url} within ${WAIT_MS} ms`)), WAIT_MS);
    ws.once("unexpected-response", (_req, res) => {
      clearTimeout(t);
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("open", () => {
      clearTimeout(t);
      reject(new Error(`${url} accepted the upgrade`));
    });
    ws.once("error", () => undefined);
  });
}

async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = await register.getSingleMetric(name)!.get();
  const v = m.values.find((x) => Object.entries(labels).every(([k, l]) => (x.labels as Record<string, string>)[k] === l));
  return v?.value ?? 0;
}

describe("FlashblocksPublisher", () => {
  it("serves subscribers at / and /ws in their format, every frame decoding to the published payload", async () => {
    const { pub, port } = await startPublisher();
    const base = `ws://${LOCALHOST}:${port}`;
    expect(pub.url).toBe(`${base}/ws`);
    const root = await subscribe(`${base}/`);
    const ws = await subscribe(`${base}/ws`);
    const text = await subscribe(`${base}/ws?format=text`);
    const brotli = await subscribe(`${base}/?format=brotli`);
    await waitUntil("4 subscribers", WAIT_MS, () => pub.subscriberCount === 4);
    const publishedBefore = await metricValue("basalt_flashblocks_published_total");
    const textBytesBefore = await metricValue("basalt_flashblocks_publish_bytes_total", { format: "text" });

    const sent = [payload(0), payload(1), payload(2)];
    for (const p of sent) pub.publish(p);
    const all = [root, ws, text, brotli];
    await waitUntil("3 frames at every subscriber", WAIT_MS, () => all.every((c) => c.frames.length === sent.length));

    const want = sent.map((p) => JSON.stringify(flashblockToJson(p)));
    for (const c of all) expect(c.frames.map((f) => JSON.stringify(flashblockToJson(decodeFlashblockFrame(new Uint8Array(f.data)))))).toEqual(want);
    // The server default (brotli) and ?format=brotli: binary frames, not JSON text.
    for (const c of [root, ws, brotli]) {
      for (const f of c.frames) {
        expect(f.isBinary).toBe(true);
        expect(f.data[0]).not.toBe("{".charCodeAt(0));
      }
    }
    // ?format=text: text frames of the JSON itself.
    for (const [i, f] of text.frames.entries()) {
      expect(f.isBinary).toBe(false);
      expect(f.data.toString("utf8")).toBe(want[i]);
    }
    expect((await metricValue("basalt_flashblocks_published_total")) - publishedBefore).toBe(3);
    const textBytes = text.frames.reduce((n, f) => n + f.data.length, 0);
    expect((await metricValue("basalt_flashblocks_publish_bytes_total", { format: "text" })) - textBytesBefore).toBe(textBytes);
  });

  it("uses the text default when configured so", async () => {
    const { pub, port } = await startPublisher({ format: "text" });
    const c = await subscribe(`ws://${LOCALHOST}:${port}/ws`);
    pub.publish(payload(0));
    await waitUntil("one frame", WAIT_MS, () => c.frames.length === 1);
    expect(c.frames[0]!.isBinary).toBe(false);
    expect(decodeFlashblockFrame(c.frames[0]!.data.toString("utf8")).index).toBe(0);
  });

  it("answers 404 on other paths, 400 on an unknown format and 426 to plain HTTP", async () => {
    const { port } = await startPublisher();
    const base = `ws://${LOCALHOST}:${port}`;
    expect(await refusedStatus(`${base}/other`)).toBe(404);
    expect(await refusedStatus(`${base}/ws/extra`)).toBe(404);
    expect(await refusedStatus(`${base}/ws?format=gzip`)).toBe(400);
    expect((await fetch(`http://${LOCALHOST}:${port}/ws`)).status).toBe(426);
    expect((await fetch(`http://${LOCALHOST}:${port}/nope`)).status).toBe(404);
  });

  it("tracks subscribers and closes them with 1001 on close(), freeing the port", async () => {
    const { pub, port } = await startPublisher();
    const c = await subscribe(`ws://${LOCALHOST}:${port}/ws`);
    await waitUntil("1 subscriber", WAIT_MS, () => pub.subscriberCount === 1);
    const closed = new Promise<number>((resolve) => c.ws.once("close", (code) => resolve(code)));
    pub.close();
    expect(await closed).toBe(1001);
    expect(pub.subscriberCount).toBe(0);
    pub.publish(payload(0)); // a no-op after close
    const again = new FlashblocksPublisher({ host: LOCALHOST, port, format: "text" });
    publishers.push(again);
    expect(await again.listen()).toBe(port);
  });

  it("drops a subscriber when it leaves", async () => {
    const { pub, port } = await startPublisher();
    const c = await subscribe(`ws://${LOCALHOST}:${port}/`);
    await waitUntil("1 subscriber", WAIT_MS, () => pub.subscriberCount === 1);
    c.ws.close();
    await waitUntil("0 subscribers", WAIT_MS, () => pub.subscriberCount === 0);
  });

  it("disconnects a subscriber that stops reading, and keeps serving the others", async () => {
    const { pub, port } = await startPublisher({ format: "text", maxBufferedBytes: 2 * 1024 * 1024, slowSubscriberTimeoutMs: 300 });
    const slow = await subscribe(`ws://${LOCALHOST}:${port}/ws`);
    const fast = await subscribe(`ws://${LOCALHOST}:${port}/ws`);
    await waitUntil("2 subscribers", WAIT_MS, () => pub.subscriberCount === 2);
    const before = await metricValue("basalt_flashblocks_slow_subscriber_disconnects_total");
    // Stop reading: the kernel buffers fill, then the server's send buffer.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    let i = 0;
    await waitUntil("the slow subscriber's disconnection", WAIT_MS, () => {
      if (pub.subscriberCount !== 2) return true;
      pub.publish(payload(1 + (i++ % 14), 64 * 1024)); // ~128 KiB of JSON per frame, well below the bound
      return false;
    }, 5);
    expect(pub.subscriberCount).toBe(1);
    expect((await metricValue("basalt_flashblocks_slow_subscriber_disconnects_total")) - before).toBe(1);
    await waitUntil("every frame at the reading subscriber", WAIT_MS, () => fast.frames.length === i);
  });
});
