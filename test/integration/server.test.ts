import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcHttpServer, RpcServerError } from "../../src/rpc/server.js";
import { makeJwt } from "../../src/rpc/jwt.js";
import { ServerError } from "../../src/rpc/errors.js";
import { RawJson } from "../../src/rpc/types.js";
import type { MethodTable, RpcContext } from "../../src/rpc/types.js";
import { settle, waitUntil } from "../helpers/poll.js";

const seen: RpcContext[] = [];
const methods: MethodTable = {
  echo: (params, ctx) => {
    // The context as seen during the call (the HTTP server reads the remote address on demand).
    seen.push({ transport: ctx.transport, remoteAddress: ctx.remoteAddress });
    return params[0] ?? null;
  },
  add: (params) => (params[0] as number) + (params[1] as number),
  fail: () => {
    throw new ServerError("nonce too low");
  },
  slow: async (params) => {
    await settle(10, "a handler that takes time");
    return params[0];
  },
  raw: () => new RawJson('{"cached":true}'),
  sleep: async (params) => {
    await settle(params[0] as number, "the `sleep` method takes as long as its caller asks");
    sleepsDone++;
    return "done";
  },
};
let sleepsDone = 0;

const secret = new Uint8Array(32).fill(0x42);
const servers: RpcHttpServer[] = [];
let url = "";
let engineUrl = "";
let smallUrl = "";
let corsUrl = "";

async function start(opts: Omit<ConstructorParameters<typeof RpcHttpServer>[0], "host" | "port" | "methods">): Promise<string> {
  const server = new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, ...opts });
  servers.push(server);
  const port = await server.listen();
  expect(port).toBeGreaterThan(0);
  return `http://127.0.0.1:${port}/`;
}

beforeAll(async () => {
  url = await start({ transport: "http" });
  engineUrl = await start({ transport: "engine", jwtSecret: secret });
  smallUrl = await start({ transport: "http", maxBodyBytes: 1024 });
  corsUrl = await start({ transport: "http", cors: ["https://app.example"] });
});

afterAll(() => {
  for (const s of servers) s.close();
});

