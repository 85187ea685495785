/**
 * The built-in OP Stack networks of basalt: Base mainnet and Base Sepolia. For each, the rollup
 * configuration a node needs to follow the chain (L1 chain, block time, sequencing windows,
 * genesis anchors, system config, L1 contract addresses), the OP fork schedule, the EIP-1559
 * parameters, the known genesis block hash, and where the published genesis allocation lives.
 *
 * Sources: ethereum-optimism/superchain-registry superchain/configs/{mainnet,sepolia}/base.toml at
 * 5b055be (the last commit before Base was removed from the registry), the same values in
 * base/base crates/consensus/registry/configs/base-{mainnet,sepolia}.toml and kona's test
 * registry; implicit loader values (regolith at genesis, channel timeout 300) from op-node
 * `LoadOPStackRollupConfig`; Base's own upgrades (Azul, Beryl) from base/base
 * crates/common/genesis/src/chain/upgrade.rs (`UpgradeConfig::BASE_MAINNET` / `BASE_SEPOLIA`).
 */
import { TypedError } from "../../util/errors.js";
import { GenesisError, validateGenesis, type GenesisJson } from "../genesis.js";
import { OP_FORK_TIME_KEYS, type OpChainConfig, type OpEip1559Config, type OpForkName } from "./forks.js";
import type { AnnouncedUpgrade } from "./upgradeSchedule.js";
import { ETHEREUM_GENESIS_BLOCK_KEYS } from "../chainSpec.js";
import { OP_NETWORK_NAMES, isOpNetworkName, type OpNetworkName } from "../../config/networks.js";

export { OP_NETWORK_NAMES, isOpNetworkName, type OpNetworkName };

/** The L1 block and L2 block a rollup starts from, and the system config at that L1 block. */
export interface RollupGenesis {
  /** L1 block the rollup genesis is anchored to. */
  l1: { hash: string; number: bigint };
  /** The L2 genesis block. */
  l2: { hash: string; number: bigint };
  /** Timestamp of the L2 genesis block (seconds). */
  l2Time: bigint;
  /** SystemConfig values at genesis (pre-Ecotone encodings of overhead and scalar). */
  systemConfig: {
    batcherAddress: string;
    overhead: string;
    scalar: string;
    gasLimit: bigint;
  };
}

/** L1 contracts of an OP chain (proxies). */
export interface OpL1Addresses {
  /** OptimismPortal proxy: emits `TransactionDeposited` (the rollup's deposit contract). */
  optimismPortalProxy: string;
  /** SystemConfig proxy: emits `ConfigUpdate`. */
  systemConfigProxy: string;
  l1StandardBridgeProxy: string;
  disputeGameFactoryProxy: string;
  /** The OP Stack's ProtocolVersions (`required()`/`recommended()`): the rollup config's `protocol_versions_address`. */
  protocolVersions: string;
  superchainConfig: string;
  /**
   * Base's own `ProtocolVersions` upgrade schedule (`getSchedule()`, `minimumProtocolVersion()`; a
   * different contract from {@link protocolVersions}): the L1 upgrade signal base-consensus reads
   * by default on this network (base/base #5201, backported to releases/v1.4.1 as #5202).
   */
  upgradeSignal: string;
}

/** Role addresses of an OP chain. */
export interface OpRoles {
  proxyAdminOwner: string;
  /** Signer of unsafe (gossiped) L2 blocks. */
  unsafeBlockSigner: string;
  /** Batcher address of the registry's role list (Sept 2025); may differ from the genesis batcher. */
  batchSubmitter: string;
}

