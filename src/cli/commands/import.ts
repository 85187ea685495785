/** `basalt import`: executes and stores concatenated RLP blocks. */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { decodeBlockFromRlp } from "../../chain/blockCodec.js";
import { Chain } from "../../blockchain/chain.js";
import { splitRlpItems } from "../../chain/rlpFile.js";
import type { BasaltOptions } from "../../config/options.js";
import { CliError } from "../args.js";
import { ChainFileError } from "../errors.js";
import { IMPORT_PROGRESS_INTERVAL_MS } from "../../config/constants.js";
import { EXECUTION_WORKER_HEAP_MB } from "../../execution/constants.js";
import { IMPORT_SENDER_LOOKAHEAD_BLOCKS } from "../constants.js";
import { ExecutionPool } from "../../execution/pool/executionPool.js";
import { SenderRecovery } from "../../execution/senderRecovery.js";
import type { Block } from "@ethereumjs/block";
import { countRlpItems, ProgressMeter } from "../../util/progress.js";
import { setDefaultEvmEngine } from "../../execution/evm/engine.js";

/**
 * Decodes the blocks of one RLP file in order, keeping `lookahead` decoded ahead with their
 * senders being recovered. A decoding error is raised only when the import reaches that item,
 * so every complete block before it is still imported.
 */
function* blocksWithLookahead(chain: Chain, bytes: Uint8Array, recovery: () => SenderRecovery | undefined, lookahead: number): Generator<Block> {
  const queue: (Block | { error: unknown })[] = [];
  const items = splitRlpItems(bytes)[Symbol.iterator]();
  let done = false;
  const fill = (): void => {
    while (!done && queue.length <= lookahead) {
      let block: Block;
      try {
        const next = items.next();
        if (next.done === true) {
          done = true;
          return;
        }
        block = decodeBlockFromRlp(chain, next.value.bytes);
      } catch (error) {
        done = true;
        queue.push({ error });
        return;
      }
      void recovery()?.prefetch(block);
      queue.push(block);
    }
  };
  for (;;) {
    fill();
    const next = queue.shift();
    if (next === undefined) return;
    if ("error" in next) throw next.error;
    yield next;
  }
}

/** Runs `basalt import`; stops at the first bad block, keeping every block before it. */
export async function importCommand(opts: BasaltOptions, files: string[], log: Logger): Promise<void> {
  if (files.length === 0) throw new CliError({ code: "CLI_MISSING_ARGUMENT", command: "import" }, "import needs at least one RLP file: basalt import --datadir D <chain.rlp>");
  setDefaultEvmEngine(opts.evm);
  const chain = Chain.open(opts.datadir, { archive: opts.archive, historyBlocks: opts["history.blocks"], logger: log });
  // Senders are recovered on the execution pool once its workers are up (small imports finish before that and do not wait for it).
  const pool = new ExecutionPool({
    threads: opts["rpc.threads"],
    maxQueue: Number.MAX_SAFE_INTEGER,
    timeoutMs: 0,
    workerHeapMb: EXECUTION_WORKER_HEAP_MB,
    worker: { datadir: opts.datadir, archive: opts.archive, historyBlocks: opts["history.blocks"], logLevel: opts["log.level"], logFormat: opts["log.format"], evm: opts.evm },
    logger: log,
  });
  let recovery: SenderRecovery | undefined;
  pool.start().then(
    () => {
      recovery = new SenderRecovery(pool);
      chain.useSenderRecovery(recovery);
    },
    (e: unknown) => log.debug({ err: e }, "execution pool unavailable; senders recovered inline"),
  );
  let imported = 0;
  let skipped = 0;
  let gas = 0n;
  const t0 = Date.now();
  let lastLog = t0;
  try {
    for (const file of files) {
      const bytes = readFileSync(file);
      // Progress lines give the pace over the last interval and the time left for this file's blocks.
      const inFile = countRlpItems(bytes);
      let doneInFile = 0;
      const meter = new ProgressMeter(imported);
      let number: bigint | undefined;
      let lastOk: bigint | undefined;
      try {
        for (const block of blocksWithLookahead(chain, bytes, () => recovery, IMPORT_SENDER_LOOKAHEAD_BLOCKS)) {
          number = block.header.number;
          doneInFile++;
          const known = chain.getCanonicalHash(number);
          if (known !== undefined && Buffer.from(known).equals(block.hash())) {
            skipped++;
            lastOk = number;
            continue;
          }
          const ex = await chain.importBlock(block);
          imported++;
          lastOk = number;
          gas += ex.gasUsed;
          if (Date.now() - lastLog > IMPORT_PROGRESS_INTERVAL_MS) {
            lastLog = Date.now();
            const s = (lastLog - t0) / 1000;
            const pace = meter.sample(imported, inFile - doneInFile);
            const remaining = inFile - doneInFile;
            const mgasPerSecond = (Number(gas) / 1e6 / s).toFixed(2);
            log.info({ head: number.toString(), remaining, blocksPerSecond: pace.blocksPerSecond, eta: pace.eta, mgasPerSecond }, "importing");
          }
        }
      } catch (e) {
        const at = lastOk === undefined ? " before its first block" : ` after block ${lastOk}`;
        throw new ChainFileError(
          { code: "IMPORT_FAILED", file, head: chain.head.header.number.toString(), lastImported: lastOk?.toString() },
          `import of ${file} stopped${at}: ${(e as Error).message}`,
          { cause: e },
        );
      }
    }
    const s = Math.max((Date.now() - t0) / 1000, 0.001);
    log.info(
      { imported, skipped, head: chain.head.header.number.toString(), seconds: s.toFixed(2), mgasPerSecond: (Number(gas) / 1e6 / s).toFixed(2) },
      "import done",
    );
  } finally {
    chain.useSenderRecovery(undefined);
    await pool.close();
    await chain.close();
  }
}
