/**
 * `basalt node`: opens (initializing when needed) a datadir and serves it: JSON-RPC over
 * HTTP, the authenticated Engine API, on the devnet the block producer, and on devnet-l1 the
 * slot-clock L1 producer with its beacon API.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { Chain } from "../../blockchain/chain.js";
import { devAccounts } from "../../chain/devnet.js";
import { devnetL1Genesis } from "../../chain/devnetL1.js";
import { commonFromGenesis } from "../../chain/chainSpec.js";
import { CLIENT_NAME } from "../../rpc/constants.js";
import { EXECUTION_WORKER_HEAP_MB } from "../../execution/constants.js";
import { SHUTDOWN_DRAIN_MS, SHUTDOWN_GRACE_MS, SHUTDOWN_POOL_WAIT_MS } from "../constants.js";
import type { BasaltOptions } from "../../config/options.js";
import { BUILTIN_NETWORKS, isBuiltinNetwork, proofsStoreDir } from "../../config/options.js";
import { ExecutionPool } from "../../execution/pool/executionPool.js";
import { SenderRecovery } from "../../execution/senderRecovery.js";
import type { RpcBackend } from "../../rpc/backend.js";
import { loadOrCreateJwtSecret } from "../../rpc/jwt.js";
import { blockMethods } from "../../rpc/methods/blocks.js";
import { callMethods } from "../../rpc/methods/call.js";
import { simulateMethods } from "../../rpc/methods/simulate.js";
import { sendBundleMethods } from "../../rpc/methods/sendBundle.js";
import { minerMethods } from "../../rpc/methods/miner.js";
import { meteringMethods, meteringSettingsOf } from "../../rpc/methods/metering.js";
import { testingMethods } from "../../rpc/methods/testing.js";
import { debugMethods } from "../../rpc/methods/debug.js";
import { witnessMethods } from "../../rpc/methods/witness.js";
import { traceMethods } from "../../rpc/methods/trace.js";
import { parityTraceMethods } from "../../rpc/methods/parityTrace.js";
import { engineMethods } from "../../rpc/methods/engine.js";
import { feeMethods } from "../../rpc/methods/fees.js";
import { logMethods } from "../../rpc/methods/logs.js";
import { nodeMethods } from "../../rpc/methods/node.js";
import { stateMethods } from "../../rpc/methods/state.js";
import { txpoolMethods } from "../../rpc/methods/txpool.js";
import { sendSyncMethods } from "../../rpc/methods/sendSync.js";
import { PublicPolicy } from "../../rpc/publicPolicy.js";
import { selectNamespaces } from "../../rpc/namespaces.js";
import { startMetricsServer, type MetricsServer } from "../../ops/metrics/server.js";
import { bindChainMetrics } from "../../blockchain/metrics.js";
import { bindLogIndexMetrics } from "../../storage/logIndexMetrics.js";
import { RpcHttpServer } from "../../rpc/server.js";
import { httpSubscriptionMethods, SubscriptionHub } from "../../rpc/subscriptions.js";
import { FilterRegistry } from "../../rpc/filters.js";
import { filterMethods } from "../../rpc/methods/filters.js";
import { poolAdminMethods } from "../../rpc/methods/poolAdmin.js";
import { flashblockHeightMethods } from "../../rpc/methods/flashblockHeight.js";
import { devAccountMethods } from "../../rpc/methods/devAccounts.js";
import { RpcWsServer } from "../../rpc/wsServer.js";
import type { MethodTable } from "../../rpc/types.js";
import { OpDevSequencer } from "../../sequencer/opDevSequencer.js";
import { devMethods } from "../../rpc/methods/dev.js";
import { TxPool } from "../../txpool/txpool.js";
import { Follower } from "../../sync/follower.js";
import { upgradeWatchFromOptions } from "../../ops/upgrades/fromOptions.js";
import { bindUpgradeGuardMetrics } from "../../blockchain/upgradeGuard.js";
import { SequencerForwarder } from "../../sync/sequencerForward.js";
import { CliError } from "../args.js";
import { to0x } from "../../util/bytes.js";
import { initGenesis, isDevnetGenesisHash } from "../../blockchain/genesisSource.js";
import { NO_PENDING, type PendingSource } from "../../flashblocks/pendingView.js";
import { FlashblocksService } from "../../flashblocks/service.js";
import { ProofsService } from "../../proofs/service.js";
import { FlashblocksPublisher } from "../../flashblocks/publisher.js";
import { startRollupServer, type RollupServer } from "../../rollup/server.js";
import { setDefaultEvmEngine } from "../../execution/evm/engine.js";
import { CallCache } from "../../rpc/callCache.js";
import { rollupConfigForChain } from "../../chain/op/rollupConfig.js";
import { DerivationService } from "../../derivation/service.js";
import { l1RefOf } from "../../rollup/blockRefs.js";
import { nodeSequencing, type NodeSequencing } from "./nodeSequencer.js";
import { batcherFromOptions } from "../../batcher/fromOptions.js";
import type { BatchSubmitter } from "../../batcher/submitter.js";
import { verifyBlobProof } from "../../derivation/kzg.js";
import { startL1Devnet, type L1Devnet } from "../../sequencer/l1Devnet.js";
import { l1DevMethods } from "../../rpc/methods/l1Dev.js";
import { devp2pFromOptions } from "../../p2p/el/fromOptions.js";
import { p2pMethods } from "../../rollup/p2pMethods.js";
import { nodeP2P } from "./nodeP2P.js";
import { ServiceStack, type Service } from "../../util/serviceStack.js";

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as { version: string };
    return pkg.version;
  } catch {
    return "0.0.0";
  }
}

/** A running node (for tests and the CLI). */
interface RunningNode {
  chain: Chain;
  /** The pending (pre-confirmed) state source the RPC answers `pending` from. */
  pending: PendingSource;
  httpPort: number;
  authPort: number;
  /** WebSocket JSON-RPC port (set with `--ws`). */
  wsPort?: number;
  /** Prometheus endpoint port (set with `--metrics`). */
  metricsPort?: number;
  /** Consensus-side RPC port (`--rollup`, OP chains only): optimism_syncStatus, optimism_outputAtBlock, … */
  rollupPort?: number;
  /** The batcher (`--batcher`). */
  batcher?: BatchSubmitter;
  /**
   * Stops the node: its services in reverse start order, the RPC drain first and the store last;
   * idempotent. Rejects (ServiceStackError `SERVICE_STOP_FAILED`) after every stop ran if some threw.
   */
  stop(): Promise<void>;
}

