/**
 * geth's `flatCallTracer` (eth/tracers/native/call_flat.go): the call tree in Parity's flat
 * form — one entry per frame with `action`, `result` (or `error`), `subtraces`, `traceAddress`
 * and the block and transaction it belongs to. Calls to precompiles are left out unless
 * `includePrecompiles`; `convertParityErrors` renames errors as Parity does.
 */
import { bytesToHex } from "@ethereumjs/util";
import { CallTreeRecorder, type CallFrame } from "./callTracer.js";
import { goBool } from "./config.js";
import { NO_HOOKS, type FrameEnter, type FrameExit, type Tracer, type TxEnd, type TxStart } from "./tracer.js";

/** flatCallTracer options (geth `flatCallTracerConfig`). */
interface FlatCallOptions {
  convertParityErrors: boolean;
  includePrecompiles: boolean;
}

/** Parses a flatCallTracer `tracerConfig`. */
export function parseFlatCallConfig(c: Record<string, unknown>): FlatCallOptions {
  return {
    convertParityErrors: goBool(c, "flatCallTracerConfig", "convertParityErrors"),
    includePrecompiles: goBool(c, "flatCallTracerConfig", "includePrecompiles"),
  };
}

/** Parity's texts for geth's errors (geth `parityErrorMapping`; also used by parityCallTrace.ts). */
export const PARITY_ERRORS: Record<string, string> = {
  "contract creation code storage out of gas": "Out of gas",
  "out of gas": "Out of gas",
  "gas uint64 overflow": "Out of gas",
  "max code size exceeded": "Out of gas",
  "invalid jump destination": "Bad jump destination",
  "execution reverted": "Reverted",
  "return data out of bounds": "Out of bounds",
  "stack limit reached 1024 (1023)": "Out of stack",
  "precompiled failed": "Built-in failed",
  "invalid input length": "Built-in failed",
};

const hex = (v: bigint): string => "0x" + v.toString(16);

/** The flat call tracer of one transaction. */
export class FlatCallTracer implements Tracer {
  readonly wantsSteps = true;
  private readonly tree = new CallTreeRecorder({ onlyTopCall: false, withLog: false });
  private ctx: TxStart | undefined;
  private stopped: Error | undefined;

  constructor(private readonly opts: FlatCallOptions) {}

  onStep = NO_HOOKS.onStep;
  onStepError = NO_HOOKS.onStepError;
  onLog = NO_HOOKS.onLog;

  onTxStart(t: TxStart): void {
    this.ctx = t;
    this.tree.onTxStart(t);
  }
  onEnter(f: FrameEnter): void {
    if (this.stopped === undefined) this.tree.onEnter(f);
  }
  onExit(f: FrameExit): void {
    if (this.stopped === undefined) this.tree.onExit(f);
  }
  onTxEnd(e: TxEnd): void {
    this.tree.onTxEnd(e);
  }
  stop(reason: Error): void {
    this.stopped ??= reason;
  }

  private keep(f: CallFrame): boolean {
    if (this.opts.includePrecompiles || f.to === undefined || f.type === "CREATE" || f.type === "CREATE2" || f.type === "SELFDESTRUCT") return true;
    return !this.ctx!.isPrecompile(f.to);
  }

  private flatten(f: CallFrame, traceAddress: number[], out: Record<string, unknown>[]): void {
    const ctx = this.ctx!;
    const calls = f.calls.filter((c) => this.keep(c));
    const entry: Record<string, unknown> = {};
    let result: Record<string, unknown> | undefined;
    let type: string;
    if (f.type === "CREATE" || f.type === "CREATE2") {
      type = "create";
      entry.action = { creationMethod: f.type.toLowerCase(), from: bytesToHex(f.from), gas: hex(f.gas), init: bytesToHex(f.input), value: hex(f.value ?? 0n) };
      result = { address: f.to === undefined ? undefined : bytesToHex(f.to), code: bytesToHex(f.output ?? new Uint8Array()), gasUsed: hex(f.gasUsed) };
    } else if (f.type === "SELFDESTRUCT") {
      type = "suicide";
      entry.action = { address: bytesToHex(f.from), balance: hex(f.value ?? 0n), refundAddress: bytesToHex(f.to ?? new Uint8Array(20)) };
    } else {
      type = "call";
      const action: Record<string, unknown> = { callType: f.type.toLowerCase(), from: bytesToHex(f.from), gas: hex(f.gas), input: bytesToHex(f.input) };
      if (f.to !== undefined) action.to = bytesToHex(f.to);
      action.value = hex(f.value ?? 0n);
      entry.action = action;
      result = { gasUsed: hex(f.gasUsed), output: bytesToHex(f.output ?? new Uint8Array()) };
    }
    entry.blockHash = ctx.blockHash;
    entry.blockNumber = Number(ctx.blockNumber);
    if (f.error !== undefined) entry.error = this.opts.convertParityErrors ? (PARITY_ERRORS[f.error] ?? f.error) : f.error;
    else if (result !== undefined) entry.result = result;
    entry.subtraces = calls.length;
    entry.traceAddress = traceAddress;
    entry.transactionHash = ctx.txHash;
    entry.transactionPosition = ctx.txIndex;
    entry.type = type;
    out.push(entry);
    calls.forEach((c, i) => this.flatten(c, [...traceAddress, i], out));
  }

  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    const root = this.tree.root;
    if (root === undefined) return "[]";
    const out: Record<string, unknown>[] = [];
    this.flatten(root, [], out);
    return JSON.stringify(out);
  }
}
