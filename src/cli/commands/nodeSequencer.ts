/**
 * What `basalt node` sequences with (`--sequencer`, `--rollup.config`, `--l1.rpc`,
 * `--sequencer.l1-confs`): nothing, the built-in devnet's simulated L1, or a real L1 for a custom
 * OP chain with a rollup config. Read before any server starts, so a wrong combination or an L1
 * of another chain refuses the start with its reason.
 */
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import { rollupConfigForChain, type RollupConfig } from "../../chain/op/rollupConfig.js";
import type { BasaltOptions } from "../../config/options.js";
import { L1Source } from "../../derivation/l1Source.js";
import { L1RpcOrigins } from "../../sequencer/l1RpcOrigins.js";
import { HttpRpcClient } from "../../util/rpcClient.js";
import { to0x } from "../../util/bytes.js";
import { CliError } from "../args.js";

/** How the node sequences. */
export interface NodeSequencing {
  /** Blocks are produced locally. */
  sequencing: boolean;
  /** The `--rollup.config` of the chain, when given. */
  rollupConfig?: RollupConfig;
  /** With a real L1: the origin source the sequencer runs on, and the L1 client to close at shutdown. */
  l1?: { origins: L1RpcOrigins; client: HttpRpcClient };
}

/** A combination of options the node cannot sequence with. */
function invalid(option: string, expected: string, message: string): CliError {
  return new CliError({ code: "CLI_INVALID_VALUE", option, expected }, `${option}: ${message}`);
}

/**
 * Decides how the node sequences (see the module comment): `--sequencer` defaults to on for the
 * built-in devnet; a follower never sequences; on any other chain `--sequencer` needs
 * `--rollup.config` (for this chain and genesis) and `--l1.rpc` answering the rollup's L1 chain id.
 * @throws CliError (CLI_INVALID_VALUE) naming the option at fault; RollupConfigError for a rollup config that does not read or fit the chain.
 */
export async function nodeSequencing(opts: BasaltOptions, chain: Chain, o: { isDevChain: boolean; following: boolean; log: Logger }): Promise<NodeSequencing> {
  const file = opts["rollup.config"];
  const rollupConfig = file === undefined ? undefined : rollupConfigForChain(chain.chainId, to0x(chain.genesisHash), file);
  const wanted = opts.sequencer ?? (o.isDevChain && !o.following);
  if (!wanted) return { sequencing: false, rollupConfig };
  if (o.following) throw invalid("--sequencer", "no --follow-rpc", "a node following another (--follow-rpc) does not sequence; drop one of the two");
  if (chain.op === undefined) throw invalid("--sequencer", "an OP Stack chain", `chain ${chain.chainId} is not an OP Stack chain`);
  if (rollupConfig === undefined) {
    if (o.isDevChain) return { sequencing: true };
    throw invalid("--sequencer", "the built-in devnet, or --rollup.config with --l1.rpc", `chain ${chain.chainId} is not the built-in devnet: sequencing it needs its rollup config (--rollup.config) and its L1 (--l1.rpc)`);
  }
  const url = opts["l1.rpc"];
  if (url === undefined) throw invalid("--sequencer", "--l1.rpc with --rollup.config", `sequencing with --rollup.config ${file} needs the rollup's L1: set --l1.rpc`);
  const client = new HttpRpcClient(url);
  try {
    const l1 = new L1Source(client, { l1ChainId: rollupConfig.l1ChainId, batchInbox: rollupConfig.batchInboxAddress });
    const l1ChainId = await l1.chainId();
    if (l1ChainId !== rollupConfig.l1ChainId) throw invalid("--l1.rpc", `an L1 of chain ${rollupConfig.l1ChainId}`, `${client.endpoint} serves chain ${l1ChainId}, but the rollup config names L1 chain ${rollupConfig.l1ChainId}`);
    const origins = new L1RpcOrigins({ rollup: rollupConfig, l1, confs: opts["sequencer.l1-confs"], log: o.log });
    return { sequencing: true, rollupConfig, l1: { origins, client } };
  } catch (e) {
    client.close();
    throw e;
  }
}
