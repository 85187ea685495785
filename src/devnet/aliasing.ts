/**
 * L1→L2 address aliasing (specs deposits.md "Address Aliasing"): a deposit made by an L1 contract
 * comes, on L2, from the contract's address plus 0x1111000000000000000000000000000000001111
 * (mod 2^160), so a contract cannot pose on L2 as the account of the same address. The portal
 * applies it when `msg.sender != tx.origin`; deposits from an EOA keep their address.
 */
import { checkAddress } from "./args.js";

/** The aliasing offset (specs deposits.md). */
const L1_TO_L2_ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;

const ADDRESS_MOD = 1n << 160n;

function addressValue(address: string): bigint {
  return BigInt(checkAddress("address", address));
}

function addressHex(v: bigint): string {
  return `0x${v.toString(16).padStart(40, "0")}`;
}

/** The L2 alias of L1 contract `address` (0x hex in, 0x lowercase hex out). */
export function applyL1ToL2Alias(address: string): string {
  return addressHex((addressValue(address) + L1_TO_L2_ALIAS_OFFSET) % ADDRESS_MOD);
}

/** The L1 address whose alias is `alias` (the inverse of {@link applyL1ToL2Alias}). */
export function undoL1ToL2Alias(alias: string): string {
  return addressHex((addressValue(alias) - L1_TO_L2_ALIAS_OFFSET + ADDRESS_MOD) % ADDRESS_MOD);
}
