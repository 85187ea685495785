/**
 * eth_simulateV1's request checks and chain plan (src/execution/simulate/request.ts,
 * simulator.ts `planBlocks`), and testing_buildBlockV1's gas-limit steering: geth's limits and
 * error codes (-38020, -38021, -38026, -32602), default numbers and timestamps, gaps filled.
 */
import { describe, expect, it } from "vitest";
import { MAX_SIMULATE_BLOCKS } from "../../../../src/execution/constants.js";
import { parseSimulateRequest } from "../../../../src/rpc/simulateParams.js";
import { planBlocks } from "../../../../src/execution/simulate/simulator.js";
import { toJsonRpcError } from "../../../../src/rpc/errors.js";
import { calcGasLimit } from "../../../../src/rpc/methods/testing.js";

const parseCall = (c: unknown): Record<string, string> => c as Record<string, string>;

function rpcError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return toJsonRpcError(e);
  }
  return undefined;
}

describe("parseSimulateRequest", () => {
  it("reads blocks, calls, overrides and the three flags", () => {
    const r = parseSimulateRequest(
      {
        blockStateCalls: [{ blockOverrides: { number: "0x10" }, stateOverrides: { "0xc000000000000000000000000000000000000000": { balance: "0x1" } }, calls: [{ to: "0x1" }] }, {}],
        traceTransfers: true,
        validation: false,
        returnFullTransactions: true,
      },
      parseCall,
    );
    expect(r.blocks).toHaveLength(2);
    expect(r.blocks[0]!.blockOverrides).toEqual({ number: "0x10" });
    expect(r.blocks[0]!.calls).toEqual([{ to: "0x1" }]);
    expect(r.blocks[1]!.calls).toEqual([]);
    expect([r.traceTransfers, r.validation, r.returnFullTransactions]).toEqual([true, false, true]);
  });

  it("answers geth's errors: empty input (-32602), too many blocks and calls (-38026), bad flags (-32602)", () => {
    expect(rpcError(() => parseSimulateRequest({ blockStateCalls: [] }, parseCall))).toEqual({ code: -32602, message: "empty input" });
    const blocks = Array.from({ length: 1000 }, () => ({}));
    expect(rpcError(() => parseSimulateRequest({ blockStateCalls: blocks }, parseCall))).toEqual({ code: -38026, message: "too many blocks" });
    const calls = Array.from({ length: 5001 }, () => ({}));
    expect(rpcError(() => parseSimulateRequest({ blockStateCalls: [{ calls }] }, parseCall))).toEqual({ code: -38026, message: "too many calls in block: 5001 > 5000" });
    const half = Array.from({ length: 5000 }, () => ({}));
    expect(rpcError(() => parseSimulateRequest({ blockStateCalls: [{ calls: half }, { calls: half }, { calls: [{}] }] }, parseCall))).toEqual({
      code: -38026,
      message: "too many calls: 10001 > 10000",
    });
    expect((rpcError(() => parseSimulateRequest({ blockStateCalls: [{}], validation: "yes" }, parseCall)) as { code: number }).code).toBe(-32602);
    expect((rpcError(() => parseSimulateRequest([], parseCall)) as { code: number }).code).toBe(-32602);
  });
});

describe("planBlocks", () => {
  const base = { number: 100n, timestamp: 1000n };

  it("numbers blocks from the base, 12 s apart, filling gaps with empty blocks", () => {
    const plan = planBlocks(base, [{ calls: [] }, { blockOverrides: { number: "0x67" }, calls: [] }, { blockOverrides: { time: "0x800" }, calls: [] }], MAX_SIMULATE_BLOCKS);
    expect(plan.map((p) => [p.number, p.time])).toEqual([
      [101n, 1012n],
      [102n, 1024n],
      [103n, 1036n],
      [104n, 0x800n],
    ]);
  });

  it("refuses numbers and timestamps out of order, and more than 256 blocks past the base", () => {
    expect(rpcError(() => planBlocks(base, [{ blockOverrides: { number: "0x64" }, calls: [] }], MAX_SIMULATE_BLOCKS))).toEqual({
      code: -38020,
      message: "block numbers must be in order: 100 <= 100",
    });
    expect(rpcError(() => planBlocks(base, [{ blockOverrides: { time: "0x3e8" }, calls: [] }], MAX_SIMULATE_BLOCKS))).toEqual({
      code: -38021,
      message: "block timestamps must be in order: 1000 <= 1000",
    });
    expect(rpcError(() => planBlocks(base, [{ blockOverrides: { number: "0x165" }, calls: [] }], MAX_SIMULATE_BLOCKS))).toEqual({ code: -38026, message: "too many blocks" });
    expect(planBlocks(base, [{ blockOverrides: { number: "0x164" }, calls: [] }], MAX_SIMULATE_BLOCKS)).toHaveLength(256);
  });
});

describe("calcGasLimit (geth CalcGasLimit)", () => {
  it("moves toward the target by at most parent/1024 - 1, never past it", () => {
    expect(calcGasLimit(75_398_208n, 60_000_000n)).toBe(75_324_578n);
    expect(calcGasLimit(30_000_000n, 60_000_000n)).toBe(30_029_295n);
    expect(calcGasLimit(60_000_100n, 60_000_000n)).toBe(60_000_000n);
    expect(calcGasLimit(60_000_000n, 60_000_000n)).toBe(60_000_000n);
    // A target below the minimum (5000) counts as the minimum: the limit rises toward it.
    expect(calcGasLimit(4_000n, 1_000n)).toBe(4_002n);
  });
});
