/**
 * The HTTP load tool (bench/load) against tiny local servers (node:http, raw TCP): the
 * multi-threaded generator's open-loop counts, failure kinds, drops at the in-flight cap, the
 * closed loop's requests in flight, pipelining (answers matched to requests in order, a server
 * closing mid-pipeline counted as failures), RSS sampling, and the text/JSON/HTML reports. The
 * generator's threads run the compiled bench (`npm run build` first). Asserts behaviour only,
 * never latency or throughput figures.
 */
import http from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { checkOutcome, prepareCorpus } from "../../../bench/load/check.js";
import { LoadGenerator } from "../../../bench/load/generator.js";
import { renderHtml } from "../../../bench/load/plot.js";
import { formatTable, writeReport } from "../../../bench/load/report.js";
import { readRssMiB } from "../../../bench/load/rss.js";
import { runLoad } from "../../../bench/load/run.js";
import { Tally, latencyStats } from "../../../bench/load/stats.js";
import type { Corpus, LoadReport } from "../../../bench/load/types.js";
import { resultEquals, resultsEqual, VALIDATOR_MODULE, validatorRef } from "../../../bench/load/validator.js";
import { makeTempDir, removeDir } from "../../helpers/basaltProcess.js";
import { getFreePort, LOCALHOST } from "../../helpers/ports.js";

/** A running test server. */
interface TestServer {
  url: string;
  /** requests received (warm-up included) */
  received: () => number;
  /** most requests in flight at once */
  maxConcurrent: () => number;
  close: () => Promise<void>;
}

type Handler = (body: string, res: http.ServerResponse) => void;

const servers: TestServer[] = [];
const dirs: string[] = [];
const generators: LoadGenerator[] = [];

afterEach(async () => {
  await Promise.all(generators.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => removeDir(d)));
});

/** Default generator options of these tests: two threads, a timeout long enough for a loaded machine. */
const THREADS = 2;

/** Starts a generator (closed by afterEach). */
async function generator(url: string, corpus: Corpus, opts: { threads?: number; timeoutMs?: number } = {}): Promise<LoadGenerator> {
  const g = await LoadGenerator.start({ url, corpus, threads: opts.threads ?? THREADS, timeoutMs: opts.timeoutMs ?? 5_000, sampleBytes: Infinity });
  generators.push(g);
  return g;
}

/** Starts a server on 127.0.0.1 calling `handler` with each request's body. */
async function startServer(handler: Handler): Promise<TestServer> {
  let received = 0;
  let current = 0;
  let max = 0;
  const server = http.createServer((req, res) => {
    received++;
    current++;
    max = Math.max(max, current);
    res.once("close", () => current--);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(Buffer.concat(chunks).toString("utf8"), res));
  });
  return listen(server, { received: () => received, maxConcurrent: () => max });
}

