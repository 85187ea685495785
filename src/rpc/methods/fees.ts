/**
 * Fee queries: eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory, eth_baseFee,
 * eth_blobBaseFee.
 */
import type { Block } from "@ethereumjs/block";
import { Capability } from "@ethereumjs/tx";
import { MAX_FEE_HISTORY_BLOCKS, GAS_PRICE_ORACLE_BLOCKS, GAS_PRICE_ORACLE_PERCENTILE, GAS_PRICE_ORACLE_DEFAULT_TIP_WEI } from "../constants.js";
import { isDeposit } from "../../chain/op/depositTx.js";
import { fakeExponential } from "../../chain/op/l1BlobFee.js";
import type { RpcBackend } from "../backend.js";
import { parseBlockParam, resolveBlock } from "../blockParam.js";
import { InvalidParamsError } from "../errors.js";
import { effectiveGasPrice, toQuantity } from "../../chain/json/index.js";
import { parseQuantity } from "../hexParams.js";
import { required } from "../params.js";
import type { MethodTable } from "../types.js";

function tips(block: Block): bigint[] {
  const base = block.header.baseFeePerGas ?? 0n;
  // Deposits pay no gas price: their tip is 0 (reth's fee history treats them so).
  return block.transactions.map((tx) => (isDeposit(tx) ? 0n : effectiveGasPrice(tx, block.header.baseFeePerGas) - base));
}

/** Handlers of the fee family. */
export function feeMethods(b: RpcBackend): MethodTable {
  const { chain } = b;

  const suggestTip = (): bigint => {
    const all: bigint[] = [];
    let n = chain.head.header.number;
    for (let i = 0; i < GAS_PRICE_ORACLE_BLOCKS && n >= 0n; i++, n--) {
      const blk = chain.getBlockByNumber(n);
      if (blk !== undefined) all.push(...tips(blk));
    }
    if (all.length === 0) return GAS_PRICE_ORACLE_DEFAULT_TIP_WEI;
    all.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    return all[Math.min(all.length - 1, Math.floor(((all.length - 1) * GAS_PRICE_ORACLE_PERCENTILE) / 100))];
  };
  const nextBaseFee = (): bigint => {
    const h = chain.head.header;
    return chain.nextBaseFee(h);
  };
  const nextBlobFee = (): bigint => {
    const h = chain.head.header;
    if (!h.common.isActivatedEIP(4844)) return 0n;
    // OP chains have no blob market: excessBlobGas stays 0 (Jovian's blobGasUsed is the DA footprint).
    if (chain.op !== undefined) return 1n;
    const c = chain.commonAt(h.number + 1n, h.timestamp + 1n);
    const excess = h.calcNextExcessBlobGas(c);
    const { blobGasPriceUpdateFraction } = c.getBlobGasSchedule() as { blobGasPriceUpdateFraction: bigint };
    return fakeExponential(1n, excess, BigInt(blobGasPriceUpdateFraction));
  };

  return {
    eth_gasPrice: () => toQuantity(suggestTip() + (chain.head.header.baseFeePerGas ?? 0n)),
    eth_maxPriorityFeePerGas: () => toQuantity(suggestTip()),
    eth_baseFee: () => toQuantity(nextBaseFee()),
    eth_blobBaseFee: () => toQuantity(nextBlobFee()),
    /** eth_feeHistory(blockCount, newestBlock, rewardPercentiles) */
    eth_feeHistory: (params) => {
      let count = parseQuantity(required(params, 0), 0);
      if (count > BigInt(MAX_FEE_HISTORY_BLOCKS)) count = BigInt(MAX_FEE_HISTORY_BLOCKS);
      const newest = resolveBlock(chain, parseBlockParam(required(params, 1), 1));
      const pct = params[2] == null ? undefined : (params[2] as unknown[]);
      if (pct !== undefined) {
        if (!Array.isArray(pct)) throw new InvalidParamsError("invalid argument 2: reward percentiles must be an array");
        let prev = -1;
        for (const p of pct) {
          if (typeof p !== "number" || p < 0 || p > 100) throw new InvalidParamsError(`invalid reward percentile: ${String(p)}`);
          if (p < prev) throw new InvalidParamsError(`invalid reward percentile: #${pct.indexOf(p) - 1}:${prev} > #${pct.indexOf(p)}:${p}`);
          prev = p;
        }
      }
      if (newest === undefined || count === 0n) return { oldestBlock: "0x0", baseFeePerGas: [], gasUsedRatio: [] };
      const last = newest.header.number;
      const first = last + 1n >= count ? last + 1n - count : 0n;
      const baseFees: string[] = [];
      const ratios: number[] = [];
      const blobFees: string[] = [];
      const blobRatios: number[] = [];
      const rewards: string[][] = [];
      for (let n = first; n <= last; n++) {
        const blk = chain.getBlockByNumber(n) as Block;
        const h = blk.header;
        baseFees.push(toQuantity(h.baseFeePerGas ?? 0n));
        ratios.push(Number(h.gasUsed) / Number(h.gasLimit));
        blobFees.push(toQuantity(h.common.isActivatedEIP(4844) ? h.getBlobGasPrice() : 0n));
        const maxBlob = h.common.isActivatedEIP(4844) ? BigInt(h.common.getBlobGasSchedule().maxBlobGasPerBlock) : 0n;
        blobRatios.push(maxBlob === 0n || chain.op !== undefined ? 0 : Number(h.blobGasUsed ?? 0n) / Number(maxBlob));
        if (pct !== undefined) {
          const receipts = chain.getReceipts(blk.hash()) ?? [];
          const entries = blk.transactions
            .map((tx, i) => ({
              tip: isDeposit(tx) ? 0n : effectiveGasPrice(tx, h.baseFeePerGas) - (h.baseFeePerGas ?? 0n),
              gas: receipts[i].cumulativeGasUsed - (i === 0 ? 0n : receipts[i - 1].cumulativeGasUsed),
              supports: tx.supports(Capability.EIP1559FeeMarket),
            }))
            .sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
          rewards.push(
            (pct as number[]).map((p) => {
              if (entries.length === 0) return "0x0";
              const threshold = (Number(h.gasUsed) * p) / 100;
              let sum = 0;
              for (const e of entries) {
                sum += Number(e.gas);
                if (sum >= threshold) return toQuantity(e.tip);
              }
              return toQuantity(entries[entries.length - 1].tip);
            }),
          );
        }
      }
      const lh = newest.header;
      baseFees.push(toQuantity(chain.nextBaseFee(lh)));
      const c = chain.commonAt(lh.number + 1n, lh.timestamp + 1n);
      if (lh.common.isActivatedEIP(4844) && chain.op !== undefined) blobFees.push("0x1");
      else if (lh.common.isActivatedEIP(4844)) {
        const excess = lh.calcNextExcessBlobGas(c);
        blobFees.push(toQuantity(fakeExponential(1n, excess, BigInt(c.getBlobGasSchedule().blobGasPriceUpdateFraction))));
      } else blobFees.push("0x0");
      const out: Record<string, unknown> = { oldestBlock: toQuantity(first) };
      if (pct !== undefined) out.reward = rewards;
      out.baseFeePerGas = baseFees;
      out.gasUsedRatio = ratios;
      out.baseFeePerBlobGas = blobFees;
      out.blobGasUsedRatio = blobRatios;
      return out;
    },
  };
}
