/**
 * Public-endpoint mode, in-process: the token bucket (refill, burst, batch debt, eviction) on an
 * injected clock; RpcHttpServer with a PublicPolicy (429 + Retry-After + JSON body, batch cost,
 * 403 for eth_getBlockReceipts single and in a batch, debug_* and pool dumps -32601 on public and
 * served without the policy, connection cap 503, CORS preflight and headers); RpcWsServer with
 * the same policy (-32005 answers, 1008 close after sustained abuse, upgrade refused at the cap).
 */
import { register } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { clientKey, PublicPolicy, summarizeBody } from "../../src/rpc/publicPolicy.js";
import { WS_RATE_LIMIT_CLOSE_AFTER } from "../../src/rpc/constants.js";
import { RateLimitConfigError, TokenBucketLimiter } from "../../src/rpc/rateLimit.js";
import { RpcHttpServer } from "../../src/rpc/server.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { RpcWsServer } from "../../src/rpc/wsServer.js";
import { waitUntil } from "../helpers/poll.js";

const WAIT_MS = 5000;

/** A clock the tests move by hand (milliseconds). */
class FakeClock {
  t = 1_000_000;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Releases the `hold` method's pending calls. */
let releaseHeld: (() => void)[] = [];

const methods: MethodTable = {
  eth_chainId: () => "0xce619",
  eth_getBlockReceipts: () => [],
  debug_getRawHeader: () => "0xdead",
  testing_buildBlockV1: () => ({ built: true }),
  trace_block: () => [],
  txpool_status: () => ({ pending: "0x0", queued: "0x0" }),
  txpool_content: () => ({ pending: {}, queued: {} }),
  hold: () => new Promise<string>((resolve) => releaseHeld.push(() => resolve("released"))),
};

const servers: { close(): void }[] = [];

async function httpServer(policy: PublicPolicy | undefined, cors?: string[]): Promise<string> {
  const s = new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, transport: "http", public: policy, cors });
  servers.push(s);
  return `http://127.0.0.1:${await s.listen()}/`;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(WAIT_MS),
  });
}

const call = (method: string, id: number = 1): Record<string, unknown> => ({ jsonrpc: "2.0", id, method, params: [] });

async function metricValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = register.getSingleMetric(name);
  if (m === undefined) return 0;
  const values = (await m.get()).values;
  const hit = values.find((v) => Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val));
  return hit?.value ?? 0;
}

afterAll(() => {
  for (const s of servers) s.close();
});

describe("TokenBucketLimiter", () => {
  it("admits a burst, refuses the next request, and refills at the rate", () => {
    const clock = new FakeClock();
    const l = new TokenBucketLimiter({ rate: 2, burst: 4, now: clock.now });
    for (let i = 0; i < 4; i++) expect(l.take("a").allowed).toBe(true);
    const refused = l.take("a");
    expect(refused).toEqual({ allowed: false, retryAfterS: 1 });
    // Another client has its own bucket.
    expect(l.take("b").allowed).toBe(true);
    clock.advance(499);
    expect(l.take("a").allowed).toBe(false);
    clock.advance(1);
    expect(l.take("a").allowed).toBe(true); // 0.5 s × 2/s = 1 token
    expect(l.take("a").allowed).toBe(false);
    clock.advance(60_000);
    expect(l.tokens("a")).toBe(4); // capped at burst
  });

  it("charges a batch per element and lets a batch above the burst run into debt from a full bucket", () => {
    const clock = new FakeClock();
    const l = new TokenBucketLimiter({ rate: 10, burst: 5, now: clock.now });
    expect(l.take("a", 3).allowed).toBe(true);
    expect(l.take("a", 3)).toEqual({ allowed: false, retryAfterS: 1 }); // 2 left, 3 needed
    clock.advance(100);
    expect(l.take("a", 3).allowed).toBe(true); // 3 after refill
    clock.advance(10_000);
    expect(l.take("a", 25).allowed).toBe(true); // full bucket: admitted, 20 in debt
    expect(l.tokens("a")).toBe(-20);
    const refused = l.take("a", 1);
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) expect(refused.retryAfterS).toBe(3); // (1 - -20) / 10 = 2.1 → 3
  });

  it("evicts the least recently seen client beyond the bound, and sweeps refilled buckets", () => {
    const clock = new FakeClock();
    const l = new TokenBucketLimiter({ rate: 1, burst: 2, maxClients: 3, now: clock.now });
    for (const k of ["a", "b", "c"]) l.take(k, 2);
    l.take("a", 0); // touch a: b is now the oldest
    l.take("d");
    expect(l.size).toBe(3);
    expect(l.tokens("b")).toBe(2); // b was evicted: a fresh, full bucket
    expect(l.tokens("a")).toBe(0);
    clock.advance(61_000); // past the sweep interval; everyone refilled
    l.take("e");
    expect(l.size).toBe(1);
  });

  it("refuses a rate ≤ 0 and a burst < 1", () => {
    expect(() => new TokenBucketLimiter({ rate: 0, burst: 1 })).toThrow(RateLimitConfigError);
    expect(() => new TokenBucketLimiter({ rate: 1, burst: 0.5 })).toThrow(/burst must be at least 1/);
  });
});

