/**
 * Base's ActivationRegistry precompile (`0x8453…0001`, installed from Beryl): the on-chain switch
 * board that turns Base-native features (the PolicyRegistry's writes, B-20 stablecoin and asset
 * creation) on and off, operated by one activation admin.
 *
 * Pinned to base/base `crates/common/precompiles/src/activation/` (storage.rs @6a7dbe8a for the
 * Beryl storage and transitions; dispatch.rs as index id 60832295147 and the state-backed admin
 * of PR base/base#3489 as quoted from `storage.rs` L105-244 by the audit notes index ids
 * 69739804030/69652056900) and to base-std's `IActivationRegistry.sol` @d4b531c (2026-06-16,
 * between the v1.1.0 and v1.1.1 releases), which already has `checkActivated` and reports a
 * repeated `deactivate` as `FeatureNotActivated` (an older pre-release ABI had `AlreadyDeactivated`).
 *
 * Storage (ERC-7201 namespace `"base.activation_registry"`, root `0x43ee1bbe…ce00`):
 * - slot 0: `mapping(bytes32 feature => bool)`;
 * - slot 1: the state-backed admin `address` (Cobalt and later; see {@link ACTIVATION_ADMIN_SLOT}).
 *
 * Behaviour by upgrade (the admin configuration is what base/base's `ActivationAdminConfig`
 * carries: the chain's static admin and whether the stored admin is enabled, which
 * `provider.rs` turns on from Cobalt):
 * - Beryl: `admin()` is the static admin; `setAdmin` is an unknown selector; value is accepted.
 * - Cobalt: the stored admin (when non-zero) replaces the static one; `setAdmin` rotates it;
 *   calls with value revert `NonPayable()`.
 */
import { OpFork } from "../../../chain/op/forks.js";
import { keccak256 } from "../../../util/keccak.js";
import { encodeCall, eventTopic, selectorOf } from "../abi.js";
import { ACTIVATION_REGISTRY_ADDRESS } from "../addresses.js";
import type { BaseCallContext } from "../context.js";
import { PrecompileRevertError, UnknownSelectorError } from "../errors.js";
import { CALLDATA_WORD_GAS } from "../gas.js";
import type { BasePrecompileHandler } from "../outcome.js";
import { addressToU256, bytesToU256, erc7201Root, fieldSlot, mappingSlotOfBytes32, u256Bytes, u256ToAddress } from "../slots.js";

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** keccak256 of a feature's canonical name: the registry key (base-std `ActivationRegistryFeatureList`). */
function featureId(name: string): Uint8Array {
  return keccak256(utf8(name));
}

/** `keccak256("base.policy_registry")` = `0xb582ebae…a43f`: gates the PolicyRegistry's writes. */
export const POLICY_REGISTRY_FEATURE = featureId("base.policy_registry");
/** `keccak256("base.b20_stablecoin")` = `0xecfa0def…8601`: gates stablecoin creation in the factory. */
export const B20_STABLECOIN_FEATURE = featureId("base.b20_stablecoin");
/**
 * `keccak256("base.b20_asset")` = `0xcdcc772f…f54c`: gates asset creation. Pre-release code used
 * `keccak256("base.b20_security")` (`0x83d32fab…f5e6`); v1.1.1 and base-std use `base.b20_asset`
 * (fixtures README, "Asset activation feature id").
 */
export const B20_ASSET_FEATURE = featureId("base.b20_asset");

/** ERC-7201 namespace of the registry's storage. */
const ACTIVATION_REGISTRY_NAMESPACE = "base.activation_registry";
/** The namespace root, `0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00` (base-std `MockActivationRegistryStorage`). */
export const ACTIVATION_REGISTRY_ROOT = erc7201Root(ACTIVATION_REGISTRY_NAMESPACE);
/** Slot 0: `mapping(bytes32 => bool) features`. */
export const ACTIVATION_FEATURES_SLOT = fieldSlot(ACTIVATION_REGISTRY_ROOT, 0n);
/**
 * Slot 1: the state-backed admin (`ActivationRegistryStorage::admin`, PR base/base#3489). The field
 * follows `features` in the append-only layout; the slot number itself could not be read in a
 * stored source version (see docs/base-precompiles-goldens.md).
 */
