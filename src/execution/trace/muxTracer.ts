/**
 * geth's `muxTracer` (eth/tracers/native/mux.go): runs several tracers over the same
 * transaction; the config maps tracer names to their configs, the result maps the names to
 * their results.
 */
import { TraceError, TraceErrorCode } from "./errors.js";
import type { FrameEnter, FrameExit, Step, Tracer, TxEnd, TxStart } from "./tracer.js";

/** The tracers of a mux, by name. */
export class MuxTracer implements Tracer {
  readonly wantsSteps: boolean;

  constructor(private readonly tracers: ReadonlyMap<string, Tracer>) {
    this.wantsSteps = [...tracers.values()].some((t) => t.wantsSteps);
  }

  onTxStart(t: TxStart): void {
    for (const x of this.tracers.values()) x.onTxStart(t);
  }
  onEnter(f: FrameEnter): void {
    for (const x of this.tracers.values()) x.onEnter(f);
  }
  onExit(f: FrameExit): void {
    for (const x of this.tracers.values()) x.onExit(f);
  }
  onStep(s: Step): void {
    for (const x of this.tracers.values()) if (x.wantsSteps) x.onStep(s);
  }
  onStepError(depth: number, error: string): void {
    for (const x of this.tracers.values()) x.onStepError(depth, error);
  }
  onLog(depth: number, address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void {
    for (const x of this.tracers.values()) x.onLog(depth, address, topics, data);
  }
  onPrecompileStorage(address: Uint8Array, slot: Uint8Array): void {
    for (const x of this.tracers.values()) x.onPrecompileStorage?.(address, slot);
  }
  onTxEnd(e: TxEnd): void {
    for (const x of this.tracers.values()) x.onTxEnd(e);
  }
  stop(reason: Error): void {
    for (const x of this.tracers.values()) x.stop(reason);
  }
  result(): string {
    const parts: string[] = [];
    for (const [name, t] of this.tracers) parts.push(`${JSON.stringify(name)}:${t.result()}`);
    return `{${parts.join(",")}}`;
  }
}

/** geth's error for a mux config that is not an object of tracer configs. */
export function badMuxConfig(): TraceError {
  return new TraceError({ code: TraceErrorCode.BAD_CONFIG, field: "tracerConfig" }, "json: cannot unmarshal non-object into Go value of type map[string]json.RawMessage");
}
