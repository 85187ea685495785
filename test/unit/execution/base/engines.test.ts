/**
 * Base's native precompiles inside both EVM engines: a probe precompile written on the framework
 * (storage through the metered context, logs, reverts, out of gas, refunds, transient storage,
 * code) is called the ways a transaction can call it — directly, CALL with and without value,
 * STATICCALL, DELEGATECALL, CALLCODE, with the 2,300-gas stipend — and the fast engine must give
 * the reference engine's result to the byte (status, gas, output, logs, state root); the
 * expected EVM semantics (base/base's revm frame) are asserted on top.
 */
import { createTx } from "@ethereumjs/tx";
import { describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import type { BaseCallContext } from "../../../../src/execution/base/context.js";
import { PrecompileRevertError, UnknownSelectorError } from "../../../../src/execution/base/errors.js";
import { CALLDATA_WORD_GAS } from "../../../../src/execution/base/gas.js";
import { DELEGATE_CALL_NOT_ALLOWED } from "../../../../src/execution/base/outcome.js";
import { createBasePrecompiles, type BasePrecompiles } from "../../../../src/execution/base/registry.js";
import { u256Bytes } from "../../../../src/execution/base/slots.js";
import { runFast, runReference, testCommon, type PreAccount, type RunOutcome, type TestEnv } from "../../../helpers/evmRunner.js";

const KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const PROXY = "0x00000000000000000000000000000000000c0de0";
/** A singleton probe (warm from the transaction's start) and a token-form probe (cold). */
const SINGLETON = "0x84530000000000000000000000000000000000aa";
const TOKEN = "0xb2000000000000000000000000000000000000bb";
const ENV: TestEnv = { hardfork: "osaka", coinbase: "0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba", number: 10n, timestamp: 100n, gasLimit: 60_000_000n, baseFee: 7n };
const TOPIC = new Uint8Array(32).fill(0x77);

const hexBytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, "").replace(/\s+/g, ""), "hex"));

/** The probe: its first calldata byte picks what it does. */
function probe(ctx: BaseCallContext, input: Uint8Array): Uint8Array {
  ctx.deductGas(Math.ceil(input.length / 32) * CALLDATA_WORD_GAS);
  const self = ctx.env.address;
  switch (input[0]) {
    case 0x01: {
      const v = ctx.sload(self, 0n) + 1n;
      ctx.sstore(self, 0n, v);
      ctx.emit(self, [TOPIC], u256Bytes(v));
      return u256Bytes(v);
    }
    case 0x02:
      ctx.sstore(self, 1n, 7n);
      ctx.emit(self, [TOPIC], new Uint8Array(0));
      throw new PrecompileRevertError(hexBytes("deadbeef"));
    case 0x03:
      ctx.sstore(self, 1n, 9n);
      for (;;) ctx.deductGas(1000);
    case 0x04:
      ctx.sstore(self, 0n, 0n);
      return new Uint8Array(0);
    case 0x05: {
      const out = new Uint8Array(128);
      out.set(u256Bytes(BigInt(`0x${Buffer.from(ctx.caller).toString("hex")}`)), 0);
      out.set(u256Bytes(ctx.env.value), 32);
      out.set(u256Bytes(ctx.env.isStatic ? 1n : 0n), 64);
      out.set(u256Bytes(BigInt(`0x${Buffer.from(ctx.env.address).toString("hex")}`)), 96);
      return out;
    }
    case 0x06:
      ctx.setCode(self, Uint8Array.of(0xef));
      return new Uint8Array(0);
    case 0x07:
      ctx.tstore(self, 5n, 42n);
      return u256Bytes(ctx.tload(self, 5n));
    case 0x08:
      // Two writes, the second undone by an inner checkpoint (base/base CheckpointGuard).
      ctx.sstore(self, 2n, 1n);
      try {
        ctx.atomically(() => {
          ctx.sstore(self, 3n, 1n);
          throw new PrecompileRevertError(new Uint8Array(0));
        });
      } catch {
        // swallowed: the outer call goes on
      }
      return u256Bytes(ctx.sload(self, 3n));
    default:
      throw new UnknownSelectorError(input.subarray(0, 4));
  }
}

