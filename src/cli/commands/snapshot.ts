/**
 * `basalt snapshot export <file>` / `basalt snapshot import <file>`: copies a datadir's chain
 * database, and its historical-proofs store (`--proofs.path`, default `<datadir>/proofs`) when it
 * has one, to one verified file and back (src/ops/snapshot.ts; the format is
 * src/storage/snapshot.ts).
 */
import type { Logger } from "pino";
import { genesisHashOf, resolveGenesis } from "../../blockchain/genesisSource.js";
import { isOpNetworkName, opNetwork } from "../../chain/op/networks.js";
import { proofsStoreDir, type BasaltOptions } from "../../config/options.js";
import { exportChainSnapshot, importChainSnapshot } from "../../ops/snapshot.js";
import type { SnapshotHeader } from "../../storage/snapshot.js";
import { CliError } from "../args.js";

/** The genesis hash `--network` names: a Base network's published hash, or the hash of the devnet / a genesis file. */
async function expectedGenesis(opts: BasaltOptions): Promise<string> {
  if (isOpNetworkName(opts.network)) return opNetwork(opts.network).genesisHash.toLowerCase();
  return genesisHashOf(await resolveGenesis({ network: opts.network, genesis: undefined, "genesis-url": undefined }));
}

/**
 * Runs `basalt snapshot export|import --datadir D [--proofs.path P] <file>`. `explicitNetwork`: `--network` was
 * given, so an import must hold that network's genesis. `force`: import over a non-empty datadir.
 */
export async function snapshotCommand(opts: BasaltOptions, positionals: string[], log: Logger, explicitNetwork: boolean, force: boolean): Promise<void> {
  const [action, file] = positionals;
  if ((action !== "export" && action !== "import") || file === undefined || positionals.length !== 2) {
    throw new CliError({ code: "CLI_MISSING_ARGUMENT", command: "snapshot", value: action }, "snapshot needs an action and one file: basalt snapshot export|import --datadir D <file>");
  }
  const t0 = Date.now();
  const proofsDir = proofsStoreDir(opts.datadir, opts["proofs.path"]);
  if (action === "export") {
    const r = await exportChainSnapshot(opts.datadir, file, proofsDir);
    const h = r.header;
    if (r.proofsLeftOut !== undefined) log.warn({ proofsDir }, `snapshot without the proofs store: ${r.proofsLeftOut}`);
    log.info(
      {
        file,
        head: h.head.number,
        hash: h.head.hash,
        stateRoot: h.head.stateRoot,
        dataBytes: h.dataBytes,
        payloadBytes: h.payloadBytes,
        ...proofsFields(h, r.proofsChecked),
        ms: Date.now() - t0,
      },
      h.proofs === undefined ? "snapshot exported" : `snapshot exported with the proofs store, window ${windowText(h)}`,
    );
    return;
  }
  const expected = explicitNetwork ? await expectedGenesis(opts) : undefined;
  const r = await importChainSnapshot(file, opts.datadir, { force, expectedGenesis: expected, expectedLabel: opts.network, proofsDir });
  const h = r.header;
  if (r.removedProofs !== undefined) log.warn({ proofsDir: r.removedProofs }, "removed the proofs store of the replaced chain: the snapshot carries none");
  log.info(
    { datadir: opts.datadir, head: h.head.number, hash: h.head.hash, stateRoot: h.head.stateRoot, chainId: h.chainId, ...proofsFields(h, r.proofsChecked, r.proofsDir), ms: Date.now() - t0 },
    h.proofs === undefined ? "snapshot imported and verified" : `snapshot imported and verified with the proofs store, window ${windowText(h)}`,
  );
}

/** The proofs window as `earliest..latest`. */
function windowText(h: SnapshotHeader): string {
  return `${h.proofs!.window.earliest.number}..${h.proofs!.window.latest.number}`;
}

/** Log fields of the proofs section: its window, sizes and the accounts checked (`proofs: null` without one). */
function proofsFields(h: SnapshotHeader, checked: number | undefined, dir?: string): Record<string, unknown> {
  const p = h.proofs;
  if (p === undefined) return { proofs: null };
  return {
    proofs: {
      earliest: p.window.earliest.number,
      latest: p.window.latest.number,
      ...(dir === undefined ? {} : { dir }),
      dataBytes: p.dataBytes,
      payloadBytes: p.payloadBytes,
      accountsChecked: checked,
    },
  };
}
