/**
 * The PolicyRegistry's logic, V1 (Beryl) and V2 (Cobalt): base/base `policy/logic/v1.rs`
 * (@1307d268, frozen at Beryl; the same code as the pre-versioned `policy/storage.rs` @01fe233a
 * that shipped in v1.1.1) and `policy/logic/v2.rs` (index id 61165412078: composite
 * UNION/INTERSECT policies). Every check runs in base/base's order, and every storage access is
 * the same metered operation in the same order (it decides cold/warm gas and the golden
 * footprints).
 *
 * Policy ids are `(type << 56) | counter`, the 56-bit counter shared by all types and starting at
 * 2: counters 0 and 1 are the built-ins `ALWAYS_ALLOW_ID = 0` (an empty BLOCKLIST) and
 * `ALWAYS_BLOCK_ID = (1 << 56) | 1` (an empty ALLOWLIST), written on the first creation together
 * with the registry's bytecode marker.
 */
import { encodeParams } from "../abi.js";
import { PrecompilePanicError, PrecompileRevertError, PanicCode } from "../errors.js";
import { addressToU256, u256Bytes } from "../slots.js";
import { PolicyErrors, PolicyEvents, PolicyType, type PolicyVersion } from "./abi.js";
import { packPolicy, policyWordAdmin, policyWordExists, type PolicyStore } from "./storage.js";

/** Built-in id authorizing everyone (BLOCKLIST, counter 0; also the zero default of every policy field). */
export const ALWAYS_ALLOW_ID = 0n;
/** Built-in id authorizing nobody (ALLOWLIST, counter 1). */
export const ALWAYS_BLOCK_ID = (1n << 56n) | 1n;
/** Counters taken by the built-ins; the first custom policy gets counter 2. */
export const BUILTIN_POLICY_COUNT = 2n;
/** The low 56 bits of an id: its counter. */
export const COUNTER_MASK = (1n << 56n) - 1n;
/** Largest account batch of `createPolicyWithAccounts` / `updateAllowlist` / `updateBlocklist`. */
export const MAX_ACCOUNTS_PER_BATCH = 64;
/** Fewest children of a composite (V2). */
export const MIN_CHILD_POLICIES = 2;
/** Most children of a composite (V2). */
export const MAX_CHILD_POLICIES = 4;

/** The type byte of an id. */
export function policyIdType(policyId: bigint): number {
  return Number(policyId >> 56n);
}

/** An id from its type and counter. */
export function makePolicyId(policyType: number, counter: bigint): bigint {
  return (BigInt(policyType) << 56n) | (counter & COUNTER_MASK);
}

const ZERO_ADDRESS = new Uint8Array(20);
const sameAddress = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
const isZero = (a: Uint8Array): boolean => a.every((b) => b === 0);
const revert = (data: Uint8Array): never => {
  throw new PrecompileRevertError(data);
};
const topicOf = (x: bigint): Uint8Array => u256Bytes(x);
const addressTopic = (a: Uint8Array): Uint8Array => u256Bytes(addressToU256(a));

const isBuiltin = (id: bigint): boolean => id === ALWAYS_ALLOW_ID || id === ALWAYS_BLOCK_ID;
const isComposite = (id: bigint): boolean => policyIdType(id) === PolicyType.UNION || policyIdType(id) === PolicyType.INTERSECT;
/** V1 knows types 0–1, V2 types 0–3; a larger type byte is a malformed id (unauthorized, nonexistent). */
const maxType = (version: PolicyVersion): number => (version === 1 ? PolicyType.ALLOWLIST : PolicyType.INTERSECT);
const isWellFormed = (version: PolicyVersion, id: bigint): boolean => policyIdType(id) <= maxType(version);

/** `require_custom` / `require_existing_policy`: the policy word, or `PolicyNotFound()`. */
function requireExisting(store: PolicyStore, policyId: bigint): bigint {
  const word = store.readPolicyWord(policyId);
  if (!policyWordExists(word)) revert(PolicyErrors.policyNotFound());
  return word;
}