const BASE: BasePrecompiles = createBasePrecompiles(OpFork.cobalt, {
  singletons: new Map([[SINGLETON, probe]]),
  dynamic: (a) => (Buffer.from(a).toString("hex") === TOKEN.slice(2) ? probe : undefined),
  warmSingletons: true,
});

/** A contract that forwards its calldata to `target` with `op` (0xf1 CALL, 0xf2 CALLCODE, 0xf4 DELEGATECALL, 0xfa STATICCALL), stores the success flag at slot 0 and returns the return data. */
function proxyCode(target: string, op: number, value = 0, gas?: number): Uint8Array {
  const gasPush = gas === undefined ? "5a" : `61${gas.toString(16).padStart(4, "0")}`;
  const valuePush = op === 0xf1 || op === 0xf2 ? `60${value.toString(16).padStart(2, "0")}` : "";
  return hexBytes(`365f5f37 5f5f365f ${valuePush} 73${target.slice(2)} ${gasPush} ${op.toString(16)} 5f55 3d5f5f3e 3d5ff3`);
}

async function both(to: string, data: string, pre: [string, PreAccount][] = [], value = 0n, gasLimit = 1_000_000n): Promise<RunOutcome> {
  const state = new Map<string, PreAccount>([[SENDER, { nonce: 0n, balance: 10n ** 22n }], ...pre]);
  const tx = createTx({ type: 2, nonce: 0n, gasLimit, maxFeePerGas: 20n, maxPriorityFeePerGas: 1n, to, value, data, chainId: 1n } as never, {
    common: testCommon(ENV.hardfork),
  }).sign(KEY);
  const fast = await runFast(state, ENV, tx, { base: BASE });
  expect(fast).not.toBe("unsupported");
  const ref = await runReference(state, ENV, tx, { base: BASE });
  expect(fast).toEqual(ref);
  return ref;
}

