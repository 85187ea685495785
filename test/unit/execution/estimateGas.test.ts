import { describe, expect, it } from "vitest";
import { RPC_GAS_CAP } from "../../../src/config/constants.js";
import { RpcCode, ServerError, toJsonRpcError } from "../../../src/rpc/errors.js";
import { ExecutionError } from "../../../src/execution/errors.js";
import { capByAllowance, searchGas, TX_GAS, type GasRunResult } from "../../../src/execution/estimateGas.js";

/** Wraps a synchronous model of a call into an executor that counts its runs. */
function executor(model: (gas: bigint) => GasRunResult) {
  const calls: bigint[] = [];
  return {
    calls,
    run: async (gas: bigint): Promise<GasRunResult> => {
      calls.push(gas);
      return model(gas);
    },
  };
}

const oog: GasRunResult = { ok: false, gasUsed: 0n, refund: 0n, error: "out of gas" };

/** A call that needs `need` gas and uses `used` (after a refund of `refund`). */
function needs(need: bigint, used = need, refund = 0n) {
  return (gas: bigint): GasRunResult => (gas >= need ? { ok: true, gasUsed: used, refund } : { ...oog, gasUsed: gas });
}

function expectClose(result: bigint, need: bigint): void {
  expect(result).toBeGreaterThanOrEqual(need);
  expect(Number(result - need) / Number(result)).toBeLessThan(0.015);
}

const HI = 30_000_000n;

