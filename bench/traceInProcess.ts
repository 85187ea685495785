/**
 * Bench: the trace of a 200-transaction block answered in-process (`answerTraceRequest` on a
 * devnet chain, no RPC, no pool, no anvil), the same block as `traceBlock.ts` (200 calls of a
 * contract that stores its argument and logs, from four dev accounts). Reports per tracer the
 * median and minimum over `repeats` runs, in CPU time of this process (`process.cpuUsage`: steadier
 * than wall time on a shared machine) or wall time with `--wall`. noopTracer is the replay alone.
 *
 * Usage: node dist/bench/traceInProcess.js [repeats=20] [tracers=struct,noop,callTracer] [--wall] [--out FILE]
 * (`--out` writes the last struct-logger answer, to compare two builds' output).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { Chain } from "../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { createAddress } from "../src/chain/json/receipt.js";
import { CallExecutor } from "../src/execution/callExecutor.js";
import { answerTraceRequest } from "../src/execution/trace/request.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";
import { calleeRuntime, deploy, word } from "./workload/traceContracts.js";

/** Transactions in the traced block (as traceBlock.ts). */
const BLOCK_TXS = 200;
/** Senders sharing them. */
const SENDERS = 4;
/** Trace configs by label. */
const CONFIGS: Record<string, unknown> = { struct: {}, noop: { tracer: "noopTracer" }, callTracer: { tracer: "callTracer" } };

const args = process.argv.slice(2);
const wall = args.includes("--wall");
const outIdx = args.indexOf("--out");
const outFile = outIdx >= 0 ? args[outIdx + 1] : undefined;
const positional = args.filter((a, i) => !a.startsWith("--") && (outIdx < 0 || i !== outIdx + 1));
const repeats = Number(positional[0] ?? 20);
const labels = (positional[1] ?? "struct,noop,callTracer").split(",");

const silent = pino({ level: "silent" });
const accounts = devAccounts();
const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-trace-bench-"));
try {
  await Chain.init(dir, devnetGenesis(), { archive: true });
  const chain = Chain.open(dir, { logger: silent, archive: true });
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, silent);
  const executor = new CallExecutor(chain);
  const nonces = new Map<number, bigint>();
  const send = async (from: number, to: string | undefined, data: string): Promise<void> => {
    const nonce = nonces.get(from) ?? 0n;
    nonces.set(from, nonce + 1n);
    const tx = createFeeMarket1559Tx(
      { chainId: chain.chainId, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 200_000n, to: to as `0x${string}` | undefined, data: hexToBytes(data as `0x${string}`) },
      { common: chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n) },
    ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
    await pool.addRaw(tx.serialize());
  };
  const callee = "0x" + Buffer.from(createAddress(hexToBytes(accounts[1]!.address as `0x${string}`), 0n)).toString("hex");
  await send(1, undefined, deploy(calleeRuntime()));
  await seq.sealOne();
  for (let i = 0; i < BLOCK_TXS; i++) await send(2 + (i % SENDERS), callee, word(i + 2));
  await seq.sealOne();
  const hash = "0x" + Buffer.from(chain.head.hash()).toString("hex");
  const rows: string[] = [];
  for (const label of labels) {
    const config = CONFIGS[label];
    if (config === undefined) throw new Error(`unknown tracer label ${label} (expected one of ${Object.keys(CONFIGS).join(", ")})`);
    const samples: number[] = [];
    let answer = "";
    for (let i = 0; i <= repeats; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      answer = await answerTraceRequest(chain, { kind: "block", hash, config }, { executor, pending: () => undefined });
      const c = process.cpuUsage(c0);
      if (i > 0) samples.push(wall ? performance.now() - t0 : (c.user + c.system) / 1000); // the first is warm-up
    }
    samples.sort((a, b) => a - b);
    rows.push(`| ${label} | ${samples[samples.length >> 1]!.toFixed(1)} | ${samples[0]!.toFixed(1)} | ${answer.length} |`);
    if (label === "struct" && outFile !== undefined) writeFileSync(outFile, answer);
  }
  console.log(`trace of a ${BLOCK_TXS}-transaction block in-process, ${wall ? "wall" : "CPU"} ms over ${repeats} runs\n| tracer | median | min | answer bytes |\n|---|---:|---:|---:|\n${rows.join("\n")}`);
  await chain.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
