/**
 * base/base's metering RPC, served with `--enable-metering` (base-reth-node's flag; without it
 * the methods do not exist: -32601, as on Base). Shapes and errors: base/base v0.6.0-rc.19
 * `crates/client/metering/src/{rpc.rs,types.rs}` and `crates/alloy/bundles/src/meter.rs`;
 * base_meteredPriorityFeePerGas: base/base main 98a8db8 (no release has it yet).
 * - base_meterBundle(bundle): the bundle simulated on the latest sealed block, per-transaction
 *   and total execution times and the state root time, measured (microseconds);
 * - base_meterBlockByHash(hash), base_meterBlockByNumber(number|tag): the stored block
 *   re-executed on its parent's state: signer recovery, execution (per transaction too), state
 *   root, total;
 * - base_meteredPriorityFeePerGas(bundle): the bundle's metering plus the priority fee that
 *   would have got it into the latest block for each resource with a configured limit
 *   (`--metering.gas-limit`, `--metering.execution-time-us`, `--metering.da-bytes`; none set:
 *   Base's -32603 "Priority fee estimation not configured").
 * The RPC thread validates and resolves the block; the EVM runs on the execution pool
 * (`CallService.meter`), which answers the JSON.
 */
import type { Block } from "@ethereumjs/block";
import { toData, toQuantity } from "../../chain/json/index.js";
import { flzCompressLen } from "../../chain/op/fastlz.js";
import { MeteringError, MeteringErrorCode } from "../../execution/metering/errors.js";
import { estimatePriorityFee, type FeeSample, type ResourceLimits } from "../../execution/metering/estimator.js";
import type { MeterBlockResponse, MeteredTxFees } from "../../execution/metering/meterBlock.js";
import type { MeterBundleResponse } from "../../execution/metering/meterBundle.js";
import type { MeterRequest } from "../../execution/metering/request.js";
import { counter, histogram } from "../../util/metrics.js";
import type { BasaltOptions } from "../../config/options.js";
import type { RpcBackend } from "../backend.js";
import { parseBlockParam } from "../blockParam.js";
import { parseBundleParams } from "../bundleParams.js";
import { parseHash } from "../hexParams.js";
import { maxParams, required } from "../params.js";
import { RawJson, type MethodTable } from "../types.js";

/** base_meteredPriorityFeePerGas's settings (`--metering.*`). */
interface MeteringSettings {
  /** Per-block capacities; none set: the estimator is not configured. */
  limits: ResourceLimits;
  /** Percentile of the fees above the threshold that is recommended (0..1). */
  percentile: number;
  /** Fee answered for an uncongested resource, wei. */
  uncongestedFee: bigint;
}

/** The settings from `--metering.*`. */
export function meteringSettingsOf(opts: Pick<BasaltOptions, "metering.gas-limit" | "metering.execution-time-us" | "metering.da-bytes" | "metering.priority-fee-percentile" | "metering.uncongested-priority-fee">): MeteringSettings {
  const big = (v: number | undefined): bigint | undefined => (v === undefined ? undefined : BigInt(v));
  const limits: ResourceLimits = {};
  const gas = big(opts["metering.gas-limit"]);
  if (gas !== undefined) limits.gasUsed = gas;
  const time = big(opts["metering.execution-time-us"]);
  if (time !== undefined) limits.executionTime = time;
  const da = big(opts["metering.da-bytes"]);
  if (da !== undefined) limits.dataAvailability = da;
  return { limits, percentile: opts["metering.priority-fee-percentile"], uncongestedFee: BigInt(opts["metering.uncongested-priority-fee"]) };
}

