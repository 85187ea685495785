/**
 * Execution pool worker (piscina): runs eth_call, eth_estimateGas and eth_createAccessList on a
 * read-only view of the chain database, builds execution witnesses (debug_executionWitness,
 * debug_executePayload), traces transactions (debug_trace*), and recovers transaction senders for block import.
 *
 * Each task re-reads the head pointer first (a fresh LMDB read snapshot), so it sees every
 * block the RPC thread had committed when it resolved the request's block tag. One task runs at
 * a time per worker, so the snapshot is stable for the whole execution. `pending` is read from
 * the flashblocks SharedArrayBuffer, like the RPC thread reads it. Handlers never throw across
 * the thread boundary: errors are answered in their `toObject()` form (see protocol.ts).
 */
import { createTxFromRLP } from "@ethereumjs/tx";
import { threadId } from "node:worker_threads";
import { fastSenderKey } from "../src/chain/sender.js";
import { workerData } from "piscina";
import { Chain } from "../src/blockchain/chain.js";
import { CallExecutor } from "../src/execution/callExecutor.js";
import { executeCallRequest } from "../src/execution/callRequest.js";
import type { ExecutionWorkerData } from "../src/execution/pool/executionPool.js";
import { decodeCallRequest, frame, unframe, decodeMeterTask, decodeSendersTask, decodeTraceTask, decodeWitnessTask, encodeCallReply } from "../src/execution/pool/protocol.js";
import { answerTraceRequest } from "../src/execution/trace/request.js";
import { answerMeterRequest } from "../src/execution/metering/request.js";
import { answerWitnessRequest } from "../src/blockchain/executionWitness.js";
import { PendingBufferReader } from "../src/flashblocks/pendingBuffer.js";
import { pendingCallTargetOf } from "../src/flashblocks/pendingContext.js";
import type { PendingSnapshot } from "../src/flashblocks/pendingSnapshot.js";
import { isAheadOfHead, NO_PENDING, type PendingSource } from "../src/flashblocks/pendingView.js";
import { errorToObject } from "../src/util/errors.js";
import { createLogger } from "../src/util/logger.js";
import { setDefaultEvmEngine } from "../src/execution/evm/engine.js";

const data = workerData as ExecutionWorkerData;
if (data.evm !== undefined) setDefaultEvmEngine(data.evm);
const threadLog = createLogger(data.logLevel, data.logFormat).child({ thread: "execution" });
const chain = Chain.open(data.datadir, { readOnly: true, archive: data.archive, historyBlocks: data.historyBlocks, logger: threadLog });
const log = threadLog.child({ subsystem: "execution" });
const executor = new CallExecutor(chain);

/** The pending snapshot as this worker sees it, served only while ahead of this worker's head. */
function pendingSource(sab: SharedArrayBuffer | undefined): PendingSource {
  if (sab === undefined) return NO_PENDING;
  const reader = new PendingBufferReader(sab);
  return {
    current(): PendingSnapshot | undefined {
      const s = reader.read();
      return s !== undefined && isAheadOfHead(s, chain.head.header.number) ? s : undefined;
    },
    onSnapshot: () => () => undefined,
  };
}
const pending = pendingCallTargetOf(chain, pendingSource(data.pending));

/** Health check and start-up barrier: answers once the store is open. */
export function ping(): string {
  return chain.refreshHead().header.number.toString();
}

/**
 * A batch of call-family requests (framed msgpack in, framed msgpack out), run one after the other. Before
 * each, its start time and then its index go into `progress` (16 bytes shared with the pool:
 * Int32 index, then a Float64 epoch-ms time), so the pool's timeout counts from the start of the
 * request that runs.
 */
