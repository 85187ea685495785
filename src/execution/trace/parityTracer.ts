/**
 * The tracer behind reth's `trace_*` methods: for one transaction, the trace types asked for —
 * "trace" (the flat call trace, parityCallTrace.ts), "stateDiff" (parityStateDiff.ts over the
 * prestate tracer's diff) and "vmTrace" (parityVmTrace.ts) — with the transaction's output and
 * where it sits. Its JSON is reth's `TraceResults` plus the fields that place the transaction
 * (`transactionHash`, `blockHash`, `blockNumber`, `transactionPosition`); the RPC methods shape
 * it per method (src/rpc/methods/parityTrace.ts).
 */
import { bytesToHex } from "@ethereumjs/util";
import { ParityCallRecorder } from "./parityCallTrace.js";
import { parityStateDiff, type PrestateDiff } from "./parityStateDiff.js";
import { ParityVmRecorder } from "./parityVmTrace.js";
import { PrestateTracer } from "./prestateTracer.js";
import { TraceError, TraceErrorCode } from "./errors.js";
import type { FrameEnter, FrameExit, Step, Tracer, TxEnd, TxStart } from "./tracer.js";

/** reth's trace types. */
export const PARITY_TRACE_TYPES = ["trace", "stateDiff", "vmTrace"] as const;
/** One of {@link PARITY_TRACE_TYPES}. */
export type ParityTraceType = (typeof PARITY_TRACE_TYPES)[number];

/** The parity tracer of one transaction. */
export class ParityTracer implements Tracer {
  /** Steps are needed by every type: self-destructs and call kinds are seen on them. */
  readonly wantsSteps = true;
  private calls: ParityCallRecorder | undefined;
  private vm: ParityVmRecorder | undefined;
  private readonly prestate: PrestateTracer | undefined;
  private ctx: TxStart | undefined;
  private output: Uint8Array = new Uint8Array();
  private stopped: Error | undefined;

  /** @param vmTraceMaxBytes the vmTrace's size cap (default: the struct log's) */
  constructor(
    private readonly types: ReadonlySet<ParityTraceType>,
    private readonly vmTraceMaxBytes?: number,
  ) {
    if (types.has("stateDiff")) this.prestate = new PrestateTracer({ diffMode: true, disableCode: false, disableStorage: false });
  }

  onTxStart(t: TxStart): void {
    this.ctx = t;
    if (this.types.has("trace")) this.calls = new ParityCallRecorder(t.isPrecompile);
    if (this.types.has("vmTrace")) this.vm = new ParityVmRecorder(t.state, t.isPrecompile, this.vmTraceMaxBytes);
    this.prestate?.onTxStart(t);
  }
  onEnter(f: FrameEnter): void {
    if (this.stopped !== undefined) return;
    this.calls?.onEnter(f);
    this.vm?.onEnter(f);
  }
  onExit(f: FrameExit): void {
    if (this.stopped !== undefined) return;
    this.calls?.onExit(f);
    this.vm?.onExit(f.depth);
  }
  onStep(s: Step): void {
    if (this.stopped !== undefined) return;
    this.prestate?.onStep(s);
    this.vm?.onStep(s);
  }
  onStepError(): void {}
  onLog(): void {}
  onPrecompileStorage(address: Uint8Array, slot: Uint8Array): void {
    if (this.stopped === undefined) this.prestate?.onPrecompileStorage(address, slot);
  }
  onTxEnd(e: TxEnd): void {
    this.output = e.output;
    this.prestate?.onTxEnd(e);
  }
  stop(reason: Error): void {
    this.stopped ??= reason;
  }

  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    if (this.vm?.tooLarge === true) {
      const limitBytes = this.vm.maxBytes;
      throw new TraceError({ code: TraceErrorCode.TOO_LARGE, limitBytes }, `vmTrace exceeds ${limitBytes} bytes (the trace size cap); ask for "trace" or "stateDiff" only`);
    }
    const ctx = this.ctx!;
    const stateDiff = this.prestate === undefined ? null : parityStateDiff(JSON.parse(this.prestate.result()) as PrestateDiff);
    return JSON.stringify({
      output: bytesToHex(this.output),
      stateDiff,
      trace: this.calls?.traces() ?? [],
      vmTrace: this.vm?.trace() ?? null,
      transactionHash: ctx.txHash,
      blockHash: ctx.blockHash,
      blockNumber: Number(ctx.blockNumber),
      transactionPosition: ctx.txIndex,
    });
  }
}
