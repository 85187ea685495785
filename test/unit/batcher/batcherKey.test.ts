/**
 * The batcher key (src/batcher/batcherKey.ts): `--batcher.key` parsed (missing, malformed), and
 * its address checked against the rollup's batcher — refused when it is not the system config's
 * current batcher, a warning when only the genesis batcher differs (rotated on L1).
 */
import { hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { batcherAddressOf, checkBatcherAddress, parseBatcherKey } from "../../../src/batcher/batcherKey.js";
import { BatcherError, BatcherErrorCode } from "../../../src/batcher/errors.js";

/** anvil's second default account. */
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const ADDRESS = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const OTHER = "0x000000000000000000000000000000000000ba7c";

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(BatcherError);
    return (e as BatcherError).code;
  }
  throw new Error("expected a BatcherError");
}

describe("batcher key", () => {
  it("parses 64 hex digits with or without 0x", () => {
    expect(batcherAddressOf(parseBatcherKey(KEY))).toBe(ADDRESS);
    expect(batcherAddressOf(parseBatcherKey(KEY.slice(2)))).toBe(ADDRESS);
    expect(parseBatcherKey(` ${KEY} `)).toEqual(hexToBytes(KEY));
  });

  it("refuses a missing or malformed key", () => {
    expect(codeOf(() => parseBatcherKey(undefined))).toBe(BatcherErrorCode.KEY_MISSING);
    expect(codeOf(() => parseBatcherKey(""))).toBe(BatcherErrorCode.KEY_MISSING);
    expect(codeOf(() => parseBatcherKey("0x1234"))).toBe(BatcherErrorCode.KEY_INVALID);
    expect(codeOf(() => parseBatcherKey("zz" + KEY.slice(4)))).toBe(BatcherErrorCode.KEY_INVALID);
  });

  it("refuses a key that is not the current batcher's, and warns when only the genesis batcher differs", () => {
    expect(codeOf(() => checkBatcherAddress(ADDRESS, OTHER, ADDRESS))).toBe(BatcherErrorCode.KEY_NOT_BATCHER);
    expect(checkBatcherAddress(ADDRESS, hexToBytes(ADDRESS), ADDRESS)).toEqual({});
    expect(checkBatcherAddress(ADDRESS, ADDRESS.toUpperCase().replace("0X", "0x"), OTHER).warning).toMatch(/not the rollup config's genesis batcher/);
  });
});
