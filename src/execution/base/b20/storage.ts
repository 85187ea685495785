/**
 * A B-20 token's storage, in the EVM trie at the token's address, laid out as base/base's
 * `B20CoreStorage` (namespace `base.b20`), `B20AssetExtensionStorage` (`base.b20.asset`) and
 * `B20StablecoinExtensionStorage` (`base.b20.stablecoin`) — ERC-7201 roots, Solidity mapping and
 * string rules — with exactly the SLOADs and SSTOREs base/base's accessors make, in their order
 * (they decide cold/warm gas and the goldens' storage-access footprints).
 *
 * Strings follow Solidity: up to 31 bytes inline (`data ‖ len*2`), longer ones as `len*2+1` with
 * the data at `keccak256(slot) + i` (hashing a slot is not metered). From Cobalt
 * (`StorageFeatures::Cobalt`) a string write first checks the call is not static, reads the old
 * length word and zeroes the data words the new value no longer uses.
 */
import { PrecompileFatalError, PrecompilePanicError, PanicCode, StaticCallViolationError } from "../errors.js";
import type { BaseCallContext } from "../context.js";
import { keccak256 } from "../../../util/keccak.js";
import { bytesToU256, erc7201Root, fieldSlot, mappingSlot, mappingSlotOfAddress, readPacked, u256Bytes, writePacked } from "../slots.js";
import { B20PolicyScope, B20Role } from "./constants.js";

/** Root of the `base.b20` namespace (`0xc78b71fe…4000`). */
const B20_CORE_ROOT = erc7201Root("base.b20");
/** Root of the `base.b20.asset` namespace (`0xfdc6d455…4b00`). */
const B20_ASSET_ROOT = erc7201Root("base.b20.asset");
/** Root of the `base.b20.stablecoin` namespace (`0x35827975…6200`). */
const B20_STABLECOIN_ROOT = erc7201Root("base.b20.stablecoin");

/** `B20CoreStorage` field slots (offsets pinned by base/base `b20_core_offsets_match_mock_b20_storage`). */
export const CoreSlot = {
  name: fieldSlot(B20_CORE_ROOT, 0n),
  symbol: fieldSlot(B20_CORE_ROOT, 1n),
  contractUri: fieldSlot(B20_CORE_ROOT, 2n),
  totalSupply: fieldSlot(B20_CORE_ROOT, 3n),
  balances: fieldSlot(B20_CORE_ROOT, 4n),
  allowances: fieldSlot(B20_CORE_ROOT, 5n),
  roles: fieldSlot(B20_CORE_ROOT, 6n),
  roleAdmins: fieldSlot(B20_CORE_ROOT, 7n),
  adminCount: fieldSlot(B20_CORE_ROOT, 8n),
  /** u64 transfer sender/receiver/executor policy ids at byte offsets 0/8/16. */
  transferPolicies: fieldSlot(B20_CORE_ROOT, 9n),
  /** u64 mint-receiver policy id at offset 0. */
  mintPolicies: fieldSlot(B20_CORE_ROOT, 10n),
  paused: fieldSlot(B20_CORE_ROOT, 11n),
  supplyCap: fieldSlot(B20_CORE_ROOT, 12n),
  nonces: fieldSlot(B20_CORE_ROOT, 13n),
  /** V2: u64 seize-exempt and seize-receiver policy ids at offsets 0/8. */
  seizePolicies: fieldSlot(B20_CORE_ROOT, 14n),
} as const;

/** `B20AssetExtensionStorage` field slots. */
export const AssetSlot = {
  /** u8, alone in its slot. */
  decimals: fieldSlot(B20_ASSET_ROOT, 0n),
  multiplier: fieldSlot(B20_ASSET_ROOT, 1n),
  usedAnnouncementIds: fieldSlot(B20_ASSET_ROOT, 2n),
  extraMetadata: fieldSlot(B20_ASSET_ROOT, 3n),
  /** V2: u128 pending multiplier at offset 0, u64 pending effective-at at offset 16. */
  pending: fieldSlot(B20_ASSET_ROOT, 4n),
} as const;

