/**
 * What the derivation worker (`workers/derivation.ts`, the pipeline) and the main thread
 * (`service.ts`, which owns the chain) exchange through the worker host (`util/workerHost.ts`):
 * plain values, bigints as decimal strings, hashes as bytes. The worker proposes through events
 * ({@link DerivationEvents}: attributes, a safe head rewind, a finalized block, its status); the
 * main thread applies through the engine and answers each attributes event once with an
 * "applied" note ({@link DerivationNotes}). A start failure crosses as {@link DerivationStartError}.
 */
import { TypedError } from "../util/errors.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";
import type { L1BlockRef } from "./batchValidity.js";

/** Derivation refused to start (wrong L1, missing L1 blocks); raised in the worker, rebuilt as itself on the main thread. */
export class DerivationStartError extends TypedError<{ code: "DERIVATION_START_FAILED"; reason: string }> {
  constructor(message: string, reason: string) {
    super({ code: "DERIVATION_START_FAILED", reason }, message);
  }
}

/** An L1 block reference on the wire (`parentHash` for `optimism_syncStatus`). */
interface L1RefWire {
  number: string;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: string;
}

/** Payload attributes on the wire. */
interface AttributesWire {
  timestamp: string;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Uint8Array;
  parentBeaconBlockRoot?: Uint8Array;
  transactions: Uint8Array[];
  gasLimit: string;
  eip1559Params?: Uint8Array;
  minBaseFee?: string;
}

/** What the worker reports of its progress (for `optimism_syncStatus` and the metrics). */
export interface StatusWire {
  currentL1?: L1RefWire;
  headL1?: L1RefWire;
  safeL1?: L1RefWire;
  finalizedL1?: L1RefWire;
  /** Newest L2 block derived from L1 in this run (the safe head), once one was. */
  safeNumber?: number;
  /** The last error that stopped progress, until progress resumes. */
  stalled?: string;
}

/** Worker → main events, by name. */
export interface DerivationEvents {
  /** Payload attributes to apply on `parentHash`; answered once by an "applied" note of the same id. */
  attributes: { id: number; parentHash: Uint8Array; parentNumber: string; attributes: AttributesWire; derivedFrom: L1RefWire; empty: boolean };
  /** The safe head went back (L1 reorg). */
  rewind: { safeHash: Uint8Array; number: string };
  /** An L2 block is final. */
  finalized: { hash: Uint8Array; number: string };
  /** Progress, at most every DERIVATION_STATUS_INTERVAL_MS. */
  status: StatusWire;
}

/** How the main thread applied attributes. */
export type AppliedResult =
  /** The unsafe block at the next height matched: it is now safe. */
  | "consolidated"
  /** No unsafe block at that height: a block was built from the attributes and made the head. */
  | "built"
  /** The unsafe block at that height differed: a block was built from the attributes and the unsafe chain reorganized to it. */
  | "replaced"
  /** The attributes' payload was invalid: a deposits-only block was built instead (Holocene). */
  | "depositsOnly"
  /** The safe head is not the attributes' parent (moved by someone else): the worker resets. */
  | "reset";

/** Main → worker notes, by name. */
export interface DerivationNotes {
  /** How the attributes event `id` was applied. */
  applied: { id: number; result: AppliedResult; safeHash?: Uint8Array };
  /** Start over from the safe head (it was moved by someone else). */
  reset: undefined;
}

/** Attributes to their wire form. */
export function attributesToWire(a: OpPayloadAttributes): AttributesWire {
  const w: AttributesWire = {
    timestamp: a.timestamp.toString(),
    prevRandao: a.prevRandao,
    suggestedFeeRecipient: a.suggestedFeeRecipient,
    transactions: a.transactions,
    gasLimit: a.gasLimit.toString(),
  };
  if (a.parentBeaconBlockRoot !== undefined) w.parentBeaconBlockRoot = a.parentBeaconBlockRoot;
  if (a.eip1559Params !== undefined) w.eip1559Params = a.eip1559Params;
  if (a.minBaseFee !== undefined) w.minBaseFee = a.minBaseFee.toString();
  return w;
}

/** Attributes from their wire form (derived attributes never take mempool transactions). */
export function attributesFromWire(w: AttributesWire): OpPayloadAttributes {
  const a: OpPayloadAttributes = {
    timestamp: BigInt(w.timestamp),
    prevRandao: w.prevRandao,
    suggestedFeeRecipient: w.suggestedFeeRecipient,
    transactions: w.transactions,
    noTxPool: true,
    gasLimit: BigInt(w.gasLimit),
  };
  if (w.parentBeaconBlockRoot !== undefined) a.parentBeaconBlockRoot = w.parentBeaconBlockRoot;
  if (w.eip1559Params !== undefined) a.eip1559Params = w.eip1559Params;
  if (w.minBaseFee !== undefined) a.minBaseFee = BigInt(w.minBaseFee);
  return a;
}

/** An L1 reference to its wire form. */
export function l1RefToWire(r: L1BlockRef & { parentHash?: Uint8Array }): L1RefWire {
  return { number: r.number.toString(), hash: r.hash, parentHash: r.parentHash ?? new Uint8Array(32), timestamp: r.timestamp.toString() };
}

/** An L1 reference from its wire form. */
export function l1RefFromWire(w: L1RefWire): L1BlockRef & { parentHash: Uint8Array } {
  return { number: BigInt(w.number), hash: w.hash, parentHash: w.parentHash, timestamp: BigInt(w.timestamp) };
}
