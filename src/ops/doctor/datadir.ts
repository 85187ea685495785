/**
 * `basalt doctor` checks of the data directory: "datadir" (exists or can be created, writable),
 * "disk" (free space of its filesystem, thresholds per network) and "genesis" (initialized or
 * not, and whether the stored genesis is the one `--network` selects).
 */
import { accessSync, constants as fsConstants, existsSync, readFileSync, rmSync, statSync, statfsSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { devnetGenesis } from "../../chain/devnet.js";
import { devnetL1Genesis } from "../../chain/devnetL1.js";
import { validateGenesis } from "../../chain/genesis.js";
import { genesisHashOf, isDevnetGenesisHash, storedGenesisHash } from "../../blockchain/genesisSource.js";
import { fromHex } from "../../util/bytes.js";
import { isOpNetworkName, opNetwork } from "../../chain/op/networks.js";
import { isDevnet, isDevnetL1 } from "../../config/options.js";
import { result, type CheckResult, type DoctorContext } from "./types.js";

/** One gibibyte. */
const GIB = 1024 ** 3;
/** One tebibyte. */
const TIB = 1024 ** 4;

/** Free-space limits of the datadir's filesystem: below `warn` a WARN, below `fail` a FAIL. */
interface DiskThresholds {
  warn: number;
  fail: number;
}

/**
 * Base mainnet. Base sizes a node's disk as 2 × the chain size + a snapshot + 20 % (docs.base.org
 * "Node Performance"), which is several TB for its archive nodes; basalt keeps recent state only
 * (`--history.blocks`), but the state and blocks alone are hundreds of GB: under 500 GiB the node
 * cannot hold them, under 2 TiB it fills up within months of growth.
 */
const BASE_MAINNET_DISK: DiskThresholds = { warn: 2 * TIB, fail: 500 * GIB };
/** Base Sepolia: the same rule on a chain a few times smaller (hundreds of GB), so a quarter of mainnet's limits. */
const BASE_SEPOLIA_DISK: DiskThresholds = { warn: 500 * GIB, fail: 100 * GIB };
/** The devnet and custom genesis files: a local chain grows by MBs per thousand blocks; 1 GiB still holds months of tests. */
const LOCAL_DISK: DiskThresholds = { warn: 10 * GIB, fail: 1 * GIB };
/**
 * Extra space wanted with `--historical-proofs`: the proofs database takes "hundreds of GB
 * additional storage" on mainnet (specification "Limits"); a quarter of that on Sepolia.
 */
const PROOFS_EXTRA_BYTES: { readonly [network: string]: number } = { "base-mainnet": 500 * GIB, "base-sepolia": 125 * GIB };

/** Name of the file written and removed to prove the datadir is writable. */
const PROBE_FILE = ".basalt-doctor-probe";

/** The datadir itself if it exists, else its nearest existing ancestor (where it would be created). */
function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p)) {
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  return p;
}

/** Bytes shown as GiB or TiB. */
function formatBytes(n: number): string {
  return n >= TIB ? `${(n / TIB).toFixed(2)} TiB` : `${(n / GIB).toFixed(1)} GiB`;
}

/** The free-space limits for the options' network (including the proofs database when enabled). */
function diskThresholds(network: string, historicalProofs: boolean): DiskThresholds {
  const base = network === "base-mainnet" ? BASE_MAINNET_DISK : network === "base-sepolia" ? BASE_SEPOLIA_DISK : LOCAL_DISK;
  const extra = historicalProofs ? (PROOFS_EXTRA_BYTES[network] ?? 0) : 0;
  return { warn: base.warn + extra, fail: base.fail + extra };
}

/** Check "datadir": the directory exists and is writable (a probe file is written and removed), or its parent lets it be created. */
export function checkDatadir(ctx: DoctorContext): CheckResult {
  const dir = resolve(ctx.options.datadir);
  const title = "Data directory";
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) {
      return result("datadir", title, "FAIL", `${dir} exists but is not a directory`, "point --datadir (BASALT_DATADIR) at a directory");
    }
    const probe = join(dir, `${PROBE_FILE}-${process.pid}`);
    try {
      writeFileSync(probe, "basalt doctor\n");
      rmSync(probe, { force: true });
    } catch (e) {
      const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      const fix = `give the node's user write access: chown -R <user> ${dir}`;
      return result("datadir", title, "FAIL", `${dir} is not writable (${reason})`, fix, { path: dir });
    }
    return result("datadir", title, "OK", `${dir} exists and is writable`, undefined, { path: dir, exists: true });
  }
  const parent = nearestExisting(dir);
  try {
    accessSync(parent, fsConstants.W_OK | fsConstants.X_OK);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    const fix = `create it for the node's user: mkdir -p ${dir} && chown <user> ${dir}`;
    return result("datadir", title, "FAIL", `${dir} does not exist and cannot be created: ${parent} is not writable (${reason})`, fix, { path: dir });
  }
  const detail = `${dir} does not exist yet; the node creates it (${parent} is writable)`;
  return result("datadir", title, "OK", detail, undefined, { path: dir, exists: false });
}

