/**
 * State overrides and block overrides (geth `override.StateOverride` / `override.BlockOverrides`)
 * in the form that crosses the thread boundary (0x strings only), and their application on the
 * executing thread: state overrides are written into an {@link OverlayStateManager} as if a
 * transaction just before the call had made them (so a simulated block's state root includes
 * them); moving a precompile or overriding its account changes the active precompile map.
 */
import { KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { bytesEqual, fromHex, to0x } from "../../util/bytes.js";
import { keccak256 } from "../../util/keccak.js";
import type { OverlayStateManager } from "../state/overlayStateManager.js";
import { SimulateError, SimulateErrorCode } from "./errors.js";

/** One account's overrides (geth `OverrideAccount`); every value 0x hex. */
export interface SerializedAccountOverride {
  nonce?: string;
  balance?: string;
  code?: string;
  /** The account's whole storage (slot → value, 32-byte hex each). */
  state?: Record<string, string>;
  /** Slots to change, the rest kept. */
  stateDiff?: Record<string, string>;
  movePrecompileToAddress?: string;
}

/** Overrides by address (lower-case 0x address). */
export type SerializedStateOverrides = Record<string, SerializedAccountOverride>;

/** Block header fields to override (geth `BlockOverrides`); quantities and data as 0x hex. */
export interface SerializedBlockOverrides {
  number?: string;
  difficulty?: string;
  time?: string;
  gasLimit?: string;
  feeRecipient?: string;
  prevRandao?: string;
  baseFeePerGas?: string;
  blobBaseFee?: string;
  beaconRoot?: string;
  withdrawals?: { index: string; validatorIndex: string; address: string; amount: string }[];
}

/**
 * The precompiles active in a block, by lower-case 0x address → the address the implementation
 * lives at natively (its own address unless it was moved).
 */
type ActivePrecompiles = Map<string, string>;

/** geth's `common.Address.Hex()` of 20 bytes. */
export function checksummedHex(address: Uint8Array): string {
  return checksummed(to0x(address));
}

/** geth's `common.Address.Hex()`: the EIP-55 checksummed form, as geth's messages print it. */
function checksummed(address: string): string {
  const lower = address.toLowerCase().slice(2);
  const hash = keccak256(new TextEncoder().encode(lower));
  let out = "0x";
  for (let i = 0; i < lower.length; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

function badOverride(message: string): SimulateError {
  return new SimulateError(SimulateErrorCode.BAD_OVERRIDE, message);
}

/**
 * Applies `overrides` to `state` and updates `precompiles` (geth `StateOverride.Apply`): addresses
 * in ascending order; a moved precompile leaves its address (and so does an overridden one); a
 * precompile cannot be moved onto an address that is overridden too, nor an address be
 * overridden after a precompile was moved onto it.
 * @throws SimulateError `BAD_OVERRIDE` with geth's message.
 */
export function applyStateOverrides(state: OverlayStateManager, overrides: SerializedStateOverrides | undefined, precompiles: ActivePrecompiles): void {
  if (overrides === undefined) return;
  const addrs = Object.keys(overrides).sort();
  const movedTo = new Set<string>();
  for (const addr of addrs) {
    const o: SerializedAccountOverride = overrides[addr]!;
    if (movedTo.has(addr)) throw badOverride(`account ${checksummed(addr)} has already been overridden by a precompile`);
    const native = precompiles.get(addr);
    if (o.movePrecompileToAddress !== undefined) {
      if (native === undefined) throw badOverride(`account ${checksummed(addr)} is not a precompile`);
      const dest: string = o.movePrecompileToAddress.toLowerCase();
      if (dest in overrides) throw badOverride(`account ${checksummed(dest)} is already overridden`);
      precompiles.set(dest, native);
      movedTo.add(dest);
    }
    if (native !== undefined) precompiles.delete(addr);
    if (o.state !== undefined && o.stateDiff !== undefined) throw badOverride(`account ${checksummed(addr)} has both 'state' and 'stateDiff'`);
    writeAccount(state, fromHex(addr), o);
  }
}

/** Writes one account's field and storage overrides. */
function writeAccount(state: OverlayStateManager, address: Uint8Array, o: SerializedAccountOverride): void {
  const touchesAccount = o.nonce !== undefined || o.balance !== undefined || o.code !== undefined || o.state !== undefined || o.stateDiff !== undefined;
  if (!touchesAccount) return;
  const cur = state.getAccountSync(address);
  const nonce = o.nonce !== undefined ? BigInt(o.nonce) : (cur?.nonce ?? 0n);
  const balance = o.balance !== undefined ? BigInt(o.balance) : (cur?.balance ?? 0n);
  let codeHash = cur?.codeHash ?? KECCAK256_NULL;
  if (o.code !== undefined) {
    const code = fromHex(o.code);
    codeHash = keccak256(code);
    if (code.length > 0) state.putCodeByHash(codeHash, code);
  }
  let hasStorage = cur !== undefined && !bytesEqual(cur.storageRoot, KECCAK256_RLP);
  if (o.state !== undefined) {
    state.wipeStorageSync(address);
    hasStorage = Object.values(o.state).some((v) => !isZeroHex(v));
  } else if (o.stateDiff !== undefined && Object.values(o.stateDiff).some((v) => !isZeroHex(v))) hasStorage = true;
  state.putAccountFieldsSync(address, nonce, balance, codeHash, hasStorage);
  for (const [slot, value] of Object.entries(o.state ?? o.stateDiff ?? {})) state.putStorageSync(address, fromHex(slot), fromHex(value));
}

function isZeroHex(v: string): boolean {
  return /^0x0*$/.test(v);
}


/** The active precompiles of a fork as an {@link ActivePrecompiles} map (each at its own address). */
export function nativePrecompiles(addresses: readonly number[]): ActivePrecompiles {
  const m: ActivePrecompiles = new Map();
  for (const n of addresses) {
    const a = to0x(precompileAddressBytes(n));
    m.set(a, a);
  }
  return m;
}

function precompileAddressBytes(n: number): Uint8Array {
  const a = new Uint8Array(20);
  a[18] = n >>> 8;
  a[19] = n & 0xff;
  return a;
}
