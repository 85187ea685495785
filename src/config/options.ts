/**
 * The option table of the `basalt` command line: every option, its type, default, group and
 * the commands it applies to, in one place (lodestar style). The parser (`src/cli/args.ts`),
 * the environment-variable mapping and the help text (`src/cli/help.ts`) are all driven by
 * this table, so the documentation can never drift from the behaviour.
 *
 * Defaults come from `src/config/constants.ts`; the two derived defaults (`datadir`, `archive`)
 * are computed after parsing by {@link applyDerivedDefaults}.
 */
import path from "node:path";
import { OP_NETWORK_NAMES, isOpNetworkName } from "./networks.js";
import {
  DEFAULT_AUTHRPC_PORT,
  DEFAULT_BEACON_PORT,
  DEFAULT_DEV_BLOCK_TIME_S,
  DEFAULT_FLASHBLOCKS_INTERVAL_MS,
  DEFAULT_FLASHBLOCKS_PORT,
  DEFAULT_FOLLOW_POLL_INTERVAL_MS,
  DEFAULT_WS_ADDR,
  DEFAULT_WS_PORT,
  DEFAULT_HTTP_ADDR,
  DEFAULT_HTTP_PORT,
  DEFAULT_STATE_HISTORY_BLOCKS,
  MAX_BATCH_LENGTH,
  MAX_REQUEST_BODY_BYTES,
  RPC_EVM_TIMEOUT_MS,
  DEFAULT_EXECUTION_THREADS,
  DEFAULT_EVM_ENGINE,
  DEFAULT_ROLLUP_PORT,
  DEFAULT_METRICS_PORT,
  DEFAULT_PUBLIC_RATE_PER_IP,
  DEFAULT_PUBLIC_BURST_PER_IP,
  DEFAULT_PUBLIC_MAX_CONNECTIONS,
  DEFAULT_L1_BLOCK_TIME_S,
  DEFAULT_PROOFS_HISTORY_WINDOW,
  DEFAULT_PROOFS_MAX_BLOCKS_AHEAD,
  DEFAULT_SEQUENCER_L1_CONFS,
  DEFAULT_BATCHER_MAX_CHANNEL_DURATION,
  DEFAULT_BATCHER_NUM_CONFIRMATIONS,
  DEFAULT_BATCHER_BLOBS_PER_TX,
  BATCHER_MAX_BLOBS_PER_TX,
  EXECUTION_QUEUE_PER_THREAD,
  RPC_GAS_CAP,
  L1DEV_DEFAULT_SLOT_SECONDS,
  DEFAULT_P2P_LISTEN_IP,
  DEFAULT_P2P_LISTEN_TCP_PORT,
  DEFAULT_P2P_LISTEN_UDP_PORT,
  DEFAULT_P2P_PEERS_LO,
  DEFAULT_P2P_PEERS_HI,
  DEFAULT_P2P_BAN_DURATION_S,
  P2P_PRIV_FILE_NAME,
} from "./constants.js";
import {
  DEFAULT_P2P_EL_ADDR,
  DEFAULT_P2P_EL_DISCOVERY_PORT,
  DEFAULT_P2P_EL_DISCV5_PORT,
  DEFAULT_P2P_EL_MAX_INBOUND,
  DEFAULT_P2P_EL_MAX_OUTBOUND,
  DEFAULT_P2P_EL_PORT,
  P2P_EL_SECRET_FILE,
} from "./constants.js";
import { DEFAULT_MAX_FILTERS, MAX_LOGS_BLOCK_RANGE, MAX_LOGS_PER_RESPONSE, RESPONSE_CACHE_BLOCKS, TRACE_FILTER_MAX_BLOCKS } from "./constants.js";

/** The commands that take options. */
export type Command = "node" | "init" | "import" | "export" | "doctor" | "snapshot" | "proofs" | "devnet" | "db";

/** Where an option's value came from. */
export type OptionSource = "cli" | "env" | "env-file" | "default";

/** Every command that takes options, in display order. */
export const COMMANDS: readonly Command[] = ["node", "init", "import", "export", "doctor", "snapshot", "proofs", "devnet", "db"];

/** Log levels accepted by `--log.level`, most verbose first. */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error"] as const;
/** A log level of `--log.level`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Log formats accepted by `--log.format`. */
const LOG_FORMATS = ["json", "pretty"] as const;
/** A log format of `--log.format`. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Frame formats of the devnet flashblocks stream: Base's public binary brotli, or plain JSON text frames. */
const FLASHBLOCKS_FORMATS = ["brotli", "text"] as const;
/** EVM engines (`--evm`): basalt's fast core, or @ethereumjs/vm (the reference, also the fallback of the fast one). */
const EVM_ENGINES = ["fast", "reference"] as const;
/** An EVM engine name. */
export type EvmEngineName = (typeof EVM_ENGINES)[number];
/** A frame format of `--flashblocks.format`. */
export type FlashblocksFormat = (typeof FLASHBLOCKS_FORMATS)[number];
/**
 * L1 block tags Base's upgrade signal may be read at (`--upgrade-signal.l1-block-tag`, as
 * base/base's flag of that name): the tag also sets how often it is read (constants.ts
 * `UPGRADE_SIGNAL_POLL_MS`).
 */
const UPGRADE_SIGNAL_BLOCK_TAGS = ["finalized", "safe", "latest"] as const;
/** A value of `--upgrade-signal.l1-block-tag`. */
export type UpgradeSignalBlockTag = (typeof UPGRADE_SIGNAL_BLOCK_TAGS)[number];
/** Where the batcher posts (`--batcher.data`): EIP-4844 blobs, or calldata. */
const BATCHER_DATA_CHOICES = ["blobs", "calldata"] as const;
/** A value of `--batcher.data`. */
export type BatcherData = (typeof BATCHER_DATA_CHOICES)[number];

/** The name of the built-in development network (`--network devnet`). */
const DEVNET_NETWORK = "devnet";

/** The name of the built-in local L1 (`--network devnet-l1`): a plain Ethereum chain basalt produces on a slot clock. */
const DEVNET_L1_NETWORK = "devnet-l1";

/** Every built-in network name `--network` accepts: the devnet, the local L1 and the Base networks. */
export const BUILTIN_NETWORKS: readonly string[] = [DEVNET_NETWORK, DEVNET_L1_NETWORK, ...OP_NETWORK_NAMES];

/**
 * The fully resolved options of one invocation, keyed by the option's dotted name. Options
 * without a default are `undefined` when not given.
 */
