import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/rpc.js";
import { compareResponse, compareResponseText, diffJson, redactErrorMessages } from "./compare.js";
import { IoParseError, lexicalCompare, listSuiteMethods, loadIoFile, loadSuiteTests, parseIoFile } from "./ioFile.js";
import { suiteDir } from "./suite.js";

const PRAGUE = suiteDir("prague");
const OSAKA = suiteDir("osaka");

describe(".io parser", () => {
  it("parses a real single-pair file", () => {
    const t = loadIoFile(path.join(PRAGUE, "eth_chainId", "get-chain-id.io"));
    expect(t.name).toBe("eth_chainId/get-chain-id");
    expect(t.method).toBe("eth_chainId");
    expect(t.speconly).toBe(false);
    expect(t.description.length).toBeGreaterThan(0);
    expect(t.pairs).toHaveLength(1);
    expect(t.pairs[0]!.request).toBe('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    expect(t.pairs[0]!.expected).toEqual({ jsonrpc: "2.0", id: 1, result: "0xc72dd9d5e883e" });
  });

  it("parses a real speconly multi-pair file and keeps request text verbatim", () => {
    const t = loadIoFile(path.join(PRAGUE, "eth_estimateGas", "estimate-with-eip7702.io"));
    expect(t.speconly).toBe(true);
    expect(t.description).toBe(
      "checks that including an EIP-7720 authorization in the message increases gas\n" +
        "speconly: client response is only checked for schema validity.",
    );
    expect(t.pairs).toHaveLength(2);
    expect(t.pairs[1]!.request.startsWith('{"jsonrpc":"2.0","id":2,"method":"eth_estimateGas","params":[{"authorizationList"')).toBe(true);
    expect(t.pairs[1]!.expected).toEqual({ jsonrpc: "2.0", id: 2, result: "0xb52e" });
  });

  it("parses a real error-response file", () => {
    const t = loadIoFile(path.join(PRAGUE, "eth_getStorageAt", "get-storage-invalid-key-too-large.io"));
    expect(t.pairs[0]!.expected).toMatchObject({ error: { code: -32602 } });
  });

  it("synthetic: speconly, comments after requests ignored, whitespace, CRLF, no space after >>", () => {
    const text = [
      "  // first line  ",
      "//speconly: only schema",
      "",
      '>>{"jsonrpc":"2.0","id":1,"method":"a"}   ',
      "// ignored: speconly: not in header",
      '  << {"jsonrpc":"2.0","id":1,"result":"0x1"}',
      '>> {"jsonrpc":"2.0","id":2,"method":"b"}\r',
      '<<   {"jsonrpc":"2.0","id":2,"result":null}',
      "",
    ].join("\r\n");
    const t = parseIoFile(text, "m/x");
    expect(t.method).toBe("m");
    expect(t.speconly).toBe(true);
    expect(t.description).toBe("first line\nspeconly: only schema");
    expect(t.pairs.map((p) => p.request)).toEqual(['{"jsonrpc":"2.0","id":1,"method":"a"}', '{"jsonrpc":"2.0","id":2,"method":"b"}']);
    expect(t.pairs.map((p) => p.expected)).toEqual([
      { jsonrpc: "2.0", id: 1, result: "0x1" },
      { jsonrpc: "2.0", id: 2, result: null },
    ]);
    expect(t.pairs.map((p) => p.line)).toEqual([4, 7]);
  });

  it("speconly only counts in the header", () => {
    const t = parseIoFile('// desc\n>> {"id":1}\n// speconly: late\n<< {"id":1}\n', "m/x");
    expect(t.speconly).toBe(false);
    expect(t.description).toBe("desc");
  });

  it("rejects malformed files", () => {
    const bad: [string, RegExp][] = [
      ['garbage\n>> {"id":1}\n<< {}', /invalid test line/],
      ['>> {"id":1\n<< {}', /invalid JSON/],
      ['<< {"id":1}', /response before request/],
      ['>> {"id":1}\n>> {"id":2}\n<< {}', /has no response/],
      ['>> {"id":1}\n<< {}\n>> {"id":2}', /unhandled request/],
      ["// only a comment", /no request/],
      ['# hash comment\n>> {}\n<< {}', /invalid test line/],
    ];
    for (const [text, re] of bad) {
      expect(() => parseIoFile(text, "m/bad")).toThrow(IoParseError);
      expect(() => parseIoFile(text, "m/bad")).toThrow(re);
    }
  });

  it("loads both vendored suites completely, in lexical order", () => {
    for (const [dir, count, speconly] of [
      [PRAGUE, 226, 22],
      [OSAKA, 232, 22],
    ] as const) {
      const tests = loadSuiteTests(dir);
      expect(tests).toHaveLength(count);
      expect(tests.filter((t) => t.speconly)).toHaveLength(speconly);
      // hive (filepath.Walk) sorts directory entries by file name, ".io" included: "a-b.io" < "a.io"
      const keys = tests.map((t) => [t.method, path.basename(t.file ?? "")] as const);
      const sorted = [...keys].sort((a, b) => lexicalCompare(a[0], b[0]) || lexicalCompare(a[1], b[1]));
      expect(keys).toEqual(sorted);
      expect(tests.filter((t) => t.pairs.length > 1).length).toBe(4);
      expect(listSuiteMethods(dir)).toContain("eth_getBlockByNumber");
      expect(listSuiteMethods(dir)).not.toContain("chain.rlp");
    }
  });

  it("orders files like filepath.Walk (by file name including .io)", () => {
    const names = loadSuiteTests(PRAGUE, /^eth_simulateV1\/ethSimulate-simple/).map((t) => t.name);
    expect(names.indexOf("eth_simulateV1/ethSimulate-simple-send-from-contract")).toBeGreaterThanOrEqual(0);
    expect(names.indexOf("eth_simulateV1/ethSimulate-simple-send-from-contract")).toBeLessThan(names.indexOf("eth_simulateV1/ethSimulate-simple"));
  });

  it("applies a name filter", () => {
    const tests = loadSuiteTests(PRAGUE, /^eth_getBalance\//);
    expect(tests.length).toBe(3);
    expect(tests.every((t) => t.method === "eth_getBalance")).toBe(true);
  });
});

describe("response comparator", () => {
  const expected: Json = { jsonrpc: "2.0", id: 1, result: { a: "0x1", b: [1, 2, { c: null }] } };

  it("ignores key order and whitespace", () => {
    expect(compareResponseText(' {"result":{"b":[1,2,{"c":null}],"a":"0x1"},"id":1,"jsonrpc":"2.0"}\n', expected)).toEqual({
      ok: true,
      redacted: false,
    });
  });

  it("compares numbers numerically and hex strings as strings", () => {
    expect(compareResponseText('{"id":1.0,"v":1e2}', { id: 1, v: 100 }).ok).toBe(true);
    const r = compareResponse({ result: "0x01" }, { result: "0x1" });
    expect(r.ok).toBe(false);
    expect(r.diff).toBe('$.result: expected "0x1", got "0x01"');
    expect(compareResponse({ result: 1 }, { result: "0x1" }).diff).toBe('$.result: expected string "0x1", got number 1');
  });

  it("fails on extra, missing and null-vs-absent fields with a path", () => {
    const extra = compareResponse({ jsonrpc: "2.0", id: 1, result: { a: "0x1", b: [1, 2, { c: null }], l1Fee: "0x5" } }, expected);
    expect(extra.ok).toBe(false);
    expect(extra.diff).toBe('$.result.l1Fee: unexpected field (got "0x5")');
    const missing = compareResponse({ jsonrpc: "2.0", id: 1, result: { a: "0x1", b: [1, 2, {}] } }, expected);
    expect(missing.diff).toBe("$.result.b[2].c: missing field (expected null)");
  });

  it("reports array length and first differing element", () => {
    const d = diffJson([1, 2, 3], [1, 5]);
    expect(d).toEqual(["$: array length 3, expected 2", "$[1]: expected 5, got 2"]);
  });

  it("reports a type mismatch", () => {
    expect(compareResponse({ result: null }, { result: { a: 1 } }).diff).toBe('$.result: expected object {"a":1}, got null null');
  });

  it("deletes error.message when both sides have an error, still comparing code and data", () => {
    const want: Json = { jsonrpc: "2.0", id: 1, error: { code: 3, message: "execution reverted", data: "0x01" } };
    const ok = compareResponse({ jsonrpc: "2.0", id: 1, error: { code: 3, message: "reverted!", data: "0x01" } }, want);
    expect(ok).toEqual({ ok: true, redacted: true });
    const badCode = compareResponse({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "execution reverted", data: "0x01" } }, want);
    expect(badCode.ok).toBe(false);
    expect(badCode.diff).toContain("$.error.code: expected 3, got -32000");
    expect(badCode.diff).toContain("error messages removed");
    const badData = compareResponse({ jsonrpc: "2.0", id: 1, error: { code: 3, message: "x", data: "0x02" } }, want);
    expect(badData.diff?.split("\n")[0]).toBe('$.error.data: expected "0x01", got "0x02"');
    const noData = compareResponse({ jsonrpc: "2.0", id: 1, error: { code: 3, message: "x" } }, want);
    expect(noData.ok).toBe(false);
  });

  it("keeps the message when only one side has it, and fails result vs error", () => {
    expect(compareResponse({ error: { code: 1 } }, { error: { code: 1, message: "m" } }).ok).toBe(false);
    expect(compareResponse({ error: { code: 1, message: "m" } }, { error: { code: 1 } }).ok).toBe(false);
    const r = compareResponse({ jsonrpc: "2.0", id: 1, result: "0x1" }, { jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } });
    expect(r.ok).toBe(false);
    expect(r.diff).toContain("$.error: missing field");
    expect(r.diff).toContain("$.result: unexpected field");
  });

  it("redacts nested error messages (eth_simulateV1 calls[].error) but not inside an error", () => {
    const a: Json = { result: [{ calls: [{ error: { code: -32000, message: "client" } }, { error: { code: 3, message: "x", data: { error: { message: "inner-a" } } } }] }] };
    const e: Json = { result: [{ calls: [{ error: { code: -32000, message: "spec" } }, { error: { code: 3, message: "y", data: { error: { message: "inner-b" } } } }] }] };
    const red = redactErrorMessages(a, e);
    expect(red.redacted).toBe(true);
    expect(red.actual).toEqual({ result: [{ calls: [{ error: { code: -32000 } }, { error: { code: 3, data: { error: { message: "inner-a" } } } }] }] });
    // inputs are not mutated
    expect((a as { result: { calls: { error: { message?: string } }[] }[] }).result[0]!.calls[0]!.error.message).toBe("client");
    const r = compareResponse(a, e);
    expect(r.ok).toBe(false);
    expect(r.diff?.split("\n")[0]).toBe('$.result[0].calls[1].error.data.error.message: expected "inner-b", got "inner-a"');
    expect(compareResponse({ result: { calls: [{ error: { code: 1, message: "a" } }] } }, { result: { calls: [{ error: { code: 1, message: "b" } }] } }).ok).toBe(
      true,
    );
  });

  it("speconly: any non-null result of the recorded type passes", () => {
    const want: Json = { jsonrpc: "2.0", id: 1, result: { head: { number: "0x2d" } } };
    expect(compareResponse({ jsonrpc: "2.0", id: 1, result: { totally: "different" } }, want, { speconly: true }).ok).toBe(true);
    expect(compareResponse({ jsonrpc: "2.0", id: 1, result: "0x1" }, want, { speconly: true }).ok).toBe(false);
    expect(compareResponse({ jsonrpc: "2.0", id: 1, result: null }, want, { speconly: true }).ok).toBe(false);
    expect(compareResponse({ jsonrpc: "2.0", id: 1 }, want, { speconly: true }).ok).toBe(false);
    expect(compareResponse({ jsonrpc: "2.0", id: 1, result: "0x5208" }, { jsonrpc: "2.0", id: 1, result: "0xb52e" }, { speconly: true }).ok).toBe(true);
  });

  it("speconly: an error response is diffed exactly (message still redacted)", () => {
    const want: Json = { jsonrpc: "2.0", id: 1, result: "0x5208" };
    const r = compareResponse({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "gas required exceeds allowance" } }, want, { speconly: true });
    expect(r.ok).toBe(false);
    const wantErr: Json = { jsonrpc: "2.0", id: 1, error: { code: 3, message: "execution reverted", data: "0x01" } };
    expect(compareResponse({ jsonrpc: "2.0", id: 1, error: { code: 3, message: "other", data: "0x01" } }, wantErr, { speconly: true }).ok).toBe(true);
    expect(compareResponse({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "x", data: "0x01" } }, wantErr, { speconly: true }).ok).toBe(false);
  });

  it("invalid JSON bodies fail", () => {
    const r = compareResponseText("<html>502</html>", { result: "0x1" });
    expect(r.ok).toBe(false);
    expect(r.diff).toMatch(/not valid JSON/);
    expect(compareResponseText("", { result: "0x1" }).ok).toBe(false);
  });

  it("real fixture: an error expectation matches a reworded error with the same code", () => {
    const t = loadIoFile(path.join(PRAGUE, "eth_getStorageAt", "get-storage-invalid-key-too-large.io"));
    const want = t.pairs[0]!.expected;
    expect(compareResponseText('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad key"}}', want).ok).toBe(true);
    expect(compareResponseText('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad key"}}', want).ok).toBe(false);
  });
});
