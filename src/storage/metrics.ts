/**
 * Prometheus gauge of the store: the size of the LMDB data files under the datadir, read at
 * scrape time.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { gauge } from "../util/metrics.js";
import { DB_SIZE_SEARCH_DEPTH } from "./constants.js";

/** LMDB's data file name (`<env>/data.mdb`); its lock file is a few KiB and not counted. */
const LMDB_DATA_FILE = "data.mdb";

let datadir: string | undefined;

/** Points the gauge at the running node's datadir (one node per process); `undefined` unbinds. */
export function bindStorageMetrics(dir: string | undefined): void {
  datadir = dir;
  registerStorageGauges();
}

/**
 * Bytes on disk of every LMDB data file (`data.mdb`) under `dir`, at most `depth` levels down
 * ({@link DB_SIZE_SEARCH_DEPTH} by default). Allocated blocks are counted (LMDB files can be
 * sparse), falling back to the apparent size where the filesystem reports no block count.
 */
export async function lmdbBytes(dir: string, depth = DB_SIZE_SEARCH_DEPTH): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory() && depth > 0) total += await lmdbBytes(path, depth - 1);
    else if (e.isFile() && e.name === LMDB_DATA_FILE) {
      try {
        const st = await stat(path);
        total += st.blocks > 0 ? Math.min(st.size, st.blocks * 512) : st.size;
      } catch {
        // removed between readdir and stat
      }
    }
  }
  return total;
}

let registered = false;

/** Registers the gauge once per process (bound or not, so every scrape lists it). */
export function registerStorageGauges(): void {
  if (registered) return;
  registered = true;
  gauge({
    name: "basalt_storage_db_bytes",
    help: "Bytes on disk of the LMDB data files under the datadir",
    async collect() {
      if (datadir !== undefined) this.set(await lmdbBytes(datadir));
    },
  });
}
