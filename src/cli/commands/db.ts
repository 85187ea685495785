/**
 * `basalt db reindex-logs --datadir D`: rebuilds the eth_getLogs log index of a stopped node's
 * datadir (storage/logReindex.ts), resumable the same way.
 *
 * `basalt db migrate --datadir D`: converts a stopped node's datadir from the plain-keyed state
 * layout of basalt before 0.9 to the current one in place (storage/migrate.ts), with a progress
 * line per step (entries/s, ETA). Interrupting it (Ctrl-C, SIGTERM) stops after the transaction
 * being written; running it again continues. On a current datadir it says so and does nothing.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { IMPORT_PROGRESS_INTERVAL_MS } from "../../config/constants.js";
import type { BasaltOptions } from "../../config/options.js";
import { migrateDatadir, type MigrationStep } from "../../storage/migrate.js";
import { reindexLogs } from "../../storage/logReindex.js";
import { to0x } from "../../util/bytes.js";
import { CliError } from "../args.js";
import { ProgressMeter } from "../../util/progress.js";
import { withStopSignal } from "../stopSignal.js";

/** Runs `basalt db migrate` or `basalt db reindex-logs`. */
export async function dbCommand(opts: BasaltOptions, positionals: string[], log: Logger): Promise<void> {
  const [action] = positionals;
  if ((action !== "migrate" && action !== "reindex-logs") || positionals.length !== 1) {
    throw new CliError({ code: "CLI_MISSING_ARGUMENT", command: "db", value: action }, "db needs one action: basalt db migrate|reindex-logs --datadir D");
  }
  const datadir = opts.datadir;
  if (!existsSync(join(datadir, "chain", "data.mdb"))) {
    throw new CliError({ code: "CLI_NO_DATADIR", command: "db", datadir }, `no basalt datadir at ${datadir} (no chain/data.mdb): give the datadir of the stopped node with --datadir`);
  }
  if (action === "reindex-logs") return reindexCommand(datadir, log);
  const t0 = Date.now();
  let step: MigrationStep | undefined;
  let meter = new ProgressMeter();
  await withStopSignal(async (stopRequested) => {
    log.info({ datadir }, "migrating the datadir to the current state layout (stop the node first; interrupt with Ctrl-C and run again to continue)");
    const r = await migrateDatadir(datadir, {
      stopRequested,
      onProgress: (p) => {
        if (p.step !== step) {
          step = p.step;
          meter = new ProgressMeter(p.done);
          log.info({ step: p.step, ...(p.total === undefined ? {} : { total: p.total }) }, "migration step started");
          return;
        }
        if (!meter.due(IMPORT_PROGRESS_INTERVAL_MS)) return;
        const s = meter.sample(p.done, p.total === undefined ? undefined : Math.max(p.total - p.done, 0));
        log.info({ step: p.step, done: p.done, ...(p.total === undefined ? {} : { total: p.total }), perSecond: Math.round(s.blocksPerSecond), ...(s.eta === undefined ? {} : { eta: s.eta }) }, "migrating");
      },
    });
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    if (r.outcome === "current") log.info({ datadir }, "the datadir already has the current state layout: nothing to do");
    else if (r.outcome === "stopped") log.info({ datadir, seconds }, "interrupted: run `basalt db migrate` again to continue where it stopped");
    else {
      log.info(
        { datadir, seconds, accounts: r.accounts, slots: r.slots, historyEntries: r.historyEntries, resumed: r.resumed, ...(r.stateRoot === undefined ? {} : { stateRoot: to0x(r.stateRoot) }) },
        "datadir migrated: the state root matches the head's; start the node as before",
      );
    }
  });
}

/** Runs `basalt db reindex-logs`: progress lines (blocks/s, ETA); Ctrl-C stops after the batch being written. */
async function reindexCommand(datadir: string, log: Logger): Promise<void> {
  const t0 = Date.now();
  const meter = new ProgressMeter();
  await withStopSignal(async (stopRequested) => {
    log.info({ datadir }, "rebuilding the log index (stop the node first; interrupt with Ctrl-C and run again to continue)");
    const r = await reindexLogs(datadir, {
      stopRequested,
      onProgress: (p) => {
        if (!meter.due(IMPORT_PROGRESS_INTERVAL_MS)) return;
        const s = meter.sample(p.done, Math.max(p.total - p.done, 0));
        log.info({ done: p.done, total: p.total, perSecond: Math.round(s.blocksPerSecond), ...(s.eta === undefined ? {} : { eta: s.eta }) }, "indexing logs");
      },
    });
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    if (r.outcome === "stopped") log.info({ datadir, seconds, blocks: r.blocks }, "interrupted: run `basalt db reindex-logs` again to continue where it stopped");
    else log.info({ datadir, seconds, blocks: r.blocks, entries: r.entries, resumed: r.resumed }, "log index rebuilt: it covers every block; start the node as before");
  });
}
