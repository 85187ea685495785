/**
 * The business logic of a B-20 token, V1 (Beryl, base/base `b20_asset/logic/v1.rs`,
 * `b20_stablecoin/logic/v1.rs`, frozen at the shipped v1.1.1 behaviour) and V2 (Cobalt,
 * `logic/v2.rs`): guards in base/base's order (pause → role → input → policy → business), every
 * storage access through {@link TokenStorage} in the order base/base makes it, events as logs of
 * the token's address.
 *
 * `privileged` is the factory's init route: role and transfer-policy guards are skipped; the
 * mint-receiver policy, self-burn/renounce roles and (V2) the seizure guards still apply.
 *
 * Where V2 differs from V1 (each also in base/base's V2 file):
 * - a transfer checks both zero addresses before anything else and reads the three transfer
 *   policy ids with one load of their shared word; `updatePolicy` checks the scope and the new
 *   policy before reading the old id;
 * - SEIZE (pause bit 3, `SEIZE_ROLE`, the seize-exempt/-receiver scopes, `seizeWithMemo`);
 * - asset `permit` meters its five hashes and charges 3,000 for the signer recovery (the
 *   stablecoin's stays free, as at V1);
 * - assets: the ERC-8056 scheduled UI multiplier (the current multiplier flips to a matured
 *   pending one when read), and `updateMultiplier` clears a pending update and emits the ERC-8056
 *   events after the V1 one.
 */
import type { AbiValue } from "../abi.js";
import type { BaseCallContext } from "../context.js";
import { PanicCode, PrecompilePanicError } from "../errors.js";
import { readPacked } from "../slots.js";
import { keccak256 } from "../../../util/keccak.js";
import { B20Variant } from "./address.js";
import {
  ASSET_V2_INTERFACE_IDS,
  B20_MAX_SUPPLY_CAP,
  B20PolicyScope,
  B20Role,
  EIP712_DOMAIN_FIELDS,
  MAX_UI_MULTIPLIER,
  PausableFeature,
  PERMIT_RECOVERY_GAS,
  STABLECOIN_DECIMALS,
  V1_POLICY_SCOPES,
  V2_POLICY_SCOPES,
  WAD,
} from "./constants.js";
import { AssetError, AssetEvent, B20Error, B20Event, addressWord, wordTopic, type EventSpec } from "./codec.js";
import { domainSeparator, permitDigest, recoverSigner, type Hasher, type PermitArgs } from "./permit.js";
import type { PolicyPort } from "./policyPort.js";
import { CoreSlot, STABLECOIN_CURRENCY_SLOT, TokenStorage, TransferLane } from "./storage.js";

/** The token logic version: 1 from Beryl, 2 from Cobalt. */
export type TokenVersion = 1 | 2;

const ZERO_ADDRESS = new Uint8Array(20);
const U256_MAX = (1n << 256n) - 1n;
const U64_MAX = (1n << 64n) - 1n;
const U64_BITS = 64;

function isZero(address: Uint8Array): boolean {
  for (const b of address) if (b !== 0) return false;
  return true;
}

