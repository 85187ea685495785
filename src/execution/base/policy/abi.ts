/**
 * The PolicyRegistry's wire surfaces (`IPolicyRegistry`): V1 frozen at Beryl (base/base
 * `policy/abi/v1.rs` @734e844e, "literal copy of the interface as shipped"), V2 at Cobalt (V1 plus
 * the composite functions; `abi/v3.rs` @0485d3f9 minus `invertedPolicyId`), as listed with their
 * selectors in `../shared/fixtures/base-upgrades/b20_abi_facts.json`.
 *
 * Decoding follows base/base `PolicyAbi` (`policy/versions.rs` @079d372d): alloy's
 * `abi_decode_validate` of the version's `IPolicyRegistryCalls`, which first refuses calldata
 * shorter than `MIN_DATA_LENGTH + 4` with a type-check error naming the interface (V1's minimum
 * is 32 argument bytes, V2's 0 because of its zero-argument getters), then decodes and
 * type-checks the arguments — the `PolicyType` enum included. A failure reverts with
 * `selector ‖ utf8(alloy's message)`.
 */
import { AbiOverrunError, AbiTypeCheckError, decodeParams, encodeCall, encodeSingle, eventTopic, selectorOf, type AbiValue } from "../abi.js";
import { AbiDecodeError } from "../errors.js";

/** A PolicyRegistry wire version. */
export type PolicyVersion = 1 | 2;

/** One function of the surface. */
export interface PolicyFunction {
  readonly name: string;
  readonly selector: Uint8Array;
  /** Argument types in order (`PolicyType` is `uint8` on the wire). */
  readonly inputs: readonly string[];
  /** Index of the `PolicyType` argument, range-checked against the version's enum. */
  readonly policyTypeArg?: number;
  /** A view: bypasses the activation gate (base/base `dispatch`'s view list). */
  readonly view: boolean;
  /** The first version whose surface has it. */
  readonly since: PolicyVersion;
}

function fn(name: string, inputs: string[], view: boolean, since: PolicyVersion, policyTypeArg?: number): PolicyFunction {
  return { name, selector: selectorOf(`${name}(${inputs.join(",")})`), inputs, view, since, ...(policyTypeArg === undefined ? {} : { policyTypeArg }) };
}

/** Every function of the V1 and V2 surfaces. */
const POLICY_FUNCTIONS: readonly PolicyFunction[] = [
  fn("createPolicy", ["address", "uint8"], false, 1, 1),
  fn("createPolicyWithAccounts", ["address", "uint8", "address[]"], false, 1, 1),
  fn("stageUpdateAdmin", ["uint64", "address"], false, 1),
  fn("finalizeUpdateAdmin", ["uint64"], false, 1),
  fn("renounceAdmin", ["uint64"], false, 1),
  fn("updateAllowlist", ["uint64", "bool", "address[]"], false, 1),
  fn("updateBlocklist", ["uint64", "bool", "address[]"], false, 1),
  fn("isAuthorized", ["uint64", "address"], true, 1),
  fn("policyExists", ["uint64"], true, 1),
  fn("policyAdmin", ["uint64"], true, 1),
  fn("pendingPolicyAdmin", ["uint64"], true, 1),
  fn("createCompositePolicy", ["address", "uint8", "uint64[]"], false, 2, 1),
  fn("updateComposite", ["uint64", "uint64[]"], false, 2),
  fn("MIN_COMPOSITE_CHILD_POLICIES", [], true, 2),
  fn("MAX_COMPOSITE_CHILD_POLICIES", [], true, 2),
  fn("compositePolicyChildIds", ["uint64"], true, 2),
];

const BY_SELECTOR = new Map(POLICY_FUNCTIONS.map((f) => [Buffer.from(f.selector).toString("hex"), f]));

/** The function `selector` names on `version`'s surface, if any (later versions' selectors are unknown). */
export function policyFunction(selector: Uint8Array, version: PolicyVersion): PolicyFunction | undefined {
  const f = BY_SELECTOR.get(Buffer.from(selector).toString("hex"));
  return f !== undefined && f.since <= version ? f : undefined;
}

/** `PolicyType` ordinals (consensus data: they ride the top byte of every policy id). */
export const PolicyType = { BLOCKLIST: 0, ALLOWLIST: 1, UNION: 2, INTERSECT: 3 } as const;

/** Number of `PolicyType` variants on each surface (V1: BLOCKLIST, ALLOWLIST; V2 adds UNION, INTERSECT). */
const POLICY_TYPE_COUNT: Record<PolicyVersion, number> = { 1: 2, 2: 4 };

/** `MIN_DATA_LENGTH` of each surface's `IPolicyRegistryCalls` (the shortest argument encoding). */
const MIN_DATA_LENGTH: Record<PolicyVersion, number> = { 1: 32, 2: 0 };

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/**
 * Decodes `input` (selector included) as `f` on `version`'s surface with alloy's validation;
 * throws {@link AbiDecodeError} with alloy's message on failure.
 */
export function decodePolicyCall(f: PolicyFunction, version: PolicyVersion, input: Uint8Array): AbiValue[] {
  const selector = f.selector;
  if (input.length < MIN_DATA_LENGTH[version] + 4) throw new AbiDecodeError(selector, new AbiTypeCheckError("IPolicyRegistryCalls", hex(input)).message);
  let values: AbiValue[];
  try {
    values = decodeParams(f.inputs, input.subarray(4));
  } catch (e) {
    if (e instanceof AbiOverrunError || e instanceof AbiTypeCheckError) throw new AbiDecodeError(selector, e.message);
    throw e;
  }
  if (f.policyTypeArg !== undefined && (values[f.policyTypeArg] as bigint) >= BigInt(POLICY_TYPE_COUNT[version])) {
    // An out-of-range enum fails alloy's type check of the whole argument tuple, printed re-encoded.
    const tuple = `(${f.inputs.join(",")})`;
    throw new AbiDecodeError(selector, new AbiTypeCheckError(tuple, hex(encodeSingle(tuple, values))).message);
  }
  return values;
}

/** Event topics. */
export const PolicyEvents = {
  PolicyCreated: eventTopic("PolicyCreated(uint64,address,uint8)"),
  PolicyAdminStaged: eventTopic("PolicyAdminStaged(uint64,address,address)"),
  PolicyAdminUpdated: eventTopic("PolicyAdminUpdated(uint64,address,address)"),
  AllowlistUpdated: eventTopic("AllowlistUpdated(uint64,address,bool,address[])"),
  BlocklistUpdated: eventTopic("BlocklistUpdated(uint64,address,bool,address[])"),
  CompositePolicyUpdated: eventTopic("CompositePolicyUpdated(uint64,address,uint64[])"),
} as const;

const err = (signature: string, types: string[] = [], values: AbiValue[] = []): Uint8Array => encodeCall(selectorOf(signature), types, values);

/** The registry's custom errors, ABI-encoded. */
export const PolicyErrors = {
  nonPayable: () => err("NonPayable()"),
  unauthorized: () => err("Unauthorized()"),
  policyNotFound: () => err("PolicyNotFound()"),
  incompatiblePolicyType: () => err("IncompatiblePolicyType()"),
  zeroAddress: () => err("ZeroAddress()"),
  batchSizeTooLarge: (max: bigint) => err("BatchSizeTooLarge(uint256)", ["uint256"], [max]),
  noPendingAdmin: () => err("NoPendingAdmin()"),
  childPoliciesOutsideOfRange: () => err("ChildPoliciesOutsideOfRange()"),
  invalidChildPolicy: (child: bigint) => err("InvalidChildPolicy(uint64)", ["uint64"], [child]),
} as const;
