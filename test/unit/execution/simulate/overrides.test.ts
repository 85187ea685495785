/**
 * State and block overrides (src/execution/simulate/request.ts, overrides.ts): parsing refuses
 * malformed input with -32602; applying writes balance, nonce, code and storage into the overlay
 * (`state` replaces the storage, `stateDiff` patches it) and moves or removes precompiles with
 * geth's refusals and messages; each typed error answers geth's JSON-RPC code.
 */
import { KECCAK256_RLP } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { SimulateError, SimulateErrorCode } from "../../../../src/execution/simulate/errors.js";
import { applyStateOverrides, nativePrecompiles } from "../../../../src/execution/simulate/overrides.js";
import { parseBlockOverrides, parseStateOverrides } from "../../../../src/rpc/overrideParams.js";
import { OverlayStateManager } from "../../../../src/execution/state/overlayStateManager.js";
import { EmptyStateReader } from "../../../../src/execution/state/stateReader.js";
import { emptyStateTries } from "../../../../src/storage/trie/stateTries.js";
import { toJsonRpcError } from "../../../../src/rpc/errors.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";
import { keccak256 } from "../../../../src/util/keccak.js";

const A = "0xc000000000000000000000000000000000000000";
const B = "0xc100000000000000000000000000000000000000";
const SLOT1 = "0x" + "1".padStart(64, "0");
const SLOT2 = "0x" + "2".padStart(64, "0");
const WORD = (n: number): string => "0x" + n.toString(16).padStart(64, "0");

function emptyOverlay(): OverlayStateManager {
  return new OverlayStateManager(new EmptyStateReader(KECCAK256_RLP), emptyStateTries());
}

function codeOf(e: unknown): string | undefined {
  return e instanceof SimulateError ? e.code : undefined;
}

describe("parseStateOverrides", () => {
  it("normalizes addresses and values to lower-case hex and keeps only given fields", () => {
    const o = parseStateOverrides({ [A.toUpperCase().replace("0X", "0x")]: { balance: "0x3E8", nonce: "0x5", code: "0x60FF", stateDiff: { [SLOT1]: WORD(7) } } }, "argument 2");
    expect(o).toEqual({ [A]: { balance: "0x3e8", nonce: "0x5", code: "0x60ff", stateDiff: { [SLOT1]: WORD(7) } } });
    expect(parseStateOverrides(undefined, "argument 2")).toBeUndefined();
    expect(parseStateOverrides(null, "argument 2")).toBeUndefined();
  });

  it.each([
    ["not an object", [1]],
    ["a bad address", { "0x12": { balance: "0x1" } }],
    ["a balance that is not a quantity", { [A]: { balance: "12" } }],
    ["a nonce above 64 bits", { [A]: { nonce: "0x10000000000000000" } }],
    ["odd-length code", { [A]: { code: "0x123" } }],
    ["a short storage key", { [A]: { state: { "0x01": WORD(1) } } }],
    ["a bad move target", { [A]: { movePrecompileToAddress: "0x01" } }],
  ])("refuses %s with invalid params (-32602)", (_what, value) => {
    let err: unknown;
    try {
      parseStateOverrides(value, "argument 2");
    } catch (e) {
      err = e;
    }
    expect(codeOf(err)).toBe(SimulateErrorCode.INVALID_PARAMS);
    expect(toJsonRpcError(err).code).toBe(-32602);
  });
});

describe("parseBlockOverrides", () => {
  it("takes geth's fields", () => {
    const o = parseBlockOverrides(
      { number: "0x10", time: "0x20", gasLimit: "0x1000", feeRecipient: B, prevRandao: WORD(9), baseFeePerGas: "0x7", blobBaseFee: "0x1", difficulty: "0x0" },
      "argument 3",
    );
    expect(o).toEqual({ number: "0x10", time: "0x20", gasLimit: "0x1000", feeRecipient: B, prevRandao: WORD(9), baseFeePerGas: "0x7", blobBaseFee: "0x1", difficulty: "0x0" });
  });

  it("refuses a malformed field with invalid params", () => {
    expect(() => parseBlockOverrides({ time: "0x10000000000000000" }, "argument 3")).toThrow(/hex number > 64 bits/);
    expect(() => parseBlockOverrides({ feeRecipient: "0x01" }, "argument 3")).toThrow(SimulateError);
    expect(() => parseBlockOverrides({ withdrawals: [{ index: "0x0" }] }, "argument 3")).toThrow(SimulateError);
  });
});

