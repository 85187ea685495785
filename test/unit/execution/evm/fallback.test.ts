/**
 * A fast path never makes the node accept a wrong state: blocks sealed by the devnet (fast
 * engine) are imported on a second chain whose fast engine is made to get every transaction's
 * gas wrong (a test fault hook). The fast result then does not match the header, the block is
 * executed again on the reference engine, imported with the right result, counted in
 * `basalt_execution_evm_fallbacks_total{reason="mismatch"}` and warned about once. The same
 * blocks import without any fallback when nothing is injected; and a chain running the
 * reference engine alone imports them too.
 */
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { register } from "prom-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../../../src/chain/blockCodec.js";
import { devAccounts, devnetGenesis } from "../../../../src/chain/devnet.js";
import { fastEvmTestHooks } from "../../../../src/execution/evm/transaction.js";
import "../../../../src/execution/evm/metrics.js";
import { OpDevSequencer } from "../../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../../src/txpool/txpool.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-evmfallback-"));
  dirs.push(d);
  return d;
};

async function fallbacks(reason: "mismatch" | "unsupported"): Promise<number> {
  const m = await register.getSingleMetric("basalt_execution_evm_fallbacks_total")!.get();
  return m.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe("fast EVM fallback to the reference engine on a mismatch", () => {
  let sealed: Block[] = [];

  beforeAll(async () => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis(), { archive: true });
    const source = Chain.open(dir, { logger: silent, evmEngine: "fast" });
    const pool = new TxPool(source);
    const seq = new OpDevSequencer(source, pool, 0, silent);
    const a = devAccounts();
    for (let i = 0; i < 3; i++) {
      const tx = createFeeMarket1559Tx(
        { chainId: source.chainId, nonce: BigInt(i), maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 21_000n, to: a[1]!.address as `0x${string}`, value: 5n },
        { common: source.commonAt(1n, source.head.header.timestamp + 1n) },
      ).sign(hexToBytes(a[0]!.privateKey as `0x${string}`));
      await pool.addRaw(tx.serialize());
      await seq.sealOne();
    }
    sealed = [1n, 2n, 3n].map((n) => source.getBlockByNumber(n)!);
    await source.close();
  });

  afterEach(() => {
    fastEvmTestHooks.afterTransaction = undefined;
  });

  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const importAll = async (engine: "fast" | "reference", logger = silent): Promise<Chain> => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis(), { archive: true });
    const c = Chain.open(dir, { logger, evmEngine: engine });
    for (const b of sealed) await c.importBlock(decodeBlockFromRlp(c, b.serialize()));
    return c;
  };

  it("imports without a fallback when the fast engine is right", async () => {
    const before = await fallbacks("mismatch");
    const c = await importAll("fast");
    expect(c.head.hash()).toEqual(sealed[2]!.hash());
    expect(await fallbacks("mismatch")).toBe(before);
    await c.close();
  });

  it("re-executes every mismatching block on the reference engine, imports the right state, counts each, warns once", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: "warn" }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
    let faults = 0;
    fastEvmTestHooks.afterTransaction = (r) => {
      faults++;
      r.gasUsed += 1n;
    };
    const before = await fallbacks("mismatch");
    const c = await importAll("fast", logger);
    expect(faults).toBeGreaterThan(0);
    // The right state: the sealed blocks' hashes (state roots included) are the chain's.
    expect(c.head.hash()).toEqual(sealed[2]!.hash());
    expect(c.head.header.stateRoot).toEqual(sealed[2]!.header.stateRoot);
    expect(await fallbacks("mismatch")).toBe(before + sealed.length);
    const warned = lines.filter((l) => typeof l.msg === "string" && (l.msg as string).includes("fast EVM result did not match"));
    expect(warned.length).toBe(1);
    expect(warned[0]!.level).toBe(40);
    await c.close();
  });

  it("imports on the reference engine alone (--evm reference)", async () => {
    let faults = 0;
    fastEvmTestHooks.afterTransaction = () => void faults++;
    const c = await importAll("reference");
    expect(c.head.hash()).toEqual(sealed[2]!.hash());
    expect(faults).toBe(0);
    await c.close();
  });
});