export const ACTIVATION_ADMIN_SLOT = fieldSlot(ACTIVATION_REGISTRY_ROOT, 1n);

/**
 * The activation admin of Base mainnet (chain 8453): base/base `crates/common/chains/src/config.rs`
 * @068fc036 (`activation_admin_address`); Beryl cannot be scheduled without it.
 */
export const BASE_MAINNET_ACTIVATION_ADMIN = Uint8Array.from(Buffer.from("cE3a3bEE7E72E2A24079f3c0Cb3b97740ED425A9", "hex"));
/** The activation admin of Base Sepolia (chain 84532): same source. */
export const BASE_SEPOLIA_ACTIVATION_ADMIN = Uint8Array.from(Buffer.from("5F43072722f59964d886CBb507F6a85ca0759D42", "hex"));

/** base/base's `ActivationAdminConfig`: the chain's static admin and whether the stored admin applies. */
export interface ActivationAdminConfig {
  /** The static admin from chain configuration (`None` in base/base: nobody may activate). */
  readonly fallback: Uint8Array | undefined;
  /** The state-backed admin is enabled (Cobalt and later): `setAdmin` exists and a stored admin wins. */
  readonly stateEnabled: boolean;
}

/** base/base `ActivationAdminConfig::static_fallback`: Beryl's configuration. */
export function staticActivationAdmin(fallback: Uint8Array | undefined): ActivationAdminConfig {
  return { fallback, stateEnabled: false };
}

/** base/base `ActivationAdminConfig::state_backed`: Cobalt's configuration. */
export function stateBackedActivationAdmin(fallback: Uint8Array | undefined): ActivationAdminConfig {
  return { fallback, stateEnabled: true };
}

/** The configuration base/base installs at `fork` (`provider.rs`: state-backed from Cobalt). */
export function activationAdminConfigFor(fork: OpFork, fallback: Uint8Array | undefined): ActivationAdminConfig {
  return fork >= OpFork.cobalt ? stateBackedActivationAdmin(fallback) : staticActivationAdmin(fallback);
}

// --- ABI (IActivationRegistry) ---

/** Selectors of the registry's functions. */
export const ActivationSelectors = {
  isActivated: selectorOf("isActivated(bytes32)"),
  checkActivated: selectorOf("checkActivated(bytes32)"),
  admin: selectorOf("admin()"),
  setAdmin: selectorOf("setAdmin(address)"),
  activate: selectorOf("activate(bytes32)"),
  deactivate: selectorOf("deactivate(bytes32)"),
} as const;

/** Event topics of the registry. */
const ActivationEvents = {
  FeatureActivated: eventTopic("FeatureActivated(bytes32,address)"),
  FeatureDeactivated: eventTopic("FeatureDeactivated(bytes32,address)"),
  AdminChanged: eventTopic("AdminChanged(address,address,address)"),
} as const;

/** The registry's custom errors, ABI-encoded. */
const ActivationErrors = {
  unauthorized: (caller: Uint8Array) => encodeCall(selectorOf("Unauthorized(address)"), ["address"], [caller]),
  alreadyActivated: (feature: Uint8Array) => encodeCall(selectorOf("AlreadyActivated(bytes32)"), ["bytes32"], [feature]),
  featureNotActivated: (feature: Uint8Array) => encodeCall(selectorOf("FeatureNotActivated(bytes32)"), ["bytes32"], [feature]),
  staticCallNotAllowed: () => encodeCall(selectorOf("StaticCallNotAllowed()"), [], []),
  adminStorageNotEnabled: () => encodeCall(selectorOf("AdminStorageNotEnabled()"), [], []),
  zeroAdminAddress: () => encodeCall(selectorOf("ZeroAdminAddress()"), [], []),
  nonPayable: () => encodeCall(selectorOf("NonPayable()"), [], []),
} as const;

