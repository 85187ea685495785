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
