/**
 * `basalt devnet rollup`: a whole local OP Stack rollup from one command, each part a real
 * `basalt node` process:
 *
 * 1. **L1** — basalt running plain Ethereum (`--network devnet-l1`: blocks on a slot clock, blob
 *    transactions, a beacon API serving their blobs by slot), or an existing L1 (`--l1.rpc` and
 *    `--l1.beacon`: anvil, say);
 * 2. the rollup's **L1 contracts** (OptimismPortal, SystemConfig) deployed there, and the rollup's
 *    **genesis** (the devnet's alloc at the L1 anchor's time) and **rollup.json** written;
 * 3. the **sequencer**: L1 origins, deposits and system config from that L1, flashblocks, its
 *    batcher posting span batches in brotli channels (blobs, or calldata), deriving its own safe head;
 * 4. a **verifier** deriving the chain from L1 alone.
 *
 * Every endpoint is printed and written to `devnet.json` in the working directory. State lives in
 * the workspace (`--datadir`, default `./data/rollup`): a second run with the built-in L1 resumes
 * the same rollup; with an external L1 it resumes when that L1 still has the anchor block.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import { Chain } from "../blockchain/chain.js";
import { commonFromGenesis } from "../chain/chainSpec.js";
import { devAccounts } from "../chain/devnet.js";
import { devnetRollupConfig, devnetRollupGenesis } from "../chain/devnetRollup.js";
import type { GenesisJson } from "../chain/genesis.js";
import { parseRollupConfig, rollupConfigJson, type RollupConfig } from "../chain/op/rollupConfig.js";
import { DEVNET_BASE_FEE_SCALAR, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_GAS_LIMIT } from "../chain/constants.js";
import { DEVNET_ROLLUP_BATCHER_ACCOUNT, DEVNET_ROLLUP_BATCH_INBOX, DEVNET_ROLLUP_DEPLOYER_ACCOUNT, DEVNET_ROLLUP_READY_TIMEOUT_MS, DEVNET_ROLLUP_STOP_TIMEOUT_MS } from "./constants.js";
import { HttpRpcClient } from "../util/rpcClient.js";
import { to0x } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { deployRollupContracts } from "./l1Contracts.js";

/** The ports of every process, in the order `--devnet.port-base` assigns them. */
const ROLLUP_PORT_NAMES = [
  "l1Http",
  "l1Auth",
  "l1Beacon",
  "sequencerHttp",
  "sequencerWs",
  "sequencerAuth",
  "sequencerRollup",
  "flashblocks",
  "verifierHttp",
  "verifierWs",
  "verifierAuth",
  "verifierRollup",
  "sequencerP2p",
] as const;
/** One port per process endpoint. */
type RollupPorts = Record<(typeof ROLLUP_PORT_NAMES)[number], number>;

/**
 * The default layout: the sequencer on the usual L2 ports (8545/8546/8551, rollup RPC 7545,
 * flashblocks 1111) so wallets and tools find it where they expect a node; the L1 on 8645 with
 * its beacon on lighthouse's 5052; the verifier on 9545.
 */
const DEFAULT_ROLLUP_PORTS: RollupPorts = {
  l1Http: 8645,
  l1Auth: 8651,
  l1Beacon: 5052,
  sequencerHttp: 8545,
  sequencerWs: 8546,
  sequencerAuth: 8551,
  sequencerRollup: 7545,
  flashblocks: 1111,
  verifierHttp: 9545,
  verifierWs: 9546,
  verifierAuth: 9551,
  verifierRollup: 9547,
  sequencerP2p: 9222,
};

/** Options of {@link startRollupDevnet}. */
interface RollupDevnetOptions {
  /** Workspace: L1, sequencer and verifier datadirs, genesis.json, rollup.json, logs. */
  dir: string;
  /** Where `devnet.json` is written (the working directory). */
  outDir: string;
  /** An existing L1 (with `l1Beacon`); none = basalt's own. */
  l1Rpc?: string;
  l1Beacon?: string;
  /** Seconds between L2 blocks. */
  blockTime: number;
  /** Seconds between L1 blocks (the built-in L1's slot; an external L1's block time). */
  l1BlockTime: number;
  /** How the batcher posts: blobs or calldata. */
  batcherData: "blobs" | "calldata";
  /** Ports of every endpoint; undefined entries of a partial layout are picked free. */
  ports: RollupPorts;
  logLevel: string;
  logger: Logger;
}

