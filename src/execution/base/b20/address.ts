/**
 * The B-20 token address rule (base/base `b20_factory/variant.rs`, `lookup.rs`): a token lives at
 * `0xb2 ‖ 00×9 ‖ variant ‖ keccak256(abi.encode(creator, salt))[0..9]`, variant ASSET = 0,
 * STABLECOIN = 1 (the frozen Beryl `B20Variant` ABI enum ordinals). From Beryl every address of
 * that form is a precompile, created or not; a call to one that the factory has not created
 * reverts with empty data.
 */

/** Token variants (the `B20Variant` ABI enum; the byte at address position 10). */
export const B20Variant = { asset: 0, stablecoin: 1 } as const;
export type B20Variant = (typeof B20Variant)[keyof typeof B20Variant];

/** First byte of every B-20 address. */
const PREFIX_BYTE = 0xb2;
/** Address bytes 1..9 are zero. */
const ZERO_RUN_END = 10;
/** Address byte holding the variant. */
const VARIANT_BYTE = 10;
/** Bytes of the creator/salt hash that end the address. */
const HASH_TAIL = 9;

/** Whether `address` has the structural B-20 prefix (`0xb2` then nine zero bytes), whatever its variant byte (`isB20`). */
export function hasB20Prefix(address: Uint8Array): boolean {
  if (address.length !== 20 || address[0] !== PREFIX_BYTE) return false;
  for (let i = 1; i < ZERO_RUN_END; i++) if (address[i] !== 0) return false;
  return true;
}

/**
 * The variant of a B-20 token address, or undefined when `address` is not one (base/base
 * `B20Variant::from_address`): the engine installs the token precompile at every address this
 * accepts, from Beryl on.
 */
export function b20VariantOf(address: Uint8Array): B20Variant | undefined {
  if (!hasB20Prefix(address)) return undefined;
  const v = address[VARIANT_BYTE];
  return v === B20Variant.asset || v === B20Variant.stablecoin ? v : undefined;
}

/** `abi.encode(address creator, bytes32 salt)`: the preimage of a token address's hash tail. */
export function b20AddressPreimage(creator: Uint8Array, salt: Uint8Array): Uint8Array {
  const out = new Uint8Array(64);
  out.set(creator, 12);
  out.set(salt, 32);
  return out;
}

/** The token address of `variant` for `hash = keccak256(abi.encode(creator, salt))`. */
export function b20TokenAddress(variant: B20Variant, hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(20);
  out[0] = PREFIX_BYTE;
  out[VARIANT_BYTE] = variant;
  out.set(hash.subarray(0, HASH_TAIL), VARIANT_BYTE + 1);
  return out;
}
