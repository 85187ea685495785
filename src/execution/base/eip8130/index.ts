/**
 * The two EIP-8130 system precompiles base/base installs from Cobalt (PR base/base#3121, "gated
 * behind the Cobalt hardfork"; `provider.rs` @05358dd1 `install_with_observer`: `upgrade >= Cobalt`
 * → `TxContext::install`, `NonceManager::install`; every stored `tx_context/precompile.rs` and
 * `nonce/precompile.rs` says "Only installed at Cobalt or later"). EIP-8130 transactions themselves
 * were moved to Zenith (PR #4924, "batch, txpool, RPC, and ingress handling") and are off on
 * every canonical chain, so at Cobalt nothing ever writes their state: the transaction context
 * always falls back to `tx.origin` and every 2D nonce reads zero — but the precompiles answer
 * calls, with these return data, reverts and gas.
 *
 * - TxContext (`0x8130…aa02`): `tx_context/dispatch.rs` index id 60849162238 (three getters,
 *   nonpayable, 3 gas per returned word, transient reads unmetered) and `tx_context/storage.rs`
 *   @0050129b (slots 0/1/2, the `tx.origin` fallbacks). A later stored version drops
 *   `getTransactionSender`/`getTransactionSenderActorId` (index id 70919354651); which of the two
 *   is on releases/v1.4.x could not be dated — see docs/base-precompiles-goldens.md.
 * - NonceManager (`0x8130…aa01`): `nonce/dispatch.rs` @1732d67b and `nonce/storage.rs` @0d23e95b:
 *   `getNonce(address,uint256) view returns (uint64)`, namespace `"base.nonce_manager"`,
 *   `mapping(address => mapping(uint256 => uint64)) nonces` at slot 0.
 */
import { encodeCall, selectorOf } from "../abi.js";
import { NONCE_MANAGER_ADDRESS, TX_CONTEXT_ADDRESS } from "../addresses.js";
import { PrecompileRevertError, UnknownSelectorError } from "../errors.js";
import { CALLDATA_WORD_GAS } from "../gas.js";
import type { BasePrecompileHandler } from "../outcome.js";
import { addressToU256, bytesToU256, erc7201Root, fieldSlot, mappingSlot, mappingSlotOfAddress, u256Bytes, u256ToAddress } from "../slots.js";

/** `NonPayable()`: both precompiles refuse attached value before charging anything. */
const NON_PAYABLE = encodeCall(selectorOf("NonPayable()"), [], []);
const is = (a: Uint8Array, b: Uint8Array): boolean => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];

/** TxContext selectors. */
export const TxContextSelectors = {
  getTransactionSender: selectorOf("getTransactionSender()"),
  getTransactionPayer: selectorOf("getTransactionPayer()"),
  getTransactionSenderActorId: selectorOf("getTransactionSenderActorId()"),
} as const;

/** Transient slots at {@link TX_CONTEXT_ADDRESS} the EIP-8130 execution layer would write: sender, payer, sender actor id. */
export const TX_CONTEXT_SLOTS = { sender: 0n, payer: 1n, senderActorId: 2n } as const;

/** EIP-8130's price per returned 32-byte word of a TxContext getter (`W_copy`). */
const TX_CONTEXT_OUTPUT_WORD_GAS = 3;

/**
 * The TxContext precompile: each getter returns its transient slot, or — unset, as on every
 * transaction at Cobalt — `tx.origin` (sender, payer) and `bytes32(uint256(uint160(tx.origin)))`
 * (actor id). No calldata charge; 3 gas for the one returned word; trailing calldata is ignored.
 */
export const txContextHandler: BasePrecompileHandler = (ctx, input) => {
  if (ctx.env.value !== 0n) throw new PrecompileRevertError(NON_PAYABLE);
  if (input.length < 4) throw new UnknownSelectorError(new Uint8Array(4));
  const selector = input.slice(0, 4);
  const slot = is(selector, TxContextSelectors.getTransactionSender)
    ? TX_CONTEXT_SLOTS.sender
    : is(selector, TxContextSelectors.getTransactionPayer)
      ? TX_CONTEXT_SLOTS.payer
      : is(selector, TxContextSelectors.getTransactionSenderActorId)
        ? TX_CONTEXT_SLOTS.senderActorId
        : undefined;
  if (slot === undefined) throw new UnknownSelectorError(selector);
  // `tload_unmetered`: EIP-8130 prices the output, not the transient read.
  const raw = ctx.host.tload(TX_CONTEXT_ADDRESS, slot);
  let value: bigint;
  if (slot === TX_CONTEXT_SLOTS.senderActorId) value = raw !== 0n ? raw : addressToU256(ctx.env.origin);
  else value = raw !== 0n ? addressToU256(u256ToAddress(raw)) : addressToU256(ctx.env.origin);
  const output = u256Bytes(value);
  ctx.deductGas(TX_CONTEXT_OUTPUT_WORD_GAS * Math.ceil(output.length / 32));
  return output;
};

/** `getNonce(address account, uint256 nonceKey)`. */
export const GET_NONCE_SELECTOR = selectorOf("getNonce(address,uint256)");
/** `ProtocolNonceNotSupported()`: nonce key 0 is the account's protocol nonce, kept in account state. */
const PROTOCOL_NONCE_NOT_SUPPORTED = encodeCall(selectorOf("ProtocolNonceNotSupported()"), [], []);
/** ERC-7201 root of `"base.nonce_manager"`. */
export const NONCE_MANAGER_ROOT = erc7201Root("base.nonce_manager");
/** Slot 0: `mapping(address => mapping(uint256 => uint64)) nonces`. */
const NONCE_MANAGER_NONCES_SLOT = fieldSlot(NONCE_MANAGER_ROOT, 0n);

/** The slot of `nonces[account][nonceKey]`. */
export function nonceSlot(account: Uint8Array, nonceKey: bigint): bigint {
  return mappingSlot(nonceKey, mappingSlotOfAddress(account, NONCE_MANAGER_NONCES_SLOT));
}

/**
 * The NonceManager precompile: `getNonce` after the 6-gas-per-word calldata charge, one metered
 * SLOAD (none for key 0, which reverts `ProtocolNonceNotSupported()`). Arguments decode as
 * base/base's `decode_precompile_call!` (alloy's non-validating decode: an address is its word's
 * low 20 bytes; fewer than 64 argument bytes or another selector → the selector is unknown).
 */
export const nonceManagerHandler: BasePrecompileHandler = (ctx, input) => {
  if (ctx.env.value !== 0n) throw new PrecompileRevertError(NON_PAYABLE);
  ctx.deductGas(CALLDATA_WORD_GAS * Math.ceil(input.length / 32));
  if (input.length < 4) throw new UnknownSelectorError(new Uint8Array(4));
  const selector = input.slice(0, 4);
  if (!is(selector, GET_NONCE_SELECTOR) || input.length < 68) throw new UnknownSelectorError(selector);
  const account = input.slice(16, 36);
  const nonceKey = bytesToU256(input.subarray(36, 68));
  if (nonceKey === 0n) throw new PrecompileRevertError(PROTOCOL_NONCE_NOT_SUPPORTED);
  const nonce = ctx.sload(NONCE_MANAGER_ADDRESS, nonceSlot(account, nonceKey)) & ((1n << 64n) - 1n);
  return u256Bytes(nonce);
};
