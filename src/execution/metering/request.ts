/**
 * A metering request in the form that crosses thread boundaries (strings only), and the one
 * function that answers it on whichever thread holds the chain: the execution pool's workers in
 * a running node, the calling thread in in-process tests (`InlineCallService`). The RPC thread
 * validates the parameters and resolves block tags to hashes before sending.
 */
import { fromHex } from "../../util/bytes.js";
import { MeteringError, MeteringErrorCode } from "./errors.js";
import { meterBlock, type MeterChain } from "./meterBlock.js";
import { meterBundle } from "./meterBundle.js";

/** What to meter. */
export type MeterRequest =
  /** base_meterBundle: the bundle's 0x-hex transactions on top of the block `stateHash`. */
  | { kind: "bundle"; txs: string[]; stateHash: string; minTimestamp?: string }
  /** base_meterBlockBy*: the stored block `hash`; `fees` adds each transaction's priority fee and DA estimate. */
  | { kind: "block"; hash: string; fees?: boolean };

/**
 * Answers `req` as JSON text: base_meterBundle's and base_meterBlockBy*'s result, or for a block
 * with `fees`, `{"response": …, "fees": [...]}`.
 * @throws MeteringError (see errors.ts), mapped to Base's codes by src/rpc/errors.ts
 */
export async function answerMeterRequest(chain: MeterChain, req: MeterRequest): Promise<string> {
  if (req.kind === "bundle") {
    const head = chain.getHeaderByHash(fromHex(req.stateHash));
    if (head === undefined) throw new MeteringError({ code: MeteringErrorCode.BUNDLE_FAILED }, `Bundle metering failed: state block ${req.stateHash} is no longer stored`);
    return JSON.stringify(await meterBundle(chain, head, req.txs, req.minTimestamp === undefined ? undefined : BigInt(req.minTimestamp)));
  }
  const block = chain.getBlockByHash(fromHex(req.hash));
  if (block === undefined) throw new MeteringError({ code: MeteringErrorCode.BLOCK_NOT_FOUND }, `Block not found: ${req.hash}`);
  const out = await meterBlock(chain, block, req.fees === true);
  return JSON.stringify(req.fees === true ? out : out.response);
}
