/**
 * The OP Stack block gossip topics (specs protocol/rollup-node-p2p.md "Gossip Topics"; op-node
 * `eth.BlockVersion.BlocksTopic`, base/base `BlockHandler::topic`): one topic per payload
 * version, `/optimism/<chainId decimal>/<version − 1>/blocks`, and the version a block belongs to
 * by the fork active at its timestamp.
 */
import { OpFork, opForkAt, type OpForkSchedule } from "../../chain/op/forks.js";

/**
 * Payload version of a gossiped block: 1 Bedrock (no withdrawals), 2 Canyon (empty withdrawals),
 * 3 Ecotone (blob gas fields, signed together with the parent beacon block root), 4 Isthmus
 * (plus the payload's `withdrawalsRoot`).
 */
export type BlocksVersion = 1 | 2 | 3 | 4;

/** Every {@link BlocksVersion}, oldest first (a node subscribes to all of them, as op-node does). */
export const BLOCKS_VERSIONS: readonly BlocksVersion[] = [1, 2, 3, 4];

/**
 * The gossip topic of `version` blocks on chain `chainId`: `/optimism/<chainId>/0/blocks` for v1
 * up to `/optimism/<chainId>/3/blocks` for v4.
 */
export function blocksTopic(chainId: bigint, version: BlocksVersion): string {
  return `/optimism/${chainId.toString(10)}/${version - 1}/blocks`;
}

/**
 * The version of the block at `timestamp` (op-node `SingleChainGossip.BlockVersion`): v4 from
 * Isthmus, v3 from Ecotone, v2 from Canyon, else v1. Accepts a rollup config or any object with
 * the OP fork times.
 */
export function blocksVersionAt(rollup: OpForkSchedule, timestamp: bigint): BlocksVersion {
  const fork = opForkAt(rollup, timestamp);
  if (fork >= OpFork.isthmus) return 4;
  if (fork >= OpFork.ecotone) return 3;
  if (fork >= OpFork.canyon) return 2;
  return 1;
}

/** The {@link BlocksVersion} a topic string names on chain `chainId`, or undefined for any other topic. */
export function blocksVersionOfTopic(chainId: bigint, topic: string): BlocksVersion | undefined {
  for (const v of BLOCKS_VERSIONS) if (blocksTopic(chainId, v) === topic) return v;
  return undefined;
}
