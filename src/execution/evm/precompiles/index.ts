/**
 * The precompiled contracts of the fast core, per fork: which addresses hold a precompile and
 * the synchronous function that runs it (see `types.ts` for the contract).
 *
 * The set follows the reference engine exactly: @ethereumjs/evm's `getActivePrecompiles(common)`
 * (0x01–0x04 always, 0x05–0x08 from Byzantium, 0x09 from Istanbul, 0x0a with EIP-4844, 0x0b–0x11
 * with EIP-2537, 0x100 with EIP-7951) plus, for an OP chain, basalt's
 * `opPrecompiles(opFork, common)` (`src/execution/op/precompiles.ts`): P256VERIFY from Fjord at
 * 3,450 gas (6,900 from Base Azul), and the Granite/Isthmus/Jovian input-size caps on 0x08,
 * 0x0c, 0x0e and 0x0f (a longer input fails before the precompile runs).
 *
 * Sets are built once per (hardfork, extra EIPs, OP fork, KZG object) and cached, so asking for
 * the set of a block costs a map lookup; the prices are read from the Common when the set is
 * built (they are fixed per hardfork).
 */
import type { Common } from "@ethereumjs/common";
import { paramsEVM } from "@ethereumjs/evm";
import { OP_FORK_NAMES, OpFork } from "../../../chain/op/forks.js";
import { OpPrecompileError, P256VERIFY_GAS_AZUL, P256VERIFY_GAS_FJORD, opPrecompileInputLimits } from "../../op/precompiles.js";
import { blake2fPrecompile } from "./blake2f.js";
import { bls12381Precompiles } from "./bls12381.js";
import { bn254AddPrecompile, bn254MulPrecompile, bn254PairingPrecompile } from "./bn254.js";
import { ecrecoverPrecompile } from "./ecrecover.js";
import { identityPrecompile } from "./identity.js";
import { pointEvaluationPrecompile } from "./kzg.js";
import { modexpPrecompile } from "./modexp.js";
import { createP256Verify } from "./p256.js";
import { failure } from "./result.js";
import { ripemd160Precompile } from "./ripemd160.js";
import { sha256Precompile } from "./sha256.js";
import type { Precompile } from "./types.js";
import type { BasePrecompiles } from "../../base/registry.js";
import { basePrecompilesFor } from "../../base/chainPrecompiles.js";

export type { Precompile } from "./types.js";

/** The precompiles active at one fork. */
export interface PrecompileSet {
  get(address: number): Precompile | undefined;
  /** sorted addresses, for warming (EIP-2929) */
  readonly addresses: readonly number[];
  /**
   * The precompile at a full address, for sets that place precompiles outside 0x01–0xffff
   * (eth_simulateV1's `movePrecompileToAddress`); when absent, {@link get} by number is used.
   */
  at?(address: Uint8Array): Precompile | undefined;
  /** Base's native, stateful precompiles (from Beryl): called with the call's context and the state. */
  readonly base?: BasePrecompiles;
}

/** Precompile addresses (the 20-byte address as a number). */
const PrecompileAddress = {
  ecrecover: 0x01,
  sha256: 0x02,
  ripemd160: 0x03,
  identity: 0x04,
  modexp: 0x05,
  bn254Add: 0x06,
  bn254Mul: 0x07,
  bn254Pairing: 0x08,
  blake2f: 0x09,
  pointEvaluation: 0x0a,
  /** RIP-7212 / EIP-7951. */
  p256Verify: 0x100,
} as const;

/** Addresses below this are looked up in a dense table (0x01 … 0x11, the last EIP-2537 one). */
const DENSE_LIMIT = 0x12;
/** EIP-7951's P256VERIFY price (6,900), the one Base Azul adopted (`P256VERIFY_GAS_AZUL`). */
const P256VERIFY_GAS_EIP7951 = Number(P256VERIFY_GAS_AZUL);
/** A Common parameter every set reads; when missing, the Common has not yet been given @ethereumjs/evm's parameters. */
const PROBE_PARAM = "ecRecoverGas";

/** An immutable {@link PrecompileSet}: a dense table for 0x01–0x11 and one slot for 0x100. */
class FrozenPrecompileSet implements PrecompileSet {
  readonly addresses: readonly number[];
  private readonly dense: (Precompile | undefined)[];
  private readonly p256: Precompile | undefined;

  constructor(entries: ReadonlyMap<number, Precompile>) {
    this.dense = new Array<Precompile | undefined>(DENSE_LIMIT).fill(undefined);
    for (const [address, p] of entries) if (address < DENSE_LIMIT) this.dense[address] = p;
    this.p256 = entries.get(PrecompileAddress.p256Verify);
    this.addresses = Object.freeze([...entries.keys()].sort((a, b) => a - b));
  }

  get(address: number): Precompile | undefined {
    if (address < DENSE_LIMIT) return this.dense[address];
    return address === PrecompileAddress.p256Verify ? this.p256 : undefined;
  }
}

/** The internal parameter table of a Common (`Common.copy()` shares it between copies). */
interface CommonParamsTable {
  _params: Record<string, unknown>;
}

/**
 * `common`, or a copy carrying @ethereumjs/evm's parameters (what `createEVM` adds to the Common
 * it is given) when it lacks them. `Common.copy()` is shallow, so the copy gets its own
 * parameter table first: `updateParams` must not reach the caller's Common.
 */
