/**
 * The ABI wire surfaces of the B-20 token precompiles, one per fork that moved them (base/base
 * `common/abi/v1.rs` = IB20 at Beryl, `common/abi/v2.rs` = IB20 at Cobalt, `b20_asset/abi/v1.rs`,
 * `v2.rs`, `b20_stablecoin/abi/v1.rs`): which selectors are dialable, and how their arguments
 * decode. Decoding mirrors base/base's dispatchers over alloy: calldata shorter than 4 bytes is
 * `UnknownFunctionSelector(0x00000000)`, a selector the surface lacks is
 * `UnknownFunctionSelector(selector)`, and a known selector whose arguments fail alloy's checks
 * is `AbiDecodeFailed(selector, message)`. Enum parameters are `uint8enum<N>` (N members).
 */
import { AbiOverrunError, AbiTypeCheckError, decodeParams, selectorOf, type AbiValue } from "../abi.js";
import { AbiDecodeError, UnknownSelectorError } from "../errors.js";
import { V1_PAUSABLE_FEATURES, V2_PAUSABLE_FEATURES } from "./constants.js";

/** One function of a surface: its name, argument types, and selector. */
interface AbiFunction {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly selector: Uint8Array;
  /** The selector as an integer (the surface's map key). */
  readonly key: number;
}

/** The canonical type of an argument type as it appears in a signature (`uint8enum3[]` → `uint8[]`). */
function canonical(type: string): string {
  return type.replace(/uint8enum\d+/g, "uint8");
}

/** A function of a surface from its name and argument types. */
export function abiFunction(name: string, inputs: readonly string[]): AbiFunction {
  const selector = selectorOf(`${name}(${inputs.map(canonical).join(",")})`);
  return { name, inputs, selector, key: selectorKey(selector) };
}

/** A 4-byte selector as an integer. */
export function selectorKey(selector: Uint8Array): number {
  return ((selector[0]! << 24) | (selector[1]! << 16) | (selector[2]! << 8) | selector[3]!) >>> 0;
}

/** A set of dialable functions keyed by selector. */
export class AbiSurface {
  private readonly byKey = new Map<number, AbiFunction>();

  constructor(readonly functions: readonly AbiFunction[]) {
    for (const f of functions) this.byKey.set(f.key, f);
  }

  /** The function `selector` dials, if this surface has it. */
  get(selector: Uint8Array): AbiFunction | undefined {
    return this.byKey.get(selectorKey(selector));
  }

  /** A surface with more functions (a later fork's). */
  extend(functions: readonly AbiFunction[]): AbiSurface {
    return new AbiSurface([...this.functions, ...functions]);
  }
}

/** A decoded call: the function and its arguments. */
export interface DecodedCall {
  fn: AbiFunction;
  args: AbiValue[];
}

/**
 * Decodes the arguments of `fn` from `calldata` (selector included) the way alloy's validating
 * decoder does, turning its failures into `AbiDecodeFailed(selector, message)`.
 */
export function decodeArguments(fn: AbiFunction, calldata: Uint8Array): AbiValue[] {
  try {
    return decodeParams(fn.inputs, calldata.subarray(4));
  } catch (e) {
    if (e instanceof AbiOverrunError || e instanceof AbiTypeCheckError) throw new AbiDecodeError(fn.selector, e.message);
    throw e;
  }
}

/** The selector of `calldata`, or `UnknownFunctionSelector(0x00000000)` when it is shorter than 4 bytes. */
export function selectorOfCall(calldata: Uint8Array): Uint8Array {
  if (calldata.length < 4) throw new UnknownSelectorError(new Uint8Array(4));
  return calldata.subarray(0, 4);
}

/**
 * Decodes `calldata` against an extension surface (asset, stablecoin) tried first, then the
 * common IB20 surface (base/base `AssetVersion::abi().decode`).
 */
export function decodeCall(calldata: Uint8Array, extension: AbiSurface, common: AbiSurface): DecodedCall {
  const selector = selectorOfCall(calldata);
  const fn = extension.get(selector) ?? common.get(selector);
  if (fn === undefined) throw new UnknownSelectorError(selector.slice());
  return { fn, args: decodeArguments(fn, calldata) };
}

const pausable = (n: number): string => `uint8enum${n}`;

