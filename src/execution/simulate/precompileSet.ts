/**
 * The fast engine's precompile set after state overrides (geth `evm.SetPrecompiles` with the
 * map `StateOverride.Apply` left): precompiles looked up by full address, moved ones at their
 * new address, overridden ones gone. Warming (EIP-2929) keeps the fork's own addresses, as geth
 * warms `ActivePrecompiles(rules)`.
 */
import type { Precompile, PrecompileSet } from "../evm/precompiles/index.js";
import { precompileIndex } from "../evm/interpreter.js";
import { fromHex, to0x } from "../../util/bytes.js";

/**
 * `native` as moved by `active` (address → native address); `native` itself when nothing moved
 * and nothing was removed.
 */
export function movedPrecompileSet(native: PrecompileSet, active: ReadonlyMap<string, string>): PrecompileSet {
  let unchanged = active.size === native.addresses.length;
  if (unchanged) for (const [at, from] of active) if (at !== from) unchanged = false;
  if (unchanged) return native;
  const byAddress = new Map<string, Precompile>();
  for (const [at, from] of active) {
    const p = native.get(precompileIndex(fromHex(from)));
    if (p !== undefined) byAddress.set(at, p);
  }
  return {
    addresses: native.addresses,
    get: (n: number) => {
      const a = new Uint8Array(20);
      a[18] = n >>> 8;
      a[19] = n & 0xff;
      return byAddress.get(to0x(a));
    },
    at: (address: Uint8Array) => byAddress.get(to0x(address)),
  };
}
