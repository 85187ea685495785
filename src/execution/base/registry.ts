/**
 * Which Base native precompiles a block has, by fork (base/base `BasePrecompiles::install`):
 * from Beryl the singletons ActivationRegistry, PolicyRegistry and B20Factory, and every address
 * of the B-20 token form (a dynamic lookup, not listed).
 */
import { OpFork } from "../../chain/op/forks.js";

/** ActivationRegistry (Beryl): feature switches of the other precompiles. */
export const ACTIVATION_REGISTRY_ADDRESS = "0x8453000000000000000000000000000000000001";
/** PolicyRegistry (Beryl): allow/block lists the B-20 tokens consult. */
export const POLICY_REGISTRY_ADDRESS = "0x8453000000000000000000000000000000000002";
/** B20Factory (Beryl): creates B-20 tokens. */
export const B20_FACTORY_ADDRESS = "0xb20f000000000000000000000000000000000000";

/**
 * The singleton Base precompiles installed at `fork`, as `[name, address]` with base/base's
 * `PrecompileId::Custom` names (what eth_config lists; `PolicyRegistryPrecompile` is the name in
 * the one stored version of `policy/precompile.rs` that has it).
 */
export function basePrecompileNames(fork: OpFork): [string, string][] {
  if (fork < OpFork.beryl) return [];
  return [
    ["ActivationRegistry", ACTIVATION_REGISTRY_ADDRESS],
    ["B20Factory", B20_FACTORY_ADDRESS],
    ["PolicyRegistryPrecompile", POLICY_REGISTRY_ADDRESS],
  ];
}