/** One built-in OP network. */
export interface OpNetwork {
  /** `--network` name. */
  name: OpNetworkName;
  /** Human-readable name. */
  displayName: string;
  /** L2 chain id. */
  chainId: bigint;
  /** Chain id of the L1 the rollup settles on. */
  l1ChainId: bigint;
  /** Seconds between L2 blocks. */
  blockTime: bigint;
  /** L1 blocks within which a batch must be included after its epoch (sequencing window). */
  seqWindowSize: bigint;
  /** Most seconds an L2 block may run ahead of its L1 origin before Fjord (1800 from Fjord on). */
  maxSequencerDrift: bigint;
  /** L1 blocks a channel stays open before Granite. */
  channelTimeout: bigint;
  /** L1 blocks a channel stays open from Granite on. */
  channelTimeoutGranite: bigint;
  /** L1 address batches are sent to. */
  batchInboxAddress: string;
  /** OP fork activation times (seconds), Regolith through Base's Cobalt. */
  forkTimes: OpChainConfig["forkTimes"];
  /** Base Sepolia only: when the L1-info blob base fee switched to the Pectra update fraction. */
  pectraBlobScheduleTime?: bigint;
  /**
   * Upgrades Base announced for this network that basalt does not implement: the node refuses
   * blocks from their activation on even when no L1 signal or followed node tells it
   * (blockchain/upgradeGuard.ts, source `announced`).
   */
  announcedUpgrades: readonly AnnouncedUpgrade[];
  /** EIP-1559 parameters of the genesis `config.optimism`. */
  eip1559: OpEip1559Config;
  /** Rollup genesis anchors and system config. */
  genesis: RollupGenesis;
  /** Hash of the L2 genesis block (= `genesis.l2.hash`). */
  genesisHash: string;
  /** State root of the L2 genesis block. */
  genesisStateRoot: string;
  /** L1 contract addresses. */
  addresses: OpL1Addresses;
  /** Role addresses. */
  roles: OpRoles;
  /**
   * Where the genesis allocation is published, first = default download. Plain JSON (op-geth
   * `genesis-l2.json`, config of 2023: Bedrock/Regolith only), so {@link withNetworkConfig}
   * replaces its `config`.
   */
  genesisUrls: readonly string[];
  /**
   * Published sources that basalt cannot read by itself (zstd with a dictionary; Node 20 has no
   * zstd); listed for users who fetch and decompress the file themselves.
   */
  otherGenesisSources: readonly string[];
}

/**
 * Commit of base/node (formerly base-org/node) whose tree still holds `mainnet/genesis-l2.json`
 * and `sepolia/genesis-l2.json` (parent of acc4e30, 2024-06-13, which deleted them). Pinned so
 * the raw URL keeps serving the same bytes.
 */
const BASE_NODE_GENESIS_COMMIT = "b63b798371bec83816e202ce835f856a45f32598";
/** Last superchain-registry commit that holds Base's configs (removed in 0d9aefc, 2026-04-27). */
const SUPERCHAIN_REGISTRY_BASE_COMMIT = "5b055be4d294ce43814a44c8839d89b2436dc8aa";

/** raw.githubusercontent.com URL of a file in base/node at the pinned commit. */
function baseNodeRaw(path: string): string {
  return `https://raw.githubusercontent.com/base/node/${BASE_NODE_GENESIS_COMMIT}/${path}`;
}

/** raw.githubusercontent.com URL of a file in superchain-registry at the last commit with Base. */
function registryRaw(path: string): string {
  return `https://raw.githubusercontent.com/ethereum-optimism/superchain-registry/${SUPERCHAIN_REGISTRY_BASE_COMMIT}/${path}`;
}

/** Channel timeout before Granite: op-node's implicit loader value (300 L1 blocks). */
const CHANNEL_TIMEOUT_PRE_GRANITE = 300n;
/** Channel timeout from Granite on (specs granite/derivation.md: 50 L1 blocks). */
const CHANNEL_TIMEOUT_GRANITE = 50n;

