/**
 * The execution payload envelope of a built block (engine_getPayloadV1–V5, testing_buildBlockV1):
 * the payload (V1: alone), `blockValue` (the fees the fee recipient earns: each transaction's
 * gas × effective tip), from V3 the blobs bundle and `shouldOverrideBuilder`, from V4 the
 * execution requests.
 */
import { bigIntToHex } from "@ethereumjs/util";
import type { Block } from "@ethereumjs/block";
import type { ExecutedBlock } from "../../blockchain/chain.js";
import { BLOB_TX_TYPE } from "../../chain/blobSidecar.js";
import { toData } from "../../chain/json/quantity.js";
import type { TxPool } from "../../txpool/txpool.js";

type Json = Record<string, unknown>;

/**
 * The blobs bundle of a built payload (engine_getPayloadV3+): the sidecars the pool keeps for the
 * payload's blob transactions (plain Ethereum chains), in block order; empty without blob transactions.
 */
export function blobsBundleOf(block: Block, pool: TxPool): Json {
  const bundle = { commitments: [] as string[], proofs: [] as string[], blobs: [] as string[] };
  for (const tx of block.transactions) {
    const sidecar = tx.type === BLOB_TX_TYPE ? pool.get(tx.hash())?.sidecar : undefined;
    if (sidecar === undefined) continue;
    bundle.commitments.push(...sidecar.commitments.map(toData));
    bundle.proofs.push(...sidecar.proofs.map(toData));
    bundle.blobs.push(...sidecar.blobs.map(toData));
  }
  return bundle;
}

/**
 * The envelope of `ex` for engine_getPayload version `v` (testing_buildBlockV1 answers the V4 form).
 * @param bundle the blobs bundle (V3+; empty when undefined)
 * @param op the chain is an OP chain (Isthmus `withdrawalsRoot` in the payload, the envelope's `parentBeaconBlockRoot`)
 */
export function payloadEnvelope(ex: ExecutedBlock, v: number, bundle: Json | undefined, op: boolean): Json {
  const ep = ex.block.toExecutionPayload() as unknown as Json;
  delete ep.requestsHash;
  delete ep.parentBeaconBlockRoot;
  // OP Isthmus: the payload carries the L2ToL1MessagePasser storage root (specs isthmus/exec-engine.md).
  if (op && v >= 4 && ex.block.header.withdrawalsRoot !== undefined) ep.withdrawalsRoot = toData(ex.block.header.withdrawalsRoot);
  if (v === 1) return ep;
  const fees = ex.write.receipts.reduce((acc, r, i) => {
    const gas = r.cumulativeGasUsed - (i === 0 ? 0n : ex.write.receipts[i - 1].cumulativeGasUsed);
    const tx = ex.block.transactions[i] as unknown as { maxPriorityFeePerGas?: bigint; maxFeePerGas?: bigint; gasPrice?: bigint };
    const base = ex.block.header.baseFeePerGas ?? 0n;
    const price = tx.maxFeePerGas !== undefined ? (tx.maxFeePerGas - base < (tx.maxPriorityFeePerGas ?? 0n) ? tx.maxFeePerGas - base : (tx.maxPriorityFeePerGas ?? 0n)) : (tx.gasPrice ?? 0n) - base;
    return acc + gas * price;
  }, 0n);
  const out: Json = { executionPayload: ep, blockValue: bigIntToHex(fees) };
  if (v >= 3) {
    out.blobsBundle = bundle ?? { commitments: [], proofs: [], blobs: [] };
    out.shouldOverrideBuilder = false;
    // OP envelopes return the parent beacon block root (op-geth ExecutionPayloadEnvelope).
    if (op && ex.block.header.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = toData(ex.block.header.parentBeaconBlockRoot);
  }
  if (v >= 4) out.executionRequests = [];
  return out;
}
