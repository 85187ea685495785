/**
 * The PolicyRegistry precompile's entry (`0x8453…0002`): base/base `PolicyRegistryStorage::dispatch`
 * (`policy/dispatch.rs` @0485d3f9, the dispatcher the V1/V2 goldens were pinned through), in its order:
 *
 * 1. attached value → `NonPayable()` (before any gas is charged);
 * 2. the calldata charge, 6 gas per 32-byte word;
 * 3. the version for the upgrade: none before Beryl → revert with empty data; V1 at Beryl; V2 from Cobalt;
 * 4. fewer than 4 bytes → `UnknownFunctionSelector(0x00000000)`; a selector not on the version's
 *    surface → `UnknownFunctionSelector(selector)` (raw 4 bytes);
 * 5. views decode and run without the activation gate; writes decode (validating) first, then
 *    require `keccak256("base.policy_registry")` activated (one SLOAD at the ActivationRegistry),
 *    then run.
 */
import { OpFork } from "../../../chain/op/forks.js";
import { encodeSingle, type AbiValue } from "../abi.js";
import { ensureFeatureActivated, POLICY_REGISTRY_FEATURE } from "../activation/registry.js";
import type { BaseCallContext } from "../context.js";
import { PrecompileRevertError, UnknownSelectorError } from "../errors.js";
import { CALLDATA_WORD_GAS } from "../gas.js";
import type { BasePrecompileHandler } from "../outcome.js";
import { addressToU256, u256Bytes } from "../slots.js";
import { decodePolicyCall, PolicyErrors, policyFunction, PolicyType, type PolicyFunction, type PolicyVersion } from "./abi.js";
import * as logic from "./logic.js";
import { PolicyStore } from "./storage.js";

/** The registry version active at `fork`: none before Beryl, V1 at Beryl, V2 from Cobalt (base/base `PolicyVersions::from_base_upgrade`). */
export function policyVersionAt(fork: OpFork): PolicyVersion | undefined {
  if (fork >= OpFork.cobalt) return 2;
  if (fork >= OpFork.beryl) return 1;
  return undefined;
}

const EMPTY = new Uint8Array(0);
const boolWord = (b: boolean): Uint8Array => u256Bytes(b ? 1n : 0n);
const addressWord = (a: Uint8Array): Uint8Array => u256Bytes(addressToU256(a));

/** Runs a decoded call on `version`'s logic and encodes its return data. */
function route(ctx: BaseCallContext, version: PolicyVersion, f: PolicyFunction, args: AbiValue[]): Uint8Array {
  const store = new PolicyStore(ctx);
  const id = (i: number): bigint => args[i] as bigint;
  const address = (i: number): Uint8Array => args[i] as Uint8Array;
  const addresses = (i: number): Uint8Array[] => args[i] as Uint8Array[];
  switch (f.name) {
    case "createPolicy":
      return u256Bytes(logic.createPolicy(store, version, address(0), Number(id(1))));
    case "createPolicyWithAccounts":
      return u256Bytes(logic.createPolicyWithAccounts(store, version, address(0), Number(id(1)), addresses(2)));
    case "stageUpdateAdmin":
      logic.stageUpdateAdmin(store, id(0), address(1));
      return EMPTY;
    case "finalizeUpdateAdmin":
      logic.finalizeUpdateAdmin(store, id(0));
      return EMPTY;
    case "renounceAdmin":
      logic.renounceAdmin(store, id(0));
      return EMPTY;
    case "updateAllowlist":
      logic.updateMembership(store, id(0), PolicyType.ALLOWLIST, args[1] as boolean, addresses(2));
      return EMPTY;
    case "updateBlocklist":
      logic.updateMembership(store, id(0), PolicyType.BLOCKLIST, args[1] as boolean, addresses(2));
      return EMPTY;
    case "isAuthorized":
      return boolWord(logic.isAuthorized(store, version, id(0), address(1)));
    case "policyExists":
      return boolWord(logic.policyExists(store, version, id(0)));
    case "policyAdmin":
      return addressWord(logic.policyAdmin(store, version, id(0)));
    case "pendingPolicyAdmin":
      return addressWord(logic.pendingPolicyAdmin(store, version, id(0)));
    case "createCompositePolicy":
      return u256Bytes(logic.createCompositePolicy(store, address(0), Number(id(1)), args[2] as bigint[]));
    case "updateComposite":
      logic.updateComposite(store, id(0), args[1] as bigint[]);
      return EMPTY;
    case "MIN_COMPOSITE_CHILD_POLICIES":
      return u256Bytes(BigInt(logic.MIN_CHILD_POLICIES));
    case "MAX_COMPOSITE_CHILD_POLICIES":
      return u256Bytes(BigInt(logic.MAX_CHILD_POLICIES));
    case "compositePolicyChildIds":
      return encodeSingle("uint64[]", logic.compositePolicyChildIds(store, id(0)));
    default:
      // Every entry of POLICY_FUNCTIONS is routed above.
      throw new UnknownSelectorError(f.selector);
  }
}

/** The PolicyRegistry precompile (both versions; the version follows `ctx.fork`). */
export const policyRegistryHandler: BasePrecompileHandler = (ctx, input) => {
  if (ctx.env.value !== 0n) throw new PrecompileRevertError(PolicyErrors.nonPayable());
  ctx.deductGas(CALLDATA_WORD_GAS * Math.ceil(input.length / 32));
  const version = policyVersionAt(ctx.fork);
  // Unreachable on a chain (the precompile is installed from Beryl); base/base reverts defensively.
  if (version === undefined) throw new PrecompileRevertError(EMPTY);
  if (input.length < 4) throw new UnknownSelectorError(new Uint8Array(4));
  const selector = input.slice(0, 4);
  const f = policyFunction(selector, version);
  if (f === undefined) throw new UnknownSelectorError(selector);
  const args = decodePolicyCall(f, version, input);
  if (!f.view) ensureFeatureActivated(ctx, POLICY_REGISTRY_FEATURE);
  return route(ctx, version, f, args);
};
