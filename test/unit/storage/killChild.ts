/**
 * Child process of the storage kill test (killed.test.ts): runs a bulk load of the synthetic
 * state, or a migration of a datadir, and SIGKILLs itself at the `STORAGE_KILL_AT_PUT`-th put
 * made inside a write transaction — so the process dies with a transaction open, uncommitted.
 * `STORAGE_KILL_AT_PUT=0` runs to the end and prints the puts made (the test's count). Run through
 * Vite's module runner, so it runs this TypeScript source, not a build.
 */
import { bulkLoadState } from "../../../src/storage/bulkLoad.js";
import { migrateDatadir } from "../../../src/storage/migrate.js";
import { ChainStore } from "../../../src/storage/store.js";
import { syntheticAccounts } from "./syntheticState.js";

const mode = process.env.STORAGE_KILL_MODE as "bulk" | "migrate";
const dir = process.env.STORAGE_KILL_DIR!;
const killAt = Number(process.env.STORAGE_KILL_AT_PUT);
const txnWrites = Number(process.env.STORAGE_KILL_TXN_WRITES);
const accounts = Number(process.env.STORAGE_KILL_ACCOUNTS ?? "0");

// lmdb-js makes one store class per environment: count the puts of the environment's sub-databases.
let puts = 0;
function countPuts(db: object): void {
  const proto = Object.getPrototypeOf(db) as { put: (...a: unknown[]) => unknown; counted?: boolean };
  if (proto.counted === true) return;
  const put = proto.put;
  proto.counted = true;
  proto.put = function (this: unknown, ...a: unknown[]): unknown {
    const r = put.apply(this, a);
    if (++puts === killAt) process.kill(process.pid, "SIGKILL");
    return r;
  };
}
const openForMigration = ChainStore.openForMigration.bind(ChainStore);
ChainStore.openForMigration = (datadir: string) => {
  const opened = openForMigration(datadir);
  countPuts(opened.store.hashedAccounts);
  countPuts(opened.store.meta);
  return opened;
};

if (mode === "bulk") {
  const store = ChainStore.open(dir);
  countPuts(store.hashedAccounts);
  countPuts(store.meta);
  bulkLoadState(store, syntheticAccounts(accounts), { txnWrites });
  await store.close();
} else {
  await migrateDatadir(dir, { txnWrites });
}
process.stdout.write(`puts ${puts}\n`);
