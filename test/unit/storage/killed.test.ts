/**
 * kill -9 in the middle of a bulk load or a migration: a child process (killChild.ts) SIGKILLs
 * itself with a write transaction open, at an early, a middle and a late put; running the same
 * load or migration again then finishes with exactly the tables an uninterrupted run gives.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bulkLoadState } from "../../../src/storage/bulkLoad.js";
import { migrateDatadir } from "../../../src/storage/migrate.js";
import { prefixEnd } from "../../../src/storage/keys.js";
import { ChainStore, MetaKey } from "../../../src/storage/store.js";
import { REPO_ROOT } from "../../helpers/basaltProcess.js";
import { syntheticAccounts } from "./syntheticState.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const ACCOUNTS = 3_000;
/** Writes per transaction: small, so that both runs commit many transactions (the fixture's migration is ~500 puts). */
const TXN_WRITES = { bulk: 150, migrate: 20 } as const;
const FIXTURE = new URL("../../fixtures/legacy-layout-1/data.mdb.gz", import.meta.url);
const tmp = tempDirs("basalt-killed-");
function legacyDatadir(): string {
  const d = tmp();
  mkdirSync(path.join(d, "chain"));
  writeFileSync(path.join(d, "chain", "data.mdb"), gunzipSync(readFileSync(FIXTURE)));
  return d;
}

const childFile = fileURLToPath(new URL("./killChild.ts", import.meta.url));
const childScript = `import("vite").then(({ runnerImport }) => runnerImport(${JSON.stringify(childFile)})).catch((e) => { console.error(e); process.exit(1); })`;

function runChild(mode: "bulk" | "migrate", dir: string, killAt: number): Promise<{ signal: NodeJS.Signals | null; code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, STORAGE_KILL_MODE: mode, STORAGE_KILL_DIR: dir, STORAGE_KILL_AT_PUT: String(killAt), STORAGE_KILL_TXN_WRITES: String(TXN_WRITES[mode]), STORAGE_KILL_ACCOUNTS: String(ACCOUNTS) };
    const child = spawn(process.execPath, ["-e", childScript], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, output }));
  });
}

async function dump(dir: string): Promise<Record<string, string[]>> {
  const store = ChainStore.open(dir);
  try {
    const out: Record<string, string[]> = {};
    for (const name of ["hashedAccounts", "hashedStorage", "accountTrie", "storageTrie", "accountHistory", "storageHistory", "changeSets", "code"] as const) {
      out[name] = [...store[name].getRange({})].map(({ key, value }) => `${key.toString("hex")}=${value.toString("hex")}`);
    }
    out.meta = [String(store.getMeta(MetaKey.bulkLoad)), String(store.getMeta(MetaKey.migration)), Buffer.from(store.getStateRoot() ?? []).toString("hex")];
    return out;
  } finally {
    await store.close();
  }
}

describe("killed with a write transaction open", () => {
  it("a bulk load resumes to the tables of an uninterrupted load", async () => {
    const whole = tmp();
    const full = await runChild("bulk", whole, 0);
    expect(full.code, full.output).toBe(0);
    const total = Number(/puts (\d+)/.exec(full.output)![1]);
    expect(total).toBeGreaterThan(10 * TXN_WRITES.bulk);
    const want = await dump(whole);
    // The stream's second account has 2,000 slots, more than a transaction: a kill can leave part of it.
    const big = [...syntheticAccounts(ACCOUNTS)][1]!.hashedAddress;
    let cutInsideAccount = 0;
    for (const at of [Math.floor(total * 0.05), Math.floor(total * 0.2), Math.floor(total * 0.6), total - 3]) {
      const d = tmp();
      const run = await runChild("bulk", d, at);
      expect({ signal: run.signal, output: run.output }, `killed at put ${at} of ${total}`).toEqual({ signal: "SIGKILL", output: "" });
      const store = ChainStore.open(d);
      const partial = [...store.hashedStorage.getKeys({ start: Buffer.from(big), end: prefixEnd(big) })].length;
      if (partial > 0 && partial < 2_000) cutInsideAccount++;
      const r = bulkLoadState(store, syntheticAccounts(ACCOUNTS), { txnWrites: TXN_WRITES.bulk });
      await store.close();
      expect(r.resumed, `killed at put ${at}`).toBe(true);
      expect(await dump(d), `killed at put ${at} of ${total}`).toEqual(want);
    }
    expect(cutInsideAccount, "a kill left an account's slots half written").toBeGreaterThan(0);
  }, 120_000);

  it("a migration continues to the tables of an uninterrupted migration", async () => {
    const whole = legacyDatadir();
    const full = await runChild("migrate", whole, 0);
    expect(full.code, full.output).toBe(0);
    const total = Number(/puts (\d+)/.exec(full.output)![1]);
    expect(total).toBeGreaterThan(10 * TXN_WRITES.migrate);
    const want = await dump(whole);
    for (const at of [Math.floor(total * 0.2), Math.floor(total * 0.6), total - 3]) {
      const d = legacyDatadir();
      const run = await runChild("migrate", d, at);
      expect({ signal: run.signal, output: run.output }, `killed at put ${at} of ${total}`).toEqual({ signal: "SIGKILL", output: "" });
      const r = await migrateDatadir(d, { txnWrites: TXN_WRITES.migrate });
      expect(r.outcome).toBe("migrated");
      expect(r.resumed).toBe(true);
      expect(await dump(d), `killed at put ${at} of ${total}`).toEqual(want);
    }
  }, 120_000);
});