/** The endpoints of a running rollup, as written to `devnet.json`. */
interface RollupEndpoints {
  l1Rpc: string;
  /** Absent for an external L1 given without a beacon API (batches in calldata). */
  l1Beacon?: string;
  sequencerRpc: string;
  sequencerRollupRpc: string;
  verifierRpc: string;
  verifierRollupRpc: string;
  flashblocksWs: string;
}

/** A running local rollup. */
interface RunningRollup {
  endpoints: RollupEndpoints;
  rollupConfig: RollupConfig;
  /** Stops the verifier, the sequencer and the L1 (in that order). */
  stop(): Promise<void>;
}

/** Stable code of {@link RollupDevnetError}. */
const RollupDevnetErrorCode = { ROLLUP_FAILED: "DEVNET_ROLLUP_FAILED" } as const;
/** A {@link RollupDevnetError}'s code with its metadata. */
type RollupDevnetErrorType = { code: typeof RollupDevnetErrorCode.ROLLUP_FAILED; part: string };

/** The local rollup could not start (a process failed, the L1 lost the anchor, …). */
export class RollupDevnetError extends TypedError<RollupDevnetErrorType> {
  constructor(part: string, message: string) {
    super({ code: RollupDevnetErrorCode.ROLLUP_FAILED, part }, message);
  }
}

/** The `basalt` entry script of this build. */
function cliMain(): string {
  return fileURLToPath(new URL("../cli/main.js", import.meta.url));
}

/** A free TCP port on 127.0.0.1 (bound and released). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolvePort(port));
    });
  });
}

/** Ports from `base` upwards in {@link ROLLUP_PORT_NAMES} order; base 0 = any free ports. */
export async function rollupPorts(base: number | undefined): Promise<RollupPorts> {
  if (base === undefined) return { ...DEFAULT_ROLLUP_PORTS };
  const out = {} as RollupPorts;
  for (const [i, name] of ROLLUP_PORT_NAMES.entries()) out[name] = base === 0 ? await freePort() : base + i;
  return out;
}

/** One child `basalt node`, its output appended to a log file of the workspace. */
class NodeProcess {
  private readonly child: ChildProcess;
  private exited: Promise<number | null>;

