/**
 * The method table of the consensus-side RPC port (`--rollup.port`, 7545 by default; the port
 * Base's docs check sync on): optimism_syncStatus, optimism_outputAtBlock, optimism_rollupConfig,
 * optimism_version, healthz, and optimism_safeHeadAtL1Block (refused, as Base does). Names and
 * shapes follow base/base `crates/consensus/rpc/src/{jsonrpsee,rollup,output,health}.rs`.
 */
import type { Chain } from "../blockchain/chain.js";
import { parseBlockParam, resolveBlock } from "../rpc/blockParam.js";
import { MethodNotFoundError, ServerError } from "../rpc/errors.js";
import { maxParams, required } from "../rpc/params.js";
import type { MethodTable } from "../rpc/types.js";
import type { RollupConfig } from "../chain/op/rollupConfig.js";
import { l2RefOf, type L1BlockRefJson } from "./blockRefs.js";
import { blockOutputOf } from "./outputRoot.js";
import { builtinNetworkOf, rollupConfigOf, rollupGenesisL1, type RollupIdentity } from "./rollupConfig.js";
import { syncStatusOf, type DerivationL1Status, type SyncStatusJson } from "./syncStatus.js";

/** What the rollup methods read. */
export interface RollupMethodsOptions {
  chain: Chain;
  /** basalt's version ("0.1.0"), answered by optimism_version and healthz. */
  version: string;
  /** The chain is the built-in devnet. */
  devnet: boolean;
  /** This node sequences the devnet itself (its simulated L1 then fills `head_l1`/`current_l1`); false in follow mode. */
  sequencing: boolean;
  /** Devnet block time (`--dev.block-time`), reported as `block_time` when > 0. */
  devBlockTime?: number;
  /** The `--rollup.config` of a custom chain: `optimism_rollupConfig` answers it, its `genesis.l1` is the genesis's origin. */
  rollupConfig?: RollupConfig;
  /** A sequencer with a real L1: the head's origin as read from it, reported as `head_l1`/`current_l1` (without derivation). */
  l1Origin?: () => L1BlockRefJson | undefined;
  /** L1 derivation's status, when it runs (`--l1.rpc`). */
  derivation?: () => DerivationL1Status;
}

/** Handlers of the consensus-side RPC (an OP chain only). */
export function rollupMethods(o: RollupMethodsOptions): MethodTable {
  const { chain } = o;
  const id: RollupIdentity = { network: builtinNetworkOf(chain), devnet: o.devnet, devBlockTime: o.devBlockTime, config: o.rollupConfig };
  const genesisL1 = rollupGenesisL1(id);
  const status = (): SyncStatusJson => syncStatusOf({ chain, genesisL1, simulatedL1: o.devnet && o.sequencing, l1Origin: o.l1Origin, derivation: o.derivation });
  let config: Record<string, unknown> | undefined;
  return {
    /** optimism_syncStatus(): L1/L2 heads in op-node's shape (see src/rollup/syncStatus.ts for each field's source). */
    optimism_syncStatus: () => status(),
    /**
     * optimism_outputAtBlock(blockNumberOrTag): the v0 output root of a block with its reference,
     * withdrawal storage root, state root and the current sync status.
     */
    optimism_outputAtBlock: (params) => {
      maxParams(params, 1);
      const block = resolveBlock(chain, parseBlockParam(required(params, 0), 0));
      if (block === undefined) {
        throw new ServerError(`block ${String(params[0])} not found: expected a block at or below the head ${chain.head.header.number}`);
      }
      const out = blockOutputOf(chain, block);
      return {
        version: out.version,
        outputRoot: out.outputRoot,
        blockRef: l2RefOf(block, genesisL1),
        withdrawalStorageRoot: out.withdrawalStorageRoot,
        stateRoot: out.stateRoot,
        syncStatus: status(),
      };
    },
    /** optimism_rollupConfig(): the op-node-style rollup config (`--rollup.config`'s values; otherwise fields basalt does not know are omitted). */
    optimism_rollupConfig: () => (config ??= rollupConfigOf(chain, id)),
    /** optimism_version(): basalt's version. */
    optimism_version: () => o.version,
    /** healthz(): `{"version": "x.y.z"}` (base/base `health.rs`). */
    healthz: () => ({ version: o.version }),
    /** optimism_safeHeadAtL1Block: not served (-32601), as in Base (no safe-head database). */
    optimism_safeHeadAtL1Block: () => {
      throw new MethodNotFoundError("optimism_safeHeadAtL1Block");
    },
  };
}
