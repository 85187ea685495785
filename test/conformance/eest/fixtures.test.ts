/**
 * The EEST fixtures and their loading: the files match MANIFEST.tsv, every post entry becomes
 * exactly one case of exactly one shard (nothing is skipped), each shard has its test file, and
 * the transaction fields resolved by the entry's indexes are the ones its `txbytes` encode.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { beforeAll, describe, expect, it } from "vitest";
import { FORKS, STATE_TESTS_DIR, casesOfFile, fixtureFiles, manifest, selects, toHex, type Fork, type StateTestCase } from "./fixtures.js";
import { commonFor } from "./referenceEngine.js";
import { SHARDS } from "./run.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The README's totals of the v5.4.0 fixture set. */
const EXPECTED = { cases: 15_246, rejected: 789, Prague: 10_314, Osaka: 3_189, Cancun: 1_011 };

function big(v: unknown): bigint | undefined {
  return typeof v === "string" ? BigInt(v === "0x" ? 0 : v) : undefined;
}

/** Differences between a case's resolved transaction and its decoded `txbytes` (empty = same). */
function txDifferences(c: StateTestCase, t: TypedTransaction): string[] {
  const d: string[] = [];
  const tx = c.tx;
  const j = t.toJSON() as Record<string, unknown>;
  const eq = (what: string, a: unknown, b: unknown): void => {
    if (a !== b) d.push(`${what}: fields ${String(a)}, txbytes ${String(b)}`);
  };
  eq("type", tx.type, t.type);
  eq("nonce", tx.nonce, t.nonce);
  eq("gasLimit", tx.gasLimit, t.gasLimit);
  eq("value", tx.value, t.value);
  eq("to", tx.to === undefined ? undefined : toHex(tx.to), t.to?.toString());
  eq("data", toHex(tx.data), toHex(t.data));
  eq("gasPrice", tx.gasPrice, big(j.gasPrice));
  eq("maxFeePerGas", tx.maxFeePerGas, big(j.maxFeePerGas));
  eq("maxPriorityFeePerGas", tx.maxPriorityFeePerGas, big(j.maxPriorityFeePerGas));
  eq("maxFeePerBlobGas", tx.maxFeePerBlobGas, big(j.maxFeePerBlobGas));
  const al = (j.accessList as Array<{ address: string; storageKeys: string[] }> | undefined)?.map((i) => `${i.address}:${i.storageKeys.join(",")}`).join(";");
  eq("accessList", tx.accessList?.map((i) => `${toHex(i.address)}:${i.storageKeys.map(toHex).join(",")}`).join(";"), al);
  eq("blobVersionedHashes", tx.blobVersionedHashes?.map(toHex).join(","), (j.blobVersionedHashes as string[] | undefined)?.join(","));
  const auth = (j.authorizationList as Array<Record<string, string>> | undefined)?.map((a) => [a.chainId, a.address, a.nonce, a.yParity, a.r, a.s].map((x) => (x?.startsWith("0x") && x.length !== 42 ? String(big(x)) : x)).join("/")).join(";");
  eq("authorizationList", tx.authorizationList?.map((a) => [a.chainId, toHex(a.address), a.nonce, a.yParity, a.r, a.s].map(String).join("/")).join(";"), auth);
  if (t.isSigned()) {
    let sender: string | undefined;
    try {
      sender = t.getSenderAddress().toString();
    } catch {
      sender = undefined; // an unrecoverable signature is the case's point
    }
    if (sender !== undefined) eq("sender", toHex(tx.sender), sender);
  }
  return d;
}

