import { describe, expect, it } from "vitest";
import { register } from "prom-client";
import { handleBody } from "../../src/rpc/envelope.js";
import { BasaltError } from "../../src/util/errors.js";
import { InvalidParamsError, ServerError } from "../../src/rpc/errors.js";
import { RawJson } from "../../src/rpc/types.js";
import type { MethodTable, RpcContext } from "../../src/rpc/types.js";
import { settle } from "../helpers/poll.js";
import { MAX_JSON_DEPTH } from "../../src/rpc/constants.js";

const ctx: RpcContext = { transport: "http" };
const notified: unknown[] = [];
/** Entries of the `overlap` method running at once, and the most seen (a batch run one entry at a time never exceeds 1). */
let overlapping = 0;
let maxOverlapping = 0;

const methods: MethodTable = {
  echo: (params) => params[0],
  add: (params) => (params[0] as number) + (params[1] as number),
  none: () => undefined,
  fail: () => {
    throw new ServerError("nonce too low");
  },
  failData: () => {
    throw new ServerError("execution reverted", "0xdeadbeef");
  },
  failBasalt: () => {
    // A coded error no subsystem class claims (as rebuilt from another thread): mapped to -32000.
    throw BasaltError.fromObject({ code: "SOMETHING", message: "typed failure" });
  },
  failPlain: () => {
    throw new Error("boom");
  },
  failParams: () => {
    throw new InvalidParamsError("bad block tag");
  },
  slow: async (params) => {
    await settle(params[0] as number, "the `slow` method takes as long as its caller asks");
    return params[1];
  },
  overlap: async (params) => {
    maxOverlapping = Math.max(maxOverlapping, ++overlapping);
    // Yield to the event loop (not a timer): a concurrent batch starts its other entries meanwhile.
    for (let i = 0; i < (params[0] as number); i++) await new Promise((r) => setImmediate(r));
    overlapping--;
    return params[1];
  },
  raw: () => new RawJson('{"b":1,  "a":[2]}'),
  big: (params) => "x".repeat(params[0] as number),
  notify: (params) => {
    notified.push(params[0]);
    return true;
  },
};

async function call(body: string, opts?: Parameters<typeof handleBody>[3]): Promise<string | null> {
  return handleBody(body, methods, ctx, opts);
}

function req(method: string, params?: unknown, id: unknown = 1): string {
  const o: Record<string, unknown> = { jsonrpc: "2.0", id, method };
  if (params !== undefined) o.params = params;
  return JSON.stringify(o);
}