describe("Base precompiles in both engines", () => {
  it("a transaction to a singleton writes, logs and returns (cold slot: 2,100 + 20,000)", async () => {
    const r = await both(SINGLETON, "0x01");
    expect(r.status).toBe(1);
    expect(r.output).toBe(`0x${"00".repeat(31)}01`);
    expect(r.logs).toContain("0x84530000000000000000000000000000000000aa");
    // intrinsic 21,000 + 16 (one calldata byte) + 6 (one word) + SLOAD 2,100 + SSTORE 20,000 (warm after the read) + LOG1 375+375+8×32.
    expect(r.gasUsed).toBe(21_000n + 16n + 6n + 2100n + 20_000n + 375n + 375n + 256n);
  });

  it("CALL from a contract: the token-form address is cold (2,600), the singleton warm (100)", async () => {
    const cold = await both(PROXY, "0x01", [[PROXY, { code: proxyCode(TOKEN, 0xf1) }]]);
    const warm = await both(PROXY, "0x01", [[PROXY, { code: proxyCode(SINGLETON, 0xf1) }]]);
    expect(cold.status).toBe(1);
    expect(warm.status).toBe(1);
    expect(cold.gasUsed - warm.gasUsed).toBe(2500n);
  });

  it("a revert keeps its data, undoes its writes and logs, and charges only what it used", async () => {
    const r = await both(PROXY, "0x02", [[PROXY, { code: proxyCode(SINGLETON, 0xf1) }]]);
    expect(r.status).toBe(1);
    expect(r.output).toBe("0xdeadbeef");
    expect(r.logs).toBe("[]");
    const top = await both(SINGLETON, "0x02");
    expect(top.status).toBe(0);
    expect(top.output).toBe("0xdeadbeef");
    expect(top.gasUsed).toBeLessThan(100_000n);
  });

  it("out of gas halts with all the call's gas and undoes its writes", async () => {
    const top = await both(SINGLETON, "0x03", [], 0n, 200_000n);
    expect(top.status).toBe(0);
    expect(top.gasUsed).toBe(200_000n);
    const inner = await both(PROXY, "0x03", [[PROXY, { code: proxyCode(SINGLETON, 0xf1) }]], 0n, 200_000n);
    expect(inner.status).toBe(1); // the proxy survives with 1/64 of the gas
  });

  it("clearing a slot refunds (EIP-3529), capped at a fifth of the gas used", async () => {
    const r = await both(SINGLETON, "0x04", [[SINGLETON, { storage: [[new Uint8Array(32), Uint8Array.of(5)]] }]]);
    expect(r.status).toBe(1);
    // 21,000 + 16 + 6 + SSTORE reset 2,900 + cold 2,100, less the refund 4,800 capped at gasUsed/5.
    const used = 21_000n + 16n + 6n + 2900n + 2100n;
    const refund = 4800n < used / 5n ? 4800n : used / 5n;
    expect(r.gasUsed).toBe(used - refund);
  });

  it("DELEGATECALL and CALLCODE revert DelegateCallNotAllowed() at no gas", async () => {
    for (const op of [0xf4, 0xf2]) {
      const r = await both(PROXY, "0x01", [[PROXY, { code: proxyCode(SINGLETON, op) }]]);
      expect(r.status).toBe(1);
      expect(r.output).toBe(`0x${Buffer.from(DELEGATE_CALL_NOT_ALLOWED).toString("hex")}`);
    }
  });

  it("STATICCALL: a write reverts with empty data; reads see the static flag", async () => {
    const write = await both(PROXY, "0x01", [[PROXY, { code: proxyCode(SINGLETON, 0xfa) }]]);
    expect(write.output).toBe("0x");
    const who = await both(PROXY, "0x05", [[PROXY, { code: proxyCode(SINGLETON, 0xfa) }]]);
    expect(who.output.slice(2 + 64 * 2, 2 + 64 * 3)).toBe("00".repeat(31) + "01");
    expect(who.output.slice(2 + 24, 2 + 64)).toBe(PROXY.slice(2));
  });

  it("value sent with a CALL reaches the precompile's account and comes back on revert", async () => {
    const kept = await both(PROXY, "0x05", [[PROXY, { balance: 100n, code: proxyCode(SINGLETON, 0xf1, 9) }]]);
    expect(BigInt(`0x${kept.output.slice(2 + 64, 2 + 128)}`)).toBe(9n);
    const back = await both(PROXY, "0x02", [[PROXY, { balance: 100n, code: proxyCode(SINGLETON, 0xf1, 9) }]]);
    expect(back.output).toBe("0xdeadbeef");
  });

  it("the SSTORE stipend rule: with 2,300 gas or less left a write is out of gas", async () => {
    const r = await both(PROXY, "0x01", [[PROXY, { code: proxyCode(SINGLETON, 0xf1, 0, 4000) }]]);
    expect(r.status).toBe(1);
    expect(r.output).toBe("0x"); // the probe's SLOAD (2,100) leaves < 2,300: its SSTORE halts
  });

  it("code, transient storage, inner checkpoints and unknown selectors behave alike", async () => {
    expect((await both(TOKEN, "0x06")).status).toBe(1);
    expect((await both(SINGLETON, "0x07")).output).toBe(`0x${"00".repeat(31)}2a`);
    expect((await both(SINGLETON, "0x08")).output).toBe(`0x${"00".repeat(32)}`);
    const unknown = await both(SINGLETON, "0xabcdef01");
    expect(unknown.status).toBe(0);
    expect(unknown.output).toBe("0xabcdef01");
  });
});
