/**
 * geth's struct logger (eth/tracers/logger): one entry per opcode with pc, op, gas, gasCost,
 * depth, and — by option — the stack, memory (32-byte words), the storage touched by
 * SLOAD/SSTORE in the executing contract so far, and the last call's return data; the result is
 * `{gas, failed, returnValue, structLogs}`. Entries are serialized as they come and their bytes
 * counted: past TRACE_STRUCT_LOG_MAX_BYTES the trace fails (the `limit` option bounds it).
 */
import { bytesToHex } from "@ethereumjs/util";
import { TRACE_STRUCT_LOG_MAX_BYTES } from "../constants.js";
import type { StructLoggerOptions } from "./config.js";
import { TraceError, TraceErrorCode } from "./errors.js";
import type { Step, Tracer, TxEnd } from "./tracer.js";
import { NO_HOOKS } from "./tracer.js";

/** Two hex digits per byte value. */
const HEX_BYTE: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** 32 bytes as 0x-hex, left-padded with zeros (the last 32 bytes when longer). */
function hex32(b: Uint8Array): string {
  let out = "0x";
  for (let i = b.length; i < 32; i++) out += "00";
  for (let i = Math.max(0, b.length - 32); i < b.length; i++) out += HEX_BYTE[b[i]!];
  return out;
}

/** A stack word as 0x-hex of 32 bytes. */
function hexOfWord(v: bigint): string {
  return "0x" + v.toString(16).padStart(64, "0");
}

/** A stack word as 32 bytes (big-endian). */
function bigToBytes(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** The stack as geth's JSON array of minimal hex quantities, bottom first. */
function stackJson(stack: readonly bigint[]): string {
  let out = ',"stack":[';
  for (let i = 0; i < stack.length; i++) out += (i === 0 ? '"0x' : ',"0x') + stack[i]!.toString(16) + '"';
  return out + "]";
}

/** The struct logger of one transaction. */
export class StructLogger implements Tracer {
  readonly wantsSteps = true;
  private readonly entries: string[] = [];
  /** The entry being built (everything but the error, which a failing opcode adds afterwards), or undefined. */
  private pendingHead: string | undefined;
  private pendingTail = "";
  private pendingDepth = 0;
  private bytes = 0;
  /** Storage seen per contract (lower-case hex address → slot hex → value hex). */
  private readonly storage = new Map<string, Map<string, string>>();
  private end: TxEnd | undefined;
  private stopped: Error | undefined;

  constructor(
    private readonly opts: StructLoggerOptions,
    private readonly maxBytes = TRACE_STRUCT_LOG_MAX_BYTES,
  ) {}

  onTxStart = NO_HOOKS.onTxStart;
  onEnter = NO_HOOKS.onEnter;
  onExit = NO_HOOKS.onExit;
  onLog = NO_HOOKS.onLog;

  onStep(s: Step): void {
    if (this.stopped !== undefined) return;
    this.flush();
    if (this.opts.limit !== 0 && this.entries.length >= this.opts.limit) return;
    const head = `{"pc":${s.pc},"op":"${s.opName}","gas":${s.gas},"gasCost":${s.gasCost},"depth":${s.depth}`;
    let tail = "";
    if (!this.opts.disableStack) tail += stackJson(s.stack);
    if (this.opts.enableReturnData && s.returnData.length > 0) tail += `,"returnData":"${bytesToHex(s.returnData)}"`;
    if (this.opts.enableMemory && s.memory.length > 0) {
      const words: string[] = [];
      for (let i = 0; i + 32 <= s.memory.length; i += 32) words.push(`"${bytesToHex(s.memory.subarray(i, i + 32))}"`);
      tail += `,"memory":[${words.join(",")}]`;
    }
    let slots: Map<string, string> | undefined;
    if (!this.opts.disableStorage && (s.op === 0x54 || s.op === 0x55)) {
      const addr = bytesToHex(s.address);
      slots = this.storage.get(addr);
      if (slots === undefined) this.storage.set(addr, (slots = new Map()));
      const n = s.stack.length;
      if (s.op === 0x54 && n >= 1) {
        // The value is the state's before the SLOAD runs (geth reads it there too).
        slots.set(hexOfWord(s.stack[n - 1]!), hex32(s.state.storage(s.address, bigToBytes(s.stack[n - 1]!))));
        tail += storageJson(slots);
      } else if (s.op === 0x55 && n >= 2) {
        slots.set(hexOfWord(s.stack[n - 1]!), hexOfWord(s.stack[n - 2]!));
        tail += storageJson(slots);
      }
    }
    if (s.refund > 0n) tail += `,"refund":${s.refund}`;
    this.pendingHead = head;
    this.pendingTail = tail;
    this.pendingDepth = s.depth;
  }

  /** Appends the pending entry (its error, if any, already attached). */
  private flush(error?: string): void {
    const head = this.pendingHead;
    if (head === undefined) return;
    this.pendingHead = undefined;
    const text = head + (error === undefined ? "" : `,"error":${JSON.stringify(error)}`) + this.pendingTail + "}";
    this.bytes += text.length + 1;
    if (this.bytes > this.maxBytes) {
      this.stop(
        new TraceError(
          { code: TraceErrorCode.TOO_LARGE, limitBytes: this.maxBytes },
          `struct log exceeds ${this.maxBytes} bytes (the trace size cap); trace fewer steps with the "limit" option or drop fields with "disableStack"/"disableStorage"`,
        ),
      );
      return;
    }
    this.entries.push(text);
  }

  onStepError(depth: number, error: string): void {
    if (this.pendingHead !== undefined && this.pendingDepth === depth) this.flush(error);
  }

  onTxEnd(e: TxEnd): void {
    this.flush();
    this.end = e;
  }

  stop(reason: Error): void {
    if (this.stopped === undefined) this.stopped = reason;
    this.entries.length = 0;
  }

  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    const e = this.end;
    const failed = e?.error !== undefined;
    // geth: the output on success, the revert data on revert, nothing on other failures.
    const ret = e === undefined || (failed && !e.reverted) ? "0x" : bytesToHex(e.output);
    return `{"gas":${e?.gasUsed ?? 0n},"failed":${failed},"returnValue":"${ret}","structLogs":[${this.entries.join(",")}]}`;
  }
}

function storageJson(slots: Map<string, string>): string {
  const parts: string[] = [];
  for (const [k, v] of slots) parts.push(`"${k}":"${v}"`);
  return `,"storage":{${parts.join(",")}}`;
}
