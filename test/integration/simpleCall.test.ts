/**
 * The envelope's fast read of the usual single call (parseSimpleCall): whatever it accepts, it
 * reads exactly as JSON.parse and the general scan do (method, params value for value, the id's
 * raw text), and the answer is byte for byte the general path's; everything else is left to the
 * general path. Checked on generated requests (fast-check) — member order, whitespace, ids of
 * every kind, params of plain values — and on near misses that must fall back.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { handleBody, parseSimpleCall } from "../../src/rpc/envelope.js";
import type { MethodTable, RpcContext } from "../../src/rpc/types.js";

const ctx: RpcContext = { transport: "http" };
const methods: MethodTable = {
  echo: (params) => params,
  eth_getBlockByNumber: (params) => ({ got: params }),
};

/** Deep equality that tells -0 from 0 (Object.is on leaves). */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  return Object.is(a, b);
}

/** The general path's answer to `text` as a single call: through a one-element batch, which never takes the fast read. */
async function generalAnswer(text: string): Promise<string | null> {
  const batch = await handleBody(`[${text}]`, methods, ctx);
  return batch === null ? null : batch.slice(1, -1);
}

const ws = fc.constantFrom("", " ", "\n", "\t", "\r\n", "  ");
/** Strings JSON writes without an escape (no quote, backslash, control character or lone surrogate). */
const plainString = fc
  .oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.string({ unit: fc.constantFrom("a", "0", " ", "é", "✓", "\u2028", "😀", "/", "'", "}", "]", ",", ":"), maxLength: 8 }))
  .filter((s) => !JSON.stringify(s).includes("\\"));
const number = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom("-0", "0.0", "1e2", "1E+2", "1.5e-7", "18446744073709551617", "1e400", "-1e-400", "0.1000000000000000055511151231257827"),
);
const simple = fc.oneof(plainString.map((s) => JSON.stringify(s)), number, fc.constantFrom("true", "false", "null"));
const params = fc.oneof(fc.constant("null"), fc.tuple(fc.array(fc.tuple(ws, simple, ws), { maxLength: 4 }), ws).map(([xs, w]) => `[${w}${xs.map(([a, v, b]) => a + v + b).join(",")}]`));

/** A valid single call: the four members in any order, any whitespace, params sometimes left out. */
const call = fc
  .record({
    id: simple,
    method: fc.constantFrom("echo", "eth_getBlockByNumber", "nope", "x"),
    params: fc.option(params, { nil: undefined }),
    order: fc.constantFrom([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]),
    w: fc.array(ws, { minLength: 10, maxLength: 10 }),
  })
  .map(({ id, method, params: p, order, w }) => {
    const members = [`"jsonrpc"${w[0]}:${w[1]}"2.0"`, `"id"${w[2]}:${w[3]}${id}`, `"method":${w[4]}"${method}"`, p === undefined ? "" : `"params"${w[5]}:${p}`];
    const body = order.map((k) => members[k]!).filter((m) => m !== "").map((m, i) => `${w[6 + (i % 3)]}${m}`).join(",");
    return `${w[9]}{${body}}${w[9]}`;
  });

describe("fast read of single calls", () => {
  it("reads generated calls exactly as JSON.parse and answers them as the general path does", async () => {
    await fc.assert(
      fc.asyncProperty(call, async (text) => {
        const fast = parseSimpleCall(text);
        expect(fast).toBeDefined();
        const parsed = JSON.parse(text) as { id: unknown; method: string; params?: unknown };
        expect(fast!.method).toBe(parsed.method);
        expect(same(fast!.params, parsed.params)).toBe(true);
        expect(same(JSON.parse(fast!.id), parsed.id)).toBe(true);
        expect(await handleBody(text, methods, ctx)).toBe(await generalAnswer(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves everything else to the general path, with the same answers", async () => {
    const misses = [
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[1],"extra":2}',
      '{"jsonrpc":"2.0","id":1,"id":2,"method":"echo"}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","method":"echo"}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[],"params":[1]}',
      '{"jsonrpc":"2.0","id":"a\\"b","method":"echo"}',
      '{"jsonrpc":"2.0","id":1,"method":"ec\\u0068o"}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":["\\n"]}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[[1]]}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[{"a":1}]}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}',
      '{"jsonrpc":"2.0","id":{},"method":"echo"}',
      '{"jsonrpc":"2.0","method":"echo","params":[1]}',
      '{"jsonrpc":"1.0","id":1,"method":"echo"}',
      '{"jsonrpc":2.0,"id":1,"method":"echo"}',
      '{"jsonrpc":"2.0","id":1,"method":""}',
      '{"jsonrpc":"2.0","id":1,"method":7}',
      '{"jsonrpc":"2.0","id":01,"method":"echo"}',
      '{"jsonrpc":"2.0","id":1.,"method":"echo"}',
      '{"jsonrpc":"2.0","id":+1,"method":"echo"}',
      '{"jsonrpc":"2.0","id":1,"method":"echo",}',
      '{"jsonrpc":"2.0","id":1,"method":"echo"} x',
      '{"jsonrpc":"2.0","id":1,"method":"echo"',
      '{"jsonrpc":"2.0","id":tru,"method":"echo"}',
      '{"jsonrpc":"2.0","id":truex,"method":"echo"}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,]}',
      '{"jsonrpc":"2.0","id":1,"method":"echo","params":[1 2]}',
      '{"jsonrpc":"2.0","id":1,"method":"ec\tho"}',
      '\ufeff{"jsonrpc":"2.0","id":1,"method":"echo"}',
      '[{"jsonrpc":"2.0","id":1,"method":"echo"}]',
      "{}",
      "",
    ];
    for (const text of misses) {
      expect(parseSimpleCall(text), text).toBeUndefined();
    }
    // Single answers of near misses are still the general path's.
    expect(await handleBody(misses[0]!, methods, ctx)).toBe('{"jsonrpc":"2.0","id":1,"result":[1]}');
    expect(await handleBody(misses[1]!, methods, ctx)).toBe('{"jsonrpc":"2.0","id":2,"result":[]}');
    expect(await handleBody(misses[4]!, methods, ctx)).toBe('{"jsonrpc":"2.0","id":"a\\"b","result":[]}');
    expect(await handleBody(misses[16]!, methods, ctx)).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  });
});