/** `require_admin`: the policy must exist and the caller be its admin. */
function requireAdmin(store: PolicyStore, policyId: bigint): { word: bigint; caller: Uint8Array } {
  const word = requireExisting(store, policyId);
  const caller = store.caller;
  if (!sameAddress(policyWordAdmin(word), caller)) revert(PolicyErrors.unauthorized());
  return { word, caller };
}

function requireAccountBatch(accounts: readonly Uint8Array[]): void {
  if (accounts.length > MAX_ACCOUNTS_PER_BATCH) revert(PolicyErrors.batchSizeTooLarge(BigInt(MAX_ACCOUNTS_PER_BATCH)));
}

/** `ensure_initialized_and_get_counter`: on first touch the marker, both built-ins and counter 2. */
function ensureInitializedAndGetCounter(store: PolicyStore): bigint {
  const counter = store.readNextCounter();
  if (counter >= BUILTIN_POLICY_COUNT) return counter;
  store.markInitialized();
  const builtin = packPolicy(ZERO_ADDRESS);
  store.writePolicyWord(ALWAYS_ALLOW_ID, builtin);
  store.writePolicyWord(ALWAYS_BLOCK_ID, builtin);
  store.writeNextCounter(BUILTIN_POLICY_COUNT);
  return BUILTIN_POLICY_COUNT;
}

/** `create_policy_inner`: takes the next counter, writes the word, emits PolicyCreated and PolicyAdminUpdated. */
function createPolicyInner(store: PolicyStore, admin: Uint8Array, policyType: number): bigint {
  const counter = ensureInitializedAndGetCounter(store);
  if (counter >= COUNTER_MASK) throw new PrecompilePanicError(PanicCode.underOverflow);
  store.writeNextCounter(counter + 1n);
  const policyId = makePolicyId(policyType, counter);
  store.writePolicyWord(policyId, packPolicy(admin));
  const caller = store.caller;
  store.emit([PolicyEvents.PolicyCreated, topicOf(policyId), addressTopic(caller)], encodeParams(["uint8"], [BigInt(policyType)]));
  store.emit([PolicyEvents.PolicyAdminUpdated, topicOf(policyId), addressTopic(ZERO_ADDRESS), addressTopic(admin)], new Uint8Array(0));
  return policyId;
}

/** Input checks of `createPolicy`/`createPolicyWithAccounts`: V1 zero admin; V2 zero admin, then simple types only. */
function validateCreate(version: PolicyVersion, admin: Uint8Array, policyType: number): void {
  if (isZero(admin)) revert(PolicyErrors.zeroAddress());
  if (version >= 2 && policyType !== PolicyType.BLOCKLIST && policyType !== PolicyType.ALLOWLIST) revert(PolicyErrors.incompatiblePolicyType());
}

function membershipEvent(store: PolicyStore, policyId: bigint, policyType: number, caller: Uint8Array, flag: boolean, accounts: readonly Uint8Array[]): void {
  const topic0 = policyType === PolicyType.ALLOWLIST ? PolicyEvents.AllowlistUpdated : PolicyEvents.BlocklistUpdated;
  store.emit([topic0, topicOf(policyId), addressTopic(caller)], encodeParams(["bool", "address[]"], [flag, [...accounts]]));
}

/** `createPolicy(admin, policyType)`: the new id. */
export function createPolicy(store: PolicyStore, version: PolicyVersion, admin: Uint8Array, policyType: number): bigint {
  validateCreate(version, admin, policyType);
  return createPolicyInner(store, admin, policyType);
}

/** `createPolicyWithAccounts(admin, policyType, accounts)`: creates, then adds every account. */
export function createPolicyWithAccounts(store: PolicyStore, version: PolicyVersion, admin: Uint8Array, policyType: number, accounts: readonly Uint8Array[]): bigint {
  validateCreate(version, admin, policyType);
  requireAccountBatch(accounts);
  const policyId = createPolicyInner(store, admin, policyType);
  const caller = store.caller;
  for (const account of accounts) store.setMember(policyId, account);
  membershipEvent(store, policyId, policyType, caller, true, accounts);
  return policyId;
}

