/**
 * eth_simulateV1 in the form that crosses the thread boundary (plain strings and objects), and
 * its validation on the RPC thread: the JSON shape of the request, the overrides' hex fields
 * and geth's request limits (blocks, calls), before any thread hop. Call objects are parsed by
 * the RPC layer's call-object parser (the same as eth_call's) and arrive here decoded.
 */
import type { CallArgs } from "../callArgs.js";
import { SimulateError, SimulateErrorCode } from "./errors.js";
import { isHexData, isHexQuantity } from "../../util/hex.js";
import type { SerializedAccountOverride, SerializedBlockOverrides, SerializedStateOverrides } from "./overrides.js";
import { MAX_SIMULATE_BLOCKS, MAX_SIMULATE_CALLS_PER_BLOCK, MAX_SIMULATE_TOTAL_CALLS } from "../../config/constants.js";

/** One simulated block's input (geth `simBlock`). */
export interface SimulateBlockInput {
  blockOverrides?: SerializedBlockOverrides;
  stateOverrides?: SerializedStateOverrides;
  calls: CallArgs[];
}

/** The first parameter of eth_simulateV1 (geth `simOpts`), parsed. */
export interface SimulateRequest {
  blocks: SimulateBlockInput[];
  traceTransfers: boolean;
  validation: boolean;
  returnFullTransactions: boolean;
}

function invalid(message: string): SimulateError {
  return new SimulateError(SimulateErrorCode.INVALID_PARAMS, message);
}

function isRecord(v: unknown): v is Record<string, unknown> {
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

/**
 * Parses eth_simulateV1's first parameter; `parseCall` parses one call object (the RPC layer's
 * parser). Checks geth's limits first: no blocks ("empty input"), more than
 * {@link MAX_SIMULATE_BLOCKS} blocks, too many calls per block or in total.
 * @throws SimulateError `INVALID_PARAMS` or `LIMIT_EXCEEDED`.
 */
export function parseSimulateRequest(v: unknown, parseCall: (call: unknown) => CallArgs): SimulateRequest {
  if (!isRecord(v)) throw invalid("invalid argument 0: simulation options object expected");
  const bsc = v.blockStateCalls ?? [];
  if (!Array.isArray(bsc)) throw invalid("invalid argument 0: blockStateCalls must be an array");
  if (bsc.length === 0) throw invalid("empty input");
  if (bsc.length > MAX_SIMULATE_BLOCKS) throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, "too many blocks");
  let total = 0;
  const blocks = bsc.map((b: unknown, i): SimulateBlockInput => {
    if (!isRecord(b)) throw invalid(`invalid argument 0: blockStateCalls[${i}]: object expected`);
    const calls = b.calls ?? [];
    if (!Array.isArray(calls)) throw invalid(`invalid argument 0: blockStateCalls[${i}].calls must be an array`);
    if (calls.length > MAX_SIMULATE_CALLS_PER_BLOCK) {
      throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, `too many calls in block: ${calls.length} > ${MAX_SIMULATE_CALLS_PER_BLOCK}`);
    }
    total += calls.length;
    if (total > MAX_SIMULATE_TOTAL_CALLS) throw new SimulateError(SimulateErrorCode.LIMIT_EXCEEDED, `too many calls: ${total} > ${MAX_SIMULATE_TOTAL_CALLS}`);
    const out: SimulateBlockInput = { calls: calls.map((c) => parseCall(c)) };
    const bo = parseBlockOverrides(b.blockOverrides, `blockStateCalls[${i}].blockOverrides`);
    if (bo !== undefined) out.blockOverrides = bo;
    const so = parseStateOverrides(b.stateOverrides, `blockStateCalls[${i}].stateOverrides`);
    if (so !== undefined) out.stateOverrides = so;
    return out;
  });
  const flag = (k: string): boolean => {
    const f = v[k];
    if (f === undefined || f === null) return false;
    if (typeof f !== "boolean") throw invalid(`invalid argument 0: ${k} must be a boolean`);
    return f;
  };
  return { blocks, traceTransfers: flag("traceTransfers"), validation: flag("validation"), returnFullTransactions: flag("returnFullTransactions") };
}
