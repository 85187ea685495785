/**
 * Two caches @ethereumjs 10.1.3 lacks, installed once per thread (profile of the kona OP
 * Sepolia blocks: 45 % of execution time was in these two functions):
 *
 * - `Common.isActivatedEIP` scans an array for every opcode executed; it becomes a Set lookup,
 *   rebuilt whenever Common swaps its activated-EIP array (hardfork change).
 * - The interpreter re-analyses the jump destinations of a contract's whole bytecode on every
 *   call frame; the analysis (valid JUMPDESTs, PUSH immediates, opcode table entries) now is
 *   cached per code array and opcode table. Code arrays are immutable and state readers hand
 *   out the same array per code hash (see `stateReader.ts`), so hot contracts are analysed once.
 *
 * Both keep @ethereumjs's results exactly (same inputs → same outputs); the execution-apis
 * and kona suites run with them. `BASALT_EVM_CACHES=0` leaves @ethereumjs untouched.
 */
import { Common } from "@ethereumjs/common";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

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

  // The interpreter class is internal to @ethereumjs/evm: load the same ESM module instance the
  // package's index uses (same file URL), next to the resolved package entry.
  const require = createRequire(import.meta.url);
  const cjsEntry = require.resolve("@ethereumjs/evm");
  const esmInterpreter = pathToFileURL(path.join(path.dirname(cjsEntry), "..", "esm", "interpreter.js")).href;
  let mod: { Interpreter?: { prototype: Record<string, unknown> } };
  try {
    mod = (await import(esmInterpreter)) as typeof mod;
  } catch {
    return; // layout changed: run without the analysis cache
  }
  const ip = mod.Interpreter?.prototype as { _getValidJumpDestinations?: (code: Uint8Array) => Analysis } | undefined;
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