describe("policy helpers", () => {
  it("counts batch elements and finds eth_getBlockReceipts", () => {
    expect(summarizeBody(JSON.stringify(call("eth_chainId")), true)).toEqual({ cost: 1, forbidden: false });
    expect(summarizeBody(JSON.stringify([call("a"), call("b"), call("c")]), true)).toEqual({ cost: 3, forbidden: false });
    expect(summarizeBody(JSON.stringify([call("a"), call("eth_getBlockReceipts")]), true)).toEqual({ cost: 2, forbidden: true });
    // The name as a parameter is not a call of it.
    const asParam = { jsonrpc: "2.0", id: 1, method: "eth_call", params: ["eth_getBlockReceipts"] };
    expect(summarizeBody(JSON.stringify(asParam), true).forbidden).toBe(false);
    expect(summarizeBody("[not json", true)).toEqual({ cost: 1, forbidden: false });
    expect(summarizeBody(JSON.stringify([call("eth_getBlockReceipts")]), false).forbidden).toBe(false);
  });

  it("keys IPv4 clients by address and IPv6 clients by /64", () => {
    expect(clientKey("127.0.0.1")).toBe("127.0.0.1");
    expect(clientKey("0000:0000:0000:0000:0000:ffff:7f00:0001")).toBe("0000:0000:0000:0000:0000:ffff:7f00:0001");
    expect(clientKey("2001:0db8:0001:0002:0000:0000:0000:0001")).toBe(clientKey("2001:0db8:0001:0002:ffff:0000:0000:0009"));
    expect(clientKey("2001:0db8:0001:0002:0000:0000:0000:0001")).not.toBe(clientKey("2001:0db8:0001:0003:0000:0000:0000:0001"));
  });
});

