/**
 * The batcher key (`--batcher.key`, env `BASALT_BATCHER_KEY`) and whether derivation will take
 * its transactions: only those whose sender is the system config's batcher at their L1 block
 * count (specs derivation.md "L1 Retrieval"). The current batcher is the one the L2 head's
 * L1-info deposit names (`batcherHash`, kept in step with L1's `ConfigUpdate`s); the genesis
 * batcher is the rollup config's. A key for another address than the current one is refused; one
 * for the current batcher that differs from the genesis one (rotated on L1) only earns a warning.
 */
import { bytesToHex, createAddressFromPrivateKey, hexToBytes, isHexString } from "@ethereumjs/util";
import { BatcherError, BatcherErrorCode } from "./errors.js";

/**
 * The 32-byte key of `--batcher.key` (0x optional).
 * @throws BatcherError KEY_MISSING (none given), KEY_INVALID (not 32 bytes of hex).
 */
export function parseBatcherKey(value: string | undefined): Uint8Array {
  if (value === undefined || value.trim() === "") {
    throw new BatcherError({ code: BatcherErrorCode.KEY_MISSING }, "--batcher needs the batcher's private key: --batcher.key <hex> or BASALT_BATCHER_KEY");
  }
  const v = value.trim();
  const hex = (v.startsWith("0x") || v.startsWith("0X") ? "0x" + v.slice(2) : "0x" + v) as `0x${string}`;
  if (!isHexString(hex) || hex.length !== 66) {
    throw new BatcherError({ code: BatcherErrorCode.KEY_INVALID, length: Math.max(0, Math.floor((hex.length - 2) / 2)) }, "--batcher.key: expected a 32-byte private key as 64 hex digits (0x optional)");
  }
  return hexToBytes(hex);
}

/** The address of a batcher key (0x-hex, lower case). */
export function batcherAddressOf(key: Uint8Array): string {
  return createAddressFromPrivateKey(key).toString().toLowerCase();
}

/**
 * Checks the key's address against the rollup's batcher: `current` (the system config's, from
 * the L2 head) must match; a mismatch with `genesis` alone returns a warning to log.
 * @throws BatcherError KEY_NOT_BATCHER when the address is not the current batcher.
 */
export function checkBatcherAddress(address: string, current: Uint8Array | string, genesis: string): { warning?: string } {
  const cur = (typeof current === "string" ? current : bytesToHex(current)).toLowerCase();
  const a = address.toLowerCase();
  if (a !== cur) {
    throw new BatcherError(
      { code: BatcherErrorCode.KEY_NOT_BATCHER, address: a, batcher: cur },
      `--batcher.key is the key of ${a}, but the rollup's batcher (the system config's, as the L2 head names it) is ${cur}: derivation would ignore its transactions`,
    );
  }
  if (a !== genesis.toLowerCase()) return { warning: `the batcher ${a} is not the rollup config's genesis batcher ${genesis.toLowerCase()} (rotated on L1 since genesis)` };
  return {};
}