/** A {@link Service} from its start and stop (either may be synchronous). */
function service(name: string, start: () => unknown, stop: () => unknown, stopTimeoutMs?: number): Service {
  return { name, start: async () => void (await start()), stop: async () => void (await stop()), stopTimeoutMs };
}

/**
 * Starts a node from options; resolves once both servers listen. Everything it opens or starts
 * goes on one {@link ServiceStack}, in start order: a step that fails stops what already started
 * (last first) and surfaces its own error; the handle's `stop()` stops the same list the same way.
 */
export async function startNode(opts: BasaltOptions, log: Logger, explicitNetwork: boolean): Promise<RunningNode> {
  const datadir = opts.datadir;
  const initialized = existsSync(join(datadir, "chain"));
  const devSchedule = opts["dev.beryl-time"] !== undefined || opts["dev.cobalt-time"] !== undefined;
  if (!initialized || explicitNetwork || devSchedule) {
    // First start (or an explicit --network, or a devnet fork schedule to check): write/verify the genesis.
    await initGenesis(datadir, opts, { archive: opts.archive });
  }
  setDefaultEvmEngine(opts.evm);
  // The node opens the store first in this process: its readahead setting holds for the worker threads too.
  const chain = Chain.open(datadir, { archive: opts.archive, historyBlocks: opts["history.blocks"], logger: log, readAhead: opts["db.read-ahead"] });
  const services = new ServiceStack(log.child({ subsystem: "node" }));
  // The store closes last, whatever else is still stopping: it is waited for, not bounded.
  services.defer("chain", () => chain.close(), Infinity);
  // The one place a failed start is undone: everything on the stack stops, last started first, and the step's own error surfaces.
  return services.run(() => wireAndStart(opts, log, chain, services));
}

