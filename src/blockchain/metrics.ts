/**
 * Prometheus gauges of the chain and its database, read at scrape time: head / safe / finalized
 * numbers, the head's age and gas used, and the size of the LMDB data files under the datadir.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Gauge, register } from "prom-client";

/** What the gauges read; `Chain` satisfies it. */
export interface ChainMetricsSource {
  readonly head: { readonly header: { readonly number: bigint; readonly timestamp: bigint; readonly gasUsed: bigint } };
  pointer(name: "safe" | "finalized"): { readonly header: { readonly number: bigint } } | undefined;
}

/** LMDB's data file name (`<env>/data.mdb`); its lock file is a few KiB and not counted. */
const LMDB_DATA_FILE = "data.mdb";
/**
 * Directory levels searched below the datadir for LMDB environments: the chain store is
 * `<datadir>/chain`, and 3 levels leave room for nested stores (e.g. `<datadir>/proofs/<db>`)
 * without walking arbitrary trees a user may have put there.
 */
const DB_SEARCH_DEPTH = 3;

let source: ChainMetricsSource | undefined;
let datadir: string | undefined;

/**
 * Points the gauges at the running chain and its datadir (one node per process); `undefined`
 * unbinds (the gauges then report nothing new).
 */
export function bindChainMetrics(chain: ChainMetricsSource | undefined, dir?: string): void {
  source = chain;
  datadir = chain === undefined ? undefined : dir;
  registerChainGauges();
}

/**
 * Bytes on disk of every LMDB data file (`data.mdb`) under `dir`, at most {@link DB_SEARCH_DEPTH}
 * levels down. Allocated blocks are counted (LMDB files can be sparse), falling back to the
 * apparent size where the filesystem reports no block count.
 */
export async function lmdbBytes(dir: string, depth = DB_SEARCH_DEPTH): Promise<number> {
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

function gauge(name: string, help: string, collect: (g: Gauge) => void | Promise<void>): void {
  if (register.getSingleMetric(name) !== undefined) return;
  new Gauge({
    name,
    help,
    collect() {
      return collect(this);
    },
  });
}

let registered = false;

/** Registers the gauges once per process (bound or not, so every scrape lists them). */
export function registerChainGauges(): void {
  if (registered) return;
  registered = true;
  gauge("basalt_chain_head_number", "Number of the canonical head block", (g) => {
    if (source !== undefined) g.set(Number(source.head.header.number));
  });
  gauge("basalt_chain_safe_number", "Number of the safe block", (g) => {
    const b = source?.pointer("safe");
    if (b !== undefined) g.set(Number(b.header.number));
  });
  gauge("basalt_chain_finalized_number", "Number of the finalized block", (g) => {
    const b = source?.pointer("finalized");
    if (b !== undefined) g.set(Number(b.header.number));
  });
  gauge("basalt_chain_head_age_seconds", "Seconds since the head block's timestamp (negative when it is ahead of this clock)", (g) => {
    if (source !== undefined) g.set(Date.now() / 1000 - Number(source.head.header.timestamp));
  });
  gauge("basalt_chain_head_gas_used", "Gas used by the head block", (g) => {
    if (source !== undefined) g.set(Number(source.head.header.gasUsed));
  });
  gauge("basalt_storage_db_bytes", "Bytes on disk of the LMDB data files under the datadir", async (g) => {
    if (datadir !== undefined) g.set(await lmdbBytes(datadir));
  });
}
