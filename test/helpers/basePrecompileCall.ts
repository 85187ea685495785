/**
 * One Base native precompile call as a test makes it: an environment with overridable defaults,
 * run as an EVM call frame over a {@link MemoryBaseHost} (its state changes kept on success,
 * undone on revert or halt, as the engine does), and assertions on the outcome.
 */
import { expect } from "vitest";
import { OpFork } from "../../src/chain/op/forks.js";
import type { BaseCallEnv } from "../../src/execution/base/context.js";
import { EVM_SCHEDULE, type BaseGasSchedule } from "../../src/execution/base/gas.js";
import { runBasePrecompile, type BasePrecompileHandler, type BasePrecompileOutcome } from "../../src/execution/base/outcome.js";
import type { MemoryBaseHost } from "./baseMemoryHost.js";

/** `0x`-prefixed lower-case hex. */
export const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;

/** A 20-byte address of one repeated byte (`addr(0xa1)` = `0xa1a1…a1`). */
export const addr = (byte: number): Uint8Array => new Uint8Array(20).fill(byte);

/** What a call may override; everything else takes the defaults below. */
export interface CallOpts {
  fork?: OpFork;
  caller?: Uint8Array;
  /** `tx.origin` (default: the caller). */
  origin?: Uint8Array;
  value?: bigint;
  isStatic?: boolean;
  gasLimit?: number;
  schedule?: BaseGasSchedule;
  /** False for DELEGATECALL/CALLCODE. */
  direct?: boolean;
}

/** The call environment at `address`: origin = caller, Base mainnet chain id, Beryl and 10M gas unless overridden. */
export function callEnv(address: Uint8Array, o: CallOpts, defaultCaller: Uint8Array): BaseCallEnv {
  const caller = o.caller ?? defaultCaller;
  return {
    caller,
    address,
    value: o.value ?? 0n,
    isStatic: o.isStatic ?? false,
    gasLimit: o.gasLimit ?? 10_000_000,
    origin: o.origin ?? caller,
    block: { number: 1n, timestamp: 1n, coinbase: addr(0), chainId: 8453n },
    fork: o.fork ?? OpFork.beryl,
  };
}

/** Runs one call frame (EVM prices unless `o.schedule`), keeping its state changes only on success. */
export function runFrame(host: MemoryBaseHost, handler: BasePrecompileHandler, input: Uint8Array, env: BaseCallEnv, o: CallOpts = {}): BasePrecompileOutcome {
  const cp = host.checkpoint();
  const out = runBasePrecompile(handler, input, env, host, o.schedule ?? EVM_SCHEDULE, o.direct ?? true);
  if (out.status === "success") host.commit(cp);
  else host.revert(cp);
  return out;
}

/** Asserts success (with `output` when given) and returns the output. */
export function expectReturn(out: BasePrecompileOutcome, output?: string): Uint8Array {
  expect(out.status, out.status === "revert" ? hex(out.output) : out.status).toBe("success");
  const data = out.status === "success" ? out.output : new Uint8Array();
  if (output !== undefined) expect(hex(data)).toBe(output);
  return data;
}

/** Asserts a revert with exactly `data`. */
export function expectRevertData(out: BasePrecompileOutcome, data: string): void {
  expect(out.status).toBe("revert");
  if (out.status === "revert") expect(hex(out.output)).toBe(data);
}
