/**
 * Storage slot arithmetic of the Base native precompiles, which keep their state in the EVM
 * trie exactly as a Solidity contract would (base/base `precompile-storage`): ERC-7201 namespace
 * roots, mapping slots and fields packed into one word.
 *
 * Hashing a mapping slot is not metered (base/base charges only the SLOAD/SSTORE that follows).
 */
import { keccak256 } from "../../util/keccak.js";

const TWO_256 = 1n << 256n;

/** A 256-bit integer as 32 big-endian bytes. */
export function u256Bytes(x: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = x;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Big-endian bytes as an integer. */
export function bytesToU256(b: Uint8Array): bigint {
  let x = 0n;
  for (const byte of b) x = (x << 8n) | BigInt(byte);
  return x;
}

/** A 20-byte address as the integer a storage word holds. */
export function addressToU256(a: Uint8Array): bigint {
  return bytesToU256(a);
}

/** The low 160 bits of a word as a 20-byte address. */
export function u256ToAddress(x: bigint): Uint8Array {
  return u256Bytes(x & ((1n << 160n) - 1n)).slice(12);
}

/**
 * ERC-7201 namespace root: `keccak256(abi.encode(uint256(keccak256(id)) - 1)) & ~0xff`
 * (e.g. `base.b20` → `0xc78b71fe…4000`).
 */
export function erc7201Root(namespace: string): bigint {
  const inner = bytesToU256(keccak256(new TextEncoder().encode(namespace)));
  const outer = bytesToU256(keccak256(u256Bytes((inner - 1n + TWO_256) % TWO_256)));
  return outer & ~0xffn;
}

/** Solidity mapping slot of a value key: `keccak256(lpad32(key) ‖ slot)`. */
export function mappingSlot(key: bigint, slot: bigint): bigint {
  const buf = new Uint8Array(64);
  buf.set(u256Bytes(key), 0);
  buf.set(u256Bytes(slot), 32);
  return bytesToU256(keccak256(buf));
}

/** Solidity mapping slot of an address key. */
export function mappingSlotOfAddress(key: Uint8Array, slot: bigint): bigint {
  return mappingSlot(addressToU256(key), slot);
}

/** Solidity mapping slot of a bytes32 key. */
export function mappingSlotOfBytes32(key: Uint8Array, slot: bigint): bigint {
  return mappingSlot(bytesToU256(key), slot);
}

/** `slot + offset` within a namespace, wrapping as the EVM's 256-bit arithmetic (roots end in 0x00, so fields never wrap in practice). */
export function fieldSlot(root: bigint, offset: bigint): bigint {
  return (root + offset) % TWO_256;
}

/** The `bits`-wide field at byte `offset` (counted from the least-significant end) of a word. */
export function readPacked(word: bigint, offset: number, bits: number): bigint {
  return (word >> BigInt(offset * 8)) & ((1n << BigInt(bits)) - 1n);
}

/** `word` with the `bits`-wide field at byte `offset` replaced by `value` (which must fit). */
export function writePacked(word: bigint, offset: number, bits: number, value: bigint): bigint {
  const shift = BigInt(offset * 8);
  const mask = ((1n << BigInt(bits)) - 1n) << shift;
  return (word & ~mask) | ((value << shift) & mask);
}
