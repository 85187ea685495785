/**
 * The names of basalt's built-in OP networks, as `--network` accepts them. The option table
 * needs only the names; each network's configuration (rollup config, fork schedule, genesis) is
 * protocol data and lives with the chain rules in `src/chain/op/networks.ts`.
 */

/** Names of the built-in OP networks, as accepted by `--network`. */
export const OP_NETWORK_NAMES = ["base-mainnet", "base-sepolia"] as const;
/** A built-in OP network name. */
export type OpNetworkName = (typeof OP_NETWORK_NAMES)[number];

/** Whether `name` is a built-in OP network. */
export function isOpNetworkName(name: string): name is OpNetworkName {
  return (OP_NETWORK_NAMES as readonly string[]).includes(name);
}