/** `stageUpdateAdmin(policyId, newAdmin)`: zero clears a staged transfer. */
export function stageUpdateAdmin(store: PolicyStore, policyId: bigint, newAdmin: Uint8Array): void {
  const { caller } = requireAdmin(store, policyId);
  if (isZero(newAdmin)) store.deletePendingAdmin(policyId);
  else store.writePendingAdmin(policyId, newAdmin);
  store.emit([PolicyEvents.PolicyAdminStaged, topicOf(policyId), addressTopic(caller), addressTopic(newAdmin)], new Uint8Array(0));
}

/** `finalizeUpdateAdmin(policyId)`: the staged admin takes over. */
export function finalizeUpdateAdmin(store: PolicyStore, policyId: bigint): void {
  const word = requireExisting(store, policyId);
  const pending = store.readPendingAdmin(policyId);
  if (isZero(pending)) revert(PolicyErrors.noPendingAdmin());
  const caller = store.caller;
  if (!sameAddress(pending, caller)) revert(PolicyErrors.unauthorized());
  const previous = policyWordAdmin(word);
  store.writePolicyWord(policyId, packPolicy(caller));
  store.deletePendingAdmin(policyId);
  store.emit([PolicyEvents.PolicyAdminUpdated, topicOf(policyId), addressTopic(previous), addressTopic(caller)], new Uint8Array(0));
}

/** `renounceAdmin(policyId)`: the policy keeps existing with a zero admin. */
export function renounceAdmin(store: PolicyStore, policyId: bigint): void {
  const { caller } = requireAdmin(store, policyId);
  store.writePolicyWord(policyId, packPolicy(ZERO_ADDRESS));
  store.deletePendingAdmin(policyId);
  store.emit([PolicyEvents.PolicyAdminUpdated, topicOf(policyId), addressTopic(caller), addressTopic(ZERO_ADDRESS)], new Uint8Array(0));
}

/** `updateAllowlist` / `updateBlocklist`: existence → type → admin → batch size, then one write per account. */
export function updateMembership(store: PolicyStore, policyId: bigint, expectedType: number, add: boolean, accounts: readonly Uint8Array[]): void {
  const word = requireExisting(store, policyId);
  if (policyIdType(policyId) !== expectedType) revert(PolicyErrors.incompatiblePolicyType());
  const caller = store.caller;
  if (!sameAddress(policyWordAdmin(word), caller)) revert(PolicyErrors.unauthorized());
  requireAccountBatch(accounts);
  for (const account of accounts) {
    if (add) store.setMember(policyId, account);
    else store.deleteMember(policyId, account);
  }
  membershipEvent(store, policyId, expectedType, caller, add, accounts);
}

function requireChildCount(children: readonly bigint[]): void {
  if (children.length < MIN_CHILD_POLICIES || children.length > MAX_CHILD_POLICIES) revert(PolicyErrors.childPoliciesOutsideOfRange());
}

/** Every child must exist (first pass, `PolicyNotFound`), then be a custom simple policy (`InvalidChildPolicy`). */
function validateChildren(store: PolicyStore, children: readonly bigint[]): void {
  for (const child of children) requireExisting(store, child);
  for (const child of children) if (isBuiltin(child) || isComposite(child)) revert(PolicyErrors.invalidChildPolicy(child));
}

function compositeEvent(store: PolicyStore, policyId: bigint, children: readonly bigint[]): void {
  store.emit([PolicyEvents.CompositePolicyUpdated, topicOf(policyId), addressTopic(store.caller)], encodeParams(["uint64[]"], [[...children]]));
}