describe("EEST fixtures", () => {
  const files = fixtureFiles();
  const m = manifest();

  it("match MANIFEST.tsv (same files, sizes and sha256)", () => {
    expect(files.filter((f) => !m.has(f)), "files missing from MANIFEST.tsv").toEqual([]);
    expect([...m.keys()].filter((f) => !files.includes(f)), "MANIFEST.tsv files missing from the folder").toEqual([]);
    const bad: string[] = [];
    for (const f of files) {
      const e = m.get(f)!;
      const p = path.join(STATE_TESTS_DIR, f);
      if (statSync(p).size !== e.bytes) bad.push(`${f}: size`);
      else if (createHash("sha256").update(readFileSync(p)).digest("hex") !== e.sha256) bad.push(`${f}: sha256`);
    }
    expect(bad).toEqual([]);
  });

  describe("every case", () => {
    const perFork = new Map<Fork, number>();
    const perFile = new Map<string, number>();
    const ids = new Set<string>();
    const notInOneShard: string[] = [];
    const txMismatch: string[] = [];
    let rejected = 0;
    let decoded = 0;

    beforeAll(() => {
      for (const file of files) {
        for (const c of casesOfFile(file)) {
          ids.add(c.id);
          perFork.set(c.fork, (perFork.get(c.fork) ?? 0) + 1);
          perFile.set(file, (perFile.get(file) ?? 0) + 1);
          if (c.expectException !== undefined) rejected++;
          const shards = SHARDS.filter((s) => selects(s.selection, c.fork, c.id));
          if (shards.length !== 1) notInOneShard.push(`${c.id}: in ${shards.length} shards`);
          let t: TypedTransaction | undefined;
          try {
            t = createTxFromRLP(c.txbytes, { common: commonFor(c.fork, c.config) });
          } catch {
            if (c.expectException === undefined) txMismatch.push(`${c.id}: txbytes do not decode but the transaction is valid`);
          }
          if (t === undefined) continue;
          decoded++;
          const d = txDifferences(c, t);
          if (d.length > 0) txMismatch.push(`${c.id}: ${d.join("; ")}`);
        }
      }
    }, 600_000);

    it("are loaded: one per post entry, the README's totals", () => {
      let total = 0;
      for (const n of perFork.values()) total += n;
      expect(total).toBe(EXPECTED.cases);
      expect(ids.size, "case ids are unique").toBe(EXPECTED.cases);
      expect(rejected).toBe(EXPECTED.rejected);
      expect(perFork.get("Prague")).toBe(EXPECTED.Prague);
      expect(perFork.get("Osaka")).toBe(EXPECTED.Osaka);
      expect(perFork.get("Cancun")).toBe(EXPECTED.Cancun);
      expect([...perFork.keys()].every((f) => FORKS.includes(f))).toBe(true);
      const wrong = files.filter((f) => (perFile.get(f) ?? 0) !== m.get(f)?.postCases);
      expect(wrong, "files whose case count differs from MANIFEST.tsv").toEqual([]);
    });

    it("belong to exactly one shard", () => {
      expect(notInOneShard.slice(0, 20)).toEqual([]);
    });

    it("resolve the transaction their txbytes encode", () => {
      expect(decoded).toBeGreaterThan(EXPECTED.cases - EXPECTED.rejected);
      expect(txMismatch.slice(0, 20)).toEqual([]);
    });
  });

  it("each shard has its test file, and every shard file names a shard", () => {
    const testFiles = readdirSync(HERE).filter((f) => f.endsWith(".test.ts"));
    for (const s of SHARDS) {
      const f = `${s.name}.test.ts`;
      expect(testFiles, `missing shard file ${f}`).toContain(f);
      expect(readFileSync(path.join(HERE, f), "utf8")).toContain(`describeShard("${s.name}")`);
    }
    const named = testFiles.flatMap((f) => [...readFileSync(path.join(HERE, f), "utf8").matchAll(/^describeShard\("([^"]+)"\);$/gm)].map((m) => `${f}: ${m[1]}`));
    expect(named.filter((n) => !SHARDS.some((s) => n === `${s.name}.test.ts: ${s.name}`))).toEqual([]);
    expect(named.length).toBe(SHARDS.length);
  });
});
