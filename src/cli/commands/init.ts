/** `basalt init`: writes a genesis (file or built-in devnet) into a datadir. */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { Chain } from "../../chain/chain.js";
import { devnetGenesis } from "../../chain/devnet.js";
import type { BasaltOptions } from "../../config/options.js";
import { isDevnet } from "../../config/options.js";
import { BasaltError } from "../../util/errors.js";
import { to0x } from "../../util/bytes.js";

/** Reads the genesis named by --genesis or --network. */
export function loadGenesis(opts: BasaltOptions): unknown {
  const file = opts.genesis ?? (isDevnet(opts.network) ? undefined : opts.network);
  if (file === undefined) return devnetGenesis();
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new BasaltError("GENESIS_UNREADABLE", `cannot read genesis file ${file}: ${(e as Error).message}`);
  }
}

/** Runs `basalt init`. */
export async function initCommand(opts: BasaltOptions, log: Logger): Promise<void> {
  const r = await Chain.init(opts.datadir, loadGenesis(opts), { archive: opts.archive });
  log.info({ datadir: opts.datadir, genesis: to0x(r.hash), created: r.created }, r.created ? "initialized datadir" : "datadir already holds this genesis");
}
