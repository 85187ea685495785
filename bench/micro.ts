/**
 * Bench: tinybench micro-benchmarks of the hot paths (see bench/micro/cli.ts for the cases and
 * options). Exits 1 when a case fails its correctness check.
 *
 * Usage: node dist/bench/micro.js [--time ms] [--filter substring] [--txs n] [--json file] [--out dir]
 */
import { main } from "./micro/cli.js";

try {
  await main(process.argv.slice(2));
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
}
