/**
 * Revert data and logs of the B-20 precompiles: custom errors as `selector ‖ abi.encode(args)`
 * and events as topics (signature hash, then indexed arguments as words) plus ABI-encoded data,
 * with the signatures of base/base's `sol!` interfaces (IB20, IB20Asset, IB20Factory).
 */
import { encodeCall, encodeParams, eventTopic, selectorOf, type AbiValue } from "../abi.js";
import type { BaseCallContext } from "../context.js";
import { PrecompileRevertError } from "../errors.js";
import { u256Bytes } from "../slots.js";

/**
 * A custom error's revert data builder (the selector is computed once). `bytes32` arguments are
 * passed as integers (role and scope ids), which encode as the same word.
 */
export function customError(name: string, types: readonly string[]): (...values: AbiValue[]) => PrecompileRevertError {
  const selector = selectorOf(`${name}(${types.join(",")})`);
  const wire = types.map((t) => (t === "bytes32" ? "uint256" : t));
  return (...values) => new PrecompileRevertError(encodeCall(selector, wire, values));
}

/** An address as a 32-byte word (an indexed event argument). */
export function addressWord(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

/** One event: its topic 0, the types of its non-indexed arguments, and an emitter. */
export interface EventSpec {
  readonly topic0: Uint8Array;
  emit(ctx: BaseCallContext, address: Uint8Array, indexed: readonly Uint8Array[], data: readonly AbiValue[]): void;
}

/** An event with `signature` whose non-indexed arguments are `dataTypes`. */
export function eventSpec(signature: string, dataTypes: readonly string[]): EventSpec {
  const topic0 = eventTopic(signature);
  return {
    topic0,
    emit(ctx, address, indexed, data) {
      ctx.emit(address, [topic0, ...indexed], dataTypes.length === 0 ? new Uint8Array(0) : encodeParams(dataTypes, data));
    },
  };
}

/** A 256-bit value as an indexed topic. */
export const wordTopic = u256Bytes;

/** IB20 errors (base/base `common/abi/v1.rs`, `v2.rs`). */
export const B20Error = {
  nonPayable: customError("NonPayable", []),
  unauthorizedAccount: customError("AccessControlUnauthorizedAccount", ["address", "bytes32"]),
  contractPaused: customError("ContractPaused", ["uint8"]),
  insufficientAllowance: customError("InsufficientAllowance", ["address", "uint256", "uint256"]),
  insufficientBalance: customError("InsufficientBalance", ["address", "uint256", "uint256"]),
  invalidSender: customError("InvalidSender", ["address"]),
  invalidReceiver: customError("InvalidReceiver", ["address"]),
  invalidApprover: customError("InvalidApprover", ["address"]),
  invalidSpender: customError("InvalidSpender", ["address"]),
  emptyFeatureSet: customError("EmptyFeatureSet", []),
  invalidSupplyCap: customError("InvalidSupplyCap", ["uint256", "uint256"]),
  supplyCapExceeded: customError("SupplyCapExceeded", ["uint256", "uint256"]),
  policyForbids: customError("PolicyForbids", ["bytes32", "uint64"]),
  policyNotFound: customError("PolicyNotFound", ["uint64"]),
  unsupportedPolicyType: customError("UnsupportedPolicyType", ["bytes32"]),
  accountNotBlocked: customError("AccountNotBlocked", ["address"]),
  expiredSignature: customError("ExpiredSignature", ["uint256"]),
  invalidSigner: customError("InvalidSigner", ["address", "address"]),
  lastAdminCannotRenounce: customError("LastAdminCannotRenounce", []),
  notSoleAdmin: customError("NotSoleAdmin", []),
  badConfirmation: customError("AccessControlBadConfirmation", []),
  accountNotSeizable: customError("AccountNotSeizable", ["address"]),
} as const;

/** IB20Asset errors (base/base `b20_asset/abi/v1.rs`, `v2.rs`). */
export const AssetError = {
  announcementIdAlreadyUsed: customError("AnnouncementIdAlreadyUsed", ["string"]),
  invalidMetadataKey: customError("InvalidMetadataKey", []),
  invalidMultiplier: customError("InvalidMultiplier", []),
  lengthMismatch: customError("LengthMismatch", ["uint256", "uint256"]),
  emptyBatch: customError("EmptyBatch", []),
  announcementInProgress: customError("AnnouncementInProgress", []),
  internalCallMalformed: customError("InternalCallMalformed", ["bytes"]),
  internalCallFailed: customError("InternalCallFailed", ["bytes"]),
  effectiveAtInPast: customError("EffectiveAtInPast", ["uint256"]),
  effectiveAtTooFar: customError("EffectiveAtTooFar", ["uint256"]),
  updateExists: customError("UIMultiplierUpdateExists", ["uint256"]),
  updateDoesNotExist: customError("UIMultiplierUpdateDoesNotExist", []),
} as const;

/** IB20 events. */
export const B20Event = {
  transfer: eventSpec("Transfer(address,address,uint256)", ["uint256"]),
  approval: eventSpec("Approval(address,address,uint256)", ["uint256"]),
  memo: eventSpec("Memo(address,bytes32)", []),
  burnedBlocked: eventSpec("BurnedBlocked(address,address,uint256)", ["uint256"]),
  roleGranted: eventSpec("RoleGranted(bytes32,address,address)", []),
  roleRevoked: eventSpec("RoleRevoked(bytes32,address,address)", []),
  roleAdminChanged: eventSpec("RoleAdminChanged(bytes32,bytes32,bytes32)", []),
  lastAdminRenounced: eventSpec("LastAdminRenounced(address)", []),
  paused: eventSpec("Paused(address,uint8[])", ["uint8[]"]),
  unpaused: eventSpec("Unpaused(address,uint8[])", ["uint8[]"]),
  policyUpdated: eventSpec("PolicyUpdated(bytes32,uint64,uint64)", ["uint64", "uint64"]),
  supplyCapUpdated: eventSpec("SupplyCapUpdated(address,uint256,uint256)", ["uint256", "uint256"]),
  contractUriUpdated: eventSpec("ContractURIUpdated()", []),
  nameUpdated: eventSpec("NameUpdated(address,string)", ["string"]),
  symbolUpdated: eventSpec("SymbolUpdated(address,string)", ["string"]),
  eip712DomainChanged: eventSpec("EIP712DomainChanged()", []),
  seized: eventSpec("Seized(address,address,address,uint256)", ["uint256"]),
} as const;

/** IB20Asset events. */
export const AssetEvent = {
  multiplierUpdated: eventSpec("MultiplierUpdated(uint256)", ["uint256"]),
  extraMetadataUpdated: eventSpec("ExtraMetadataUpdated(string,string)", ["string", "string"]),
  announcement: eventSpec("Announcement(address,string,string,string)", ["string", "string", "string"]),
  endAnnouncement: eventSpec("EndAnnouncement(string)", ["string"]),
  uiMultiplierUpdated: eventSpec("UIMultiplierUpdated(uint256,uint256,uint256)", ["uint256", "uint256", "uint256"]),
  uiMultiplierUpdateCancelled: eventSpec("UIMultiplierUpdateCancelled(uint256,uint256)", ["uint256", "uint256"]),
} as const;
