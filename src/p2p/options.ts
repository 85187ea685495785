/**
 * `--p2p.*` options → {@link P2PServiceOptions}: the node key file (`--p2p.priv.path`, default
 * `<datadir>/opnode_p2p_priv.txt`, created on first start), op-node's default bootnodes on the Base
 * networks when `--p2p.bootnodes` is not given, comma lists split, the sequencer key checked.
 */
import path from "node:path";
import type { OpForkSchedule } from "../chain/op/forks.js";
import { P2P_PRIV_FILE_NAME } from "../config/constants.js";
import { DEFAULT_P2P_BAN_THRESHOLD, OP_DEFAULT_BOOTNODES, P2P_USER_AGENT } from "./constants.js";
import { isBaseNetwork, type BasaltOptions } from "../config/options.js";
import { loadOrCreateNodeKey, parseSecp256k1Key } from "./cl/nodeKey.js";
import type { P2PServiceOptions } from "./service.js";

/** What the options do not say: the chain the node runs. */
interface P2PChainInfo {
  chainId: bigint;
  rollup: OpForkSchedule;
  /** L2 block time, seconds. */
  blockTimeS?: number;
  /** 20-byte unsafe block signer (the rollup's / system config's), if known. */
  signer?: Uint8Array;
}

function list(s: string | undefined): string[] {
  return (s ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
}

/** The node key file of `opts`. */
export function nodeKeyPath(opts: Pick<BasaltOptions, "datadir" | "p2p.priv.path">): string {
  return opts["p2p.priv.path"] ?? path.join(opts.datadir, P2P_PRIV_FILE_NAME);
}

/**
 * The P2P service options of a node, or undefined with `--p2p.disable`. Reads (or creates) the
 * node key file.
 * @throws P2PError for an unusable node key or sequencer key
 */
export function p2pServiceOptions(opts: BasaltOptions, chain: P2PChainInfo): P2PServiceOptions | undefined {
  if (opts["p2p.disable"]) return undefined;
  const bootnodes = opts["p2p.bootnodes"] !== undefined ? list(opts["p2p.bootnodes"]) : isBaseNetwork(opts.network) ? [...OP_DEFAULT_BOOTNODES] : [];
  const seqKey = opts["p2p.sequencer.key"];
  return {
    chainId: chain.chainId,
    rollup: chain.rollup,
    blockTimeS: chain.blockTimeS,
    nodeKey: loadOrCreateNodeKey(nodeKeyPath(opts)),
    sequencerKey: seqKey === undefined || seqKey === "" ? undefined : parseSecp256k1Key(seqKey, "--p2p.sequencer.key"),
    signer: chain.signer,
    listenIp: opts["p2p.listen.ip"],
    tcpPort: opts["p2p.listen.tcp"],
    udpPort: opts["p2p.listen.udp"],
    advertiseIp: opts["p2p.advertise.ip"],
    bootnodes,
    staticPeers: list(opts["p2p.static"]),
    noDiscovery: opts["p2p.no-discovery"],
    peersLo: opts["p2p.peers.lo"],
    peersHi: opts["p2p.peers.hi"],
    banPeers: opts["p2p.ban.peers"],
    banThreshold: DEFAULT_P2P_BAN_THRESHOLD,
    banDurationS: opts["p2p.ban.duration"],
    userAgent: P2P_USER_AGENT,
    logLevel: opts["log.level"],
    logFormat: opts["log.format"],
  };
}
