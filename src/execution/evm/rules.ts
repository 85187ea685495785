/**
 * The fork rules the fast EVM runs under, read once from an @ethereumjs `Common` (the chain
 * spec basalt builds from the genesis, set to a block's hardfork) — so both engines take their
 * rules from the same place. The fast engine supports London and every later Ethereum fork up
 * to Osaka and its blob-parameter-only forks; anything else (Berlin and earlier, Amsterdam's
 * EIPs, a chain with EIPs it does not implement) is left to the reference engine.
 */
import type { Common } from "@ethereumjs/common";
import { paramsTx } from "@ethereumjs/tx";
import { G_BASE, G_BLOCKHASH, G_CLZ, G_EXP, G_HIGH, G_JUMPDEST, G_KECCAK, G_LOW, G_MID, G_TRANSIENT, G_VERYLOW, G_ZERO, MAX_CODE_SIZE, MAX_INITCODE_SIZE } from "./gas.js";
import { Op } from "./opcodes.js";

/**
 * EIPs a Common can activate that the fast engine does not implement: Amsterdam's and the
 * experimental ones @ethereumjs knows (EOF, Verkle/binary trees, block-level access lists, …).
 */
const NOT_IMPLEMENTED_EIPS = [
  663, 2780, 3074, 3540, 3670, 4200, 4750, 5450, 6800, 7069, 7480, 7620, 7692, 7698, 7708, 7709, 7778, 7843, 7864, 7928, 7954, 7976, 7981, 7997, 8024, 8037, 8038,
  8246, 8282,
];

/** Why a Common cannot run on the fast engine (undefined when it can). */
export function unsupportedReason(common: Common): string | undefined {
  if (!common.gteHardfork("london")) return `hardfork ${common.hardfork()} is older than London`;
  for (const eip of NOT_IMPLEMENTED_EIPS) {
    if (common.isActivatedEIP(eip)) return `EIP-${eip} (hardfork ${common.hardfork()}) is not implemented by the fast engine`;
  }
  return undefined;
}

/** The rules of one fork, in the form the interpreter reads them. */
export interface EvmRules {
  readonly hardfork: string;
  readonly chainId: bigint;
  /** EIP-3651: the coinbase starts warm. */
  readonly warmCoinbase: boolean;
  /** EIP-3860: initcode size limit and per-word cost. */
  readonly initcodeLimit: boolean;
  /** EIP-6780: SELFDESTRUCT deletes only accounts created in the same transaction. */
  readonly selfdestructOnlyCreated: boolean;
  /** EIP-4844: blob transactions. */
  readonly blobs: boolean;
  /** EIP-7702: set-code transactions and delegation designators. */
  readonly setCode: boolean;
  /** EIP-7623: calldata floor cost. */
  readonly calldataFloor: boolean;
  /** EIP-7825: per-transaction gas cap (0 = none). */
  readonly txGasCap: number;
  /** EIP-7594: blobs allowed per transaction (0 = only the per-block limit). */
  readonly maxBlobsPerTx: number;
  /** Blob gas allowed per block (the blob schedule's max × gas per blob). */
  readonly maxBlobGasPerBlock: number;
  readonly maxCodeSize: number;
  readonly maxInitcodeSize: number;
  /** Per opcode: 1 when defined in this fork. */
  readonly valid: Uint8Array;
  /** Per opcode: the constant part of its gas (the dynamic part is charged by the opcode). */
  readonly staticGas: Uint16Array;
}

/** Rules by chain id, hardfork and extra EIPs: Commons are copied per block, their rules are not. */
const cache = new Map<string, EvmRules>();

