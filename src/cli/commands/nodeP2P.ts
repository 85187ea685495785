/**
 * `basalt node`'s consensus-layer P2P (op-node's gossip of unsafe blocks): starts the P2P thread
 * ({@link P2PService}), and on this thread
 * - a sequencing node publishes every block it seals, signed with `--p2p.sequencer.key` (the
 *   devnet's account 8 key by default on the devnet);
 * - any other node imports the blocks gossip delivers ({@link GossipImporter}), closing gaps by
 *   `payload_by_number` from peers;
 * - every node answers its peers' `payload_by_number` from its canonical chain;
 * - the unsafe block signer comes from the chain's known signer, or from L1's SystemConfig when an
 *   L1 RPC and a rollup config are given ({@link L1SignerWatcher}).
 */
import type { Block } from "@ethereumjs/block";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import type { RollupConfig } from "../../chain/op/rollupConfig.js";
import type { BasaltOptions } from "../../config/options.js";
import { parseSecp256k1Key } from "../../p2p/cl/nodeKey.js";
import { p2pServiceOptions } from "../../p2p/options.js";
import { envelopeFromBlock, envelopeToEnginePayloadJson } from "../../p2p/gossip/envelope.js";
import { decodeSignedBytes } from "../../p2p/gossip/ssz.js";
import { blocksVersionAt, type BlocksVersion } from "../../p2p/gossip/topics.js";
import { GossipImporter } from "../../p2p/gossipImport.js";
import { P2PService, type P2PSelf } from "../../p2p/service.js";
import { devnetSequencerKey, knownUnsafeBlockSigner, L1SignerWatcher } from "../../p2p/unsafeSigner.js";
import { blockFromOpPayload } from "../../rpc/methods/engineOp.js";
import { DEVNET_CHAIN_ID } from "../../chain/constants.js";
import { keccak256 } from "../../util/keccak.js";
import { to0x } from "../../util/bytes.js";

/** The running P2P side of a node. */
interface NodeP2P {
  service: P2PService;
  /** Imports gossip blocks (nodes that do not sequence). */
  importer: GossipImporter | undefined;
  /** Publishes a block this node sealed (sequencing nodes; a no-op otherwise). */
  publishBlock(block: Block): void;
  self(): P2PSelf;
  /** Starts the P2P thread (listening, discovery) and the L1 signer watcher. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What the node decided before P2P starts. */
interface NodeP2PContext {
  datadir: string;
  /** This node seals blocks (devnet with a block time, or `--sequencer`). */
  sequencing: boolean;
  rollupConfig: RollupConfig | undefined;
  log: Logger;
}

function addressOf(key: Uint8Array): Uint8Array {
  return keccak256(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12);
}

/** Sets up P2P for an OP chain unless `--p2p.disable` (undefined when off); nothing listens before `start()`. */
export function nodeP2P(opts: BasaltOptions, chain: Chain, ctx: NodeP2PContext): NodeP2P | undefined {
  const op = chain.op;
  if (op === undefined) return undefined;
  const blockTimeS = ctx.rollupConfig === undefined ? undefined : Number(ctx.rollupConfig.blockTime);
  const known = knownUnsafeBlockSigner(chain.chainId);
  const base = p2pServiceOptions(opts, { chainId: chain.chainId, rollup: op, blockTimeS, signer: known });
  if (base === undefined) return undefined;
  const log = ctx.log.child({ subsystem: "p2p" });
  // Only a sequencing node signs; the devnet signs with its known key unless --p2p.sequencer.key says otherwise.
  const devKey = chain.chainId === DEVNET_CHAIN_ID && ctx.sequencing ? parseSecp256k1Key(devnetSequencerKey(), "the devnet sequencer key") : undefined;
  const sequencerKey = ctx.sequencing ? (base.sequencerKey ?? devKey) : undefined;
  if (ctx.sequencing && sequencerKey === undefined) log.warn("sequencing without --p2p.sequencer.key: blocks are not published on gossip");
  const signer = known ?? (sequencerKey === undefined ? undefined : addressOf(sequencerKey));
  if (sequencerKey !== undefined && signer !== undefined && to0x(addressOf(sequencerKey)) !== to0x(signer)) {
    log.warn({ key: to0x(addressOf(sequencerKey)), signer: to0x(signer) }, "--p2p.sequencer.key is not the chain's unsafe block signer: peers will reject the blocks it signs");
  }
  const service = new P2PService({ ...base, sequencerKey, signer }, log);
  const versionAt = (timestamp: bigint): BlocksVersion => blocksVersionAt(op, timestamp);
  // Peers' payload_by_number: the canonical block at that height.
  service.setPayloadSource(async (n) => {
    const block = chain.getBlockByNumber(n);
    if (block === undefined) return undefined;
    const version = versionAt(block.header.timestamp);
    return { version, payloadBytes: envelopeFromBlock(block, version) };
  });
  const importer = ctx.sequencing
    ? undefined
    : new GossipImporter(chain, {
        toBlock: (version, bytes) => blockFromOpPayload(chain, envelopeToEnginePayloadJson(decodeSignedBytes(version as BlocksVersion, bytes))),
        fetchByNumber: async (n) => {
          const got = await service.fetchPayloadByNumber(n);
          return { version: got.version, payloadBytes: got.payloadBytes };
        },
        logger: log,
      });
  if (importer !== undefined) service.onBlock((b) => importer.receive(b));
  // A custom chain with an L1: the signer SystemConfig names (read again every reload interval).
  const l1Rpc = opts["l1.rpc"];
  const watcher =
    l1Rpc !== undefined && ctx.rollupConfig !== undefined && knownUnsafeBlockSigner(chain.chainId) === undefined
      ? new L1SignerWatcher(l1Rpc, ctx.rollupConfig.l1SystemConfigAddress, (a) => service.setSigner(a), log)
      : undefined;
  return {
    service,
    importer,
    publishBlock: (block) => {
      if (sequencerKey === undefined) return;
      const version = versionAt(block.header.timestamp);
      service.publish(version, envelopeFromBlock(block, version)).catch((e: unknown) => log.debug({ err: e, number: block.header.number.toString() }, "gossip publish failed"));
    },
    self: () => service.self(),
    start: async () => {
      await service.start();
      await watcher?.start();
    },
    stop: async () => {
      watcher?.stop();
      await importer?.stop();
      await service.stop();
    },
  };
}