export interface BasaltOptions {
  /** Data directory; default `./data/<network>`. */
  datadir: string;
  /** `devnet`, `devnet-l1`, `base-mainnet`, `base-sepolia`, or the path of a geth-style genesis JSON file. */
  network: string;
  /** Genesis JSON file written by `basalt init` (for a built-in Base network: its published genesis, hash-checked). */
  genesis: string | undefined;
  /** URL a built-in Base network's genesis is downloaded from when no `--genesis` file is given. */
  "genesis-url": string | undefined;
  /** HTTP JSON-RPC listen address. */
  "http.addr": string;
  /** HTTP JSON-RPC listen port. */
  "http.port": number;
  /** Comma-separated list of origins allowed by CORS ("" = none, "*" = any). */
  "http.corsdomain": string;
  /** Namespaces served over HTTP (comma-separated; undefined = all). */
  "http.api": string | undefined;
  /** Namespaces served over WebSocket (comma-separated; undefined = all). */
  "ws.api": string | undefined;
  /** Engine API listen address. */
  "authrpc.addr": string;
  /** Engine API listen port. */
  "authrpc.port": number;
  /** Path of the Engine API JWT secret (hex); default `<datadir>/jwt.hex`. */
  "authrpc.jwtsecret": string | undefined;
  /** Serve JSON-RPC over WebSocket (with eth_subscribe). */
  ws: boolean;
  /** WebSocket JSON-RPC listen address. */
  "ws.addr": string;
  /** WebSocket JSON-RPC listen port. */
  "ws.port": number;
  /** Trusted L2 RPC to follow (http(s):// polled; ws(s):// also subscribed to newHeads); turns local block production off. */
  "follow-rpc": string | undefined;
  /** Follow mode: poll interval of the trusted L2 RPC, in milliseconds. */
  "follow.poll-interval": number;
  /** Sequencer RPC that eth_sendRawTransaction is forwarded to. */
  "sequencer-http": string | undefined;
  /** Flashblocks WebSocket stream to ingest (pre-confirmations answering `pending`). */
  "flashblocks-url": string | undefined;
  /** Devnet: milliseconds between published flashblocks (0 = no flashblocks). */
  "flashblocks.interval": number;
  /** Devnet: flashblocks WebSocket server listen address. */
  "flashblocks.addr": string;
  /** Devnet: flashblocks WebSocket server port. */
  "flashblocks.port": number;
  /** Devnet: frame format of the flashblocks stream (per connection `?format=` overrides). */
  "flashblocks.format": FlashblocksFormat;
  /** Devnet block time in seconds; 0 seals only on demand. On devnet-l1: the slot length (whole seconds). */
  "dev.block-time": number;
  /** Devnet: L2 timestamp at which Base's Beryl activates (at genesis when absent); fixed when the datadir is created. */
  "dev.beryl-time": number | undefined;
  /** Devnet: L2 timestamp at which Base's Cobalt activates (with Beryl when absent); fixed when the datadir is created. */
  "dev.cobalt-time": number | undefined;
  /** devnet-l1: beacon API listen address. */
  "beacon.addr": string;
  /** devnet-l1: beacon API listen port. */
  "beacon.port": number;
  /** Keep the state of every block. */
  archive: boolean;
  /** Blocks of state history kept without `archive`. */
  "history.blocks": number;
  /** Gas cap of eth_call-like requests. */
  "rpc.gascap": number;
  /** Wall-clock limit of one eth_call-like execution, in milliseconds. */
  "rpc.evmtimeout": number;
  /** Execution pool worker threads. */
  "rpc.threads": number;
  /** The EVM engine transactions and calls run on first. */
  evm: EvmEngineName;
  /** Call-family requests allowed to wait for an execution thread. */
  "rpc.queue": number;
  /** Most requests in one JSON-RPC batch. */
  "rpc.batch-limit": number;
  /** Largest HTTP request body, in bytes. */
  "rpc.max-body": number;
  /** Serve the consensus-side RPC (optimism_syncStatus, healthz). */
  rollup: boolean;
  /** Consensus-side RPC listen address. */
  "rollup.addr": string;
  /** Consensus-side RPC listen port. */
  "rollup.port": number;
  /** Serve Prometheus metrics. */
  metrics: boolean;
  /** Prometheus metrics listen address. */
  "metrics.addr": string;
  /** Prometheus metrics listen port. */
  "metrics.port": number;
  /** Public-endpoint mode: rate limits, no debug/admin/engine namespaces, eth_getBlockReceipts refused. */
  public: boolean;
  /** Public mode: sustained requests per second per client IP. */
  "public.rate": number;
  /** Public mode: burst per client IP. */
  "public.burst": number;
  /** Public mode: most open connections. */
  "public.max-connections": number;
  /** L1 execution RPC URL (derivation; checked by `basalt doctor`). */
  "l1.rpc": string | undefined;
  /** L1 beacon API URL (blobs for derivation; checked by `basalt doctor`). */
  "l1.beacon": string | undefined;
  /** op-node rollup.json of a custom OP chain (built-in networks have theirs). */
  "rollup.config": string | undefined;
  /** Base's L1 upgrade-signal contract (`none` = do not read it); default: the Base network's. */
  "upgrade-signal.contract": string | undefined;
  /** The L1 block tag the upgrade signal is read at (and with it, how often). */
  "upgrade-signal.l1-block-tag": UpgradeSignalBlockTag;
  /** Seconds between L1 blocks (derivation's L1 polling). */
  "l1.block-time": number;
  /** Sequence blocks: undefined (not given) = on for the built-in devnet only; on a custom chain it needs `--rollup.config` and `--l1.rpc`. */
  sequencer: boolean | undefined;
  /** Sequencer on a real L1: L1 blocks on top of an L1 block before it becomes an origin. */
  "sequencer.l1-confs": number;
  /** `basalt devnet rollup`: first port of the local rollup's consecutive ports (0 = any free ports; unset = the standard layout). */
  "devnet.port-base": number | undefined;
  /** base/base's metering RPC (base_meterBundle, base_meterBlockByHash/ByNumber, base_meteredPriorityFeePerGas). */
  "enable-metering": boolean;
  /** base_meteredPriorityFeePerGas: gas capacity per block (unset: gas is not estimated). */
  "metering.gas-limit": number | undefined;
  /** base_meteredPriorityFeePerGas: execution time budget per block, microseconds (unset: not estimated). */
  "metering.execution-time-us": number | undefined;
  /** base_meteredPriorityFeePerGas: DA bytes per block (unset: not estimated). */
  "metering.da-bytes": number | undefined;
  /** base_meteredPriorityFeePerGas: percentile of the fees above the threshold that is recommended. */
  "metering.priority-fee-percentile": number;
  /** base_meteredPriorityFeePerGas: fee answered for an uncongested resource, wei. */
  "metering.uncongested-priority-fee": number;
  /** Historical proofs extension: eth_getProof over a window of blocks from the proofs store. */
  "historical-proofs": boolean;
  /** Historical proofs: blocks kept. */
  "proofs.history-window": number;
  /** Follow mode with historical proofs: most blocks imported beyond the proofs store's latest block. */
  "proofs.max-blocks-ahead": number;
  /** Historical proofs: the store's directory ("" = `<datadir>/proofs`). */
  "proofs.path": string;
  /** eth_getProof's maximum distance below the head without the extension (0 = the whole state history); ignored with it. */
  "rpc.eth-proof-window": number;
  /** Run the batcher: post the L2 chain to L1 (needs an OP chain's rollup config and `--l1.rpc`). */
  batcher: boolean;
  /** The batcher's private key (hex); env `BASALT_BATCHER_KEY`. */
  "batcher.key": string | undefined;
  /** Where the batcher posts: blobs or calldata. */
  "batcher.data": BatcherData;
  /** L1 blocks a channel stays open before it is posted. */
  "batcher.max-channel-duration": number;
  /** L1 blocks deep a batcher transaction must be to count as confirmed. */
  "batcher.num-confirmations": number;
  /** Most blobs per batcher transaction. */
  "batcher.blobs-per-tx": number;
  // --- consensus-layer P2P (op-node's --p2p.* flags; src/p2p) ---
  /** Turn the consensus-layer P2P stack off. */
  "p2p.disable": boolean;
  /** Turn discv5 (node discovery) off. */
  "p2p.no-discovery": boolean;
  /** IP libp2p and discv5 bind to. */
  "p2p.listen.ip": string;
  /** libp2p TCP port (0 = any free port). */
  "p2p.listen.tcp": number;
  /** discv5 UDP port (0 = the TCP port; with TCP 0, any free port). */
  "p2p.listen.udp": number;
  /** IP advertised in the ENR (default: the listen IP, or 127.0.0.1 when it is 0.0.0.0). */
  "p2p.advertise.ip": string | undefined;
  /** Comma-separated ENRs (or enode URLs) discovery starts from; default: op-node's list on Base networks. */
  "p2p.bootnodes": string | undefined;
  /** Comma-separated multiaddrs of peers always kept connected. */
  "p2p.static": string;
  /** Low-tide peer count: below it discovered peers are dialed. */
  "p2p.peers.lo": number;
  /** High-tide peer count: the most connections kept. */
  "p2p.peers.hi": number;
  /** File of the hex secp256k1 node key; default `<datadir>/opnode_p2p_priv.txt`, created if absent. */
  "p2p.priv.path": string | undefined;
  /** Hex private key the sequencer signs gossiped blocks with. */
  "p2p.sequencer.key": string | undefined;
  /** Ban peers whose gossip score falls below the threshold. */
  "p2p.ban.peers": boolean;
  /** Seconds a score ban lasts. */
  "p2p.ban.duration": number;
  /** Least severe level logged. */
  "log.level": LogLevel;
  /** Log line format. */
  "log.format": LogFormat;
  /** First block exported (inclusive). */
  from: number | undefined;
  /** Last block exported (inclusive). */
  to: number | undefined;
  /** dotenv file of `BASALT_*` variables. */
  "env-file": string | undefined;
  // ---- execution-layer networking (devp2p) ----
  /** Turn the execution-layer network (RLPx + discovery) off. */
  "p2p.el.disable": boolean;
  /** RLPx TCP listen port. */
  port: number;
  /** RLPx listen address. */
  addr: string;
  /** Discovery v4 UDP port. */
  "discovery.port": number;
  /** Discovery listen address (v4 and v5). */
  "discovery.addr": string;
  /** Discovery v5 UDP port (`basev0` on OP chains). */
  "discovery.v5.port": number;
  /** OP chains: also run discovery v4 (Base's node: off by default). */
  "rollup.discovery.v4": boolean;
  /** No discovery: only bootnodes' RLPx and trusted peers. */
  "disable-discovery": boolean;
  /** Comma-separated enode URLs (or `enr:` records, discv5 only) to bootstrap discovery from (default: the network's). */
  bootnodes: string | undefined;
  /** Comma-separated enode URLs always connected (above the peer limits). */
  "trusted-peers": string | undefined;
  /** Most outbound peers. */
  "max-outbound-peers": number;
  /** Most inbound peers. */
  "max-inbound-peers": number;
  /** Node key file (hex secp256k1 key); default `<datadir>/discovery-secret`. */
  "p2p-secret-key": string | undefined;
  /** `extip:<ip>`: the address announced in the enode and discovery. */
  nat: string | undefined;
  /** Announce new pool transactions to peers (off by default on OP chains, as op-reth). */
  "txpool.gossip": boolean;
  // ---- parity-style tracing (trace_*) ----
  /** Most blocks one trace_filter request may span (reth `--rpc.max-trace-filter-blocks`). */
  "rpc.max-trace-filter-blocks": number;
  /** eth_getLogs / eth_getFilterLogs: most logs in one answer, 0 = no limit (reth `--rpc.max-logs-per-response`). */
  "rpc.max-logs-per-response": number;
  /** eth_getLogs / eth_getFilterLogs: most blocks one range may span, 0 = no limit (reth `--rpc.max-blocks-per-filter`). */
  "rpc.max-blocks-per-filter": number;
  /** Blocks whose rendered answers (eth_getBlockBy*, eth_getBlockReceipts) the response cache keeps; 0 = no cache. */
  "rpc.response-cache-blocks": number;
  // ---- polling filters (eth_newFilter…) ----
  /** Most filters installed at once. */
  "rpc.max-filters": number;
  /** Kernel readahead on the chain store (off by default: random reads). */
  "db.read-ahead": boolean;
}