/** Listens on 127.0.0.1, destroys the open connections on close, and registers the server for afterEach. */
async function listen<T extends Omit<TestServer, "url" | "close">>(server: net.Server, counters: T): Promise<TestServer & T> {
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, LOCALHOST, resolve));
  const { port } = server.address() as AddressInfo;
  const handle = {
    ...counters,
    url: `http://${LOCALHOST}:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(handle);
  return handle;
}

function json(res: http.ServerResponse, value: unknown, status = 200): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Answers every request (or batch element) with result "0x1" and its id. */
const okHandler: Handler = (body, res) => {
  const req = JSON.parse(body) as { id: unknown } | { id: unknown }[];
  json(res, Array.isArray(req) ? req.map((r) => ({ jsonrpc: "2.0", id: r.id, result: "0x1" })) : { jsonrpc: "2.0", id: req.id, result: "0x1" });
};

function rpcBody(method: string, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params: [] });
}

/** A corpus whose every answer must be `expected`, checked on the generator's threads. */
function corpusOf(name: string, bodies: string[], expected: unknown = "0x1"): Corpus {
  return { name, bodies, ...validatorRef(VALIDATOR_MODULE, resultEquals, expected) };
}

/**
 * A raw HTTP/1.1 server answering each request with `{"result": <its id>}`, in order, however
 * many arrive in one read; with `closeAfter`, it destroys each connection after that many answers.
 */
/**
 * A raw HTTP server answering each request's id as its result. `closeAfter`: the connection is
 * destroyed at the request after that many answers. `closeWhilePending`: answers come a tick
 * later, and a request read while an answer is pending destroys the connection (what
 * uWebSockets.js does when a pipelined request reaches a handler that answers asynchronously).
 */
async function startRawServer(opts: { closeAfter?: number; closeWhilePending?: boolean } = {}): Promise<TestServer & { connections: () => number }> {
  const { closeAfter, closeWhilePending = false } = opts;
  let received = 0;
  let connections = 0;
  const server = net.createServer((sock) => {
    connections++;
    let buf = Buffer.alloc(0);
    let answered = 0;
    let pending = false;
    sock.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const headEnd = buf.indexOf("\r\n\r\n");
        if (headEnd < 0) return;
        const length = Number(/content-length:\s*(\d+)/i.exec(buf.subarray(0, headEnd).toString("latin1"))?.[1] ?? 0);
        if (buf.length < headEnd + 4 + length) return;
        const body = buf.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8");
        buf = buf.subarray(headEnd + 4 + length);
        received++;
        if (closeAfter !== undefined && answered >= closeAfter) return void sock.destroy();
        if (pending) return void sock.destroy();
        answered++;
        const text = JSON.stringify({ jsonrpc: "2.0", id: 1, result: (JSON.parse(body) as { id: unknown }).id });
        const answer = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
        if (!closeWhilePending) sock.write(answer);
        else {
          pending = true;
          setImmediate(() => {
            pending = false;
            if (!sock.destroyed) sock.write(answer);
          });
        }
      }
    });
  });
  return listen(server, { received: () => received, maxConcurrent: () => 0, connections: () => connections });
}

describe("open loop", () => {
  it("sends rate × seconds requests over the threads, all counted ok; warm-up and capture not counted", async () => {
    const server = await startServer(okHandler);
    const corpus = corpusOf("c", [rpcBody("a"), rpcBody("b")]);
    const report = await runLoad({ endpoints: [{ name: "s", url: server.url }], corpora: [corpus], steps: [200], stepSeconds: 1, threads: THREADS, calibration: false });
    expect(report.results).toHaveLength(1);
    const r = report.results[0]!;
    expect(r.threads).toBe(THREADS);
    const step = r.steps[0]!;
    expect(step.rate).toBe(200);
    // The schedule is exact: every one of the 200 due requests is sent or dropped.
    expect(step.sent + step.dropped).toBe(200);
    expect(step.sent).toBeGreaterThanOrEqual(150);
    expect(step.ok).toBe(step.sent);
    expect(step.failed).toBe(0);
    expect(step.errorRate).toBe(0);
    expect(step.achievedRps).toBeCloseTo(step.ok / 1, 6);
    expect(step.failures).toEqual({});
    expect(step.p50).toBeGreaterThan(0);
    expect(step.p99).toBeGreaterThanOrEqual(step.p50);
    expect(step.max).toBeGreaterThanOrEqual(step.p99);
    expect(step.rssMiB).toBeUndefined();
    expect(step.generatorCpu).toBeGreaterThanOrEqual(0);
    // The warm-up sent each body once more, and one body was captured for the calibration.
    expect(server.received()).toBe(step.sent + corpus.bodies.length + 1);
    expect(r.answerBytes).toBeGreaterThan(0);
    expect(r.sizeClass).toBe("≤ 1 KiB");
    expect(r.peak).toBeUndefined();
    expect(report.plan).toEqual({ steps: [200], stepSeconds: 1 });
    expect(report.generator?.calibrationNote).toMatch(/calibration off/);
  });

  it.each([0, THREADS])("counts JSON-RPC errors, HTTP 429/500, garbage, missing results, validate failures and timeouts by kind (%i threads)", async (threads) => {
    const server = await startServer((body, res) => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      switch (method) {
        case "good":
          return json(res, { jsonrpc: "2.0", id, result: "0x1" });
        case "rpcError":
          return json(res, { jsonrpc: "2.0", id, error: { code: -32005, message: "limit exceeded" } });
        case "tooMany":
          return json(res, { error: "slow down" }, 429);
        case "broken":
          return json(res, { error: "oops" }, 500);
        case "garbage":
          res.writeHead(200, { "content-type": "application/json" });
          return res.end("<html>not json");
        case "noResult":
          return json(res, { jsonrpc: "2.0", id });
        case "invalid":
          return json(res, { jsonrpc: "2.0", id, result: "0x2" });
        case "hang":
          return; // never answers
      }
    });
    const methods = ["good", "rpcError", "tooMany", "broken", "garbage", "noResult", "invalid", "hang"];
    const gen = await generator(server.url, corpusOf("mixed", methods.map((m, i) => rpcBody(m, i))), { threads, timeoutMs: 800 });
    expect(gen.threads).toBe(threads);
    const step = await gen.open({ rate: 32, seconds: 1, maxInFlight: 100, maxSockets: 64 });
    expect(step.sent).toBe(32);
    expect(step.ok + step.failed).toBe(32);
    expect(step.ok).toBe(4);
    expect(step.failures).toEqual({
      "rpc -32005": 4,
      "http 429": 4,
      "http 500": 4,
      "invalid json": 4,
      "missing result": 4,
      'validate: expected "0x1"': 4,
      timeout: 4,
    });
    expect(step.errorRate).toBeCloseTo(28 / 32, 9);
  });

  it("counts connection errors by code", async () => {
    const port = await getFreePort();
    const gen = await generator(`http://${LOCALHOST}:${port}`, corpusOf("c", [rpcBody("x")]));
    const step = await gen.open({ rate: 20, seconds: 0.5, maxInFlight: 100, maxSockets: 64 });
    expect(step.sent).toBe(10);
    expect(step.ok).toBe(0);
    expect(step.failures).toEqual({ econnrefused: 10 });
    expect(step.errorRate).toBe(1);
  });

  it("drops requests due while maxInFlight are in flight (the cap split over the threads)", async () => {
    const server = await startServer(() => undefined); // never answers
    const gen = await generator(server.url, corpusOf("c", [rpcBody("x")]), { timeoutMs: 2000 });
    const step = await gen.open({ rate: 50, seconds: 1, maxInFlight: 5, maxSockets: 64 });
    expect(step.sent).toBe(5);
    expect(step.dropped).toBe(45);
    expect(step.ok).toBe(0);
    expect(step.failures).toEqual({ timeout: 5 });
  });

  it("runs a corpus whose validator is a bare function on the main thread", async () => {
    const server = await startServer(okHandler);
    const gen = await generator(server.url, { name: "c", bodies: [rpcBody("x")], validate: (r) => (r === "0x1" ? undefined : "no") });
    expect(gen.threads).toBe(0);
    const step = await gen.open({ rate: 20, seconds: 0.5, maxInFlight: 10, maxSockets: 4 });
    expect(step.ok).toBe(10);
  });
});

