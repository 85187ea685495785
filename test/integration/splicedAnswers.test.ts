/**
 * Answers whose result is held as bytes (RawJson.encoded, the response cache's answers): the
 * envelope hands them to the HTTP server in two parts (SplicedResponse) that are written without
 * joining them. On the wire they must be exactly what the text path writes — status line,
 * headers, Content-Length and body — for every request shape, on every server configuration,
 * also when the socket cannot take the answer at once or the client leaves mid-answer; over
 * WebSocket, the same text frames.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerBody, handleBody, SplicedResponse } from "../../src/rpc/envelope.js";
import { RpcHttpServer } from "../../src/rpc/server.js";
import { RpcWsServer } from "../../src/rpc/wsServer.js";
import WebSocket from "ws";
import { RawJson, type MethodTable, type RpcContext } from "../../src/rpc/types.js";

const ctx: RpcContext = { transport: "http" };
const RESULT = '{"number":"0x1","transactions":["0xab","0xcd"],"note":"é ✓"}';
/** 24 MiB: more than loopback socket buffers hold, so the answer cannot be written at once. */
const HUGE = `"${"f".repeat(24 * 1024 * 1024)}"`;

const methods: MethodTable = {
  bytes: () => RawJson.encoded(RESULT),
  text: () => new RawJson(RESULT),
  hugeBytes: () => RawJson.encoded(HUGE),
  add: (params) => (params[0] as number) + (params[1] as number),
};

/** Request shapes: ids of every kind, whitespace, key order, extra members; `M` is the method. */
const SHAPES = [
  '{"jsonrpc":"2.0","id":1,"method":"M","params":[]}',
  '{"jsonrpc":"2.0","id":"abc","method":"M"}',
  '{"jsonrpc":"2.0","id":null,"method":"M","params":null}',
  '{"jsonrpc":"2.0","id":1.50,"method":"M","params":[]}',
  '{"jsonrpc":"2.0","id":18446744073709551617,"method":"M","params":[]}',
  '{"jsonrpc":"2.0","id":-0,"method":"M","params":[]}',
  '{"jsonrpc":"2.0","id":"\\u00e9","method":"M","params":[]}',
  '{"jsonrpc":"2.0","id":"é ✓","method":"M","params":[]}',
  '{"jsonrpc":"2.0","id":true,"method":"M","params":[]}',
  '\n  { "params" : [ ] ,\n "method" : "M", "id" : 7 , "jsonrpc" : "2.0" }\n',
  '{"jsonrpc":"2.0","extra":{"id":99,"list":[1,2]},"method":"M","params":[],"id":8}',
  '{"jsonrpc":"2.0","id":1,"id":"last","method":"M","params":[]}',
];

const shape = (s: string, method: string): string => s.replace('"M"', `"${method}"`);

describe("envelope: byte-held results", () => {
  it("answers a single call in two parts whose text is the text path's answer", async () => {
    for (const s of SHAPES) {
      const out = await answerBody(shape(s, "bytes"), methods, ctx);
      expect(out).toBeInstanceOf(SplicedResponse);
      expect(String(out)).toBe(await handleBody(shape(s, "text"), methods, ctx));
      expect(await handleBody(shape(s, "bytes"), methods, ctx)).toBe(await handleBody(shape(s, "text"), methods, ctx));
    }
  });

  it("answers batches, notifications and errors as text, the same as the text path", async () => {
    const batch = (m: string): string => `[${SHAPES.map((s) => shape(s, m)).join(",")},{"jsonrpc":"2.0","id":2,"method":"add","params":[1,2]}]`;
    const a = await answerBody(batch("bytes"), methods, ctx);
    expect(typeof a).toBe("string");
    expect(a).toBe(await answerBody(batch("text"), methods, ctx));
    expect(await answerBody('{"jsonrpc":"2.0","method":"bytes"}', methods, ctx)).toBeNull();
    expect(await answerBody('{"jsonrpc":"2.0","id":1,"method":"bytes","params":{}}', methods, ctx)).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    );
  });

  it("counts byte-held results in UTF-8 bytes against the batch response limit, as text-held ones", async () => {
    const bytes = Buffer.byteLength(RESULT);
    for (const limit of [bytes - 1, bytes, bytes + 1, 2 * bytes]) {
      const opts = { maxBatchResponseBytes: limit };
      const batch = (m: string): string => `[${[1, 2, 3].map((id) => `{"jsonrpc":"2.0","id":${id},"method":"${m}"}`).join(",")}]`;
      expect(await handleBody(batch("bytes"), methods, ctx, opts)).toBe(await handleBody(batch("text"), methods, ctx, opts));
    }
  });

  it("keeps the text of a byte-held result and its size", () => {
    const r = RawJson.encoded(RESULT);
    expect(r.json).toBe(RESULT);
    expect(r.byteLength).toBe(Buffer.byteLength(RESULT));
    expect(r.bytesThenClose?.toString()).toBe(`${RESULT}}`);
    expect(new RawJson(RESULT).bytesThenClose).toBeUndefined();
  });
});

