import { fileURLToPath } from "node:url";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RpcCode, toJsonRpcError } from "../../../src/rpc/errors.js";
import { goBytesToString, revertError, unpackRevert } from "../../../src/execution/revert.js";

const DIR = fileURLToPath(new URL("../../../../shared/fixtures/execution-apis/prague", import.meta.url));
if (!existsSync(DIR)) throw new Error(`fixtures missing at ${DIR}`);

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/^0x/, ""), "hex"));

/** ABI-encodes `Error(string)` for a raw byte string. */
function errorData(bytes: Uint8Array, offset = 32n): Uint8Array {
  const word = (v: bigint) => hex(v.toString(16).padStart(64, "0"));
  const padded = new Uint8Array(Math.ceil(bytes.length / 32) * 32);
  padded.set(bytes);
  return Uint8Array.from([...hex("08c379a0"), ...word(offset), ...word(BigInt(bytes.length)), ...padded]);
}

function panicData(code: bigint): Uint8Array {
  return hex("4e487b71" + code.toString(16).padStart(64, "0"));
}

describe("revertError against execution-apis fixtures", () => {
  const files = [
    "eth_call/call-revert-abi-panic.io",
    "eth_call/call-revert-abi-error.io",
    "eth_estimateGas/estimate-call-abi-error.io",
    "eth_estimateGas/estimate-failed-call.io",
  ];
  for (const f of files) {
    it(f, () => {
      const line = readFileSync(`${DIR}/${f}`, "utf8").split("\n").find((l) => l.startsWith("<< "))!;
      const expected = (JSON.parse(line.slice(3)) as { error: { code: number; message: string; data: string } }).error;
      const err = toJsonRpcError(revertError(hex(expected.data)));
      expect(err).toEqual(expected);
      expect(JSON.stringify(err)).toBe(JSON.stringify(expected));
    });
  }
});

describe("revertError", () => {
  it("empty data: -32000 execution reverted without data", () => {
    expect(toJsonRpcError(revertError(new Uint8Array(0)))).toEqual({ code: RpcCode.Server, message: "execution reverted" });
  });

  it("non-ABI data: code 3 with the data and no reason", () => {
    expect(toJsonRpcError(revertError(hex("deadbeef")))).toEqual({ code: 3, message: "execution reverted", data: "0xdeadbeef" });
    expect(toJsonRpcError(revertError(hex("08c379")))).toEqual({ code: 3, message: "execution reverted", data: "0x08c379" });
  });

  it("decodes every panic code geth names, and unknown ones", () => {
    const table: [bigint, string][] = [
      [0x00n, "generic panic"],
      [0x01n, "assert(false)"],
      [0x11n, "arithmetic underflow or overflow"],
      [0x12n, "division or modulo by zero"],
      [0x21n, "enum overflow"],
      [0x22n, "invalid encoded storage byte array accessed"],
      [0x31n, "out-of-bounds array access; popping on an empty array"],
      [0x32n, "out-of-bounds access of an array or bytesN"],
      [0x41n, "out of memory"],
      [0x51n, "uninitialized function"],
      [0x99n, "unknown panic code: 0x99"],
      [2n ** 255n, "unknown panic code: 0x8" + "0".repeat(63)],
    ];
    for (const [code, text] of table) expect(revertError(panicData(code)).message).toBe(`execution reverted: ${text}`);
    // truncated panic: no reason
    expect(unpackRevert(hex("4e487b710000"))).toBeUndefined();
  });

  it("decodes Error(string) with geth's bounds checks", () => {
    expect(unpackRevert(errorData(Buffer.from("")))).toBe("");
    expect(unpackRevert(errorData(Buffer.from("hello")))).toBe("hello");
    expect(unpackRevert(errorData(Buffer.from("x".repeat(100))))).toBe("x".repeat(100));
    // offset past the end / length past the end / no body
    expect(unpackRevert(errorData(Buffer.from("hello"), 4096n))).toBeUndefined();
    const bad = errorData(Buffer.from("hello"));
    bad[4 + 63] = 0xff; // length 255 > available
    expect(unpackRevert(bad)).toBeUndefined();
    expect(unpackRevert(hex("08c379a0"))).toBeUndefined();
    // trailing bytes after the string are ignored
    expect(unpackRevert(Uint8Array.from([...errorData(Buffer.from("ok")), 1, 2, 3]))).toBe("ok");
  });

  it("replaces invalid UTF-8 byte by byte, like Go's JSON encoder", () => {
    expect(goBytesToString(Buffer.from("héllo ✓ 😀", "utf8"))).toBe("héllo ✓ 😀");
    expect(goBytesToString(hex("e282"))).toBe("\ufffd\ufffd");
    expect(goBytesToString(hex("41ff42"))).toBe("A\ufffdB");
    expect(goBytesToString(hex("eda080"))).toBe("\ufffd\ufffd\ufffd"); // surrogate
    expect(goBytesToString(hex("c0af"))).toBe("\ufffd\ufffd"); // overlong
    expect(goBytesToString(hex("f4908080"))).toBe("\ufffd\ufffd\ufffd\ufffd"); // > U+10FFFF
  });
});
