/**
 * `basalt devnet rollup`: starts a whole local rollup (src/devnet/rollup.ts), prints its endpoints
 * (also written to `./devnet.json`) and runs until SIGINT/SIGTERM, then stops every process.
 */
import type { Logger } from "pino";
import { DEVNET_ROLLUP_L1_BLOCK_TIME_S } from "../constants.js";
import type { BasaltOptions, OptionName, OptionSource } from "../../config/options.js";
import { rollupPorts, startRollupDevnet } from "../../devnet/rollup.js";

/** Where the local rollup keeps its state unless `--datadir` says otherwise. */
const DEFAULT_ROLLUP_DIR = "./data/rollup";

/** Runs `basalt devnet rollup`. */
export async function devnetCommand(opts: BasaltOptions, sources: Record<OptionName, OptionSource>, log: Logger): Promise<void> {
  const extra = opts as unknown as Record<string, unknown>;
  const batcherData = extra["batcher.data"] === "calldata" ? "calldata" : "blobs";
  const running = await startRollupDevnet({
    dir: sources.datadir === "default" ? DEFAULT_ROLLUP_DIR : opts.datadir,
    outDir: process.cwd(),
    l1Rpc: opts["l1.rpc"],
    l1Beacon: opts["l1.beacon"],
    blockTime: opts["dev.block-time"],
    l1BlockTime: sources["l1.block-time"] === "default" && opts["l1.rpc"] === undefined ? DEVNET_ROLLUP_L1_BLOCK_TIME_S : opts["l1.block-time"],
    batcherData,
    ports: await rollupPorts(opts["devnet.port-base"]),
    logLevel: opts["log.level"],
    logger: log,
  });
  const e = running.endpoints;
  const lines = [
    "local rollup running (endpoints also in ./devnet.json):",
    `  L1 RPC               ${e.l1Rpc}`,
    `  L1 beacon            ${e.l1Beacon ?? "(none: batches in calldata)"}`,
    `  sequencer RPC        ${e.sequencerRpc}`,
    `  sequencer rollup RPC ${e.sequencerRollupRpc}`,
    `  flashblocks          ${e.flashblocksWs}`,
    `  verifier RPC         ${e.verifierRpc}`,
    `  verifier rollup RPC  ${e.verifierRollupRpc}`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, "stopping the local rollup");
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}
