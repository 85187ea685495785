/**
 * Node and chain information: net_version, net_listening, net_peerCount, web3_clientVersion,
 * web3_sha3, eth_syncing, eth_accounts, eth_config (EIP-7910), eth_capabilities; with the
 * execution-layer network on, admin_nodeInfo, admin_peers, admin_addPeer and admin_removePeer
 * (reth's shapes).
 */
import type { Common } from "@ethereumjs/common";
import { keccak256 } from "../../util/keccak.js";
import { opForkAt, OpFork, type OpChainConfig } from "../../chain/op/forks.js";
import type { RpcBackend } from "../backend.js";
import { toData, toQuantity } from "../../chain/json/index.js";
import { parseData } from "../hexParams.js";
import { required } from "../params.js";
import { InvalidParamsError } from "../errors.js";
import { parseEnode } from "../../p2p/el/enode.js";
import type { ElNetwork } from "../../p2p/el/network.js";
import type { MethodTable } from "../types.js";

/** Precompile names and addresses by the fork that introduced them (EIP-7910 names). */
const PRECOMPILES: [string, number, string][] = [
  ["chainstart", 0x01, "ECREC"],
  ["chainstart", 0x02, "SHA256"],
  ["chainstart", 0x03, "RIPEMD160"],
  ["chainstart", 0x04, "ID"],
  ["byzantium", 0x05, "MODEXP"],
  ["byzantium", 0x06, "BN254_ADD"],
  ["byzantium", 0x07, "BN254_MUL"],
  ["byzantium", 0x08, "BN254_PAIRING"],
  ["istanbul", 0x09, "BLAKE2F"],
  ["cancun", 0x0a, "KZG_POINT_EVALUATION"],
  ["prague", 0x0b, "BLS12_G1ADD"],
  ["prague", 0x0c, "BLS12_G1MSM"],
  ["prague", 0x0d, "BLS12_G2ADD"],
  ["prague", 0x0e, "BLS12_G2MSM"],
  ["prague", 0x0f, "BLS12_PAIRING_CHECK"],
  ["prague", 0x10, "BLS12_MAP_FP_TO_G1"],
  ["prague", 0x11, "BLS12_MAP_FP2_TO_G2"],
  ["osaka", 0x100, "P256VERIFY"],
];

/** Address of P256VERIFY: RIP-7212 on OP chains from Fjord, EIP-7951 on Ethereum from Osaka. */
const P256VERIFY_ADDRESS = 0x100;

function addr(n: number): string {
  return "0x" + n.toString(16).padStart(40, "0");
}

/**
 * Whether an OP chain has the RIP-7212 P256VERIFY precompile at `timestamp`: op-revm adds it at
 * 0x100 from Fjord (specs fjord/exec-engine.md "RIP-7212"). Always false on plain Ethereum chains.
 */
function opHasP256Verify(op: OpChainConfig | undefined, timestamp: bigint): boolean {
  return op !== undefined && opForkAt(op, timestamp) >= OpFork.fjord;
}

/**
 * EIP-7910 fork configuration object of `hf`, or null. `opP256` adds P256VERIFY before Osaka
 * (OP chains from Fjord, see {@link opHasP256Verify}), in the position Osaka gives it.
 */
function forkConfig(common: Common, hf: string | undefined, genesisHash: Uint8Array, opP256 = false, isOp = false): Record<string, unknown> | null {
  if (hf === undefined) return null;
  const c = common.copy();
  c.setHardfork(hf);
  const precompiles: Record<string, string> = {};
  for (const [fork, a, name] of PRECOMPILES) {
    if (c.gteHardfork(fork) || (a === P256VERIFY_ADDRESS && opP256)) precompiles[name] = addr(a);
  }
  const systemContracts: Record<string, string> = {};
  if (c.gteHardfork("cancun")) systemContracts.BEACON_ROOTS_ADDRESS = "0x000f3df6d732807ef1319fb7b8bb8522d0beac02";
  if (c.gteHardfork("prague") && isOp) {
    // OP Isthmus adopts Prague without the EIP-6110/7002/7251 request contracts: only EIP-2935.
    systemContracts.HISTORY_STORAGE_ADDRESS = "0x0000f90827f1c53a10cb7a02335b175320002935";
  } else if (c.gteHardfork("prague")) {
    systemContracts.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = "0x0000bbddc7ce488642fb579f8b00f3a590007251";
    systemContracts.DEPOSIT_CONTRACT_ADDRESS = (c as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams.depositContractAddress?.toLowerCase() ?? addr(0);
    systemContracts.HISTORY_STORAGE_ADDRESS = "0x0000f90827f1c53a10cb7a02335b175320002935";
    systemContracts.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = "0x00000961ef480eb55e80d19ad83579a64c007002";
  }
  const sched = c.gteHardfork("cancun") ? c.getBlobGasSchedule() : undefined;
  return {
    activationTime: Number(c.hardforkTimestamp(hf) ?? 0),
    blobSchedule:
      sched === undefined
        ? null
        : {
            target: Number(sched.targetBlobGasPerBlock) / 131072,
            max: Number(sched.maxBlobGasPerBlock) / 131072,
            baseFeeUpdateFraction: Number(sched.blobGasPriceUpdateFraction),
          },
    chainId: toQuantity(c.chainId()),
    forkId: c.forkHash(hf, genesisHash),
    precompiles,
    systemContracts,
  };
}

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
    /** eth_config (EIP-7910): current, next and last timestamp-scheduled fork. */
    eth_config: () => {
      const head = chain.head.header;
      const common = chain.common;
      const timed = common
        .hardforks()
        .filter((h) => h.timestamp !== undefined && h.timestamp !== null)
        .map((h) => ({ name: h.name, time: BigInt(h.timestamp as number | string) }));
      const now = head.timestamp;
      const past = timed.filter((t) => t.time <= now);
      const future = timed.filter((t) => t.time > now);
      const current = past.length > 0 ? past[past.length - 1].name : common.getHardforkBy({ blockNumber: head.number, timestamp: head.timestamp });
      const next = future[0];
      const last = future.length === 0 ? undefined : future[future.length - 1];
      return {
        current: forkConfig(common, current, chain.genesisHash, opHasP256Verify(chain.op, now), chain.op !== undefined),
        next: forkConfig(common, next?.name, chain.genesisHash, next !== undefined && opHasP256Verify(chain.op, next.time), chain.op !== undefined),
        last: last === undefined ? null : forkConfig(common, last.name, chain.genesisHash, opHasP256Verify(chain.op, last.time), chain.op !== undefined),
      };
    },
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