/** `B20StablecoinExtensionStorage`: the currency string. */
export const STABLECOIN_CURRENCY_SLOT = fieldSlot(B20_STABLECOIN_ROOT, 0n);

/** Where a policy scope's u64 id is packed: slot and byte offset (from the least-significant end). */
function policyLane(scope: bigint): { slot: bigint; offset: number } | undefined {
  switch (scope) {
    case B20PolicyScope.transferSender:
      return { slot: CoreSlot.transferPolicies, offset: 0 };
    case B20PolicyScope.transferReceiver:
      return { slot: CoreSlot.transferPolicies, offset: 8 };
    case B20PolicyScope.transferExecutor:
      return { slot: CoreSlot.transferPolicies, offset: 16 };
    case B20PolicyScope.mintReceiver:
      return { slot: CoreSlot.mintPolicies, offset: 0 };
    case B20PolicyScope.seizeExempt:
      return { slot: CoreSlot.seizePolicies, offset: 0 };
    case B20PolicyScope.seizeReceiver:
      return { slot: CoreSlot.seizePolicies, offset: 8 };
    default:
      return undefined;
  }
}

/** Lane offsets of the three transfer policy ids in their shared word. */
export const TransferLane = { sender: 0, receiver: 8, executor: 16 } as const;
/** Lane offsets of the pending ERC-8056 schedule in its shared word. */
const PendingLane = { multiplier: 0, effectiveAt: 16 } as const;
const U64_BITS = 64;
const U128_BITS = 128;
const U8_BITS = 8;

/** Solidity mapping slot of a string key: `keccak256(bytes(key) ‖ slot)`. */
function mappingSlotOfString(key: Uint8Array, slot: bigint): bigint {
  const buf = new Uint8Array(key.length + 32);
  buf.set(key);
  buf.set(u256Bytes(slot), key.length);
  return bytesToU256(keccak256(buf));
}

/** First data word of a long string stored at `slot`: `keccak256(slot)` (not metered). */
function dataSlot(slot: bigint): bigint {
  return bytesToU256(keccak256(u256Bytes(slot)));
}

const LONG_STRING_MAX = 0xffffffffn;
const SHORT_STRING_MAX = 31;
const WORD = 32;

/** Length of a stored string from its base word (base/base `calc_string_length`, its errors included). */
function storedLength(base: bigint): { long: boolean; length: number } {
  if ((base & 1n) === 1n) {
    const length = (base - 1n) >> 1n;
    if (length > LONG_STRING_MAX) throw new PrecompilePanicError(PanicCode.underOverflow);
    return { long: true, length: Number(length) };
  }
  const length = Number(base & 0xffn) >> 1;
  if (length > SHORT_STRING_MAX) throw new PrecompileFatalError(`short string length ${length} exceeds maximum of 31 bytes`);
  return { long: false, length };
}

/** Strict UTF-8 for stored strings (invalid bytes are a fatal storage fault in base/base). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Metered access to one token's storage. `cobaltStrings` selects the Cobalt string-write rule
 * (`UpgradeGatedStorageFeatures::from_upgrade`: Cobalt and later).
 */
export class TokenStorage {
  constructor(
    readonly ctx: BaseCallContext,
    readonly address: Uint8Array,
    readonly cobaltStrings: boolean,
  ) {}

  load(slot: bigint): bigint {
    return this.ctx.sload(this.address, slot);
  }

  store(slot: bigint, value: bigint): void {
    this.ctx.sstore(this.address, slot, value);
  }

  // --- ERC-20 state ---

  balanceOf(account: Uint8Array): bigint {
    return this.load(mappingSlotOfAddress(account, CoreSlot.balances));
  }

  setBalance(account: Uint8Array, balance: bigint): void {
    this.store(mappingSlotOfAddress(account, CoreSlot.balances), balance);
  }

  allowance(owner: Uint8Array, spender: Uint8Array): bigint {
    return this.load(mappingSlotOfAddress(spender, mappingSlotOfAddress(owner, CoreSlot.allowances)));
  }

