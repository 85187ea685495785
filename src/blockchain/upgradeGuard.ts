/**
 * The guard that keeps basalt from running past an upgrade it does not know.
 *
 * Sources (Base's L1 upgrade signal, the followed RPC's eth_config: `src/ops/upgrades`) report what
 * they schedule that basalt does not implement, or schedules differently
 * ({@link UpgradeFinding}); the guard keeps each source's latest findings and refuses — with
 * {@link UnknownUpgradeError} — to import, execute or build any block whose timestamp is at or
 * after the earliest activation among them. Every block import (`Chain.executeBlock`) and every
 * builder (`buildOpOnParent`, `buildOnHead`, the sequencer's `BlockSession`) asks it first, so no
 * path goes around it. The node stays up and serves what it has, as reth and geth do at a fork
 * they do not know.
 *
 * Logging: a WARN the first time a finding is seen (ERROR for a conflict with basalt's own
 * table), an INFO when its source stops reporting it, and one ERROR line per finding when it first
 * refuses a block (later refusals only at debug and in the counter).
 *
 * The findings are kept in the datadir (meta key `unknownUpgrades`), so a restart keeps the guard
 * even before its sources answer again; each source's next answer replaces what it reported
 * before, and findings of a source this run does not configure are dropped at start
 * ({@link UnknownUpgradeGuard.retainSources}).
 */
import type { Logger } from "pino";
import { UnknownUpgradeError } from "../chain/errors.js";
import { formatActivation, UPGRADE_SOURCES, type UpgradeFinding, type UpgradeSourceName } from "../chain/op/upgradeSchedule.js";
import { counter, gauge } from "../util/metrics.js";

/** Where the guard keeps its findings between runs (the chain store's meta table). */
interface UpgradeGuardStore {
  load(): string | undefined;
  save(json: string): void;
}

/** Options of an {@link UnknownUpgradeGuard}. */
interface UpgradeGuardOptions {
  logger?: Logger;
  /** Persistence; none keeps the findings in memory only. */
  store?: UpgradeGuardStore;
}

/** The stored form of a finding (bigints as decimal strings). */
interface StoredFinding {
  source: UpgradeSourceName;
  upgrade: string;
  activation: string;
  kind: "unknown" | "conflict";
  detail: string;
}

const key = (f: UpgradeFinding): string => `${f.source}|${f.kind}|${f.upgrade}|${f.activation}`;

const sourceLabel = (s: UpgradeSourceName): string => (s === "l1" ? "Base's L1 upgrade signal" : s === "follow-rpc" ? "the followed RPC's eth_config" : "basalt's table of Base's announced upgrades");

/** Blocks refused, by what was being done. */
const refusedBlocksTotal = counter<"action">({
  name: "basalt_chain_unknown_upgrade_refused_blocks_total",
  help: "Blocks refused because their timestamp is at or after an upgrade basalt does not implement (action: import or build)",
  labelNames: ["action"],
});

/** The guard whose findings the gauges report (one node per process). */
let bound: UnknownUpgradeGuard | undefined;

/** Points the gauges at the running node's guard; `undefined` unbinds. */
export function bindUpgradeGuardMetrics(guard: UnknownUpgradeGuard | undefined): void {
  bound = guard;
  registerUpgradeGuardMetrics();
}

let registered = false;

/** Registers the guard's gauges once per process (so every scrape lists the families, empty while nothing is found). */
export function registerUpgradeGuardMetrics(): void {
  if (registered) return;
  registered = true;
  const labelNames = ["source", "upgrade", "kind"] as const;
  gauge<(typeof labelNames)[number]>({
    name: "basalt_chain_unknown_upgrade_activation_seconds",
    help: "Activation time (unix seconds) of an upgrade a source schedules that basalt does not implement (kind=unknown) or schedules at another time (kind=conflict)",
    labelNames,
    collect() {
      this.reset();
      for (const f of bound?.findings() ?? []) this.set({ source: f.source, upgrade: f.upgrade, kind: f.kind }, Number(f.activation));
    },
  });
  gauge<(typeof labelNames)[number]>({
    name: "basalt_chain_unknown_upgrade_remaining_seconds",
    help: "Seconds until that upgrade activates (negative once it has); the node refuses blocks from then on",
    labelNames,
    collect() {
      this.reset();
      const now = Date.now() / 1000;
      for (const f of bound?.findings() ?? []) this.set({ source: f.source, upgrade: f.upgrade, kind: f.kind }, Number(f.activation) - now);
    },
  });
}

/** See the module comment. */
export class UnknownUpgradeGuard {
  private readonly bySource = new Map<UpgradeSourceName, UpgradeFinding[]>();
  private readonly listeners = new Set<() => void>();
  /** Findings whose first refusal was logged. */
  private readonly haltLogged = new Set<string>();
  private readonly log: Logger | undefined;
  private readonly store: UpgradeGuardStore | undefined;

  constructor(opts: UpgradeGuardOptions = {}) {
    this.log = opts.logger?.child({ subsystem: "upgrades" });
    this.store = opts.store;
    this.load();
  }

  /** Every finding of every source. */
  findings(): UpgradeFinding[] {
    return [...this.bySource.values()].flat();
  }

  /** The finding with the earliest activation (the one that halts first), or undefined. */
  earliest(): UpgradeFinding | undefined {
    let best: UpgradeFinding | undefined;
    for (const f of this.findings()) if (best === undefined || f.activation < best.activation) best = f;
    return best;
  }