/** The dotted name of an option, e.g. `"http.port"`. */
export type OptionName = keyof BasaltOptions;

/** Maps a TypeScript value type to the name of its option type in the table ("number", "boolean", "string"). */
type OptionTypeOf<V> = [V] extends [number] ? "number" : [V] extends [boolean] ? "boolean" : "string";

/** The help-text group of an option. */
type OptionGroup = "node" | "rpc" | "engine" | "sync" | "flashblocks" | "operations" | "batcher" | "p2p" | "devp2p" | "dev" | "storage" | "logging" | "import/export";

/** Groups in help-text order, with their headings. */
export const OPTION_GROUPS: readonly { group: OptionGroup; title: string }[] = [
  { group: "node", title: "Node" },
  { group: "rpc", title: "JSON-RPC" },
  { group: "engine", title: "Engine API" },
  { group: "sync", title: "Follow mode" },
  { group: "flashblocks", title: "Flashblocks" },
  { group: "operations", title: "Operations (sync status, metrics, public endpoints, L1, proofs)" },
  { group: "batcher", title: "Batcher (posting the L2 chain to L1)" },
  { group: "p2p", title: "Consensus P2P (unsafe blocks over libp2p gossip, discv5; op-node's --p2p.* flags)" },
  { group: "dev", title: "Devnet" },
  { group: "storage", title: "Storage" },
  { group: "logging", title: "Logging" },
  { group: "import/export", title: "Import/export" },
  { group: "devp2p", title: "Execution-layer networking (devp2p: RLPx eth/68–69 on 30303; discv5 'basev0' on 9200 on Base networks, discovery v4 on 30303 elsewhere)" },
];

/**
 * One row of the option table. With no type argument: the union of every row's type, so
 * checking `type` narrows `default`.
 */
export type OptionDefinition<K extends OptionName = OptionName> = { [P in K]: OptionRow<P> }[K];

/** The row of option `K` in the option table. */
interface OptionRow<K extends OptionName> {
  /** Dotted name; the flag is `--<name>`. */
  name: K;
  /** Value type: how the flag, environment variable and env-file entry are parsed. */
  type: OptionTypeOf<NonNullable<BasaltOptions[K]>>;
  /** One-line description for the help text. */
  description: string;
  /** Value when not given anywhere (absent: the option stays `undefined` or is derived). */
  default?: NonNullable<BasaltOptions[K]>;
  /** Help-text rendering of a default that is not a plain value (derived or computed later). */
  defaultDescription?: string;
  /** Help-text group. */
  group: OptionGroup;
  /** Commands that accept the option. */
  commands: readonly Command[];
  /** For string options: the only accepted values. */
  choices?: readonly string[];
  /** For number options: smallest accepted value (default 0). */
  min?: number;
  /** For number options: largest accepted value (default Number.MAX_SAFE_INTEGER). */
  max?: number;
  /** For number options: whether fractions are accepted (default false: integers only). */
  fractional?: boolean;
  /** Environment variable, when not the derived `BASALT_<NAME>` (see {@link envVarName}). */
  env?: string;
  /** Placeholder of the value in help text, e.g. `<path>` (default `<type>`). */
  valueName?: string;
}

const ALL: readonly Command[] = COMMANDS;
const MAX_PORT = 65_535;

