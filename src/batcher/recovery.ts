/**
 * When the batcher must start over from the safe head because derivation will not (or did not)
 * take what it posted — the two rules that depend on channel timeouts (op-batcher's channel
 * manager: a timed-out channel is rebuilt; its driver: a safe head that stops moving means the
 * data must be posted again). The other reasons (an L2 reorg, an L1 reorg, a failed transaction)
 * are events, decided where they are seen.
 */
import { channelTimeout, type ChannelRules } from "../derivation/channelAssembler.js";

/** A posted channel as the rules see it: its transactions' inclusion blocks (undefined: not included yet). */
export interface PostedChannel {
  /** One entry per transaction the channel needs, sent or not. */
  inclusions: ({ number: bigint } | undefined)[];
  /** Its last L2 block. */
  lastBlock: bigint;
  /** Whether every transaction is confirmed. */
  confirmed: boolean;
}

/**
 * Whether `ch` can no longer be assembled by derivation (Holocene channel assembler): its first
 * transaction was included at L1 block F, and at L1 block `l1Head` (time `l1Time`) — past
 * F + the channel timeout — some transaction still is not.
 */
export function channelTimedOut(ch: PostedChannel, l1Head: bigint, l1Time: bigint, rules: ChannelRules): boolean {
  let first: bigint | undefined;
  let all = true;
  for (const inc of ch.inclusions) {
    if (inc === undefined) all = false;
    else if (first === undefined || inc.number < first) first = inc.number;
  }
  return !all && first !== undefined && l1Head > first + channelTimeout(rules, l1Time);
}

/** What the stall rule looks at. */
interface StallView {
  /** Whether the safe head is known to follow L1 here (it moved while the batcher ran, or was past genesis at start). */
  armed: boolean;
  /** The safe head's number. */
  safe: bigint;
  /** The L1 head when the safe head last moved (or when the batcher started over). */
  safeMovedAtL1: bigint;
  /** Posted channels in order. */
  channels: readonly PostedChannel[];
  l1Head: bigint;
  l1Time: bigint;
  /** How far derivation on this node has read L1 (op-node's sync status `current_l1`), when known. */
  derivedL1?: bigint;
}

/**
 * Whether derivation dropped something: the channel right after the safe head is confirmed, yet
 * its blocks are not safe. With derivation's L1 position known (op-batcher's rule in
 * `computeSyncActions`: "sequencer did not make expected progress"), as soon as derivation has
 * read past the channel's last inclusion; without it, once neither that inclusion nor the last move
 * of the safe head is within a channel timeout of the L1 head, and only while `armed`. Measured
 * from the first channel past the safe head, not from the last posted: channels keep landing after
 * a dropped one, and none of them can be derived before it.
 */
export function safeHeadStalled(v: StallView, rules: ChannelRules): boolean {
  const next = v.channels.find((c) => c.lastBlock > v.safe);
  if (next === undefined || !next.confirmed) return false;
  let landed = 0n;
  for (const inc of next.inclusions) if (inc !== undefined && inc.number > landed) landed = inc.number;
  if (v.derivedL1 !== undefined) return v.derivedL1 > landed;
  if (!v.armed) return false;
  return v.l1Head > (landed > v.safeMovedAtL1 ? landed : v.safeMovedAtL1) + channelTimeout(rules, v.l1Time);
}
