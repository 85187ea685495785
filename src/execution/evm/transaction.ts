/**
 * Transaction processing on the fast EVM: validation, intrinsic gas, buying gas, EIP-2929
 * warming, EIP-7702 authorizations, execution, refunds (EIP-3529), the EIP-7623 calldata floor
 * and the fee payments — geth's `state_transition.go` order, with @ethereumjs's `runTx` (the
 * reference engine) as the conformance check. Calls (eth_call, eth_estimateGas) run as
 * messages: no signed transaction object, geth's skipped nonce and EOA checks.
 */
import { ecrecover } from "@ethereumjs/util";
import { RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../../util/keccak.js";
import { customCrypto } from "../../chain/crypto.js";
import { FastEvmUnsupported, FastEvmUnsupportedCode, TxInvalidCode, TxInvalidError } from "./errors.js";
import {
  ACCESS_LIST_ADDRESS,
  ACCESS_LIST_STORAGE_KEY,
  DELEGATION_PREFIX,
  GAS_PER_BLOB,
  INITCODE_WORD,
  MAX_NONCE,
  MAX_REFUND_QUOTIENT,
  PER_AUTH_BASE_COST,
  PER_EMPTY_ACCOUNT_COST,
  TOTAL_COST_FLOOR_PER_TOKEN,
  TX_CREATE,
  TX_DATA_NONZERO,
  TX_DATA_ZERO,
  TX_GAS,
} from "./gas.js";
import { createAddress, Halt, isDelegation, type BlockEnv, type Interpreter, type MessageResult } from "./interpreter.js";
import type { PrecompileSet } from "./precompiles/index.js";
import type { EvmRules } from "./rules.js";
import { addressKey, isEmptyCodeHash, type AccessRecord, type EvmLog, type EvmState } from "./state.js";

/** An EIP-7702 authorization tuple. */
interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** An authorization tuple from its RLP byte fields `[chainId, address, nonce, yParity, r, s]`. */
export function authorizationFromBytes(fields: readonly Uint8Array[]): Authorization {
  const big = (b: Uint8Array | undefined): bigint => (b === undefined || b.length === 0 ? 0n : BigInt("0x" + Buffer.from(b).toString("hex")));
  return { chainId: big(fields[0]), address: fields[1]!, nonce: big(fields[2]), yParity: big(fields[3]), r: big(fields[4]), s: big(fields[5]) };
}

/** A transaction (or a call's message) in the form the fast engine runs it. */
export interface EvmTransaction {
  /** EIP-2718 type: 0 legacy, 1 access list, 2 dynamic fee, 3 blob, 4 set code. */
  type: number;
  sender: Uint8Array;
  to: Uint8Array | undefined;
  nonce: bigint;
  gasLimit: bigint;
  value: bigint;
  data: Uint8Array;
  /** Legacy and type 1: the gas price; types 2–4: max fee per gas. */
  maxFeePerGas: bigint;
  /** Legacy and type 1: the gas price; types 2–4: the priority fee cap. */
  maxPriorityFeePerGas: bigint;
  accessList: readonly { address: Uint8Array; storageKeys: readonly Uint8Array[] }[];
  blobVersionedHashes: readonly Uint8Array[];
  maxFeePerBlobGas: bigint;
  authorizationList: readonly Authorization[];
}

/** How a transaction is run. */
interface TxRunOptions {
  /** geth's message-call mode (eth_call, eth_estimateGas): nonce and EOA checks skipped. */
  call?: boolean;
  /**
   * geth's `SkipTransactionChecks` (eth_simulateV1): no EOA check and no EIP-7825 gas cap, even
   * when nonces are checked (`call` false).
   */
  skipTransactionChecks?: boolean;
  /** Check the gas limit against the block's (default true; calls are capped by the caller). */
  checkBlockGasLimit?: boolean;
  /** Record the accessed addresses and slots (eth_createAccessList). */
  recordAccessList?: boolean;
  /**
   * Who receives the priority fee: the block's coinbase (default). OP chains also credit the
   * base fee to their vault, which the OP layer does after the transaction.
   */
  payCoinbase?: boolean;
  /**
   * Undo the transaction's effects after running it (calls and gas estimation): the state's
   * caches stay loaded for the next run.
   */
  discard?: boolean;
  /** Called at every value transfer (see `Interpreter.onTransfer`): eth_simulateV1's `traceTransfers`. */
  onTransfer?: (from: Uint8Array, to: Uint8Array, value: bigint) => void;
}

/** The outcome of an executed transaction. */
export interface TxResult {
  /** 1 success, 0 reverted or halted. */
  status: 0 | 1;
  halt: Halt;
  /** Gas the receipt reports: after the refund, at least the EIP-7623 floor. */
  gasUsed: bigint;
  /** The refund applied (capped at a fifth of the gas spent). */
  gasRefund: bigint;
  /** Gas spent before the refund, at least the EIP-7623 floor (geth `MaxUsedGas`). */
  gasPeak: bigint;
  output: Uint8Array;
  logs: EvmLog[];
  createdAddress?: Uint8Array;
  /** EIP-4844 blob gas of the transaction. */
  blobGasUsed: bigint;
  /** Price paid per gas. */
  effectiveGasPrice: bigint;
  accessList?: AccessRecord;
}

/** What a transaction runs against. */
export interface TxContext {
  rules: EvmRules;
  state: EvmState;
  interpreter: Interpreter;
  block: BlockEnv;
  precompiles: PrecompileSet;
}

/**
 * Faults injected by tests to prove the fallbacks to the reference engine (block import,
 * flashblocks): never set outside tests.
 */
export const fastEvmTestHooks: {
  /** Called with every executed transaction's result before its effects are final. */
  afterTransaction?: (result: TxResult) => void;
} = {};

/** Largest gas value the engine counts exactly (JS numbers are exact below 2^53). */
const MAX_SAFE_GAS = BigInt(Number.MAX_SAFE_INTEGER);
/** 2^64 - 1: nonces are uint64. */
const MAX_UINT64 = (1n << 64n) - 1n;
/** secp256k1 group order n and n/2 (EIP-2: signatures with s > n/2 are invalid). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_N_DIV_2 = SECP256K1_N / 2n;
/** EIP-7702 authorization signing magic. */
const SET_CODE_MAGIC = 0x05;
/** Blob version byte of KZG commitments (EIP-4844 VERSIONED_HASH_VERSION_KZG). */
const VERSIONED_HASH_VERSION_KZG = 0x01;

const EMPTY = new Uint8Array(0);

function hex(b: Uint8Array): string {
  return "0x" + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/** Intrinsic gas and the EIP-7623 floor of `tx` under `rules`. */
function intrinsicGas(rules: EvmRules, tx: EvmTransaction): { intrinsic: number; floor: number } {
  let zeros = 0;
  const data = tx.data;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  const nonZeros = data.length - zeros;
  let gas = TX_GAS + zeros * TX_DATA_ZERO + nonZeros * TX_DATA_NONZERO;
  if (tx.to === undefined) {
    gas += TX_CREATE;
    if (rules.initcodeLimit) gas += INITCODE_WORD * Math.ceil(data.length / 32);
  }
  for (const e of tx.accessList) gas += ACCESS_LIST_ADDRESS + ACCESS_LIST_STORAGE_KEY * e.storageKeys.length;
  gas += PER_EMPTY_ACCOUNT_COST * tx.authorizationList.length;
  const floor = rules.calldataFloor ? TX_GAS + TOTAL_COST_FLOOR_PER_TOKEN * (zeros + nonZeros * 4) : 0;
  return { intrinsic: gas, floor };
}

/** The price per gas `tx` pays at `baseFee` (EIP-1559: min(maxFee, baseFee + tip)). */
function effectiveGasPrice(tx: EvmTransaction, baseFee: bigint): bigint {
  if (tx.type < 2) return tx.maxFeePerGas;
  const withTip = baseFee + tx.maxPriorityFeePerGas;
  return withTip < tx.maxFeePerGas ? withTip : tx.maxFeePerGas;
}

function invalid(code: TxInvalidCode, message: string): never {
  throw new TxInvalidError(code, message);
}

/**
 * Checks what needs no state: type, gas limits, fee caps, blob and authorization rules,
 * intrinsic gas. Returns the intrinsic gas and floor.
 */
function validateStatic(ctx: TxContext, tx: EvmTransaction, opts: TxRunOptions): { intrinsic: number; floor: number } {
  const { rules, block } = ctx;
  if (tx.type === 3 && !rules.blobs) invalid(TxInvalidCode.TYPE_NOT_SUPPORTED, "blob transactions are not supported before Cancun");
  if (tx.type === 4 && !rules.setCode) invalid(TxInvalidCode.TYPE_NOT_SUPPORTED, "set code transactions are not supported before Prague");
  if (tx.type > 4) throw new FastEvmUnsupported(FastEvmUnsupportedCode.TX_TYPE, `transaction type ${tx.type}`);
  if (opts.checkBlockGasLimit !== false && tx.gasLimit > block.gasLimit) {
    invalid(TxInvalidCode.GAS_LIMIT_EXCEEDS_BLOCK, `gas limit reached: tx gas ${tx.gasLimit} above block gas limit ${block.gasLimit}`);
  }
  if (rules.txGasCap > 0 && opts.skipTransactionChecks !== true && tx.gasLimit > BigInt(rules.txGasCap)) invalid(TxInvalidCode.GAS_LIMIT_EXCEEDS_CAP, "exceeds maximum per-transaction gas limit");
  if (tx.to === undefined) {
    if (tx.type === 3 || tx.type === 4) invalid(TxInvalidCode.CREATE_NOT_ALLOWED, `transaction type ${tx.type} cannot create a contract`);
    if (rules.initcodeLimit && tx.data.length > rules.maxInitcodeSize) {
      invalid(TxInvalidCode.INITCODE_TOO_LARGE, `max initcode size exceeded: code size ${tx.data.length} limit ${rules.maxInitcodeSize}`);
    }
  }
  if (tx.type === 4 && tx.authorizationList.length === 0) invalid(TxInvalidCode.EMPTY_AUTHORIZATION_LIST, "EIP-7702 transaction with empty auth list");
  if (tx.type === 3) {
    const n = tx.blobVersionedHashes.length;
    if (n === 0) invalid(TxInvalidCode.BLOB_HASHES_INVALID, "blob transaction missing blob hashes");
    if (n * GAS_PER_BLOB > rules.maxBlobGasPerBlock || (rules.maxBlobsPerTx > 0 && n > rules.maxBlobsPerTx)) {
      invalid(TxInvalidCode.BLOB_HASHES_INVALID, `blob transaction has too many blobs: ${n}`);
    }
    for (const h of tx.blobVersionedHashes) {
      if (h.length !== 32 || h[0] !== VERSIONED_HASH_VERSION_KZG) invalid(TxInvalidCode.BLOB_HASHES_INVALID, "blob transaction has an invalid versioned hash");
    }
    if (tx.maxFeePerBlobGas < block.blobBaseFee) {
      invalid(TxInvalidCode.BLOB_FEE_CAP_TOO_LOW, `max fee per blob gas less than block blob gas fee: maxFeePerBlobGas ${tx.maxFeePerBlobGas}, blobBaseFee ${block.blobBaseFee}`);
    }
  }
  if (tx.maxPriorityFeePerGas > tx.maxFeePerGas) invalid(TxInvalidCode.TIP_ABOVE_FEE_CAP, "max priority fee per gas higher than max fee per gas");
  const ig = intrinsicGas(rules, tx);
  const minimum = ig.intrinsic > ig.floor ? ig.intrinsic : ig.floor;
  if (tx.gasLimit < BigInt(minimum)) invalid(TxInvalidCode.INTRINSIC_GAS_TOO_LOW, "intrinsic gas too low");
  if (tx.maxFeePerGas < block.baseFee) invalid(TxInvalidCode.FEE_CAP_BELOW_BASE_FEE, "max fee per gas less than block base fee");
  return ig;
}

/** Recovers an EIP-7702 authority, or undefined for an invalid signature. */
function recoverAuthority(a: Authorization): Uint8Array | undefined {
  if (a.s > SECP256K1_N_DIV_2 || a.s === 0n || a.r === 0n || a.r >= SECP256K1_N || a.yParity > 1n) return undefined;
  const rlp = RLP.encode([a.chainId, a.address, a.nonce]);
  const msg = new Uint8Array(1 + rlp.length);
  msg[0] = SET_CODE_MAGIC;
  msg.set(rlp, 1);
  const hash = keccak256(msg);
  try {
    const r = bigToBytes32(a.r);
    const s = bigToBytes32(a.s);
    const recover = customCrypto().ecrecover ?? ecrecover;
    const pub = recover(hash, a.yParity, r, s);
    return keccak256(pub).slice(12);
  } catch {
    return undefined;
  }
}

function bigToBytes32(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(64, "0"), "hex"));
}

