/**
 * geth's `4byteTracer` (eth/tracers/native/4byte.go): counts the 4-byte selectors of every call
 * with calldata of at least 4 bytes (creations and precompiles excluded), keyed
 * `<selector>-<calldata size after the selector>`.
 */
import { bytesToHex } from "@ethereumjs/util";
import { NO_HOOKS, type FrameEnter, type Tracer, type TxStart } from "./tracer.js";

/** The selector counter of one transaction. */
export class FourByteTracer implements Tracer {
  readonly wantsSteps = false;
  private readonly ids = new Map<string, number>();
  private isPrecompile: (a: Uint8Array) => boolean = () => false;
  private stopped: Error | undefined;

  onStep = NO_HOOKS.onStep;
  onStepError = NO_HOOKS.onStepError;
  onExit = NO_HOOKS.onExit;
  onLog = NO_HOOKS.onLog;
  onTxEnd = NO_HOOKS.onTxEnd;

  onTxStart(t: TxStart): void {
    this.isPrecompile = t.isPrecompile;
  }

  onEnter(f: FrameEnter): void {
    if (this.stopped !== undefined || f.input.length < 4) return;
    if (f.type !== "CALL" && f.type !== "CALLCODE" && f.type !== "DELEGATECALL" && f.type !== "STATICCALL") return;
    if (this.isPrecompile(f.to)) return;
    const key = `${bytesToHex(f.input.subarray(0, 4))}-${f.input.length - 4}`;
    this.ids.set(key, (this.ids.get(key) ?? 0) + 1);
  }

  stop(reason: Error): void {
    this.stopped ??= reason;
  }

  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    return JSON.stringify(Object.fromEntries(this.ids));
  }
}
