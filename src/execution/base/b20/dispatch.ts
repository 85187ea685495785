/**
 * Dispatch of a B-20 token call (base/base `b20_asset/dispatch.rs`, `b20_stablecoin/dispatch.rs`):
 * the full entry — nonpayable check, 6 gas per calldata word, the version of the block's fork
 * (none before Beryl: empty revert), the token's initialization (account code set by the
 * factory; a token never created reverts with empty data) — then {@link routeToken}, which
 * decodes against the version's wire surface and runs the version's logic. The factory's init
 * calls and an asset's announcement enter at `routeToken` (no calldata charge).
 */
import { KECCAK256_NULL } from "@ethereumjs/util";
import { AbiOverrunError, AbiTypeCheckError, decodeParams, encodeParams, encodeSingle, type AbiValue } from "../abi.js";
import type { BaseCallContext } from "../context.js";
import { AbiDecodeError, PrecompileFatalError, PrecompileOutOfGasError, PrecompilePanicError, PrecompileRevertError } from "../errors.js";
import { CALLDATA_WORD_GAS } from "../gas.js";
import type { BasePrecompileHandler } from "../outcome.js";
import { u256Bytes } from "../slots.js";
import { OpFork } from "../../../chain/op/forks.js";
import { B20Variant, b20VariantOf } from "./address.js";
import { B20PolicyScope, B20Role, MAX_UI_MULTIPLIER, WAD } from "./constants.js";
import { AssetError, B20Error } from "./codec.js";
import type { PolicyPort } from "./policyPort.js";
import { ANNOUNCE, ASSET_V1, ASSET_V2, COMMON_V1, COMMON_V2, STABLECOIN_SURFACE, decodeCall, selectorKey, type DecodedCall } from "./surface.js";
import { CoreSlot } from "./storage.js";
import { B20Token, type TokenVersion } from "./token.js";

/** The token logic version of a fork: V1 at Beryl, V2 from Cobalt, none before Beryl. */
export function tokenVersionAt(fork: OpFork): TokenVersion | undefined {
  if (fork >= OpFork.cobalt) return 2;
  if (fork >= OpFork.beryl) return 1;
  return undefined;
}

/** Whether string writes follow Cobalt's rule (`UpgradeGatedStorageFeatures::from_upgrade`). */
export function cobaltStringsAt(fork: OpFork): boolean {
  return fork >= OpFork.cobalt;
}

/** The calldata charge of a Base precompile call: 6 gas per (started) 32-byte word. */
export function calldataGas(input: Uint8Array): number {
  return Math.ceil(input.length / 32) * CALLDATA_WORD_GAS;
}

/** An empty revert (uninitialized token, fork without the precompile). */
export function emptyRevert(): PrecompileRevertError {
  return new PrecompileRevertError(new Uint8Array(0));
}

/**
 * The full token entry for the token at `ctx.env.address` of `variant`: what a CALL to it runs.
 * Throws errors.ts's errors; a token the factory has not created reverts with empty data.
 */
export function dispatchToken(ctx: BaseCallContext, input: Uint8Array, variant: B20Variant, policy: PolicyPort): Uint8Array {
  if (ctx.env.value !== 0n) throw B20Error.nonPayable();
  ctx.deductGas(calldataGas(input));
  const version = tokenVersionAt(ctx.fork);
  if (version === undefined) throw emptyRevert();
  if (equalBytes(ctx.account(ctx.env.address).codeHash, KECCAK256_NULL)) throw emptyRevert();
  const token = new B20Token(ctx, ctx.env.address, variant, version, policy, cobaltStringsAt(ctx.fork));
  return routeToken(token, input, false);
}

/**
 * The token precompile handler the engine installs at every B-20 address from Beryl (the
 * variant comes from the address, the version from `ctx.fork`), reading policies through `policy`.
 */