  /**
   * Replaces what `source` reported with `findings` (its whole latest answer): logs what is new and
   * what is gone, keeps the result in the datadir, and tells the listeners when anything changed.
   */
  report(source: UpgradeSourceName, findings: readonly UpgradeFinding[]): void {
    const before = this.bySource.get(source) ?? [];
    const now = findings.map((f) => ({ ...f, source }));
    const beforeKeys = new Set(before.map(key));
    const nowKeys = new Set(now.map(key));
    const added = now.filter((f) => !beforeKeys.has(key(f)));
    const removed = before.filter((f) => !nowKeys.has(key(f)));
    if (added.length === 0 && removed.length === 0) return;
    for (const f of added) this.logFound(f);
    for (const f of removed) {
      this.haltLogged.delete(key(f));
      this.log?.info({ source, upgrade: f.upgrade, activation: f.activation.toString() }, `${sourceLabel(source)} no longer schedules ${f.upgrade} at ${formatActivation(f.activation)}`);
    }
    if (now.length === 0) this.bySource.delete(source);
    else this.bySource.set(source, now);
    this.save();
    for (const l of this.listeners) l();
  }

  /**
   * Drops the findings of sources this run does not configure (kept from an earlier run): without
   * the source nothing could ever lift them. Each dropped finding is logged at warn.
   */
  retainSources(active: readonly UpgradeSourceName[]): void {
    for (const s of UPGRADE_SOURCES) {
      // basalt's own table of announced upgrades is no configured source: it is re-read at every open.
      if (s === "announced" || active.includes(s) || !this.bySource.has(s)) continue;
      for (const f of this.bySource.get(s)!) {
        this.log?.warn(
          { source: s, upgrade: f.upgrade, activation: f.activation.toString() },
          `dropping ${f.upgrade} at ${formatActivation(f.activation)}, learnt from ${sourceLabel(s)} in an earlier run: that source is not configured now`,
        );
      }
      this.report(s, []);
    }
  }

  /** Calls `listener` after every change of the findings; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves at the next change of the findings, or when `signal` aborts. */
  changed(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted === true) {
        resolve();
        return;
      }
      const done = (): void => {
        off();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const off = this.onChange(done);
      signal?.addEventListener("abort", done);
    });
  }

  /** The finding that forbids a block at `timestamp`, or undefined when the block may run. */
  blocking(timestamp: bigint): UpgradeFinding | undefined {
    const f = this.earliest();
    return f !== undefined && timestamp >= f.activation ? f : undefined;
  }

  /**
   * Refuses a block at or after the earliest finding's activation.
   * @throws UnknownUpgradeError naming the upgrade, its time and its source (logged at error the first time per finding).
   */
  check(timestamp: bigint, block: { number: bigint; action: "import" | "build" }): void {
    const f = this.blocking(timestamp);
    if (f === undefined) return;
    refusedBlocksTotal.inc({ action: block.action });
    const what = f.kind === "unknown" ? "which this basalt does not implement" : "which this basalt schedules differently";
    const message =
      `refusing to ${block.action} block ${block.number} (timestamp ${timestamp}): ${f.upgrade} activates at ${formatActivation(f.activation)} ` +
      `according to ${sourceLabel(f.source)}, ${what}; the node stays at the blocks before it — upgrade basalt`;
    const k = key(f);
    if (!this.haltLogged.has(k)) {
      this.haltLogged.add(k);
      this.log?.error({ upgrade: f.upgrade, activation: f.activation.toString(), source: f.source, kind: f.kind, number: block.number.toString(), detail: f.detail }, message);
    } else {
      this.log?.debug({ upgrade: f.upgrade, number: block.number.toString(), action: block.action }, "block refused (unknown upgrade)");
    }
    throw new UnknownUpgradeError(message, {
      number: block.number.toString(),
      timestamp: timestamp.toString(),
      action: block.action,
      upgrade: f.upgrade,
      activation: f.activation.toString(),
      source: f.source,
      kind: f.kind,
    });
  }

  private logFound(f: UpgradeFinding): void {
    const fields = { source: f.source, upgrade: f.upgrade, activation: f.activation.toString(), kind: f.kind, detail: f.detail };
    if (f.kind === "conflict") {
      this.log?.error(fields, `${sourceLabel(f.source)} schedules ${f.upgrade} differently from basalt's table: blocks from ${formatActivation(f.activation)} on will be refused; check the network and upgrade basalt`);
    } else {
      this.log?.warn(fields, `${sourceLabel(f.source)} schedules ${f.upgrade} at ${formatActivation(f.activation)}, which this basalt does not implement: upgrade basalt before then; blocks from that time on will be refused`);
    }
  }

  private load(): void {
    const json = this.store?.load();
    if (json === undefined) return;
    let stored: StoredFinding[];
    try {
      stored = JSON.parse(json) as StoredFinding[];
    } catch (e) {
      this.log?.warn({ err: e }, "the stored unknown-upgrade findings are unreadable; starting without them");
      return;
    }
    for (const s of stored) {
      if (!UPGRADE_SOURCES.includes(s.source)) continue;
      const f: UpgradeFinding = { source: s.source, upgrade: s.upgrade, activation: BigInt(s.activation), kind: s.kind, detail: s.detail };
      this.bySource.set(s.source, [...(this.bySource.get(s.source) ?? []), f]);
    }
    for (const f of this.findings()) this.logFound(f);
  }

  private save(): void {
    if (this.store === undefined) return;
    const stored: StoredFinding[] = this.findings().map((f) => ({ ...f, activation: f.activation.toString() }));
    this.store.save(JSON.stringify(stored));
  }
}
