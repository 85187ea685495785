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
import { NO_PENDING, type PendingSource } from "../../src/flashblocks/pendingView.js";
import type { RpcBackend, RpcSettings } from "../../src/rpc/backend.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
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

/**
 * An RPC backend over a sealing devnet (calls run inline, no execution pool): `pending` answers
 * the `pending` tag (default none), `settings` adds to the test gas cap and client version.
 */
export function devBackend(dev: Pick<SealingDevnet, "chain" | "pool">, opts: { pending?: PendingSource; settings?: Partial<RpcSettings> } = {}): RpcBackend {
  const pending = opts.pending ?? NO_PENDING;
  return {
    chain: dev.chain,
    pool: dev.pool,
    calls: new InlineCallService(dev.chain, pending),
    settings: { gasCap: 50_000_000n, clientVersion: "test", ...opts.settings },
    pending,
    syncing: () => false as const,
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
