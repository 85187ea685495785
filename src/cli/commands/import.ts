/** `basalt import`: executes and stores concatenated RLP blocks. */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { decodeBlockFromRlp } from "../../chain/blockCodec.js";
import { Chain } from "../../chain/chain.js";
import { splitRlpItems } from "../../chain/rlpFile.js";
import type { BasaltOptions } from "../../config/options.js";
import { BasaltError } from "../../util/errors.js";

/** Seconds between import progress lines. */
const PROGRESS_INTERVAL_MS = 8_000;

/** Runs `basalt import`; stops at the first bad block, keeping every block before it. */
export async function importCommand(opts: BasaltOptions, files: string[], log: Logger): Promise<void> {
  if (files.length === 0) throw new BasaltError("CLI_MISSING_ARGUMENT", "import needs at least one RLP file: basalt import --datadir D <chain.rlp>");
  const chain = Chain.open(opts.datadir, { archive: opts.archive, historyBlocks: opts["history.blocks"], logger: log });
  let imported = 0;
  let skipped = 0;
  let gas = 0n;
  const t0 = Date.now();
  let lastLog = t0;
  try {
    for (const file of files) {
      const bytes = readFileSync(file);
      let number: bigint | undefined;
      let lastOk: bigint | undefined;
      try {
        for (const { bytes: item } of splitRlpItems(bytes)) {
          const block = decodeBlockFromRlp(chain, item);
          number = block.header.number;
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
          if (Date.now() - lastLog > PROGRESS_INTERVAL_MS) {
            lastLog = Date.now();
            const s = (lastLog - t0) / 1000;
            log.info({ head: number.toString(), blocksPerSecond: (imported / s).toFixed(1), mgasPerSecond: (Number(gas) / 1e6 / s).toFixed(2) }, "importing");
          }
        }
      } catch (e) {
        const at = lastOk === undefined ? " before its first block" : ` after block ${lastOk}`;
        throw new BasaltError("IMPORT_FAILED", `import of ${file} stopped${at}: ${(e as Error).message}`, { head: chain.head.header.number.toString() });
      }
    }
    const s = Math.max((Date.now() - t0) / 1000, 0.001);
    log.info(
      { imported, skipped, head: chain.head.header.number.toString(), seconds: s.toFixed(2), mgasPerSecond: (Number(gas) / 1e6 / s).toFixed(2) },
      "import done",
    );
  } finally {
    await chain.close();
  }
}