  setAllowance(owner: Uint8Array, spender: Uint8Array, amount: bigint): void {
    this.store(mappingSlotOfAddress(spender, mappingSlotOfAddress(owner, CoreSlot.allowances)), amount);
  }

  totalSupply(): bigint {
    return this.load(CoreSlot.totalSupply);
  }

  setTotalSupply(supply: bigint): void {
    this.store(CoreSlot.totalSupply, supply);
  }

  supplyCap(): bigint {
    return this.load(CoreSlot.supplyCap);
  }

  setSupplyCap(cap: bigint): void {
    this.store(CoreSlot.supplyCap, cap);
  }

  paused(): bigint {
    return this.load(CoreSlot.paused);
  }

  setPaused(bits: bigint): void {
    this.store(CoreSlot.paused, bits);
  }

  nonce(owner: Uint8Array): bigint {
    return this.load(mappingSlotOfAddress(owner, CoreSlot.nonces));
  }

  setNonce(owner: Uint8Array, nonce: bigint): void {
    this.store(mappingSlotOfAddress(owner, CoreSlot.nonces), nonce);
  }

  // --- roles ---

  hasRole(role: bigint, account: Uint8Array): boolean {
    return this.load(mappingSlotOfAddress(account, mappingSlot(role, CoreSlot.roles))) !== 0n;
  }

  setRole(role: bigint, account: Uint8Array, enabled: boolean): void {
    this.store(mappingSlotOfAddress(account, mappingSlot(role, CoreSlot.roles)), enabled ? 1n : 0n);
  }

  /** Members of `role`: only DEFAULT_ADMIN is counted (`admin_count`); any other role reads 0 without a load. */
  roleMemberCount(role: bigint): bigint {
    return role === B20Role.defaultAdmin ? this.load(CoreSlot.adminCount) : 0n;
  }

  /** Sets the member count of `role`; a no-op for any role but DEFAULT_ADMIN. */
  setRoleMemberCount(role: bigint, count: bigint): void {
    if (role === B20Role.defaultAdmin) this.store(CoreSlot.adminCount, count);
  }

  /** The admin role of `role` (unset → DEFAULT_ADMIN, i.e. 0). */
  roleAdmin(role: bigint): bigint {
    return this.load(mappingSlot(role, CoreSlot.roleAdmins));
  }

  setRoleAdmin(role: bigint, adminRole: bigint): void {
    this.store(mappingSlot(role, CoreSlot.roleAdmins), adminRole);
  }

  // --- policies ---

  /** The policy id of a known scope (one load of its packed word). */
  policyId(scope: bigint): bigint {
    const lane = policyLane(scope)!;
    return readPacked(this.load(lane.slot), lane.offset, U64_BITS);
  }

  /** Writes the policy id of a known scope (read-modify-write of its packed word). */
  setPolicyId(scope: bigint, id: bigint): void {
    const lane = policyLane(scope)!;
    this.store(lane.slot, writePacked(this.load(lane.slot), lane.offset, U64_BITS, id));
  }

  /** The word holding the transfer sender/receiver/executor ids (V2 reads it once per transfer). */
  transferPolicyWord(): bigint {
    return this.load(CoreSlot.transferPolicies);
  }

  // --- strings ---

  readString(slot: bigint): string {
    return decodeUtf8(this.readBytes(slot));
  }

  readBytes(slot: bigint): Uint8Array {
    const base = this.load(slot);
    const { long, length } = storedLength(base);
    if (!long) return u256Bytes(base).subarray(0, length);
    const out = new Uint8Array(length);
    const start = dataSlot(slot);
    for (let i = 0; i * WORD < length; i++) {
      const chunk = u256Bytes(this.load(start + BigInt(i)));
      out.set(chunk.subarray(0, Math.min(WORD, length - i * WORD)), i * WORD);
    }
    return out;
  }

  writeString(slot: bigint, value: string): void {
    this.writeBytes(slot, new TextEncoder().encode(value));
  }

