/**
 * Base's PolicyRegistry (`0x8453…0002`): allowlists, blocklists and (from Cobalt) UNION/INTERSECT
 * composites that B-20 tokens consult for their transfer/mint/seize policies.
 *
 * - {@link policyRegistryHandler}: the precompile (V1 at Beryl, V2 from Cobalt, by `ctx.fork`).
 * - {@link isAuthorized}, {@link policyExists}: what a B-20 token asks the registry, read directly
 *   from the registry's storage as base/base's token path does (`PolicyHandle` over
 *   `PolicyRegistryStorage`: no activation gate, no calldata charge), each read a metered SLOAD
 *   counted in the token's storage-access footprint.
 * - {@link seedPolicyMember}, {@link seedExistingPolicy}: the token goldens' `FakePolicyAccounting`
 *   seeding (`allow`, `create_existing_policy`), written straight into registry storage.
 */
import type { BaseCallContext } from "../context.js";
import { POLICY_REGISTRY_ADDRESS } from "../addresses.js";
import { policyVersionAt } from "./dispatch.js";
import * as logic from "./logic.js";
import { memberSlot, packPolicy, PolicyStore, policyWordSlot } from "./storage.js";
import type { PolicyVersion } from "./abi.js";

export { policyRegistryHandler, policyVersionAt } from "./dispatch.js";
export { PolicyType } from "./abi.js";
export { ALWAYS_ALLOW_ID, ALWAYS_BLOCK_ID, COUNTER_MASK, makePolicyId } from "./logic.js";
export { NEXT_COUNTER_SLOT, memberSlot, policyWordSlot } from "./storage.js";

/** The registry version a token at `ctx.fork` evaluates with (V1 below Cobalt — tokens exist from Beryl — V2 from Cobalt). */
function tokenPolicyVersion(ctx: BaseCallContext): PolicyVersion {
  return policyVersionAt(ctx.fork) ?? 1;
}

/**
 * Whether `account` passes policy `policyId` (base/base `Policy::is_authorized` on the registry
 * storage). Reads: none for the built-ins (`0` allows, `(1<<56)|1` blocks) and malformed ids
 * (type byte above the version's last type: unauthorized); one membership SLOAD for an
 * allowlist/blocklist (a never-created list reads empty: an allowlist denies, a blocklist allows);
 * for a V2 composite, its child array (length, then one word per 4 ids) and each child evaluated
 * until the answer is known. Never reverts.
 */
export function isAuthorized(ctx: BaseCallContext, policyId: bigint, account: Uint8Array): boolean {
  return logic.isAuthorized(new PolicyStore(ctx), tokenPolicyVersion(ctx), policyId, account);
}

/**
 * Whether policy `policyId` exists (base/base `Policy::policy_exists`): the built-ins always, a
 * malformed id never (no read), otherwise one SLOAD of the policy word's exists bit.
 */
export function policyExists(ctx: BaseCallContext, policyId: bigint): boolean {
  return logic.policyExists(new PolicyStore(ctx), tokenPolicyVersion(ctx), policyId);
}

/** Where seeding writes: a raw, unjournaled slot write (e.g. `MemoryBaseHost.set` in tests, or genesis allocation). */
interface PolicySeedTarget {
  set(address: Uint8Array, slot: bigint, value: bigint): void;
}

/**
 * `FakePolicyAccounting::allow(policyId, account)` of the token goldens: marks `account` a member
 * of `policyId` and creates the policy (policy word with admin 0 and the exists bit). For an
 * ALLOWLIST id the account is then authorized, for a BLOCKLIST id blocked. No built-ins are seeded
 * and the counter is not touched; `allow(0, …)` writes policy 0 like any other id.
 */
export function seedPolicyMember(target: PolicySeedTarget, policyId: bigint, account: Uint8Array): void {
  target.set(POLICY_REGISTRY_ADDRESS, memberSlot(policyId, account), 1n);
  seedExistingPolicy(target, policyId);
}

/** `FakePolicyAccounting::create_existing_policy(id)`: the policy word (admin 0, exists bit), no members. */
export function seedExistingPolicy(target: PolicySeedTarget, policyId: bigint): void {
  target.set(POLICY_REGISTRY_ADDRESS, policyWordSlot(policyId), packPolicy(new Uint8Array(20)));
}
