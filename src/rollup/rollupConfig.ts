/**
 * `optimism_rollupConfig`: the op-node-style (snake_case) rollup configuration of the chain this
 * node serves, in base-consensus's field order (base/base `crates/consensus/genesis/src/rollup.rs`,
 * op-node `rollup/types.go`): `genesis{l1,l2,l2_time,system_config}`, `block_time`,
 * `max_sequencer_drift`, `seq_window_size`, `channel_timeout`, `granite_channel_timeout`,
 * `l1_chain_id`, `l2_chain_id`, the `*_time` fork fields, `batch_inbox_address`,
 * `deposit_contract_address`, `l1_system_config_address`, `protocol_versions_address`,
 * `superchain_config_address`, `chain_op_config`.
 *
 * Built from what basalt knows: the chain's OP config (fork times, EIP-1559 parameters), the
 * built-in network tables (Base mainnet / Sepolia: every field above) and, on the devnet, its
 * simulated L1 and constants. Values basalt does not know (derivation parameters and L1 addresses
 * of a custom genesis, the devnet's L1 chain id) are omitted rather than invented.
 */
import { toChecksumAddress } from "@ethereumjs/util";
import type { Chain } from "../blockchain/chain.js";
import { OP_FORK_NAMES, type OpForkName } from "../chain/op/forks.js";
import { opNetworkByChainId, type OpNetwork } from "../chain/op/networks.js";
import { rollupConfigJson, type RollupConfig } from "../chain/op/rollupConfig.js";
import { DEVNET_BATCHER_ADDRESS } from "../sequencer/constants.js";
import { DEVNET_GAS_LIMIT } from "../chain/constants.js";
import { devnetSystemConfigScalar } from "../chain/devnetRollup.js";
import { devL1BlockHash } from "../sequencer/opDevSequencer.js";
import { to0x } from "../util/bytes.js";
import { ZERO_HASH, type BlockIdJson } from "./blockRefs.js";

/** What identifies the rollup a node serves. */
export interface RollupIdentity {
  /** The built-in network (Base mainnet / Sepolia) whose chain id and genesis hash the chain has. */
  network?: OpNetwork;
  /** The built-in devnet (its genesis hash), whose L1 is simulated (src/sequencer/opDevSequencer.ts). */
  devnet: boolean;
  /** Devnet block time in seconds (`--dev.block-time`); 0 = blocks on demand. */
  devBlockTime?: number;
  /** The rollup configuration of `--rollup.config` (a custom chain): answered as the file has it. */
  config?: RollupConfig;
}

/** The built-in network of `chain`: same chain id AND the same genesis hash; undefined otherwise. */
export function builtinNetworkOf(chain: Chain): OpNetwork | undefined {
  const n = opNetworkByChainId(chain.chainId);
  return n !== undefined && n.genesisHash.toLowerCase() === to0x(chain.genesisHash) ? n : undefined;
}

/**
 * The L1 block the rollup genesis is anchored to: the `--rollup.config` file's `genesis.l1`, the
 * network table's on Base, simulated L1 block 0 on the devnet (the origin the devnet sequencer
 * starts from), else unknown.
 */
export function rollupGenesisL1(id: RollupIdentity): BlockIdJson | undefined {
  if (id.config !== undefined) return { hash: id.config.genesis.l1.hash.toLowerCase(), number: Number(id.config.genesis.l1.number) };
  if (id.network !== undefined) return { hash: id.network.genesis.l1.hash.toLowerCase(), number: Number(id.network.genesis.l1.number) };
  if (id.devnet) return { hash: to0x(devL1BlockHash(0n)), number: 0 };
  return undefined;
}

/** The devnet's Ecotone-encoded SystemConfig scalar (defined with the local rollup's genesis config, src/chain/devnetRollup.ts). */
export { devnetSystemConfigScalar };

/** A 32-byte quantity as a bytes32 hex string (SystemConfig overhead/scalar). */
function bytes32(hex: string): string {
  return "0x" + hex.replace(/^0x/i, "").toLowerCase().padStart(64, "0");
}