const EMPTY = new Uint8Array(0);
const ZERO_ADDRESS = new Uint8Array(20);
/** The bytecode marker base/base's `__initialize` writes at a native precompile's address. */
export const PRECOMPILE_MARKER_CODE = Uint8Array.of(0xef);

const featureSlot = (feature: Uint8Array): bigint => mappingSlotOfBytes32(feature, ACTIVATION_FEATURES_SLOT);
const sameAddress = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
const word = (x: bigint): Uint8Array => u256Bytes(x);

/**
 * Whether `feature` is activated: one metered SLOAD of the registry's `features` mapping (base/base
 * `ActivationRegistryStorage::is_activated`, also what the PolicyRegistry's write gate and the
 * factory read).
 */
export function isFeatureActivated(ctx: BaseCallContext, feature: Uint8Array): boolean {
  return ctx.sload(ACTIVATION_REGISTRY_ADDRESS, featureSlot(feature)) !== 0n;
}

/** base/base `ensure_activated`: reverts `FeatureNotActivated(feature)` unless {@link isFeatureActivated}. */
export function ensureFeatureActivated(ctx: BaseCallContext, feature: Uint8Array): void {
  if (!isFeatureActivated(ctx, feature)) throw new PrecompileRevertError(ActivationErrors.featureNotActivated(feature));
}

/** The stored (state-backed) admin, zero when never set: one metered SLOAD. */
function storedAdmin(ctx: BaseCallContext): Uint8Array {
  return u256ToAddress(ctx.sload(ACTIVATION_REGISTRY_ADDRESS, ACTIVATION_ADMIN_SLOT));
}

/**
 * The effective admin (base/base `admin(admin_config)`): with the state-backed admin enabled, the
 * stored admin unless it is zero; otherwise the static admin, or zero when there is none.
 */
function activationAdmin(ctx: BaseCallContext, config: ActivationAdminConfig): Uint8Array {
  if (config.stateEnabled) {
    const stored = storedAdmin(ctx);
    if (!sameAddress(stored, ZERO_ADDRESS)) return stored;
  }
  return config.fallback ?? ZERO_ADDRESS;
}

/** base/base `require_admin_caller`: the caller, or `Unauthorized(caller)` when it is not the effective admin. */
function requireAdminCaller(ctx: BaseCallContext, config: ActivationAdminConfig): Uint8Array {
  const caller = ctx.caller;
  const admin = activationAdmin(ctx, config);
  if (sameAddress(admin, ZERO_ADDRESS) || !sameAddress(caller, admin)) throw new PrecompileRevertError(ActivationErrors.unauthorized(caller));
  return caller;
}

/** base/base `set_activated`: the shared activate/deactivate transition. */
function setActivated(ctx: BaseCallContext, config: ActivationAdminConfig, feature: Uint8Array, activated: boolean): void {
  if (ctx.env.isStatic) throw new PrecompileRevertError(ActivationErrors.staticCallNotAllowed());
  const caller = requireAdminCaller(ctx, config);
  const current = ctx.sload(ACTIVATION_REGISTRY_ADDRESS, featureSlot(feature)) !== 0n;
  if (current === activated) {
    throw new PrecompileRevertError(activated ? ActivationErrors.alreadyActivated(feature) : ActivationErrors.featureNotActivated(feature));
  }
  const topics = [activated ? ActivationEvents.FeatureActivated : ActivationEvents.FeatureDeactivated, feature, word(addressToU256(caller))];
  if (activated) {
    ctx.setCode(ACTIVATION_REGISTRY_ADDRESS, PRECOMPILE_MARKER_CODE);
    ctx.sstore(ACTIVATION_REGISTRY_ADDRESS, featureSlot(feature), 1n);
  } else {
    ctx.sstore(ACTIVATION_REGISTRY_ADDRESS, featureSlot(feature), 0n);
  }
  ctx.emit(ACTIVATION_REGISTRY_ADDRESS, topics, EMPTY);
}

