/**
 * A beacon-API proxy in front of anvil for the derivation fault tests: anvil serves the blobs of
 * an L1 block at `/eth/v1/beacon/blobs/{block number}` but has no slot clock, so the proxy makes
 * one — `genesis_time` is anvil block 0's timestamp and `SECONDS_PER_SLOT` is 1 (anvil mining one
 * block a second, `--block-time 1`) — and maps a slot to the L1 block of timestamp
 * `genesis_time + slot` (404 "Block not found" when there is none, a missed slot).
 *
 * Its {@link BeaconProxy.mode} is the fault: `honest` forwards; `down` answers 503 on every
 * route; `corrupt` flips one bit of every blob it serves (the blob stays a valid field-element
 * encoding, so it has a commitment — just not the one L1 names). Listens on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpRpcClient } from "../../src/util/rpcClient.js";

/** What the proxy does with requests. */
export type BeaconProxyMode = "honest" | "down" | "corrupt";

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Flips the lowest bit of byte 1 of a 0x-hex blob (field element 0's first data byte). */
function corruptBlob(hex: string): string {
  const at = 2 + 2;
  const byte = parseInt(hex.slice(at, at + 2), 16) ^ 0x01;
  return hex.slice(0, at) + byte.toString(16).padStart(2, "0") + hex.slice(at + 2);
}

/** See the module comment. */
export class BeaconProxy {
  mode: BeaconProxyMode = "honest";
  /** Requests per outcome: blobs forwarded, blobs corrupted, requests refused (503). */
  readonly counts = { forwarded: 0, corrupted: 0, refused: 0 };
  readonly url: string;
  private readonly l1: HttpRpcClient;
  /** Block numbers by timestamp, as found. */
  private readonly byTime = new Map<number, number>();

  private constructor(
    private readonly server: Server,
    private readonly anvilUrl: string,
    readonly genesisTime: number,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.l1 = new HttpRpcClient(anvilUrl);
  }

  /** Starts a proxy in front of the anvil at `anvilUrl`. */
  static async start(anvilUrl: string): Promise<BeaconProxy> {
    const l1 = new HttpRpcClient(anvilUrl);
    const genesis = await l1.call<{ timestamp: string }>("eth_getBlockByNumber", ["0x0", false]);
    l1.close();
    let proxy: BeaconProxy | undefined;
    const server = createServer((req, res) => {
      proxy!.handle(req, res).catch((e: unknown) => send(res, 500, { code: 500, message: String(e) }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    proxy = new BeaconProxy(server, anvilUrl, Number(genesis.timestamp));
    return proxy;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    this.l1.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The L1 block whose timestamp is `time`, if any (anvil's timestamps rise by about a second a block). */
  private async blockAt(time: number): Promise<number | undefined> {
    const known = this.byTime.get(time);
    if (known !== undefined) return known;
    const visited = new Set<number>();
    let n = Math.max(0, time - this.genesisTime);
    while (!visited.has(n) && n >= 0) {
      visited.add(n);
      const b = await this.l1.call<{ timestamp: string } | null>("eth_getBlockByNumber", ["0x" + n.toString(16), false]);
      if (b === null) {
        n--;
        continue;
      }
      const t = Number(b.timestamp);
      this.byTime.set(t, n);
      if (t === time) return n;
      // Step by the difference; a step back onto a block already seen means no block has that timestamp.
      n += Math.sign(time - t) * Math.max(1, Math.min(Math.abs(time - t), 64));
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (this.mode === "down") {
      this.counts.refused++;
      return send(res, 503, { code: 503, message: "beacon node is syncing" });
    }
    if (url.pathname === "/eth/v1/beacon/genesis") {
      return send(res, 200, { data: { genesis_time: String(this.genesisTime), genesis_validators_root: "0x" + "00".repeat(32), genesis_fork_version: "0x00000000" } });
    }
    if (url.pathname === "/eth/v1/config/spec") return send(res, 200, { data: { SECONDS_PER_SLOT: "1" } });
    if (url.pathname === "/eth/v1/node/version") return send(res, 200, { data: { version: "basalt-test/beacon-proxy" } });
    const m = /^\/eth\/v1\/beacon\/blobs\/(\d+)$/.exec(url.pathname);
    if (m === null) return send(res, 404, { code: 404, message: `Route GET:${url.pathname} not found` });
    const block = await this.blockAt(this.genesisTime + Number(m[1]));
    if (block === undefined) return send(res, 404, { code: 404, message: "Block not found" });
    const upstream = await fetch(`${this.anvilUrl}/eth/v1/beacon/blobs/${block}${url.search}`);
    const text = await upstream.text();
    if (upstream.status !== 200 || this.mode === "honest") {
      this.counts.forwarded++;
      return send(res, upstream.status, text);
    }
    const body = JSON.parse(text) as { data: string[] };
    body.data = body.data.map(corruptBlob);
    this.counts.corrupted++;
    return send(res, 200, body);
  }
}
