/**
 * The blocks topics on gossipsub (op-node/p2p/gossip.go `JoinGossip`, `BuildBlocksValidator`,
 * `PublishL2Payload`): subscribes to v1..v4 of the chain, validates every message with the gossip
 * library's `BlockGossipValidator` and reports accept / reject / ignore to gossipsub (which scores
 * the sender and relays only accepted messages), hands accepted blocks on, and signs and publishes
 * the sequencer's blocks. Every message is caught: a message that throws in validation is rejected
 * (op-node's `guardGossipValidator` does the same on a panic).
 */
import type { GossipSub, GossipsubMessage } from "@chainsafe/libp2p-gossipsub";
import type { Logger } from "pino";
import { TopicValidatorResult } from "@libp2p/interface";
import { encodeBlockMessage } from "../gossip/message.js";
import { signBlockPayload } from "../gossip/signing.js";
import { BLOCKS_VERSIONS, blocksTopic, blocksVersionOfTopic, type BlocksVersion } from "../gossip/topics.js";
import type { OpForkSchedule } from "../../chain/op/forks.js";
import { BlockGossipValidator } from "../gossip/validate.js";
import { P2PError, P2PErrorCode } from "../errors.js";
import type { P2PStats } from "./stats.js";

/** An accepted block as it goes to the main thread. */
export interface AcceptedBlock {
  version: BlocksVersion;
  payloadBytes: Uint8Array;
  from: string;
  receivedAtMs: number;
}

/** What {@link BlockGossip} needs. */
interface BlockGossipOptions {
  pubsub: GossipSub;
  chainId: bigint;
  /** OP fork times (the validator needs Jovian's). */
  rollup: OpForkSchedule;
  /** The current unsafe-block signer (20 bytes), undefined when none is configured. */
  signer: () => Uint8Array | undefined;
  sequencerKey?: Uint8Array;
  onBlock: (b: AcceptedBlock) => void;
  stats: P2PStats;
  log: Logger;
}

/** See the module comment. */
export class BlockGossip {
  readonly topics: readonly string[];
  private readonly validator: BlockGossipValidator;
  private readonly onMessage = (e: CustomEvent<GossipsubMessage>): void => this.handle(e.detail);

  constructor(private readonly o: BlockGossipOptions) {
    this.topics = BLOCKS_VERSIONS.map((v) => blocksTopic(o.chainId, v));
    this.validator = new BlockGossipValidator({ chainId: o.chainId, rollup: o.rollup, signer: o.signer });
  }

  /** The topics of all block versions, for the host's allow-list and scoring. */
  static topicsOf(chainId: bigint): string[] {
    return BLOCKS_VERSIONS.map((v) => blocksTopic(chainId, v));
  }

  /** Subscribes to every blocks topic. */
  start(): void {
    this.o.pubsub.addEventListener("gossipsub:message", this.onMessage);
    for (const t of this.topics) this.o.pubsub.subscribe(t);
  }

  stop(): void {
    this.o.pubsub.removeEventListener("gossipsub:message", this.onMessage);
    for (const t of this.topics) this.o.pubsub.unsubscribe(t);
  }

  private handle(m: GossipsubMessage): void {
    const from = m.propagationSource.toString();
    const version = blocksVersionOfTopic(this.o.chainId, m.msg.topic);
    let result: TopicValidatorResult = TopicValidatorResult.Reject;
    let label = "reject";
    let reason = "unknownTopic";
    let accepted: AcceptedBlock | undefined;
    try {
      if (version !== undefined) {
        const v = this.validator.validate(version, m.msg.data, Math.floor(Date.now() / 1000));
        reason = v.reason;
        label = v.result;
        result = v.result === "accept" ? TopicValidatorResult.Accept : v.result === "ignore" ? TopicValidatorResult.Ignore : TopicValidatorResult.Reject;
        if (v.result === "accept" && v.block !== undefined) {
          accepted = { version, payloadBytes: v.block.payloadBytes, from, receivedAtMs: Date.now() };
        }
      }
    } catch (e) {
      this.o.log.debug({ err: e, peer: from }, "gossip validation threw; rejected");
      result = TopicValidatorResult.Reject;
      label = "reject";
      reason = "validatorError";
    }
    this.o.stats.inc("gossip_messages", { version: version === undefined ? "unknown" : `v${version}`, result: label, reason });
    this.o.log.debug({ peer: from, topic: m.msg.topic, result: label, reason }, "gossip block validated");
    try {
      this.o.pubsub.reportMessageValidationResult(m.msgId, from, result);
    } catch (e) {
      this.o.log.debug({ err: e }, "gossip validation result not reported");
    }
    if (accepted !== undefined) this.o.onBlock(accepted);
  }

  /** Signs `payloadBytes` with the sequencer key and publishes it on the version's topic. */
  async publish(version: BlocksVersion, payloadBytes: Uint8Array): Promise<number> {
    const key = this.o.sequencerKey;
    if (key === undefined) throw new P2PError({ code: P2PErrorCode.NO_SIGNER }, "cannot publish a block: no --p2p.sequencer.key is configured");
    const signature = signBlockPayload(key, this.o.chainId, payloadBytes);
    const data = encodeBlockMessage(version, signature, payloadBytes);
    const res = await this.o.pubsub.publish(blocksTopic(this.o.chainId, version), data);
    this.o.stats.inc("gossip_published", { version: `v${version}` });
    return res.recipients.length;
  }

  /** Peers subscribed to the topic of `version`. */
  topicPeers(version: BlocksVersion): string[] {
    return this.o.pubsub.getSubscribers(blocksTopic(this.o.chainId, version)).map((p) => p.toString());
  }

  /** Peers subscribed to any blocks topic. */
  allTopicPeers(): Set<string> {
    const s = new Set<string>();
    for (const v of BLOCKS_VERSIONS) for (const p of this.topicPeers(v)) s.add(p);
    return s;
  }
}
