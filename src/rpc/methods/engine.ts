/**
 * Engine API (authenticated port): engine_exchangeCapabilities, engine_getClientVersionV1,
 * engine_forkchoiceUpdatedV1..V3, engine_newPayloadV1..V4, engine_getPayloadV1..V5 (V5: Osaka and
 * Base's Azul on — the OP V4 envelope, which base-consensus asks for since Azul).
 * This is how a consensus client (or the execution-apis suite's headfcu.json) drives the node.
 * A payload, or payload attributes, at or after an upgrade basalt does not implement
 * (`Chain.upgrades`) is answered with -38005 "unsupported fork" — never INVALID, which would make
 * the consensus client reject a valid block.
 */
import { createBlockFromExecutionPayload, genRequestsRoot, type Block } from "@ethereumjs/block";
import { CLRequest, bytesToHex, hexToBytes } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { CLIENT_CODE, CLIENT_NAME, ENGINE_MAX_PAYLOADS } from "../constants.js";
import type { ExecutedBlock } from "../../blockchain/chain.js";
import { buildOnHead } from "../../blockchain/blockBuilder.js";
import { buildOpOnHead } from "../../blockchain/opBuilder.js";
import { poolSource } from "../../txpool/poolSource.js";
import { blobsBundleOf, payloadEnvelope } from "./payloadEnvelope.js";
import { blockFromOpPayload, parseOpPayloadAttributes } from "./engineOp.js";
import type { RpcBackend } from "../backend.js";
import { RpcCode, RpcError } from "../errors.js";
import { toData } from "../../chain/json/quantity.js";
import { UnknownUpgradeError } from "../../chain/errors.js";
import { required } from "../params.js";
import type { MethodTable } from "../types.js";

type Json = Record<string, unknown>;

function invalidParams(msg: string): RpcError {
  return new RpcError(RpcCode.InvalidParams, msg);
}

function hashOrNull(v: unknown): Uint8Array | undefined {
  if (typeof v !== "string") return undefined;
  const b = hexToBytes(v as `0x${string}`);
  return b.every((x) => x === 0) ? undefined : b;
}

