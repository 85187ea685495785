/**
 * Node and chain information: net_version, net_listening, net_peerCount, web3_clientVersion,
 * web3_sha3, eth_syncing, eth_accounts, eth_config (EIP-7910), eth_capabilities; with the
 * execution-layer network on, admin_nodeInfo, admin_peers, admin_addPeer and admin_removePeer
 * (reth's shapes).
 */
import { keccak256 } from "../../util/keccak.js";
import type { RpcBackend } from "../backend.js";
import { toData, toQuantity } from "../../chain/json/index.js";
import { parseData } from "../hexParams.js";
import { required } from "../params.js";
import { InvalidParamsError } from "../errors.js";
import { parseEnode } from "../../p2p/el/enode.js";
import type { ElNetwork } from "../../p2p/el/network.js";
import type { MethodTable } from "../types.js";
import { ethConfig } from "./ethConfig.js";

/** An enode URL parameter (admin_addPeer / admin_removePeer). */
function enodeParam(params: unknown[]): string {
  const v = required(params, 0);
  if (typeof v !== "string") throw new InvalidParamsError("invalid argument 0: expected an enode URL string");
  try {
    parseEnode(v);
  } catch (e) {
    throw new InvalidParamsError(`invalid argument 0: ${(e as Error).message}`);
  }
  return v;
}

/** admin_nodeInfo, admin_peers, admin_addPeer, admin_removePeer of the execution-layer network. */
function adminMethods(network: ElNetwork): MethodTable {
  return {
    /** admin_nodeInfo: this node's enode, id, ports and eth protocol info (reth's `NodeInfo`). */
    admin_nodeInfo: () => network.nodeInfo() ?? null,
    /** admin_peers: peers with an eth session (reth's / geth's `PeerInfo`). */
    admin_peers: () => network.peers(),
    /** admin_addPeer: dials the enode and keeps it as a static peer; true once asked. */
    admin_addPeer: (params) => network.addPeer(enodeParam(params)),
    /** admin_removePeer: forgets the static peer and disconnects it; true when it was connected. */
    admin_removePeer: (params) => network.removePeer(enodeParam(params)),
  };
}

/** Handlers of the node-information family. */
export function nodeMethods(b: RpcBackend): MethodTable {
  const { chain } = b;
  return {
    net_version: () => chain.chainId.toString(),
    /** net_listening: whether the execution-layer network accepts RLPx connections (false when it is off). */
    net_listening: () => b.network?.listening() ?? false,
    /** net_peerCount: peers with an eth/68 session. */
    net_peerCount: () => toQuantity(BigInt(b.network?.peerCount() ?? 0)),
    ...(b.network === undefined ? {} : adminMethods(b.network)),
    web3_clientVersion: () => b.settings.clientVersion,
    web3_sha3: (params) => toData(keccak256(parseData(required(params, 0), 0))),
    eth_accounts: () => [],
    /**
     * eth_syncing: false when in sync; in follow mode, while more than FOLLOW_SYNCING_LAG_BLOCKS behind the source,
     * geth's `{startingBlock, currentBlock, highestBlock}` as hex quantities (highestBlock = the source's head as last seen).
     */
    eth_syncing: () => {
      const s = b.syncing();
      if (s === false) return false;
      return { startingBlock: toQuantity(s.startingBlock), currentBlock: toQuantity(s.currentBlock), highestBlock: toQuantity(s.highestBlock) };
    },
    /** eth_config (EIP-7910): current, next and last timestamp-scheduled fork (see ethConfig.ts). */
    eth_config: () => ethConfig(chain),
    /** eth_capabilities: which data this node keeps (all of it, from genesis, on an archive node). */
    eth_capabilities: () => {
      const head = chain.head;
      const oldestState = toQuantity(chain.oldestStateBlock());
      return {
        head: { number: toQuantity(head.header.number), hash: toData(head.hash()) },
        state: { disabled: false, oldestBlock: oldestState },
        tx: { disabled: false, oldestBlock: "0x0" },
        logs: { disabled: false, oldestBlock: "0x0", deleteStrategy: { type: "none" } },
        receipts: { disabled: false, oldestBlock: "0x0" },
        blocks: { disabled: false, oldestBlock: "0x0" },
        stateproofs: { disabled: false, oldestBlock: oldestState },
      };
    },
  };
}
