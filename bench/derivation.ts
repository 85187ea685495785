/**
 * Derivation figures on a local rollup (`node dist/bench/derivation.js [seconds] [tx/s] [anvil|basalt]`):
 * an L1 with 1 s blocks — anvil (batches in calldata) or basalt's own devnet-l1 (batches in
 * blobs, read back through its beacon API) — `basalt devnet rollup`'s sequencer with its batcher
 * and a live verifier, user transfers at a fixed rate for `seconds`. Reported:
 *
 * - **safe latency**: how long after the L1 block carrying a batch the live verifier's safe head
 *   includes it (now − timestamp of `safe_l1`, sampled at each safe-head move);
 * - **catch-up speed**: a second verifier started from genesis after the run derives and executes
 *   the whole chain — L2 blocks per second (and transactions per second);
 * - **L1 requests per L2 block**: the catch-up verifier's `basalt_derivation_l1_requests_total`
 *   (and beacon requests) over the blocks it derived, and the live verifier's in steady state.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import pino from "pino";
import { devAccounts } from "../src/chain/devnet.js";
import { ANVIL_CHAIN_ID, DEVNET_CHAIN_ID } from "../src/chain/constants.js";
import { rollupPorts, startRollupDevnet } from "../src/devnet/rollup.js";
import { HttpRpcClient } from "../src/util/rpcClient.js";
import { startAnvil } from "./scenario/anvil.js";

type Json = Record<string, unknown>;
const seconds = Number(process.argv[2] ?? 90);
const rate = Number(process.argv[3] ?? 20);
/** "anvil" (batches in calldata) or "basalt" (basalt's own devnet-l1, batches in blobs). */
const l1Kind = process.argv[4] === "basalt" ? "basalt" : "anvil";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function metricSum(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith(name))
    .reduce((a, l) => a + Number(l.split(" ").pop()), 0);
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

async function main(): Promise<void> {
  const log = pino({ level: "warn" });
  const dir = mkdtempSync(join(tmpdir(), "basalt-bench-derive-"));
  const anvil = l1Kind === "anvil" ? await startAnvil({ chainId: ANVIL_CHAIN_ID, blockTime: 1 }) : undefined;
  const rollup = await startRollupDevnet({
    dir: join(dir, "rollup"),
    outDir: dir,
    ...(anvil === undefined ? {} : { l1Rpc: anvil.url }),
    blockTime: 1,
    l1BlockTime: 1,
    batcherData: anvil === undefined ? "blobs" : "calldata",
    ports: await rollupPorts(0),
    logLevel: "warn",
    logger: log,
  });
  const e = rollup.endpoints;
  const seq = new HttpRpcClient(e.sequencerRpc);
  const ver = new HttpRpcClient(e.verifierRollupRpc);
  const common = createCustomCommon({ chainId: Number(DEVNET_CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague });
  const senders = devAccounts().slice(0, 8);
  const nonces = await Promise.all(senders.map(async (a) => BigInt(await seq.call<string>("eth_getTransactionCount", [a.address, "pending"]))));
  let sent = 0;
  const latencies: number[] = [];
  let lastSafe = -1;
  const end = Date.now() + seconds * 1000;
  // Traffic and the live verifier's safe head, sampled together.
  const traffic = (async () => {
    let i = 0;
    while (Date.now() < end) {
      const k = i % senders.length;
      const tx = createFeeMarket1559Tx(
        { nonce: nonces[k]!++, to: hexToBytes(`0x${(0xbeef0000 + (i % 500)).toString(16).padStart(40, "0")}`), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n },
        { common },
      ).sign(hexToBytes(senders[k]!.privateKey as `0x${string}`));
      await seq.call("eth_sendRawTransaction", [bytesToHex(tx.serialize())]);
      sent++;
      i++;
      await sleep(1000 / rate);
    }
  })();
  while (Date.now() < end) {
    const s = await ver.call<Json>("optimism_syncStatus", []);
    const safe = s.safe_l2 as { number: number };
    const safeL1 = s.safe_l1 as { timestamp: number };
    if (safe.number > lastSafe && lastSafe >= 0 && safeL1.timestamp > 0) latencies.push(Date.now() / 1000 - safeL1.timestamp);
    lastSafe = safe.number;
    await sleep(100);
  }
  await traffic;
  const head = Number((await seq.call<Json>("eth_getBlockByNumber", ["latest", false])).number as string);
  // The catch-up verifier: from genesis, over the whole chain, against the same L1.
  const ports = await rollupPorts(0);
  const metricsPort = ports.l1Http;
  const cli = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
  const rollupDir = join(dir, "rollup");
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [cli, "node", "--network", join(rollupDir, "genesis.json"), "--rollup.config", join(rollupDir, "rollup.json"), "--datadir", join(dir, "catchup"), "--l1.rpc", e.l1Rpc, ...(e.l1Beacon === undefined ? [] : ["--l1.beacon", e.l1Beacon]), "--l1.block-time", "1", "--p2p.disable", "--p2p.el.disable",
      "--http.port", String(ports.verifierHttp), "--authrpc.port", String(ports.verifierAuth), "--rollup.port", String(ports.verifierRollup), "--metrics", "--metrics.port", String(metricsPort), "--log.level", "warn"],
    { stdio: "ignore" },
  );
  const catchup = new HttpRpcClient(`http://127.0.0.1:${ports.verifierRollup}`);
  let reached = 0;
  let firstSafeAt: number | undefined;
  for (;;) {
    try {
      const s = await catchup.call<Json>("optimism_syncStatus", []);
      reached = (s.safe_l2 as { number: number }).number;
      if (reached > 0 && firstSafeAt === undefined) firstSafeAt = Date.now();
      if (reached >= head) break;
    } catch {
      // starting
    }
    await sleep(100);
  }
  const done = Date.now();
  const secs = (done - started) / 1000;
  const derivingSecs = (done - (firstSafeAt ?? started)) / 1000;
  const l1Requests = await metricSum(metricsPort, "basalt_derivation_l1_requests_total");
  const l1Blocks = await metricSum(metricsPort, "basalt_derivation_l1_blocks_total");
  const receiptsSkipped = await metricSum(metricsPort, "basalt_derivation_l1_receipts_skipped_total");
  const beaconRequests = await metricSum(metricsPort, "basalt_derivation_beacon_requests_total");
  const out = {
    run: { l1: l1Kind === "anvil" ? "anvil, batches in calldata" : "basalt devnet-l1, batches in blobs", seconds, txPerSecond: rate, transactionsSent: sent, l2Blocks: head },
    safeLatencySeconds: { samples: latencies.length, p50: pct(latencies, 50), p90: pct(latencies, 90), max: Math.max(...latencies) },
    catchUp: {
      blocks: reached,
      secondsFromStart: secs,
      blocksPerSecondFromStart: reached / secs,
      blocksPerSecondDeriving: (reached - 1) / derivingSecs,
      transactionsPerSecondDeriving: sent / derivingSecs,
    },
    l1Requests: { total: l1Requests, l1BlocksRead: l1Blocks, receiptsSkipped, perL1Block: l1Requests / l1Blocks, perL2Block: l1Requests / reached, beaconPerL2Block: beaconRequests / reached },
  };
  process.stdout.write(JSON.stringify(out, null, 2) + "\n");
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  seq.close();
  ver.close();
  catchup.close();
  await rollup.stop();
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