async function post(body: string, target = url, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(target, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

async function rpc(body: string, target = url): Promise<{ status: number; text: string }> {
  const res = await post(body, target);
  return { status: res.status, text: await res.text() };
}

/** The server still answers a normal call after whatever the test did. */
async function stillServing(target = url): Promise<void> {
  const r = await rpc('{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}', target);
  expect(r).toEqual({ status: 200, text: '{"jsonrpc":"2.0","id":1,"result":3}' });
}

describe("RpcHttpServer (http transport)", () => {
  it("answers a single call with JSON", async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"echo","params":["hi"]}');
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"hi"}');
    expect(seen.at(-1)?.transport).toBe("http");
    expect(seen.at(-1)?.remoteAddress).toContain("127.0.0.1");
  });

  it("accepts a charset suffix and any path", async () => {
    const res = await fetch(`${url}some/path`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: '{"jsonrpc":"2.0","id":2,"method":"slow","params":[5]}',
    });
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":2,"result":5}');
  });

  it("answers a batch in order", async () => {
    const r = await rpc(
      '[{"jsonrpc":"2.0","id":1,"method":"slow","params":["a"]},{"jsonrpc":"2.0","id":"b","method":"raw"},{"jsonrpc":"2.0","id":3,"method":"fail"}]',
    );
    expect(r.status).toBe(200);
    expect(r.text).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":"b","result":{"cached":true}},{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"nonce too low"}}]',
    );
  });

  it("answers notifications with 200 and an empty body", async () => {
    expect(await rpc('{"jsonrpc":"2.0","method":"echo","params":[1]}')).toEqual({ status: 200, text: "" });
    expect(await rpc('[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"add","params":[1,1]}]')).toEqual({
      status: 200,
      text: "",
    });
    await stillServing();
  });

  it("echoes number, string and null ids", async () => {
    for (const id of ["12345678901234567890", "1.50", '"abc"', "null"]) {
      const r = await rpc(`{"jsonrpc":"2.0","id":${id},"method":"echo","params":[true]}`);
      expect(r.text).toBe(`{"jsonrpc":"2.0","id":${id},"result":true}`);
    }
  });

  it("answers broken JSON with -32700 and keeps serving", async () => {
    expect(await rpc('{"jsonrpc":"2.0",')).toEqual({
      status: 200,
      text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    });
    await stillServing();
  });

  it("answers wrong types with -32600 / -32602 and missing params as []", async () => {
    expect(JSON.parse((await rpc('{"jsonrpc":"2.0","id":1,"method":7}')).text).error.code).toBe(-32600);
    expect(JSON.parse((await rpc('{"jsonrpc":2,"id":1,"method":"echo"}')).text).error.code).toBe(-32600);
    expect(JSON.parse((await rpc('{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}')).text).error.code).toBe(-32602);
    expect((await rpc('{"jsonrpc":"2.0","id":1,"method":"echo"}')).text).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
    expect(JSON.parse((await rpc('{"jsonrpc":"2.0","id":1,"method":"nope"}')).text).error.code).toBe(-32601);
    await stillServing();
  });

  it("answers a call with a 1 MB hex string parameter", async () => {
    const hex = `0x${"ab".repeat(512 * 1024)}`;
    const r = await rpc(`{"jsonrpc":"2.0","id":9,"method":"echo","params":["${hex}"]}`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).result).toBe(hex);
    await stillServing();
  });

  it("rejects 100k nested brackets with -32600 and keeps serving", async () => {
    const r = await rpc("[".repeat(100_000));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ id: null, error: { code: -32600 } });
    await stillServing();
  });

  it("answers an empty batch and a batch over the limit", async () => {
    expect((await rpc("[]")).text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
    const batch = `[${Array.from({ length: 1001 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"add","params":[${i},1]}`).join(",")}]`;
    expect((await rpc(batch)).text).toBe('[{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"batch too large"}}]');
    await stillServing();
  });

  it("answers 413 for a body over the limit (declared length) and keeps serving", async () => {
    const res = await post(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["${"a".repeat(2048)}"]}`, smallUrl);
    expect(res.status).toBe(413);
    await res.text();
    await stillServing(smallUrl);
  });

  it("answers 413 for a chunked body that grows over the limit", async () => {
    const payload = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["${"a".repeat(4096)}"]}`);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < payload.length; i += 512) controller.enqueue(payload.slice(i, i + 512));
        controller.close();
      },
    });
    const res = await fetch(smallUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    await res.text();
    await stillServing(smallUrl);
  });

  it("answers 413 for a 6 MB body on the default limit", async () => {
    const res = await post(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["${"a".repeat(6 * 1024 * 1024)}"]}`);
    expect(res.status).toBe(413);
    await res.text();
    await stillServing();
  });

  it("answers 405 for GET and other methods, 415 for other content types", async () => {
    const get = await fetch(url);
    expect(get.status).toBe(405);
    await get.text();
    const put = await fetch(url, { method: "PUT", headers: { "content-type": "application/json" }, body: "{}" });
    expect(put.status).toBe(405);
    await put.text();
    const options = await fetch(url, { method: "OPTIONS" });
    expect(options.status).toBe(405);
    await options.text();
    const text = await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(text.status).toBe(415);
    await text.text();
    await stillServing();
  });

  it("answers CORS preflights and tags responses for allowed origins", async () => {
    const pre = await fetch(corsUrl, { method: "OPTIONS", headers: { origin: "https://app.example" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const res = await fetch(corsUrl, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://app.example" },
      body: '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}',
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":1,"result":3}');
    const other = await fetch(corsUrl, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
    expect(other.status).toBe(204);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("survives a client that disconnects while its call is running", async () => {
    const ac = new AbortController();
    const before = sleepsDone;
    const p = fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"sleep","params":[150]}',
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toThrow();
    // the handler finishes after the client left; the server must not write to the dead response
    await waitUntil("the abandoned call to finish", 5_000, () => sleepsDone === before + 1);
    expect(sleepsDone).toBe(before + 1);
    await stillServing();
  });

  it("fails to listen on a port that is taken", async () => {
    const port = Number(new URL(url).port);
    const clash = new RpcHttpServer({ host: "127.0.0.1", port, methods, transport: "http" });
    await expect(clash.listen()).rejects.toBeInstanceOf(RpcServerError);
    clash.close();
  });
});

describe("RpcHttpServer (engine transport)", () => {
  const body = '{"jsonrpc":"2.0","id":1,"method":"echo","params":["engine"]}';

  it("rejects a missing token with 401", async () => {
    const res = await post(body, engineUrl);
    expect(res.status).toBe(401);
    expect(JSON.parse(await res.text())).toMatchObject({ id: null, error: { code: -32000, message: "missing token" } });
  });

  it("rejects an invalid token with 401", async () => {
    const wrong = makeJwt(new Uint8Array(32).fill(1));
    const res = await post(body, engineUrl, { authorization: `Bearer ${wrong}` });
    expect(res.status).toBe(401);
    expect(JSON.parse(await res.text()).error.message).toBe("token signature is invalid");
    const garbage = await post(body, engineUrl, { authorization: "Bearer not.a.jwt" });
    expect(garbage.status).toBe(401);
    await garbage.text();
  });

  it("rejects an expired (stale) token with 401", async () => {
    const stale = makeJwt(secret, Math.floor(Date.now() / 1000) - 120);
    const res = await post(body, engineUrl, { authorization: `Bearer ${stale}` });
    expect(res.status).toBe(401);
    expect(JSON.parse(await res.text()).error.message).toBe("stale token");
  });

  it("serves a call with a valid token, with transport engine", async () => {
    const res = await post(body, engineUrl, { authorization: `Bearer ${makeJwt(secret)}` });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"jsonrpc":"2.0","id":1,"result":"engine"}');
    expect(seen.at(-1)?.transport).toBe("engine");
  });

  it("refuses to construct an engine server without a secret", () => {
    expect(() => new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, transport: "engine" })).toThrow(RpcServerError);
  });
});
