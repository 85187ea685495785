/**
 * Which Base native precompiles a block has, by fork (base/base `BasePrecompiles::install` and
 * `BerylLookup`): from Beryl the singletons ActivationRegistry, PolicyRegistry and B20Factory,
 * and every address of the B-20 token form (a dynamic lookup: the address itself says it is a
 * precompile). The engines ask {@link BasePrecompiles.handlerAt} for each call target.
 */
import { OpFork } from "../../chain/op/forks.js";
import { ACTIVATION_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, NONCE_MANAGER_ADDRESS, POLICY_REGISTRY_ADDRESS, TX_CONTEXT_ADDRESS } from "./addresses.js";
import type { BasePrecompileHandler } from "./outcome.js";

/** The Base precompiles of one fork, as the engines use them. */
export interface BasePrecompiles {
  /** The fork they run at (selects each precompile's version). */
  readonly fork: OpFork;
  /** The handler for a call whose code address is `address`, or undefined when it is no Base precompile. */
  handlerAt(address: Uint8Array): BasePrecompileHandler | undefined;
  /** Addresses warm from the start of every transaction (EIP-2929), as the EVM's own precompiles. */
  readonly warmAddresses: readonly Uint8Array[];
}

/** The handlers of a fork's Base precompiles. */
interface BaseHandlers {
  /** Singletons by address (lower-case 0x-hex). */
  singletons: ReadonlyMap<string, BasePrecompileHandler>;
  /** The handler of a dynamic address (a B-20 token), or undefined. */
  dynamic?: (address: Uint8Array) => BasePrecompileHandler | undefined;
  /** Whether the singletons are warm from the start of every transaction. */
  warmSingletons: boolean;
}

function hex(a: Uint8Array): string {
  return `0x${Buffer.from(a).toString("hex")}`;
}

/** {@link BasePrecompiles} over a table of handlers. */
export function createBasePrecompiles(fork: OpFork, handlers: BaseHandlers): BasePrecompiles {
  const warm = handlers.warmSingletons ? [...handlers.singletons.keys()].map((a) => Uint8Array.from(Buffer.from(a.slice(2), "hex"))) : [];
  return {
    fork,
    warmAddresses: warm,
    handlerAt(address: Uint8Array): BasePrecompileHandler | undefined {
      // Singletons start 0x84 53, 0xb2 0f or 0x81 30, tokens 0xb2 00: other addresses are answered by one byte compare.
      const b0 = address[0];
      if (b0 !== 0x84 && b0 !== 0xb2 && b0 !== 0x81) return undefined;
      return handlers.singletons.get(hex(address)) ?? handlers.dynamic?.(address);
    },
  };
}

/**
 * The singleton Base precompiles installed at `fork`, as `[name, 0x-address]` with base/base's
 * `PrecompileId::Custom` names (what eth_config lists; `PolicyRegistryPrecompile` is the name in
 * the one stored version of `policy/precompile.rs` that has it): the Beryl three, and from Cobalt
 * TxContext and NonceManager (`provider.rs` @05358dd1).
 */
export function basePrecompileNames(fork: OpFork): [string, string][] {
  if (fork < OpFork.beryl) return [];
  const out: [string, Uint8Array][] = [
    ["ActivationRegistry", ACTIVATION_REGISTRY_ADDRESS],
    ["B20Factory", B20_FACTORY_ADDRESS],
    ["PolicyRegistryPrecompile", POLICY_REGISTRY_ADDRESS],
  ];
  if (fork >= OpFork.cobalt) out.push(["NonceManager", NONCE_MANAGER_ADDRESS], ["TxContext", TX_CONTEXT_ADDRESS]);
  return out.map(([n, a]) => [n, hex(a)]);
}
