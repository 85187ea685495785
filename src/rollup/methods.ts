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
import { l2RefOf } from "./blockRefs.js";
import { blockOutputOf } from "./outputRoot.js";
import { builtinNetworkOf, rollupConfigOf, rollupGenesisL1, type RollupIdentity } from "./rollupConfig.js";
import { syncStatusOf, type DerivationL1Status, type SyncStatusJson } from "./syncStatus.js";
import { rollupConfigJson, type RollupConfig } from "../chain/op/rollupConfig.js";

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
  /** The rollup configuration of a custom chain (`--rollup.config`): answered by optimism_rollupConfig, its L1 anchor in block refs. */
  rollupConfig?: RollupConfig;
  /** L1 derivation's status, when it runs (`--l1.rpc`). */
  derivation?: () => DerivationL1Status;
}

/** Handlers of the consensus-side RPC (an OP chain only). */
export function rollupMethods(o: RollupMethodsOptions): MethodTable {
  const { chain } = o;
  const id: RollupIdentity = { network: builtinNetworkOf(chain), devnet: o.devnet, devBlockTime: o.devBlockTime };
  const custom = id.network === undefined ? o.rollupConfig : undefined;
  const genesisL1 = custom !== undefined ? { hash: custom.genesis.l1.hash.toLowerCase(), number: Number(custom.genesis.l1.number) } : rollupGenesisL1(id);
  const status = (): SyncStatusJson => syncStatusOf({ chain, genesisL1, simulatedL1: o.devnet && o.sequencing && o.rollupConfig === undefined, derivation: o.derivation });
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
    /** optimism_rollupConfig(): the op-node-style rollup config (fields basalt does not know are omitted). */
    optimism_rollupConfig: () => (config ??= custom !== undefined ? rollupConfigJson(custom) : rollupConfigOf(chain, id)),
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
