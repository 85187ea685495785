/**
 * The flashblocks stream connection: frames in both framings, half-open detection by
 * unanswered pings, reconnect after a close, and backoff doubling while the server is down.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import type { AddressInfo } from "node:net";
import { FlashblocksStreamClient, type DisconnectReason } from "../../../src/flashblocks/streamClient.js";
import { waitUntil } from "../../helpers/poll.js";

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function server(opts: { autoPong?: boolean; port?: number } = {}): Promise<{ wss: WebSocketServer; url: string; sockets: WebSocket[] }> {
  return new Promise((resolve) => {
    const sockets: WebSocket[] = [];
    const wss = new WebSocketServer({ host: "127.0.0.1", port: opts.port ?? 0, autoPong: opts.autoPong ?? true }, () => {
      resolve({ wss, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`, sockets });
    });
    wss.on("connection", (s) => sockets.push(s));
    cleanup.push(() => wss.close());
  });
}

describe("flashblocks stream client", () => {
  it("delivers text and binary frames with their arrival time", async () => {
    const { url, sockets } = await server();
    const frames: (string | Uint8Array)[] = [];
    const c = new FlashblocksStreamClient(url, { frame: (d) => frames.push(d), connected: () => undefined, disconnected: () => undefined });
    cleanup.push(() => c.stop());
    c.start();
    await waitUntil("the condition", 5_000, () => sockets.length === 1);
    sockets[0]!.send("{\"a\":1}");
    sockets[0]!.send(Buffer.from([1, 2, 3]), { binary: true });
    await waitUntil("the condition", 5_000, () => frames.length === 2);
    expect(frames[0]).toBe("{\"a\":1}");
    expect([...(frames[1] as Uint8Array)]).toEqual([1, 2, 3]);
  });

  it("drops a half-open connection (no pong by the next ping) and reconnects", async () => {
    const { url, sockets } = await server({ autoPong: false });
    const downs: DisconnectReason[] = [];
    const c = new FlashblocksStreamClient(
      url,
      { frame: () => undefined, connected: () => undefined, disconnected: (r) => downs.push(r) },
      { pingIntervalMs: 50, backoffInitialMs: 20, backoffMaxMs: 100 },
    );
    cleanup.push(() => c.stop());
    c.start();
    await waitUntil("the condition", 5_000, () => downs.includes("ping-timeout") && sockets.length >= 2);
    expect(downs[0]).toBe("ping-timeout");
  });

  it("keeps a connection whose pongs arrive", async () => {
    const { url, sockets } = await server();
    const downs: DisconnectReason[] = [];
    const c = new FlashblocksStreamClient(url, { frame: () => undefined, connected: () => undefined, disconnected: (r) => downs.push(r) }, { pingIntervalMs: 30 });
    cleanup.push(() => c.stop());
    c.start();
    await waitUntil("the condition", 5_000, () => sockets.length === 1);
    // Each ping after the first is sent only if the previous one's pong arrived; count them at the server.
    let pings = 0;
    sockets[0]!.on("ping", () => pings++);
    await waitUntil("the condition", 5_000, () => pings >= 6);
    expect(c.isConnected).toBe(true);
    expect(sockets.length).toBe(1);
    expect(downs).toEqual([]);
  });

  it("reconnects at once after a close, and backs off doubling while the server is gone", async () => {
    const first = await server();
    const port = Number(new URL(first.url).port);
    const events: { reason: DisconnectReason; retry: number }[] = [];
    let connects = 0;
    const c = new FlashblocksStreamClient(
      first.url,
      { frame: () => undefined, connected: () => connects++, disconnected: (reason, _d, retry) => events.push({ reason, retry }) },
      { pingIntervalMs: 1_000, backoffInitialMs: 40, backoffMaxMs: 100 },
    );
    cleanup.push(() => c.stop());
    c.start();
    await waitUntil("the condition", 5_000, () => first.sockets.length === 1);
    first.sockets[0]!.close(1001, "going away");
    await waitUntil("the condition", 5_000, () => first.sockets.length === 2);
    expect(events[0]).toEqual({ reason: "closed", retry: 0 });
    // Server gone: connect failures back off 40, 80, 100, 100 ms.
    for (const s of first.sockets) s.terminate();
    first.wss.close();
    await waitUntil("the condition", 5_000, () => events.filter((e) => e.reason === "connect-failed").length >= 4);
    const retries = events.filter((e) => e.reason === "connect-failed").map((e) => e.retry);
    expect(retries.slice(0, 4)).toEqual([40, 80, 100, 100]);
    // Server back on the same port: connected, backoff reset.
    const again = await server({ port });
    await waitUntil("the condition", 5_000, () => again.sockets.length === 1);
    // The server may see the socket before the client's open event fires.
    await waitUntil("the condition", 5_000, () => connects >= 3);
    expect(connects).toBeGreaterThanOrEqual(3);
  });
});