/** Handlers of the Engine API. `version` is the client version string. */
export function engineMethods(b: RpcBackend, version: string, log?: Logger): MethodTable {
  const { chain } = b;
  const payloads = new Map<string, Promise<ExecutedBlock>>();
  /** Each built payload's blobs bundle, taken from the pool when it was built (the pool drops the transactions once included). */
  const bundles = new WeakMap<ExecutedBlock, Json>();

  const status = (s: "VALID" | "INVALID" | "SYNCING" | "ACCEPTED", latestValidHash: Uint8Array | null, validationError: string | null = null): Json => ({
    status: s,
    latestValidHash: latestValidHash === null ? null : toData(latestValidHash),
    validationError,
  });

  const forkchoice = async (params: unknown[], v: number): Promise<Json> => {
    const state = required(params, 0) as Json;
    const attrs = (params[1] ?? null) as Json | null;
    const head = hashOrNull(state.headBlockHash);
    if (head === undefined) throw invalidParams("forkchoice state: headBlockHash is required");
    if (!chain.store.hasBlock(head)) return { payloadStatus: status("SYNCING", null), payloadId: null };
    const safe = hashOrNull(state.safeBlockHash);
    const finalized = hashOrNull(state.finalizedBlockHash);
    for (const [name, h] of [["safe", safe], ["finalized", finalized]] as const) {
      if (h !== undefined && !chain.store.hasBlock(h)) {
        throw new RpcError(RpcCode.InvalidForkchoiceState, `invalid forkchoice state: unknown ${name} block ${bytesToHex(h)}`);
      }
    }
    await chain.setHead(head, safe, finalized);
    let payloadId: string | null = null;
    if (attrs !== null) {
      if (v >= 3 && attrs.parentBeaconBlockRoot == null) throw new RpcError(RpcCode.InvalidPayloadAttributes, "missing parentBeaconBlockRoot");
      if (v >= 2 && !Array.isArray(attrs.withdrawals) && chain.commonAt(chain.head.header.number + 1n, BigInt(attrs.timestamp as string)).isActivatedEIP(4895)) {
        throw new RpcError(RpcCode.InvalidPayloadAttributes, "missing withdrawals");
      }
      const timestamp = BigInt(attrs.timestamp as string);
      if (timestamp <= chain.head.header.timestamp) throw new RpcError(RpcCode.InvalidPayloadAttributes, "invalid timestamp: not after the head's");
      // Refused before a payload id is handed out: -38005 (rpc/errors.ts).
      chain.upgrades.check(timestamp, { number: chain.head.header.number + 1n, action: "build" });
      payloadId = "0x" + randomBytes(8).toString("hex");
      const build =
        chain.op !== undefined
          ? buildOpOnHead(chain, poolSource(b.pool, log), parseOpPayloadAttributes(attrs, chain))
          : buildOnHead(chain, poolSource(b.pool, log), {
        timestamp,
        feeRecipient: hexToBytes(attrs.suggestedFeeRecipient as `0x${string}`),
        prevRandao: hexToBytes(attrs.prevRandao as `0x${string}`),
        withdrawals: Array.isArray(attrs.withdrawals)
          ? (attrs.withdrawals as Json[]).map((w) => ({
              index: BigInt(w.index as string),
              validatorIndex: BigInt(w.validatorIndex as string),
              address: hexToBytes(w.address as `0x${string}`),
              amount: BigInt(w.amount as string),
            }))
          : undefined,
        parentBeaconBlockRoot: attrs.parentBeaconBlockRoot == null ? undefined : hexToBytes(attrs.parentBeaconBlockRoot as `0x${string}`),
      });
      const built = build.then((ex) => {
        chain.rememberBuilt(ex);
        bundles.set(ex, blobsBundleOf(ex.block, b.pool));
        return ex;
      });
      built.catch(() => undefined);
      payloads.set(payloadId, built);
      while (payloads.size > ENGINE_MAX_PAYLOADS) payloads.delete(payloads.keys().next().value as string);
    }
    return { payloadStatus: status("VALID", head), payloadId };
  };

  const newPayload = async (params: unknown[], v: number): Promise<Json> => {
    const p = required(params, 0) as Json;
    const payload: Json = { ...p };
    if (v >= 3) {
      payload.parentBeaconBlockRoot = required(params, 2);
    }
    if (v >= 4 && chain.op === undefined) {
      const reqs = (required(params, 3) as string[]).map((r) => {
        const bytes = hexToBytes(r as `0x${string}`);
        return new CLRequest(bytes[0] as never, bytes.subarray(1));
      });
      payload.requestsHash = bytesToHex(genRequestsRoot(reqs, sha256));
    }
    const parentHash = hexToBytes(p.parentHash as `0x${string}`);
    const parent = chain.getHeaderByHash(parentHash);
    let block: Block;
    try {
      const number = BigInt(p.blockNumber as string);
      const timestamp = BigInt(p.timestamp as string);
      block =
        chain.op !== undefined
          ? await blockFromOpPayload(chain, payload)
          : await createBlockFromExecutionPayload(payload as never, { common: chain.commonAt(number, timestamp) });
    } catch (e) {
      return status("INVALID", parent === undefined ? null : parentHash, (e as Error).message);
    }
    if (v >= 3) {
      const expected = (required(params, 1) as string[]).map((h) => h.toLowerCase());
      const got = block.transactions.flatMap((tx) => ((tx as unknown as { blobVersionedHashes?: (string | Uint8Array)[] }).blobVersionedHashes ?? []).map((h) => (typeof h === "string" ? h : bytesToHex(h)).toLowerCase()));
      if (expected.length !== got.length || expected.some((h, i) => h !== got[i])) {
        return status("INVALID", parentHash, "invalid blob versioned hashes");
      }
    }
    if (chain.store.hasBlock(block.hash())) return status("VALID", block.hash());
    if (parent === undefined) return status("SYNCING", null);
    try {
      await chain.insertBlock(block);
    } catch (e) {
      // Not invalid: this basalt cannot execute it (-38005, rpc/errors.ts).
      if (e instanceof UnknownUpgradeError) throw e;
      return status("INVALID", parentHash, (e as Error).message);
    }
    return status("VALID", block.hash());
  };

  const getPayload = async (params: unknown[], v: number): Promise<Json> => {
    const id = required(params, 0) as string;
    const pending = payloads.get(id);
    if (pending === undefined) throw new RpcError(RpcCode.UnknownPayload, "Unknown payload");
    const ex = await pending;
    // V5 is Osaka's (on OP chains: Base's Azul on); an earlier payload is another version's (execution-apis: -38005).
    if (v === 5 && !ex.block.common.gteHardfork("osaka")) throw new RpcError(RpcCode.UnsupportedFork, "Unsupported fork");
    const bundle = bundles.get(ex);
    // Osaka's V5 bundle carries cell proofs (EIP-7594), which basalt's L1 builder does not make: no blob payloads over V5.
    if (v === 5 && chain.op === undefined && bundle !== undefined && ((bundle as { blobs?: unknown[] }).blobs?.length ?? 0) > 0) {
      throw new RpcError(RpcCode.UnsupportedFork, "Unsupported fork: blob payloads with EIP-7594 cell proofs are not built");
    }
    return payloadEnvelope(ex, v, bundle, chain.op !== undefined);
  };

  const capabilities = [
    "engine_exchangeCapabilities",
    "engine_getClientVersionV1",
    "engine_forkchoiceUpdatedV1",
    "engine_forkchoiceUpdatedV2",
    "engine_forkchoiceUpdatedV3",
    "engine_newPayloadV1",
    "engine_newPayloadV2",
    "engine_newPayloadV3",
    "engine_newPayloadV4",
    "engine_getPayloadV1",
    "engine_getPayloadV2",
    "engine_getPayloadV3",
    "engine_getPayloadV4",
    "engine_getPayloadV5",
  ];
  return {
    engine_exchangeCapabilities: () => capabilities,
    engine_getClientVersionV1: () => [{ code: CLIENT_CODE, name: CLIENT_NAME, version, commit: "0x00000000" }],
    engine_forkchoiceUpdatedV1: (p) => forkchoice(p, 1),
    engine_forkchoiceUpdatedV2: (p) => forkchoice(p, 2),
    engine_forkchoiceUpdatedV3: (p) => forkchoice(p, 3),
    engine_newPayloadV1: (p) => newPayload(p, 1),
    engine_newPayloadV2: (p) => newPayload(p, 2),
    engine_newPayloadV3: (p) => newPayload(p, 3),
    engine_newPayloadV4: (p) => newPayload(p, 4),
    engine_getPayloadV1: (p) => getPayload(p, 1),
    engine_getPayloadV2: (p) => getPayload(p, 2),
    engine_getPayloadV3: (p) => getPayload(p, 3),
    engine_getPayloadV4: (p) => getPayload(p, 4),
    /** engine_getPayloadV5: the V4 envelope for an Osaka payload (OP chains: Azul and later, as base-reth serves base-consensus). */
    engine_getPayloadV5: (p) => getPayload(p, 5),
  };
}
