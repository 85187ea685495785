/**
 * op-node's application score of a peer: how its payload_by_number answers went
 * (op-node/p2p/app_scores.go, app_params.go `LightApplicationScoreParams`). Valid responses add
 * (weight 0.5, cap 10), error responses subtract (weight -1, cap 9), rejected payloads subtract
 * hard (weight -20, cap 20); each count decays to zero over ten epochs, one step per slot.
 * gossipsub adds the score to the peer's total (`appSpecificScore`, weight 1).
 */
import { scoreDecay } from "./peerScoring.js";
import { P2P_SCORE_DEFAULT_SLOT_S } from "../constants.js";

/** A peer's req/resp counts, op-node's `ReqRespScores` JSON. */
export interface ReqRespScores {
  validResponses: number;
  errorResponses: number;
  rejectedPayloads: number;
}

const VALID = { cap: 10, weight: 0.5 };
const ERROR = { cap: 9, weight: -1 };
const REJECTED = { cap: 20, weight: -20 };
const DECAY_TO_ZERO = 0.01;

/** See the module comment. Bounded: peers are forgotten once every count decays to zero. */
export class AppScores {
  private readonly peers = new Map<string, ReqRespScores>();
  private readonly decay: number;
  /** Milliseconds between decay steps (one slot). */
  readonly intervalMs: number;

  constructor(blockTimeS: number | undefined) {
    const slot = (blockTimeS !== undefined && blockTimeS > 0 ? blockTimeS : P2P_SCORE_DEFAULT_SLOT_S) * 1000;
    this.intervalMs = slot;
    this.decay = scoreDecay(10 * 6 * slot, slot);
  }

  private rec(peer: string): ReqRespScores {
    let r = this.peers.get(peer);
    if (r === undefined) {
      r = { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 };
      this.peers.set(peer, r);
    }
    return r;
  }

  /** A peer answered a request with a valid payload. */
  onValidResponse(peer: string): void {
    const r = this.rec(peer);
    r.validResponses = Math.min(r.validResponses + 1, VALID.cap);
  }

  /** A peer answered with an error code, broke the stream, or timed out. */
  onResponseError(peer: string): void {
    const r = this.rec(peer);
    r.errorResponses = Math.min(r.errorResponses + 1, ERROR.cap);
  }

  /** A peer's payload failed validation (wrong number, bad hash, undecodable). */
  onRejectedPayload(peer: string): void {
    const r = this.rec(peer);
    r.rejectedPayloads = Math.min(r.rejectedPayloads + 1, REJECTED.cap);
  }

  /** The counts of a peer (zeros when unknown). */
  scores(peer: string): ReqRespScores {
    return { ...(this.peers.get(peer) ?? { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 }) };
  }

  /** The weighted score gossipsub adds. */
  score(peer: string): number {
    const r = this.peers.get(peer);
    if (r === undefined) return 0;
    return r.validResponses * VALID.weight + r.errorResponses * ERROR.weight + r.rejectedPayloads * REJECTED.weight;
  }

  /** One decay step (call every {@link intervalMs}). */
  decayAll(): void {
    const d = (v: number): number => {
      const x = v * this.decay;
      return x < DECAY_TO_ZERO ? 0 : x;
    };
    for (const [peer, r] of this.peers) {
      r.validResponses = d(r.validResponses);
      r.errorResponses = d(r.errorResponses);
      r.rejectedPayloads = d(r.rejectedPayloads);
      if (r.validResponses === 0 && r.errorResponses === 0 && r.rejectedPayloads === 0) this.peers.delete(peer);
    }
  }
}
