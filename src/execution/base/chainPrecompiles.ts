/**
 * The Base native precompiles of a chain at a fork (base/base `BasePrecompiles::install` with the
 * chain's `activation_admin_address`): from Beryl, ActivationRegistry (static admin; state-backed
 * from Cobalt), PolicyRegistry, B20Factory and the B-20 token lookup; from Cobalt also TxContext
 * and NonceManager. Singletons are warm from every transaction's start (revm warms the
 * precompile map's addresses); token addresses, looked up rather than listed, start cold.
 *
 * The activation admin is chain configuration: Base mainnet's and Sepolia's from base/base's
 * `ChainConfig`; the devnet's is dev account 0 (anvil's first account), so a developer can switch
 * the features on (`activate(bytes32)`, see the README); any other chain has none (the registry
 * then refuses every activation, as base/base with `None`).
 */
import { devAccounts } from "../../chain/devnet.js";
import { OpFork } from "../../chain/op/forks.js";
import { DEVNET_CHAIN_ID } from "../../chain/constants.js";
import { activationAdminConfigFor, activationRegistryHandler, BASE_MAINNET_ACTIVATION_ADMIN, BASE_SEPOLIA_ACTIVATION_ADMIN } from "./activation/index.js";
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, NONCE_MANAGER_ADDRESS, POLICY_REGISTRY_ADDRESS, TX_CONTEXT_ADDRESS } from "./addresses.js";
import { b20TokenHandler, b20VariantOf } from "./b20/index.js";
import { nonceManagerHandler, txContextHandler } from "./eip8130/index.js";
import { b20FactoryHandler } from "./factory/index.js";
import type { BasePrecompileHandler } from "./outcome.js";
import { policyRegistryHandler } from "./policy/index.js";
import { createBasePrecompiles, type BasePrecompiles } from "./registry.js";

/** Base mainnet's chain id. */
const BASE_MAINNET_CHAIN_ID = 8453n;
/** Base Sepolia's chain id. */
const BASE_SEPOLIA_CHAIN_ID = 84532n;

/** The static activation admin of a chain (base/base `ChainConfig::activation_admin_address`), or undefined. */
function activationAdminOf(chainId: bigint): Uint8Array | undefined {
  if (chainId === BASE_MAINNET_CHAIN_ID) return BASE_MAINNET_ACTIVATION_ADMIN;
  if (chainId === BASE_SEPOLIA_CHAIN_ID) return BASE_SEPOLIA_ACTIVATION_ADMIN;
  if (chainId === DEVNET_CHAIN_ID) return Uint8Array.from(Buffer.from(devAccounts()[0]!.address.slice(2), "hex"));
  return undefined;
}

const hex = (a: Uint8Array): string => `0x${Buffer.from(a).toString("hex")}`;

const cache = new Map<string, BasePrecompiles | undefined>();

/** The Base precompiles of chain `chainId` at OP fork `fork` (undefined before Beryl or off OP chains). Cached. */
export function basePrecompilesFor(fork: OpFork | undefined, chainId: bigint): BasePrecompiles | undefined {
  if (fork === undefined || fork < OpFork.beryl) return undefined;
  const key = `${chainId}:${fork}`;
  if (cache.has(key)) return cache.get(key);
  const singletons = new Map<string, BasePrecompileHandler>([
    [hex(ACTIVATION_REGISTRY_ADDRESS), activationRegistryHandler(activationAdminConfigFor(fork, activationAdminOf(chainId)))],
    [hex(POLICY_REGISTRY_ADDRESS), policyRegistryHandler],
    [hex(B20_FACTORY_ADDRESS), b20FactoryHandler],
  ]);
  if (fork >= OpFork.cobalt) {
    singletons.set(hex(TX_CONTEXT_ADDRESS), txContextHandler);
    singletons.set(hex(NONCE_MANAGER_ADDRESS), nonceManagerHandler);
  }
  const base = createBasePrecompiles(fork, {
    singletons,
    dynamic: (address) => (b20VariantOf(address) === undefined ? undefined : b20TokenHandler),
    warmSingletons: true,
  });
  cache.set(key, base);
  return base;
}
