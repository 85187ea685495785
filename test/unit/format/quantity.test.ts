import { describe, expect, it } from "vitest";
import { InvalidParamsError, RpcCode, toJsonRpcError } from "../../../src/rpc/errors.js";
import { toData, toFixedData, toQuantity } from "../../../src/chain/json/index.js";
import { parseAddress, parseData, parseHash, parseQuantity } from "../../../src/rpc/hexParams.js";
import { loadFixtures } from "./chain.js";

function errorOf(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidParamsError);
    return toJsonRpcError(e) as { code: number; message: string };
  }
  throw new Error("did not throw");
}

describe("toQuantity / toData", () => {
  it("encodes minimal hex quantities", () => {
    expect(toQuantity(0)).toBe("0x0");
    expect(toQuantity(0n)).toBe("0x0");
    expect(toQuantity(26)).toBe("0x1a");
    expect(toQuantity(2n ** 256n - 1n)).toBe("0x" + "f".repeat(64));
    expect(() => toQuantity(-1)).toThrow(RangeError);
    expect(() => toQuantity(-1n)).toThrow(RangeError);
    expect(() => toQuantity(1.5)).toThrow(RangeError);
  });

  it("encodes data with two digits per byte", () => {
    expect(toData(new Uint8Array(0))).toBe("0x");
    expect(toData(Uint8Array.of(0, 1, 0xab, 0xff))).toBe("0x0001abff");
    expect(toFixedData(1n, 32)).toBe("0x" + "0".repeat(63) + "1");
    expect(() => toFixedData(256n, 1)).toThrow(RangeError);
  });
});

describe("parseQuantity", () => {
  it("accepts geth quantities", () => {
    expect(parseQuantity("0x0", 0)).toBe(0n);
    expect(parseQuantity("0x1A", 0)).toBe(26n);
    expect(parseQuantity("0X10", 0)).toBe(16n);
    expect(parseQuantity("0xffffffffffffffff", 0)).toBe(2n ** 64n - 1n);
    expect(parseQuantity("0x" + "f".repeat(64), 0, { bits: 256 })).toBe(2n ** 256n - 1n);
  });

  it("rejects with geth's hexutil messages", () => {
    const cases: [unknown, string][] = [
      ["2", "hex string without 0x prefix"],
      ["", "empty hex string"],
      ["0x", 'hex string "0x"'],
      ["0x01", "hex number with leading zero digits"],
      ["0xzz", "invalid hex string"],
      ["0x10000000000000000", "hex number > 64 bits"],
      [5, "json: cannot unmarshal non-string into Go value of type hexutil.Uint64"],
    ];
    for (const [value, reason] of cases) {
      expect(errorOf(() => parseQuantity(value, 0))).toEqual({ code: RpcCode.InvalidParams, message: `invalid argument 0: ${reason}` });
    }
    expect(errorOf(() => parseQuantity("0x1" + "0".repeat(64), 1, { bits: 256 })).message).toBe("invalid argument 1: hex number > 256 bits");
  });
});

describe("parseData / parseHash / parseAddress", () => {
  it("decodes bytes", () => {
    expect(parseData("0x", 0)).toEqual(new Uint8Array(0));
    expect(parseData("", 0)).toEqual(new Uint8Array(0));
    expect(parseData("0xABcd", 0)).toEqual(Uint8Array.of(0xab, 0xcd));
    expect(parseHash("0x" + "11".repeat(32), 0)).toEqual(new Uint8Array(32).fill(0x11));
    expect(parseAddress("0x" + "Aa".repeat(20), 0)).toEqual(new Uint8Array(20).fill(0xaa));
  });

  it("rejects with geth's messages", () => {
    const h = "1".repeat(64);
    expect(errorOf(() => parseHash(h, 0)).message).toBe(
      "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash",
    );
    expect(errorOf(() => parseHash("0x" + "1".repeat(62), 0)).message).toBe("invalid argument 0: hex string has length 62, want 64 for common.Hash");
    expect(errorOf(() => parseHash("0x" + "1".repeat(63), 0)).message).toBe(
      "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash",
    );
    expect(errorOf(() => parseAddress("0x" + "zz".repeat(20), 2)).message).toBe(
      "invalid argument 2: json: cannot unmarshal invalid hex string into Go value of type common.Address",
    );
    expect(errorOf(() => parseAddress("", 0)).message).toBe("invalid argument 0: hex string has length 0, want 40 for common.Address");
    expect(errorOf(() => parseData(null, 0)).message).toBe("invalid argument 0: json: cannot unmarshal non-string into Go value of type hexutil.Bytes");
    expect(errorOf(() => parseData("0x123", 0)).message).toBe(
      "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes",
    );
  });
});

describe("parsers against execution-apis error fixtures", () => {
  it("block numbers without 0x prefix (debug_getRaw*)", () => {
    for (const method of ["debug_getRawBlock", "debug_getRawHeader", "debug_getRawReceipts"]) {
      const ex = loadFixtures(method).flatMap((f) => f.exchanges).find((e) => e.response.error !== undefined)!;
      expect(errorOf(() => parseQuantity(ex.request.params[0], 0))).toEqual(ex.response.error);
    }
  });

  it("hash without 0x prefix (debug_getRawTransaction)", () => {
    const ex = loadFixtures("debug_getRawTransaction").flatMap((f) => f.exchanges).find((e) => e.response.error !== undefined)!;
    expect(errorOf(() => parseHash(ex.request.params[0], 0))).toEqual(ex.response.error);
  });
});
