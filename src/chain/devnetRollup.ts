/**
 * The genesis and rollup configuration of a local rollup (`basalt devnet rollup`): the built-in
 * devnet's chain (same alloc, forks, EIP-1559 parameters and gas limit) started at the timestamp
 * of the L1 block it is anchored to, and an op-node `rollup.json` naming that anchor, the L1
 * contracts (OptimismPortal, SystemConfig), the batcher and the batch inbox.
 *
 * The tool that deploys the L1 side and writes genesis.json + rollup.json calls these; the
 * sequencer (`--sequencer`) and a verifier then read the same files.
 */
import { DEVNET_BASE_FEE_SCALAR, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_CHAIN_ID, DEVNET_GAS_LIMIT, DEVNET_ROLLUP_BLOCK_TIME_S, DEVNET_ROLLUP_CHANNEL_TIMEOUT, DEVNET_ROLLUP_CHANNEL_TIMEOUT_GRANITE, DEVNET_ROLLUP_MAX_SEQUENCER_DRIFT_S, DEVNET_ROLLUP_SEQ_WINDOW_SIZE } from "./constants.js";
import { devnetGenesis } from "./devnet.js";
import type { GenesisJson } from "./genesis.js";
import { opConfigFromGenesisConfig } from "./op/forks.js";
import { ECOTONE_SCALAR_VERSION } from "./op/l1InfoTx.js";
import { RollupConfigError, type RollupConfig } from "./op/rollupConfig.js";

/** The genesis system config's `overhead`: zero (Ecotone rules from genesis; the overhead is unused). */
const ZERO_OVERHEAD = "0x" + "00".repeat(32);

/**
 * The devnet's SystemConfig `scalar` in the post-Ecotone encoding (specs system-config.md): version
 * byte 1, blob base fee scalar in bytes [24,28), base fee scalar in bytes [28,32) — the scalars
 * the devnet sequencer writes into every L1-attributes deposit, and a local rollup's genesis
 * system config (`optimism_rollupConfig` of the devnet reports it).
 */
export function devnetSystemConfigScalar(): string {
  const v = (BigInt(ECOTONE_SCALAR_VERSION) << 248n) | (DEVNET_BLOB_BASE_FEE_SCALAR << 32n) | DEVNET_BASE_FEE_SCALAR;
  return "0x" + v.toString(16).padStart(64, "0");
}

/**
 * The L2 genesis of a local rollup: {@link devnetGenesis} with `timestamp` = `l2Time` (the
 * timestamp of the L1 anchor block, so the rollup's `genesis.l2_time` and the L2 genesis block
 * agree). Its hash differs from the plain devnet's (intended: another chain start); it is the same
 * for the same `l2Time`. A fresh object on every call.
 */
export function devnetRollupGenesis(l2Time: bigint): GenesisJson {
  if (l2Time < 0n) throw new RollupConfigError("genesis.l2_time", `local rollup genesis time ${l2Time} is negative, expected an L1 block timestamp`);
  return { ...devnetGenesis(), timestamp: `0x${l2Time.toString(16)}` };
}

/** What {@link devnetRollupConfig} needs: where the rollup starts on L1 and its L1 contracts; the rest defaults. */
interface DevnetRollupParams {
  /** Chain id of the L1 (anvil 31337, `basalt --network devnet-l1` 900, …). */
  l1ChainId: bigint;
  /** The L1 block the rollup starts from: the L2 genesis's L1 origin; its timestamp is the L2 genesis time. */
  l1Anchor: { hash: string; number: bigint; timestamp: bigint };
  /** Hash of the L2 genesis block built from {@link devnetRollupGenesis}(l1Anchor.timestamp) (0x-hex). */
  l2GenesisHash: string;
  /** OptimismPortal on L1 (0x-hex): its `TransactionDeposited` logs are the user deposits. */
  portal: string;
  /** SystemConfig on L1 (0x-hex): its `ConfigUpdate` logs change the rollup's system config. */
  systemConfig: string;
  /** The batcher's address (0x-hex): the genesis system config's batcher. */
  batcher: string;
  /** The batch inbox address on L1 (0x-hex). */
  batchInbox: string;
  /** Seconds between L2 blocks; default {@link DEVNET_ROLLUP_BLOCK_TIME_S}. */
  blockTime?: bigint;
  /** Sequencing window in L1 blocks; default {@link DEVNET_ROLLUP_SEQ_WINDOW_SIZE}. */
  seqWindowSize?: bigint;
  /** Pre-Fjord drift (seconds); default {@link DEVNET_ROLLUP_MAX_SEQUENCER_DRIFT_S} (1,800 applies from Fjord, active at genesis). */
  maxSequencerDrift?: bigint;
  /** Pre-Granite channel timeout (L1 blocks); default {@link DEVNET_ROLLUP_CHANNEL_TIMEOUT}. */
  channelTimeout?: bigint;
  /** Granite channel timeout (L1 blocks); default {@link DEVNET_ROLLUP_CHANNEL_TIMEOUT_GRANITE}. */
  channelTimeoutGranite?: bigint;
}

