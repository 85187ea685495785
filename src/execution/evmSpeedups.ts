/**
 * Speedups of @ethereumjs 10.1.3, installed once per thread. Two caches it lacks (profile of the
 * kona OP Sepolia blocks: 45 % of execution time was in these two functions):
 *
 * - `Common.isActivatedEIP` scans an array for every opcode executed; it becomes a Set lookup,
 *   rebuilt whenever Common swaps its activated-EIP array (hardfork change).
 * - The interpreter re-analyses the jump destinations of a contract's whole bytecode on every
 *   call frame; the analysis (valid JUMPDESTs, PUSH immediates, opcode table entries) now is
 *   cached per code array and opcode table. Code arrays are immutable and state readers hand
 *   out the same array per code hash (see `stateReader.ts`), so hot contracts are analysed once.
 *
 * - EIP-1153 transient storage keeps far less per TSTORE (leanTransientStorage.ts): a transaction
 *   filling it with a million slots spent more than half of its time in garbage collection.
 *
 * All keep @ethereumjs's results exactly (same inputs → same outputs); the execution-apis, kona and
 * EEST suites run with them. `BASALT_EVM_CACHES=0` leaves @ethereumjs untouched.
 */
import { Common } from "@ethereumjs/common";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { leanTransientStorageMethods } from "./leanTransientStorage.js";

let installed = false;

type Analysis = { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] };

/** Installs the caches (idempotent). */
export async function installEvmCaches(): Promise<void> {
  if (installed || process.env.BASALT_EVM_CACHES === "0") return;
  installed = true;

  const proto = Common.prototype as unknown as { isActivatedEIP(eip: number): boolean };
  proto.isActivatedEIP = function (this: { _activatedEIPsCache: number[]; __eipArr?: number[]; __eipSet?: Set<number> }, eip: number): boolean {
    if (this.__eipArr !== this._activatedEIPsCache) {
      this.__eipArr = this._activatedEIPsCache;
      this.__eipSet = new Set(this._activatedEIPsCache);
    }
    return (this.__eipSet as Set<number>).has(eip);
  };

  // The interpreter and transient storage classes are internal to @ethereumjs/evm: load the same ESM
  // module instances the package's index uses (same file URL), next to the resolved package entry.
  const require = createRequire(import.meta.url);
  const esmDir = path.join(path.dirname(require.resolve("@ethereumjs/evm")), "..", "esm");
  const load = async <M>(file: string): Promise<M | undefined> => {
    try {
      return (await import(pathToFileURL(path.join(esmDir, file)).href)) as M;
    } catch {
      return undefined; // layout changed: run without this speedup
    }
  };

  const ts = (await load<{ TransientStorage?: { prototype: Record<string, unknown> } }>("transientStorage.js"))?.TransientStorage?.prototype;
  if (ts !== undefined && ["get", "put", "commit", "checkpoint", "revert", "toJSON", "clear"].every((m) => typeof ts[m] === "function")) {
    Object.assign(ts, leanTransientStorageMethods);
  }

  const mod = await load<{ Interpreter?: { prototype: Record<string, unknown> } }>("interpreter.js");
  const delta = (await load<{ stackDelta?: Record<number, { intermediates: number }> }>("eof/stackDelta.js"))?.stackDelta;
  if (mod?.Interpreter !== undefined && delta !== undefined) installLeanStepHook(mod.Interpreter.prototype, delta);
  const ip = mod?.Interpreter?.prototype as { _getValidJumpDestinations?: (code: Uint8Array) => Analysis } | undefined;
  const original = ip?._getValidJumpDestinations;
  if (ip === undefined || typeof original !== "function") return;
  const cache = new WeakMap<Uint8Array, { table: unknown; result: Analysis }>();
  ip._getValidJumpDestinations = function (this: { _evm: { _opcodeMap: unknown } }, code: Uint8Array): Analysis {
    const table = this._evm._opcodeMap;
    const hit = cache.get(code);
    if (hit !== undefined && hit.table === table) return hit.result;
    const result = original.call(this, code);
    cache.set(code, { table, result });
    return result;
  };
}

/** The interpreter's fields the step event reads (@ethereumjs/evm 10.1.3 `Interpreter._runStepHook`). */
interface StepHookThis {
  _evm: { DEBUG: boolean; events: { listeners(topic: string): ((data: unknown, resolve?: () => void) => void)[] } };
  _env: { eof?: unknown; depth: number; address: unknown; contract: unknown; codeAddress: unknown };
  _runState: {
    opCode: number;
    programCounter: number;
    gasRefund: bigint;
    code: Uint8Array;
    stack: { getStack(): bigint[]; peek(n: number): bigint[] };
    memory: { _store: Uint8Array; read(offset: number, size: number): Uint8Array };
    stateManager: unknown;
  };
  lookupOpInfo(op: number): { opcodeInfo: { fullName: string; fee: number; isAsync: boolean; code: number } };
}

/**
 * Replaces `_runStepHook` with one emitting the same event synchronously (see the module's
 * comment); EOF code, debug mode and two-argument (callback) listeners keep the original.
 */
function installLeanStepHook(proto: Record<string, unknown>, stackDelta: Record<number, { intermediates: number }>): void {
  const original = proto._runStepHook as ((this: StepHookThis, dynamicFee: bigint, gasLeft: bigint, memorySize: bigint) => Promise<void>) | undefined;
  if (typeof original !== "function" || typeof proto.lookupOpInfo !== "function") return;
  proto._runStepHook = function (this: StepHookThis, dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): Promise<void> | undefined {
    const listeners = this._evm.events.listeners("step");
    let callbacks = this._evm.DEBUG || this._env.eof !== undefined;
    for (let i = 0; i < listeners.length && !callbacks; i++) callbacks = listeners[i]!.length === 2;
    if (callbacks) return original.call(this, dynamicFee, gasLeft, memorySize);
    const rs = this._runState;
    const info = this.lookupOpInfo(rs.opCode).opcodeInfo;
    const pc = rs.programCounter;
    const code = rs.code;
    const words = Number(memorySize);
    const d = stackDelta[info.code];
    const event = {
      pc,
      gasLeft,
      gasRefund: rs.gasRefund,
      opcode: { name: info.fullName, fee: info.fee, dynamicFee, isAsync: info.isAsync, code: info.code },
      stack: rs.stack.getStack(),
      depth: this._env.depth,
      address: this._env.address,
      account: this._env.contract,
      memory: rs.memory._store.subarray(0, words * 32),
      memoryWordCount: memorySize,
      codeAddress: this._env.codeAddress,
      stateManager: rs.stateManager,
      eofSection: undefined,
      immediate: d !== undefined && d.intermediates > 0 ? code.slice(pc + 1, pc + 1 + d.intermediates) : undefined,
      error: undefined as Uint8Array | undefined,
      eofFunctionDepth: undefined,
    };
    if (info.code === 0xfd) {
      // REVERT: the revert data, as the original reads it.
      const [offset, length] = rs.stack.peek(2) as [bigint, bigint];
      event.error = length === 0n ? new Uint8Array(0) : rs.memory.read(Number(offset), Number(length));
    }
    for (const l of listeners) l(event);
    return undefined;
  };
}