function withEvmParams(common: Common): Common {
  try {
    common.param(PROBE_PARAM);
    return common;
  } catch {
    const copy = common.copy();
    const table = copy as unknown as CommonParamsTable;
    table._params = { ...table._params };
    copy.updateParams(paramsEVM);
    return copy;
  }
}

/** Wraps `inner` so that an input longer than `maxInputSize` bytes fails before it runs (the OP caps). */
function withInputCap(inner: Precompile, maxInputSize: number): Precompile {
  return (input, gasLimit) => (input.length > maxInputSize ? failure(gasLimit) : inner(input, gasLimit));
}

/** Builds the set of `common` (prices read from `params`) at `opFork`. */
function buildSet(common: Common, opFork: OpFork | undefined): PrecompileSet {
  const params = withEvmParams(common);
  const entries = new Map<number, Precompile>([
    [PrecompileAddress.ecrecover, ecrecoverPrecompile(params)],
    [PrecompileAddress.sha256, sha256Precompile(params)],
    [PrecompileAddress.ripemd160, ripemd160Precompile(params)],
    [PrecompileAddress.identity, identityPrecompile(params)],
  ]);
  if (common.gteHardfork("byzantium")) {
    entries.set(PrecompileAddress.modexp, modexpPrecompile(params));
    entries.set(PrecompileAddress.bn254Add, bn254AddPrecompile(params));
    entries.set(PrecompileAddress.bn254Mul, bn254MulPrecompile(params));
    entries.set(PrecompileAddress.bn254Pairing, bn254PairingPrecompile(params));
  }
  if (common.gteHardfork("istanbul")) entries.set(PrecompileAddress.blake2f, blake2fPrecompile(params));
  if (common.isActivatedEIP(4844)) entries.set(PrecompileAddress.pointEvaluation, pointEvaluationPrecompile(params));
  if (common.isActivatedEIP(2537)) for (const [address, p] of bls12381Precompiles(params)) entries.set(address, p);
  if (common.isActivatedEIP(7951)) entries.set(PrecompileAddress.p256Verify, createP256Verify(P256VERIFY_GAS_EIP7951));
  if (opFork !== undefined && opFork >= OpFork.fjord) {
    entries.set(PrecompileAddress.p256Verify, createP256Verify(Number(opFork >= OpFork.azul ? P256VERIFY_GAS_AZUL : P256VERIFY_GAS_FJORD)));
    for (const { address, maxInputSize } of opPrecompileInputLimits(opFork)) {
      const n = Number.parseInt(address, 16);
      const inner = entries.get(n);
      if (inner === undefined) {
        throw new OpPrecompileError(OP_FORK_NAMES[opFork], common.hardfork(), address, n === PrecompileAddress.bn254Pairing ? "byzantium" : "prague (EIP-2537)");
      }
      entries.set(n, withInputCap(inner, maxInputSize));
    }
  }
  return new FrozenPrecompileSet(entries);
}

/**
 * `set` with Base's native precompiles added (`base` undefined: `set` itself). The result is
 * cached per (set, base), so transaction warm-set caching by set identity keeps working.
 */
export function withBasePrecompiles(set: PrecompileSet, base: BasePrecompiles | undefined): PrecompileSet {
  if (base === undefined) return set;
  let byBase = withBaseCache.get(set);
  if (byBase === undefined) {
    byBase = new WeakMap();
    withBaseCache.set(set, byBase);
  }
  let out = byBase.get(base);
  if (out === undefined) {
    const at = set.at?.bind(set);
    out = { get: (n) => set.get(n), addresses: set.addresses, ...(at === undefined ? {} : { at }), base };
    byBase.set(base, out);
  }
  return out;
}
const withBaseCache = new WeakMap<PrecompileSet, WeakMap<BasePrecompiles, PrecompileSet>>();

/** Cache key object of a Common without KZG. */
const NO_KZG = {};
/** Built sets, by KZG object, then by `hardfork|extra EIPs|OP fork`. */
const cache = new WeakMap<object, Map<string, PrecompileSet>>();

/**
 * The precompiles of a block whose rules are `common` (already set to the block's hardfork) on
 * an OP chain at `opFork` — from Base's Beryl with Base's native precompiles (`base`) — or on a
 * plain Ethereum chain when `opFork` is undefined. Cached: the
 * same arguments give the same set. Throws {@link OpPrecompileError} when `opFork` caps a
 * precompile `common` does not activate (e.g. Isthmus with a pre-Prague Common), as
 * `opPrecompiles` does.
 */
export function precompilesFor(common: Common, opFork?: OpFork): PrecompileSet {
  const kzgKey: object = common.customCrypto.kzg ?? NO_KZG;
  let byKey = cache.get(kzgKey);
  if (byKey === undefined) {
    byKey = new Map();
    cache.set(kzgKey, byKey);
  }
  const eips = common.eips();
  // The chain id keys Base's precompiles (their activation admin is chain configuration).
  const key = `${common.hardfork()}|${eips.length === 0 ? "" : eips.join(",")}|${opFork ?? ""}|${opFork !== undefined && opFork >= OpFork.beryl ? common.chainId() : ""}`;
  let set = byKey.get(key);
  if (set === undefined) {
    set = withBasePrecompiles(buildSet(common, opFork), basePrecompilesFor(opFork, common.chainId()));
    byKey.set(key, set);
  }
  return set;
}