/** IB20 functions whose signature is the same at V1 and V2 (the pausable-feature enum grows at V2). */
function commonFunctions(features: number): AbiFunction[] {
  const f = pausable(features);
  return [
    abiFunction("DEFAULT_ADMIN_ROLE", []),
    abiFunction("MINT_ROLE", []),
    abiFunction("BURN_ROLE", []),
    abiFunction("BURN_BLOCKED_ROLE", []),
    abiFunction("PAUSE_ROLE", []),
    abiFunction("UNPAUSE_ROLE", []),
    abiFunction("METADATA_ROLE", []),
    abiFunction("TRANSFER_SENDER_POLICY", []),
    abiFunction("TRANSFER_RECEIVER_POLICY", []),
    abiFunction("TRANSFER_EXECUTOR_POLICY", []),
    abiFunction("MINT_RECEIVER_POLICY", []),
    abiFunction("name", []),
    abiFunction("symbol", []),
    abiFunction("decimals", []),
    abiFunction("totalSupply", []),
    abiFunction("balanceOf", ["address"]),
    abiFunction("allowance", ["address", "address"]),
    abiFunction("transfer", ["address", "uint256"]),
    abiFunction("transferFrom", ["address", "address", "uint256"]),
    abiFunction("approve", ["address", "uint256"]),
    abiFunction("updateName", ["string"]),
    abiFunction("updateSymbol", ["string"]),
    abiFunction("transferWithMemo", ["address", "uint256", "bytes32"]),
    abiFunction("transferFromWithMemo", ["address", "address", "uint256", "bytes32"]),
    abiFunction("mint", ["address", "uint256"]),
    abiFunction("mintWithMemo", ["address", "uint256", "bytes32"]),
    abiFunction("burn", ["uint256"]),
    abiFunction("burnWithMemo", ["uint256", "bytes32"]),
    abiFunction("burnBlocked", ["address", "uint256"]),
    abiFunction("hasRole", ["bytes32", "address"]),
    abiFunction("getRoleAdmin", ["bytes32"]),
    abiFunction("grantRole", ["bytes32", "address"]),
    abiFunction("revokeRole", ["bytes32", "address"]),
    abiFunction("renounceRole", ["bytes32", "address"]),
    abiFunction("renounceLastAdmin", []),
    abiFunction("setRoleAdmin", ["bytes32", "bytes32"]),
    abiFunction("pausedFeatures", []),
    abiFunction("isPaused", [f]),
    abiFunction("pause", [`${f}[]`]),
    abiFunction("unpause", [`${f}[]`]),
    abiFunction("policyId", ["bytes32"]),
    abiFunction("updatePolicy", ["bytes32", "uint64"]),
    abiFunction("supplyCap", []),
    abiFunction("updateSupplyCap", ["uint256"]),
    abiFunction("DOMAIN_SEPARATOR", []),
    abiFunction("nonces", ["address"]),
    abiFunction("permit", ["address", "address", "uint256", "uint256", "uint8", "bytes32", "bytes32"]),
    abiFunction("eip712Domain", []),
    abiFunction("contractURI", []),
    abiFunction("updateContractURI", ["string"]),
  ];
}

/** IB20 at Beryl (V1): 50 functions (fingerprint `0x106ef4b7…3449` in base/base `common/abi/v1.rs`). */
export const COMMON_V1 = new AbiSurface(commonFunctions(V1_PAUSABLE_FEATURES));
/** IB20 at Cobalt (V2): V1 plus seizure, with `PausableFeature.SEIZE` (fingerprint `0x040ce4a6…16eb`, base/base #4845). */
export const COMMON_V2 = new AbiSurface([
  ...commonFunctions(V2_PAUSABLE_FEATURES),
  abiFunction("seizeWithMemo", ["address", "address", "uint256", "bytes32"]),
  abiFunction("SEIZE_ROLE", []),
  abiFunction("SEIZE_EXEMPT_POLICY", []),
  abiFunction("SEIZE_RECEIVER_POLICY", []),
]);

/** The asset `announce` function (its calldata has a dedicated fast path at V2). */
export const ANNOUNCE = abiFunction("announce", ["bytes[]", "string", "string", "string"]);

/** IB20Asset at Beryl (V1): 12 functions (base/base `b20_asset/abi/v1.rs`). */
export const ASSET_V1 = new AbiSurface([
  abiFunction("OPERATOR_ROLE", []),
  abiFunction("WAD_PRECISION", []),
  ANNOUNCE,
  abiFunction("isAnnouncementIdUsed", ["string"]),
  abiFunction("multiplier", []),
  abiFunction("toScaledBalance", ["uint256"]),
  abiFunction("toRawBalance", ["uint256"]),
  abiFunction("scaledBalanceOf", ["address"]),
  abiFunction("updateMultiplier", ["uint256"]),
  abiFunction("batchMint", ["address[]", "uint256[]"]),
  abiFunction("extraMetadata", ["string"]),
  abiFunction("updateExtraMetadata", ["string", "string"]),
]);

/** IB20Asset at Cobalt (V2): V1 plus the ERC-8056 scheduled UI multiplier and ERC-165. */
export const ASSET_V2 = ASSET_V1.extend([
  abiFunction("uiMultiplier", []),
  abiFunction("newUIMultiplier", []),
  abiFunction("effectiveAt", []),
  abiFunction("balanceOfUI", ["address"]),
  abiFunction("totalSupplyUI", []),
  abiFunction("updateUIMultiplier", ["uint256", "uint256"]),
  abiFunction("cancelUIMultiplierUpdate", []),
  abiFunction("toUIAmount", ["uint256"]),
  abiFunction("fromUIAmount", ["uint256"]),
  abiFunction("MAX_UI_MULTIPLIER", []),
  abiFunction("supportsInterface", ["bytes4"]),
]);

/** IB20Stablecoin (V1 and V2): `currency()`. */
export const STABLECOIN_SURFACE = new AbiSurface([abiFunction("currency", [])]);
