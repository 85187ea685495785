/**
 * An in-process devnet chain in a temporary datadir, its mempool and sequencer, and
 * {@link ProofsTraffic} sealing blocks through them (tests of witnesses, proofs and derivation).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { Chain } from "../../src/blockchain/chain.js";
import { devnetGenesis } from "../../src/chain/devnet.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { ProofsTraffic } from "./proofs.js";

/** An archive devnet chain in `datadir` with its mempool and a sequencer sealing on demand (`seq.sealOne()`). */
export interface SealingDevnet {
  chain: Chain;
  pool: TxPool;
  seq: OpDevSequencer;
  /** Stops the sequencer and closes the chain (the caller removes the datadir). */
  close(): Promise<void>;
}

/** Initializes the devnet's genesis in `datadir` (archive) and opens it with a pool and a sequencer. */
export async function openSealingDevnet(datadir: string): Promise<SealingDevnet> {
  await Chain.init(datadir, devnetGenesis(), { archive: true });
  const silent = pino({ level: "silent" });
  const chain = Chain.open(datadir, { archive: true, logger: silent });
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, silent);
  return {
    chain,
    pool,
    seq,
    close: async () => {
      await seq.stop();
      await chain.close();
    },
  };
}

/** A devnet chain with traffic; `close()` closes the chain and removes its datadir. */
export interface DevChain {
  chain: Chain;
  traffic: ProofsTraffic;
  close(): Promise<void>;
}

/** Opens a new devnet chain whose traffic seals blocks through a real pool and the devnet sequencer. */
export async function openDevChain(prefix: string): Promise<DevChain> {
  const datadir = mkdtempSync(path.join(os.tmpdir(), prefix));
  await Chain.init(datadir, devnetGenesis());
  const silent = pino({ level: "silent" });
  const chain = Chain.open(datadir, { logger: silent });
  const pool = new TxPool(chain);
  const seq = new OpDevSequencer(chain, pool, 0, silent);
  const traffic = new ProofsTraffic({ submit: async (raw) => void (await pool.addRaw(raw)), seal: async () => void (await seq.sealOne()) });
  return {
    chain,
    traffic,
    close: async () => {
      await chain.close();
      rmSync(datadir, { recursive: true, force: true });
    },
  };
}