export function createB20TokenHandler(policy: PolicyPort): BasePrecompileHandler {
  return (ctx, input) => {
    const variant = b20VariantOf(ctx.env.address);
    if (variant === undefined) throw new PrecompileFatalError(`B-20 token handler called at a non-B-20 address 0x${Buffer.from(ctx.env.address).toString("hex")}`);
    return dispatchToken(ctx, input, variant, policy);
  };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const ANNOUNCE_KEY = ANNOUNCE.key;
/** V2's bounded rejection of an `announce` whose strings are not UTF-8 (base/base `DecodedAnnounce::decode_if_announce`). */
const MALFORMED_ANNOUNCE = "announce: malformed bytes[] payload";

const bool = (b: boolean): Uint8Array => encodeSingle("bool", b);
const VOID = new Uint8Array(0);

/** Decodes `calldata` against the token's surfaces (extension first, then IB20). */
function decodeForToken(token: B20Token, calldata: Uint8Array): DecodedCall {
  const asset = token.variant === B20Variant.asset;
  const v2 = token.version === 2;
  if (asset && v2 && calldata.length >= 4 && selectorKey(calldata) === ANNOUNCE_KEY) {
    // V2 rejects non-UTF-8 strings cheaply, with its own message; V1 keeps alloy's type-check text.
    try {
      return { fn: ANNOUNCE, args: decodeParams(ANNOUNCE.inputs, calldata.subarray(4)) };
    } catch (e) {
      if (e instanceof AbiTypeCheckError) throw new AbiDecodeError(ANNOUNCE.selector, MALFORMED_ANNOUNCE);
      if (e instanceof AbiOverrunError) throw new AbiDecodeError(ANNOUNCE.selector, e.message);
      throw e;
    }
  }
  const extension = asset ? (v2 ? ASSET_V2 : ASSET_V1) : STABLECOIN_SURFACE;
  return decodeCall(calldata, extension, v2 ? COMMON_V2 : COMMON_V1);
}

/**
 * Decodes and runs one call on `token` (base/base `route`), returning its ABI-encoded result.
 * `privileged` is the factory's init route.
 */
export function routeToken(token: B20Token, calldata: Uint8Array, privileged: boolean): Uint8Array {
  const { fn, args } = decodeForToken(token, calldata);
  const caller = token.ctx.caller;
  const a = args as never[];
  switch (fn.name) {
    // --- reads ---
    case "name":
      return encodeSingle("string", token.st.readString(CoreSlot.name));
    case "symbol":
      return encodeSingle("string", token.st.readString(CoreSlot.symbol));
    case "decimals":
      return u256Bytes(BigInt(token.decimals()));
    case "totalSupply":
      return u256Bytes(token.st.totalSupply());
    case "balanceOf":
      return u256Bytes(token.st.balanceOf(a[0]));
    case "allowance":
      return u256Bytes(token.st.allowance(a[0], a[1]));
    case "supplyCap":
      return u256Bytes(token.st.supplyCap());
    case "nonces":
      return u256Bytes(token.st.nonce(a[0]));
    case "contractURI":
      return encodeSingle("string", token.st.readString(CoreSlot.contractUri));
    case "hasRole":
      return bool(token.st.hasRole(word(a[0]), a[1]));
    case "getRoleAdmin":
      return u256Bytes(token.st.roleAdmin(word(a[0])));
    case "pausedFeatures":
      return encodeSingle("uint8[]", token.pausedFeatures());
    case "isPaused":
      return bool(token.isPaused(a[0]));
    case "policyId":
      return u256Bytes(token.policyId(word(a[0])));
    case "DOMAIN_SEPARATOR":
      return token.domainSeparator();
    case "eip712Domain":
      return encodeParams(["bytes1", "string", "string", "uint256", "address", "bytes32", "uint256[]"], token.eip712Domain());
    // --- constants ---
    case "DEFAULT_ADMIN_ROLE":
      return u256Bytes(B20Role.defaultAdmin);
    case "MINT_ROLE":
      return u256Bytes(B20Role.mint);
    case "BURN_ROLE":
      return u256Bytes(B20Role.burn);
    case "BURN_BLOCKED_ROLE":
      return u256Bytes(B20Role.burnBlocked);
    case "PAUSE_ROLE":
      return u256Bytes(B20Role.pause);
    case "UNPAUSE_ROLE":
      return u256Bytes(B20Role.unpause);
    case "METADATA_ROLE":
      return u256Bytes(B20Role.metadata);
    case "SEIZE_ROLE":
      return u256Bytes(B20Role.seize);
    case "TRANSFER_SENDER_POLICY":
      return u256Bytes(B20PolicyScope.transferSender);
    case "TRANSFER_RECEIVER_POLICY":
      return u256Bytes(B20PolicyScope.transferReceiver);
    case "TRANSFER_EXECUTOR_POLICY":
      return u256Bytes(B20PolicyScope.transferExecutor);
    case "MINT_RECEIVER_POLICY":
      return u256Bytes(B20PolicyScope.mintReceiver);
    case "SEIZE_EXEMPT_POLICY":
      return u256Bytes(B20PolicyScope.seizeExempt);
    case "SEIZE_RECEIVER_POLICY":
      return u256Bytes(B20PolicyScope.seizeReceiver);
    // --- ERC-20 ---
    case "transfer":
      token.transfer(caller, a[0], a[1], privileged);
      return bool(true);
    case "transferFrom":
      token.transferFrom(caller, a[0], a[1], a[2], privileged);
      return bool(true);
    case "approve":
      token.approve(caller, a[0], a[1]);
      return bool(true);
    case "transferWithMemo":
      token.transfer(caller, a[0], a[1], privileged);
      token.emitMemo(caller, word(a[2]));
      return bool(true);
    case "transferFromWithMemo":
      token.transferFrom(caller, a[0], a[1], a[2], privileged);
      token.emitMemo(caller, word(a[3]));
      return bool(true);
    // --- supply ---
    case "mint":
      token.mint(caller, a[0], a[1], privileged);
      return VOID;
    case "mintWithMemo":
      token.mint(caller, a[0], a[1], privileged);
      token.emitMemo(caller, word(a[2]));
      return VOID;
    case "burn":
      token.burn(caller, a[0]);
      return VOID;
    case "burnWithMemo":
      token.burn(caller, a[0]);
      token.emitMemo(caller, word(a[1]));
      return VOID;
    case "burnBlocked":
      token.burnBlocked(caller, a[0], a[1], privileged);
      return VOID;
    case "seizeWithMemo":
      token.seizeWithMemo(caller, a[0], a[1], a[2], word(a[3]));
      return VOID;
    // --- pause, administration, roles, policies ---
    case "pause":
      token.pause(caller, a[0], privileged, true);
      return VOID;
    case "unpause":
      token.pause(caller, a[0], privileged, false);
      return VOID;
    case "updateSupplyCap":
      token.updateSupplyCap(caller, a[0], privileged);
      return VOID;
    case "updateName":
      token.updateName(caller, a[0], privileged);
      return VOID;
    case "updateSymbol":
      token.updateSymbol(caller, a[0], privileged);
      return VOID;
    case "updateContractURI":
      token.updateContractUri(caller, a[0], privileged);
      return VOID;
    case "grantRole":
      token.grantRole(caller, word(a[0]), a[1], privileged);
      return VOID;
    case "revokeRole":
      token.revokeRole(caller, word(a[0]), a[1], privileged);
      return VOID;
    case "renounceRole":
      token.renounceRole(caller, word(a[0]), a[1]);
      return VOID;
    case "renounceLastAdmin":
      token.renounceLastAdmin(caller);
      return VOID;
    case "setRoleAdmin":
      token.setRoleAdmin(caller, word(a[0]), word(a[1]), privileged);
      return VOID;
    case "updatePolicy":
      token.updatePolicy(caller, word(a[0]), a[1], privileged);
      return VOID;
    case "permit":
      token.permit({ owner: a[0], spender: a[1], value: a[2], deadline: a[3], v: a[4], r: a[5], s: a[6] });
      return VOID;
    // --- stablecoin ---
    case "currency":
      return encodeSingle("string", token.currency());
    default:
      return routeAsset(token, fn.name, a, privileged);
  }
}

/** The asset extension's functions. */
function routeAsset(token: B20Token, name: string, a: never[], privileged: boolean): Uint8Array {
  const caller = token.ctx.caller;
  switch (name) {
    case "OPERATOR_ROLE":
      return u256Bytes(B20Role.operator);
    case "WAD_PRECISION":
      return u256Bytes(WAD);
    case "MAX_UI_MULTIPLIER":
      return u256Bytes(MAX_UI_MULTIPLIER);
    case "multiplier":
    case "uiMultiplier":
      return u256Bytes(token.multiplier());
    case "newUIMultiplier":
      return u256Bytes(token.newUiMultiplier());
    case "effectiveAt":
      return u256Bytes(token.st.pendingEffectiveAt());
    case "toScaledBalance":
    case "toUIAmount":
      return u256Bytes(token.toScaledBalance(a[0]));
    case "toRawBalance":
    case "fromUIAmount":
      return u256Bytes(token.toRawBalance(a[0]));
    case "scaledBalanceOf":
    case "balanceOfUI":
      return u256Bytes(token.scaledBalanceOf(a[0]));
    case "totalSupplyUI":
      return u256Bytes(token.totalSupplyUi());
    case "supportsInterface":
      return bool(token.supportsInterface(a[0]));
    case "isAnnouncementIdUsed":
      return bool(token.st.isAnnouncementIdUsed(new TextEncoder().encode(a[0])));
    case "extraMetadata":
      return encodeSingle("string", token.st.extraMetadata(new TextEncoder().encode(a[0])));
    case "updateMultiplier":
      token.updateMultiplier(caller, a[0], privileged);
      return VOID;
    case "updateUIMultiplier":
      token.updateUiMultiplier(caller, a[0], a[1], privileged);
      return VOID;
    case "cancelUIMultiplierUpdate":
      token.cancelUiMultiplierUpdate(caller, privileged);
      return VOID;
    case "batchMint":
      token.batchMint(caller, a[0], a[1], privileged);
      return VOID;
    case "updateExtraMetadata":
      token.updateExtraMetadata(caller, a[0], a[1], privileged);
      return VOID;
    case "announce":
      runAnnounce(token, a[0], a[1], a[2], a[3], privileged);
      return VOID;
    default:
      throw new PrecompileFatalError(`B-20 surface function ${name} has no handler`);
  }
}

/** Errors that leave an announcement's internal call unwrapped (base/base `is_system_error`). */
export function isSystemError(e: unknown): boolean {
  return e instanceof PrecompileOutOfGasError || e instanceof PrecompileFatalError || e instanceof PrecompilePanicError;
}

/**
 * `announce`: marks `id` used and emits `Announcement`, re-dispatches each internal call on this
 * token (same caller, same privilege; a nested `announce` is refused; a failing call becomes
 * `InternalCallFailed(call)` unless it halts), then emits `EndAnnouncement`.
 */
function runAnnounce(token: B20Token, calls: Uint8Array[], id: string, description: string, uri: string, privileged: boolean): void {
  token.beginAnnounce(token.ctx.caller, id, description, uri, privileged);
  for (const call of calls) {
    if (call.length < 4) throw AssetError.internalCallMalformed(call);
    if (selectorKey(call) === ANNOUNCE_KEY) throw AssetError.announcementInProgress();
    try {
      routeToken(token, call, privileged);
    } catch (e) {
      if (isSystemError(e)) throw e;
      throw AssetError.internalCallFailed(call);
    }
  }
  token.endAnnounce(id);
}

/** A bytes32 argument as an integer. */
function word(v: AbiValue): bigint {
  let x = 0n;
  for (const b of v as Uint8Array) x = (x << 8n) | BigInt(b);
  return x;
}
