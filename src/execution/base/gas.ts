/**
 * The gas a Base native precompile charges for what it does (base/base
 * `precompile-storage/src/evm.rs`, `EvmPrecompileStorageProvider`, with revm's `GasParams` of the
 * Osaka spec): the EVM's own prices for the equivalent opcodes, so that a precompile costs what a
 * Solidity contract doing the same storage work would.
 *
 * The golden vectors (`../shared/fixtures/base-upgrades`) run under base/base's
 * `HashMapStorageProvider`, which charges nothing for storage, logs or hashing: only explicit
 * charges (a precompile's `deduct_gas`) count there. {@link FREE_STORAGE_SCHEDULE} is that schedule.
 */

/** Prices of the metered operations. */
export interface BaseGasSchedule {
  /** EIP-2929 warm storage read (SLOAD, TLOAD, TSTORE, account read base): 100. */
  warmRead: number;
  /** Extra for a cold SLOAD: 2,100 − 100. */
  coldSloadExtra: number;
  /** Extra for a cold account read: 2,600 − 100. */
  coldAccountExtra: number;
  /** Extra for an SSTORE to a cold slot (EIP-2929 COLD_SLOAD_COST): 2,100. */
  coldSstoreExtra: number;
  /** SSTORE of a clean slot from zero (EIP-2200 SSTORE_SET): 20,000. */
  sstoreSet: number;
  /** SSTORE of a clean non-zero slot (EIP-2929 SSTORE_RESET 5,000 − 2,100): 2,900. */
  sstoreReset: number;
  /** EIP-3529 refund for clearing a slot: SSTORE_RESET + ACCESS_LIST_STORAGE_KEY = 4,800. */
  sstoreClearsRefund: number;
  /** EIP-2200: an SSTORE with this much gas left or less halts out of gas (the call stipend). */
  sstoreStipend: number;
  /** LOG base: 375. */
  log: number;
  /** Per topic: 375. */
  logTopic: number;
  /** Per data byte: 8. */
  logDataByte: number;
  /** KECCAK256 base: 30. */
  keccak: number;
  /** KECCAK256 per 32-byte word: 6. */
  keccakWord: number;
  /** CREATE base, charged when code is set on an empty account: 32,000. */
  create: number;
  /** Code deposit per byte: 200. */
  codeDepositByte: number;
}

/** The EVM's prices since Berlin/London (unchanged through Osaka), as base/base's precompiles charge them. */
export const EVM_SCHEDULE: BaseGasSchedule = Object.freeze({
  warmRead: 100,
  coldSloadExtra: 2000,
  coldAccountExtra: 2500,
  coldSstoreExtra: 2100,
  sstoreSet: 20_000,
  sstoreReset: 2900,
  sstoreClearsRefund: 4800,
  sstoreStipend: 2300,
  log: 375,
  logTopic: 375,
  logDataByte: 8,
  keccak: 30,
  keccakWord: 6,
  create: 32_000,
  codeDepositByte: 200,
});

/** base/base's `HashMapStorageProvider` (the golden tests): storage, logs and hashing are free; explicit charges still count. */
export const FREE_STORAGE_SCHEDULE: BaseGasSchedule = Object.freeze({
  warmRead: 0,
  coldSloadExtra: 0,
  coldAccountExtra: 0,
  coldSstoreExtra: 0,
  sstoreSet: 0,
  sstoreReset: 0,
  sstoreClearsRefund: 0,
  sstoreStipend: 0,
  log: 0,
  logTopic: 0,
  logDataByte: 0,
  keccak: 0,
  keccakWord: 0,
  create: 0,
  codeDepositByte: 0,
});

/** Calldata charge of every Base precompile call: 6 gas per 32-byte word (`G_SHA3WORD`, base/base `deduct_calldata_cost!`). */
export const CALLDATA_WORD_GAS = 6;

/**
 * EIP-2200/2929 SSTORE cost (static warm read + dynamic) of writing `value` over `present`, whose
 * transaction-start value is `original` (revm `sstore_static_gas` + `sstore_dynamic_gas`).
 */
export function sstoreCost(s: BaseGasSchedule, original: bigint, present: bigint, value: bigint, cold: boolean): number {
  let cost = s.warmRead;
  if (value !== present && original === present) cost = original === 0n ? s.sstoreSet : s.sstoreReset;
  return cold ? cost + s.coldSstoreExtra : cost;
}

/** EIP-3529 SSTORE refund (may be negative: a refund taken back), revm `sstore_refund`. */
export function sstoreRefund(s: BaseGasSchedule, original: bigint, present: bigint, value: bigint): number {
  if (value === present) return 0;
  if (original === present) return value === 0n ? s.sstoreClearsRefund : 0;
  let refund = 0;
  if (original !== 0n) {
    if (present === 0n) refund -= s.sstoreClearsRefund;
    else if (value === 0n) refund += s.sstoreClearsRefund;
  }
  if (original === value) refund += original === 0n ? s.sstoreSet - s.warmRead : s.sstoreReset - s.warmRead;
  return refund;
}