/** V2 `createCompositePolicy(admin, policyType, childPolicyIds)`. */
export function createCompositePolicy(store: PolicyStore, admin: Uint8Array, policyType: number, children: readonly bigint[]): bigint {
  if (isZero(admin)) revert(PolicyErrors.zeroAddress());
  if (policyType !== PolicyType.UNION && policyType !== PolicyType.INTERSECT) revert(PolicyErrors.incompatiblePolicyType());
  requireChildCount(children);
  validateChildren(store, children);
  const policyId = createPolicyInner(store, admin, policyType);
  store.writeChildren(policyId, children);
  compositeEvent(store, policyId, children);
  return policyId;
}

/** V2 `updateComposite(policyId, childPolicyIds)`: replaces the child set. */
export function updateComposite(store: PolicyStore, policyId: bigint, children: readonly bigint[]): void {
  const word = requireExisting(store, policyId);
  if (!isComposite(policyId)) revert(PolicyErrors.incompatiblePolicyType());
  if (!sameAddress(policyWordAdmin(word), store.caller)) revert(PolicyErrors.unauthorized());
  requireChildCount(children);
  validateChildren(store, children);
  store.writeChildren(policyId, children);
  compositeEvent(store, policyId, children);
}

/**
 * `isAuthorized(policyId, account)`. V1: malformed → false, built-ins without a read, then one
 * membership read (an unwritten policy reads as empty: ALLOWLIST denies, BLOCKLIST allows). V2:
 * built-ins first, then malformed → false, composites evaluated over their children (UNION: any
 * child, stopping at the first yes; INTERSECT: every child, stopping at the first no).
 */
export function isAuthorized(store: PolicyStore, version: PolicyVersion, policyId: bigint, account: Uint8Array): boolean {
  if (version === 1 && !isWellFormed(1, policyId)) return false;
  if (policyId === ALWAYS_ALLOW_ID) return true;
  if (policyId === ALWAYS_BLOCK_ID) return false;
  if (!isWellFormed(version, policyId)) return false;
  switch (policyIdType(policyId)) {
    case PolicyType.UNION:
      for (const child of store.readChildren(policyId)) if (isAuthorized(store, version, child, account)) return true;
      return false;
    case PolicyType.INTERSECT:
      for (const child of store.readChildren(policyId)) if (!isAuthorized(store, version, child, account)) return false;
      return true;
    case PolicyType.ALLOWLIST:
      return store.readMember(policyId, account);
    default:
      return !store.readMember(policyId, account);
  }
}

/** `policyExists(policyId)`: built-ins without a read, malformed ids never, else the exists bit. */
export function policyExists(store: PolicyStore, version: PolicyVersion, policyId: bigint): boolean {
  if (version === 1 && !isWellFormed(1, policyId)) return false;
  if (isBuiltin(policyId)) return true;
  if (!isWellFormed(version, policyId)) return false;
  return policyWordExists(store.readPolicyWord(policyId));
}

/** `policyAdmin(policyId)`: zero for malformed or never-created ids. */
export function policyAdmin(store: PolicyStore, version: PolicyVersion, policyId: bigint): Uint8Array {
  if (!isWellFormed(version, policyId)) return ZERO_ADDRESS;
  const word = store.readPolicyWord(policyId);
  return policyWordExists(word) ? policyWordAdmin(word) : ZERO_ADDRESS;
}

/** `pendingPolicyAdmin(policyId)`: zero for malformed ids and the built-ins, else the staged admin. */
export function pendingPolicyAdmin(store: PolicyStore, version: PolicyVersion, policyId: bigint): Uint8Array {
  if (!isWellFormed(version, policyId)) return ZERO_ADDRESS;
  if (isBuiltin(policyId)) return ZERO_ADDRESS;
  return store.readPendingAdmin(policyId);
}

/** V2 `compositePolicyChildIds(policyId)`: the children of a composite, empty otherwise. */
export function compositePolicyChildIds(store: PolicyStore, policyId: bigint): bigint[] {
  if (!isWellFormed(2, policyId) || !isComposite(policyId)) return [];
  return store.readChildren(policyId);
}
