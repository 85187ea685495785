/**
 * Identical call-family requests answered once (eth_call, eth_estimateGas,
 * eth_createAccessList): a request is keyed by an xxHash3-128 of its encoded bytes (method, decoded
 * arguments, overrides and simulation, resolved block hash, gas cap: the bytes the pool then sends,
 * encoded once, src/execution/pool/protocol.ts). Concurrent identical requests share one execution, and a
 * bounded cache answers repeats of a request at the same block until the head moves (any head
 * change, reorgs included, empties it). Results and deterministic execution errors (reverts,
 * halts, invalid calls) are cached; busy, timeout and worker errors never are. `pending`
 * requests are not cached: their state changes with every flashblock.
 */
import type { MeterRequest } from "../execution/metering/request.js";
import { xxh3 } from "@node-rs/xxhash";
import { CALL_CACHE_ENTRIES } from "./constants.js";
import type { CallRequest, CallService } from "../execution/callRequest.js";
import type { WitnessRequest } from "../execution/witness/request.js";
import type { TraceRequest } from "../execution/trace/request.js";
import { ExecutionError } from "../execution/errors.js";
import { encodeCallRequest } from "../execution/pool/protocol.js";
import { counter } from "../util/metrics.js";

/** Call-family requests by how the cache answered them. */
const callCacheRequestsTotal = counter<"outcome">({
  name: "basalt_rpc_call_cache_requests_total",
  help: "Call-family requests by outcome: hit (cached answer), shared (joined an identical execution in flight), miss (executed and cached), uncached (pending tag)",
  labelNames: ["outcome"],
});

/** A settled answer: the result text, or a deterministic execution error. */
type Answer = { ok: string } | { err: ExecutionError };

/** A {@link CallService} that answers identical requests once. */
export class CallCache implements CallService {
  private readonly answers = new Map<bigint, Answer>();
  private readonly inFlight = new Map<bigint, Promise<string>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly inner: CallService,
    /** Registers a head listener, returning its removal (`Chain.onHead`). */
    onHead: (listener: () => void) => () => void,
    private readonly maxEntries = CALL_CACHE_ENTRIES,
  ) {
    this.unsubscribe = onHead(() => this.answers.clear());
  }

  /** Answers cached right now (tests, metrics). */
  get size(): number {
    return this.answers.size;
  }

  /** Witnesses are not cached: rare, large, and each one asked for once. */
  witness(req: WitnessRequest): Promise<string> {
    return this.inner.witness(req);
  }

  /** Meterings are never cached: each one measures times afresh. */
  meter(method: string, req: MeterRequest): Promise<string> {
    return this.inner.meter(method, req);
  }

  /** Traces are not cached: large, and each one asked for once. */
  trace(method: string, req: TraceRequest): Promise<string> {
    return this.inner.trace(method, req);
  }

  async execute(req: CallRequest): Promise<string> {
    if ("pending" in req.block) {
      callCacheRequestsTotal.inc({ outcome: "uncached" });
      return this.inner.execute(req);
    }
    // The whole request is the key (overrides and a simulation included): two requests differing anywhere differ.
    const key = xxh3.xxh128(encodeCallRequest(req));
    const cached = this.answers.get(key);
    if (cached !== undefined) {
      callCacheRequestsTotal.inc({ outcome: "hit" });
      if ("ok" in cached) return cached.ok;
      throw cached.err;
    }
    const running = this.inFlight.get(key);
    if (running !== undefined) {
      callCacheRequestsTotal.inc({ outcome: "shared" });
      return running;
    }
    callCacheRequestsTotal.inc({ outcome: "miss" });
    const p = this.inner.execute(req);
    this.inFlight.set(key, p);
    try {
      const ok = await p;
      this.remember(key, { ok });
      return ok;
    } catch (e) {
      if (e instanceof ExecutionError && e.type.code !== "EXECUTION_HEADER_NOT_FOUND") this.remember(key, { err: e });
      throw e;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private remember(key: bigint, answer: Answer): void {
    if (this.answers.size >= this.maxEntries) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    this.answers.clear();
    await this.inner.close();
  }
}