describe("handleBody: single requests", () => {
  it("answers a call with jsonrpc, id, result in geth's order", async () => {
    expect(await call(req("add", [2, 3]))).toBe('{"jsonrpc":"2.0","id":1,"result":5}');
  });

  it("accepts a Buffer body", async () => {
    expect(await handleBody(Buffer.from(req("echo", ["hi"])), methods, ctx)).toBe('{"jsonrpc":"2.0","id":1,"result":"hi"}');
  });

  it("echoes ids exactly: numbers as written, strings, null", async () => {
    const body = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"echo","params":[0]}`;
    for (const id of ["7", "1.0", "1e2", "-0", "18446744073709551617", "0.1000000000000000055511151231257827", '"abc"', '"\\u0041"', "null", "true"]) {
      expect(await call(body(id))).toBe(`{"jsonrpc":"2.0","id":${id},"result":0}`);
    }
  });

  it("takes the last id when the key repeats, and finds escaped keys", async () => {
    expect(await call('{"jsonrpc":"2.0","id":1,"id":"two","method":"echo","params":[1]}')).toBe(
      '{"jsonrpc":"2.0","id":"two","result":1}',
    );
    expect(await call('{"jsonrpc":"2.0","\\u0069d":5.50,"method":"echo","params":[1]}')).toBe(
      '{"jsonrpc":"2.0","id":5.50,"result":1}',
    );
  });

  it("is not confused by an id key nested in params", async () => {
    expect(await call('{"jsonrpc":"2.0","method":"echo","params":[{"id":99}],"id":3}')).toBe(
      '{"jsonrpc":"2.0","id":3,"result":{"id":99}}',
    );
  });

  it("treats missing and null params as []", async () => {
    expect(await call('{"jsonrpc":"2.0","id":1,"method":"echo"}')).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
    expect(await call('{"jsonrpc":"2.0","id":1,"method":"echo","params":null}')).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it("maps undefined results to null", async () => {
    expect(await call(req("none"))).toBe('{"jsonrpc":"2.0","id":1,"result":null}');
  });

  it("splices RawJson verbatim", async () => {
    expect(await call(req("raw"))).toBe('{"jsonrpc":"2.0","id":1,"result":{"b":1,  "a":[2]}}');
  });

  it("awaits async handlers", async () => {
    expect(await call(req("slow", [5, "late"]))).toBe('{"jsonrpc":"2.0","id":1,"result":"late"}');
  });

  it("returns null for a notification but still runs it", async () => {
    expect(await call('{"jsonrpc":"2.0","method":"notify","params":["n1"]}')).toBeNull();
    expect(notified).toContain("n1");
    // failures and unknown methods in notifications are not answered either
    expect(await call('{"jsonrpc":"2.0","method":"fail"}')).toBeNull();
    expect(await call('{"jsonrpc":"2.0","method":"nope"}')).toBeNull();
  });

  it("returns null for an empty body", async () => {
    expect(await call("")).toBeNull();
    expect(await call(" \n")).toBeNull();
  });
});

describe("handleBody: errors", () => {
  it("answers broken JSON with -32700 and id null", async () => {
    const expected = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}';
    expect(await call('{"jsonrpc":"2.0","id":1,')).toBe(expected);
    expect(await call("not json")).toBe(expected);
    expect(await call('[{"jsonrpc":"2.0","id":1,"method":"echo"}')).toBe(expected);
    expect(await call('{"a":"unterminated')).toBe(expected);
  });

  it("rejects deep nesting with -32600 before parsing", async () => {
    const deep = "[".repeat(100_000);
    const out = JSON.parse((await call(deep)) as string);
    expect(out.id).toBeNull();
    expect(out.error.code).toBe(-32600);
    const deepParams = `{"jsonrpc":"2.0","id":1,"method":"echo","params":${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}}`;
    expect(JSON.parse((await call(deepParams)) as string).error.code).toBe(-32600);
  });

  it("accepts nesting up to the limit, and brackets inside strings do not count", async () => {
    const depth = MAX_JSON_DEPTH - 2; // request object + params array
    const nested = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const out = await call(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[${nested}]}`);
    expect(JSON.parse(out as string).result).toEqual(JSON.parse(nested));
    const s = "[".repeat(1000) + '\\"{';
    expect(await call(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["${s}"]}`)).toBe(
      `{"jsonrpc":"2.0","id":1,"result":"${s}"}`,
    );
  });

  it("answers invalid request objects with -32600, keeping a valid id", async () => {
    const inv = (id: string) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,"message":"invalid request"}}`;
    expect(await call('{"jsonrpc":"1.0","id":4,"method":"echo"}')).toBe(inv("4"));
    expect(await call('{"id":4,"method":"echo"}')).toBe(inv("4"));
    expect(await call('{"jsonrpc":"2.0","id":"x","method":5}')).toBe(inv('"x"'));
    expect(await call('{"jsonrpc":"2.0","id":"x","method":""}')).toBe(inv('"x"'));
    expect(await call('{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}')).toBe(inv("null"));
    expect(await call('{"jsonrpc":"2.0","id":[1],"method":"echo"}')).toBe(inv("null"));
    expect(await call("5")).toBe(inv("null"));
    expect(await call('"str"')).toBe(inv("null"));
    expect(await call("null")).toBe(inv("null"));
    // without an id and without a valid version it is not a notification: geth answers it
    expect(await call('{"method":"echo"}')).toBe(inv("null"));
  });

  it("answers an unknown method with -32601", async () => {
    expect(await call(req("nope", [], "q"))).toBe(
      '{"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"the method nope does not exist/is not available"}}',
    );
    // prototype members are not methods
    expect(JSON.parse((await call(req("constructor"))) as string).error.code).toBe(-32601);
    expect(JSON.parse((await call(req("__proto__"))) as string).error.code).toBe(-32601);
  });

  it("answers non-array params with -32602 non-array args (geth)", async () => {
    expect(await call(req("echo", { a: 1 }))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    );
    expect(JSON.parse((await call(req("echo", "str"))) as string).error.code).toBe(-32602);
  });

  it("maps handler errors through toJsonRpcError", async () => {
    expect(await call(req("fail"))).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nonce too low"}}');
    expect(await call(req("failData"))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"execution reverted","data":"0xdeadbeef"}}',
    );
    expect(await call(req("failBasalt"))).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"typed failure"}}');
    expect(await call(req("failPlain"))).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}');
    expect(await call(req("failParams"))).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad block tag"}}');
  });

  it("turns an unserializable result into an error", async () => {
    const out = await handleBody(req("bad"), { bad: () => 1n }, ctx);
    expect(JSON.parse(out as string).error.code).toBe(-32603);
  });
});

