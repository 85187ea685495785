/**
 * The sequential latency client (bench/load/sequential.ts): answers on one keep-alive
 * connection, one request at a time, errors for a second request in flight, a server that closes
 * the connection and one that never answers.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SequentialClient } from "../../../bench/load/sequential.js";
import { serveBare, type BareServerHandle } from "../../../bench/scenario/bareServer.js";
import { LOCALHOST } from "../../helpers/ports.js";

const ANSWER = Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x2a"}');

describe("sequential client", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("times each request on one keep-alive connection and returns the body", async () => {
    const bare: BareServerHandle = await serveBare(0, { "/": ANSWER });
    cleanups.push(() => bare.stop());
    const client = new SequentialClient(`${bare.base}/`);
    cleanups.push(() => client.close());
    for (let i = 0; i < 50; i++) {
      const a = await client.request(JSON.stringify({ jsonrpc: "2.0", id: i, method: "eth_chainId", params: [] }));
      expect(a.status).toBe(200);
      expect(a.body.equals(ANSWER)).toBe(true);
      expect(a.ms).toBeGreaterThan(0);
    }
    const second = client.request("{}");
    await expect(client.request("{}")).rejects.toMatchObject({ code: "BENCH_LOAD_REQUEST" });
    await expect(second).resolves.toMatchObject({ status: 200 });
    const elsewhere = new SequentialClient(`${bare.base}/nowhere`);
    cleanups.push(() => elsewhere.close());
    expect((await elsewhere.request("{}")).status).toBe(404);
  });

  it("fails a request whose connection ends or that is never answered, and reconnects after", async () => {
    let mode: "close" | "silent" | "answer" = "close";
    const sockets = new Set<net.Socket>();
    const server = net.createServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("data", () => {
        if (mode === "close") s.destroy();
        else if (mode === "answer") s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${ANSWER.length}\r\n\r\n${ANSWER.toString()}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, LOCALHOST, r));
    cleanups.push(() => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }));
    const url = `http://${LOCALHOST}:${(server.address() as AddressInfo).port}/`;
    const client = new SequentialClient(url, 300);
    cleanups.push(() => client.close());
    await expect(client.request("{}")).rejects.toMatchObject({ code: "BENCH_LOAD_REQUEST", message: expect.stringContaining("connection ended") });
    mode = "silent";
    await expect(client.request("{}")).rejects.toMatchObject({ code: "BENCH_LOAD_REQUEST", message: expect.stringContaining("within 300 ms") });
    mode = "answer";
    await expect(client.request("{}")).resolves.toMatchObject({ status: 200 });
  });
});
