/**
 * Bench: debug_traceBlockByNumber of a 200-transaction block, with callTracer and with the
 * struct logger, on basalt's devnet and on anvil in one run (the same signed transactions: 200
 * calls of a contract that stores its argument and logs, from four dev accounts), and the ratio.
 * Each trace is timed sequentially (one in flight) after a warm-up; the median is reported.
 *
 * Usage: node dist/bench/traceBlock.js [repeats=5]
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { commonFromGenesis } from "../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { createAddress } from "../src/chain/json/receipt.js";
import { startAnvil } from "./scenario/anvil.js";
import { recordSummary } from "./summary.js";
import { startBasalt } from "./scenario/basalt.js";
import { rpc } from "./scenario/rpc.js";
import { calleeRuntime, deploy, word } from "./workload/traceContracts.js";

/** Transactions in the traced block. */
const BLOCK_TXS = 200;
/** Senders sharing them (nonce order per sender). */
const SENDERS = 4;
/** The target: the struct logger's block trace within 2× of anvil's time. */
const STRUCT_LOGGER_VS_ANVIL_MAX = 2;

const common = commonFromGenesis(devnetGenesis(), "devnet");
const accounts = devAccounts();

function signed(from: number, nonce: bigint, to: string | undefined, data: string): string {
  const tx = createFeeMarket1559Tx(
    { chainId: common.chainId(), nonce, maxFeePerGas: 20n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 200_000n, to: to as `0x${string}` | undefined, data: hexToBytes(data as `0x${string}`) },
    { common },
  ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
  return "0x" + Buffer.from(tx.serialize()).toString("hex");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median time of tracing `block` (whose answer must have `entries` transactions) over `repeats` runs after a warm-up. */
async function timeTrace(url: string, block: string, config: unknown, repeats: number, entries: number): Promise<{ ms: number; bytes: number }> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "debug_traceBlockByNumber", params: [block, config] });
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i <= repeats; i++) {
    const t0 = performance.now();
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    const text = await r.text();
    const dt = performance.now() - t0;
    const j = JSON.parse(text) as { error?: unknown; result?: unknown[] };
    if (j.error !== undefined || j.result?.length !== entries) throw new Error(`${url}: bad trace answer: ${text.slice(0, 300)}`);
    bytes = text.length;
    if (i > 0) samples.push(dt); // the first is warm-up
  }
  return { ms: median(samples), bytes };
}

async function main(): Promise<void> {
  const repeats = Number(process.argv[2] ?? 5);
  const basalt = await startBasalt();
  const anvil = await startAnvil({ extraArgs: ["--steps-tracing"] });
  try {
    const deployer = accounts[1]!.address;
    const callee = "0x" + Buffer.from(createAddress(hexToBytes(deployer as `0x${string}`), 0n)).toString("hex");
    const setup = signed(1, 0n, undefined, deploy(calleeRuntime()));
    const txs: string[] = [];
    for (let i = 0; i < BLOCK_TXS; i++) txs.push(signed(2 + (i % SENDERS), BigInt(Math.floor(i / SENDERS)), callee, word(i + 2)));
    const blocks: Record<string, string> = {};
    for (const [name, url] of [["basalt", basalt.url], ["anvil", anvil.url]] as const) {
      await rpc(url, "eth_sendRawTransaction", [setup]);
      await rpc(url, "evm_mine", []);
      for (const raw of txs) await rpc(url, "eth_sendRawTransaction", [raw]);
      await rpc(url, "evm_mine", []);
      const head = (await rpc(url, "eth_getBlockByNumber", ["latest", false])) as { number: string; transactions: unknown[] };
      const userTxs = head.transactions.length - (name === "basalt" ? 1 : 0); // basalt's block starts with the L1-attributes deposit
      if (userTxs !== BLOCK_TXS) throw new Error(`${name}: the block holds ${userTxs} transactions, expected ${BLOCK_TXS}`);
      blocks[name] = head.number;
    }
    const rows: string[] = ["| tracer | basalt ms | anvil ms | basalt / anvil | answer bytes (basalt) |", "|---|---:|---:|---:|---:|"];
    for (const [label, config] of [["callTracer", { tracer: "callTracer" }], ["struct logger", {}]] as const) {
      // basalt's block also holds the L1-attributes deposit: one more entry.
      const b = await timeTrace(basalt.url, blocks.basalt!, config, repeats, BLOCK_TXS + 1);
      const a = await timeTrace(anvil.url, blocks.anvil!, config, repeats, BLOCK_TXS);
      rows.push(`| ${label} | ${b.ms.toFixed(1)} | ${a.ms.toFixed(1)} | ${(b.ms / a.ms).toFixed(2)} | ${b.bytes} |`);
      const measured = `basalt ${b.ms.toFixed(1)} ms / anvil ${a.ms.toFixed(1)} ms = ${(b.ms / a.ms).toFixed(2)} (median of ${repeats}, one in flight)`;
      if (label === "struct logger") {
        recordSummary([{ bench: "traceBlock", target: `debug_traceBlockByNumber struct logger, ${BLOCK_TXS} txs: basalt within ${STRUCT_LOGGER_VS_ANVIL_MAX}× of anvil`, measured, verdict: b.ms / a.ms <= STRUCT_LOGGER_VS_ANVIL_MAX ? "PASS" : "MISS" }]);
      } else {
        recordSummary([{ bench: "traceBlock", target: `debug_traceBlockByNumber callTracer, ${BLOCK_TXS} txs (informational)`, measured, verdict: "N/A" }]);
      }
    }
    console.log(`debug_traceBlockByNumber, ${BLOCK_TXS} transactions, median of ${repeats}\n${rows.join("\n")}`);
  } finally {
    await anvil.stop();
    await basalt.stop();
  }
}

await main();
