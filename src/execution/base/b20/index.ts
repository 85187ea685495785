/**
 * Base's B-20 token precompiles (asset and stablecoin; V1 at Beryl, V2 from Cobalt): ERC-20 with
 * roles, PolicyRegistry-resolved transfer/mint/seize policies, granular pause, supply cap,
 * EIP-2612 permit and memo variants; assets add a multiplier (ERC-8056 scheduled UI multiplier
 * from Cobalt), announcements, batch mint and extra metadata; stablecoins a currency.
 *
 * - {@link b20TokenHandler}: the handler the engine installs at every address
 *   {@link b20VariantOf} accepts, from Beryl (variant from the address, version from `ctx.fork`).
 * - {@link b20VariantOf}, {@link hasB20Prefix}, {@link b20TokenAddress}: the address rule.
 */
import { isAuthorized, policyExists } from "../policy/index.js";
import { createB20TokenHandler } from "./dispatch.js";
import type { PolicyPort } from "./policyPort.js";

export { B20Variant, b20AddressPreimage, b20TokenAddress, b20VariantOf, hasB20Prefix } from "./address.js";
export { B20_MARKER_CODE_HASH, B20PolicyScope, B20Role } from "./constants.js";

/** The PolicyRegistry as a token reads it: straight from the registry's storage, through the token call's context (metered). */
export const registryPolicyPort: PolicyPort = { isAuthorized, policyExists };

/**
 * The B-20 token precompile (every `0xb2…` address of a known variant, from Beryl): full dispatch
 * — nonpayable, 6 gas per calldata word, empty revert for a token the factory has not created —
 * then the token logic of the block's fork.
 */
export const b20TokenHandler = createB20TokenHandler(registryPolicyPort);