/** Applies the EIP-7702 authorizations of `tx`; returns the refund they earn. */
function applyAuthorizations(ctx: TxContext, tx: EvmTransaction): number {
  const { state, rules } = ctx;
  let refund = 0;
  for (const a of tx.authorizationList) {
    if (a.chainId !== 0n && a.chainId !== rules.chainId) continue;
    if (a.nonce >= MAX_NONCE) continue;
    const authority = recoverAuthority(a);
    if (authority === undefined) continue;
    const e = state.account(authority);
    state.warmAccountForTx(e);
    const code = state.code(e);
    if (code.length > 0 && !isDelegation(code)) continue;
    if (e.nonce !== a.nonce) continue;
    if (e.exists) refund += PER_EMPTY_ACCOUNT_COST - PER_AUTH_BASE_COST;
    if (a.address.every((b) => b === 0)) {
      if (!isEmptyCodeHash(e.codeHash)) state.setCode(e, keccak256(EMPTY), EMPTY);
    } else {
      const designator = new Uint8Array(23);
      designator.set(DELEGATION_PREFIX, 0);
      designator.set(a.address, 3);
      state.setCode(e, keccak256(designator), designator);
    }
    state.setNonce(e, e.nonce + 1n);
  }
  return refund;
}

/**
 * Runs `tx` on `ctx.state`. Invalid transactions throw {@link TxInvalidError} and leave the
 * state as it was; everything else — success, revert, halt — is a {@link TxResult}, and the
 * transaction's effects are final in the state (its per-transaction state is reset).
 */