/** One HTTP exchange on a fresh connection: the response head (without its Date line) and body. */
async function exchange(port: number, body: string, headers: Record<string, string> = {}): Promise<{ head: string; body: Buffer }> {
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  const request = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sock = net.connect(port, "127.0.0.1", () => sock.write(request));
    sock.on("data", (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = /content-length: (\d+)/i.exec(all.subarray(0, end).toString("latin1"));
      if (length !== null && all.length >= end + 4 + Number(length[1])) {
        sock.destroy();
        resolve(all);
      }
    });
    sock.on("error", reject);
  });
  const end = raw.indexOf("\r\n\r\n");
  const head = raw
    .subarray(0, end)
    .toString("latin1")
    .split("\r\n")
    .filter((l) => !/^date:/i.test(l))
    .join("\r\n");
  return { head, body: raw.subarray(end + 4) };
}

describe("HTTP server: byte-held results on the wire", () => {
  const servers: RpcHttpServer[] = [];
  let plain = 0;
  let cors = 0;

  const start = async (extra: Partial<ConstructorParameters<typeof RpcHttpServer>[0]> = {}): Promise<number> => {
    const s = new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, transport: "http", ...extra });
    servers.push(s);
    return s.listen();
  };

  beforeAll(async () => {
    plain = await start();
    cors = await start({ cors: ["https://app.example"] });
  });

  afterAll(() => {
    for (const s of servers) s.close();
  });

  it("writes the same status line, headers and body as the text path, for every request shape", async () => {
    for (const port of [plain, cors]) {
      for (const s of SHAPES) {
        const headers: Record<string, string> = port === cors ? { Origin: "https://app.example" } : {};
        const fromBytes = await exchange(port, shape(s, "bytes"), headers);
        const fromText = await exchange(port, shape(s, "text"), headers);
        expect(fromBytes.head).toBe(fromText.head);
        expect(fromBytes.body.equals(fromText.body)).toBe(true);
        expect(fromBytes.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect(fromBytes.head).toContain(`Content-Length: ${fromText.body.length}`);
        expect(fromBytes.body.toString()).toBe(await handleBody(shape(s, "text"), methods, ctx));
      }
    }
  });

  it("writes an answer larger than the socket buffers completely to a client that reads late", async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"hugeBytes"}';
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let received = 0;
      const sock = net.connect(plain, "127.0.0.1", () => {
        sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        // Read nothing for a while: the server must wait for the socket to drain.
        sock.pause();
        setTimeout(() => sock.resume(), 200);
      });
      sock.on("data", (c: Buffer) => {
        chunks.push(c);
        received += c.length;
        if (received >= HUGE.length + 36) {
          const all = Buffer.concat(chunks);
          const end = all.indexOf("\r\n\r\n");
          const length = Number(/Content-Length: (\d+)/.exec(all.subarray(0, end).toString())?.[1]);
          if (all.length >= end + 4 + length) {
            sock.destroy();
            resolve(all.subarray(end + 4));
          }
        }
      });
      sock.on("error", reject);
    });
    expect(raw.equals(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${HUGE}}`))).toBe(true);
  });

  it("keeps serving after a client leaves in the middle of a large answer", async () => {
    await new Promise<void>((resolve, reject) => {
      const body = '{"jsonrpc":"2.0","id":1,"method":"hugeBytes"}';
      const sock = net.connect(plain, "127.0.0.1", () => {
        sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
      sock.once("data", () => {
        sock.destroy();
        resolve();
      });
      sock.on("error", reject);
    });
    const after = await exchange(plain, '{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}');
    expect(after.body.toString()).toBe('{"jsonrpc":"2.0","id":1,"result":3}');
  });
});

describe("WebSocket server: byte-held results", () => {
  it("sends the same text frames as for text-held results, for every request shape", async () => {
    const server = new RpcWsServer({ host: "127.0.0.1", port: 0, methods });
    const port = await server.listen();
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    try {
      await new Promise<void>((resolve, reject) => {
        client.once("open", () => resolve());
        client.once("error", reject);
      });
      const ask = (body: string): Promise<{ data: Buffer; binary: boolean }> =>
        new Promise((resolve) => {
          client.once("message", (data: Buffer, binary: boolean) => resolve({ data, binary }));
          client.send(body);
        });
      for (const s of SHAPES) {
        const fromBytes = await ask(shape(s, "bytes"));
        const fromText = await ask(shape(s, "text"));
        expect(fromBytes.binary).toBe(false);
        expect(fromText.binary).toBe(false);
        expect(fromBytes.data.equals(fromText.data)).toBe(true);
        expect(fromBytes.data.toString()).toBe(await handleBody(shape(s, "text"), methods, ctx));
      }
    } finally {
      client.close();
      server.close();
    }
  });
});
