/** `basalt init`: writes a genesis (built-in devnet, built-in Base network, or file) into a datadir. */
import type { Logger } from "pino";
import { initGenesis, type ResolveGenesisDeps } from "../../blockchain/genesisSource.js";
import type { BasaltOptions } from "../../config/options.js";
import { to0x } from "../../util/bytes.js";

/**
 * Runs `basalt init`: writes the genesis chosen by --network / --genesis / --genesis-url into the
 * datadir (see `initGenesis` and `resolveGenesis` in src/blockchain/genesisSource.ts) and logs its
 * hash and whether the datadir was newly written.
 */
export async function initCommand(opts: BasaltOptions, log: Logger, deps: ResolveGenesisDeps = {}): Promise<void> {
  const r = await initGenesis(opts.datadir, opts, { archive: opts.archive }, deps);
  log.info(
    { datadir: opts.datadir, network: opts.network, genesis: to0x(r.hash), created: r.created },
    r.created ? "initialized datadir" : "datadir already holds this genesis",
  );
}
