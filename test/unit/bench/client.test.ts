/**
 * The load generator's HTTP/1.1 client (bench/load/client.ts) without sockets: request encoding,
 * URL parsing, and the response parser fed pipelined responses split at every byte position,
 * chunked bodies, interim answers, bodies framed by the close, and bytes that are not HTTP.
 */
import { describe, expect, it } from "vitest";
import { encodeRequest, parseTarget, ProtocolError, ResponseParser, type ParsedResponse } from "../../../bench/load/client.js";
import { LoadError } from "../../../bench/load/errors.js";

/** Feeds `bytes` to a fresh parser in pieces cut at `cuts`; returns the responses (bodies as text). */
function parse(bytes: Buffer, cuts: number[] = [], keep = true): Array<Omit<ParsedResponse, "body"> & { body?: string }> {
  const out: Array<Omit<ParsedResponse, "body"> & { body?: string }> = [];
  const parser = new ResponseParser({
    wantBody: () => keep,
    onResponse: (r) => out.push({ ...r, body: r.body?.toString("utf8") }),
  });
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    // Each piece is copied into a larger, dirty buffer: the parser must read only [start, end).
    const piece = Buffer.alloc(c - at + 16, 0x41);
    bytes.copy(piece, 8, at, c);
    parser.feed(piece, 8, 8 + c - at);
    at = c;
  }
  return out;
}

const ok = (body: string, extra = ""): string => `HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const chunked = (parts: string[], extra = ""): string =>
  `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n${extra}\r\n` +
  parts.map((p) => `${Buffer.byteLength(p).toString(16)};ext=1\r\n${p}\r\n`).join("") +
  "0\r\nX-Trailer: t\r\n\r\n";

describe("ResponseParser", () => {
  const stream = Buffer.from(
    ok('{"id":1}') +
      chunked(['{"id":', "2}"]) +
      "HTTP/1.1 204 No Content\r\n\r\n" +
      "HTTP/1.1 100 Continue\r\n\r\n" +
      ok('{"id":3}', "Connection: keep-alive\r\n") +
      "HTTP/1.1 429 Too Many Requests\r\ncontent-length: 4\r\n\r\nslow" +
      ok('{"id":4}', "Connection: close\r\n"),
  );
  const expected = [
    { status: 200, body: '{"id":1}', bytes: 8, keepAlive: true, sized: true },
    { status: 200, body: '{"id":2}', bytes: 8, keepAlive: true, sized: false },
    { status: 204, body: "", bytes: 0, keepAlive: true, sized: false },
    { status: 200, body: '{"id":3}', bytes: 8, keepAlive: true, sized: true },
    { status: 429, body: "slow", bytes: 4, keepAlive: true, sized: true },
    { status: 200, body: '{"id":4}', bytes: 8, keepAlive: false, sized: true },
  ];

  it("parses pipelined responses in order, whatever the split", () => {
    expect(parse(stream)).toEqual(expected);
    for (let cut = 1; cut < stream.length; cut++) expect(parse(stream, [cut]), `cut at ${cut}`).toEqual(expected);
    const everyByte = Array.from({ length: stream.length - 1 }, (_, i) => i + 1);
    expect(parse(stream, everyByte)).toEqual(expected);
  });

  it("counts bodies it was told not to keep", () => {
    const out = parse(stream, [17, 90], false);
    expect(out.map((r) => [r.status, r.bytes, r.body])).toEqual(expected.map((e) => [e.status, e.bytes, undefined]));
  });

  it("completes a body framed by the close only at the end", () => {
    const responses: ParsedResponse[] = [];
    const parser = new ResponseParser({ wantBody: () => true, onResponse: (r) => responses.push(r) });
    const bytes = Buffer.from("HTTP/1.0 200 OK\r\n\r\nuntil the end");
    parser.feed(bytes, 0, bytes.length);
    expect(responses).toHaveLength(0);
    expect(parser.end()).toBe(true);
    expect(responses[0]).toMatchObject({ status: 200, bytes: 13, keepAlive: false });
    expect(responses[0]!.body?.toString()).toBe("until the end");
  });

  it("reports a response cut short by the close", () => {
    const parser = new ResponseParser({ wantBody: () => true, onResponse: () => undefined });
    const bytes = Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc");
    parser.feed(bytes, 0, bytes.length);
    expect(parser.idle).toBe(false);
    expect(parser.end()).toBe(false);
  });

  it("rejects bytes that are not an HTTP/1.x response", () => {
    expect(() => parse(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"))).toThrow(ProtocolError);
    expect(() => parse(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n"))).toThrow(/content-length/);
    expect(() => parse(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"))).toThrow(/chunk size/);
    expect(() => parse(Buffer.alloc(70_000, 0x61))).toThrow(/response head over/);
  });
});

describe("requests", () => {
  it("encodes a keep-alive POST with host, auth, type and length", () => {
    const t = parseTarget("http://user:p%40ss@127.0.0.1:8545/rpc?key=v");
    expect(t).toMatchObject({ host: "127.0.0.1", port: 8545, secure: false, path: "/rpc?key=v", hostHeader: "127.0.0.1:8545" });
    const text = encodeRequest(t, '{"a":"é"}').toString("utf8");
    expect(text).toBe(
      "POST /rpc?key=v HTTP/1.1\r\nHost: 127.0.0.1:8545\r\n" +
        `Authorization: Basic ${Buffer.from("user:p@ss").toString("base64")}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":"é"}',
    );
    expect(parseTarget("https://[::1]/")).toMatchObject({ host: "::1", port: 443, secure: true, path: "/" });
  });

  it("rejects URLs it cannot send to", () => {
    expect(() => parseTarget("nope")).toThrow(LoadError);
    expect(() => parseTarget("ftp://h/")).toThrow(/unsupported protocol/);
  });
});
