/**
 * A memo for `Common.updateParams` of @ethereumjs 10.1.3, installed at import.
 *
 * Every transaction constructor copies its Common and calls `updateParams(paramsTx)`, which
 * deep-copies the params through JSON and rebuilds the whole parameter cache: 0.25 ms per
 * decoded transaction, a third of the cost of re-executing a flashblock's transfers (profile
 * of `bench/flashblocks.ts`, November 2026). A copy shares its original's parameter cache, so
 * once a cache is known to hold a params dictionary the call changes nothing and is skipped.
 * {@link primeCommon} merges the transaction params into a Common up front, so every
 * transaction decoded with it (and its copies) takes the fast path.
 *
 * Same inputs, same cache contents: only provably redundant rebuilds are skipped.
 * `BASALT_EVM_CACHES=0` leaves @ethereumjs untouched, like `evmSpeedups.ts`.
 */
import { Common } from "@ethereumjs/common";
import { paramsTx } from "@ethereumjs/tx";

type Params = Record<string, unknown>;
interface CommonInternals {
  _params: Params;
  _paramsCache: Params;
  updateParams(params: Params): void;
  _buildParamsCache(): void;
}

/** Params dictionaries merged into each `_params` object (shared by a Common and its copies). */
const mergedInto = new WeakMap<Params, Set<Params>>();
/** Params dictionaries each parameter cache was built with. */
const builtWith = new WeakMap<Params, Set<Params>>();

const enabled = process.env.BASALT_EVM_CACHES !== "0";
if (enabled) {
  const proto = Common.prototype as unknown as CommonInternals;
  const update = proto.updateParams;
  const build = proto._buildParamsCache;
  proto._buildParamsCache = function (this: CommonInternals): void {
    build.call(this);
    // Built from `_params`, the cache holds everything merged into it so far.
    builtWith.set(this._paramsCache, new Set(mergedInto.get(this._params)));
  };
  proto.updateParams = function (this: CommonInternals, params: Params): void {
    if (builtWith.get(this._paramsCache)?.has(params) === true) return;
    let merged = mergedInto.get(this._params);
    if (merged === undefined) mergedInto.set(this._params, (merged = new Set()));
    merged.add(params);
    update.call(this, params);
  };
}

/** Merges the transaction params into `common` so transactions decoded with it skip the rebuild. */
export function primeCommon<C extends Common>(common: C): C {
  if (enabled) (common as unknown as CommonInternals).updateParams(paramsTx as unknown as Params);
  return common;
}
