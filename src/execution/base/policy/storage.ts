/**
 * The PolicyRegistry's storage at `0x8453…0002` (base/base `policy/storage.rs` @01fe233a,
 * `PolicyRegistryStorage`, namespace `"base.policy_registry"`, root `0x00503aeb…4a00`; slots are
 * append-only across upgrades):
 *
 * | slot | field |
 * |---|---|
 * | 0 | `mapping(uint64 => uint256) policies` — the packed policy word: bit 255 "exists", low 160 bits the admin |
 * | 1 | `mapping(uint64 => mapping(address => bool)) members` |
 * | 2 | `mapping(uint64 => address) pendingAdmins` |
 * | 3 | `uint64 nextCounter` — the shared 56-bit id counter (2 once the built-ins exist) |
 * | 4 | `mapping(uint64 => uint64[]) children` — composite child ids (Cobalt, V2) |
 *
 * Every read and write goes through the call context, so it is metered and counted exactly as
 * base/base's `PolicyAccounting` implementation over the storage provider does (mapping-slot
 * hashing is free; a `uint64`/`address` field alone in its slot is written whole, without a read).
 */
import { POLICY_REGISTRY_ADDRESS } from "../addresses.js";
import type { BaseCallContext } from "../context.js";
import { addressToU256, erc7201Root, fieldSlot, mappingSlot, mappingSlotOfAddress, u256ToAddress } from "../slots.js";
import { keccak256 } from "../../../util/keccak.js";
import { bytesToU256, u256Bytes } from "../slots.js";
import { PRECOMPILE_MARKER_CODE } from "../activation/registry.js";

/** ERC-7201 namespace of the registry's storage. */
const POLICY_REGISTRY_NAMESPACE = "base.policy_registry";
/** `0x00503aeb06982fa1fe3151dc68f90b3946c55c449dfd447e49dcaece71ba4a00` (pinned in base/base's storage tests). */
const POLICY_REGISTRY_ROOT = erc7201Root(POLICY_REGISTRY_NAMESPACE);
/** Slot 0: policy words. */
const POLICIES_SLOT = fieldSlot(POLICY_REGISTRY_ROOT, 0n);
/** Slot 1: membership. */
const MEMBERS_SLOT = fieldSlot(POLICY_REGISTRY_ROOT, 1n);
/** Slot 2: staged admins. */
const PENDING_ADMINS_SLOT = fieldSlot(POLICY_REGISTRY_ROOT, 2n);
/** Slot 3: the next policy-id counter. */
export const NEXT_COUNTER_SLOT = fieldSlot(POLICY_REGISTRY_ROOT, 3n);
/** Slot 4: composite child-id arrays (V2). */
const CHILDREN_SLOT = fieldSlot(POLICY_REGISTRY_ROOT, 4n);

/** Bit 255 of a policy word: set for every written policy, so a zero word means "never created". */
const POLICY_EXISTS_BIT = 1n << 255n;
const ADMIN_MASK = (1n << 160n) - 1n;
const U64_MASK = (1n << 64n) - 1n;

/** The slot of `policies[policyId]`. */
export function policyWordSlot(policyId: bigint): bigint {
  return mappingSlot(policyId, POLICIES_SLOT);
}

/** The slot of `members[policyId][account]`. */
export function memberSlot(policyId: bigint, account: Uint8Array): bigint {
  return mappingSlotOfAddress(account, mappingSlot(policyId, MEMBERS_SLOT));
}

/** The slot of `pendingAdmins[policyId]`. */
function pendingAdminSlot(policyId: bigint): bigint {
  return mappingSlot(policyId, PENDING_ADMINS_SLOT);
}

/** The length slot of `children[policyId]`; its elements follow Solidity's dynamic-array rule (4 `uint64` per word from `keccak256(lengthSlot)`). */
function childrenSlot(policyId: bigint): bigint {
  return mappingSlot(policyId, CHILDREN_SLOT);
}

/** The packed word of a created policy with `admin` (base/base `PackedPolicy::new`). */
export function packPolicy(admin: Uint8Array): bigint {
  return POLICY_EXISTS_BIT | addressToU256(admin);
}