/** The option table: one definition per field of {@link BasaltOptions}. */
export const OPTIONS: { readonly [K in OptionName]: OptionRow<K> } = {
  datadir: {
    name: "datadir",
    type: "string",
    description: "Data directory of the chain database",
    defaultDescription: "./data/<network>",
    group: "node",
    commands: ALL,
    valueName: "<path>",
  },
  network: {
    name: "network",
    type: "string",
    description:
      `Chain to run: "${DEVNET_NETWORK}" (development network), "${DEVNET_L1_NETWORK}" (local Ethereum L1 with a beacon API), ` +
      `${OP_NETWORK_NAMES.map((n) => `"${n}"`).join(" or ")} ` +
      "(Base; genesis from --genesis or downloaded), or the path of a genesis JSON file",
    default: DEVNET_NETWORK,
    group: "node",
    commands: ["node", "init"],
    valueName: `<${BUILTIN_NETWORKS.join("|")}|path>`,
  },
  genesis: {
    name: "genesis",
    type: "string",
    description:
      "Genesis JSON file (geth format) to initialise the data directory with; for a Base network, its published genesis (hash-checked)",
    group: "node",
    commands: ["init"],
    valueName: "<path>",
  },
  "genesis-url": {
    name: "genesis-url",
    type: "string",
    description: "URL the genesis of a Base network is downloaded from when no --genesis file is given (first start or init)",
    defaultDescription: "the network's published genesis-l2.json (base/node on GitHub)",
    group: "node",
    commands: ["node", "init"],
    valueName: "<url>",
  },
  "env-file": {
    name: "env-file",
    type: "string",
    description: "dotenv file of BASALT_* variables (below the environment and the command line in precedence)",
    group: "node",
    commands: ALL,
    valueName: "<path>",
  },
  "http.addr": {
    name: "http.addr",
    type: "string",
    description: "HTTP JSON-RPC listen address",
    default: DEFAULT_HTTP_ADDR,
    group: "rpc",
    commands: ["node"],
    valueName: "<address>",
  },
  "http.port": {
    name: "http.port",
    type: "number",
    description: "HTTP JSON-RPC listen port (0 = any free port)",
    default: DEFAULT_HTTP_PORT,
    group: "rpc",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "http.corsdomain": {
    name: "http.corsdomain",
    type: "string",
    description: 'Comma-separated origins allowed to call the HTTP JSON-RPC from a browser ("*" = any)',
    default: "",
    defaultDescription: "none",
    group: "rpc",
    commands: ["node"],
    valueName: "<origins>",
  },
  "http.api": {
    name: "http.api",
    type: "string",
    description: "Comma-separated namespaces served over HTTP, as geth's and reth's --http.api (eth, net, web3, debug, trace, txpool, admin, testing, dev, …)",
    defaultDescription: "every namespace (--public still turns debug, trace, admin, … off)",
    group: "rpc",
    commands: ["node"],
    valueName: "<namespaces>",
  },
  "ws.api": {
    name: "ws.api",
    type: "string",
    description: "Comma-separated namespaces served over WebSocket (as --http.api)",
    defaultDescription: "every namespace",
    group: "rpc",
    commands: ["node"],
    valueName: "<namespaces>",
  },
  "rpc.gascap": {
    name: "rpc.gascap",
    type: "number",
    description: "Gas cap of eth_call, eth_estimateGas and eth_createAccessList",
    default: Number(RPC_GAS_CAP),
    group: "rpc",
    commands: ["node"],
    valueName: "<gas>",
  },
  "rpc.evmtimeout": {
    name: "rpc.evmtimeout",
    type: "number",
    description: "Wall-clock limit of one eth_call-like execution, in milliseconds (0 = none)",
    default: RPC_EVM_TIMEOUT_MS,
    group: "rpc",
    commands: ["node"],
    valueName: "<ms>",
  },
  evm: {
    name: "evm",
    type: "string",
    description:
      "EVM engine: fast (basalt's core; what it does not support, and any block or flashblock whose result it gets wrong, runs on the reference engine) or reference (@ethereumjs/vm only)",
    default: DEFAULT_EVM_ENGINE,
    group: "node",
    commands: ["node", "import"],
    choices: EVM_ENGINES,
    valueName: "<engine>",
  },
  "rpc.threads": {
    name: "rpc.threads",
    type: "number",
    description: "Worker threads executing eth_call, eth_estimateGas and eth_createAccessList (default: cores - 1)",
    default: DEFAULT_EXECUTION_THREADS,
    group: "rpc",
    commands: ["node", "import"],
    min: 1,
  },
  "rpc.queue": {
    name: "rpc.queue",
    type: "number",
    description: "Call-family requests allowed to wait for an execution thread; beyond it -32005 at once",
    default: DEFAULT_EXECUTION_THREADS * EXECUTION_QUEUE_PER_THREAD,
    group: "rpc",
    commands: ["node"],
    min: 1,
  },
  "rpc.batch-limit": {
    name: "rpc.batch-limit",
    type: "number",
    description: "Most requests in one JSON-RPC batch",
    default: MAX_BATCH_LENGTH,
    group: "rpc",
    commands: ["node"],
    min: 1,
  },
  "rpc.max-body": {
    name: "rpc.max-body",
    type: "number",
    description: "Largest HTTP request body, in bytes",
    default: MAX_REQUEST_BODY_BYTES,
    group: "rpc",
    commands: ["node"],
    min: 1,
    valueName: "<bytes>",
  },
  "authrpc.addr": {
    name: "authrpc.addr",
    type: "string",
    description: "Engine API (JWT-authenticated) listen address",
    default: DEFAULT_HTTP_ADDR,
    group: "engine",
    commands: ["node"],
    valueName: "<address>",
  },
  "authrpc.port": {
    name: "authrpc.port",
    type: "number",
    description: "Engine API listen port (0 = any free port)",
    default: DEFAULT_AUTHRPC_PORT,
    group: "engine",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "authrpc.jwtsecret": {
    name: "authrpc.jwtsecret",
    type: "string",
    description: "File holding the hex-encoded 32-byte JWT secret of the Engine API",
    defaultDescription: "<datadir>/jwt.hex, generated if absent",
    group: "engine",
    commands: ["node"],
    valueName: "<path>",
  },
  ws: {
    name: "ws",
    type: "boolean",
    description: "Serve JSON-RPC over WebSocket, with eth_subscribe (newHeads, logs, newFlashblocks, pendingLogs, newFlashblockTransactions)",
    default: false,
    group: "rpc",
    commands: ["node"],
  },
  "ws.addr": {
    name: "ws.addr",
    type: "string",
    description: "WebSocket JSON-RPC listen address",
    default: DEFAULT_WS_ADDR,
    group: "rpc",
    commands: ["node"],
    valueName: "<address>",
  },
  "ws.port": {
    name: "ws.port",
    type: "number",
    description: "WebSocket JSON-RPC listen port (0 = any free port)",
    default: DEFAULT_WS_PORT,
    group: "rpc",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "follow-rpc": {
    name: "follow-rpc",
    type: "string",
    description:
      "Trusted L2 JSON-RPC to follow: every block is fetched, executed and checked against its hash and state root; " +
      "http(s):// is polled, ws(s):// is also subscribed to newHeads. Turns local block production off",
    group: "sync",
    commands: ["node", "doctor"],
    valueName: "<url>",
  },
  "follow.poll-interval": {
    name: "follow.poll-interval",
    type: "number",
    description: "Follow mode: milliseconds between polls of the trusted RPC's head",
    default: DEFAULT_FOLLOW_POLL_INTERVAL_MS,
    group: "sync",
    commands: ["node"],
    min: 10,
    valueName: "<ms>",
  },
  "sequencer-http": {
    name: "sequencer-http",
    type: "string",
    description: "Sequencer JSON-RPC that eth_sendRawTransaction is forwarded to (the transaction is also kept in the local mempool)",
    group: "sync",
    commands: ["node"],
    valueName: "<url>",
  },
  "flashblocks-url": {
    name: "flashblocks-url",
    type: "string",
    description: "Flashblocks WebSocket stream (ws:// or wss://) whose pre-confirmations answer the `pending` block tag",
    group: "flashblocks",
    commands: ["node"],
    env: "BASALT_FB_WEBSOCKET_URL",
    valueName: "<url>",
  },
  "flashblocks.interval": {
    name: "flashblocks.interval",
    type: "number",
    description: "Devnet: milliseconds between published flashblocks (0 = publish none)",
    default: DEFAULT_FLASHBLOCKS_INTERVAL_MS,
    group: "flashblocks",
    commands: ["node"],
    valueName: "<ms>",
  },
  "flashblocks.addr": {
    name: "flashblocks.addr",
    type: "string",
    description: "Devnet: listen address of the flashblocks WebSocket server (subscribers at / and /ws)",
    default: DEFAULT_WS_ADDR,
    group: "flashblocks",
    commands: ["node"],
    valueName: "<address>",
  },
  "flashblocks.port": {
    name: "flashblocks.port",
    type: "number",
    description: "Devnet: port of the flashblocks WebSocket server (0 = any free port)",
    default: DEFAULT_FLASHBLOCKS_PORT,
    group: "flashblocks",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "flashblocks.format": {
    name: "flashblocks.format",
    type: "string",
    description: 'Devnet: frame format, "brotli" (binary, as Base\'s public stream) or "text" (JSON); a subscriber may ask with ?format=',
    default: "brotli",
    group: "flashblocks",
    commands: ["node"],
    choices: FLASHBLOCKS_FORMATS,
    valueName: "<format>",
  },
  rollup: {
    name: "rollup",
    type: "boolean",
    description: "Serve the consensus-side RPC: optimism_syncStatus, optimism_outputAtBlock, optimism_rollupConfig, optimism_version, healthz",
    default: true,
    group: "operations",
    commands: ["node"],
  },
  "rollup.addr": {
    name: "rollup.addr",
    type: "string",
    description: "Consensus-side RPC listen address",
    default: DEFAULT_HTTP_ADDR,
    group: "operations",
    commands: ["node"],
    valueName: "<ip>",
  },
  "rollup.port": {
    name: "rollup.port",
    type: "number",
    description: "Consensus-side RPC listen port (the sync check's port)",
    default: DEFAULT_ROLLUP_PORT,
    group: "operations",
    commands: ["node"],
    valueName: "<port>",
  },
  metrics: {
    name: "metrics",
    type: "boolean",
    description: "Serve Prometheus metrics on --metrics.addr:--metrics.port at /metrics",
    default: false,
    group: "operations",
    commands: ["node"],
  },
  "metrics.addr": {
    name: "metrics.addr",
    type: "string",
    description: "Prometheus metrics listen address",
    default: DEFAULT_HTTP_ADDR,
    group: "operations",
    commands: ["node"],
    valueName: "<ip>",
  },
  "metrics.port": {
    name: "metrics.port",
    type: "number",
    description: "Prometheus metrics listen port",
    default: DEFAULT_METRICS_PORT,
    group: "operations",
    commands: ["node"],
    valueName: "<port>",
  },
  public: {
    name: "public",
    type: "boolean",
    description: "Public-endpoint mode: per-IP rate limit (HTTP 429), eth_getBlockReceipts refused (HTTP 403), debug/admin/engine namespaces off, connection cap",
    default: false,
    group: "operations",
    commands: ["node"],
  },
  "public.rate": {
    name: "public.rate",
    type: "number",
    description: "Public mode: sustained requests per second per client IP (token bucket)",
    default: DEFAULT_PUBLIC_RATE_PER_IP,
    group: "operations",
    commands: ["node"],
    fractional: true,
    valueName: "<req/s>",
  },
  "public.burst": {
    name: "public.burst",
    type: "number",
    description: "Public mode: requests a client IP may send at once (bucket size)",
    default: DEFAULT_PUBLIC_BURST_PER_IP,
    group: "operations",
    commands: ["node"],
    min: 1,
  },
  "public.max-connections": {
    name: "public.max-connections",
    type: "number",
    description: "Public mode: most open connections (HTTP and WebSocket together)",
    default: DEFAULT_PUBLIC_MAX_CONNECTIONS,
    group: "operations",
    commands: ["node"],
    min: 1,
  },
  "l1.rpc": {
    name: "l1.rpc",
    type: "string",
    description: "L1 execution RPC URL (needed by derivation; checked by basalt doctor)",
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_L1_ETH_RPC",
    valueName: "<url>",
  },
  "l1.beacon": {
    name: "l1.beacon",
    type: "string",
    description: "L1 beacon API URL (blobs for derivation; checked by basalt doctor)",
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_L1_BEACON",
    valueName: "<url>",
  },
  "rollup.config": {
    name: "rollup.config",
    type: "string",
    description: "Rollup configuration (op-node rollup.json) of a custom OP chain, for derivation and sequencing from an L1; built-in networks have their own",
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_ROLLUP_CONFIG",
    valueName: "<file>",
  },
  "upgrade-signal.contract": {
    name: "upgrade-signal.contract",
    type: "string",
    description:
      "Base's L1 upgrade-signal contract (ProtocolVersions getSchedule()), read with --l1.rpc: an upgrade it schedules that this basalt " +
      "does not implement is reported and the node stops at its activation; none = do not read it",
    defaultDescription: "the Base network's (other chains: none)",
    group: "operations",
    commands: ["node", "doctor"],
    valueName: "<address|none>",
  },
  "upgrade-signal.l1-block-tag": {
    name: "upgrade-signal.l1-block-tag",
    type: "string",
    description: "L1 block tag the upgrade signal is read at; also how often: finalized every 15 min, safe every 6.4 min, latest every 12 s",
    default: "finalized",
    group: "operations",
    commands: ["node", "doctor"],
    choices: UPGRADE_SIGNAL_BLOCK_TAGS,
    valueName: "<tag>",
  },
  "l1.block-time": {
    name: "l1.block-time",
    type: "number",
    description: "Seconds between L1 blocks: derivation asks for the next L1 block when it is due, never faster",
    default: DEFAULT_L1_BLOCK_TIME_S,
    group: "operations",
    commands: ["node"],
    env: "BASALT_L1_BLOCK_TIME",
    min: 1,
    valueName: "<seconds>",
  },
  sequencer: {
    name: "sequencer",
    type: "boolean",
    description:
      "Sequence blocks. On a custom OP chain it needs --rollup.config and --l1.rpc: L1 origins, deposits and system-config updates come from that L1, " +
      "and block n is sealed at genesis time + n × block time",
    defaultDescription: "on for the built-in devnet (simulated L1), off otherwise",
    group: "operations",
    commands: ["node"],
  },
  "sequencer.l1-confs": {
    name: "sequencer.l1-confs",
    type: "number",
    description: "Sequencer on a real L1: L1 blocks that must be on top of an L1 block before it becomes an L2 block's origin",
    default: DEFAULT_SEQUENCER_L1_CONFS,
    group: "operations",
    commands: ["node"],
    valueName: "<blocks>",
  },
  "devnet.port-base": {
    name: "devnet.port-base",
    type: "number",
    description: "basalt devnet rollup: give the L1, sequencer and verifier consecutive ports from this one (0: any free ports); unset: L1 8645, beacon 5052, sequencer 8545/8546/8551, rollup RPC 7545, flashblocks 1111, verifier 9545/9546/9551/9547",
    group: "dev",
    commands: ["devnet"],
    env: "BASALT_DEVNET_PORT_BASE",
    min: 0,
    valueName: "<port>",
  },
  "enable-metering": {
    name: "enable-metering",
    type: "boolean",
    description: "Metering RPC as base-reth-node's --enable-metering: base_meterBundle, base_meterBlockByHash, base_meterBlockByNumber, base_meteredPriorityFeePerGas (measured on the execution pool)",
    default: false,
    group: "rpc",
    commands: ["node"],
  },
  "metering.gas-limit": {
    name: "metering.gas-limit",
    type: "number",
    description: "base_meteredPriorityFeePerGas: gas capacity per block it estimates against (unset with the other limits: the method answers Base's 'not configured')",
    group: "rpc",
    commands: ["node"],
    min: 1,
    valueName: "<gas>",
  },
  "metering.execution-time-us": {
    name: "metering.execution-time-us",
    type: "number",
    description: "base_meteredPriorityFeePerGas: EVM execution time budget per block, microseconds",
    group: "rpc",
    commands: ["node"],
    min: 1,
    valueName: "<us>",
  },
  "metering.da-bytes": {
    name: "metering.da-bytes",
    type: "number",
    description: "base_meteredPriorityFeePerGas: DA bytes (FastLZ-compressed) per block",
    group: "rpc",
    commands: ["node"],
    min: 1,
    valueName: "<bytes>",
  },
  "metering.priority-fee-percentile": {
    name: "metering.priority-fee-percentile",
    type: "number",
    description: "base_meteredPriorityFeePerGas: percentile (0..1) of the fees above the threshold that is recommended (Base's default 0.5)",
    default: 0.5,
    group: "rpc",
    commands: ["node"],
    min: 0,
    max: 1,
    fractional: true,
  },
  "metering.uncongested-priority-fee": {
    name: "metering.uncongested-priority-fee",
    type: "number",
    description: "base_meteredPriorityFeePerGas: fee answered for an uncongested resource, wei (Base's default 1000000)",
    default: 1_000_000,
    group: "rpc",
    commands: ["node"],
    valueName: "<wei>",
  },
  "historical-proofs": {
    name: "historical-proofs",
    type: "boolean",
    description: "Historical proofs extension: eth_getProof over a window of blocks from a RocksDB store (<datadir>/proofs), debug_proofsSyncStatus",
    default: false,
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_HISTORICAL_PROOFS",
  },
  "proofs.history-window": {
    name: "proofs.history-window",
    type: "number",
    description: "Historical proofs: blocks kept (default 28 days of 2 s blocks)",
    default: DEFAULT_PROOFS_HISTORY_WINDOW,
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_PROOFS_HISTORY_WINDOW",
    min: 1,
    valueName: "<blocks>",
  },
  "proofs.max-blocks-ahead": {
    name: "proofs.max-blocks-ahead",
    type: "number",
    description: "Follow mode with historical proofs: most blocks the follower imports beyond the proofs store's latest block (as Base's --proofs.max-blocks-ahead)",
    default: DEFAULT_PROOFS_MAX_BLOCKS_AHEAD,
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_PROOFS_MAX_BLOCKS_AHEAD",
    min: 1,
    valueName: "<blocks>",
  },
  "proofs.path": {
    name: "proofs.path",
    type: "string",
    description: "Historical proofs: directory of the proofs store (default <datadir>/proofs); also where `basalt snapshot` exports it from and imports it to",
    default: "",
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_PROOFS_PATH",
    valueName: "<dir>",
  },
  "rpc.eth-proof-window": {
    name: "rpc.eth-proof-window",
    type: "number",
    description: "eth_getProof: most blocks below the head it answers for (0 = all the state history kept); accepted and ignored with --historical-proofs, whose window applies",
    default: 0,
    group: "operations",
    commands: ["node", "doctor"],
    env: "BASALT_RPC_ETH_PROOF_WINDOW",
    min: 0,
    valueName: "<blocks>",
  },
  batcher: {
    name: "batcher",
    type: "boolean",
    description: "Run the batcher: post the L2 chain to L1 as span batches in brotli channels, in blobs or calldata (needs an OP chain's rollup config, built-in or --rollup.config, --l1.rpc and --batcher.key)",
    default: false,
    group: "batcher",
    commands: ["node"],
  },
  "batcher.key": {
    name: "batcher.key",
    type: "string",
    description: "The batcher's private key (32 bytes hex); its address must be the rollup's batcher (the system config's)",
    group: "batcher",
    commands: ["node"],
    valueName: "<hex>",
  },
  "batcher.data": {
    name: "batcher.data",
    type: "string",
    description: "Where batches go: blobs (EIP-4844, one frame per blob) or calldata (one frame per transaction of at most 120,000 bytes)",
    default: "blobs",
    group: "batcher",
    commands: ["node"],
    choices: BATCHER_DATA_CHOICES,
    valueName: "<blobs|calldata>",
  },
  "batcher.max-channel-duration": {
    name: "batcher.max-channel-duration",
    type: "number",
    description: "L1 blocks a channel stays open before it is posted, full or not (below the channel timeout, 50 from Granite)",
    default: DEFAULT_BATCHER_MAX_CHANNEL_DURATION,
    group: "batcher",
    commands: ["node"],
    min: 1,
    valueName: "<blocks>",
  },
  "batcher.num-confirmations": {
    name: "batcher.num-confirmations",
    type: "number",
    description: "L1 blocks deep a batcher transaction must be to count as confirmed",
    default: DEFAULT_BATCHER_NUM_CONFIRMATIONS,
    group: "batcher",
    commands: ["node"],
    min: 1,
    valueName: "<blocks>",
  },
  "batcher.blobs-per-tx": {
    name: "batcher.blobs-per-tx",
    type: "number",
    description: "Most blobs per batcher transaction (a channel fills this many blobs)",
    default: DEFAULT_BATCHER_BLOBS_PER_TX,
    group: "batcher",
    commands: ["node"],
    min: 1,
    max: BATCHER_MAX_BLOBS_PER_TX,
    valueName: "<blobs>",
  },
  "dev.block-time": {
    name: "dev.block-time",
    type: "number",
    description: "Devnet block time in seconds (0 = seal a block only on demand); on devnet-l1 the slot length, whole seconds ≥ 1",
    default: DEFAULT_DEV_BLOCK_TIME_S,
    defaultDescription: `${DEFAULT_DEV_BLOCK_TIME_S} (${L1DEV_DEFAULT_SLOT_SECONDS} on ${DEVNET_L1_NETWORK})`,
    group: "dev",
    commands: ["node"],
    fractional: true,
    valueName: "<seconds>",
  },
  "dev.beryl-time": {
    name: "dev.beryl-time",
    type: "number",
    description: "Devnet: unix time (seconds) at which Base's Beryl upgrade (the B-20 precompiles, V1) activates; set when the datadir is created",
    defaultDescription: "at genesis",
    group: "dev",
    commands: ["node", "init"],
    min: 0,
    valueName: "<unix-seconds>",
  },
  "dev.cobalt-time": {
    name: "dev.cobalt-time",
    type: "number",
    description: "Devnet: unix time (seconds) at which Base's Cobalt upgrade (the B-20 precompiles, V2) activates; set when the datadir is created",
    defaultDescription: "with Beryl",
    group: "dev",
    commands: ["node", "init"],
    min: 0,
    valueName: "<unix-seconds>",
  },
  "beacon.addr": {
    name: "beacon.addr",
    type: "string",
    description: `${DEVNET_L1_NETWORK}: listen address of the beacon API serving the chain's blobs (/eth/v1/beacon/blobs/{slot})`,
    default: DEFAULT_HTTP_ADDR,
    group: "dev",
    commands: ["node"],
    valueName: "<address>",
  },
  "beacon.port": {
    name: "beacon.port",
    type: "number",
    description: `${DEVNET_L1_NETWORK}: beacon API listen port (0 = any free port)`,
    default: DEFAULT_BEACON_PORT,
    group: "dev",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  archive: {
    name: "archive",
    type: "boolean",
    description: "Keep the state of every block (archive node) instead of the recent history only",
    defaultDescription: `true on ${DEVNET_NETWORK} and ${DEVNET_L1_NETWORK}, false otherwise`,
    group: "storage",
    commands: ["node", "init", "import"],
  },
  "history.blocks": {
    name: "history.blocks",
    type: "number",
    description: "Blocks of state history kept when not an archive node",
    default: DEFAULT_STATE_HISTORY_BLOCKS,
    group: "storage",
    commands: ["node", "import"],
    valueName: "<blocks>",
  },
  // --- consensus-layer P2P: op-node's flag names and defaults (op-node/flags/p2p_flags.go) ---
  "p2p.disable": {
    name: "p2p.disable",
    type: "boolean",
    description: "Turn the consensus-layer P2P stack off (no unsafe blocks over gossip)",
    default: false,
    group: "p2p",
    commands: ["node"],
  },
  "p2p.no-discovery": {
    name: "p2p.no-discovery",
    type: "boolean",
    description: "Turn discv5 (node discovery) off; only --p2p.static peers and inbound peers connect",
    default: false,
    group: "p2p",
    commands: ["node"],
  },
  "p2p.listen.ip": {
    name: "p2p.listen.ip",
    type: "string",
    description: "IP libp2p (TCP) and discv5 (UDP) bind to",
    default: DEFAULT_P2P_LISTEN_IP,
    group: "p2p",
    commands: ["node"],
    valueName: "<ip>",
  },
  "p2p.listen.tcp": {
    name: "p2p.listen.tcp",
    type: "number",
    description: "libp2p TCP port (0 = any free port)",
    default: DEFAULT_P2P_LISTEN_TCP_PORT,
    group: "p2p",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "p2p.listen.udp": {
    name: "p2p.listen.udp",
    type: "number",
    description: "discv5 UDP port (0 = the TCP port; any free port when that is 0 too)",
    default: DEFAULT_P2P_LISTEN_UDP_PORT,
    group: "p2p",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "p2p.advertise.ip": {
    name: "p2p.advertise.ip",
    type: "string",
    description: "IP put in the node record (ENR) other nodes dial",
    defaultDescription: "the listen IP (127.0.0.1 when it is 0.0.0.0)",
    group: "p2p",
    commands: ["node"],
    valueName: "<ip>",
  },
  "p2p.bootnodes": {
    name: "p2p.bootnodes",
    type: "string",
    description: "Comma-separated ENRs (enr:…, or enode:// URLs) discovery starts from",
    defaultDescription: "op-node's default bootnodes on base-mainnet and base-sepolia, none otherwise",
    group: "p2p",
    commands: ["node"],
    valueName: "<enr,...>",
  },
  "p2p.static": {
    name: "p2p.static",
    type: "string",
    description: "Comma-separated multiaddrs (/ip4/…/tcp/…/p2p/<peer id>) of peers always kept connected and redialed",
    default: "",
    defaultDescription: "none",
    group: "p2p",
    commands: ["node"],
    valueName: "<multiaddr,...>",
  },
  "p2p.peers.lo": {
    name: "p2p.peers.lo",
    type: "number",
    description: "Low-tide peer count: below it the node dials discovered peers",
    default: DEFAULT_P2P_PEERS_LO,
    group: "p2p",
    commands: ["node"],
    valueName: "<peers>",
  },
  "p2p.peers.hi": {
    name: "p2p.peers.hi",
    type: "number",
    description: "High-tide peer count: the most connections kept",
    default: DEFAULT_P2P_PEERS_HI,
    group: "p2p",
    commands: ["node"],
    min: 1,
    valueName: "<peers>",
  },
  "p2p.priv.path": {
    name: "p2p.priv.path",
    type: "string",
    description: "File of the hex-encoded 32-byte secp256k1 key of the node's peer ID; created if it does not exist",
    defaultDescription: `<datadir>/${P2P_PRIV_FILE_NAME}`,
    group: "p2p",
    commands: ["node"],
    valueName: "<path>",
  },
  "p2p.sequencer.key": {
    name: "p2p.sequencer.key",
    type: "string",
    description: "Hex private key the sequencer signs the blocks it gossips with",
    group: "p2p",
    commands: ["node"],
    valueName: "<hex>",
  },
  "p2p.ban.peers": {
    name: "p2p.ban.peers",
    type: "boolean",
    description: "Disconnect and ban peers whose gossip score falls below op-node's ban threshold (-100)",
    default: true,
    group: "p2p",
    commands: ["node"],
  },
  "p2p.ban.duration": {
    name: "p2p.ban.duration",
    type: "number",
    description: "Seconds a score ban lasts",
    default: DEFAULT_P2P_BAN_DURATION_S,
    group: "p2p",
    commands: ["node"],
    min: 1,
    valueName: "<seconds>",
  },
  "log.level": {
    name: "log.level",
    type: "string",
    description: "Least severe level logged",
    default: "info",
    group: "logging",
    commands: ALL,
    choices: LOG_LEVELS,
    valueName: "<level>",
  },
  "log.format": {
    name: "log.format",
    type: "string",
    description: "Log line format",
    default: "json",
    group: "logging",
    commands: ALL,
    choices: LOG_FORMATS,
    valueName: "<format>",
  },
  from: {
    name: "from",
    type: "number",
    description: "First block to export (inclusive)",
    defaultDescription: "1 (chain files hold no genesis)",
    group: "import/export",
    commands: ["export"],
    valueName: "<block>",
  },
  to: {
    name: "to",
    type: "number",
    description: "Last block to export (inclusive)",
    defaultDescription: "the head block",
    group: "import/export",
    commands: ["export"],
    valueName: "<block>",
  },
  // ---- execution-layer networking (devp2p; reth's flag names) ----
  "p2p.el.disable": {
    name: "p2p.el.disable",
    type: "boolean",
    description: "Turn the execution-layer network off (no RLPx, no discovery)",
    default: false,
    group: "devp2p",
    commands: ["node"],
  },
  port: {
    name: "port",
    type: "number",
    description: "RLPx TCP listen port (0 = any free port)",
    default: DEFAULT_P2P_EL_PORT,
    group: "devp2p",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  addr: {
    name: "addr",
    type: "string",
    description: "RLPx listen address",
    default: DEFAULT_P2P_EL_ADDR,
    group: "devp2p",
    commands: ["node"],
    valueName: "<address>",
  },
  "discovery.port": {
    name: "discovery.port",
    type: "number",
    description: "Discovery v4 UDP port (0 = any free port); discovery v4 runs on plain Ethereum chains, on OP chains only with --rollup.discovery.v4",
    default: DEFAULT_P2P_EL_DISCOVERY_PORT,
    group: "devp2p",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "discovery.addr": {
    name: "discovery.addr",
    type: "string",
    description: "UDP listen address of discovery (v4 and v5; IPv4)",
    default: DEFAULT_P2P_EL_ADDR,
    group: "devp2p",
    commands: ["node"],
    valueName: "<address>",
  },
  "discovery.v5.port": {
    name: "discovery.v5.port",
    type: "number",
    description: "Discovery v5 UDP port (0 = any free port); on OP chains it runs under Base's protocol id 'basev0' (reth's flag of the same name)",
    default: DEFAULT_P2P_EL_DISCV5_PORT,
    group: "devp2p",
    commands: ["node"],
    max: MAX_PORT,
    valueName: "<port>",
  },
  "rollup.discovery.v4": {
    name: "rollup.discovery.v4",
    type: "boolean",
    description: "On OP chains (Base networks, the devnet) also run discovery v4 on --discovery.port, as Base's node's flag of the same name; plain Ethereum chains always run it",
    default: false,
    group: "devp2p",
    commands: ["node"],
  },
  "disable-discovery": {
    name: "disable-discovery",
    type: "boolean",
    description: "No discovery (neither v4 nor v5): connect to trusted peers (and admin_addPeer) only",
    default: false,
    group: "devp2p",
    commands: ["node"],
  },
  bootnodes: {
    name: "bootnodes",
    type: "string",
    description: "Comma-separated enode URLs (for discv5 also enr: records) discovery starts from; an enode's ?discport= is its discovery UDP port",
    defaultDescription: "the network's published bootnodes: Base's execution bootnodes on 9200 for discv5, the OP Stack's and Base's (30301) for discovery v4; none on the devnets",
    group: "devp2p",
    commands: ["node"],
    valueName: "<enodes>",
  },
  "trusted-peers": {
    name: "trusted-peers",
    type: "string",
    description: "Comma-separated enode URLs kept connected, above the peer limits",
    group: "devp2p",
    commands: ["node"],
    valueName: "<enodes>",
  },
  "max-outbound-peers": {
    name: "max-outbound-peers",
    type: "number",
    description: "Most outbound RLPx peers",
    default: DEFAULT_P2P_EL_MAX_OUTBOUND,
    group: "devp2p",
    commands: ["node"],
  },
  "max-inbound-peers": {
    name: "max-inbound-peers",
    type: "number",
    description: "Most inbound RLPx peers",
    default: DEFAULT_P2P_EL_MAX_INBOUND,
    group: "devp2p",
    commands: ["node"],
  },
  "p2p-secret-key": {
    name: "p2p-secret-key",
    type: "string",
    description: "File of the node key (64 hex digits); created with a new key if absent",
    defaultDescription: `<datadir>/${P2P_EL_SECRET_FILE}`,
    group: "devp2p",
    commands: ["node"],
    valueName: "<path>",
  },
  nat: {
    name: "nat",
    type: "string",
    description: "extip:<ip>: the public IP announced in the enode URL and discovery pings",
    group: "devp2p",
    commands: ["node"],
    valueName: "<extip:ip>",
  },
  "txpool.gossip": {
    name: "txpool.gossip",
    type: "boolean",
    description: "Announce new pool transactions to peers and serve them (off by default, as op-reth on OP chains)",
    default: false,
    group: "devp2p",
    commands: ["node"],
  },
  // ---- parity-style tracing (trace_*) ----
  "rpc.max-trace-filter-blocks": {
    name: "rpc.max-trace-filter-blocks",
    type: "number",
    description: "trace_filter: most blocks one request may span (each is replayed), as reth's flag of the same name",
    default: TRACE_FILTER_MAX_BLOCKS,
    group: "rpc",
    commands: ["node"],
    min: 1,
    valueName: "<blocks>",
  },
  // ---- logs (eth_getLogs, eth_getFilterLogs) ----
  "rpc.max-logs-per-response": {
    name: "rpc.max-logs-per-response",
    type: "number",
    description: "eth_getLogs, eth_getFilterLogs: most logs one answer over several blocks may hold (0 = no limit), as reth's flag of the same name",
    default: MAX_LOGS_PER_RESPONSE,
    group: "rpc",
    commands: ["node"],
    min: 0,
    valueName: "<logs>",
  },
  "rpc.max-blocks-per-filter": {
    name: "rpc.max-blocks-per-filter",
    type: "number",
    description: "eth_getLogs, eth_getFilterLogs: most blocks one range may span beyond its first (0 = no limit), as reth's flag of the same name",
    default: MAX_LOGS_BLOCK_RANGE,
    group: "rpc",
    commands: ["node"],
    min: 0,
    valueName: "<blocks>",
  },
  "rpc.response-cache-blocks": {
    name: "rpc.response-cache-blocks",
    type: "number",
    description: "blocks whose final eth_getBlockBy*/eth_getBlockReceipts answers are kept rendered (0: render every request; benchmarks of the uncached path)",
    default: RESPONSE_CACHE_BLOCKS,
    group: "rpc",
    commands: ["node"],
    min: 0,
    valueName: "<blocks>",
  },
  // ---- polling filters (eth_newFilter…) ----
  "rpc.max-filters": {
    name: "rpc.max-filters",
    type: "number",
    description: "eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter: most filters installed at once (each expires after five minutes without a poll)",
    default: DEFAULT_MAX_FILTERS,
    group: "rpc",
    commands: ["node"],
    env: "BASALT_RPC_MAX_FILTERS",
    min: 1,
    valueName: "<count>",
  },
  "db.read-ahead": {
    name: "db.read-ahead",
    type: "boolean",
    description:
      "Kernel readahead on the chain store's memory map. Off by default: a node's state reads are random, and with readahead each cold read brings in up to a megabyte around its page (measured at 3 M accounts: cold eth_getBalance p90 7.5 → 0.65 ms, 1 GiB → 3 MiB read from disk); on warms the page cache faster when the datadir fits in RAM",
    default: false,
    group: "operations",
    commands: ["node"],
    env: "BASALT_DB_READ_AHEAD",
  },
};

/** All option definitions, in table order. */
export const OPTION_LIST: readonly OptionDefinition[] = Object.values(OPTIONS) as OptionDefinition[];

/** Whether `name` is a known option name. */
export function isOptionName(name: string): name is OptionName {
  return Object.prototype.hasOwnProperty.call(OPTIONS, name);
}

/**
 * The environment variable of an option: `BASALT_` + the name upper-cased with `.` and `-`
 * replaced by `_` (e.g. `http.port` → `BASALT_HTTP_PORT`, `dev.block-time` → `BASALT_DEV_BLOCK_TIME`).
 */
export function envVarName(name: OptionName): string {
  const explicit = (OPTIONS[name] as { env?: string }).env;
  if (explicit !== undefined) return explicit;
  return `BASALT_${name.toUpperCase().replace(/[.-]/g, "_")}`;
}

/** Option definitions that `command` accepts, in table order. */
export function optionsFor(command: Command): OptionDefinition[] {
  return OPTION_LIST.filter((o) => o.commands.includes(command));
}

/**
 * The short network name used in the default data directory: a built-in network keeps its
 * name ("devnet", "base-mainnet", "base-sepolia"), a genesis path becomes its basename without
 * a `.json` extension (`/x/base-sepolia.json` → `base-sepolia`).
 */
export function networkName(network: string): string {
  if (isBuiltinNetwork(network)) return network;
  const base = path.basename(network);
  return base.toLowerCase().endsWith(".json") ? base.slice(0, -".json".length) : base;
}

/** Whether `network` is the built-in devnet. */
export function isDevnet(network: string): boolean {
  return network === DEVNET_NETWORK;
}

/** Whether `network` is the built-in local L1 (`devnet-l1`). */
export function isDevnetL1(network: string): boolean {
  return network === DEVNET_L1_NETWORK;
}

/** Whether `network` is a built-in Base network (`base-mainnet`, `base-sepolia`), not a genesis path. */
export function isBaseNetwork(network: string): boolean {
  return isOpNetworkName(network);
}

/** Whether `network` names a built-in network (the devnet, the local L1 or a Base network) rather than a genesis path. */
export function isBuiltinNetwork(network: string): boolean {
  return isDevnet(network) || isDevnetL1(network) || isBaseNetwork(network);
}

/** The historical-proofs store's directory: `--proofs.path`, or `<datadir>/proofs` when that is empty (its default). */
export function proofsStoreDir(datadir: string, proofsPath: string): string {
  return proofsPath === "" ? path.join(datadir, "proofs") : proofsPath;
}

/** The default data directory of a network: `./data/<networkName>`. */
export function defaultDatadir(network: string): string {
  return `./data/${networkName(network)}`;
}

/** The options object with every table default filled in (derived defaults not yet computed). */
export function tableDefaults(): Partial<BasaltOptions> {
  const out: Record<string, unknown> = {};
  for (const o of OPTION_LIST) out[o.name] = o.default;
  return out as Partial<BasaltOptions>;
}

/**
 * Fills the derived defaults into `opts`, for options not set explicitly (`explicit` holds the
 * names that were given on the command line, the environment or the env file):
 * `datadir` = `./data/<network>`, `archive` = (network is the devnet or devnet-l1), and on devnet-l1
 * `dev.block-time` = {@link L1DEV_DEFAULT_SLOT_SECONDS} (Ethereum's slot). `network` is the chain
 * the command works on (for `init` with `--genesis` and no explicit `--network`, the genesis path).
 */
export function applyDerivedDefaults(opts: Partial<BasaltOptions>, network: string, explicit: ReadonlySet<OptionName>): void {
  if (!explicit.has("datadir")) opts.datadir = defaultDatadir(network);
  if (!explicit.has("archive")) opts.archive = isDevnet(network) || isDevnetL1(network);
  if (!explicit.has("dev.block-time") && isDevnetL1(network)) opts["dev.block-time"] = L1DEV_DEFAULT_SLOT_SECONDS;
}
