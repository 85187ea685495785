/**
 * `basalt snapshot export <file>` / `basalt snapshot import <file>`: copies a datadir's chain
 * database to one verified file and back (src/ops/snapshot.ts; the format is src/storage/snapshot.ts).
 */
import type { Logger } from "pino";
import { genesisHashOf, resolveGenesis } from "../../blockchain/genesisSource.js";
import { isOpNetworkName, opNetwork } from "../../chain/op/networks.js";
import type { BasaltOptions } from "../../config/options.js";
import { exportChainSnapshot, importChainSnapshot } from "../../ops/snapshot.js";
import { BasaltError } from "../../util/errors.js";

/** The genesis hash `--network` names: a Base network's published hash, or the hash of the devnet / a genesis file. */
async function expectedGenesis(opts: BasaltOptions): Promise<string> {
  if (isOpNetworkName(opts.network)) return opNetwork(opts.network).genesisHash.toLowerCase();
  return genesisHashOf(await resolveGenesis({ network: opts.network, genesis: undefined, "genesis-url": undefined }));
}

/**
 * Runs `basalt snapshot export|import --datadir D <file>`. `explicitNetwork`: `--network` was
 * given, so an import must hold that network's genesis. `force`: import over a non-empty datadir.
 */
export async function snapshotCommand(opts: BasaltOptions, positionals: string[], log: Logger, explicitNetwork: boolean, force: boolean): Promise<void> {
  const [action, file] = positionals;
  if ((action !== "export" && action !== "import") || file === undefined || positionals.length !== 2) {
    throw new BasaltError("CLI_MISSING_ARGUMENT", "snapshot needs an action and one file: basalt snapshot export|import --datadir D <file>");
  }
  const t0 = Date.now();
  if (action === "export") {
    const h = await exportChainSnapshot(opts.datadir, file);
    log.info(
      { file, head: h.head.number, hash: h.head.hash, stateRoot: h.head.stateRoot, dataBytes: h.dataBytes, payloadBytes: h.payloadBytes, ms: Date.now() - t0 },
      "snapshot exported",
    );
    return;
  }
  const expected = explicitNetwork ? await expectedGenesis(opts) : undefined;
  const h = await importChainSnapshot(file, opts.datadir, { force, expectedGenesis: expected, expectedLabel: opts.network });
  log.info({ datadir: opts.datadir, head: h.head.number, hash: h.head.hash, stateRoot: h.head.stateRoot, chainId: h.chainId, ms: Date.now() - t0 }, "snapshot imported and verified");
}
