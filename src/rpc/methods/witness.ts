/**
 * Execution witnesses: debug_executionWitness and debug_executePayload (Base's node, with or
 * without its proofs extension; shapes in alloy's `ExecutionWitness`). The RPC thread resolves
 * the block or parent and checks the proofs window; the execution pool builds the witness (a
 * re-execution with every read recorded), never this thread.
 */
import type { BlockHeader } from "@ethereumjs/block";
import { toData } from "../../chain/json/index.js";
import { serializePayloadAttributes } from "../../execution/witness/request.js";
import type { RpcBackend } from "../backend.js";
import { parseBlockParam, resolveBlock, type BlockParam } from "../blockParam.js";
import { InternalError, InvalidParamsError, RpcCode, RpcError, witnessFailure } from "../errors.js";
import { parseHash } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import { RawJson, type MethodTable } from "../types.js";
import { parseOpPayloadAttributes } from "./engineOp.js";

/** reth's text for a block id it does not have (`block_id_to_str`). */
function blockIdText(p: BlockParam): string {
  switch (p.kind) {
    case "number":
      return "0x" + p.number.toString(16);
    case "tag":
      return p.tag;
    case "hash":
      return `${p.requireCanonical ? "canonical hash" : "hash"} ${toData(p.hash)}`;
    case "flashblock":
      return "0x" + p.number.toString(16);
  }
}

/** Handlers of the witness family. */
export function witnessMethods(b: RpcBackend): MethodTable {
  const { chain } = b;

  /**
   * With the proofs extension, the parent's state must not be below the window (Base's node: "no
   * state found for block number N"). Above it — the store still catching up — the main store's
   * trie nodes answer, as eth_getProof does.
   */
  const checkWindow = (parent: BlockHeader): void => {
    if (b.proofs === undefined) return;
    const { earliest } = b.proofs.status();
    // An empty store (initializing) has no window yet: the main store answers, as for eth_getProof.
    if (earliest === null || parent.number >= BigInt(earliest)) return;
    throw new InternalError(`no state found for block number ${parent.number}`);
  };

  const run = async (req: Parameters<RpcBackend["calls"]["witness"]>[0]): Promise<RawJson> => {
    try {
      return new RawJson(await b.calls.witness(req));
    } catch (e) {
      throw witnessFailure(e);
    }
  };

  const methods: MethodTable = {
    /** debug_executionWitness(block): what a stateless executor needs to re-execute the block. */
    debug_executionWitness: async (params) => {
      maxParams(params, 1);
      const p = parseBlockParam(required(params, 0), 0, { allowHash: true });
      const block = resolveBlock(chain, p);
      if (block === undefined) throw new RpcError(RpcCode.ResourceNotFound, `block not found: ${blockIdText(p)}`);
      if (block.header.number === 0n) throw new InternalError("no state found for the parent of block 0: genesis has none");
      const parent = chain.getHeaderByHash(block.header.parentHash);
      if (parent === undefined) throw new InternalError(`no header found for Hash(${toData(block.header.parentHash)})`);
      checkWindow(parent);
      return run({ kind: "block", hash: toData(block.hash()) });
    },
  };
  if (chain.op !== undefined) {
    /** debug_executePayload(parentHash, attributes): the witness of building that payload (its transactions only) on that parent. */
    methods.debug_executePayload = async (params) => {
      maxParams(params, 2);
      const parentHash = parseHash(required(params, 0), 0);
      const raw = required(params, 1);
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InvalidParamsError("invalid argument 1: payload attributes object expected");
      let attrs;
      try {
        attrs = parseOpPayloadAttributes(raw as Record<string, unknown>, chain);
      } catch (e) {
        throw new InvalidParamsError(`invalid argument 1: ${(e as Error).message}`);
      }
      const parent = chain.getHeaderByHash(parentHash);
      if (parent === undefined) throw new InternalError(`no header found for Hash(${toData(parentHash)})`);
      checkWindow(parent);
      return run({ kind: "payload", parentHash: toData(parentHash), attrs: serializePayloadAttributes(attrs) });
    };
  }
  return methods;
}