  writeBytes(slot: bigint, bytes: Uint8Array): void {
    const newChunks = bytes.length <= SHORT_STRING_MAX ? 0 : Math.ceil(bytes.length / WORD);
    if (this.cobaltStrings) {
      // Cobalt: refuse a static call before reading, then clear the stale tail of a shrinking value.
      if (this.ctx.env.isStatic) throw new StaticCallViolationError();
      const old = storedLength(this.load(slot));
      if (old.long) {
        const oldChunks = Math.ceil(old.length / WORD);
        const start = dataSlot(slot);
        for (let i = newChunks; i < oldChunks; i++) this.store(start + BigInt(i), 0n);
      }
    }
    if (bytes.length <= SHORT_STRING_MAX) {
      const word = new Uint8Array(WORD);
      word.set(bytes);
      word[WORD - 1] = bytes.length * 2;
      this.store(slot, bytesToU256(word));
      return;
    }
    this.store(slot, BigInt(bytes.length) * 2n + 1n);
    const start = dataSlot(slot);
    for (let i = 0; i < newChunks; i++) {
      const word = new Uint8Array(WORD);
      word.set(bytes.subarray(i * WORD, Math.min(bytes.length, (i + 1) * WORD)));
      this.store(start + BigInt(i), bytesToU256(word));
    }
  }

  /** Deletes a string: zeroes a long value's data words, then its base word. */
  deleteString(slot: bigint): void {
    const old = storedLength(this.load(slot));
    if (old.long) {
      const start = dataSlot(slot);
      for (let i = 0; i * WORD < old.length; i++) this.store(start + BigInt(i), 0n);
    }
    this.store(slot, 0n);
  }

  // --- asset extension ---

  /** Asset decimals (an unset slot reads as the 6-decimal minimum). */
  assetDecimals(): number {
    const raw = Number(readPacked(this.load(AssetSlot.decimals), 0, U8_BITS));
    return raw === 0 ? 6 : raw;
  }

  setAssetDecimals(decimals: number): void {
    this.store(AssetSlot.decimals, BigInt(decimals));
  }

  /** The stored multiplier, 0 (unset) reading as WAD. */
  storedMultiplier(wad: bigint): bigint {
    const m = this.load(AssetSlot.multiplier);
    return m === 0n ? wad : m;
  }

  setMultiplier(multiplier: bigint): void {
    this.store(AssetSlot.multiplier, multiplier);
  }

  pendingMultiplier(): bigint {
    return readPacked(this.load(AssetSlot.pending), PendingLane.multiplier, U128_BITS);
  }

  pendingEffectiveAt(): bigint {
    return readPacked(this.load(AssetSlot.pending), PendingLane.effectiveAt, U64_BITS);
  }

  /** Writes both pending lanes in one read-modify-write of their shared word (the word's top 8 bytes are kept). */
  setPending(multiplier: bigint, effectiveAt: bigint): void {
    const word = this.load(AssetSlot.pending);
    this.store(AssetSlot.pending, writePacked(writePacked(word, PendingLane.multiplier, U128_BITS, multiplier), PendingLane.effectiveAt, U64_BITS, effectiveAt));
  }

  isAnnouncementIdUsed(id: Uint8Array): boolean {
    return this.load(mappingSlotOfString(id, AssetSlot.usedAnnouncementIds)) !== 0n;
  }

  markAnnouncementIdUsed(id: Uint8Array): void {
    this.store(mappingSlotOfString(id, AssetSlot.usedAnnouncementIds), 1n);
  }

  extraMetadata(key: Uint8Array): string {
    return this.readString(mappingSlotOfString(key, AssetSlot.extraMetadata));
  }

  /** Sets an extra-metadata value; an empty value deletes the entry. */
  setExtraMetadata(key: Uint8Array, value: Uint8Array): void {
    const slot = mappingSlotOfString(key, AssetSlot.extraMetadata);
    if (value.length === 0) this.deleteString(slot);
    else this.writeBytes(slot, value);
  }
}

/** Strict UTF-8 decoding of stored string bytes. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new PrecompileFatalError("invalid UTF-8 in a stored string");
  }
}