/** Metering requests by method and outcome (`ok`, `error`). */
const meteringRequestsTotal = counter({
  name: "basalt_rpc_metering_requests_total",
  help: "base_meter* and base_meteredPriorityFeePerGas requests by method and outcome",
  labelNames: ["method", "outcome"],
});
/** The measured times the metering methods answered (their `total…TimeUs`), by method. */
const meteredSeconds = histogram({
  name: "basalt_rpc_metering_measured_seconds",
  help: "Total time measured by base_meterBundle (totalExecutionTimeUs) and base_meterBlockBy* (totalTimeUs), in seconds",
  labelNames: ["method"],
  buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Debug form of alloy's `BlockNumberOrTag` (Base's "Block not found: …" for a number or tag). */
function blockIdDebug(p: ReturnType<typeof parseBlockParam>): string {
  if (p.kind === "number") return `Number(${p.number})`;
  if (p.kind === "tag") return p.tag[0]!.toUpperCase() + p.tag.slice(1);
  // Not admitted here (parseBlockParam without allowFlashblock); the union needs the case.
  if (p.kind === "flashblock") return `Number(${p.number})`;
  return toData(p.hash);
}

/** Handlers of the metering family (registered only with `--enable-metering`). */
export function meteringMethods(b: RpcBackend, settings: MeteringSettings): MethodTable {
  const { chain, calls } = b;
  const run = async (method: string, req: MeterRequest): Promise<string> => {
    try {
      const json = await calls.meter(method, req);
      meteringRequestsTotal.inc({ method, outcome: "ok" });
      return json;
    } catch (e) {
      meteringRequestsTotal.inc({ method, outcome: "error" });
      throw e;
    }
  };
  const bundleRequest = (params: unknown[]): { req: MeterRequest; txs: string[] } => {
    maxParams(params, 1);
    const bundle = parseBundleParams(required(params, 0));
    // Base meters on the latest state whatever `blockNumber` says.
    const req: MeterRequest = { kind: "bundle", txs: bundle.txs, stateHash: toData(chain.head.hash()) };
    if (bundle.minTimestamp !== undefined) req.minTimestamp = bundle.minTimestamp.toString();
    return { req, txs: bundle.txs };
  };
  const meterBundle = async (method: string, req: MeterRequest): Promise<MeterBundleResponse> => {
    const r = JSON.parse(await run(method, req)) as MeterBundleResponse;
    meteredSeconds.observe({ method }, r.totalExecutionTimeUs / 1e6);
    return r;
  };
  const meterBlock = async (method: string, block: Block): Promise<RawJson> => {
    const json = await run(method, { kind: "block", hash: toData(block.hash()) });
    meteredSeconds.observe({ method }, (JSON.parse(json) as MeterBlockResponse).totalTimeUs / 1e6);
    return new RawJson(json);
  };
  const configured = Object.values(settings.limits).some((v) => v !== undefined);
  return {
    /** base_meterBundle(bundle): Base's `MeterBundleResponse` with measured times. */
    base_meterBundle: async (params) => {
      const { req } = bundleRequest(params);
      return meterBundle("base_meterBundle", req);
    },
    /** base_meterBlockByHash(hash): Base's `MeterBlockResponse` with measured times. */
    base_meterBlockByHash: async (params) => {
      maxParams(params, 1);
      const hash = parseHash(required(params, 0), 0);
      const block = chain.getBlockByHash(hash);
      if (block === undefined) throw new MeteringError({ code: MeteringErrorCode.BLOCK_NOT_FOUND }, `Block not found: ${toData(hash)}`);
      return meterBlock("base_meterBlockByHash", block);
    },
    /** base_meterBlockByNumber(number|tag): Base's `MeterBlockResponse` with measured times. */
    base_meterBlockByNumber: async (params) => {
      maxParams(params, 1);
      const p = parseBlockParam(required(params, 0), 0);
      let block: Block | undefined;
      if (p.kind === "number") block = chain.getBlockByNumber(p.number);
      else if (p.kind === "tag") block = p.tag === "latest" || p.tag === "pending" ? chain.head : p.tag === "earliest" ? chain.getBlockByNumber(0n) : chain.pointer(p.tag);
      if (block === undefined) throw new MeteringError({ code: MeteringErrorCode.BLOCK_NOT_FOUND }, `Block not found: ${blockIdDebug(p)}`);
      return meterBlock("base_meterBlockByNumber", block);
    },
    /** base_meteredPriorityFeePerGas(bundle): the bundle's metering, the recommended priority fee and the per-resource estimates. */
    base_meteredPriorityFeePerGas: async (params) => {
      const method = "base_meteredPriorityFeePerGas";
      const { req, txs } = bundleRequest(params);
      if (!configured) {
        meteringRequestsTotal.inc({ method, outcome: "error" });
        throw new MeteringError({ code: MeteringErrorCode.NOT_CONFIGURED }, "Priority fee estimation not configured");
      }
      const bundle = await meterBundle(method, req);
      const latest = chain.head;
      const sample = JSON.parse(await run(method, { kind: "block", hash: toData(latest.hash()), fees: true })) as { response: MeterBlockResponse; fees: MeteredTxFees[] };
      const samples: FeeSample[] = [];
      sample.response.transactions.forEach((t, i) => {
        const f = sample.fees[i]!;
        if (f.deposit) return;
        samples.push({
          priorityFeePerGas: BigInt(f.priorityFeePerGas),
          usage: { gasUsed: BigInt(t.gasUsed), executionTime: BigInt(t.executionTimeUs), stateRootTime: 0n, dataAvailability: BigInt(f.daBytes) },
        });
      });
      let da = 0n;
      for (const t of txs) da += BigInt(flzCompressLen(Buffer.from(t.slice(2), "hex")));
      const demand = { gasUsed: BigInt(bundle.totalGasUsed), executionTime: BigInt(bundle.totalExecutionTimeUs), dataAvailability: da };
      let est;
      try {
        est = estimatePriorityFee(samples, demand, settings.limits, settings.percentile, settings.uncongestedFee);
      } catch (e) {
        meteringRequestsTotal.inc({ method, outcome: "error" });
        throw e;
      }
      return {
        ...bundle,
        priorityFee: toQuantity(est === undefined ? settings.uncongestedFee : est.priorityFee),
        blocksSampled: 1,
        resourceEstimates: (est?.estimates ?? []).map((e) => ({
          resource: e.resource,
          thresholdPriorityFee: toQuantity(e.thresholdPriorityFee),
          recommendedPriorityFee: toQuantity(e.recommendedPriorityFee),
          cumulativeUsage: toQuantity(e.cumulativeUsage),
          thresholdTxCount: e.thresholdTxCount,
          totalTransactions: e.totalTransactions,
        })),
      };
    },
  };
}
