/**
 * Bench: basalt vs anvil on the same chain (see bench/scenario/cli.ts). Usage:
 * `node dist/bench/scenario.js [--quick] [--blocks N] [--txs-per-block N] [--steps a,b] ...`
 * (`--help` lists every option). Needs a build (`npm run build`) and `@foundry-rs/anvil`.
 */
import { main } from "./scenario/cli.js";

await main(process.argv.slice(2));
// Keep-alive sockets of the JSON-RPC client may hold the event loop a while: exit now.
process.exit(process.exitCode ?? 0);