/** Static gas of every opcode the engine knows (dynamic parts are charged in the opcode). */
function staticGasTable(): Uint16Array {
  const g = new Uint16Array(256);
  const set = (ops: number[], cost: number): void => {
    for (const o of ops) g[o] = cost;
  };
  set([Op.STOP, Op.RETURN, Op.REVERT], G_ZERO);
  set([Op.ADDRESS, Op.ORIGIN, Op.CALLER, Op.CALLVALUE, Op.CALLDATASIZE, Op.CODESIZE, Op.GASPRICE, Op.COINBASE, Op.TIMESTAMP, Op.NUMBER, Op.PREVRANDAO, Op.GASLIMIT, Op.CHAINID, Op.RETURNDATASIZE, Op.POP, Op.PC, Op.MSIZE, Op.GAS, Op.BASEFEE, Op.BLOBBASEFEE, Op.PUSH0], G_BASE);
  set([Op.ADD, Op.SUB, Op.NOT, Op.LT, Op.GT, Op.SLT, Op.SGT, Op.EQ, Op.ISZERO, Op.AND, Op.OR, Op.XOR, Op.BYTE, Op.SHL, Op.SHR, Op.SAR, Op.CALLDATALOAD, Op.MLOAD, Op.MSTORE, Op.MSTORE8, Op.CALLDATACOPY, Op.CODECOPY, Op.RETURNDATACOPY, Op.MCOPY, Op.BLOBHASH], G_VERYLOW);
  for (let o = Op.PUSH1; o <= Op.PUSH32; o++) g[o] = G_VERYLOW;
  for (let o = Op.DUP1; o <= Op.DUP16; o++) g[o] = G_VERYLOW;
  for (let o = Op.SWAP1; o <= Op.SWAP16; o++) g[o] = G_VERYLOW;
  set([Op.MUL, Op.DIV, Op.SDIV, Op.MOD, Op.SMOD, Op.SIGNEXTEND, Op.SELFBALANCE], G_LOW);
  set([Op.ADDMOD, Op.MULMOD, Op.JUMP], G_MID);
  set([Op.JUMPI], G_HIGH);
  set([Op.EXP], G_EXP);
  set([Op.KECCAK256], G_KECCAK);
  set([Op.JUMPDEST], G_JUMPDEST);
  set([Op.BLOCKHASH], G_BLOCKHASH);
  set([Op.TLOAD, Op.TSTORE], G_TRANSIENT);
  set([Op.CLZ], G_CLZ);
  // EIP-2929: account-reading opcodes and calls charge the warm cost statically and the cold surcharge dynamically.
  set([Op.BALANCE, Op.EXTCODESIZE, Op.EXTCODECOPY, Op.EXTCODEHASH, Op.CALL, Op.CALLCODE, Op.DELEGATECALL, Op.STATICCALL], 100);
  // SLOAD/SSTORE/SELFDESTRUCT/CREATE*/LOG* charge everything dynamically (SELFDESTRUCT: 5000 in the opcode).
  return g;
}

/** The rules of `common`'s current hardfork (cached per Common instance). */
export function rulesOf(given: Common): EvmRules {
  const key = `${given.chainId()}:${given.hardfork()}:${given.eips().join(",")}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  // The transaction parameters (blob gas, EIP-7825/7594 limits) are registered by @ethereumjs/tx.
  const common = given.copy();
  common.updateParams(paramsTx);
  const on = (eip: number): boolean => common.isActivatedEIP(eip);
  const valid = new Uint8Array(256);
  const allow = (ops: number[]): void => {
    for (const o of ops) valid[o] = 1;
  };
  for (let o = 0x00; o <= 0x0b; o++) valid[o] = 1;
  for (let o = 0x10; o <= 0x1d; o++) valid[o] = 1; // incl. SHL/SHR/SAR (EIP-145)
  allow([Op.KECCAK256]);
  for (let o = 0x30; o <= 0x3f; o++) valid[o] = 1; // incl. RETURNDATA* (EIP-211), EXTCODEHASH (EIP-1052)
  for (let o = 0x40; o <= 0x48; o++) valid[o] = 1; // incl. CHAINID, SELFBALANCE (EIP-1344/1884), BASEFEE (EIP-3198)
  for (let o = 0x50; o <= 0x5b; o++) valid[o] = 1;
  for (let o = 0x60; o <= 0xa4; o++) valid[o] = 1;
  allow([Op.CREATE, Op.CALL, Op.CALLCODE, Op.RETURN, Op.DELEGATECALL, Op.CREATE2, Op.STATICCALL, Op.REVERT, Op.INVALID, Op.SELFDESTRUCT]);
  valid[Op.INVALID] = 0;
  if (on(3855)) valid[Op.PUSH0] = 1;
  if (on(1153)) allow([Op.TLOAD, Op.TSTORE]);
  if (on(5656)) valid[Op.MCOPY] = 1;
  if (on(4844)) valid[Op.BLOBHASH] = 1;
  if (on(7516)) valid[Op.BLOBBASEFEE] = 1;
  if (on(7939)) valid[Op.CLZ] = 1;
  const txGasCap = on(7825) ? Number(common.param("maxTransactionGasLimit")) : 0;
  let maxBlobsPerTx = 0;
  let maxBlobGasPerBlock = 0;
  if (on(4844)) {
    const blobGasPerBlob = Number(common.param("blobGasPerBlob"));
    maxBlobGasPerBlock = Number(common.getBlobGasSchedule().maxBlobGasPerBlock);
    maxBlobsPerTx = on(7594) ? Number(common.param("maxBlobsPerTx")) : Math.floor(maxBlobGasPerBlock / blobGasPerBlob);
  }
  const rules: EvmRules = {
    hardfork: common.hardfork(),
    chainId: common.chainId(),
    warmCoinbase: on(3651),
    initcodeLimit: on(3860),
    selfdestructOnlyCreated: on(6780),
    blobs: on(4844),
    setCode: on(7702),
    calldataFloor: on(7623),
    txGasCap,
    maxBlobsPerTx,
    maxBlobGasPerBlock,
    maxCodeSize: MAX_CODE_SIZE,
    maxInitcodeSize: MAX_INITCODE_SIZE,
    valid,
    staticGas: staticGasTable(),
  };
  cache.set(key, rules);
  return rules;
}