/** base/base `set_admin` (Cobalt): rotates the stored admin in one step. */
function setAdmin(ctx: BaseCallContext, config: ActivationAdminConfig, newAdmin: Uint8Array): void {
  if (ctx.env.isStatic) throw new PrecompileRevertError(ActivationErrors.staticCallNotAllowed());
  if (!config.stateEnabled) throw new PrecompileRevertError(ActivationErrors.adminStorageNotEnabled());
  if (sameAddress(newAdmin, ZERO_ADDRESS)) throw new PrecompileRevertError(ActivationErrors.zeroAdminAddress());
  const caller = requireAdminCaller(ctx, config);
  ctx.setCode(ACTIVATION_REGISTRY_ADDRESS, PRECOMPILE_MARKER_CODE);
  ctx.sstore(ACTIVATION_REGISTRY_ADDRESS, ACTIVATION_ADMIN_SLOT, addressToU256(newAdmin));
  ctx.emit(ACTIVATION_REGISTRY_ADDRESS, [ActivationEvents.AdminChanged, word(addressToU256(caller)), word(addressToU256(newAdmin)), word(addressToU256(caller))], EMPTY);
}

const is = (a: Uint8Array, b: Uint8Array): boolean => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];

/**
 * The argument word of a one-argument call, decoded as base/base's `decode_precompile_call!`
 * does: alloy's non-validating `abi_decode`, where any failure (here: fewer than 32 argument
 * bytes) is reported as the selector being unknown.
 */
function argWord(selector: Uint8Array, input: Uint8Array): Uint8Array {
  if (input.length < 36) throw new UnknownSelectorError(selector);
  return input.slice(4, 36);
}

/**
 * The ActivationRegistry precompile for an admin configuration (the engine passes
 * {@link activationAdminConfigFor}`(fork, chain admin)`): base/base `ActivationRegistryStorage::dispatch`.
 */
export function activationRegistryHandler(config: ActivationAdminConfig): BasePrecompileHandler {
  return (ctx, input) => {
    // Cobalt rejects attached value before anything else; Beryl accepts it (replay of live calls).
    if (ctx.fork >= OpFork.cobalt && ctx.env.value !== 0n) throw new PrecompileRevertError(ActivationErrors.nonPayable());
    ctx.deductGas(CALLDATA_WORD_GAS * Math.ceil(input.length / 32));
    if (!config.stateEnabled && input.length >= 4 && is(input, ActivationSelectors.setAdmin)) throw new UnknownSelectorError(ActivationSelectors.setAdmin);
    if (input.length < 4) throw new UnknownSelectorError(new Uint8Array(4));
    const selector = input.slice(0, 4);
    if (is(selector, ActivationSelectors.admin)) return word(addressToU256(activationAdmin(ctx, config)));
    if (is(selector, ActivationSelectors.isActivated)) return word(isFeatureActivated(ctx, argWord(selector, input)) ? 1n : 0n);
    if (is(selector, ActivationSelectors.checkActivated)) {
      ensureFeatureActivated(ctx, argWord(selector, input));
      return EMPTY;
    }
    if (is(selector, ActivationSelectors.activate)) {
      setActivated(ctx, config, argWord(selector, input), true);
      return EMPTY;
    }
    if (is(selector, ActivationSelectors.deactivate)) {
      setActivated(ctx, config, argWord(selector, input), false);
      return EMPTY;
    }
    if (is(selector, ActivationSelectors.setAdmin)) {
      // Non-validating decode: the address is the argument word's low 20 bytes.
      setAdmin(ctx, config, u256ToAddress(bytesToU256(argWord(selector, input))));
      return EMPTY;
    }
    throw new UnknownSelectorError(selector);
  };
}