describe("closed loop", () => {
  /** Answers like okHandler after `ms`: long enough for every request to be in flight at once. */
  const slowOk =
    (ms: number): Handler =>
    (body, res) => {
      setTimeout(() => okHandler(body, res), ms);
    };

  it.each([
    [1, 8],
    [4, 2],
    [3, 3],
  ])("keeps exactly `concurrency` requests in flight (pipeline %i → %i connections)", async (pipeline, connections) => {
    const server = await startServer(slowOk(20));
    const gen = await generator(server.url, corpusOf("c", [rpcBody("x")]));
    const peak = await gen.closed({ concurrency: 8, pipeline, seconds: 1 });
    expect(server.maxConcurrent()).toBe(8);
    expect(peak.concurrency).toBe(8);
    expect(peak.connections).toBe(connections);
    expect(peak.pipeline).toBe(pipeline);
    expect(peak.ok).toBeGreaterThan(8);
    expect(peak.failed).toBe(0);
    expect(peak.rps).toBeCloseTo(peak.ok, 6);
  });

  it("runs the peak after the steps with more clients than the open loop's sockets, sampling RSS of a pid", async () => {
    const server = await startServer(slowOk(150));
    const report = await runLoad({
      endpoints: [{ name: "self", url: server.url, pid: process.pid }],
      corpora: [corpusOf("c", [rpcBody("x")])],
      steps: [10],
      stepSeconds: 0.3,
      peak: { concurrency: 70, seconds: 0.5 },
      calibration: false,
    });
    const r = report.results[0]!;
    expect(server.maxConcurrent()).toBe(70);
    expect(r.steps[0]!.rssMiB).toBeGreaterThan(0);
    expect(r.peak?.concurrency).toBe(70);
    expect(r.peak?.pipeline).toBe(4);
    expect(r.peak?.ok).toBeGreaterThan(0);
    expect(r.peak?.rssMiB).toBeGreaterThan(0);
    expect(report.plan.peak).toEqual({ concurrency: 70, seconds: 0.5 });
  });

  it("matches pipelined answers to their requests in order", async () => {
    const server = await startRawServer();
    const ids = Array.from({ length: 16 }, (_, i) => `req-${i}`);
    const bodies = ids.map((id) => JSON.stringify({ jsonrpc: "2.0", id, method: "echo", params: [] }));
    const gen = await generator(server.url, { name: "echo", bodies, ...validatorRef(VALIDATOR_MODULE, resultsEqual, ids) });
    expect(await gen.probePipeline(8)).toBeUndefined();
    const peak = await gen.closed({ concurrency: 32, pipeline: 8, seconds: 0.5 });
    expect(peak.connections).toBe(4);
    expect(peak.failures).toEqual({});
    expect(peak.ok).toBeGreaterThan(32);
  });

  it("runs every endpoint of a corpus unpipelined when one of them drops pipelined requests it answers later", async () => {
    const eager = await startRawServer();
    const later = await startRawServer({ closeWhilePending: true });
    const ids = Array.from({ length: 8 }, (_, i) => `req-${i}`);
    const bodies = ids.map((id) => JSON.stringify({ jsonrpc: "2.0", id, method: "echo", params: [] }));
    const report = await runLoad({
      endpoints: [
        { name: "eager", url: eager.url },
        { name: "later", url: later.url },
      ],
      corpora: [{ name: "echo", bodies, ...validatorRef(VALIDATOR_MODULE, resultsEqual, ids) }],
      steps: [],
      peak: { concurrency: 16, seconds: 0.3 },
      pipeline: 4,
      threads: 1,
      calibration: false,
    });
    expect(report.results.map((r) => r.peak?.pipeline)).toEqual([1, 1]);
    for (const r of report.results) {
      expect(r.peak?.pipelineNote).toMatch(/^later does not answer pipelined requests/);
      expect(r.peak?.failures).toEqual({});
      expect(r.peak?.ok).toBeGreaterThan(0);
    }
  });

  it("counts requests lost when the server closes mid-pipeline as failures, and goes on", async () => {
    const server = await startRawServer({ closeAfter: 3 });
    const gen = await generator(server.url, corpusOf("c", [rpcBody("x", 7)], 7), { timeoutMs: 2000 });
    expect(await gen.probePipeline(8)).toMatch(/lost \((connection closed|econnreset|epipe)\)/);
    const peak = await gen.closed({ concurrency: 16, pipeline: 8, seconds: 0.5 });
    expect(peak.ok).toBeGreaterThan(0);
    expect(peak.failed).toBeGreaterThan(0);
    // The kinds of a connection the server ended: closed, reset, or written to after the close.
    const closeKinds = ["connection closed", "econnreset", "epipe"];
    expect(Object.keys(peak.failures).every((k) => closeKinds.includes(k)), JSON.stringify(peak.failures)).toBe(true);
    // Every connection answered 3 then closed; replacements were opened as the old ones died.
    expect(server.connections()).toBeGreaterThan(2);
  });

  it("merges the threads' latency histograms: one latency per answered request", async () => {
    const server = await startServer(okHandler);
    const gen = await generator(server.url, corpusOf("c", [rpcBody("x")]), { threads: 3 });
    const peak = await gen.closed({ concurrency: 6, pipeline: 1, seconds: 0.5 });
    expect(peak.connections).toBe(6);
    expect(peak.ok).toBeGreaterThan(0);
    expect(peak.p50).toBeGreaterThan(0);
    expect(peak.p99).toBeGreaterThanOrEqual(peak.p50);
    expect(peak.max).toBeGreaterThanOrEqual(peak.p99);
  });
});

