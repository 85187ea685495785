/**
 * Constants of Base's B-20 token precompiles (base/base `crates/common/precompiles/src/common/*`,
 * `b20_asset/*`, `b20_stablecoin/*`): role and policy-scope ids, pausable features, limits,
 * EIP-712 hashes and ERC-165 ids. Every id is consensus data (it keys storage or appears in
 * return data and events), so each is derived here the way base/base derives it.
 */
import { keccak256 } from "../../../util/keccak.js";
import { bytesToU256 } from "../slots.js";

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `keccak256(name)` as a 256-bit integer: how every B-20 role and policy scope id is made. */
export function b20Id(name: string): bigint {
  return bytesToU256(keccak256(utf8(name)));
}

/** B-20 roles (OpenZeppelin AccessControl ids; `DEFAULT_ADMIN_ROLE` is 0). */
export const B20Role = {
  defaultAdmin: 0n,
  mint: b20Id("MINT_ROLE"),
  burn: b20Id("BURN_ROLE"),
  burnBlocked: b20Id("BURN_BLOCKED_ROLE"),
  pause: b20Id("PAUSE_ROLE"),
  unpause: b20Id("UNPAUSE_ROLE"),
  metadata: b20Id("METADATA_ROLE"),
  /** Asset tokens only: `announce`, `updateMultiplier`, the ERC-8056 schedule. */
  operator: b20Id("OPERATOR_ROLE"),
  /** V2 (Cobalt): `seizeWithMemo`. */
  seize: b20Id("SEIZE_ROLE"),
} as const;

/** Policy scopes a token resolves through the PolicyRegistry (`B20PolicyType` ids). */
export const B20PolicyScope = {
  transferSender: b20Id("TRANSFER_SENDER_POLICY"),
  transferReceiver: b20Id("TRANSFER_RECEIVER_POLICY"),
  transferExecutor: b20Id("TRANSFER_EXECUTOR_POLICY"),
  mintReceiver: b20Id("MINT_RECEIVER_POLICY"),
  /** V2: accounts this policy authorizes are exempt from seizure (renamed from `SEIZE_HOLDER_POLICY`, base/base #4845, keeping its storage lane). */
  seizeExempt: b20Id("SEIZE_EXEMPT_POLICY"),
  /** V2: the receivers a seizure may credit. */
  seizeReceiver: b20Id("SEIZE_RECEIVER_POLICY"),
} as const;

/** The scopes V1 (Beryl) accepts in `policyId`/`updatePolicy`; V2 adds the two seize scopes. */
export const V1_POLICY_SCOPES: readonly bigint[] = [B20PolicyScope.transferSender, B20PolicyScope.transferReceiver, B20PolicyScope.transferExecutor, B20PolicyScope.mintReceiver];
export const V2_POLICY_SCOPES: readonly bigint[] = [...V1_POLICY_SCOPES, B20PolicyScope.seizeExempt, B20PolicyScope.seizeReceiver];

/** `PausableFeature` ordinals (consensus data: the pause bit is `1 << ordinal`). SEIZE exists from V2. */
export const PausableFeature = { transfer: 0, mint: 1, burn: 2, seize: 3 } as const;
/** Number of `PausableFeature` members at V1 and V2 (a larger ordinal fails ABI decoding). */
export const V1_PAUSABLE_FEATURES = 3;
export const V2_PAUSABLE_FEATURES = 4;

/** Largest supply cap (and the factory's default cap): `type(uint128).max` (`B20_MAX_SUPPLY_CAP`). */
export const B20_MAX_SUPPLY_CAP = (1n << 128n) - 1n;
/** Multiplier precision (1e18); a stored multiplier of 0 reads as this (the factory stores 0). */
export const WAD = 10n ** 18n;
/** V2 (ERC-8056): the largest multiplier either setter accepts, `type(uint128).max`, so `balance * multiplier` fits 256 bits. */
export const MAX_UI_MULTIPLIER = (1n << 128n) - 1n;
/** Asset decimals range accepted by the factory; an unset decimals slot reads as the minimum. */
export const ASSET_MIN_DECIMALS = 6;
export const ASSET_MAX_DECIMALS = 18;
/** Stablecoins have fixed 6-decimal precision (`B20Variant::decimals`). */
export const STABLECOIN_DECIMALS = 6;

/** The account code the factory writes at a created token: one byte 0xef (EIP-3541 makes it undeployable by the EVM). */
export const B20_MARKER_CODE: Uint8Array = Uint8Array.of(0xef);
/** keccak256 of {@link B20_MARKER_CODE} (`0x309b8896…d2a3`), what `isB20Initialized` compares. */
export const B20_MARKER_CODE_HASH: Uint8Array = keccak256(B20_MARKER_CODE);

/** `keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")`. */
export const EIP712_DOMAIN_TYPEHASH = b20Id("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
/** `keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")` (EIP-2612). */
export const PERMIT_TYPEHASH = b20Id("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
/** The EIP-712 domain version of every B-20 token. */
export const EIP712_VERSION = "1";
/** ERC-5267 `fields` bits: name, version, chainId, verifyingContract. */
export const EIP712_DOMAIN_FIELDS = 0x0f;
/** V2 `permit` charges this for the signer recovery (ECRECOVER's price; V1 charges nothing). */
export const PERMIT_RECOVERY_GAS = 3000;

/** ERC-165 and ERC-8056 interface ids a V2 asset token advertises (`supportsInterface`): ERC165, IScaledUIAmount, …NewUIMultiplier, …Balances, …Conversion. */
export const ASSET_V2_INTERFACE_IDS: readonly number[] = [0x01ffc9a7, 0xa60bf13d, 0x4bd27648, 0xd890fd71, 0x57854fc3];
