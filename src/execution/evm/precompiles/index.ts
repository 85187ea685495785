/**
 * STOPGAP (replaced by the synchronous precompile set): wraps @ethereumjs's synchronous
 * precompiles; the asynchronous ones (KZG, BLS12-381) throw {@link FastEvmUnsupported} so the
 * transaction goes to the reference engine.
 */
import type { Common } from "@ethereumjs/common";
import { getActivePrecompiles, paramsEVM, type PrecompileFunc } from "@ethereumjs/evm";
import type { OpFork } from "../../../chain/op/forks.js";
import { opPrecompiles } from "../../op/precompiles.js";
import { FastEvmUnsupported, FastEvmUnsupportedCode } from "../errors.js";
import type { Precompile, PrecompileResult } from "./types.js";

export type { Precompile, PrecompileResult } from "./types.js";

/** The precompiles of one fork. */
export interface PrecompileSet {
  get(address: number): Precompile | undefined;
  readonly addresses: readonly number[];
}

const cache = new Map<string, PrecompileSet>();

function wrap(fn: PrecompileFunc, common: Common, address: number): Precompile {
  return (input: Uint8Array, gasLimit: number): PrecompileResult => {
    const r = fn({ data: input, gasLimit: BigInt(gasLimit), common, _EVM: {} as never });
    if (r instanceof Promise) {
      void r.catch(() => undefined);
      throw new FastEvmUnsupported(FastEvmUnsupportedCode.PRECOMPILE, `precompile 0x${address.toString(16)}`);
    }
    if (r.exceptionError !== undefined) return { ok: false, gasUsed: gasLimit, output: new Uint8Array(0) };
    return { ok: true, gasUsed: Number(r.executionGasUsed), output: r.returnValue };
  };
}

/** The precompiles active under `common` (and OP fork `opFork`). */
export function precompilesFor(given: Common, opFork?: OpFork): PrecompileSet {
  const key = `${given.hardfork()}:${opFork ?? "-"}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const common = given.copy();
  common.updateParams(paramsEVM);
  const map = new Map<number, Precompile>();
  for (const [addr, fn] of getActivePrecompiles(common)) {
    const n = parseInt(addr, 16);
    if ([6, 7, 8].includes(n) || n >= 0x0a) {
      map.set(n, () => {
        throw new FastEvmUnsupported(FastEvmUnsupportedCode.PRECOMPILE, `precompile 0x${n.toString(16)}`);
      });
    } else map.set(n, wrap(fn, common, n));
  }
  if (opFork !== undefined) {
    for (const p of opPrecompiles(opFork, common)) {
      const n = parseInt(p.address.toString().slice(2), 16);
      if (n === 0x100) map.set(n, wrap(p.function, common, n));
    }
  }
  const set: PrecompileSet = { get: (a) => map.get(a), addresses: [...map.keys()].sort((a, b) => a - b) };
  cache.set(key, set);
  return set;
}
