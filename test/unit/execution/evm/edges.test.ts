/**
 * Bad input for the fast EVM, each run by both engines and compared: code that loops until the
 * gas runs out, a call chain to the 1024 depth limit (frames are not JS recursion, so no stack
 * overflow), memory expansion far beyond what gas allows, RETURNDATACOPY past the return data,
 * stack overflow, oversized initcode and CREATE2 collisions. Every case ends by gas or an
 * exceptional halt exactly as in the reference engine, never by a JS exception.
 */
import { createTx } from "@ethereumjs/tx";
import { describe, expect, it } from "vitest";
import { runFast, runReference, testCommon, type PreAccount, type TestEnv } from "../../../helpers/evmRunner.js";

const KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const TARGET = "0x00000000000000000000000000000000000c0de0";
const ENV: TestEnv = { hardfork: "prague", coinbase: "0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba", number: 10n, timestamp: 100n, gasLimit: 60_000_000n, baseFee: 7n };

const code = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ""), "hex"));

async function both(target: string, opts: { gas?: bigint; data?: string } = {}): Promise<{ status: number; gasUsed: bigint }> {
  const pre = new Map<string, PreAccount>([
    [SENDER, { nonce: 0n, balance: 10n ** 22n }],
    [TARGET, { code: code(target) }],
  ]);
  const tx = createTx(
    {
      type: 2,
      nonce: 0n,
      gasLimit: opts.gas ?? 30_000_000n,
      maxFeePerGas: 20n,
      maxPriorityFeePerGas: 1n,
      to: TARGET,
      data: opts.data ?? "0x",
      chainId: 1n,
    } as never,
    { common: testCommon(ENV.hardfork) },
  ).sign(KEY);
  const fast = await runFast(pre, ENV, tx);
  expect(fast).not.toBe("unsupported");
  const ref = await runReference(pre, ENV, tx);
  expect(fast).toEqual(ref);
  return ref;
}

describe("fast EVM on bad input, against the reference engine", () => {
  it("an endless loop runs out of gas with all of it used", async () => {
    const r = await both("5b600056"); // JUMPDEST PUSH1 0 JUMP
    expect(r.status).toBe(0);
    expect(r.gasUsed).toBe(30_000_000n);
  });

  it("a self-call chain stops at the 1024 depth limit (no JS stack overflow)", async () => {
    // CALL(gas, ADDRESS, 0, 0, 0, 0, 0) then store the result: recurses until the depth limit or 63/64 gas.
    const r = await both("6000 6000 6000 6000 6000 30 5a f1 6000 55 00", { gas: 30_000_000n });
    expect(r.status).toBe(1);
  }, 120_000);

  it("memory far beyond what gas allows is out of gas, not an allocation", async () => {
    for (const c of [
      "6001 637fffffff 52 00", // MSTORE at 2^31 − 1
      "6001 64ffffffffff 52 00", // MSTORE at 2^40 − 1
      "64ffffffffff 6000 6000 37 00", // CALLDATACOPY of 2^40 − 1 bytes
      "6001 6000 7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff 51 00", // MLOAD at 2^256 − 1
      "64ffffffffff 6000 f3", // RETURN of 2^40 − 1 bytes
    ]) {
      const r = await both(c, { gas: 5_000_000n });
      expect(r.status).toBe(0);
      expect(r.gasUsed).toBe(5_000_000n);
    }
  });

  it("RETURNDATACOPY past the return data halts; within it, copies", async () => {
    const bad = await both("6001 6000 6000 3e 00", { gas: 100_000n });
    expect(bad.status).toBe(0);
    const ok = await both("6000 6000 6000 3e 00", { gas: 100_000n });
    expect(ok.status).toBe(1);
  });

  it("1025 stack items overflow", async () => {
    const r = await both("5f".repeat(1025) + "00", { gas: 100_000n });
    expect(r.status).toBe(0);
  });

  it("oversized initcode of CREATE and CREATE2 collisions fail as in the reference", async () => {
    // CREATE2 twice with the same salt and empty initcode: the second collides.
    await both("6000 6000 6000 6000 f5 50 6000 6000 6000 6000 f5 6000 55 00", { gas: 1_000_000n });
    // CREATE with 49,153 bytes of initcode (EIP-3860): an exceptional halt of the creating frame.
    await both("6000 62 00c001 6000 6000 f0 00", { gas: 5_000_000n });
  });
});