describe("public HTTP", () => {
  const clock = new FakeClock();
  let policy: PublicPolicy;
  let url = "";
  let plainUrl = "";

  beforeAll(async () => {
    policy = new PublicPolicy({ rate: 2, burst: 3, maxConnections: 100, now: clock.now });
    url = await httpServer(policy);
    plainUrl = await httpServer(undefined);
  });

  it("answers 429 with Retry-After and a JSON-RPC body once the burst is spent, and serves again after refill", async () => {
    clock.advance(60_000);
    const before = await metricValue("basalt_rpc_rate_limited_total", { transport: "http" });
    for (let i = 0; i < 3; i++) expect((await post(url, call("eth_chainId"))).status).toBe(200);
    const res = await post(url, call("eth_chainId", 7));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32005, message: "rate limit exceeded: 2 requests/s per client; retry after 1 s" },
    });
    expect(await metricValue("basalt_rpc_rate_limited_total", { transport: "http" })).toBe(before + 1);
    clock.advance(500); // one token back
    const ok = await post(url, call("eth_chainId", 8));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ jsonrpc: "2.0", id: 8, result: "0xce619" });
  });

  it("charges a batch one token per element", async () => {
    clock.advance(60_000);
    expect((await post(url, [call("eth_chainId", 1), call("eth_chainId", 2)])).status).toBe(200);
    // 1 token left: a 2-element batch is refused, a single call passes.
    const refused = await post(url, [call("eth_chainId", 3), call("eth_chainId", 4)]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await post(url, call("eth_chainId"))).status).toBe(200);
  });

  it("answers 403 for eth_getBlockReceipts, single or anywhere in a batch", async () => {
    clock.advance(60_000);
    const before = await metricValue("basalt_rpc_forbidden_total", { method: "eth_getBlockReceipts" });
    const single = await post(url, { jsonrpc: "2.0", id: 1, method: "eth_getBlockReceipts", params: ["latest"] });
    expect(single.status).toBe(403);
    const body = (await single.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(-32601);
    expect(body.error.message).toMatch(/eth_getBlockReceipts is not available on public endpoints/);
    clock.advance(60_000);
    const batch = await post(url, [call("eth_chainId", 1), { jsonrpc: "2.0", id: 2, method: "eth_getBlockReceipts", params: ["0x0"] }]);
    expect(batch.status).toBe(403);
    expect(await metricValue("basalt_rpc_forbidden_total", { method: "eth_getBlockReceipts" })).toBe(before + 2);
    // Without the policy the method is served.
    const plain = await post(plainUrl, call("eth_getBlockReceipts"));
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual({ jsonrpc: "2.0", id: 1, result: [] });
  });

  it("does not serve debug_* or the txpool dumps on the public port (geth's -32601), but keeps txpool_status", async () => {
    clock.advance(60_000);
    const res = await post(url, [call("debug_getRawHeader", 1), call("txpool_content", 2), call("txpool_status", 3), call("admin_peers", 4)]);
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: number; result?: unknown; error?: { code: number; message: string } }[];
    expect(answers[0]?.error).toEqual({ code: -32601, message: "the method debug_getRawHeader does not exist/is not available" });
    expect(answers[1]?.error).toEqual({ code: -32601, message: "the method txpool_content does not exist/is not available" });
    expect(answers[2]?.result).toEqual({ pending: "0x0", queued: "0x0" });
    expect(answers[3]?.error?.code).toBe(-32601);
    // Block building for tests (testing_*) is not served either.
    clock.advance(60_000);
    const testing = (await (await post(url, call("testing_buildBlockV1", 5))).json()) as { error?: { code: number; message: string } };
    expect(testing.error).toEqual({ code: -32601, message: "the method testing_buildBlockV1 does not exist/is not available" });
    // Parity-style tracing (trace_*) is not served either: each call replays blocks.
    clock.advance(60_000);
    const parity = (await (await post(url, call("trace_block", 6))).json()) as { error?: { code: number; message: string } };
    expect(parity.error).toEqual({ code: -32601, message: "the method trace_block does not exist/is not available" });
    const plainTrace = (await (await post(plainUrl, call("trace_block"))).json()) as { result?: unknown };
    expect(plainTrace.result).toEqual([]);
    // Served without the policy.
    const plain = (await (await post(plainUrl, call("debug_getRawHeader"))).json()) as { result?: unknown };
    expect(plain.result).toBe("0xdead");
  });

  it("refuses requests beyond the connection cap with 503 and closes them", async () => {
    const capped = new PublicPolicy({ rate: 1000, burst: 1000, maxConnections: 1, now: clock.now });
    const cappedUrl = await httpServer(capped);
    releaseHeld = [];
    const rejectedBefore = await metricValue("basalt_rpc_connections_rejected_total");
    const held = post(cappedUrl, call("hold"));
    await waitUntil("the held request at its handler", WAIT_MS, () => releaseHeld.length > 0, 5);
    expect(capped.openConnections).toBe(1);
    const refused = await post(cappedUrl, call("eth_chainId"));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("connection")).toBe("close");
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32005);
    expect(await metricValue("basalt_rpc_connections_rejected_total")).toBe(rejectedBefore + 1);
    for (const r of releaseHeld) r();
    expect((await held).status).toBe(200);
    expect(capped.openConnections).toBe(0);
    expect((await post(cappedUrl, call("eth_chainId"))).status).toBe(200);
  });

  it("answers CORS preflight and sets Access-Control-Allow-Origin (and exposes Retry-After) in public mode", async () => {
    const corsPolicy = new PublicPolicy({ rate: 1, burst: 1, maxConnections: 100, now: clock.now });
    const corsUrl = await httpServer(corsPolicy, ["https://app.example"]);
    const pre = await fetch(corsUrl, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      signal: AbortSignal.timeout(WAIT_MS),
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    // The preflight costs no token.
    const ok = await post(corsUrl, call("eth_chainId"), { origin: "https://app.example" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const limited = await post(corsUrl, call("eth_chainId"), { origin: "https://app.example" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(limited.headers.get("access-control-expose-headers")).toBe("retry-after");
    // Another origin gets no CORS headers.
    clock.advance(60_000);
    const other = await post(corsUrl, call("eth_chainId"), { origin: "https://evil.example" });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("refuses to run the engine transport in public mode", () => {
    const p = new PublicPolicy({ rate: 1, burst: 1, maxConnections: 1 });
    expect(() => new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, transport: "engine", jwtSecret: new Uint8Array(32), public: p })).toThrow(
      /cannot run in public mode/,
    );
  });
});

// ---- WebSocket --------------------------------------------------------------------------

class WsClient {
  readonly messages: Record<string, unknown>[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.messages.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  }
  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const c = new WsClient(ws);
      ws.once("open", () => resolve(c));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }
  async waitMessages(n: number): Promise<void> {
    await waitUntil(`${n} messages`, WAIT_MS, () => this.messages.length >= n, {
      intervalMs: 50,
      wake: (wakeUp) => this.waiters.push(wakeUp),
      detail: () => `have ${this.messages.length}`,
    });
  }
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), WAIT_MS))]);
}