describe("handleBody: batches", () => {
  it("answers in request order, skipping notifications, running entries concurrently", async () => {
    const body = `[${req("overlap", [5, "a"], 1)},${req("overlap", [1, "b"], 2)},{"jsonrpc":"2.0","method":"notify","params":["n2"]},${req("add", [1, 1], "three")}]`;
    maxOverlapping = 0;
    const out = await call(body);
    // The first entry (the longer one) was still running when the second started.
    expect(maxOverlapping).toBe(2);
    expect(out).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"result":"b"},{"jsonrpc":"2.0","id":"three","result":2}]',
    );
    expect(notified).toContain("n2");
  });

  it("echoes raw ids per entry and answers invalid entries in place", async () => {
    const out = await call('[{"jsonrpc":"2.0","id":1.0,"method":"echo","params":[1]}, 5, {"jsonrpc":"2.0","id":"x","method":"nope"}, {"jsonrpc":"2.0","id":2e0,"method":"fail"}]');
    expect(out).toBe(
      "[" +
        '{"jsonrpc":"2.0","id":1.0,"result":1},' +
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},' +
        '{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"the method nope does not exist/is not available"}},' +
        '{"jsonrpc":"2.0","id":2e0,"error":{"code":-32000,"message":"nonce too low"}}' +
        "]",
    );
  });

  it("returns null for a batch of notifications only", async () => {
    expect(await call('[{"jsonrpc":"2.0","method":"notify","params":["n3"]},{"jsonrpc":"2.0","method":"echo"}]')).toBeNull();
    expect(notified).toContain("n3");
  });

  it("answers an empty batch with one error object", async () => {
    expect(await call("[]")).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
    expect(await call(" [ ] ")).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
  });

  it("answers a batch over the limit with one error carrying the first call's id", async () => {
    const body = `[{"jsonrpc":"2.0","method":"notify","params":["n4"]},${req("echo", [1], 77)},${req("echo", [2], 78)}]`;
    expect(await call(body, { maxBatch: 2 })).toBe(
      '[{"jsonrpc":"2.0","id":77,"error":{"code":-32600,"message":"batch too large"}}]',
    );
    expect(notified).not.toContain("n4");
    expect(await call(`[${Array.from({ length: 1001 }, (_, i) => req("echo", [i], i)).join(",")}]`)).toBe(
      '[{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"batch too large"}}]',
    );
    expect(JSON.parse((await call(`[${Array.from({ length: 1000 }, (_, i) => req("echo", [i], i)).join(",")}]`)) as string)).toHaveLength(1000);
  });

  it("answers entries after the response size limit with -32003", async () => {
    const body = `[${req("big", [60], 1)},${req("big", [60], 2)},${req("fail", [], 3)},{"jsonrpc":"2.0","method":"notify","params":["n5"]},${req("big", [1], 4)}]`;
    const out = JSON.parse((await call(body, { maxBatchResponseBytes: 100 })) as string) as Array<Record<string, unknown>>;
    expect(out.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(out[0]?.result).toBe("x".repeat(60));
    // the entry that crosses the limit is kept (geth)
    expect(out[1]?.result).toBe("x".repeat(60));
    expect(out[2]?.error).toEqual({ code: -32003, message: "response too large" });
    expect(out[3]?.error).toEqual({ code: -32003, message: "response too large" });
  });
});

describe("handleBody: metrics", () => {
  it("counts requests and errors per method", async () => {
    await call(req("add", [1, 2]));
    await call(req("fail"));
    const requests = await register.getSingleMetric("basalt_rpc_requests_total")?.get();
    const addCount = requests?.values.find((v) => v.labels.method === "add" && v.labels.transport === "http");
    expect(addCount?.value).toBeGreaterThan(0);
    const errors = await register.getSingleMetric("basalt_rpc_errors_total")?.get();
    const failCount = errors?.values.find((v) => v.labels.method === "fail" && v.labels.code === "-32000");
    expect(failCount?.value).toBeGreaterThan(0);
    const unknown = requests?.values.find((v) => v.labels.method === "unknown");
    expect(unknown?.value).toBeGreaterThan(0);
    expect(await register.getSingleMetric("basalt_rpc_batch_requests")?.get()).toBeDefined();
    expect(await register.getSingleMetric("basalt_rpc_request_duration_seconds")?.get()).toBeDefined();
  });
});