/** Whether a policy word has the exists bit. */
export function policyWordExists(word: bigint): boolean {
  return (word & POLICY_EXISTS_BIT) !== 0n;
}

/** The admin held in a policy word. */
export function policyWordAdmin(word: bigint): Uint8Array {
  return u256ToAddress(word & ADMIN_MASK);
}

/** First word of a dynamic array's data: `keccak256(lengthSlot)`. */
function arrayDataSlot(lengthSlot: bigint): bigint {
  return bytesToU256(keccak256(u256Bytes(lengthSlot)));
}

/**
 * base/base's `PolicyAccounting` over the call's storage: each method is one metered storage
 * operation at the registry address (children: the length and one word per 4 ids).
 */
export class PolicyStore {
  constructor(private readonly ctx: BaseCallContext) {}

  get caller(): Uint8Array {
    return this.ctx.caller;
  }

  readPolicyWord(policyId: bigint): bigint {
    return this.ctx.sload(POLICY_REGISTRY_ADDRESS, policyWordSlot(policyId));
  }

  writePolicyWord(policyId: bigint, word: bigint): void {
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, policyWordSlot(policyId), word);
  }

  readMember(policyId: bigint, account: Uint8Array): boolean {
    return this.ctx.sload(POLICY_REGISTRY_ADDRESS, memberSlot(policyId, account)) !== 0n;
  }

  setMember(policyId: bigint, account: Uint8Array): void {
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, memberSlot(policyId, account), 1n);
  }

  deleteMember(policyId: bigint, account: Uint8Array): void {
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, memberSlot(policyId, account), 0n);
  }

  readPendingAdmin(policyId: bigint): Uint8Array {
    return u256ToAddress(this.ctx.sload(POLICY_REGISTRY_ADDRESS, pendingAdminSlot(policyId)));
  }

  writePendingAdmin(policyId: bigint, admin: Uint8Array): void {
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, pendingAdminSlot(policyId), addressToU256(admin));
  }

  deletePendingAdmin(policyId: bigint): void {
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, pendingAdminSlot(policyId), 0n);
  }

  readNextCounter(): bigint {
    return this.ctx.sload(POLICY_REGISTRY_ADDRESS, NEXT_COUNTER_SLOT) & U64_MASK;
  }

  writeNextCounter(counter: bigint): void {
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, NEXT_COUNTER_SLOT, counter);
  }

  /** The registry's bytecode marker (base/base `__initialize`), written before its first storage write. */
  markInitialized(): void {
    this.ctx.setCode(POLICY_REGISTRY_ADDRESS, PRECOMPILE_MARKER_CODE);
  }

  /** The composite's child ids: the length, then one word per 4 ids (empty for a non-composite). */
  readChildren(policyId: bigint): bigint[] {
    const lengthSlot = childrenSlot(policyId);
    const length = Number(this.ctx.sload(POLICY_REGISTRY_ADDRESS, lengthSlot) & U64_MASK);
    const data = arrayDataSlot(lengthSlot);
    const out: bigint[] = [];
    for (let w = 0; w * 4 < length; w++) {
      const packed = this.ctx.sload(POLICY_REGISTRY_ADDRESS, data + BigInt(w));
      for (let i = 0; i < 4 && w * 4 + i < length; i++) out.push((packed >> BigInt(64 * i)) & U64_MASK);
    }
    return out;
  }

  /** Replaces the composite's child ids: the length, then each data word whole (4 ids per word, first id in the low bits). */
  writeChildren(policyId: bigint, children: readonly bigint[]): void {
    const lengthSlot = childrenSlot(policyId);
    this.ctx.sstore(POLICY_REGISTRY_ADDRESS, lengthSlot, BigInt(children.length));
    const data = arrayDataSlot(lengthSlot);
    for (let w = 0; w * 4 < children.length; w++) {
      let packed = 0n;
      for (let i = 0; i < 4 && w * 4 + i < children.length; i++) packed |= (children[w * 4 + i]! & U64_MASK) << BigInt(64 * i);
      this.ctx.sstore(POLICY_REGISTRY_ADDRESS, data + BigInt(w), packed);
    }
  }

  emit(topics: Uint8Array[], data: Uint8Array): void {
    this.ctx.emit(POLICY_REGISTRY_ADDRESS, topics, data);
  }
}
