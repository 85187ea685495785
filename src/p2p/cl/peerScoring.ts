/**
 * op-node's "light" peer scoring (`--p2p.scoring=light`, its default) for gossipsub:
 * op-node/p2p/peer_params.go `LightPeerScoreParams` and `NewPeerScoreThresholds`, with the slot
 * being the chain's block time (2 s when unknown). Times are milliseconds here (gossipsub-js).
 *
 * Deviation: op-node gives topic parameters to the v1 blocks topic only (its params map names
 * `blocksTopicV1`), so invalid messages on the v2..v4 topics are not scored there. basalt scores
 * every blocks topic with those parameters, since nearly all blocks now travel on v3/v4 and a peer
 * sending invalid blocks there must lose score.
 */
import type { PeerScoreParams, PeerScoreThresholds, TopicScoreParams } from "@chainsafe/libp2p-gossipsub/score";
import { P2P_SCORE_DEFAULT_SLOT_S } from "../../config/constants.js";

/** op-node's DecayToZero. */
const DECAY_TO_ZERO = 0.01;
/** op-node's MeshWeight (mesh delivery and failure penalties). */
const MESH_WEIGHT = -0.7;
/** op-node's MaxInMeshScore. */
const MAX_IN_MESH_SCORE = 10;
/** op-node's DecayEpoch (epochs). */
const DECAY_EPOCH = 5;

/** op-node's ScoreDecay: the factor that decays a value to DecayToZero over `durationMs` in `slotMs` steps. */
export function scoreDecay(durationMs: number, slotMs: number): number {
  const times = Math.floor(durationMs / slotMs);
  return Math.pow(DECAY_TO_ZERO, 1 / times);
}

/** The topic parameters of a blocks topic (op-node's v1 topic parameters). */
export function blocksTopicScoreParams(blockTimeS: number | undefined): TopicScoreParams {
  const slot = (blockTimeS !== undefined && blockTimeS > 0 ? blockTimeS : P2P_SCORE_DEFAULT_SLOT_S) * 1000;
  const epoch = 6 * slot;
  const inMeshCap = Math.floor(3_600_000 / slot);
  const slotsPerEpoch = Math.floor(epoch / slot);
  return {
    topicWeight: 0.8,
    timeInMeshWeight: MAX_IN_MESH_SCORE / inMeshCap,
    timeInMeshQuantum: slot,
    timeInMeshCap: inMeshCap,
    firstMessageDeliveriesWeight: 1,
    firstMessageDeliveriesDecay: scoreDecay(20 * epoch, slot),
    firstMessageDeliveriesCap: 23,
    meshMessageDeliveriesWeight: MESH_WEIGHT,
    meshMessageDeliveriesDecay: scoreDecay(DECAY_EPOCH * epoch, slot),
    meshMessageDeliveriesCap: slotsPerEpoch * DECAY_EPOCH,
    meshMessageDeliveriesThreshold: Math.floor((slotsPerEpoch * DECAY_EPOCH) / 10),
    meshMessageDeliveriesWindow: 2_000,
    meshMessageDeliveriesActivation: 4 * epoch,
    meshFailurePenaltyWeight: MESH_WEIGHT,
    meshFailurePenaltyDecay: scoreDecay(DECAY_EPOCH * epoch, slot),
    invalidMessageDeliveriesWeight: -140.4475,
    invalidMessageDeliveriesDecay: scoreDecay(50 * epoch, slot),
  };
}

/** The peer score parameters over `topics` (all blocks topics), with the application score function. */
export function peerScoreParams(topics: readonly string[], blockTimeS: number | undefined, appSpecificScore: (peerId: string) => number): PeerScoreParams {
  const slot = (blockTimeS !== undefined && blockTimeS > 0 ? blockTimeS : P2P_SCORE_DEFAULT_SLOT_S) * 1000;
  const epoch = 6 * slot;
  const topicParams = blocksTopicScoreParams(blockTimeS);
  return {
    topics: Object.fromEntries(topics.map((t) => [t, topicParams])),
    topicScoreCap: 34,
    appSpecificScore,
    appSpecificWeight: 1,
    IPColocationFactorWeight: -35,
    IPColocationFactorThreshold: 10,
    IPColocationFactorWhitelist: new Set(),
    behaviourPenaltyWeight: -16,
    behaviourPenaltyThreshold: 6,
    behaviourPenaltyDecay: scoreDecay(10 * epoch, slot),
    decayInterval: slot,
    decayToZero: DECAY_TO_ZERO,
    retainScore: 100 * epoch,
  };
}

/** op-node's NewPeerScoreThresholds. */
export const PEER_SCORE_THRESHOLDS: PeerScoreThresholds = {
  gossipThreshold: -10,
  publishThreshold: -40,
  graylistThreshold: -40,
  acceptPXThreshold: 20,
  opportunisticGraftThreshold: 0.05,
};
