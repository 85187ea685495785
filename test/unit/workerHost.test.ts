import { describe, it, expect, afterEach } from "vitest";
import { pino } from "pino";
import { WorkerHost, WorkerHostError, WorkerHostErrorCode, type WorkerHostOptions } from "../../src/util/workerHost.js";
import { scrapeAllMetrics } from "../../src/util/workerMetrics.js";
import { BasaltError } from "../../src/util/errors.js";
import { pollUntil, waitUntil } from "../helpers/poll.js";

const url = new URL("../helpers/workers/hostProbe.mjs", import.meta.url);
const hosts: WorkerHost[] = [];

function host(over: Partial<WorkerHostOptions> = {}): WorkerHost {
  const h = new WorkerHost({ entry: "probe", url, subsystem: "proofs", log: pino({ level: "silent" }), stopGraceMs: 2_000, requestTimeoutMs: 2_000, ...over });
  hosts.push(h);
  return h;
}

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop()));
});

describe("WorkerHost", () => {
  it("answers requests by id and rebuilds a worker's typed error as its class", async () => {
    const h = host();
    await h.start();
    expect(h.running).toBe(true);
    const bytes = new Uint8Array([1, 2, 3]);
    const [a, b] = await Promise.all([h.request("echo", { x: 1, bytes }), h.request("echo", "two")]);
    expect(a).toEqual({ x: 1, bytes });
    expect(b).toBe("two");
    const e = await h.request("fail").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WorkerHostError);
    expect((e as WorkerHostError).type).toEqual({ code: WorkerHostErrorCode.TIMEOUT, worker: "probe", method: "fail", timeoutMs: 7 });
    expect((e as Error).message).toBe("probe typed failure");
    const p = await h.request("plain").catch((x: unknown) => x);
    expect(p).toBeInstanceOf(Error);
    expect(p).not.toBeInstanceOf(BasaltError);
    expect((p as Error).message).toBe("plain failure");
    const u = await h.request("nope").catch((x: unknown) => x);
    expect((u as Error).message).toMatch(/serves no method nope/);
  });

  it("times a request out with WORKER_TIMEOUT", async () => {
    const h = host();
    await h.start();
    const e = (await h.request("never", undefined, 50).catch((x: unknown) => x)) as WorkerHostError;
    expect(e.type.code).toBe(WorkerHostErrorCode.TIMEOUT);
  });

  it("rejects start with the worker's setup error", async () => {
    const h = host({ workerData: { failSetup: true } });
    const e = (await h.start().catch((x: unknown) => x)) as WorkerHostError;
    expect(e).toBeInstanceOf(WorkerHostError);
    expect(e.message).toBe("probe setup refused");
    expect(h.running).toBe(false);
  });

  it("delivers notes and events", async () => {
    const got: unknown[] = [];
    const h = host({ onEvent: (name, p) => got.push([name, p]) });
    await h.start();
    h.notify("ping", 42);
    await waitUntil("pong", 5_000, () => got.length > 0);
    expect(got).toEqual([["pong", 42]]);
  });

  it("fails requests in flight when the worker dies, and restarts it with backoff", async () => {
    const exits: number[] = [];
    let readies = 0;
    const h = host({ restart: { initialDelayMs: 20, maxDelayMs: 100, stableMs: 60_000 }, onExit: (c) => exits.push(c), onReady: () => readies++ });
    await h.start();
    const pending = h.request("never").catch((x: unknown) => x);
    const died = await h.request("die").catch((x: unknown) => x);
    expect((died as WorkerHostError).type.code).toBe(WorkerHostErrorCode.NOT_RUNNING);
    expect(((await pending) as WorkerHostError).type.code).toBe(WorkerHostErrorCode.NOT_RUNNING);
    expect(exits).toEqual([3]);
    await waitUntil("restarted worker", 5_000, () => h.running);
    expect(readies).toBe(2);
    expect(await h.request("echo", 5)).toBe(5);
  });

  it("counts restarts on the service's own counter when one is given", async () => {
    let restarts = 0;
    const h = host({ restart: { initialDelayMs: 20, maxDelayMs: 100, stableMs: 60_000 }, restartsCounter: { inc: () => void restarts++ } });
    await h.start();
    await h.request("die").catch(() => undefined);
    await waitUntil("restarted worker", 5_000, () => h.running && restarts === 1);
    expect(restarts).toBe(1);
  });

  it("asks a workerData function again for each restarted worker", async () => {
    let n = 0;
    const h = host({ restart: { initialDelayMs: 20, maxDelayMs: 100, stableMs: 60_000 }, workerData: () => ({ n: ++n }) });
    await h.start();
    expect(await h.request("data")).toBe(1);
    await h.request("die").catch(() => undefined);
    await waitUntil("restarted worker", 5_000, () => h.running);
    expect(await h.request("data")).toBe(2);
  });

  it("stays down without a restart policy", async () => {
    const h = host();
    await h.start();
    await h.request("die").catch(() => undefined);
    await waitUntil("exit seen", 5_000, () => !h.running);
    const e = (await h.request("echo", 1).catch((x: unknown) => x)) as WorkerHostError;
    expect(e.type.code).toBe(WorkerHostErrorCode.NOT_RUNNING);
  });

  it("runs the worker's stop routine before terminating it, and stop is idempotent", async () => {
    const h = host();
    await h.start();
    await h.stop();
    await h.stop();
    expect(h.running).toBe(false);
    expect(h.notify("ping")).toBe(false);
  });

  it("scrapes a worker's metrics under its prefix into the main exposition", async () => {
    const h = host();
    await h.start();
    await h.request("echo", 1);
    await h.request("echo", 2);
    const { text } = await pollUntil("probe metric", 5_000, async () => {
      const r = await scrapeAllMetrics();
      return r.text.includes("basalt_proofs_probe_echoes_total 2") ? r : undefined;
    });
    expect(text).not.toContain("basalt_chain_probe_foreign_total");
    expect(text).toMatch(/basalt_proofs_running_workers\{worker="probe"\} 1/);
    await h.stop();
    expect((await scrapeAllMetrics()).text).not.toContain("basalt_proofs_probe_echoes_total");
  });
});
