/**
 * util/serviceStack.ts: services start in order; a failing start stops the started ones (and
 * itself) in reverse and surfaces its own error; stop runs in reverse once, a throwing or stuck
 * stop does not keep the others from running, and the failure is reported after all ran.
 */
import { describe, expect, it } from "vitest";
import { ServiceStack, ServiceStackError, type Service } from "../../../src/util/serviceStack.js";

/** A service that records its start and stop in `events`. */
function recorder(events: string[], name: string, o: { failStart?: Error; failStop?: Error; hangStop?: boolean; stopTimeoutMs?: number } = {}): Service {
  return {
    name,
    stopTimeoutMs: o.stopTimeoutMs,
    async start() {
      events.push(`start ${name}`);
      if (o.failStart !== undefined) throw o.failStart;
    },
    async stop() {
      events.push(`stop ${name}`);
      if (o.failStop !== undefined) throw o.failStop;
      if (o.hangStop === true) await new Promise<void>(() => undefined);
    },
  };
}

/** Collects warn lines. */
function logSink(): { warns: { service?: string }[]; log: { debug: () => void; warn: (o: { service?: string }) => void } } {
  const warns: { service?: string }[] = [];
  return { warns, log: { debug: () => undefined, warn: (o) => void warns.push(o) } };
}

describe("ServiceStack", () => {
  it("starts in order and stops in reverse, deferred entries included", async () => {
    const events: string[] = [];
    const stack = new ServiceStack();
    await stack.start(recorder(events, "a"));
    stack.defer("b", () => void events.push("stop b"));
    await stack.start(recorder(events, "c"));
    expect(stack.names).toEqual(["a", "b", "c"]);
    await stack.stop();
    expect(events).toEqual(["start a", "start c", "stop c", "stop b", "stop a"]);
  });

  it("a failing start stops itself and the started ones in reverse, and rethrows its own error", async () => {
    const events: string[] = [];
    const stack = new ServiceStack();
    const refused = new Error("port in use");
    await stack.start(recorder(events, "a"));
    await stack.start(recorder(events, "b"));
    await expect(stack.start(recorder(events, "c", { failStart: refused }))).rejects.toBe(refused);
    expect(events).toEqual(["start a", "start b", "start c", "stop c", "stop b", "stop a"]);
    // Nothing starts on a stopped stack.
    await expect(stack.start(recorder(events, "d"))).rejects.toBeInstanceOf(ServiceStackError);
    expect(events).not.toContain("start d");
  });

  it("a failing step run under the stack stops the started ones and rethrows; a stop failure does not hide it", async () => {
    const events: string[] = [];
    const stack = new ServiceStack(logSink().log);
    await stack.start(recorder(events, "a", { failStop: new Error("a stop") }));
    await stack.start(recorder(events, "b"));
    const bad = new Error("bad option");
    await expect(stack.run(() => { throw bad; })).rejects.toBe(bad);
    expect(events).toEqual(["start a", "start b", "stop b", "stop a"]);
    expect(await stack.run(() => 7)).toBe(7);
  });

  it("a throwing stop does not block the others; stop then rejects naming it", async () => {
    const events: string[] = [];
    const { warns, log } = logSink();
    const stack = new ServiceStack(log);
    await stack.start(recorder(events, "a"));
    await stack.start(recorder(events, "b", { failStop: new Error("b cannot stop") }));
    await stack.start(recorder(events, "c"));
    const err = await stack.stop().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceStackError);
    expect((err as ServiceStackError).type).toEqual({ code: "SERVICE_STOP_FAILED", services: ["b"] });
    expect(events).toEqual(["start a", "start b", "start c", "stop c", "stop b", "stop a"]);
    expect(warns.map((w) => w.service)).toEqual(["b"]);
  });

  it("a stop past its time limit is logged and the next one runs", async () => {
    const events: string[] = [];
    const { warns, log } = logSink();
    const stack = new ServiceStack(log);
    await stack.start(recorder(events, "a"));
    await stack.start(recorder(events, "stuck", { hangStop: true, stopTimeoutMs: 20 }));
    await stack.stop();
    expect(events).toEqual(["start a", "start stuck", "stop stuck", "stop a"]);
    expect(warns.map((w) => w.service)).toEqual(["stuck"]);
  });

  it("stop is idempotent: every service stops once, concurrent and later calls share the outcome", async () => {
    const events: string[] = [];
    const stack = new ServiceStack();
    await stack.start(recorder(events, "a"));
    await stack.start(recorder(events, "b"));
    const first = stack.stop();
    const second = stack.stop();
    expect(second).toBe(first);
    await first;
    await stack.stop();
    expect(events.filter((e) => e.startsWith("stop"))).toEqual(["stop b", "stop a"]);
  });
});