/** A 20-byte address as lowercase 0x-hex, or a {@link RollupConfigError} naming `field`. */
function address(field: string, v: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(v)) throw new RollupConfigError(field, `local rollup ${field} ${JSON.stringify(v)} is not an address: expected 0x and 40 hex digits`);
  return v.toLowerCase();
}

/** A 32-byte hash as lowercase 0x-hex, or a {@link RollupConfigError} naming `field`. */
function hash(field: string, v: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(v)) throw new RollupConfigError(field, `local rollup ${field} ${JSON.stringify(v)} is not a hash: expected 0x and 64 hex digits`);
  return v.toLowerCase();
}

/**
 * The rollup configuration of a local rollup: the devnet's chain id, every OP fork the devnet
 * genesis activates (Regolith through Jovian) at 0, the devnet's EIP-1559 parameters, and a
 * genesis system config of the batcher, overhead 0, the devnet's Ecotone-encoded fee scalars
 * ({@link devnetSystemConfigScalar}) and the devnet gas limit. Write it with `rollupConfigJson`.
 * @throws RollupConfigError for an address or hash that is not one, or a block time of 0.
 */
export function devnetRollupConfig(p: DevnetRollupParams): RollupConfig {
  const genesis = devnetGenesis();
  const op = opConfigFromGenesisConfig(genesis.config as Record<string, unknown>)!;
  const blockTime = p.blockTime ?? DEVNET_ROLLUP_BLOCK_TIME_S;
  if (blockTime <= 0n) throw new RollupConfigError("block_time", `local rollup block time ${blockTime} s: expected at least 1 second`);
  return {
    chainId: DEVNET_CHAIN_ID,
    l1ChainId: p.l1ChainId,
    blockTime,
    seqWindowSize: p.seqWindowSize ?? DEVNET_ROLLUP_SEQ_WINDOW_SIZE,
    maxSequencerDrift: p.maxSequencerDrift ?? DEVNET_ROLLUP_MAX_SEQUENCER_DRIFT_S,
    channelTimeout: p.channelTimeout ?? DEVNET_ROLLUP_CHANNEL_TIMEOUT,
    channelTimeoutGranite: p.channelTimeoutGranite ?? DEVNET_ROLLUP_CHANNEL_TIMEOUT_GRANITE,
    batchInboxAddress: address("batch_inbox_address", p.batchInbox),
    depositContractAddress: address("deposit_contract_address", p.portal),
    l1SystemConfigAddress: address("l1_system_config_address", p.systemConfig),
    forkTimes: { ...op.forkTimes },
    eip1559: { eip1559Elasticity: op.eip1559Elasticity, eip1559Denominator: op.eip1559Denominator, eip1559DenominatorCanyon: op.eip1559DenominatorCanyon },
    genesis: {
      l1: { hash: hash("genesis.l1.hash", p.l1Anchor.hash), number: p.l1Anchor.number },
      l2: { hash: hash("genesis.l2.hash", p.l2GenesisHash), number: 0n },
      l2Time: p.l1Anchor.timestamp,
      systemConfig: {
        batcherAddress: address("genesis.system_config.batcherAddr", p.batcher),
        overhead: ZERO_OVERHEAD,
        scalar: devnetSystemConfigScalar(),
        gasLimit: DEVNET_GAS_LIMIT,
      },
    },
  };
}
