/**
 * `basalt proofs init --datadir D [--proofs.path P] [--proofs.history-window W]`: builds the
 * historical-proofs store of a datadir without running the node — the baseline at the head, then
 * the window extended backwards block by block to `head − W` (or genesis, or as far as the main
 * store keeps state history: `--history.blocks`, all with `--archive`) — with a progress line
 * (blocks/s, ETA). Interrupting it (Ctrl-C, SIGTERM) stops after the block being written; running
 * it again resumes. On a store whose window already reaches back that far it says so and does
 * nothing. A node started with `--historical-proofs` does the same on its first start.
 */
import type { Logger } from "pino";
import { Chain } from "../../blockchain/chain.js";
import { IMPORT_PROGRESS_INTERVAL_MS } from "../../config/constants.js";
import { PROOFS_BACKFILL_BLOCKS_PER_TURN } from "../../proofs/constants.js";
import { proofsStoreDir, type BasaltOptions } from "../../config/options.js";
import { ProofsError, ProofsErrorCode } from "../../proofs/errors.js";
import { ProofsStore } from "../../proofs/store.js";
import { ProofsSync } from "../../proofs/sync.js";
import { CliError } from "../args.js";
import { ProgressMeter } from "../../util/progress.js";
import { withStopSignal } from "../stopSignal.js";

/** Opens the store read-write; a lock held by a running node is said plainly. */
async function openStore(dir: string, chain: Chain): Promise<ProofsStore> {
  try {
    return await ProofsStore.open(dir, { chainId: chain.chainId, genesisHash: chain.genesisHash });
  } catch (e) {
    if (e instanceof ProofsError && e.type.code === ProofsErrorCode.IN_USE) {
      throw new CliError({ code: "CLI_PROOFS_IN_USE", dir, reason: e.type.reason }, `the proofs store at ${dir} is in use: stop the node running with --historical-proofs on it first (${e.type.reason})`);
    }
    throw e;
  }
}

/** Runs `basalt proofs init`. */
export async function proofsCommand(opts: BasaltOptions, positionals: string[], log: Logger): Promise<void> {
  const [action] = positionals;
  if (action !== "init" || positionals.length !== 1) throw new CliError({ code: "CLI_MISSING_ARGUMENT", command: "proofs", ...(action === undefined ? {} : { value: action }) }, "proofs needs one action: basalt proofs init --datadir D [--proofs.history-window W]");
  const dir = proofsStoreDir(opts.datadir, opts["proofs.path"]);
  const chain = Chain.open(opts.datadir, { readOnly: true, logger: log });
  let store: ProofsStore | undefined;
  try {
    await withStopSignal(async (stopRequested) => {
      store = await openStore(dir, chain);
      const sync = new ProofsSync(chain, store, BigInt(opts["proofs.history-window"]), log);
      const before = store.window();
      if (before.earliest !== undefined && before.earliest.number <= sync.floor()) {
        log.info({ path: dir, earliest: before.earliest.number.toString(), latest: before.latest!.number.toString() }, "proofs store already initialized: its window reaches back as far as configured; nothing to do");
        return;
      }
      if (before.earliest !== undefined && before.earliest.number <= sync.backfillTarget()) {
        log.info(
          { path: dir, earliest: before.earliest.number.toString(), latest: before.latest!.number.toString(), historyFloor: chain.store.historyFloor().toString() },
          "proofs store already initialized: its window reaches back as far as the main store keeps state history (--history.blocks; --archive keeps all); nothing to do",
        );
        return;
      }
      const t0 = Date.now();
      const init = await sync.initBaseline();
      const w = store.window();
      if (init.created) log.info({ path: dir, block: w.latest!.number.toString(), nodes: init.nodes, ms: Date.now() - t0 }, "proofs baseline written at the head; extending the window backwards");
      else log.info({ path: dir, earliest: w.earliest!.number.toString(), latest: w.latest!.number.toString() }, "resuming the proofs window's backward extension");
      const floor = sync.backfillTarget();
      const start = w.earliest!.number;
      const meter = new ProgressMeter();
      let done = 0;
      while (!stopRequested()) {
        const n = await sync.backfill(PROOFS_BACKFILL_BLOCKS_PER_TURN);
        if (n === 0) break;
        done += n;
        if (meter.due(IMPORT_PROGRESS_INTERVAL_MS)) {
          const earliest = store.window().earliest!.number;
          const p = meter.sample(done, Number(earliest - floor));
          log.info({ earliest: earliest.toString(), target: floor.toString(), blocksPerSecond: p.blocksPerSecond, eta: p.eta }, "extending the proofs window backwards");
        }
      }
      const end = store.window();
      const seconds = (Date.now() - t0) / 1000;
      const fields = { path: dir, earliest: end.earliest!.number.toString(), latest: end.latest!.number.toString(), blocks: done, blocksPerSecond: Math.round(Number(start - end.earliest!.number) / Math.max(seconds, 0.001)) };
      const stopped = sync.backfillStop();
      if (stopRequested() && end.earliest!.number > floor) log.info(fields, "interrupted: the window is kept as it is; run `basalt proofs init` again to resume");
      else if (stopped !== undefined) {
        log.info(
          { ...fields, historyFloor: stopped.historyFloor.toString(), target: sync.floor().toString() },
          "proofs store initialized back to where the main store's state history ends (--history.blocks; --archive keeps all)",
        );
      } else log.info(fields, "proofs store initialized");
    });
  } finally {
    await store?.close();
    await chain.close();
  }
}
