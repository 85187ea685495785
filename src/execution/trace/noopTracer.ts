/** geth's `noopTracer` (eth/tracers/native/noop.go): runs the transaction and answers `{}`. */
import { NO_HOOKS, type Tracer } from "./tracer.js";

/** The tracer that records nothing. */
export class NoopTracer implements Tracer {
  readonly wantsSteps = false;
  private stopped: Error | undefined;
  onTxStart = NO_HOOKS.onTxStart;
  onEnter = NO_HOOKS.onEnter;
  onExit = NO_HOOKS.onExit;
  onStep = NO_HOOKS.onStep;
  onStepError = NO_HOOKS.onStepError;
  onLog = NO_HOOKS.onLog;
  onTxEnd = NO_HOOKS.onTxEnd;
  stop(reason: Error): void {
    this.stopped ??= reason;
  }
  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    return "{}";
  }
}
