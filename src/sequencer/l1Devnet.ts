/**
 * basalt's local L1 (`--network devnet-l1`) assembled: the beacon API (`derivation/beaconShim.ts`
 * on `--beacon.addr`:`--beacon.port`, genesis time = the L1 genesis timestamp, SECONDS_PER_SLOT =
 * the slot length), the blob archive under `<datadir>/l1-blobs` (restored into the beacon API at
 * start) and the slot-clock block producer.
 */
import { join } from "node:path";
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { L1DEV_BLOB_RETENTION_MAX_BLOBS, L1DEV_BLOB_RETENTION_SLOTS } from "./constants.js";
import { BeaconShim } from "../derivation/beaconShim.js";
import type { TxPool } from "../txpool/txpool.js";
import { L1BlobArchive } from "./l1BlobArchive.js";
import { L1DevProducer } from "./l1DevProducer.js";
import { SlotClock } from "./l1SlotClock.js";

/** The directory of the blob archive inside a datadir. */
const L1_BLOBS_DIR = "l1-blobs";

/** Options of {@link startL1Devnet}. */
interface L1DevnetOptions {
  datadir: string;
  /** Slot length in seconds (`--dev.block-time`). */
  slotSeconds: number;
  /** Beacon API listen address and port (`--beacon.addr`, `--beacon.port`; 0 = any free port). */
  beaconHost: string;
  beaconPort: number;
  /** What the beacon API's `/eth/v1/node/version` reports. */
  version: string;
  logger: Logger;
}

/** A running local L1: start its producer with `producer.start()`, stop everything with {@link stop}. */
export interface L1Devnet {
  producer: L1DevProducer;
  beacon: BeaconShim;
  archive: L1BlobArchive;
  clock: SlotClock;
  /** The beacon API's base URL. */
  beaconUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the beacon API, opens and restores the blob archive and creates the producer (not yet
 * producing).
 * @throws L1DevError INVALID_SLOT_LENGTH (not whole seconds ≥ 1), SLOT_LENGTH_CHANGED (the datadir
 * was produced with another slot length); the listen error when the beacon port is taken.
 */
export async function startL1Devnet(chain: Chain, pool: TxPool, opts: L1DevnetOptions): Promise<L1Devnet> {
  const genesis = chain.getHeaderByHash(chain.genesisHash)!;
  const clock = new SlotClock(genesis.timestamp, opts.slotSeconds);
  const beacon = await BeaconShim.start({
    genesisTime: Number(clock.genesisTime),
    secondsPerSlot: clock.secondsPerSlot,
    host: opts.beaconHost,
    port: opts.beaconPort,
    version: opts.version,
  });
  try {
    const bounds = { retentionSlots: L1DEV_BLOB_RETENTION_SLOTS, maxBlobs: L1DEV_BLOB_RETENTION_MAX_BLOBS, clock, logger: opts.logger };
    const archive = L1BlobArchive.open(join(opts.datadir, L1_BLOBS_DIR), beacon, chain.headHeader.number, bounds);
    archive.restore(chain);
    const producer = new L1DevProducer(chain, pool, { clock, archive, logger: opts.logger });
    return {
      producer,
      beacon,
      archive,
      clock,
      beaconUrl: beacon.url,
      stop: async () => {
        await producer.stop();
        await beacon.close();
      },
    };
  } catch (e) {
    await beacon.close();
    throw e;
  }
}