/** Check "disk": free space of the datadir's filesystem against {@link diskThresholds}. */
export function checkDiskSpace(ctx: DoctorContext): CheckResult {
  const title = "Disk space";
  const at = nearestExisting(ctx.options.datadir);
  let free: number;
  try {
    const s = statfsSync(at);
    free = s.bavail * s.bsize;
  } catch (e) {
    return result("disk", title, "WARN", `cannot read the free space of ${at}: ${(e as Error).message}`, "check the filesystem with df -h");
  }
  const t = diskThresholds(ctx.options.network, ctx.options["historical-proofs"]);
  const data = { path: at, freeBytes: free, warnBelowBytes: t.warn, failBelowBytes: t.fail };
  const detail = `${formatBytes(free)} free on the filesystem of ${at}`;
  const need = `${ctx.options.network}${ctx.options["historical-proofs"] ? " with historical proofs" : ""}`;
  const fix = `put the datadir on a local NVMe volume with at least ${formatBytes(t.warn)} free for ${need}`;
  if (free < t.fail) return result("disk", title, "FAIL", `${detail}; below the ${formatBytes(t.fail)} minimum for ${need}`, fix, data);
  if (free < t.warn) return result("disk", title, "WARN", `${detail}; below the ${formatBytes(t.warn)} recommended for ${need}`, fix, data);
  return result("disk", title, "OK", detail, undefined, data);
}

/** The genesis hash `--network` selects (a Base network's is built in; a file's is computed). */
async function expectedGenesisHash(network: string): Promise<string> {
  if (isOpNetworkName(network)) return opNetwork(network).genesisHash.toLowerCase();
  if (isDevnet(network)) return genesisHashOf(devnetGenesis());
  if (isDevnetL1(network)) return genesisHashOf(devnetL1Genesis());
  return genesisHashOf(validateGenesis(JSON.parse(readFileSync(network, "utf8")) as unknown));
}

/** Check "genesis": whether the datadir is initialized, and whether its genesis is the one of `--network`. */
export async function checkGenesis(ctx: DoctorContext): Promise<CheckResult> {
  const title = "Genesis";
  const { datadir, network } = ctx.options;
  if (!existsSync(join(datadir, "chain"))) {
    const first = isOpNetworkName(network) ? "downloads and checks the published genesis" : "writes the genesis";
    return result("genesis", title, "OK", `datadir not initialized; the first start ${first} of ${network}`, undefined, { initialized: false });
  }
  let expected: string;
  try {
    expected = await expectedGenesisHash(network);
  } catch (e) {
    const fix = "point --network at a valid geth-style genesis JSON file";
    return result("genesis", title, "FAIL", `cannot compute the genesis of ${network}: ${(e as Error).message}`, fix, { initialized: true });
  }
  let stored: string | undefined;
  try {
    stored = await storedGenesisHash(datadir);
  } catch (e) {
    const fix = "check the datadir's permissions; a damaged store needs a fresh datadir or a snapshot";
    return result("genesis", title, "FAIL", `cannot open the chain store in ${datadir}: ${(e as Error).message}`, fix, { initialized: true });
  }
  const data = { initialized: true, expected, stored };
  if (stored === undefined) {
    const fix = `remove the incomplete ${join(datadir, "chain")} and start again`;
    return result("genesis", title, "FAIL", `${datadir} holds a chain store without a genesis (interrupted init?)`, fix, data);
  }
  // A devnet datadir created before the OP Stack preinstalls is still the devnet (blockchain/genesisSource.ts).
  if (stored !== expected && isDevnet(network) && (await isDevnetGenesisHash(fromHex(stored)))) {
    return result("genesis", title, "OK", `initialized with the ${network} genesis of before the OP Stack preinstalls, ${stored}`, undefined, data);
  }
  if (stored !== expected) {
    const fix = `use another --datadir for ${network}, or set --network to the chain this datadir holds`;
    return result("genesis", title, "FAIL", `${datadir} holds genesis ${stored}, but ${network}'s genesis is ${expected}`, fix, data);
  }
  return result("genesis", title, "OK", `initialized with the ${network} genesis ${stored}`, undefined, data);
}
