/**
 * State and block overrides as JSON-RPC parameters (eth_call's third and fourth, debug_traceCall's
 * config, trace_call's, and each block of eth_simulateV1), parsed on the RPC thread into the form
 * the executing thread applies (src/execution/simulate/overrides.ts): hex fields checked,
 * lower-cased, of their sizes, before any thread hop.
 */
import { SimulateError, SimulateErrorCode } from "../execution/simulate/errors.js";
import type { SerializedAccountOverride, SerializedBlockOverrides, SerializedStateOverrides } from "../execution/simulate/overrides.js";
import { isHexData, isHexQuantity } from "../util/hex.js";

/** geth's invalid-params error of simulate and overrides. */
export function invalid(message: string): SimulateError {
  return new SimulateError(SimulateErrorCode.INVALID_PARAMS, message);
}

/** A JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A 0x quantity of at most `bits` bits, lower-cased. */
function quantity(v: unknown, where: string, bits = 256): string {
  if (!isHexQuantity(v)) throw invalid(`invalid argument 0: ${where}: hex number expected, got ${JSON.stringify(v)}`);
  if (v.length - 2 > bits / 4) throw invalid(`invalid argument 0: ${where}: hex number > ${bits} bits`);
  return v.toLowerCase();
}

/** 0x data, of exactly `length` bytes when given, lower-cased. */
function data(v: unknown, where: string, length?: number): string {
  if (!isHexData(v)) throw invalid(`invalid argument 0: ${where}: hex string expected, got ${JSON.stringify(v)}`);
  if (length !== undefined && v.length !== 2 + 2 * length) throw invalid(`invalid argument 0: ${where}: hex string has length ${(v.length - 2) / 2}, want ${length}`);
  return v.toLowerCase();
}

/** A 32-byte storage key or value: geth accepts shorter hex and left-pads it (`common.Hash` unmarshal takes exactly 32 bytes). */
function word(v: unknown, where: string): string {
  return data(v, where, 32);
}

/**
 * Parses a state override object (eth_call's third parameter, a block's `stateOverrides`).
 * @throws SimulateError `INVALID_PARAMS` for malformed input.
 */
export function parseStateOverrides(v: unknown, where: string): SerializedStateOverrides | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw invalid(`invalid argument: ${where}: state override object expected`);
  const out: SerializedStateOverrides = {};
  for (const [addr, raw] of Object.entries(v)) {
    const a = data(addr, `${where} address`, 20);
    if (!isRecord(raw)) throw invalid(`invalid argument: ${where}.${addr}: account override object expected`);
    const o: SerializedAccountOverride = {};
    if (raw.nonce != null) o.nonce = quantity(raw.nonce, `${where}.${addr}.nonce`, 64);
    if (raw.balance != null) o.balance = quantity(raw.balance, `${where}.${addr}.balance`);
    if (raw.code != null) o.code = data(raw.code, `${where}.${addr}.code`);
    for (const k of ["state", "stateDiff"] as const) {
      const m = raw[k];
      if (m == null) continue;
      if (!isRecord(m)) throw invalid(`invalid argument: ${where}.${addr}.${k}: slot map expected`);
      const slots: Record<string, string> = {};
      for (const [slot, value] of Object.entries(m)) slots[word(slot, `${where}.${addr}.${k} key`)] = word(value, `${where}.${addr}.${k}[${slot}]`);
      o[k] = slots;
    }
    if (raw.movePrecompileToAddress != null) o.movePrecompileToAddress = data(raw.movePrecompileToAddress, `${where}.${addr}.movePrecompileToAddress`, 20);
    out[a] = o;
  }
  return out;
}

/**
 * Parses a block override object (eth_call's fourth parameter, a block's `blockOverrides`).
 * @throws SimulateError `INVALID_PARAMS` for malformed input.
 */
export function parseBlockOverrides(v: unknown, where: string): SerializedBlockOverrides | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw invalid(`invalid argument: ${where}: block override object expected`);
  const out: SerializedBlockOverrides = {};
  for (const k of ["number", "difficulty", "baseFeePerGas", "blobBaseFee"] as const) if (v[k] != null) out[k] = quantity(v[k], `${where}.${k}`);
  for (const k of ["time", "gasLimit"] as const) if (v[k] != null) out[k] = quantity(v[k], `${where}.${k}`, 64);
  if (v.feeRecipient != null) out.feeRecipient = data(v.feeRecipient, `${where}.feeRecipient`, 20);
  if (v.prevRandao != null) out.prevRandao = word(v.prevRandao, `${where}.prevRandao`);
  if (v.beaconRoot != null) out.beaconRoot = word(v.beaconRoot, `${where}.beaconRoot`);
  if (v.withdrawals != null) {
    if (!Array.isArray(v.withdrawals)) throw invalid(`invalid argument: ${where}.withdrawals: array expected`);
    out.withdrawals = v.withdrawals.map((w: unknown, i) => {
      if (!isRecord(w)) throw invalid(`invalid argument: ${where}.withdrawals[${i}]: withdrawal object expected`);
      return {
        index: quantity(w.index, `${where}.withdrawals[${i}].index`, 64),
        validatorIndex: quantity(w.validatorIndex, `${where}.withdrawals[${i}].validatorIndex`, 64),
        address: data(w.address, `${where}.withdrawals[${i}].address`, 20),
        amount: quantity(w.amount, `${where}.withdrawals[${i}].amount`, 64),
      };
    });
  }
  return out;
}