/** Base mainnet (chain id 8453, settles on Ethereum mainnet). */
const BASE_MAINNET: OpNetwork = {
  name: "base-mainnet",
  displayName: "Base",
  chainId: 8453n,
  l1ChainId: 1n,
  blockTime: 2n,
  seqWindowSize: 3600n,
  maxSequencerDrift: 600n,
  channelTimeout: CHANNEL_TIMEOUT_PRE_GRANITE,
  channelTimeoutGranite: CHANNEL_TIMEOUT_GRANITE,
  batchInboxAddress: "0xFf00000000000000000000000000000000008453",
  forkTimes: {
    regolith: 0n,
    canyon: 1704992401n, // Thu 11 Jan 2024 17:00:01 UTC
    delta: 1708560000n, // Thu 22 Feb 2024 00:00:00 UTC
    ecotone: 1710374401n, // Thu 14 Mar 2024 00:00:01 UTC
    fjord: 1720627201n, // Wed 10 Jul 2024 16:00:01 UTC
    granite: 1726070401n, // Wed 11 Sep 2024 16:00:01 UTC
    holocene: 1736445601n, // Thu 9 Jan 2025 18:00:01 UTC
    isthmus: 1746806401n, // Fri 9 May 2025 16:00:01 UTC
    jovian: 1764691201n, // Tue 2 Dec 2025 16:00:01 UTC
    azul: 1779991200n, // Thu 28 May 2026 18:00:00 UTC (base/base upgrade.rs; Base's spec page has shown other dates)
    beryl: 1782410400n, // Thu 25 Jun 2026 18:00:00 UTC (base/node v1.1.1, base/base crates/common/chains/src/config.rs)
    cobalt: 1790791200n, // Wed 30 Sep 2026 18:00:00 UTC (base/base releases/v1.4.1, #5196)
  },
  announcedUpgrades: [
    // Thu 5 Nov 2026 18:00:00 UTC: docs.base.org upgrades/denim/overview ("activated … on Base Mainnet on November 5, 2026
    // at 18:00 UTC", nodes need base/base v1.5.1), Chainstack's changelog of 2026-11-06; not in base/base code the index holds.
    { upgrade: "denim", activation: 1793901600n, evidence: "docs.base.org Denim overview, base/base v1.5.1" },
  ],
  eip1559: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
  genesis: {
    l1: { hash: "0x5c13d307623a926cd31415036c8b7fa14572f9dac64528e857a470511fc30771", number: 17481768n },
    l2: { hash: "0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd", number: 0n },
    l2Time: 1686789347n,
    systemConfig: {
      batcherAddress: "0x5050F69a9786F081509234F1a7F4684b5E5b76C9",
      overhead: "0x00000000000000000000000000000000000000000000000000000000000000bc",
      scalar: "0x00000000000000000000000000000000000000000000000000000000000a6fe0",
      gasLimit: 30_000_000n,
    },
  },
  genesisHash: "0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd",
  genesisStateRoot: "0xb2afcb88cd1d0ab228f0415d99b0fb90a18e8515daf5eb31f55b5c4697e18328",
  addresses: {
    optimismPortalProxy: "0x49048044D57e1C92A77f79988d21Fa8fAF74E97e",
    systemConfigProxy: "0x73a79Fab69143498Ed3712e519A88a918e1f4072",
    l1StandardBridgeProxy: "0x3154Cf16ccdb4C6d922629664174b904d80F2C35",
    disputeGameFactoryProxy: "0x43edB88C4B80fDD2AdFF2412A7BebF9dF42cB40e",
    protocolVersions: "0x8062AbC286f5e7D9428a0Ccb9AbD71e50d93b935",
    superchainConfig: "0x95703e0982140D16f8ebA6d158FccEde42f04a4C",
    // base/contract-deployments 2026-09-21-deploy-protocol-versions (mainnet addresses.json); base/base #5201.
    upgradeSignal: "0x7480Afc8D99a5c645c247dB5A1e4a4f440e6e095",
  },
  roles: {
    proxyAdminOwner: "0x7bB41C3008B3f03FE483B28b8DB90e19Cf07595c",
    unsafeBlockSigner: "0xAf6E19BE0F9cE7f8afd49a1824851023A8249e8a",
    batchSubmitter: "0x5050F69a9786F081509234F1a7F4684b5E5b76C9",
  },
  genesisUrls: [baseNodeRaw("mainnet/genesis-l2.json")],
  otherGenesisSources: [registryRaw("superchain/extra/genesis/mainnet/base.json.zst")],
};