export function runTransaction(ctx: TxContext, tx: EvmTransaction, opts: TxRunOptions = {}): TxResult {
  const { rules, state, interpreter, block, precompiles } = ctx;
  const startJournal = state.journalLength;
  const startLogs = state.logs.length;
  const startRefund = state.refund;
  const ig = validateStatic(ctx, tx, opts);
  const sender = state.account(tx.sender);
  try {
    if (opts.call !== true) {
      if (opts.skipTransactionChecks !== true && !isEmptyCodeHash(sender.codeHash) && !(rules.setCode && isDelegation(state.code(sender)))) {
        invalid(TxInvalidCode.SENDER_NOT_EOA, `sender not an eoa: address ${hex(tx.sender)}`);
      }
      if (sender.nonce >= MAX_NONCE) invalid(TxInvalidCode.NONCE_MAX, `nonce has max value: address ${hex(tx.sender)}, nonce: ${sender.nonce}`);
      if (tx.nonce < sender.nonce) invalid(TxInvalidCode.NONCE_TOO_LOW, `nonce too low: address ${hex(tx.sender)}, tx: ${tx.nonce} state: ${sender.nonce}`);
      if (tx.nonce > sender.nonce) invalid(TxInvalidCode.NONCE_TOO_HIGH, `nonce too high: address ${hex(tx.sender)}, tx: ${tx.nonce} state: ${sender.nonce}`);
    }
    const blobGas = BigInt(tx.blobVersionedHashes.length * GAS_PER_BLOB);
    let maxCost = tx.value + tx.gasLimit * tx.maxFeePerGas;
    if (tx.type === 3) maxCost += blobGas * tx.maxFeePerBlobGas;
    if (sender.balance < maxCost) invalid(TxInvalidCode.INSUFFICIENT_FUNDS, `insufficient funds for gas * price + value: address ${hex(tx.sender)}`);
    // Gas is counted in doubles: a valid transaction with more than 2^53 gas goes to the reference engine.
    if (tx.gasLimit > MAX_SAFE_GAS) throw new FastEvmUnsupported(FastEvmUnsupportedCode.GAS_RANGE, `gas limit ${tx.gasLimit} above 2^53`);

    // Buy gas, bump the nonce.
    const price = effectiveGasPrice(tx, block.baseFee);
    state.setBalance(sender, sender.balance - tx.gasLimit * price - blobGas * block.blobBaseFee);
    // A message call skips the nonce checks: a sender at 2^64-1 wraps to 0, as geth's uint64 nonce does.
    state.setNonce(sender, (sender.nonce + 1n) & MAX_UINT64);
  } catch (e) {
    state.revertTo(startJournal, startLogs, startRefund);
    throw e;
  }

  // EIP-2929/2930/3651 warm sets.
  if (opts.recordAccessList === true) state.accessRecord = new Map();
  warmTransaction(ctx, tx.sender, tx.to, tx.accessList);
  let refund = 0;
  if (tx.type === 4) refund += applyAuthorizations(ctx, tx);
  warmDelegate(ctx, tx.to);

  const gas = Number(tx.gasLimit) - ig.intrinsic;
  interpreter.configure(rules, state, block, { origin: tx.sender, gasPrice: effectiveGasPrice(tx, block.baseFee), blobHashes: tx.blobVersionedHashes }, precompiles);
  let r: MessageResult;
  interpreter.onTransfer = opts.onTransfer;
  if (tx.to === undefined) {
    const address = createAddress(tx.sender, sender.nonce - 1n);
    r = interpreter.execute({ caller: tx.sender, to: undefined, value: tx.value, data: tx.data, gas, createAddress: address });
  } else {
    r = interpreter.execute({ caller: tx.sender, to: tx.to, value: tx.value, data: tx.data, gas });
  }

  interpreter.onTransfer = undefined;
  // Refunds (EIP-3529: at most a fifth of the gas spent), the calldata floor (EIP-7623).
  const price = effectiveGasPrice(tx, block.baseFee);
  const spent = Number(tx.gasLimit) - r.gasLeft;
  if (r.halt <= Halt.RETURN) refund += state.refund;
  const cappedRefund = Math.min(refund < 0 ? 0 : refund, Math.floor(spent / MAX_REFUND_QUOTIENT));
  let used = spent - cappedRefund;
  if (used < ig.floor) used = ig.floor;
  const gasUsed = BigInt(used);
  state.addBalance(sender, (tx.gasLimit - gasUsed) * price);
  if (opts.payCoinbase !== false) {
    const tip = price - block.baseFee;
    state.addBalance(state.account(block.coinbase), gasUsed * (tip > 0n ? tip : 0n));
  }
  const logs = r.halt <= Halt.RETURN ? state.logs.slice() : [];
  const accessList = state.accessRecord;
  const result: TxResult = {
    status: r.halt <= Halt.RETURN ? 1 : 0,
    halt: r.halt,
    gasUsed,
    gasRefund: BigInt(cappedRefund),
    gasPeak: BigInt(spent < ig.floor ? ig.floor : spent),
    output: r.output,
    logs,
    createdAddress: r.halt <= Halt.RETURN ? r.createdAddress : undefined,
    blobGasUsed: BigInt(tx.blobVersionedHashes.length * GAS_PER_BLOB),
    effectiveGasPrice: price,
    accessList,
  };
  fastEvmTestHooks.afterTransaction?.(result);
  state.accessRecord = undefined;
  if (opts.discard === true) state.discardTransaction();
  else state.endTransaction(rules.selfdestructOnlyCreated);
  return result;
}