/** Builds the node's parts on the open `chain` and starts them in order on `services` (see {@link startNode}). */
async function wireAndStart(opts: BasaltOptions, log: Logger, chain: Chain, services: ServiceStack): Promise<RunningNode> {
  const datadir = opts.datadir;
  const isDevChain = await isDevnetGenesisHash(chain.genesisHash);
  // --sequencer: the devnet's simulated L1, or (a custom chain with --rollup.config) the real L1 of --l1.rpc.
  // --batcher: its rollup config, L1, key and options are checked before anything listens; it starts last.
  let derivationRef: DerivationService | undefined;
  const plan: NodeSequencing = await nodeSequencing(opts, chain, { isDevChain, following: opts["follow-rpc"] !== undefined, log });
  const realL1 = plan.l1;
  if (realL1 !== undefined) services.defer("sequencer L1 client", () => realL1.client.close());
  // Derivation on this node tells the batcher how far it has read L1 (op-batcher's stall rule).
  const batcher = batcherFromOptions(opts, chain, log, { derivedL1: () => derivationRef?.status().currentL1?.number });
  const l1Genesis = await Chain.buildGenesis(devnetL1Genesis(), commonFromGenesis(devnetL1Genesis()));
  const isL1DevChain = Buffer.from(l1Genesis.block.hash()).equals(chain.genesisHash);
  // Plain Ethereum chains take blob transactions with their sidecars; their KZG proofs are checked with the native KZG.
  const pool = new TxPool(chain, chain.op === undefined ? { blobProofCheck: (blob, commitment, proof) => verifyBlobProof(blob, commitment, proof) } : {});
  const ver = `${CLIENT_NAME}/v${version()}/${process.platform}-${process.arch}/node${process.versions.node}`;
  // Pre-confirmations: a worker thread ingests the flashblocks stream into shared memory.
  const flashblocks =
    opts["flashblocks-url"] !== undefined && chain.op !== undefined
      ? new FlashblocksService(chain, { datadir, url: opts["flashblocks-url"], logLevel: opts["log.level"], logFormat: opts["log.format"], evm: opts.evm }, log)
      : undefined;
  if (opts["flashblocks-url"] !== undefined && chain.op === undefined) {
    throw new CliError({ code: "CLI_INVALID_VALUE", option: "--flashblocks-url", value: opts["flashblocks-url"], expected: "an OP Stack chain (--network)" }, `--flashblocks-url: flashblocks need an OP Stack chain; ${opts.network} is not one`);
  }
  // --historical-proofs: a worker thread owns the proofs store (RocksDB) and keeps it in step with the chain.
  const proofs = opts["historical-proofs"]
    ? new ProofsService(chain, { datadir, path: proofsStoreDir(datadir, opts["proofs.path"]), window: opts["proofs.history-window"], logLevel: opts["log.level"], logFormat: opts["log.format"] }, log)
    : undefined;
  if (proofs !== undefined && opts["rpc.eth-proof-window"] > 0) {
    log.warn({ window: opts["rpc.eth-proof-window"] }, "--rpc.eth-proof-window is ignored while --historical-proofs is on: the proofs window (--proofs.history-window) applies");
  }
  // eth_call, eth_estimateGas and eth_createAccessList run in worker threads, never on this one.
  const calls = new ExecutionPool({
    threads: opts["rpc.threads"],
    maxQueue: opts["rpc.queue"],
    timeoutMs: opts["rpc.evmtimeout"],
    workerHeapMb: EXECUTION_WORKER_HEAP_MB,
    worker: {
      datadir,
      archive: opts.archive,
      historyBlocks: opts["history.blocks"],
      pending: flashblocks?.pendingSab,
      logLevel: opts["log.level"],
      logFormat: opts["log.format"],
      evm: opts.evm,
    },
    logger: log,
  });
  // Identical requests answered once: shared while in flight, cached per head (rpc/callCache.ts).
  const callCache = new CallCache(calls, (listener) => chain.onHead(listener));
  const backend: RpcBackend = {
    chain,
    pool,
    calls: callCache,
    settings: {
      gasCap: BigInt(opts["rpc.gascap"]),
      clientVersion: ver,
      ethProofWindow: opts["rpc.eth-proof-window"],
      maxTraceFilterBlocks: opts["rpc.max-trace-filter-blocks"],
      maxLogsPerResponse: opts["rpc.max-logs-per-response"],
      maxBlocksPerFilter: opts["rpc.max-blocks-per-filter"],
      responseCacheBlocks: opts["rpc.response-cache-blocks"],
    },
    proofs,
    pending: flashblocks ?? NO_PENDING,
    // Follow mode reports its progress while more than a couple of blocks behind the source.
    syncing: () => follower?.syncing() ?? false,
  };
  // Execution-layer network (devp2p: discovery v4 + RLPx eth/68 in a worker serving peers from the store); off with --p2p.el.disable.
  const devp2p = devp2pFromOptions(opts, chain, pool, ver, log);
  backend.network = devp2p;
  // The rollup configuration: a built-in network's, or --rollup.config's for a custom OP chain.
  const rollupConfig = chain.op === undefined ? undefined : rollupConfigForChain(chain.chainId, to0x(chain.genesisHash), opts["rollup.config"]);
  // L1 derivation (--l1.rpc on an OP chain with a rollup configuration): a worker derives the safe chain from L1.
  const l1Rpc = opts["l1.rpc"];
  if (l1Rpc !== undefined && chain.op !== undefined && rollupConfig === undefined) {
    log.warn({ network: opts.network }, "--l1.rpc: no rollup configuration for this chain (give --rollup.config), so nothing is derived from L1");
  }
  const derivation =
    l1Rpc !== undefined && rollupConfig !== undefined
      ? new DerivationService(chain, rollupConfig, { datadir, l1Rpc, l1Beacon: opts["l1.beacon"], l1BlockTimeS: opts["l1.block-time"], logLevel: opts["log.level"], logFormat: opts["log.format"] }, log)
      : undefined;
  derivationRef = derivation;
  // Follow mode (--follow-rpc): blocks come from a trusted RPC and are executed and verified here; nothing is produced locally.
  const followUrl = opts["follow-rpc"];
  // With --historical-proofs the follower stays within --proofs.max-blocks-ahead blocks of the proofs store's latest block.
  const proofsGate = proofs === undefined
    ? undefined
    : { progress: { latest: () => proofs.latestBlock(), writing: () => proofs.writing(), onChange: (l: () => void) => proofs.onLatestChange(l) }, maxBlocksAhead: opts["proofs.max-blocks-ahead"] };
  // The followed RPC's eth_config is read once the source proved to serve this chain, before the first block is fetched.
  const beforeFollowing = (): Promise<void> => upgradeWatch.startFollowRpc();
  const follower =
    followUrl === undefined
      ? undefined
      : new Follower(chain, followUrl, { pollIntervalMs: opts["follow.poll-interval"], logger: log, proofs: proofsGate, trackSafety: derivation === undefined, beforeFollowing });
  // Upgrades this basalt does not implement: Base's L1 upgrade signal (--l1.rpc) and the followed RPC's eth_config
  // tell the chain's guard, which refuses blocks from their activation on (blockchain/upgradeGuard.ts).
  const upgradeWatch = upgradeWatchFromOptions(opts, chain, follower, log);
  // Sequenced locally: the built-in devnet (simulated L1) unless it follows another node, or a custom chain with --sequencer (real L1).
  const sequencing = plan.sequencing;
  // A real L1 fixes the block time (rollup.json); the devnet's is --dev.block-time.
  const blockTime = realL1 === undefined ? opts["dev.block-time"] : Number(plan.rollupConfig!.blockTime);
  // Consensus-layer P2P (OP chains, unless --p2p.disable): a node producing blocks on a clock publishes them on
  // gossip; any other node (a devnet sealing only on demand included) imports what gossip brings.
  const producing = sequencing && (realL1 !== undefined || blockTime > 0);
  const p2p = nodeP2P(opts, chain, { datadir, sequencing: producing, rollupConfig, log });
  // Followed and gossiped blocks drop the transactions they include from the local pool (the devnet sequencer prunes its own).
  if (follower !== undefined || p2p?.importer !== undefined) chain.onHead(() => pool.prune());
  // --sequencer-http: eth_sendRawTransaction goes to the sequencer first, then into the local pool.
  const forwarder = opts["sequencer-http"] === undefined ? undefined : new SequencerForwarder(opts["sequencer-http"], { pool, logger: log });
  backend.forwarder = forwarder;
  if (forwarder !== undefined) services.defer("sequencer forwarder", () => forwarder.close());
  // Flashblocks (a block time and --flashblocks.interval > 0): blocks are built as flashblocks, streamed over WebSocket.
  const fbPublisher =
    sequencing && blockTime > 0 && opts["flashblocks.interval"] > 0
      ? new FlashblocksPublisher({ host: opts["flashblocks.addr"], port: opts["flashblocks.port"], format: opts["flashblocks.format"], logger: log })
      : undefined;
  const fbOptions = fbPublisher === undefined ? {} : { flashblocks: { intervalMs: opts["flashblocks.interval"], sink: fbPublisher } };
  const sequencer = sequencing ? new OpDevSequencer(chain, pool, blockTime, log, { ...fbOptions, l1: realL1?.origins, onSealed: p2p === undefined ? undefined : (b) => p2p.publishBlock(b) }) : undefined;
  // devnet-l1: basalt produces the L1's blocks on a slot clock and serves their blobs over a beacon API (--beacon.*).
  let l1Dev: L1Devnet | undefined;
  if (follower === undefined && isL1DevChain) {
    const started = await startL1Devnet(chain, pool, {
      datadir,
      slotSeconds: opts["dev.block-time"],
      beaconHost: opts["beacon.addr"],
      beaconPort: opts["beacon.port"],
      version: ver,
      logger: log,
    });
    l1Dev = started;
    services.defer("devnet L1", () => started.stop());
  }
  // Polling filters (eth_newFilter…): shared by HTTP and WebSocket, expired after five minutes without a poll.
  const filters = new FilterRegistry({ chain, pending: backend.pending, pool, maxFilters: opts["rpc.max-filters"], logger: log });
  services.defer("filters", () => filters.close());
  const publicMethods: MethodTable = {
    ...blockMethods(backend),
    ...filterMethods(backend, filters),
    ...poolAdminMethods(backend),
    ...flashblockHeightMethods(backend),
    ...stateMethods(backend),
    ...callMethods(backend),
    ...simulateMethods(backend),
    ...sendBundleMethods(backend),
    // The miner API (operator limits of the block builder); off on --public with the miner namespace.
    ...minerMethods(backend),
    // base-reth-node's --enable-metering: without it the methods do not exist (-32601), as on Base.
    ...(opts["enable-metering"] ? meteringMethods(backend, meteringSettingsOf(opts)) : {}),
    ...testingMethods(backend),
    ...logMethods(backend),
    ...feeMethods(backend),
    ...txpoolMethods(backend),
    ...sendSyncMethods(backend),
    ...nodeMethods(backend),
    ...debugMethods(backend),
    ...witnessMethods(backend),
    ...traceMethods(backend),
    ...parityTraceMethods(backend),
    // Over HTTP: geth's "notifications not supported"; the WebSocket server serves its own.
    ...httpSubscriptionMethods(),
    // The devnet's prefunded accounts, unlocked as anvil's (eth_accounts, eth_sendTransaction, signing); never on --public.
    ...(isDevChain && !opts.public ? devAccountMethods(backend, devAccounts()) : {}),
    // dev_sendDeposit and evm_mine on the simulated L1 only: a real L1's deposits come from its portal, its blocks from the clock.
    ...(sequencer === undefined || realL1 !== undefined ? {} : devMethods(sequencer)),
    ...(l1Dev === undefined ? {} : l1DevMethods(l1Dev.producer)),
  };
  // --http.api / --ws.api: the namespaces each transport serves (all by default); a name no method has is refused.
  const httpMethods = selectNamespaces(publicMethods, opts["http.api"], "http.api");
  const wsMethods = selectNamespaces(publicMethods, opts["ws.api"], "ws.api");
  // HTTP and Engine API servers log under the rpc subsystem (the WebSocket server and the hub derive their own).
  const rpcLog = log.child({ subsystem: "rpc" });
  const engine: MethodTable = { ...publicMethods, ...engineMethods(backend, version(), rpcLog) };
  const jwtPath = opts["authrpc.jwtsecret"] ?? join(datadir, "jwt.hex");
  const secret = loadOrCreateJwtSecret(jwtPath);
  const cors = opts["http.corsdomain"] === "" ? undefined : opts["http.corsdomain"].split(",").map((s) => s.trim());
  // --public: per-IP rate limit, eth_getBlockReceipts 403, debug/admin/… off; HTTP and WebSocket share the connection cap.
  const publicPolicy = opts.public
    ? new PublicPolicy({ rate: opts["public.rate"], burst: opts["public.burst"], maxConnections: opts["public.max-connections"] })
    : undefined;
  const http = new RpcHttpServer({ host: opts["http.addr"], port: opts["http.port"], methods: httpMethods, transport: "http", maxBodyBytes: opts["rpc.max-body"], logger: rpcLog, cors, public: publicPolicy });
  const auth = new RpcHttpServer({ host: opts["authrpc.addr"], port: opts["authrpc.port"], methods: engine, transport: "engine", jwtSecret: secret, logger: rpcLog });
  // --ws: the public methods over WebSocket plus eth_subscribe; the hub listens to the final backend.pending.
  const hub = opts.ws ? new SubscriptionHub({ chain, pending: backend.pending, pool, syncing: () => backend.syncing(), logger: log }) : undefined;
  if (hub !== undefined) services.defer("subscription hub", () => hub.close());
  const ws =
    hub === undefined
      ? undefined
      : new RpcWsServer({ host: opts["ws.addr"], port: opts["ws.port"], methods: wsMethods, hub, maxMessageBytes: opts["rpc.max-body"], logger: log, public: publicPolicy });
  const producer = sequencer ?? l1Dev?.producer;
  let httpPort = 0;
  let authPort = 0;
  let wsPort: number | undefined;
  let rollup: RollupServer | undefined;
  let metrics: MetricsServer | undefined;

  // ---- the node, in start order (stopped in reverse): a new subsystem adds its entry here ----
  // Every worker has the store open before the first request is accepted; a proofs store of
  // another chain or a corrupted one refuses the start with its reason.
  // Calls still running after the drain are cancelled: the pool's close would wait for them (its workers only read the store).
  const core: (Service | undefined)[] = [
    service("execution pool", () => calls.start(), () => calls.close(), SHUTDOWN_POOL_WAIT_MS),
    proofs && service("historical proofs", () => proofs.start(), () => proofs.stop()),
    // Base's L1 upgrade signal is read once before any block is derived (the followed RPC's eth_config: see beforeFollowing).
    service("upgrade watch", () => upgradeWatch.start(), () => upgradeWatch.stop()),
    // Derivation refuses an L1 of another chain, or one without the rollup's anchor, before anything is served.
    derivation && service("derivation", () => derivation.start(), () => derivation.stop()),
    // Imported blocks (follow mode, engine_newPayload) have their senders recovered on the pool too.
    service("sender recovery", () => chain.useSenderRecovery(new SenderRecovery(calls)), () => chain.useSenderRecovery(undefined)),
    service("rpc http", async () => (httpPort = await http.listen()), () => http.close()),
    service("rpc engine", async () => (authPort = await auth.listen()), () => auth.close()),
    fbPublisher && service("flashblocks publisher", () => fbPublisher.listen(), () => fbPublisher.close()),
    ws && service("rpc ws", async () => (wsPort = await ws.listen()), () => ws.close()),
    // --rollup (default on, OP chains only): the consensus-side RPC (optimism_syncStatus, …) on --rollup.addr:--rollup.port.
    opts.rollup ? service("rollup rpc", async () => (rollup = await startRollupServer({
      chain,
      host: opts["rollup.addr"],
      port: opts["rollup.port"],
      version: version(),
      devnet: isDevChain,
      sequencing,
      devBlockTime: opts["dev.block-time"],
      // A --rollup.config file's values (built-in networks answer from their own table).
      rollupConfig: opts["rollup.config"] === undefined ? undefined : rollupConfig,
      l1Origin: realL1 === undefined ? undefined : () => {
        const origin = realL1.origins.originOfHead();
        return origin === undefined ? undefined : l1RefOf(origin);
      },
      derivation: derivation === undefined ? undefined : () => derivation.status(),
      // op-node's admin API of the P2P layer; --public keeps it off.
      extraMethods: p2p === undefined || opts.public ? undefined : p2pMethods(p2p.service),
      logger: log,
    })), () => rollup?.close()) : undefined,
    // The execution-layer network (devp2p): started once the RPC servers listen.
    devp2p && service("devp2p", () => devp2p.start(), () => devp2p.stop()),
    producer && service("block producer", () => producer.start(), () => producer.stop()),
    flashblocks && service("flashblocks", () => flashblocks.start(), () => flashblocks.stop()),
    // Refuses a source of another chain (chain id / genesis) before following it. At shutdown the upgrade
    // watchers stop before the follower, whose connection one of them shares; the follower finishes the
    // block it is importing before the chain closes.
    follower && service("follower", () => follower.start(), async () => {
      await upgradeWatch.stop();
      await follower.stop();
    }),
  ];
  const late: (Service | undefined)[] = [
    // --metrics: Prometheus text on --metrics.addr:--metrics.port/metrics, started last (a bind failure stops the rest).
    opts.metrics ? service("metrics", async () => {
      bindChainMetrics(chain, datadir);
      bindLogIndexMetrics(() => chain.store.logIndexStats());
      bindUpgradeGuardMetrics(chain.upgrades);
      metrics = await startMetricsServer({ host: opts["metrics.addr"], port: opts["metrics.port"], logger: log });
    }, async () => {
      await metrics?.close();
      bindChainMetrics(undefined);
      bindLogIndexMetrics(undefined);
      bindUpgradeGuardMetrics(undefined);
    }) : undefined,
    // P2P last among the listeners: a start refused for any earlier reason never binds 9222.
    p2p && service("p2p", async () => {
      await p2p.start();
      const self = p2p.self();
      log.info({ peerId: self.peerId, enr: self.enr, tcp: self.tcpPort, udp: self.udpPort, publishing: producing }, "P2P (unsafe block gossip) started");
    }, () => p2p.stop()),
    // --batcher: posts the L2 chain to L1 once the RPC and metrics servers run (an L1 of another chain stops the node).
    // At shutdown block production stops first, so the batcher posts its open channel with every block in it
    // (within BATCHER_SHUTDOWN_MS), then finishes its round.
    batcher && service("batcher", () => batcher.start(), async () => {
      await producer?.stop();
      await batcher.shutdown();
    }, Infinity), // bounded by the batcher itself (BATCHER_SHUTDOWN_MS for the flush, then its round)
  ];
  for (const s of core) if (s !== undefined) await services.start(s);
  log.info(
    {
      chainId: chain.chainId.toString(),
      genesis: to0x(chain.genesisHash),
      head: chain.head.header.number.toString(),
      http: `http://${opts["http.addr"]}:${httpPort}`,
      authrpc: `http://${opts["authrpc.addr"]}:${authPort}`,
      ws: wsPort === undefined ? undefined : `ws://${opts["ws.addr"]}:${wsPort}`,
      rollup: rollup === undefined ? undefined : `http://${opts["rollup.addr"]}:${rollup.port}`,
      flashblocks: fbPublisher?.url,
      beacon: l1Dev?.beaconUrl,
      datadir,
      devnet: isDevChain,
      sequencer: !sequencing ? "off" : realL1 === undefined ? "simulated L1" : `L1 ${realL1.client.endpoint}`,
      devnetL1: isL1DevChain,
    },
    "basalt node started",
  );
  if (isDevChain) {
    log.info({ accounts: devAccounts().map((a) => a.address), blockTime: opts["dev.block-time"] }, "devnet: prefunded accounts (mnemonic: test test … junk)");
  }
  if (l1Dev !== undefined) {
    log.info(
      { beacon: l1Dev.beaconUrl, slotSeconds: l1Dev.clock.secondsPerSlot, genesisTime: l1Dev.clock.genesisTime.toString(), accounts: devAccounts().map((a) => a.address) },
      `devnet-l1: producing a block every ${l1Dev.clock.secondsPerSlot} s slot; beacon API at ${l1Dev.beaconUrl} (prefunded accounts: mnemonic test test … junk)`,
    );
  }
  for (const s of late) if (s !== undefined) await services.start(s);
  // Stops first at shutdown (graceful): the RPC ports stop accepting and in-flight requests finish (up to
  // SHUTDOWN_DRAIN_MS) before anything they use stops; the servers' close() then cuts off the rest. Bounded by the drain itself.
  services.defer("rpc drain", async () => {
    http.stopAccepting();
    auth.stopAccepting();
    const cut = (await Promise.all([http.drain(SHUTDOWN_DRAIN_MS), auth.drain(SHUTDOWN_DRAIN_MS)])).reduce((a, b) => a + b, 0);
    if (cut > 0) log.warn({ requests: cut, drainMs: SHUTDOWN_DRAIN_MS }, "shutdown: cancelling requests still in flight after the drain");
  }, Infinity);
  return { chain, pending: backend.pending, httpPort, authPort, wsPort, rollupPort: rollup?.port, metricsPort: metrics?.port, batcher, stop: () => services.stop() };
}

/** Runs `basalt node` until SIGTERM/SIGINT. */
export async function nodeCommand(opts: BasaltOptions, log: Logger, explicitNetwork: boolean): Promise<void> {
  if (!isBuiltinNetwork(opts.network) && !existsSync(opts.network)) {
    const expected = `one of ${BUILTIN_NETWORKS.join(", ")} or the path of a genesis JSON file`;
    throw new CliError({ code: "CLI_INVALID_VALUE", option: "--network", value: opts.network, expected }, `--network ${opts.network}: expected ${expected}`);
  }
  const node = await startNode(opts, log, explicitNetwork);
  const shutdown = (signal: string): void => {
    log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    node.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log.error({ err: e }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  // A second SIGTERM/SIGINT during the graceful shutdown exits at once.
  let signalled = false;
  const onSignal = (signal: string): void => {
    if (signalled) {
      log.warn({ signal }, "second signal: exiting without waiting for the shutdown");
      process.exit(1);
    }
    signalled = true;
    shutdown(signal);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
}
