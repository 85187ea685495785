/**
 * `startNode` as a list of services (cli/commands/node.ts on util/serviceStack.ts): a step that
 * fails (here the WebSocket port held by another listener) surfaces its own error and stops what
 * had started (the HTTP and Engine API ports are free again, the datadir opens again); a node
 * that started stops every service, its ports freed, and stop() can be called twice.
 */
import net from "node:net";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { startNode } from "../../src/cli/commands/node.js";
import { tableDefaults, type BasaltOptions } from "../../src/config/options.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { tempDirs } from "../helpers/tempDirs.js";

const silent = pino({ level: process.env.T_LOG ?? "silent" });
const tmp = tempDirs("basalt-node-services-");
const held: net.Server[] = [];
afterAll(async () => {
  await Promise.all(held.map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** Binds `port` on 127.0.0.1 exclusively (rejects with the bind error, e.g. EADDRINUSE). */
function bind(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen({ port, host: LOCALHOST, exclusive: true }, () => resolve(s));
  });
}

/** Whether `port` can be bound now (the listener is closed at once). */
async function isFree(port: number): Promise<boolean> {
  try {
    const s = await bind(port);
    await new Promise<void>((r) => s.close(() => r()));
    return true;
  } catch {
    return false;
  }
}

function options(datadir: string, ports: { http: number; auth: number; ws: number }): BasaltOptions {
  return {
    ...tableDefaults(),
    datadir,
    network: "devnet",
    "http.addr": LOCALHOST,
    "http.port": ports.http,
    "authrpc.addr": LOCALHOST,
    "authrpc.port": ports.auth,
    ws: true,
    "ws.addr": LOCALHOST,
    "ws.port": ports.ws,
    "dev.block-time": 0,
    "flashblocks.interval": 0,
    rollup: false,
    "p2p.disable": true,
    "p2p.el.disable": true,
    "rpc.threads": 1,
  } as BasaltOptions;
}

describe("startNode: the node as an ordered list of services", () => {
  it("a port in use refuses the start with its error and stops what started; the datadir then starts and stops cleanly", async () => {
    const datadir = tmp();
    const [http, auth, ws] = await getFreePorts(3);
    const ports = { http: http!, auth: auth!, ws: ws! };
    const blocker = await bind(ports.ws);
    held.push(blocker);
    // The WebSocket server starts after the HTTP and Engine API servers listen.
    const err = await startNode(options(datadir, ports), silent, false).then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: "RPC_LISTEN_FAILED" });
    expect(await isFree(ports.http)).toBe(true);
    expect(await isFree(ports.auth)).toBe(true);
    await new Promise<void>((r) => blocker.close(() => r()));

    // Everything was released: the same datadir and ports start a node.
    const node = await startNode(options(datadir, ports), silent, false);
    expect([node.httpPort, node.authPort, node.wsPort]).toEqual([ports.http, ports.auth, ports.ws]);
    expect(await isFree(ports.http)).toBe(false);
    const res = await fetch(`http://${LOCALHOST}:${ports.http}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) });
    expect(((await res.json()) as { result: string }).result).toBe("0xce619");
    await node.stop();
    await node.stop();
    expect(await isFree(ports.http)).toBe(true);
    expect(await isFree(ports.auth)).toBe(true);
    expect(await isFree(ports.ws)).toBe(true);
  });
});
