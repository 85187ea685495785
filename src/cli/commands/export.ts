/** `basalt export`: writes canonical blocks as concatenated RLP. */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Logger } from "pino";
import { Chain } from "../../blockchain/chain.js";
import type { BasaltOptions } from "../../config/options.js";
import { CliError } from "../args.js";
import { ChainFileError } from "../errors.js";

/** Runs `basalt export` (default range: block 1 to the head, as chain.rlp files hold no genesis). */
export async function exportCommand(opts: BasaltOptions, files: string[], log: Logger): Promise<void> {
  if (files.length !== 1) throw new CliError({ code: "CLI_MISSING_ARGUMENT", command: "export", value: files[1] }, "export needs one output file: basalt export --datadir D [--from N --to M] <out.rlp>");
  const chain = Chain.open(opts.datadir, { readOnly: false });
  try {
    const head = chain.head.header.number;
    const from = BigInt(opts.from ?? 1);
    const to = opts.to === undefined ? head : BigInt(opts.to);
    if (from > to) throw new ChainFileError({ code: "EXPORT_RANGE", from: from.toString(), to: to.toString(), head: head.toString() }, `--from ${from} is after --to ${to}`);
    if (to > head) throw new ChainFileError({ code: "EXPORT_RANGE", from: from.toString(), to: to.toString(), head: head.toString() }, `--to ${to} is beyond the head block ${head}`);
    const fd = openSync(files[0], "w");
    try {
      for (let n = from; n <= to; n++) {
        const block = chain.getBlockByNumber(n);
        if (block === undefined) throw new ChainFileError({ code: "EXPORT_MISSING", number: n.toString() }, `canonical block ${n} is missing`);
        writeSync(fd, block.serialize());
      }
    } finally {
      closeSync(fd);
    }
    log.info({ from: from.toString(), to: to.toString(), file: files[0] }, "export done");
  } finally {
    await chain.close();
  }
}
