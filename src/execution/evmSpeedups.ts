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
