/**
 * The batcher of `basalt node --batcher`, built from the options: it needs an OP chain with a
 * rollup config (built-in, or `--rollup.config`), `--l1.rpc`, and `--batcher.key` for the
 * rollup's batcher; each missing piece is a {@link BatcherError} saying which flag gives it.
 */
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { rollupConfigForChain } from "../chain/op/rollupConfig.js";
import { systemConfigFromL2Block } from "../chain/op/systemConfig.js";
import type { BasaltOptions } from "../config/options.js";
import { createRpcClient } from "../util/rpcClient.js";
import { to0x } from "../util/bytes.js";
import { batcherAddressOf, checkBatcherAddress, parseBatcherKey } from "./batcherKey.js";
import { BatcherError, BatcherErrorCode } from "./errors.js";
import { BatchSubmitter } from "./submitter.js";

/** The options the batcher reads. */
export type BatcherOptions = Pick<
  BasaltOptions,
  "batcher" | "batcher.key" | "batcher.data" | "batcher.max-channel-duration" | "batcher.num-confirmations" | "batcher.blobs-per-tx" | "l1.rpc" | "rollup.config"
>;

/**
 * The batcher for `chain` (not started), or undefined without `--batcher`. Checks, in order: the
 * rollup config, `--l1.rpc`, the key and its address, the options' values — all before anything
 * else of the node starts.
 * @throws BatcherError NO_ROLLUP_CONFIG, L1_MISSING, KEY_MISSING, KEY_INVALID, KEY_NOT_BATCHER, INVALID_OPTION.
 */
export function batcherFromOptions(opts: BatcherOptions, chain: Chain, logger: Logger, more: { derivedL1?: () => bigint | undefined } = {}): BatchSubmitter | undefined {
  if (!opts.batcher) return undefined;
  const rollup = chain.op === undefined ? undefined : rollupConfigForChain(chain.chainId, to0x(chain.genesisHash), opts["rollup.config"]);
  if (rollup === undefined) {
    throw new BatcherError(
      { code: BatcherErrorCode.NO_ROLLUP_CONFIG, chainId: chain.chainId.toString() },
      `--batcher needs the rollup config of chain ${chain.chainId}: a built-in OP network, or --rollup.config <rollup.json> for a custom one`,
    );
  }
  const l1Url = opts["l1.rpc"];
  if (l1Url === undefined || l1Url === "") throw new BatcherError({ code: BatcherErrorCode.L1_MISSING }, "--batcher needs the L1 to post to: --l1.rpc <url> (or BASALT_L1_ETH_RPC)");
  const key = parseBatcherKey(opts["batcher.key"]);
  const current = systemConfigFromL2Block(chain.head, rollup).batcherAddress;
  const { warning } = checkBatcherAddress(batcherAddressOf(key), current, rollup.genesis.systemConfig.batcherAddress);
  const log = logger.child({ subsystem: "batcher" });
  if (warning !== undefined) log.warn(warning);
  const l1 = createRpcClient(l1Url, { logger: log });
  try {
    return new BatchSubmitter({
      chain,
      rollup,
      l1,
      key,
      data: opts["batcher.data"],
      maxChannelDuration: opts["batcher.max-channel-duration"],
      numConfirmations: opts["batcher.num-confirmations"],
      blobsPerTx: opts["batcher.blobs-per-tx"],
      logger,
      ownsL1: true,
      ...(more.derivedL1 === undefined ? {} : { derivedL1: more.derivedL1 }),
    });
  } catch (e) {
    l1.close();
    throw e;
  }
}

/**
 * {@link batcherFromOptions}, started (the L1 chain id checked, the loop running).
 * @throws BatcherError as {@link batcherFromOptions}, and L1_CHAIN_MISMATCH.
 */
export async function startBatcherFromOptions(opts: BatcherOptions, chain: Chain, logger: Logger): Promise<BatchSubmitter | undefined> {
  const batcher = batcherFromOptions(opts, chain, logger);
  try {
    await batcher?.start();
  } catch (e) {
    await batcher?.stop();
    throw e;
  }
  return batcher;
}