  constructor(
    readonly name: string,
    args: string[],
    logFile: string,
  ) {
    const out = createWriteStream(logFile, { flags: "a" });
    this.child = spawn(process.execPath, [cliMain(), "node", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env } });
    this.child.stdout!.pipe(out);
    this.child.stderr!.pipe(out);
    this.exited = new Promise((r) => this.child.once("exit", (code) => r(code)));
  }

  /** Resolves when the process has exited (with its code). */
  get exit(): Promise<number | null> {
    return this.exited;
  }

  /** SIGTERM, then SIGKILL after the stop timeout. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const killer = setTimeout(() => this.child.kill("SIGKILL"), DEVNET_ROLLUP_STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(killer);
  }
}

/** Waits until `url` answers `eth_chainId`, or the process exits, or the time runs out. */
async function waitForRpc(url: string, proc: NodeProcess | undefined, what: string, logFile: string): Promise<bigint> {
  const rpc = new HttpRpcClient(url, { timeoutMs: 1_000 });
  const deadline = Date.now() + DEVNET_ROLLUP_READY_TIMEOUT_MS;
  let exited = false;
  void proc?.exit.then(() => (exited = true));
  for (;;) {
    try {
      return BigInt(await rpc.call<string>("eth_chainId", []));
    } catch {
      if (exited) throw new RollupDevnetError(what, `${what} exited before serving ${url}; see ${logFile}`);
      if (Date.now() > deadline) throw new RollupDevnetError(what, `${what} did not answer on ${url} within ${DEVNET_ROLLUP_READY_TIMEOUT_MS / 1000} s; see ${logFile}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The L2 genesis hash of a genesis JSON. */
async function genesisHashOf(genesis: GenesisJson): Promise<string> {
  const { block } = await Chain.buildGenesis(genesis, commonFromGenesis(genesis));
  return to0x(block.hash());
}

/** Starts the local rollup (see the module comment). */
export async function startRollupDevnet(o: RollupDevnetOptions): Promise<RunningRollup> {
  const log = o.logger.child({ subsystem: "devnet" });
  const dir = resolve(o.dir);
  const logs = join(dir, "logs");
  mkdirSync(logs, { recursive: true });
  const p = o.ports;
  const url = (port: number): string => `http://127.0.0.1:${port}`;
  const procs: NodeProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const proc of [...procs].reverse()) await proc.stop();
  };
  // The local rollup's nodes share one host: they do not open the execution-layer network (its 30303 would clash).
  const common = ["--log.level", o.logLevel, "--log.format", "json", "--p2p.el.disable"];
  try {
    // 1. The L1.
    let l1Rpc = o.l1Rpc;
    let l1Beacon = o.l1Beacon;
    if (l1Rpc === undefined) {
      const logFile = join(logs, "l1.log");
      const l1 = new NodeProcess(
        "l1",
        [
          "--network", "devnet-l1",
          "--datadir", join(dir, "l1"),
          "--dev.block-time", String(o.l1BlockTime),
          "--http.port", String(p.l1Http),
          "--authrpc.port", String(p.l1Auth),
          "--beacon.port", String(p.l1Beacon),
          ...common,
        ],
        logFile,
      );
      procs.push(l1);
      l1Rpc = url(p.l1Http);
      l1Beacon = url(p.l1Beacon);
      await waitForRpc(l1Rpc, l1, "the L1", logFile);
    } else if (l1Beacon === undefined && o.batcherData === "blobs") {
      throw new RollupDevnetError("l1", "--l1.rpc needs --l1.beacon too (the batcher's blobs are read back from it), or --batcher.data calldata");
    }
    const l1Client = new HttpRpcClient(l1Rpc);
    const l1ChainId = BigInt(await l1Client.call<string>("eth_chainId", []));

    // 2. Contracts, genesis and rollup config (reused when the L1 still has the anchor).
    const genesisFile = join(dir, "genesis.json");
    const rollupFile = join(dir, "rollup.json");
    let cfg: RollupConfig | undefined;
    if (existsSync(rollupFile) && existsSync(genesisFile)) {
      const saved = parseRollupConfig(JSON.parse(readFileSync(rollupFile, "utf8")));
      const anchor = await l1Client.call<{ hash: string } | null>("eth_getBlockByNumber", ["0x" + saved.genesis.l1.number.toString(16), false]);
      if (saved.l1ChainId === l1ChainId && anchor !== null && anchor.hash.toLowerCase() === saved.genesis.l1.hash.toLowerCase()) {
        cfg = saved;
        log.info({ dir }, "resuming the local rollup of this workspace");
      } else if (o.l1Rpc === undefined) {
        throw new RollupDevnetError("l1", `the L1 of ${dir} no longer has the rollup's anchor block ${saved.genesis.l1.number}: remove ${dir} to start a new rollup`);
      } else {
        log.warn({ dir }, "the given L1 does not hold this workspace's rollup: deploying a new one");
      }
    }
    if (cfg === undefined) {
      const accounts = devAccounts();
      const batcher = accounts[DEVNET_ROLLUP_BATCHER_ACCOUNT]!.address;
      const deployer = accounts[DEVNET_ROLLUP_DEPLOYER_ACCOUNT]!;
      const contracts = await deployRollupContracts(l1Rpc, {
        deployerKey: deployer.privateKey,
        systemConfig: {
          batcher,
          basefeeScalar: Number(DEVNET_BASE_FEE_SCALAR),
          blobbasefeeScalar: Number(DEVNET_BLOB_BASE_FEE_SCALAR),
          gasLimit: DEVNET_GAS_LIMIT,
          unsafeBlockSigner: deployer.address,
        },
      });
      const anchor = await l1Client.call<{ hash: string; number: string; timestamp: string }>("eth_getBlockByHash", [contracts.deployedAt.hash, false]);
      const l2Time = BigInt(anchor.timestamp);
      const genesis = devnetRollupGenesis(l2Time);
      cfg = devnetRollupConfig({
        l1ChainId,
        l1Anchor: { hash: anchor.hash, number: BigInt(anchor.number), timestamp: l2Time },
        l2GenesisHash: await genesisHashOf(genesis),
        portal: contracts.optimismPortal,
        systemConfig: contracts.systemConfig,
        batcher,
        batchInbox: DEVNET_ROLLUP_BATCH_INBOX,
        blockTime: BigInt(o.blockTime),
      });
      writeFileSync(genesisFile, JSON.stringify(genesis, null, 2) + "\n");
      writeFileSync(rollupFile, JSON.stringify(rollupConfigJson(cfg), null, 2) + "\n");
      log.info({ portal: contracts.optimismPortal, systemConfig: contracts.systemConfig, anchor: anchor.number }, "rollup contracts deployed on L1");
    }

    // 3 and 4. The sequencer (with its batcher) and the verifier.
    const rollupArgs = ["--network", genesisFile, "--rollup.config", rollupFile, "--l1.rpc", l1Rpc, ...(l1Beacon === undefined ? [] : ["--l1.beacon", l1Beacon]), "--l1.block-time", String(o.l1BlockTime)];
    const seqLog = join(logs, "sequencer.log");
    const sequencer = new NodeProcess(
      "sequencer",
      [
        ...rollupArgs,
        "--datadir", join(dir, "sequencer"),
        "--sequencer",
        "--dev.block-time", String(o.blockTime),
        "--batcher",
        "--batcher.key", devAccounts()[DEVNET_ROLLUP_BATCHER_ACCOUNT]!.privateKey,
        "--batcher.data", o.batcherData,
        "--http.port", String(p.sequencerHttp),
        "--ws", "--ws.port", String(p.sequencerWs),
        "--authrpc.port", String(p.sequencerAuth),
        "--rollup.port", String(p.sequencerRollup),
        "--flashblocks.port", String(p.flashblocks),
        // Its blocks on gossip (signed with the devnet's account 8 key, SystemConfig's unsafeBlockSigner) for P2P followers.
        "--p2p.listen.ip", "127.0.0.1", "--p2p.listen.tcp", String(p.sequencerP2p), "--p2p.listen.udp", String(p.sequencerP2p),
        ...common,
      ],
      seqLog,
    );
    procs.push(sequencer);
    const verLog = join(logs, "verifier.log");
    const verifier = new NodeProcess(
      "verifier",
      [
        ...rollupArgs,
        "--datadir", join(dir, "verifier"),
        "--http.port", String(p.verifierHttp),
        "--ws", "--ws.port", String(p.verifierWs),
        "--authrpc.port", String(p.verifierAuth),
        "--rollup.port", String(p.verifierRollup),
        // The verifier derives from L1 alone.
        "--p2p.disable",
        ...common,
      ],
      verLog,
    );
    procs.push(verifier);
    await waitForRpc(url(p.sequencerHttp), sequencer, "the sequencer", seqLog);
    await waitForRpc(url(p.verifierHttp), verifier, "the verifier", verLog);
    const endpoints: RollupEndpoints = {
      l1Rpc,
      ...(l1Beacon === undefined ? {} : { l1Beacon }),
      sequencerRpc: url(p.sequencerHttp),
      sequencerRollupRpc: url(p.sequencerRollup),
      verifierRpc: url(p.verifierHttp),
      verifierRollupRpc: url(p.verifierRollup),
      flashblocksWs: `ws://127.0.0.1:${p.flashblocks}`,
    };
    writeFileSync(join(o.outDir, "devnet.json"), JSON.stringify(endpoints, null, 2) + "\n");
    return { endpoints, rollupConfig: cfg, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