describe("applyStateOverrides", () => {
  it("writes balance, nonce, code and storage; `state` replaces the storage, `stateDiff` patches it", async () => {
    const s = emptyOverlay();
    const before = await s.getStateRoot();
    const pre = nativePrecompiles([1, 2]);
    applyStateOverrides(s, { [A]: { balance: "0x3e8", nonce: "0x2", code: "0x60ff", stateDiff: { [SLOT1]: WORD(1), [SLOT2]: WORD(2) } } }, pre);
    const acc = s.getAccountSync(fromHex(A))!;
    expect(acc.balance).toBe(1000n);
    expect(acc.nonce).toBe(2n);
    expect(to0x(acc.codeHash)).toBe(to0x(keccak256(fromHex("0x60ff"))));
    expect(to0x(s.codeByHash(acc.codeHash)!)).toBe("0x60ff");
    expect(to0x(s.getStorageSync(fromHex(A), fromHex(SLOT2)))).toBe("0x02");
    const withStorage = await s.getStateRoot();
    expect(to0x(withStorage)).not.toBe(to0x(before));

    // `state`: slot 1 rewritten, slot 2 gone; the account fields stay.
    applyStateOverrides(s, { [A]: { state: { [SLOT1]: WORD(5) } } }, pre);
    expect(to0x(s.getStorageSync(fromHex(A), fromHex(SLOT1)))).toBe("0x05");
    expect(s.getStorageSync(fromHex(A), fromHex(SLOT2)).length).toBe(0);
    expect(s.getAccountSync(fromHex(A))!.balance).toBe(1000n);

    // `stateDiff`: slot 2 added, slot 1 kept.
    applyStateOverrides(s, { [A]: { stateDiff: { [SLOT2]: WORD(3) } } }, pre);
    expect(to0x(s.getStorageSync(fromHex(A), fromHex(SLOT1)))).toBe("0x05");
    expect(to0x(s.getStorageSync(fromHex(A), fromHex(SLOT2)))).toBe("0x03");
  });

  it("refuses `state` with `stateDiff` with geth's message (-32000)", () => {
    let err: unknown;
    try {
      applyStateOverrides(emptyOverlay(), { [A]: { state: {}, stateDiff: {} } }, nativePrecompiles([1]));
    } catch (e) {
      err = e;
    }
    expect(codeOf(err)).toBe(SimulateErrorCode.BAD_OVERRIDE);
    expect(toJsonRpcError(err)).toEqual({ code: -32000, message: "account 0xC000000000000000000000000000000000000000 has both 'state' and 'stateDiff'" });
  });

  it("moves a precompile, removes an overridden one, and refuses geth's conflicting moves", () => {
    const ecrecover = "0x0000000000000000000000000000000000000001";
    const sha256 = "0x0000000000000000000000000000000000000002";
    const identity = "0x0000000000000000000000000000000000000004";
    const target = "0x0000000000000000000000000000000000123456";
    const pre = nativePrecompiles([1, 2, 4]);
    applyStateOverrides(emptyOverlay(), { [ecrecover]: { movePrecompileToAddress: target }, [identity]: { code: "0x00" } }, pre);
    expect(pre.get(target)).toBe(ecrecover);
    expect(pre.has(ecrecover)).toBe(false);
    expect(pre.has(identity)).toBe(false);
    expect(pre.get(sha256)).toBe(sha256);

    const refusal = (o: Parameters<typeof applyStateOverrides>[1]): unknown => {
      try {
        applyStateOverrides(emptyOverlay(), o, nativePrecompiles([1, 2]));
      } catch (e) {
        return toJsonRpcError(e);
      }
      return undefined;
    };
    expect(refusal({ [A]: { movePrecompileToAddress: B } })).toEqual({ code: -32000, message: "account 0xC000000000000000000000000000000000000000 is not a precompile" });
    expect(refusal({ [ecrecover]: { movePrecompileToAddress: A }, [A]: { balance: "0x1" } })).toEqual({
      code: -32000,
      message: "account 0xC000000000000000000000000000000000000000 is already overridden",
    });
    expect(refusal({ [ecrecover]: { movePrecompileToAddress: sha256 }, [sha256]: { movePrecompileToAddress: target } })).toEqual({
      code: -32000,
      message: "account 0x0000000000000000000000000000000000000002 is already overridden",
    });
  });
});
