/**
 * Which sources of scheduled upgrades a `basalt node` run watches, from its options:
 * Base's L1 upgrade signal (`--l1.rpc` with the Base network's contract, or
 * `--upgrade-signal.contract`), and the followed RPC's eth_config (`--follow-rpc`).
 */
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import { opNetworkByGenesisHash } from "../../chain/op/networks.js";
import type { UpgradeSourceName } from "../../chain/op/upgradeSchedule.js";
import { UPGRADE_SIGNAL_REQUEST_TIMEOUT_MS } from "../constants.js";
import type { BasaltOptions } from "../../config/options.js";
import { HttpRpcClient, type JsonRpcClient } from "../../util/rpcClient.js";
import { to0x } from "../../util/bytes.js";
import { UpgradeWatchError, UpgradeWatchErrorCode } from "./errors.js";
import { followRpcWatcher, l1SignalWatcher, type UpgradeSourceWatcher } from "./watcher.js";

/** The options this reads. */
type UpgradeWatchOptions = Pick<BasaltOptions, "l1.rpc" | "upgrade-signal.contract" | "upgrade-signal.l1-block-tag">;

/**
 * The upgrade-signal contract to read on the chain with genesis `genesisHash`: the option's
 * address; none for `none`; else the built-in Base network's (base/base defaults it on Base
 * networks only; other chains opt in).
 * @throws UpgradeWatchError `CLI_INVALID_VALUE` for a value that is neither an address nor `none`.
 */
export function upgradeSignalContract(option: string | undefined, genesisHash: string): string | undefined {
  if (option === "none") return undefined;
  if (option !== undefined) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(option)) throw new UpgradeWatchError(
        { code: UpgradeWatchErrorCode.INVALID_VALUE, option: "--upgrade-signal.contract", value: option, expected: "a 0x-prefixed 20-byte address or none" },
        `--upgrade-signal.contract ${option}: expected a 0x-prefixed 20-byte address or none`,
      );
    return option;
  }
  return opNetworkByGenesisHash(genesisHash)?.addresses.upgradeSignal;
}

/** The watchers of one node run. */
class UpgradeWatch {
  private readonly started = new Set<UpgradeSourceName>();

  constructor(
    private readonly chain: Pick<Chain, "upgrades">,
    private readonly watchers: ReadonlyMap<UpgradeSourceName, UpgradeSourceWatcher>,
    private readonly clients: readonly JsonRpcClient[],
  ) {}

  /** The sources watched. */
  get sources(): UpgradeSourceName[] {
    return [...this.watchers.keys()];
  }

  /**
   * Drops findings of sources not watched now (kept from an earlier run), starts the watcher of
   * `source` (default: every source but the followed RPC, which starts once follow mode has
   * checked that it serves this chain: {@link startFollowRpc}) and resolves once each has made its
   * first read (bounded by the request time limits).
   */
  async start(): Promise<void> {
    this.chain.upgrades.retainSources(this.sources);
    await Promise.all(this.sources.filter((s) => s !== "follow-rpc").map((s) => this.startOne(s)));
  }

  /** Starts the followed RPC's eth_config watcher (once the follower accepted the source); resolves after its first read. */
  startFollowRpc(): Promise<void> {
    return this.startOne("follow-rpc");
  }

  private async startOne(source: UpgradeSourceName): Promise<void> {
    const w = this.watchers.get(source);
    if (w === undefined || this.started.has(source)) return;
    this.started.add(source);
    await w.start();
  }

  /** Stops every watcher and closes their own connections. Idempotent. */
  async stop(): Promise<void> {
    await Promise.all([...this.watchers.values()].map((w) => w.stop()));
    for (const c of this.clients) c.close();
  }
}

/**
 * The watchers `opts` configure for `chain`; `follower` is the follow-mode source, whose connection
 * the eth_config watcher shares. Warns when `--upgrade-signal.contract` is given without an L1 to
 * read it from.
 */
export function upgradeWatchFromOptions(opts: UpgradeWatchOptions, chain: Chain, follower: { source: JsonRpcClient } | undefined, log: Logger): UpgradeWatch {
  const watchers = new Map<UpgradeSourceName, UpgradeSourceWatcher>();
  const clients: JsonRpcClient[] = [];
  const contract = chain.op === undefined ? undefined : upgradeSignalContract(opts["upgrade-signal.contract"], to0x(chain.genesisHash));
  const l1Rpc = opts["l1.rpc"];
  if (contract !== undefined && l1Rpc !== undefined) {
    const client = new HttpRpcClient(l1Rpc, { timeoutMs: UPGRADE_SIGNAL_REQUEST_TIMEOUT_MS, logger: log });
    clients.push(client);
    watchers.set("l1", l1SignalWatcher(chain, { client, contract, tag: opts["upgrade-signal.l1-block-tag"], logger: log }));
  } else if (opts["upgrade-signal.contract"] !== undefined && opts["upgrade-signal.contract"] !== "none") {
    const why = chain.op === undefined ? "this chain is not an OP Stack chain" : "there is no --l1.rpc to read it from";
    log.warn({ contract: opts["upgrade-signal.contract"] }, `--upgrade-signal.contract is not read: ${why}`);
  }
  if (follower !== undefined) watchers.set("follow-rpc", followRpcWatcher(chain, follower.source, log));
  return new UpgradeWatch(chain, watchers, clients);
}