describe("searchGas", () => {
  it("returns 21000 for a plain transfer after one run", async () => {
    const ex = executor(needs(21_000n));
    expect(await searchGas({ run: ex.run, hi: HI, isPlainTransfer: true })).toBe(21_000n);
    expect(ex.calls).toEqual([TX_GAS]);
  });

  it("searches when a 'plain' transfer needs more than 21000 (e.g. an access list)", async () => {
    const ex = executor(needs(23_900n));
    const got = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: true });
    expectClose(got, 23_900n);
    expect(ex.calls[0]).toBe(TX_GAS);
  });

  it("ignores executor errors of the 21000 probe, as geth does", async () => {
    let first = true;
    const run = async (gas: bigint): Promise<GasRunResult> => {
      if (first) {
        first = false;
        throw new ServerError("boom");
      }
      return needs(21_000n)(gas);
    };
    // the full search then runs (it does not trust the failed probe)
    expectClose(await searchGas({ run, hi: HI, isPlainTransfer: true }), 21_000n);
  });

  it("finds a call that needs exactly what it uses, within 1.5 %, in few runs", async () => {
    for (const need of [21_001n, 53_000n, 100_000n, 1_234_567n, 9_999_999n]) {
      const ex = executor(needs(need));
      const got = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false });
      expectClose(got, need);
      // hi, optimistic probe, a short bisection
      expect(ex.calls.length).toBeLessThanOrEqual(6);
      expect(ex.calls[0]).toBe(HI);
    }
  });

  it("accounts for refunds: the call needs used + refund", async () => {
    const ex = executor(needs(70_000n, 50_000n, 20_000n));
    const got = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false });
    expectClose(got, 70_000n);
    // the optimistic probe (used + refund + stipend) * 64/63 succeeds at once; lo stays at
    // used - 1, so a short bisection follows
    expect(ex.calls[1]).toBe(((50_000n + 20_000n + 2_300n) * 64n) / 63n);
    expect(ex.calls.length).toBeLessThanOrEqual(8);
  });

  it("handles 63/64 forwarding (needs more than it uses)", async () => {
    // outer frame spends 30k, then a CALL that must receive 200k: needs 30k + 200k * 64/63
    const inner = 200_000n;
    const need = 30_000n + (inner * 64n) / 63n + 1n;
    const ex = executor((gas) => (gas >= need ? { ok: true, gasUsed: 30_000n + inner, refund: 0n } : { ...oog, gasUsed: gas }));
    const got = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false });
    expectClose(got, need);
    expect(ex.calls.length).toBeLessThanOrEqual(4);
  });

  it("handles calls that check gasleft() far above what they use", async () => {
    const ex = executor((gas) => (gas >= 1_000_000n ? { ok: true, gasUsed: 30_000n, refund: 0n } : { ok: false, gasUsed: 30_000n, refund: 0n, revertData: new Uint8Array(0) }));
    const got = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false });
    expectClose(got, 1_000_000n);
    expect(ex.calls.length).toBeLessThanOrEqual(16);
  });

  it("bisects below the optimistic probe when it fails", async () => {
    // needs much more than used + stipend (e.g. a big one-off refund-less check)
    const ex = executor((gas) => (gas >= 80_000n ? { ok: true, gasUsed: 40_000n, refund: 0n } : { ...oog, gasUsed: gas }));
    const got = await searchGas({ run: ex.run, hi: 100_000n, isPlainTransfer: false });
    expectClose(got, 80_000n);
  });

  it("respects a small hi (skips the optimistic probe above it)", async () => {
    const ex = executor(needs(60_000n));
    const got = await searchGas({ run: ex.run, hi: 60_500n, isPlainTransfer: false });
    expect(got).toBe(60_500n); // (60500 - 59999) / 60500 < 1.5 %: done
    expect(ex.calls).toEqual([60_500n]);
  });

  it("throws the revert error when the call always reverts with data", async () => {
    const data = Uint8Array.from(Buffer.from("08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72", "hex"));
    const ex = executor(() => ({ ok: false, gasUsed: 23_000n, refund: 0n, revertData: data }));
    const err = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutionError);
    expect(toJsonRpcError(err)).toEqual({ code: 3, message: "execution reverted: user error", data: "0x" + Buffer.from(data).toString("hex") });
    expect(ex.calls).toEqual([HI]);
  });

  it("throws -32000 execution reverted for a revert without data", async () => {
    const ex = executor(() => ({ ok: false, gasUsed: 23_000n, refund: 0n, revertData: new Uint8Array(0) }));
    const err = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false }).catch((e: unknown) => e);
    expect(toJsonRpcError(err)).toEqual({ code: RpcCode.Server, message: "execution reverted" });
  });

  it("throws the halt reason for non-gas halts", async () => {
    const ex = executor(() => ({ ok: false, gasUsed: HI, refund: 0n, error: "invalid opcode: INVALID" }));
    const err = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false }).catch((e: unknown) => e);
    expect(toJsonRpcError(err)).toEqual({ code: RpcCode.Server, message: "invalid opcode: INVALID" });
  });

  it("throws 'gas required exceeds allowance' when it never succeeds", async () => {
    for (const model of [() => oog, () => ({ ok: false, gasUsed: 0n, refund: 0n })]) {
      const ex = executor(model);
      const err = await searchGas({ run: ex.run, hi: RPC_GAS_CAP, isPlainTransfer: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecutionError);
      expect(toJsonRpcError(err)).toEqual({ code: -32000, message: "gas required exceeds allowance (50000000)" });
      expect(ex.calls).toEqual([RPC_GAS_CAP]);
    }
  });

  it("does not run when hi is below the intrinsic gas", async () => {
    const ex = executor(needs(21_000n));
    const err = await searchGas({ run: ex.run, hi: 20_000n, isPlainTransfer: false, intrinsicGas: 21_000n }).catch((e: unknown) => e);
    expect(toJsonRpcError(err).message).toBe("gas required exceeds allowance (20000)");
    expect(ex.calls).toEqual([]);
  });

  it("propagates executor errors unrelated to gas", async () => {
    const run = async (): Promise<GasRunResult> => {
      throw new ServerError("nonce too low");
    };
    await expect(searchGas({ run, hi: HI, isPlainTransfer: false })).rejects.toThrow("nonce too low");
  });

  it("always returns a limit the executor accepted", async () => {
    // pseudo-random needs/uses; the answer must be a successful run, never above hi
    let seed = 12345;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 200; i++) {
      const used = BigInt(21_000 + rnd(2_000_000));
      const need = used + BigInt(rnd(3) === 0 ? rnd(500_000) : rnd(5_000));
      const refund = BigInt(rnd(2) === 0 ? 0 : rnd(Number(used) / 5));
      const ex = executor((gas) => (gas >= need ? { ok: true, gasUsed: used, refund } : { ...oog, gasUsed: gas }));
      const got = await searchGas({ run: ex.run, hi: HI, isPlainTransfer: false });
      expectClose(got, need);
      expect(ex.calls.length).toBeLessThanOrEqual(20);
    }
  });
});

describe("capByAllowance", () => {
  it("caps hi at (balance - value) / feePerGas", () => {
    expect(capByAllowance(HI, 1_000_000n, 0n, 10n)).toBe(100_000n);
    expect(capByAllowance(HI, 1_000_000n, 500_000n, 10n)).toBe(50_000n);
    expect(capByAllowance(50_000n, 1_000_000n, 0n, 10n)).toBe(50_000n);
    expect(capByAllowance(HI, 1_000_000n, 0n, 10n, 400_000n)).toBe(60_000n);
  });

  it("does nothing for a zero fee", () => {
    expect(capByAllowance(HI, 0n, 5n, 0n)).toBe(HI);
  });

  it("uses geth's error messages", () => {
    expect(() => capByAllowance(HI, 100n, 101n, 1n)).toThrow("insufficient funds for transfer");
    expect(() => capByAllowance(HI, 100n, 100n, 1n)).toThrow("insufficient funds for transfer"); // geth: value >= balance
    expect(() => capByAllowance(HI, 100n, 10n, 1n, 90n)).toThrow("insufficient funds for gas * price + value");
    try {
      capByAllowance(HI, 0n, 1n, 1n);
    } catch (e) {
      expect(toJsonRpcError(e)).toEqual({ code: -32000, message: "insufficient funds for transfer" });
    }
  });
});