/** The `*_time` key of a fork in the rollup config (op-node naming; `azul_time` follows the same pattern for Base's Azul). */
function forkTimeKey(fork: Exclude<OpForkName, "bedrock">): string {
  return `${fork}_time`;
}

/**
 * The rollup configuration of `chain` as `optimism_rollupConfig` returns it. Fork times come from
 * the chain's own OP config (the genesis `config`), so they match what the node executes.
 * `pectra_blob_schedule_time` is written when the genesis config has `pectraBlobScheduleTime`.
 * A chain with a `--rollup.config` answers that file's values (`rollupConfigJson`).
 */
export function rollupConfigOf(chain: Chain, id: RollupIdentity): Record<string, unknown> {
  if (id.config !== undefined) return rollupConfigJson(id.config);
  const op = chain.op;
  const out: Record<string, unknown> = {};
  const genesisBlock = chain.getBlockByNumber(0n);
  const genesis: Record<string, unknown> = {};
  const l1 = rollupGenesisL1(id);
  if (l1 !== undefined) genesis.l1 = l1;
  genesis.l2 = { hash: to0x(chain.genesisHash), number: 0 };
  if (genesisBlock !== undefined) genesis.l2_time = Number(genesisBlock.header.timestamp);
  const n = id.network;
  if (n !== undefined) {
    genesis.system_config = {
      batcherAddr: toChecksumAddress(n.genesis.systemConfig.batcherAddress),
      overhead: bytes32(n.genesis.systemConfig.overhead),
      scalar: bytes32(n.genesis.systemConfig.scalar),
      gasLimit: Number(n.genesis.systemConfig.gasLimit),
    };
  } else if (id.devnet) {
    genesis.system_config = {
      batcherAddr: toChecksumAddress(DEVNET_BATCHER_ADDRESS),
      overhead: ZERO_HASH,
      scalar: devnetSystemConfigScalar(),
      gasLimit: Number(DEVNET_GAS_LIMIT),
    };
  }
  out.genesis = genesis;
  if (n !== undefined) out.block_time = Number(n.blockTime);
  else if (id.devnet && id.devBlockTime !== undefined && id.devBlockTime > 0) out.block_time = id.devBlockTime;
  if (n !== undefined) {
    out.max_sequencer_drift = Number(n.maxSequencerDrift);
    out.seq_window_size = Number(n.seqWindowSize);
    out.channel_timeout = Number(n.channelTimeout);
    out.granite_channel_timeout = Number(n.channelTimeoutGranite);
    out.l1_chain_id = Number(n.l1ChainId);
  }
  out.l2_chain_id = Number(chain.chainId);
  if (op !== undefined) {
    for (const fork of OP_FORK_NAMES) {
      if (fork === "bedrock") continue;
      const t = op.forkTimes[fork];
      if (t !== undefined) out[forkTimeKey(fork)] = Number(t);
      // op-node places the Pectra blob schedule fix between Holocene and Isthmus.
      if (fork === "holocene") {
        const p = (chain.genesis.config as Record<string, unknown>).pectraBlobScheduleTime;
        if (typeof p === "number" || typeof p === "string") out.pectra_blob_schedule_time = Number(p);
      }
    }
  }
  if (n !== undefined) {
    out.batch_inbox_address = toChecksumAddress(n.batchInboxAddress.toLowerCase());
    out.deposit_contract_address = toChecksumAddress(n.addresses.optimismPortalProxy.toLowerCase());
    out.l1_system_config_address = toChecksumAddress(n.addresses.systemConfigProxy.toLowerCase());
    out.protocol_versions_address = toChecksumAddress(n.addresses.protocolVersions.toLowerCase());
    out.superchain_config_address = toChecksumAddress(n.addresses.superchainConfig.toLowerCase());
  }
  if (op !== undefined) {
    out.chain_op_config = {
      eip1559Elasticity: op.eip1559Elasticity,
      eip1559Denominator: op.eip1559Denominator,
      eip1559DenominatorCanyon: op.eip1559DenominatorCanyon,
    };
  }
  return out;
}
