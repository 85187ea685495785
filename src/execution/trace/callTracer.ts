/**
 * geth's `callTracer` (eth/tracers/native/call.go): the tree of call frames with type, from, to,
 * gas, gasUsed, input, output, error, revertReason, value and nested calls; `onlyTopCall` keeps
 * the transaction's frame only, `withLog` adds each frame's logs with their position among its
 * calls (logs of failed frames removed). The top frame's gas is the transaction's gas limit and
 * its gasUsed the receipt's.
 */
import { bytesToHex } from "@ethereumjs/util";
import { unpackRevert } from "../revert.js";
import { goBool } from "./config.js";
import { NO_HOOKS, type FrameEnter, type FrameExit, type FrameType, type Tracer, type TxEnd, type TxStart } from "./tracer.js";

/** callTracer options (geth `callTracerConfig`). */
interface CallTracerOptions {
  onlyTopCall: boolean;
  withLog: boolean;
}

/** Parses a callTracer `tracerConfig`. */
export function parseCallTracerConfig(c: Record<string, unknown>): CallTracerOptions {
  return { onlyTopCall: goBool(c, "callTracerConfig", "onlyTopCall"), withLog: goBool(c, "callTracerConfig", "withLog") };
}

/** A log recorded in a frame. */
interface CallLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Calls of the frame made before the log. */
  position: number;
}

/** A call frame as the tracer records it. */
export interface CallFrame {
  type: FrameType;
  from: Uint8Array;
  to: Uint8Array | undefined;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  calls: CallFrame[];
  logs: CallLog[];
  value: bigint | undefined;
}

/**
 * Records the call tree of one transaction ({@link CallFrame}s); the base of `callTracer` and
 * `flatCallTracer`.
 */
export class CallTreeRecorder {
  private readonly stack: CallFrame[] = [];
  /** The transaction's frame, once entered. */
  root: CallFrame | undefined;
  private gasLimit = 0n;

  constructor(private readonly opts: CallTracerOptions) {}

  onTxStart(t: TxStart): void {
    this.gasLimit = t.gasLimit;
  }

  onEnter(f: FrameEnter): void {
    if (this.opts.onlyTopCall && this.stack.length > 0) return;
    const frame: CallFrame = {
      type: f.type,
      from: f.from,
      to: f.to,
      gas: this.stack.length === 0 ? this.gasLimit : f.gas,
      gasUsed: 0n,
      input: f.input,
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      value: f.value,
    };
    if (this.stack.length === 0) this.root = frame;
    this.stack.push(frame);
  }

  onExit(f: FrameExit): void {
    if (this.opts.onlyTopCall && (this.stack.length > 1 || (this.stack.length === 1 && f.depth > 0))) return;
    const frame = this.stack.pop();
    if (frame === undefined) return;
    frame.gasUsed = f.gasUsed;
    processOutput(frame, f);
    const parent = this.stack[this.stack.length - 1];
    if (parent !== undefined) parent.calls.push(frame);
  }

  onLog(_depth: number, address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    if (!this.opts.withLog) return;
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return;
    frame.logs.push({ address, topics, data, position: frame.calls.length });
  }

  onTxEnd(e: TxEnd): void {
    if (this.root === undefined) return;
    this.root.gasUsed = e.gasUsed;
    if (this.opts.withLog) clearFailedLogs(this.root, false);
  }
}

/** geth `processOutput`: the output on success, error and (for reverts) output and reason on failure; failed creates lose their `to`. */
function processOutput(frame: CallFrame, f: FrameExit): void {
  if (f.error === undefined) {
    frame.output = f.output;
    return;
  }
  frame.error = f.error;
  if (frame.type === "CREATE" || frame.type === "CREATE2") frame.to = undefined;
  if (!f.reverted || f.output.length === 0) return;
  frame.output = f.output;
  if (f.output.length < 4) return;
  frame.revertReason = unpackRevert(f.output);
}

function clearFailedLogs(frame: CallFrame, parentFailed: boolean): void {
  const failed = frame.error !== undefined || parentFailed;
  if (failed) frame.logs = [];
  for (const c of frame.calls) clearFailedLogs(c, failed);
}

/** geth's JSON of a frame (field order of `callFrame`'s marshaller). */
function callFrameJson(f: CallFrame): Record<string, unknown> {
  const o: Record<string, unknown> = { from: bytesToHex(f.from), gas: "0x" + f.gas.toString(16), gasUsed: "0x" + f.gasUsed.toString(16) };
  if (f.to !== undefined) o.to = bytesToHex(f.to);
  o.input = bytesToHex(f.input);
  if (f.output !== undefined && f.output.length > 0) o.output = bytesToHex(f.output);
  if (f.error !== undefined) o.error = f.error;
  if (f.revertReason !== undefined) o.revertReason = f.revertReason;
  if (f.calls.length > 0) o.calls = f.calls.map(callFrameJson);
  if (f.logs.length > 0) {
    o.logs = f.logs.map((l) => ({ address: bytesToHex(l.address), topics: l.topics.map((t) => bytesToHex(t)), data: bytesToHex(l.data), position: "0x" + l.position.toString(16) }));
  }
  if (f.value !== undefined) o.value = "0x" + f.value.toString(16);
  o.type = f.type;
  return o;
}

/** geth's `callTracer`. */
export class CallTracer implements Tracer {
  readonly wantsSteps = true;
  private readonly tree: CallTreeRecorder;
  private stopped: Error | undefined;

  constructor(opts: CallTracerOptions) {
    this.tree = new CallTreeRecorder(opts);
  }

  onStep = NO_HOOKS.onStep;
  onStepError = NO_HOOKS.onStepError;
  onTxStart(t: TxStart): void {
    this.tree.onTxStart(t);
  }
  onEnter(f: FrameEnter): void {
    if (this.stopped === undefined) this.tree.onEnter(f);
  }
  onExit(f: FrameExit): void {
    if (this.stopped === undefined) this.tree.onExit(f);
  }
  onLog(depth: number, address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    if (this.stopped === undefined) this.tree.onLog(depth, address, topics, data);
  }
  onTxEnd(e: TxEnd): void {
    this.tree.onTxEnd(e);
  }
  stop(reason: Error): void {
    this.stopped ??= reason;
  }
  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    const root = this.tree.root;
    return root === undefined ? "null" : JSON.stringify(callFrameJson(root));
  }
}