function sameAddress(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `a + b` as a checked 256-bit add (Solidity's `Panic(0x11)` on overflow). */
function checkedAdd(a: bigint, b: bigint): bigint {
  const sum = a + b;
  if (sum > U256_MAX) throw new PrecompilePanicError(PanicCode.underOverflow);
  return sum;
}

/** `a - b` as a checked 256-bit subtraction. */
function checkedSub(a: bigint, b: bigint): bigint {
  if (b > a) throw new PrecompilePanicError(PanicCode.underOverflow);
  return a - b;
}

/** `a * b` as a checked 256-bit multiplication. */
function checkedMul(a: bigint, b: bigint): bigint {
  const product = a * b;
  if (product > U256_MAX) throw new PrecompilePanicError(PanicCode.underOverflow);
  return product;
}

/** A B-20 token at one address, in one call. */
export class B20Token {
  readonly st: TokenStorage;

  constructor(
    readonly ctx: BaseCallContext,
    readonly address: Uint8Array,
    readonly variant: B20Variant,
    readonly version: TokenVersion,
    readonly policy: PolicyPort,
    cobaltStrings: boolean,
  ) {
    this.st = new TokenStorage(ctx, address, cobaltStrings);
  }

  private get v2(): boolean {
    return this.version === 2;
  }

  private emit(event: EventSpec, indexed: readonly Uint8Array[], data: readonly AbiValue[] = []): void {
    event.emit(this.ctx, this.address, indexed, data);
  }

  // --- guards (base/base `B20Guards`) ---

  ensureRole(caller: Uint8Array, role: bigint): void {
    if (!this.st.hasRole(role, caller)) throw B20Error.unauthorizedAccount(caller, role);
  }

  ensureNotPaused(feature: number): void {
    if ((this.st.paused() & (1n << BigInt(feature))) !== 0n) throw B20Error.contractPaused(BigInt(feature));
  }

  /** Reads the policy of `scope` and requires it to authorize `account`. */
  ensurePolicy(scope: bigint, account: Uint8Array): void {
    this.ensureAuthorizedById(scope, this.st.policyId(scope), account);
  }

  ensureAuthorizedById(scope: bigint, policyId: bigint, account: Uint8Array): void {
    if (!this.policy.isAuthorized(this.ctx, policyId, account)) throw B20Error.policyForbids(scope, policyId);
  }

  /** `burnBlocked` requires the transfer-sender policy NOT to authorize `account`. */
  ensureBlocked(account: Uint8Array): void {
    const id = this.st.policyId(B20PolicyScope.transferSender);
    if (this.policy.isAuthorized(this.ctx, id, account)) throw B20Error.accountNotBlocked(account);
  }

  /** V2: `from` is seizable only when the seize-exempt policy does NOT authorize it. */
  ensureSeizable(account: Uint8Array): void {
    const id = this.st.policyId(B20PolicyScope.seizeExempt);
    if (this.policy.isAuthorized(this.ctx, id, account)) throw B20Error.accountNotSeizable(account);
  }

  private ensureSupportedScope(scope: bigint): void {
    if (!(this.v2 ? V2_POLICY_SCOPES : V1_POLICY_SCOPES).includes(scope)) throw B20Error.unsupportedPolicyType(scope);
  }

  private ensureAdminMutationsAvailable(caller: Uint8Array): void {
    if (this.st.roleMemberCount(B20Role.defaultAdmin) === 0n) throw B20Error.unauthorizedAccount(caller, B20Role.defaultAdmin);
  }

  // --- ERC-20 ---

  transfer(caller: Uint8Array, to: Uint8Array, amount: bigint, privileged: boolean): void {
    this.ensureNotPaused(PausableFeature.transfer);
    if (!this.v2) {
      this.transferInnerV1(caller, to, amount, privileged);
      return;
    }
    this.ensureNonZeroParties(caller, to);
    if (!privileged) this.ensureTransferPolicies(this.st.transferPolicyWord(), caller, to);
    this.moveBalance(caller, to, amount);
  }

  transferFrom(caller: Uint8Array, from: Uint8Array, to: Uint8Array, amount: bigint, privileged: boolean): void {
    this.ensureNotPaused(PausableFeature.transfer);
    this.ensureNonZeroParties(from, to);
    const allowance = this.st.allowance(from, caller);
    const infinite = allowance === U256_MAX;
    if (!infinite && allowance < amount) throw B20Error.insufficientAllowance(caller, allowance, amount);
    if (!this.v2) {
      if (!privileged && !sameAddress(caller, from)) this.ensurePolicy(B20PolicyScope.transferExecutor, caller);
      this.transferInnerV1(from, to, amount, privileged);
    } else if (privileged) {
      this.moveBalance(from, to, amount);
    } else {
      // One load of the transfer-policy word serves the executor, sender and receiver checks.
      const word = this.st.transferPolicyWord();
      if (!sameAddress(caller, from)) this.ensureAuthorizedById(B20PolicyScope.transferExecutor, readPacked(word, TransferLane.executor, U64_BITS), caller);
      this.ensureTransferPolicies(word, from, to);
      this.moveBalance(from, to, amount);
    }
    if (!infinite) this.st.setAllowance(from, caller, allowance - amount);
  }

  private ensureNonZeroParties(from: Uint8Array, to: Uint8Array): void {
    if (isZero(to)) throw B20Error.invalidReceiver(to);
    if (isZero(from)) throw B20Error.invalidSender(from);
  }

  private ensureTransferPolicies(word: bigint, from: Uint8Array, to: Uint8Array): void {
    this.ensureAuthorizedById(B20PolicyScope.transferSender, readPacked(word, TransferLane.sender, U64_BITS), from);
    this.ensureAuthorizedById(B20PolicyScope.transferReceiver, readPacked(word, TransferLane.receiver, U64_BITS), to);
  }

  /** V1's `transfer_inner`: zero checks, then each transfer policy read on its own. */
  private transferInnerV1(from: Uint8Array, to: Uint8Array, amount: bigint, privileged: boolean): void {
    this.ensureNonZeroParties(from, to);
    if (!privileged) {
      this.ensurePolicy(B20PolicyScope.transferSender, from);
      this.ensurePolicy(B20PolicyScope.transferReceiver, to);
    }
    this.moveBalance(from, to, amount);
  }

  /** Debits `from`, credits `to`, emits `Transfer` (no guards). */
  private moveBalance(from: Uint8Array, to: Uint8Array, amount: bigint): void {
    const fromBalance = this.st.balanceOf(from);
    if (fromBalance < amount) throw B20Error.insufficientBalance(from, fromBalance, amount);
    this.st.setBalance(from, fromBalance - amount);
    this.st.setBalance(to, checkedAdd(this.st.balanceOf(to), amount));
    this.emit(B20Event.transfer, [addressWord(from), addressWord(to)], [amount]);
  }

  approve(caller: Uint8Array, spender: Uint8Array, amount: bigint): void {
    if (isZero(caller)) throw B20Error.invalidApprover(caller);
    if (isZero(spender)) throw B20Error.invalidSpender(spender);
    this.st.setAllowance(caller, spender, amount);
    this.emit(B20Event.approval, [addressWord(caller), addressWord(spender)], [amount]);
  }

  emitMemo(caller: Uint8Array, memo: bigint): void {
    this.emit(B20Event.memo, [addressWord(caller), wordTopic(memo)]);
  }

  // --- supply ---

  mint(caller: Uint8Array, to: Uint8Array, amount: bigint, privileged: boolean): void {
    this.ensureNotPaused(PausableFeature.mint);
    if (!privileged) this.ensureRole(caller, B20Role.mint);
    if (isZero(to)) throw B20Error.invalidReceiver(to);
    this.ensurePolicy(B20PolicyScope.mintReceiver, to);
    const supply = this.st.totalSupply();
    const cap = this.st.supplyCap();
    const newSupply = checkedAdd(supply, amount);
    if (newSupply > cap) throw B20Error.supplyCapExceeded(cap, newSupply);
    this.st.setTotalSupply(newSupply);
    this.st.setBalance(to, checkedAdd(this.st.balanceOf(to), amount));
    this.emit(B20Event.transfer, [addressWord(ZERO_ADDRESS), addressWord(to)], [amount]);
  }

  /** Self-burn: never privileged. */
  burn(caller: Uint8Array, amount: bigint): void {
    this.ensureNotPaused(PausableFeature.burn);
    this.ensureRole(caller, B20Role.burn);
    this.burnInner(caller, amount);
  }

  burnBlocked(caller: Uint8Array, from: Uint8Array, amount: bigint, privileged: boolean): void {
    this.ensureNotPaused(PausableFeature.burn);
    if (!privileged) this.ensureRole(caller, B20Role.burnBlocked);
    this.ensureBlocked(from);
    this.burnInner(from, amount);
    this.emit(B20Event.burnedBlocked, [addressWord(caller), addressWord(from)], [amount]);
  }

  private burnInner(from: Uint8Array, amount: bigint): void {
    const balance = this.st.balanceOf(from);
    if (balance < amount) throw B20Error.insufficientBalance(from, balance, amount);
    this.st.setBalance(from, balance - amount);
    this.st.setTotalSupply(checkedSub(this.st.totalSupply(), amount));
    this.emit(B20Event.transfer, [addressWord(from), addressWord(ZERO_ADDRESS)], [amount]);
  }

  /** V2: moves `amount` from a seizable `from` to an allowed `to`; `Transfer`, `Memo`, then `Seized`. The role is required even on the init route. */
  seizeWithMemo(caller: Uint8Array, from: Uint8Array, to: Uint8Array, amount: bigint, memo: bigint): void {
    this.ensureNotPaused(PausableFeature.seize);
    this.ensureRole(caller, B20Role.seize);
    if (isZero(to)) throw B20Error.invalidReceiver(to);
    if (isZero(from)) throw B20Error.invalidSender(from);
    if (sameAddress(from, to)) throw B20Error.invalidReceiver(to);
    this.ensureSeizable(from);
    this.ensurePolicy(B20PolicyScope.seizeReceiver, to);
    this.moveBalance(from, to, amount);
    this.emitMemo(caller, memo);
    this.emit(B20Event.seized, [addressWord(caller), addressWord(from), addressWord(to)], [amount]);
  }

  // --- pause ---

  pause(caller: Uint8Array, features: bigint[], privileged: boolean, set: boolean): void {
    if (!privileged) this.ensureRole(caller, set ? B20Role.pause : B20Role.unpause);
    if (features.length === 0) throw B20Error.emptyFeatureSet();
    let bits = this.st.paused();
    for (const f of features) bits = set ? bits | (1n << f) : bits & ~(1n << f);
    this.st.setPaused(bits);
    this.emit(set ? B20Event.paused : B20Event.unpaused, [addressWord(caller)], [features]);
  }

  isPaused(feature: bigint): boolean {
    return (this.st.paused() & (1n << feature)) !== 0n;
  }

  pausedFeatures(): bigint[] {
    const bits = this.st.paused();
    const count = this.v2 ? PausableFeature.seize + 1 : PausableFeature.burn + 1;
    const out: bigint[] = [];
    for (let f = 0n; f < BigInt(count); f++) if ((bits & (1n << f)) !== 0n) out.push(f);
    return out;
  }

  // --- administration ---

  updateSupplyCap(caller: Uint8Array, newCap: bigint, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.defaultAdmin);
    const supply = this.st.totalSupply();
    if (newCap < supply || newCap > B20_MAX_SUPPLY_CAP) throw B20Error.invalidSupplyCap(supply, newCap);
    const old = this.st.supplyCap();
    this.st.setSupplyCap(newCap);
    this.emit(B20Event.supplyCapUpdated, [addressWord(caller)], [old, newCap]);
  }

  updateName(caller: Uint8Array, name: string, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.metadata);
    this.st.writeString(CoreSlot.name, name);
    this.emit(B20Event.nameUpdated, [addressWord(caller)], [name]);
    this.emit(B20Event.eip712DomainChanged, []);
  }

  updateSymbol(caller: Uint8Array, symbol: string, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.metadata);
    this.st.writeString(CoreSlot.symbol, symbol);
    this.emit(B20Event.symbolUpdated, [addressWord(caller)], [symbol]);
  }

  updateContractUri(caller: Uint8Array, uri: string, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.metadata);
    this.st.writeString(CoreSlot.contractUri, uri);
    this.emit(B20Event.contractUriUpdated, []);
  }

  // --- roles ---

  grantRole(caller: Uint8Array, role: bigint, account: Uint8Array, privileged: boolean): void {
    if (role === B20Role.defaultAdmin || !privileged) this.ensureAdminMutationsAvailable(caller);
    if (!privileged) this.ensureRole(caller, this.st.roleAdmin(role));
    this.grantRoleUnchecked(role, account, caller);
  }

  /** Grants without authorization (the factory's first admin); idempotent; counts DEFAULT_ADMIN holders. */
  grantRoleUnchecked(role: bigint, account: Uint8Array, sender: Uint8Array): void {
    if (this.st.hasRole(role, account)) return;
    this.st.setRole(role, account, true);
    if (role === B20Role.defaultAdmin) this.st.setRoleMemberCount(role, checkedAdd(this.st.roleMemberCount(role), 1n));
    this.emit(B20Event.roleGranted, [wordTopic(role), addressWord(account), addressWord(sender)]);
  }

  revokeRole(caller: Uint8Array, role: bigint, account: Uint8Array, privileged: boolean): void {
    if (!privileged) {
      this.ensureAdminMutationsAvailable(caller);
      this.ensureRole(caller, this.st.roleAdmin(role));
    }
    this.ensureNotLastAdmin(role, account);
    this.revokeRoleUnchecked(role, account, caller);
  }

  renounceRole(caller: Uint8Array, role: bigint, confirmation: Uint8Array): void {
    if (!sameAddress(confirmation, caller)) throw B20Error.badConfirmation();
    this.ensureNotLastAdmin(role, caller);
    this.revokeRoleUnchecked(role, caller, caller);
  }

  private ensureNotLastAdmin(role: bigint, account: Uint8Array): void {
    if (role === B20Role.defaultAdmin && this.st.hasRole(role, account) && this.st.roleMemberCount(role) === 1n) throw B20Error.lastAdminCannotRenounce();
  }

  renounceLastAdmin(caller: Uint8Array): void {
    this.ensureRole(caller, B20Role.defaultAdmin);
    if (this.st.roleMemberCount(B20Role.defaultAdmin) !== 1n) throw B20Error.notSoleAdmin();
    this.revokeRoleUnchecked(B20Role.defaultAdmin, caller, caller);
    this.emit(B20Event.lastAdminRenounced, [addressWord(caller)]);
  }

  private revokeRoleUnchecked(role: bigint, account: Uint8Array, sender: Uint8Array): void {
    if (!this.st.hasRole(role, account)) return;
    this.st.setRole(role, account, false);
    if (role === B20Role.defaultAdmin) this.st.setRoleMemberCount(role, checkedSub(this.st.roleMemberCount(role), 1n));
    this.emit(B20Event.roleRevoked, [wordTopic(role), addressWord(account), addressWord(sender)]);
  }

  setRoleAdmin(caller: Uint8Array, role: bigint, newAdminRole: bigint, privileged: boolean): void {
    const previous = this.st.roleAdmin(role);
    if (!privileged) {
      this.ensureAdminMutationsAvailable(caller);
      this.ensureRole(caller, previous);
    }
    this.st.setRoleAdmin(role, newAdminRole);
    this.emit(B20Event.roleAdminChanged, [wordTopic(role), wordTopic(previous), wordTopic(newAdminRole)]);
  }

  // --- policies ---

  policyId(scope: bigint): bigint {
    this.ensureSupportedScope(scope);
    return this.st.policyId(scope);
  }

  updatePolicy(caller: Uint8Array, scope: bigint, newPolicyId: bigint, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.defaultAdmin);
    let old: bigint;
    if (!this.v2) {
      old = this.policyId(scope);
      if (!this.policy.policyExists(this.ctx, newPolicyId)) throw B20Error.policyNotFound(newPolicyId);
    } else {
      this.ensureSupportedScope(scope);
      if (!this.policy.policyExists(this.ctx, newPolicyId)) throw B20Error.policyNotFound(newPolicyId);
      old = this.st.policyId(scope);
    }
    this.st.setPolicyId(scope, newPolicyId);
    this.emit(B20Event.policyUpdated, [wordTopic(scope)], [old, newPolicyId]);
  }

  // --- EIP-2612 / EIP-712 ---

  /** keccak256 as this version charges it: metered (V2 `permit`) or free. */
  private hasher(metered: boolean): Hasher {
    return metered ? (data) => this.ctx.keccak256(data) : keccak256;
  }

  /**
   * Whether `permit` is metered: asset V2 (base/base `b20_asset/logic/v2.rs`: metered signing hash
   * and recovery, five keccaks in its golden); stablecoin V2 keeps V1's free hashing and recovery
   * (`b20_stablecoin/logic/v2.rs` @455531f5, and its golden @289d9f5a pins no keccak).
   */
  private get meteredPermit(): boolean {
    return this.v2 && this.variant === B20Variant.asset;
  }

  /** The EIP-712 domain separator; a metered-permit token meters its three hashes (`DOMAIN_SEPARATOR()` and `permit` alike). */
  domainSeparator(): Uint8Array {
    return domainSeparator(this.hasher(this.meteredPermit), this.st.readBytes(CoreSlot.name), this.ctx.env.block.chainId, this.address);
  }

  permit(args: PermitArgs): void {
    if (this.ctx.env.block.timestamp > args.deadline) throw B20Error.expiredSignature(args.deadline);
    const separator = this.domainSeparator();
    const nonce = this.st.nonce(args.owner);
    const digest = permitDigest(this.hasher(this.meteredPermit), separator, args, nonce);
    // ECRECOVER's flat price, charged before `v` is looked at (`PermitArgs::metered_recover_signer`).
    if (this.meteredPermit) this.ctx.deductGas(PERMIT_RECOVERY_GAS);
    const signer = recoverSigner(digest, args.v, args.r, args.s);
    if (signer === undefined) throw B20Error.invalidSigner(ZERO_ADDRESS, args.owner);
    if (isZero(signer) || !sameAddress(signer, args.owner)) throw B20Error.invalidSigner(signer, args.owner);
    this.st.setNonce(args.owner, checkedAdd(this.st.nonce(args.owner), 1n));
    this.approve(args.owner, args.spender, args.value);
  }

  /** ERC-5267 `eip712Domain()` fields. */
  eip712Domain(): AbiValue[] {
    return [Uint8Array.of(EIP712_DOMAIN_FIELDS), this.st.readString(CoreSlot.name), "1", this.ctx.env.block.chainId, this.address, new Uint8Array(32), []];
  }

  decimals(): number {
    return this.variant === B20Variant.asset ? this.st.assetDecimals() : STABLECOIN_DECIMALS;
  }

  currency(): string {
    return this.st.readString(STABLECOIN_CURRENCY_SLOT);
  }

  // --- asset: multiplier ---

  /** The multiplier in effect: V1 the stored one (0 → WAD); V2 a matured pending one when `now ≥ effectiveAt`. */
  multiplier(): bigint {
    if (this.v2) {
      const effectiveAt = this.st.pendingEffectiveAt();
      if (effectiveAt !== 0n && this.ctx.env.block.timestamp >= effectiveAt) return this.st.pendingMultiplier();
    }
    return this.st.storedMultiplier(WAD);
  }

  toScaledBalance(raw: bigint): bigint {
    return checkedMul(raw, this.multiplier()) / WAD;
  }

  toRawBalance(scaled: bigint): bigint {
    const multiplier = this.multiplier();
    return checkedMul(scaled, WAD) / multiplier;
  }

  scaledBalanceOf(account: Uint8Array): bigint {
    return this.toScaledBalance(this.st.balanceOf(account));
  }

  private ensureOperator(caller: Uint8Array, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.operator);
  }

  updateMultiplier(caller: Uint8Array, newMultiplier: bigint, privileged: boolean): void {
    if (!this.v2) {
      this.ensureOperator(caller, privileged);
      if (newMultiplier === 0n) throw AssetError.invalidMultiplier();
      this.st.setMultiplier(newMultiplier);
      this.emit(AssetEvent.multiplierUpdated, [], [newMultiplier]);
      return;
    }
    const now = this.ctx.env.block.timestamp;
    this.ensureOperator(caller, privileged);
    if (newMultiplier === 0n || newMultiplier > MAX_UI_MULTIPLIER) throw AssetError.invalidMultiplier();
    const pendingMultiplier = this.st.pendingMultiplier();
    const pendingEffectiveAt = this.st.pendingEffectiveAt();
    const old = this.multiplier();
    this.st.setMultiplier(newMultiplier);
    if (pendingEffectiveAt !== 0n) this.st.setPending(0n, 0n);
    if (pendingEffectiveAt > now) this.emit(AssetEvent.uiMultiplierUpdateCancelled, [], [pendingMultiplier, pendingEffectiveAt]);
    // The V1 event stays for indexers that follow it, then the ERC-8056 one.
    this.emit(AssetEvent.multiplierUpdated, [], [newMultiplier]);
    this.emit(AssetEvent.uiMultiplierUpdated, [], [old, newMultiplier, now]);
  }

  /** V2 (ERC-8056): schedules `newMultiplier` from `effectiveAt`, folding a matured pending update into the current multiplier first. */
  updateUiMultiplier(caller: Uint8Array, newMultiplier: bigint, effectiveAt: bigint, privileged: boolean): void {
    const now = this.ctx.env.block.timestamp;
    this.ensureOperator(caller, privileged);
    if (newMultiplier === 0n || newMultiplier > MAX_UI_MULTIPLIER) throw AssetError.invalidMultiplier();
    if (effectiveAt <= now) throw AssetError.effectiveAtInPast(effectiveAt);
    if (effectiveAt > U64_MAX) throw AssetError.effectiveAtTooFar(effectiveAt);
    const pendingEffectiveAt = this.st.pendingEffectiveAt();
    if (pendingEffectiveAt > now) throw AssetError.updateExists(pendingEffectiveAt);
    if (pendingEffectiveAt !== 0n) this.st.setMultiplier(this.st.pendingMultiplier());
    const old = this.st.storedMultiplier(WAD);
    this.st.setPending(newMultiplier, effectiveAt);
    this.emit(AssetEvent.uiMultiplierUpdated, [], [old, newMultiplier, effectiveAt]);
  }

  /** V2: cancels a scheduled update that has not matured (one maturing exactly now already took effect). */
  cancelUiMultiplierUpdate(caller: Uint8Array, privileged: boolean): void {
    const now = this.ctx.env.block.timestamp;
    this.ensureOperator(caller, privileged);
    const pendingMultiplier = this.st.pendingMultiplier();
    const pendingEffectiveAt = this.st.pendingEffectiveAt();
    if (pendingEffectiveAt <= now) throw AssetError.updateDoesNotExist();
    this.st.setPending(0n, 0n);
    this.emit(AssetEvent.uiMultiplierUpdateCancelled, [], [pendingMultiplier, pendingEffectiveAt]);
  }

  /** V2: the multiplier a pending update will set, or the current one. */
  newUiMultiplier(): bigint {
    const effectiveAt = this.st.pendingEffectiveAt();
    if (effectiveAt > this.ctx.env.block.timestamp) return this.st.pendingMultiplier();
    return this.multiplier();
  }

  totalSupplyUi(): bigint {
    const multiplier = this.multiplier();
    return checkedMul(this.st.totalSupply(), multiplier) / WAD;
  }

  supportsInterface(interfaceId: Uint8Array): boolean {
    const id = ((interfaceId[0]! << 24) | (interfaceId[1]! << 16) | (interfaceId[2]! << 8) | interfaceId[3]!) >>> 0;
    return ASSET_V2_INTERFACE_IDS.includes(id);
  }

  // --- asset: batch mint, metadata, announcements ---

  /** Pause and role are the batch's only authorization; each mint then runs privileged (the mint-receiver policy still applies). */
  batchMint(caller: Uint8Array, recipients: Uint8Array[], amounts: bigint[], privileged: boolean): void {
    this.ensureNotPaused(PausableFeature.mint);
    if (!privileged) this.ensureRole(caller, B20Role.mint);
    if (recipients.length !== amounts.length) throw AssetError.lengthMismatch(BigInt(recipients.length), BigInt(amounts.length));
    if (recipients.length === 0) throw AssetError.emptyBatch();
    for (let i = 0; i < recipients.length; i++) this.mint(caller, recipients[i]!, amounts[i]!, true);
  }

  updateExtraMetadata(caller: Uint8Array, key: string, value: string, privileged: boolean): void {
    if (!privileged) this.ensureRole(caller, B20Role.metadata);
    if (key.length === 0) throw AssetError.invalidMetadataKey();
    const enc = new TextEncoder();
    this.st.setExtraMetadata(enc.encode(key), enc.encode(value));
    this.emit(AssetEvent.extraMetadataUpdated, [], [key, value]);
  }

  /** The business step before an announcement's internal calls: role, single use of `id`, `Announcement`. */
  beginAnnounce(caller: Uint8Array, id: string, description: string, uri: string, privileged: boolean): void {
    this.ensureOperator(caller, privileged);
    const idBytes = new TextEncoder().encode(id);
    if (this.st.isAnnouncementIdUsed(idBytes)) throw AssetError.announcementIdAlreadyUsed(id);
    this.st.markAnnouncementIdUsed(idBytes);
    this.emit(AssetEvent.announcement, [addressWord(caller)], [id, description, uri]);
  }

  endAnnounce(id: string): void {
    this.emit(AssetEvent.endAnnouncement, [], [id]);
  }
}
