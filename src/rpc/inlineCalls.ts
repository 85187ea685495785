/**
 * The call family and execution witnesses run on the calling thread: a {@link CallService} for in-process tests; a
 * running node sends call-family requests to the execution pool instead
 * (src/execution/pool/executionPool.ts), whose workers run the same {@link executeCallRequest}.
 */
import type { Chain } from "../blockchain/chain.js";
import { CallExecutor } from "../execution/callExecutor.js";
import { answerWitnessRequest } from "../blockchain/executionWitness.js";
import type { WitnessRequest } from "../execution/witness/request.js";
import { answerTraceRequest, type TraceRequest } from "../execution/trace/request.js";
import { executeCallRequest, type CallRequest, type CallService } from "../execution/callRequest.js";
import type { PendingCallTarget } from "../execution/callTarget.js";
import { answerMeterRequest, type MeterRequest } from "../execution/metering/request.js";
import { pendingCallTargetOf } from "../flashblocks/pendingContext.js";
import type { PendingSource } from "../flashblocks/pendingView.js";

/** Executes call-family requests on the calling thread, `pending` from `pending`'s current snapshot. */
export class InlineCallService implements CallService {
  private readonly executor: CallExecutor;
  private readonly pendingTarget: PendingCallTarget;
  constructor(
    private readonly chain: Chain,
    pending: PendingSource,
  ) {
    this.executor = new CallExecutor(chain);
    this.pendingTarget = pendingCallTargetOf(chain, pending);
  }
  execute(req: CallRequest): Promise<string> {
    return executeCallRequest(this.chain, this.pendingTarget, this.executor, req);
  }
  witness(req: WitnessRequest): Promise<string> {
    return answerWitnessRequest(this.chain, req);
  }
  trace(_method: string, req: TraceRequest): Promise<string> {
    return answerTraceRequest(this.chain, req, { executor: this.executor, pending: this.pendingTarget });
  }
  meter(_method: string, req: MeterRequest): Promise<string> {
    return answerMeterRequest(this.chain, req);
  }
  async close(): Promise<void> {}
}