export function call(batch: { tasks: Uint8Array; progress: SharedArrayBuffer }): Promise<Uint8Array> {
  // The pool keeps a second batch posted to this worker while one runs (no idle gap waiting for
  // the RPC thread); piscina may start both handlers together, so batches run one after the
  // other here: a request's execution never interleaves with another's (one read snapshot each).
  const run = batchTail.then(() => runBatch(batch));
  batchTail = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

/** The end of the batch running or queued last on this worker. */
let batchTail: Promise<void> = Promise.resolve();

async function runBatch(batch: { tasks: Uint8Array; progress: SharedArrayBuffer }): Promise<Uint8Array> {
  const tasks = unframe(batch.tasks);
  const index = new Int32Array(batch.progress, 0, 2);
  // Before the first index: the pool terminates this thread by its id when a request times out.
  Atomics.store(index, 1, threadId);
  const startedAt = new Float64Array(batch.progress, 8, 1);
  const replies: Uint8Array[] = [];
  for (let i = 0; i < tasks.length; i++) {
    startedAt[0] = Date.now();
    Atomics.store(index, 0, i);
    replies.push(await callOne(tasks[i]!));
  }
  Atomics.store(index, 0, tasks.length);
  return frame(replies);
}

/** One call-family request of a batch. */
async function callOne(bytes: Uint8Array): Promise<Uint8Array> {
  const req = decodeCallRequest(bytes);
  try {
    chain.refreshHead();
    return encodeCallReply({ ok: await executeCallRequest(chain, pending, executor, req) });
  } catch (e) {
    log.debug({ err: e, method: req.method }, "call failed");
    return encodeCallReply({ err: errorToObject(e) });
  }
}

/**
 * An execution witness (debug_executionWitness, debug_executePayload): the block re-executed on
 * its parent's state with every read recorded; the reply carries the witness's JSON text.
 */
export async function witness(bytes: Uint8Array): Promise<Uint8Array> {
  const req = decodeWitnessTask(bytes);
  try {
    chain.refreshHead();
    return encodeCallReply({ ok: await answerWitnessRequest(chain, req) });
  } catch (e) {
    log.debug({ err: e, kind: req.kind }, "witness failed");
    return encodeCallReply({ err: errorToObject(e) });
  }
}

/**
 * A trace (debug_traceTransaction, debug_traceBlock*): the block replayed on its parent's state
 * on the reference engine with tracers attached; the reply carries the result's JSON text.
 */
export async function trace(bytes: Uint8Array): Promise<Uint8Array> {
  const req = decodeTraceTask(bytes);
  try {
    chain.refreshHead();
    return encodeCallReply({ ok: await answerTraceRequest(chain, req, { executor, pending }) });
  } catch (e) {
    log.debug({ err: e, kind: req.kind }, "trace failed");
    return encodeCallReply({ err: errorToObject(e) });
  }
}

/**
 * A metering (base_meterBundle, base_meterBlockBy*): the bundle simulated on the state block, or
 * the block re-executed on its parent's state, with wall-clock times; the reply is its JSON text.
 */
export async function meter(bytes: Uint8Array): Promise<Uint8Array> {
  const req = decodeMeterTask(bytes);
  try {
    chain.refreshHead();
    return encodeCallReply({ ok: await answerMeterRequest(chain, req) });
  } catch (e) {
    log.debug({ err: e, kind: req.kind }, "metering failed");
    return encodeCallReply({ err: errorToObject(e) });
  }
}

/** Senders' public keys (64 bytes each, concatenated) of one block's non-deposit transactions. */
export function senders(bytes: Uint8Array): Uint8Array {
  const task = decodeSendersTask(bytes);
  const common = chain.commonAt(BigInt(task.number), BigInt(task.timestamp));
  const out = new Uint8Array(task.txs.length * 64);
  // Types 1 and 2 straight from their bytes (chain/sender.ts); others decoded by @ethereumjs, which also refuses invalid signatures.
  task.txs.forEach((raw, i) => out.set(fastSenderKey(raw) ?? createTxFromRLP(raw, { common }).getSenderPublicKey(), i * 64));
  return out;
}
