/**
 * What a B-20 token asks of the PolicyRegistry (base/base `PolicyRegistryLogic` over
 * `PolicyAccounting`): whether a policy authorizes an account, and whether a policy exists.
 * Production reads the registry's storage through the call's own context (metered, at the
 * registry's address); the golden tests evaluate the same registry logic over a separate,
 * in-memory registry (base/base `FakePolicyAccounting`) whose reads are neither metered nor
 * counted nor part of the token's state.
 */
import type { BaseCallContext } from "../context.js";

/** The registry operations a token uses; `ctx` is the token call's context. */
export interface PolicyPort {
  /** Whether policy `policyId` authorizes `account` (an unknown policy authorizes nobody). */
  isAuthorized(ctx: BaseCallContext, policyId: bigint, account: Uint8Array): boolean;
  /** Whether policy `policyId` exists (`updatePolicy` refuses one that does not). */
  policyExists(ctx: BaseCallContext, policyId: bigint): boolean;
}