/** Base Sepolia (chain id 84532, settles on Ethereum Sepolia). */
const BASE_SEPOLIA: OpNetwork = {
  name: "base-sepolia",
  displayName: "Base Sepolia Testnet",
  chainId: 84532n,
  l1ChainId: 11155111n,
  blockTime: 2n,
  seqWindowSize: 3600n,
  maxSequencerDrift: 600n,
  channelTimeout: CHANNEL_TIMEOUT_PRE_GRANITE,
  channelTimeoutGranite: CHANNEL_TIMEOUT_GRANITE,
  batchInboxAddress: "0xfF00000000000000000000000000000000084532",
  forkTimes: {
    regolith: 0n,
    canyon: 1699981200n, // Tue 14 Nov 2023 17:00:00 UTC
    delta: 1703203200n, // Fri 22 Dec 2023 00:00:00 UTC
    ecotone: 1708534800n, // Wed 21 Feb 2024 17:00:00 UTC
    fjord: 1716998400n, // Wed 29 May 2024 16:00:00 UTC
    granite: 1723478400n, // Mon 12 Aug 2024 16:00:00 UTC
    holocene: 1732633200n, // Tue 26 Nov 2024 15:00:00 UTC
    isthmus: 1744905600n, // Thu 17 Apr 2025 16:00:00 UTC
    jovian: 1763568001n, // Wed 19 Nov 2025 16:00:01 UTC
    azul: 1776708000n, // Mon 20 Apr 2026 18:00:00 UTC
    beryl: 1781805600n, // Thu 18 Jun 2026 18:00:00 UTC (base/base #3398, releases/v1.1.0)
    cobalt: 1790186400n, // Wed 23 Sep 2026 18:00:00 UTC (base/base #5056, releases/v1.4.0)
  },
  announcedUpgrades: [
    // Wed 21 Oct 2026 18:00:00 UTC: docs.base.org upgrades/denim/overview ("Denim activated on Base Sepolia on October 21, 2026 at 18:00 UTC").
    { upgrade: "denim", activation: 1792605600n, evidence: "docs.base.org Denim overview" },
  ],
  pectraBlobScheduleTime: 1742486400n, // Thu 20 Mar 2025 16:00:00 UTC
  eip1559: { eip1559Elasticity: 10, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
  genesis: {
    l1: { hash: "0xcac9a83291d4dec146d6f7f69ab2304f23f5be87b1789119a0c5b1e4482444ed", number: 4370868n },
    l2: { hash: "0x0dcc9e089e30b90ddfc55be9a37dd15bc551aeee999d2e2b51414c54eaf934e4", number: 0n },
    l2Time: 1695768288n,
    systemConfig: {
      batcherAddress: "0x6CDEbe940BC0F26850285cacA097C11c33103E47",
      overhead: "0x0000000000000000000000000000000000000000000000000000000000000834",
      scalar: "0x00000000000000000000000000000000000000000000000000000000000f4240",
      gasLimit: 25_000_000n,
    },
  },
  genesisHash: "0x0dcc9e089e30b90ddfc55be9a37dd15bc551aeee999d2e2b51414c54eaf934e4",
  genesisStateRoot: "0x907f339ca16b3e45a89a7f4cc29d4430c8d4178d73b370ec9180e04a0dd7fcf3",
  addresses: {
    optimismPortalProxy: "0x49f53e41452C74589E85cA1677426Ba426459e85",
    systemConfigProxy: "0xf272670eb55e895584501d564AfEB048bEd26194",
    l1StandardBridgeProxy: "0xfd0Bf71F60660E2f608ed56e1659C450eB113120",
    disputeGameFactoryProxy: "0xd6E6dBf4F7EA0ac412fD8b65ED297e64BB7a06E1",
    protocolVersions: "0x79ADD5713B383DAa0a138d3C4780C7A1804a8090",
    superchainConfig: "0xC2Be75506d5724086DEB7245bd260Cc9753911Be",
    // base/base #5201 (Sepolia's registry, initialized by base/contract-deployments 2026-09-14-cobalt-upgrade).
    upgradeSignal: "0x15B721B12CF3b0C4400c8a2935A0Ae391c2eF65b",
  },
  roles: {
    proxyAdminOwner: "0x0fe884546476dDd290eC46318785046ef68a0BA9",
    unsafeBlockSigner: "0xb830b99c95Ea32300039624Cb567d324D4b1D83C",
    batchSubmitter: "0xfc56E7272EEBBBA5bC6c544e159483C4a38f8bA3",
  },
  genesisUrls: [baseNodeRaw("sepolia/genesis-l2.json")],
  otherGenesisSources: [registryRaw("superchain/extra/genesis/sepolia/base.json.zst")],
};

/** The built-in OP networks by name. */
export const OP_NETWORKS: Readonly<Record<OpNetworkName, OpNetwork>> = {
  "base-mainnet": BASE_MAINNET,
  "base-sepolia": BASE_SEPOLIA,
};

/** The built-in OP network of a name; throws {@link UnknownNetworkError} for any other name. */
export function opNetwork(name: string): OpNetwork {
  if (!isOpNetworkName(name)) throw new UnknownNetworkError(name);
  return OP_NETWORKS[name];
}

/** The built-in OP network with L2 chain id `chainId`, if any. */
export function opNetworkByChainId(chainId: bigint): OpNetwork | undefined {
  return Object.values(OP_NETWORKS).find((n) => n.chainId === chainId);
}

/** Stable code of {@link UnknownNetworkError}. */
const UnknownNetworkErrorCode = { UNKNOWN: "NETWORK_UNKNOWN" } as const;
/** A {@link UnknownNetworkError}'s code with its metadata. */
type UnknownNetworkErrorType = { code: typeof UnknownNetworkErrorCode.UNKNOWN; network: string };

/** Raised for a network name that is not a built-in OP network (code `NETWORK_UNKNOWN`). */
export class UnknownNetworkError extends TypedError<UnknownNetworkErrorType> {
  constructor(name: string) {
    super({ code: UnknownNetworkErrorCode.UNKNOWN, network: name }, `unknown network ${JSON.stringify(name)}: expected one of ${OP_NETWORK_NAMES.join(", ")}`);
  }
}


/**
 * The op-geth style genesis `config` of a built-in network: chain id, the Ethereum forks at
 * genesis and the Ethereum timestamp forks that OP forks carry (Shanghai = Canyon, Cancun =
 * Ecotone, Prague = Isthmus, as op-geth; Osaka = Azul, as base-reth), the merge at genesis,
 * `bedrockBlock` 0, every OP fork time (`regolithTime` … `jovianTime`, Base's `azulTime`,
 * Base Sepolia's `pectraBlobScheduleTime`) and `optimism` EIP-1559 parameters. A fresh object
 * on every call.
 */
export function opGenesisConfig(network: OpNetworkName | OpNetwork): GenesisJson["config"] {
  const n = typeof network === "string" ? opNetwork(network) : network;
  const config: GenesisJson["config"] = { chainId: Number(n.chainId) };
  for (const key of ETHEREUM_GENESIS_BLOCK_KEYS) config[key] = 0;
  config.terminalTotalDifficulty = 0;
  config.terminalTotalDifficultyPassed = true;
  const ethereumTimes: [string, bigint | undefined][] = [
    ["shanghaiTime", n.forkTimes.canyon],
    ["cancunTime", n.forkTimes.ecotone],
    ["pragueTime", n.forkTimes.isthmus],
    ["osakaTime", n.forkTimes.azul],
  ];
  for (const [key, t] of ethereumTimes) if (t !== undefined) config[key] = Number(t);
  config.bedrockBlock = 0;
  for (const [fork, key] of Object.entries(OP_FORK_TIME_KEYS) as [Exclude<OpForkName, "bedrock">, string][]) {
    const t = n.forkTimes[fork];
    if (t !== undefined) config[key] = Number(t);
  }
  if (n.pectraBlobScheduleTime !== undefined) config.pectraBlobScheduleTime = Number(n.pectraBlobScheduleTime);
  config.optimism = { ...n.eip1559 };
  return config;
}

/** The built-in network whose genesis block hash is `genesisHash` (0x-hex, any case), or undefined. */
export function opNetworkByGenesisHash(genesisHash: string): OpNetwork | undefined {
  const h = genesisHash.toLowerCase();
  return Object.values(OP_NETWORKS).find((n) => n.genesisHash.toLowerCase() === h);
}

/**
 * The genesis a datadir of a built-in network runs with: the stored one with its `config`
 * replaced by this basalt's {@link opGenesisConfig} — a built-in network's fork schedule comes
 * from the binary, as reth's and op-geth's built-in chain specs do, so an upgrade scheduled
 * after the datadir was created (Beryl, Cobalt) applies without re-initialising. Every block
 * basalt imported was verified against its header's state root, so blocks already imported
 * under an older schedule stay valid. Other genesis files are returned unchanged.
 */
export function withCurrentNetworkConfig(stored: GenesisJson, genesisHash: string): GenesisJson {
  const n = opNetworkByGenesisHash(genesisHash);
  return n === undefined ? stored : { ...stored, config: opGenesisConfig(n) };
}

/** Whether a genesis `config.chainId` value (number or numeric string) equals `expected`. */
function sameChainId(value: unknown, expected: bigint): boolean {
  if (typeof value !== "number" && typeof value !== "string") return false;
  try {
    return BigInt(value) === expected;
  } catch {
    return false;
  }
}

/**
 * A genesis file of a built-in network with its `config` set to {@link opGenesisConfig}. Takes
 * a file whose `config` is null or absent (superchain-registry's Base files) or an older
 * config (base/node's 2023 `genesis-l2.json`, which predates Canyon); a present config must
 * name the network's chain id. Does not check the genesis hash (see `resolveGenesis`).
 */
export function withNetworkConfig(network: OpNetworkName | OpNetwork, genesisFile: unknown): GenesisJson {
  const n = typeof network === "string" ? opNetwork(network) : network;
  if (typeof genesisFile !== "object" || genesisFile === null || Array.isArray(genesisFile)) {
    throw new GenesisError(`${n.name} genesis: expected a JSON object`);
  }
  const file = genesisFile as Record<string, unknown>;
  const given = file.config as Record<string, unknown> | null | undefined;
  if (given !== undefined && given !== null) {
    if (typeof given !== "object") throw new GenesisError(`${n.name} genesis: \`config\` must be an object or null`);
    if (given.chainId !== undefined && !sameChainId(given.chainId, n.chainId)) {
      throw new GenesisError(`${n.name} genesis: config.chainId is ${String(given.chainId)}, expected ${n.chainId}`);
    }
  }
  return validateGenesis({ ...file, config: opGenesisConfig(n) });
}
