/**
 * The node's watchers of what the network schedules: one per configured source, each a bounded,
 * backed-off polling loop that hands its findings to the chain's upgrade guard
 * (`blockchain/upgradeGuard.ts`).
 *
 * - `l1`: Base's L1 upgrade-signal contract (with `--l1.rpc` on a Base network, or
 *   `--upgrade-signal.contract` on any OP chain), read every {@link UPGRADE_SIGNAL_POLL_MS} of its
 *   block tag — base/base's "metrics-only" live observer, except that what basalt cannot run is
 *   also guarded against.
 * - `follow-rpc`: the trusted RPC's eth_config (`--follow-rpc`), every {@link FOLLOW_ETH_CONFIG_POLL_MS}.
 *
 * A failed read is counted, warned about once per kind until a read succeeds again, and retried
 * after a delay that doubles from the initial backoff up to the poll interval; a failed read
 * leaves the source's last findings in place.
 */
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import { formatProtocolVersion, type UpgradeFinding, type UpgradeSourceName } from "../../chain/op/upgradeSchedule.js";
import { FOLLOW_ETH_CONFIG_BACKOFF_INITIAL_MS, FOLLOW_ETH_CONFIG_POLL_MS, UPGRADE_SIGNAL_BACKOFF_INITIAL_MS, UPGRADE_SIGNAL_POLL_MS } from "../constants.js";
import type { JsonRpcClient } from "../../util/rpcClient.js";
import { counter } from "../../util/metrics.js";
import type { UpgradeSignalBlockTag } from "../../config/options.js";
import { BasaltError } from "../../util/errors.js";
import { UpgradeWatchError, UpgradeWatchErrorCode } from "./errors.js";
import { knownUpgradeSchedule, localForkView, readEthConfigFindings, readL1Schedule } from "./sources.js";

/** Reads of each source, by result (ok / error). */
const upgradeSourceReadsTotal = counter<"source" | "result">({
  name: "basalt_chain_upgrade_source_reads_total",
  help: "Reads of the sources of scheduled upgrades (source: l1 = Base's upgrade-signal contract, follow-rpc = the followed RPC's eth_config), by result",
  labelNames: ["source", "result"],
});

/** What one watcher polls. */
interface WatcherSpec {
  source: UpgradeSourceName;
  /** What is read, for logs (`L1 ProtocolVersions 0x… at finalized`). */
  what: string;
  /** One read: the source's whole answer as findings. */
  read(): Promise<UpgradeFinding[]>;
  intervalMs: number;
  initialBackoffMs: number;
}

/** A polling loop over one source (see the module comment). */
export class UpgradeSourceWatcher {
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wakeSleep: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private backoff: number;
  /** Error codes warned about since the last good read. */
  private readonly warned = new Set<string>();
  private readonly log: Logger;

  constructor(
    private readonly spec: WatcherSpec,
    private readonly chain: Pick<Chain, "upgrades">,
    logger: Logger,
  ) {
    this.log = logger.child({ subsystem: "upgrades", source: spec.source });
    this.backoff = spec.initialBackoffMs;
  }

  /** Starts the loop; resolves after the first read (whatever its outcome), so the guard is set before blocks flow when the source answers. */
  start(): Promise<void> {
    let first!: () => void;
    const firstDone = new Promise<void>((r) => (first = r));
    this.loop = (async () => {
      while (!this.stopped) {
        const delay = await this.once();
        first();
        await this.sleep(delay);
      }
      first();
    })();
    return firstDone;
  }

  /** Stops the loop (after the read in flight). Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.wakeSleep?.();
    await this.loop;
  }

  /** One read; returns the delay until the next. */
  private async once(): Promise<number> {
    try {
      const findings = await this.spec.read();
      if (this.stopped) return 0;
      upgradeSourceReadsTotal.inc({ source: this.spec.source, result: "ok" });
      if (this.warned.size > 0) this.log.info({ what: this.spec.what }, "upgrade source answers again");
      this.warned.clear();
      this.backoff = this.spec.initialBackoffMs;
      this.chain.upgrades.report(this.spec.source, findings);
      return this.spec.intervalMs;
    } catch (e) {
      if (this.stopped) return 0;
      upgradeSourceReadsTotal.inc({ source: this.spec.source, result: "error" });
      const code = e instanceof BasaltError ? e.code : "unexpected";
      const delay = this.backoff;
      this.backoff = Math.min(this.backoff * 2, this.spec.intervalMs);
      const fields = { what: this.spec.what, err: e, retryMs: delay };
      if (this.warned.has(code)) this.log.debug(fields, "upgrade source read failed");
      else {
        this.warned.add(code);
        this.log.warn(fields, "cannot read the upgrade source; retrying with backoff (what it reported before still holds)");
      }
      return delay;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeSleep = () => {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = undefined;
        this.wakeSleep = undefined;
        resolve();
      };
      // Unref'd: a node whose start failed half-way must not be kept alive by this timer.
      this.timer = setTimeout(this.wakeSleep, ms).unref();
    });
  }
}

/** Options of the L1 upgrade-signal watcher. */
interface L1SignalWatcherOptions {
  client: JsonRpcClient;
  /** The upgrade-signal contract (0x address). */
  contract: string;
  tag: UpgradeSignalBlockTag;
  logger: Logger;
}

/**
 * The watcher of Base's L1 upgrade signal for `chain` (an OP chain). Logs the schedule's minimum
 * node protocol version and the upgrades basalt schedules that the contract leaves unscheduled
 * at debug (Base's metrics-only nodes keep their built-in times for those).
 */
export function l1SignalWatcher(chain: Chain, o: L1SignalWatcherOptions): UpgradeSourceWatcher {
  const known = knownUpgradeSchedule(chain);
  if (known === undefined) throw new UpgradeWatchError({ code: UpgradeWatchErrorCode.SIGNAL_NOT_OP, chainId: chain.chainId.toString() }, `chain ${chain.chainId} is not an OP Stack chain: it has no L1 upgrade signal`);
  const log = o.logger.child({ subsystem: "upgrades", source: "l1" });
  const what = `L1 ProtocolVersions ${o.contract} at the ${o.tag} block (${o.client.endpoint})`;
  const spec: WatcherSpec = {
    source: "l1",
    what,
    intervalMs: UPGRADE_SIGNAL_POLL_MS[o.tag],
    initialBackoffMs: UPGRADE_SIGNAL_BACKOFF_INITIAL_MS,
    read: async () => {
      const r = await readL1Schedule((m, p) => o.client.call(m, p), o.contract, o.tag, known);
      log.debug(
        { l1Block: r.l1Block.number.toString(), entries: r.timestamps.length, minimumProtocolVersion: formatProtocolVersion(r.minimumProtocolVersion), unsignalled: r.unsignalled },
        "read the L1 upgrade schedule",
      );
      return r.findings;
    },
  };
  return new UpgradeSourceWatcher(spec, chain, o.logger);
}

/** The watcher of the followed RPC's eth_config, over the follower's own connection. */
export function followRpcWatcher(chain: Chain, client: JsonRpcClient, logger: Logger): UpgradeSourceWatcher {
  const local = localForkView(chain);
  const spec: WatcherSpec = {
    source: "follow-rpc",
    what: `eth_config of ${client.endpoint}`,
    intervalMs: FOLLOW_ETH_CONFIG_POLL_MS,
    initialBackoffMs: FOLLOW_ETH_CONFIG_BACKOFF_INITIAL_MS,
    read: () => readEthConfigFindings((m, p) => client.call(m, p), local, client.endpoint),
  };
  return new UpgradeSourceWatcher(spec, chain, logger);
}
