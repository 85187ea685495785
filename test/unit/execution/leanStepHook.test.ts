/**
 * The lean `step` event of evmSpeedups.ts (synchronous emit, memory as a view) carries what @ethereumjs's own event carries: the same code run once with a
 * one-argument listener (the lean hook) and once with a two-argument (callback) listener (which
 * keeps @ethereumjs's original hook) gives equal events, opcode by opcode.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import type { createEVM as CreateEVM } from "@ethereumjs/evm";
import { Account, bytesToHex, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { installEvmCaches } from "../../../src/execution/evmSpeedups.js";

/** What a step event says, copied (the lean event's memory is a view the next opcode changes). */
interface SeenStep {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: unknown;
  stack: string[];
  depth: number;
  address: string;
  memory: string;
  memoryWordCount: bigint;
  immediate: string | undefined;
  error: string | undefined;
  lean: boolean;
}

interface StepEvent {
  pc: number;
  gasLeft: bigint;
  gasRefund: bigint;
  opcode: { name: string; fee: number; dynamicFee?: bigint; isAsync: boolean; code: number };
  stack: bigint[];
  depth: number;
  address: { toString(): string };
  memory: Uint8Array;
  memoryWordCount: bigint;
  immediate?: Uint8Array;
  error?: Uint8Array;
}

function seen(e: StepEvent): SeenStep {
  return {
    pc: e.pc,
    gasLeft: e.gasLeft,
    gasRefund: e.gasRefund,
    opcode: { ...e.opcode },
    stack: e.stack.map((v) => v.toString(16)),
    depth: e.depth,
    address: e.address.toString(),
    memory: bytesToHex(e.memory),
    memoryWordCount: e.memoryWordCount,
    immediate: e.immediate === undefined ? undefined : bytesToHex(e.immediate),
    error: e.error === undefined ? undefined : bytesToHex(e.error),
    // The lean event's memory is a view of the interpreter's memory, the original's a copy.
    lean: e.memory.byteOffset !== 0 || e.memory.buffer.byteLength !== e.memory.length,
  };
}

/**
 * MSTORE 0x42 at 0, SSTORE 1 at 1, PUSH2 0x1234, MLOAD 0x20 (memory grows), ADD, MSTORE8 at 0x40,
 * CREATE from the first 0x40 bytes of memory (its code starts with STOP: a frame at depth 1), POP,
 * then REVERT with 0x40 bytes of memory (the event's revert data).
 */
const CODE = hexToBytes("0x6042600052600160015561123460205101604053604060006000f05060406000fd");

/** The package's ESM build, the module instance the speedups patch (vitest may resolve the package's sources instead). */
async function esmCreateEVM(): Promise<typeof CreateEVM> {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve("@ethereumjs/evm")), "..", "esm");
  return ((await import(pathToFileURL(path.join(dir, "index.js")).href)) as { createEVM: typeof CreateEVM }).createEVM;
}

const CONTRACT = createAddressFromString("0x00000000000000000000000000000000000000c0");

async function steps(lean: boolean): Promise<SeenStep[]> {
  await installEvmCaches();
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
  const evm = await (await esmCreateEVM())({ common });
  await evm.stateManager.putAccount(CONTRACT, new Account());
  await evm.stateManager.putCode(CONTRACT, CODE);
  const out: SeenStep[] = [];
  if (lean) evm.events.on("step", (e: StepEvent) => out.push(seen(e)));
  else
    evm.events.on("step", (e: StepEvent, resolve?: () => void) => {
      out.push(seen(e));
      resolve?.();
    });
  await evm.runCall({ to: CONTRACT, gasLimit: 1_000_000n });
  return out;
}

describe("lean step hook", () => {
  it("emits the events @ethereumjs's own hook emits", async () => {
    const lean = await steps(true);
    const original = await steps(false);
    expect(lean.length).toBeGreaterThan(10);
    expect(lean.every((s) => s.lean)).toBe(true);
    expect(original.some((s) => s.lean)).toBe(false);
    const strip = (xs: SeenStep[]): Omit<SeenStep, "lean">[] => xs.map(({ lean: _, ...rest }) => rest);
    expect(strip(lean)).toEqual(strip(original));
    // The run reached the REVERT with its data, and memory grew on the way.
    expect(lean[lean.length - 1]!.opcode).toMatchObject({ name: "REVERT" });
    expect(lean[lean.length - 1]!.error).toMatch(/^0x[0-9a-f]{128}$/);
    expect(lean.some((s) => s.immediate === "0x1234")).toBe(true);
    expect(lean.some((s) => s.depth === 1)).toBe(true); // the CREATE frame
  });
});