/**
 * Warms what a transaction starts with (EIP-2929/2930/3651): the sender, the recipient, the
 * precompiles, the coinbase from Shanghai, and the access list's addresses and slots.
 */
export function warmTransaction(ctx: TxContext, sender: Uint8Array, to: Uint8Array | undefined, accessList: EvmTransaction["accessList"]): void {
  const { state, rules, precompiles, block } = ctx;
  state.warmAccountForTx(state.account(sender));
  state.setAlwaysWarm(precompileKeys(precompiles));
  if (to !== undefined) state.warmAccountForTx(state.account(to));
  if (rules.warmCoinbase) state.warmAccountForTx(state.account(block.coinbase));
  for (const e of accessList) {
    const entry = state.account(e.address);
    state.warmAccountForTx(entry, true);
    for (const k of e.storageKeys) state.warmSlotForTx(entry, state.slotByBytes(entry, k));
  }
}

/** Warms the EIP-7702 delegate of a delegated recipient (geth and @ethereumjs do, without charging for it). */
export function warmDelegate(ctx: TxContext, to: Uint8Array | undefined): void {
  if (to === undefined || !ctx.rules.setCode) return;
  const code = ctx.state.code(ctx.state.account(to));
  if (isDelegation(code)) ctx.state.warmAccountForTx(ctx.state.account(code.subarray(3, 23)));
}

const precompileKeyCache = new WeakMap<PrecompileSet, ReadonlySet<string>>();

/** The account keys of a precompile set's addresses. */
function precompileKeys(set: PrecompileSet): ReadonlySet<string> {
  let keys = precompileKeyCache.get(set);
  if (keys === undefined) {
    keys = new Set([...set.addresses.map((a) => addressKey(precompileAddress(a))), ...(set.base?.warmAddresses ?? []).map(addressKey)]);
    precompileKeyCache.set(set, keys);
  }
  return keys;
}

/** The 20-byte address of precompile number `n`. */
function precompileAddress(n: number): Uint8Array {
  const a = new Uint8Array(20);
  a[18] = n >>> 8;
  a[19] = n & 0xff;
  return a;
}