describe("checks", () => {
  it("counts each element of a batch, matched by id", () => {
    const prepared = prepareCorpus({
      name: "batch",
      bodies: [JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "m", params: [] })))],
      validate: (r, bodyIndex, elementIndex) => (r === "ok" && bodyIndex === 0 && elementIndex !== undefined ? undefined : "bad"),
    });
    const tally = new Tally();
    const answer = [
      { jsonrpc: "2.0", id: 3, result: "ok" },
      { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "x" } },
    ];
    checkOutcome({ status: 200, body: Buffer.from(JSON.stringify(answer)), bytes: 0 }, prepared, 0, tally);
    expect(tally.ok).toBe(1);
    expect(tally.failures).toEqual({ "rpc -32000": 1, "missing response": 1 });
    checkOutcome({ status: 503, bytes: 0 }, prepared, 0, tally);
    expect(tally.failures["http 503"]).toBe(3);
    checkOutcome({ error: "timeout" }, prepared, 0, tally);
    expect(tally.failures.timeout).toBe(3);
    expect(tally.failed).toBe(8);
    // A 200 answer whose body was not kept (outside the sample) counts ok on its framing, as unchecked.
    checkOutcome({ status: 200, bytes: 100_000 }, prepared, 0, tally);
    expect(tally.ok).toBe(4);
    expect(tally.unchecked).toBe(3);
  });

  it("rejects empty corpora and bodies that are not requests", () => {
    expect(() => prepareCorpus({ name: "e", bodies: [] })).toThrow(/no bodies/);
    expect(() => prepareCorpus({ name: "e", bodies: ["nope"] })).toThrow(/not JSON/);
    expect(() => prepareCorpus({ name: "e", bodies: ["42"] })).toThrow(/not a JSON-RPC request/);
  });

  it("computes nearest-rank percentiles", () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(latencyStats(samples)).toEqual({ p50: 50, p90: 90, p99: 99, max: 100 });
    expect(latencyStats([])).toEqual({ p50: 0, p90: 0, p99: 0, max: 0 });
  });
});