describe("public WebSocket", () => {
  const clock = new FakeClock();
  const clients: WsClient[] = [];
  let policy: PublicPolicy;
  let url = "";

  beforeAll(async () => {
    policy = new PublicPolicy({ rate: 1, burst: 2, maxConnections: 2, now: clock.now });
    const ws = new RpcWsServer({ host: "127.0.0.1", port: 0, methods, public: policy });
    servers.push(ws);
    url = `ws://127.0.0.1:${await ws.listen()}/`;
  });

  afterAll(() => {
    for (const c of clients) c.ws.terminate();
  });

  it("answers -32005 past the limit, keeps serving after refill, and closes a client that ignores it (1008)", async () => {
    const c = await WsClient.open(url);
    clients.push(c);
    const before = await metricValue("basalt_rpc_rate_limited_total", { transport: "ws" });
    c.ws.send(JSON.stringify(call("eth_chainId", 1)));
    c.ws.send(JSON.stringify(call("debug_getRawHeader", 2)));
    c.ws.send(JSON.stringify(call("eth_chainId", 3)));
    await c.waitMessages(3);
    expect(c.messages[0]).toEqual({ jsonrpc: "2.0", id: 1, result: "0xce619" });
    expect(c.messages[1]).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(c.messages[2]).toMatchObject({ id: null, error: { code: -32005 } });
    expect(await metricValue("basalt_rpc_rate_limited_total", { transport: "ws" })).toBe(before + 1);
    clock.advance(1000);
    c.ws.send(JSON.stringify(call("eth_chainId", 4)));
    await c.waitMessages(4);
    expect(c.messages[3]).toEqual({ jsonrpc: "2.0", id: 4, result: "0xce619" });
    // Sustained abuse: the connection is closed with 1008 after WS_RATE_LIMIT_CLOSE_AFTER refusals in a row.
    for (let i = 0; i < WS_RATE_LIMIT_CLOSE_AFTER; i++) c.ws.send(JSON.stringify(call("eth_chainId", 100 + i)));
    const closed = await withTimeout(c.closed, "1008 close");
    expect(closed.code).toBe(1008);
    expect(closed.reason).toBe("rate limit exceeded");
    expect(c.messages.length).toBe(4 + WS_RATE_LIMIT_CLOSE_AFTER - 1);
  });

  it("refuses upgrades beyond the connection cap with 503", async () => {
    await waitUntil("earlier connections closed", WAIT_MS, () => policy.openConnections === 0);
    clock.advance(60_000);
    const a = await WsClient.open(url);
    const b = await WsClient.open(url);
    clients.push(a, b);
    expect(policy.openConnections).toBe(2);
    await expect(WsClient.open(url)).rejects.toThrow(/upgrade refused: 503/);
    a.ws.close();
    await withTimeout(a.closed, "close");
    await waitUntil("the closed connection released", WAIT_MS, () => policy.openConnections <= 1);
    const c = await WsClient.open(url);
    clients.push(c);
    c.ws.send(JSON.stringify(call("eth_chainId", 1)));
    await c.waitMessages(1);
    expect(c.messages[0]).toEqual({ jsonrpc: "2.0", id: 1, result: "0xce619" });
  });
});
