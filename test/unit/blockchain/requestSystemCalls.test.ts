/**
 * EIP-7002 / EIP-7251 on a plain Ethereum chain: a Prague block whose withdrawal-request (or
 * consolidation-request) contract has no code, or whose end-of-block system call to it fails, is
 * invalid — the chain refuses to import it (the head stays) and refuses to build it. Blocks before
 * Prague, blocks with the real contracts, and OP chains (no execution-layer requests) are unaffected.
 *
 * The refused blocks are built with @ethereumjs's block builder alone (which reads a missing or
 * failing contract as an empty request list), as another client without the rule would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Block } from "@ethereumjs/block";
import { buildBlock } from "@ethereumjs/vm";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { buildOnHead } from "../../../src/blockchain/blockBuilder.js";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { devnetL1Genesis } from "../../../src/chain/devnetL1.js";
import { ChainError } from "../../../src/chain/errors.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { CONSOLIDATION_REQUEST_CONTRACT, WITHDRAWAL_REQUEST_CONTRACT } from "../../../src/chain/requestContracts.js";
import { SystemCallError } from "../../../src/execution/systemCalls.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";

/** Code that reverts at once: PUSH0 PUSH0 REVERT. */
const REVERTING_CODE = "0x5f5ffd";
/** Seconds between the test blocks (Ethereum's slot). */
const SLOT_SECONDS = 12n;

const dirs: string[] = [];
const chains: Chain[] = [];
afterEach(async () => {
  for (const c of chains.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A chain of `genesis` in a fresh datadir. */
async function openChain(genesis: GenesisJson): Promise<Chain> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-requests-"));
  dirs.push(dir);
  await Chain.init(dir, genesis);
  const chain = Chain.open(dir, { logger: pino({ level: "silent" }) });
  chains.push(chain);
  return chain;
}

/** devnet-l1's genesis (Prague at genesis) with the request contract at `address` removed or replaced by `code`. */
function withRequestContract(address: string, code: string | undefined): GenesisJson {
  const g = devnetL1Genesis();
  const key = address.toLowerCase();
  if (code === undefined) delete g.alloc[key];
  else g.alloc[key] = { ...g.alloc[key], code };
  return g;
}

/** An empty block on the head, built by @ethereumjs's block builder alone (no request-contract rule). */
async function buildWithoutRule(chain: Chain): Promise<Block> {
  const parent = chain.head;
  const number = parent.header.number + 1n;
  const timestamp = parent.header.timestamp + SLOT_SECONDS;
  const common = chain.commonAt(number, timestamp);
  const { state } = chain.stateManagerAt(parent.header);
  const vm = await chain.makeVM(common, state, parent.hash());
  const builder = await buildBlock(vm, {
    parentBlock: parent,
    headerData: {
      number,
      timestamp,
      gasLimit: parent.header.gasLimit,
      parentBeaconBlockRoot: new Uint8Array(32),
      excessBlobGas: parent.header.calcNextExcessBlobGas(common),
    } as never,
    withdrawals: [],
    blockOpts: { putBlockIntoBlockchain: false } as never,
  });
  return (await builder.build()).block as Block;
}

/** Builds with basalt's builder on the head (what the devnet-l1 producer and the Engine API do). */
const buildWithBasalt = (chain: Chain) =>
  buildOnHead(chain, undefined, { timestamp: chain.head.header.timestamp + SLOT_SECONDS, feeRecipient: new Uint8Array(20), prevRandao: new Uint8Array(32), withdrawals: [] });

/** The error `p` rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

describe("EIP-7002 / EIP-7251 request contracts on an Ethereum chain (Prague)", () => {
  for (const [eip, address] of [
    [7002, WITHDRAWAL_REQUEST_CONTRACT],
    [7251, CONSOLIDATION_REQUEST_CONTRACT],
  ] as const) {
    it(`rejects a block whose EIP-${eip} contract has no code, and keeps the head`, async () => {
      const chain = await openChain(withRequestContract(address, undefined));
      const genesisHash = chain.headHash;
      const block = await buildWithoutRule(chain);
      const e = await rejection(chain.importBlock(block));
      expect(e).toBeInstanceOf(ChainError);
      expect((e as ChainError).code).toBe("CHAIN_INVALID_BLOCK");
      expect(e.message).toBe(`block 1 is invalid: the EIP-${eip} request contract ${address} has no code; it must be deployed from Prague on`);
      expect(chain.headHash).toEqual(genesisHash);
      expect(chain.store.hasBlock(block.hash())).toBe(false);
    });

    it(`rejects a block whose EIP-${eip} system call reverts`, async () => {
      const chain = await openChain(withRequestContract(address, REVERTING_CODE));
      const block = await buildWithoutRule(chain);
      const e = await rejection(chain.importBlock(block));
      expect((e as ChainError).code).toBe("CHAIN_INVALID_BLOCK");
      expect(e.message).toBe(`block 1 is invalid: the EIP-${eip} system call to ${address} failed (revert); a request contract call must succeed`);
      expect(chain.head.header.number).toBe(0n);
    });

    it(`refuses to build a block while the EIP-${eip} contract is missing or failing`, async () => {
      const missing = await rejection(buildWithBasalt(await openChain(withRequestContract(address, undefined))));
      expect(missing).toBeInstanceOf(SystemCallError);
      expect((missing as SystemCallError).type).toEqual({ code: "SYSTEM_CONTRACT_EMPTY", eip, contract: address });
      const failing = await rejection(buildWithBasalt(await openChain(withRequestContract(address, REVERTING_CODE))));
      expect((failing as SystemCallError).type).toEqual({ code: "SYSTEM_CONTRACT_CALL_FAILED", eip, contract: address, reason: "revert" });
    });
  }

  it("builds and imports blocks with the real contracts (devnet-l1's genesis)", async () => {
    const producer = await openChain(devnetL1Genesis());
    const importer = await openChain(devnetL1Genesis());
    for (let i = 0; i < 2; i++) {
      const built = await buildWithBasalt(producer);
      producer.commitCanonical(built);
      await importer.importBlock(built.block);
    }
    expect(importer.head.header.number).toBe(2n);
    expect(importer.headHash).toEqual(producer.headHash);
  });

  it("does not apply before Prague: a Cancun chain without the contracts imports its blocks", async () => {
    const g = withRequestContract(WITHDRAWAL_REQUEST_CONTRACT, undefined);
    delete g.alloc[CONSOLIDATION_REQUEST_CONTRACT.toLowerCase()];
    delete g.config.pragueTime;
    const schedule = g.config.blobSchedule as Record<string, unknown>;
    delete schedule.prague;
    const chain = await openChain(g);
    await chain.importBlock(await buildWithoutRule(chain));
    expect(chain.head.header.number).toBe(1n);
  });

  it("does not apply to OP chains: the OP devnet (Isthmus, no request contracts) seals blocks", async () => {
    const g = devnetGenesis();
    expect(g.alloc[WITHDRAWAL_REQUEST_CONTRACT.toLowerCase()]).toBeUndefined();
    const chain = await openChain(g);
    const silent = pino({ level: "silent" });
    const seq = new OpDevSequencer(chain, new TxPool(chain), 0, silent);
    await seq.sealOne();
    expect(chain.head.header.number).toBe(1n);
  });
});
