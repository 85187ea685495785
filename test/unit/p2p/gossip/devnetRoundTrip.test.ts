/**
 * Blocks basalt builds travel through gossip unchanged: a real devnet chain (its pool and the
 * devnet sequencer) seals blocks; each goes envelopeFromBlock → sign → encodeBlockMessage →
 * validator → decode → envelopeToEnginePayloadJson → blockFromOpPayload (the Engine API import
 * path) and must come back with the same hash. The devnet runs Isthmus and Jovian from genesis
 * (v4, non-zero Jovian blobGasUsed); a second chain stops at Holocene (v3).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis, DEVNET_EIP1559_DENOMINATOR_CANYON, DEVNET_EIP1559_ELASTICITY } from "../../../../src/chain/devnet.js";
import { encodeHoloceneExtraData } from "../../../../src/chain/op/eip1559.js";
import type { GenesisJson } from "../../../../src/chain/genesis.js";
import { payloadBlockHash } from "../../../../src/p2p/gossip/blockHash.js";
import { envelopeFromBlock, envelopeToEnginePayloadJson } from "../../../../src/p2p/gossip/envelope.js";
import { decodeBlockMessage, encodeBlockMessage } from "../../../../src/p2p/gossip/message.js";
import { signBlockPayload } from "../../../../src/p2p/gossip/signing.js";
import { blocksVersionAt, type BlocksVersion } from "../../../../src/p2p/gossip/topics.js";
import { BlockGossipValidator } from "../../../../src/p2p/gossip/validate.js";
import { blockFromOpPayload } from "../../../../src/rpc/methods/engineOp.js";
import { OpDevSequencer } from "../../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../../src/txpool/txpool.js";
import { SimulatedL1Origins } from "../../../../src/sequencer/simulatedL1.js";
import { buildOpOnHead } from "../../../../src/blockchain/opBuilder.js";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { ProofsTraffic } from "../../../helpers/proofs.js";

const BLOCKS = 4;
const KEY = new Uint8Array(Buffer.from(devAccounts()[0]!.privateKey.slice(2), "hex"));
const SIGNER = new Uint8Array(Buffer.from(devAccounts()[0]!.address.slice(2), "hex"));

interface Built {
  chain: Chain;
  close(): Promise<void>;
}

/**
 * A devnet chain from `genesis` with {@link BLOCKS} blocks. Jovian chains: mixed traffic sealed by
 * the devnet sequencer. Pre-Jovian chains (which the devnet sequencer does not build: it always
 * passes Jovian's minBaseFee): the simulated L1's attributes without minBaseFee, plus one forced
 * transfer per block, built and committed by the chain's own OP builder.
 */
async function build(prefix: string, genesis: GenesisJson, jovian: boolean): Promise<Built> {
  const datadir = mkdtempSync(path.join(os.tmpdir(), prefix));
  await Chain.init(datadir, genesis);
  const silent = pino({ level: "silent" });
  const chain = Chain.open(datadir, { logger: silent });
  if (jovian) {
    const pool = new TxPool(chain);
    const seq = new OpDevSequencer(chain, pool, 0, silent);
    const traffic = new ProofsTraffic({ submit: async (raw) => void (await pool.addRaw(raw)), seal: async () => void (await seq.sealOne()) });
    for (let i = 0; i < BLOCKS; i++) await traffic.block();
  } else {
    const l1 = new SimulatedL1Origins(chain);
    const sender = devAccounts()[1]!;
    for (let i = 0; i < BLOCKS; i++) {
      const next = await l1.plan(chain.head);
      const common = chain.commonAt(chain.head.header.number + 1n, next.attrs.timestamp);
      const transfer = createFeeMarket1559Tx(
        { chainId: chain.common.chainId(), nonce: BigInt(i), maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n, to: SIGNER, value: 1n },
        { common },
      ).sign(new Uint8Array(Buffer.from(sender.privateKey.slice(2), "hex")));
      const attrs = { ...next.attrs, minBaseFee: undefined, transactions: [...next.attrs.transactions, transfer.serialize()] };
      chain.commitCanonical(await buildOpOnHead(chain, undefined, attrs));
      l1.committed(next);
    }
  }
  return {
    chain,
    close: async () => {
      await chain.close();
      rmSync(datadir, { recursive: true, force: true });
    },
  };
}

/** The devnet genesis without Isthmus and Jovian (Holocene extraData), so blocks are v3. */
function holoceneGenesis(): GenesisJson {
  const g = devnetGenesis();
  const config = g.config as Record<string, unknown>;
  delete config.isthmusTime;
  delete config.jovianTime;
  delete config.azulTime;
  delete config.berylTime;
  delete config.cobaltTime;
  g.extraData = `0x${Buffer.from(encodeHoloceneExtraData(DEVNET_EIP1559_DENOMINATOR_CANYON, DEVNET_EIP1559_ELASTICITY)).toString("hex")}`;
  return g;
}

const cases: [string, () => GenesisJson, BlocksVersion][] = [
  ["Isthmus + Jovian devnet (v4)", devnetGenesis, 4],
  ["Holocene devnet (v3)", holoceneGenesis, 3],
];

describe.each(cases)("%s", (_name, genesis, expectedVersion) => {
  let built: Built;
  beforeAll(async () => {
    built = await build("basalt-gossip-", genesis(), expectedVersion === 4);
  }, 120_000);
  afterAll(async () => {
    await built?.close();
  });

  it("every block round-trips through the gossip codec, the validator and the Engine API import", async () => {
    const { chain } = built;
    const validator = new BlockGossipValidator({ chainId: chain.common.chainId(), rollup: chain.op!, signer: () => SIGNER });
    let nonZeroBlobGas = false;
    for (let n = 1n; n <= BigInt(BLOCKS); n++) {
      const block = chain.getBlockByNumber(n)!;
      const version = blocksVersionAt(chain.op!, block.header.timestamp);
      expect(version).toBe(expectedVersion);
      const signed = envelopeFromBlock(block, version);
      const data = encodeBlockMessage(version, signBlockPayload(KEY, chain.common.chainId(), signed), signed);

      const res = validator.validate(version, data, block.header.timestamp);
      expect(res.reason, res.detail).toBe("ok");
      expect(res.result).toBe("accept");
      expect(res.block!.blockHash).toEqual(block.hash());
      expect(res.block!.number).toBe(n);
      // A second copy is a duplicate.
      expect(validator.validate(version, data, block.header.timestamp)).toMatchObject({ result: "ignore", reason: "duplicate" });

      const decoded = decodeBlockMessage(version, data);
      expect(payloadBlockHash(decoded.envelope, version)).toEqual(block.hash());
      const json = envelopeToEnginePayloadJson(decoded.envelope);
      const imported = await blockFromOpPayload(chain, json);
      expect(imported.hash()).toEqual(block.hash());
      expect(imported.transactions.length).toBe(block.transactions.length);
      expect(block.transactions.length).toBeGreaterThan(1); // deposits and user transactions
      if ((block.header.blobGasUsed ?? 0n) > 0n) nonZeroBlobGas = true;
    }
    // From Jovian the header's blobGasUsed is the DA footprint; before it, 0.
    expect(nonZeroBlobGas).toBe(expectedVersion === 4);
  });
});
