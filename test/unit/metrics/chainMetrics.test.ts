/** Chain gauges read at scrape time from a bound source, and the LMDB size walk. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { register } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { bindChainMetrics, type ChainMetricsSource } from "../../../src/blockchain/metrics.js";
import { lmdbBytes } from "../../../src/storage/metrics.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-chain-metrics-"));
afterAll(() => {
  bindChainMetrics(undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function value(name: string): Promise<number | undefined> {
  const m = register.getSingleMetric(name);
  return m === undefined ? undefined : (await m.get()).values[0]?.value;
}

describe("chain metrics", () => {
  it("reads head, safe, finalized, head age, gas used and DB size at scrape time", async () => {
    mkdirSync(path.join(dir, "chain"));
    writeFileSync(path.join(dir, "chain", "data.mdb"), Buffer.alloc(10_000, 1));
    writeFileSync(path.join(dir, "chain", "lock.mdb"), Buffer.alloc(100, 1));
    writeFileSync(path.join(dir, "jwt.hex"), "0x00");
    const now = Math.floor(Date.now() / 1000);
    const src: ChainMetricsSource & { number: bigint } = {
      number: 42n,
      get head() {
        return { header: { number: this.number, timestamp: BigInt(now - 30), gasUsed: 21_000n } };
      },
      pointer: (name) => ({ header: { number: name === "safe" ? 40n : 30n } }),
    };
    bindChainMetrics(src, dir);
    expect(await value("basalt_chain_head_number")).toBe(42);
    src.number = 43n;
    expect(await value("basalt_chain_head_number")).toBe(43);
    expect(await value("basalt_chain_safe_number")).toBe(40);
    expect(await value("basalt_chain_finalized_number")).toBe(30);
    expect(await value("basalt_chain_head_used_gas")).toBe(21_000);
    const age = (await value("basalt_chain_head_age_seconds")) as number;
    expect(age).toBeGreaterThanOrEqual(29);
    expect(age).toBeLessThan(3600);
    const bytes = (await value("basalt_storage_db_bytes")) as number;
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(10_000);
  });

  it("sums data.mdb files a few levels down and ignores everything else", async () => {
    const nested = path.join(dir, "proofs", "db");
    mkdirSync(nested, { recursive: true });
    writeFileSync(path.join(nested, "data.mdb"), "x".repeat(5000));
    const total = await lmdbBytes(dir);
    expect(total).toBe((await lmdbBytes(path.join(dir, "chain"))) + (await lmdbBytes(path.join(dir, "proofs"))));
    expect(await lmdbBytes(path.join(dir, "missing"))).toBe(0);
    expect(await lmdbBytes(dir, 0)).toBe(0);
  });
});