describe("rss", () => {
  it("reads VmRSS of a live pid and nothing for a missing one", () => {
    const rss = readRssMiB(process.pid);
    expect(rss).toBeGreaterThan(1);
    expect(readRssMiB(2 ** 22 + 12345)).toBeUndefined();
  });
});

/** A synthetic two-endpoint, two-corpus report (names that need escaping included). */
function sampleReport(): LoadReport {
  const step = (rate: number, failed = 0) => ({
    rate,
    seconds: 1,
    sent: rate,
    ok: rate - failed,
    failed,
    dropped: 0,
    errorRate: failed / rate,
    achievedRps: rate - failed,
    failures: (failed > 0 ? { "http 429": failed } : {}) as Record<string, number>,
    p50: 1.5,
    p90: 2.5,
    p99: 10,
    max: 20,
    rssMiB: 100,
  });
  const peak = { concurrency: 32, seconds: 10, ok: 5000, failed: 0, rps: 500, failures: {}, p50: 3, p90: 5, p99: 9, max: 30 };
  return {
    startedAt: "2025-01-01T00:00:00.000Z",
    machine: { cpus: 2, cpuModel: "Test CPU", memGiB: 8, node: "v20.0.0" },
    plan: { steps: [1, 16, 256], stepSeconds: 1, peak: { concurrency: 32, seconds: 10 } },
    results: [
      { endpoint: "basalt", corpus: "eth_blockNumber", steps: [step(1), step(16), step(256, 6)], peak },
      { endpoint: "ref<node>", corpus: "eth_blockNumber", steps: [step(1), step(16), step(256)], peak: { ...peak, rps: 400 } },
      { endpoint: "basalt", corpus: "eth_getBlockByNumber(full)", steps: [step(1), step(16), step(256)] },
      { endpoint: "ref<node>", corpus: "eth_getBlockByNumber(full)", steps: [step(1), step(16), step(256)] },
    ],
  };
}

describe("reports", () => {
  it("tabulates every endpoint and corpus, steps then peaks then failures", () => {
    const text = formatTable(sampleReport());
    const expected = ["basalt", "ref<node>", "eth_blockNumber", "eth_getBlockByNumber(full)", "p99 ms", "http 429 ×6"];
    for (const name of expected) expect(text).toContain(name);
    expect(text.indexOf("open loop")).toBeLessThan(text.indexOf("peak (closed loop"));
    expect(text.indexOf("peak (closed loop")).toBeLessThan(text.indexOf("failures:"));
    expect(text.split("\n").filter((l) => l.startsWith("basalt ") || l.startsWith("ref<node>")).length).toBe(12 + 2 + 1);
  });

  it("renders a self-contained HTML page with SVG charts", () => {
    const html = renderHtml(sampleReport());
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain("<svg");
    expect(html.match(/<svg/g)?.length).toBe(2 + 2 + 1); // latency + throughput per corpus, one peak chart
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toContain("ref<node>");
    expect(html).toContain("ref&lt;node&gt;");
    expect(html).toContain("eth_getBlockByNumber(full)");
  });

  it("writes the JSON and HTML files", async () => {
    const dir = await makeTempDir("basalt-load-report-");
    dirs.push(dir);
    const report = sampleReport();
    const paths = writeReport(report, `${dir}/nested`, "run1");
    expect(paths.json).toMatch(/nested\/run1\.json$/);
    expect(paths.html).toMatch(/nested\/run1\.html$/);
    expect(JSON.parse(readFileSync(paths.json, "utf8"))).toEqual(report);
    expect(readFileSync(paths.html, "utf8")).toContain("<svg");
    expect(writeReport(report, dir).json).toMatch(/load\.json$/);
  });
});
