/**
 * Argument checks of the devnet's L1 tooling: values must fit the Solidity types the contracts take
 * before anything is signed, so a wrong value fails here with its field named, not as an opaque
 * encoder error or a revert.
 */
import { DevnetError, DevnetErrorCode } from "./errors.js";

/** Throws `DEVNET_INVALID_ARGUMENT` for `field` = `value`, saying what was expected. */
export function invalidArgument(field: string, value: unknown, expected: string): never {
  throw new DevnetError({ code: DevnetErrorCode.INVALID_ARGUMENT, field, value: String(value) }, `${field} ${String(value)}: ${expected} expected`);
}

/** `v` checked to fit an unsigned integer of `bits` bits (a `uint<bits>`). */
export function checkUint(field: string, v: bigint | number, bits: number): bigint {
  if (typeof v === "number" && !Number.isSafeInteger(v)) invalidArgument(field, v, `an integer of ${bits} bits`);
  const b = BigInt(v);
  if (b < 0n || b >> BigInt(bits) !== 0n) invalidArgument(field, v, `an unsigned integer of ${bits} bits`);
  return b;
}

/** `address` checked to be 20 bytes of 0x hex, lowercased. */
export function checkAddress(field: string, address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) invalidArgument(field, address, "a 20-byte 0x-hex address");
  return address.toLowerCase();
}
