/**
 * eth_sendRawTransactionSync parameter and error details: the timeout parameter (EIP-7966,
 * base/base's limit and message) and reth's timeout message with Rust's Duration formatting.
 */
import { describe, expect, it } from "vitest";
import { SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS } from "../../src/rpc/constants.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { TransactionConfirmationTimeoutError, parseSyncTimeout, rustDurationDebug } from "../../src/rpc/methods/sendSync.js";

describe("eth_sendRawTransactionSync timeout parameter", () => {
  it("defaults to the maximum when omitted, null or 0", () => {
    for (const v of [undefined, null, 0, "0x0"]) expect(parseSyncTimeout(v)).toBe(SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS);
  });

  it("accepts a JSON number or a hex quantity up to the maximum", () => {
    expect(parseSyncTimeout(250)).toBe(250);
    expect(parseSyncTimeout("0xfa")).toBe(250);
    expect(parseSyncTimeout(SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS)).toBe(SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS);
  });

  it("refuses more than the maximum with base/base's message", () => {
    expect(toJsonRpcError(catchErr(() => parseSyncTimeout(60_000)))).toEqual({
      code: -32602,
      message: "time out too long, timeout: 60000 ms, max: 6000 ms",
    });
  });

  it("refuses malformed values as invalid params", () => {
    for (const v of [-1, 1.5, "250", true]) expect(toJsonRpcError(catchErr(() => parseSyncTimeout(v))).code).toBe(-32602);
  });
});

describe("confirmation timeout error", () => {
  it("formats durations as Rust's Duration Debug does", () => {
    expect(rustDurationDebug(6000)).toBe("6s");
    expect(rustDurationDebug(1500)).toBe("1.5s");
    expect(rustDurationDebug(1250)).toBe("1.25s");
    expect(rustDurationDebug(1001)).toBe("1.001s");
    expect(rustDurationDebug(999)).toBe("999ms");
    expect(rustDurationDebug(1)).toBe("1ms");
  });

  it("is code 4 with reth's message and the hash as data", () => {
    const hash = "0x" + "ab".repeat(32);
    expect(toJsonRpcError(new TransactionConfirmationTimeoutError(hash, 6000))).toEqual({
      code: 4,
      message: `Transaction ${hash} was added to the mempool but wasn't confirmed within 6s.`,
      data: hash,
    });
  });
});

function catchErr(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("did not throw");
}
