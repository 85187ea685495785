/**
 * op-node's "light" peer scoring (`--p2p.scoring=light`, its default) for gossipsub:
 * op-node/p2p/peer_params.go `LightPeerScoreParams` and `NewPeerScoreThresholds`, with the slot
 * being the chain's block time (2 s when unknown). Times are milliseconds here (gossipsub-js).
 *
 * Topic parameters as op-node's current version gives every blocks topic (v1..v4).
 */
import type { PeerScoreParams, PeerScoreThresholds, TopicScoreParams } from "@chainsafe/libp2p-gossipsub/score";
import { P2P_SCORE_DEFAULT_SLOT_S } from "../constants.js";

/** op-node's DecayToZero. */
const DECAY_TO_ZERO = 0.01;

/** op-node's ScoreDecay: the factor that decays a value to DecayToZero over `durationMs` in `slotMs` steps. */
export function scoreDecay(durationMs: number, slotMs: number): number {
  const times = Math.floor(durationMs / slotMs);
  return Math.pow(DECAY_TO_ZERO, 1 / times);
}

/**
 * go-libp2p-pubsub's `ScoreParameterDecay(d)`: the factor that decays a value to DecayToZero over
 * `d` with the library's default 1 s decay interval (op-node passes that value as is).
 */
function scoreParameterDecay(durationMs: number): number {
  return Math.pow(DECAY_TO_ZERO, 1 / Math.floor(durationMs / 1000));
}

/**
 * The topic parameters of each blocks topic (op-node's current `LightPeerScoreParams`, the same for
 * v1..v4): first deliveries rewarded, invalid messages punished hard (-1000, decaying over an hour),
 * and no mesh-delivery penalties — a peer downstream of us never delivers first, and penalizing that
 * pushed relay-only peers out of the mesh and below the gossip threshold (blocks then stopped reaching
 * them for seconds; an older op-node had those penalties on the v1 topic).
 */
function blocksTopicScoreParams(): TopicScoreParams {
  return {
    topicWeight: 0.1,
    timeInMeshWeight: 0.00027,
    timeInMeshQuantum: 1_000,
    timeInMeshCap: 1,
    firstMessageDeliveriesWeight: 5,
    firstMessageDeliveriesDecay: scoreParameterDecay(3_600_000),
    firstMessageDeliveriesCap: 100,
    meshMessageDeliveriesWeight: 0,
    meshMessageDeliveriesDecay: 0,
    meshMessageDeliveriesCap: 0,
    meshMessageDeliveriesThreshold: 0,
    meshMessageDeliveriesWindow: 0,
    meshMessageDeliveriesActivation: 0,
    meshFailurePenaltyWeight: 0,
    meshFailurePenaltyDecay: 0,
    invalidMessageDeliveriesWeight: -1000,
    invalidMessageDeliveriesDecay: scoreParameterDecay(3_600_000),
  };
}

/** The peer score parameters over `topics` (all blocks topics), with the application score function. */
export function peerScoreParams(topics: readonly string[], blockTimeS: number | undefined, appSpecificScore: (peerId: string) => number): PeerScoreParams {
  const slot = (blockTimeS !== undefined && blockTimeS > 0 ? blockTimeS : P2P_SCORE_DEFAULT_SLOT_S) * 1000;
  const epoch = 6 * slot;
  const topicParams = blocksTopicScoreParams();
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
