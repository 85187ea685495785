/**
 * engine_getPayloadV4 on a plain Ethereum chain (basalt's devnet-l1 genesis, Prague): a payload
 * built from a pool holding a blob transaction carries the transaction and answers its blobs,
 * commitments and proofs in `blobsBundle` — the sidecar the pool verified and kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { devnetL1Genesis } from "../../../src/chain/devnetL1.js";
import { DEVNET_L1_CHAIN_ID } from "../../../src/chain/constants.js";
import type { RpcBackend } from "../../../src/rpc/backend.js";
import { engineMethods } from "../../../src/rpc/methods/engine.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { to0x } from "../../../src/util/bytes.js";
import { signedBlobTx, testBlob } from "../../helpers/blobTx.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-engine-blobs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("engine_getPayloadV4 blobsBundle", () => {
  it("answers the sidecars of the payload's blob transactions", async () => {
    await Chain.init(dir, devnetL1Genesis(), { archive: true });
    const chain = Chain.open(dir, { archive: true, logger: pino({ level: "silent" }) });
    try {
      const pool = new TxPool(chain);
      const [a, b] = devAccounts() as [{ address: string; privateKey: string }, { address: string }];
      const tx = await signedBlobTx({
        common: commonFromGenesis(devnetL1Genesis()),
        chainId: DEVNET_L1_CHAIN_ID,
        nonce: 0n,
        privateKey: a.privateKey,
        to: b.address,
        blobs: [testBlob(3), testBlob(4)],
      });
      await pool.addRaw(tx.raw);
      const backend = { chain, pool } as unknown as RpcBackend;
      const engine = engineMethods(backend, "test");
      const head = to0x(chain.headHash);
      const fcu = (await engine.engine_forkchoiceUpdatedV3!(
        [
          { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head },
          {
            timestamp: `0x${(chain.headHeader.timestamp + 12n).toString(16)}`,
            prevRandao: to0x(new Uint8Array(32)),
            suggestedFeeRecipient: to0x(new Uint8Array(20)),
            withdrawals: [],
            parentBeaconBlockRoot: to0x(new Uint8Array(32)),
          },
        ],
        undefined as never,
      )) as { payloadId: string };
      const env = (await engine.engine_getPayloadV4!([fcu.payloadId], undefined as never)) as {
        executionPayload: { transactions: string[]; blobGasUsed: string };
        blobsBundle: { commitments: string[]; proofs: string[]; blobs: string[] };
      };
      expect(env.executionPayload.transactions).toHaveLength(1);
      expect(env.executionPayload.blobGasUsed).toBe("0x40000");
      expect(env.blobsBundle).toEqual({
        commitments: tx.blobs.map((c) => to0x(c.commitment)),
        proofs: tx.blobs.map((c) => to0x(c.proof)),
        blobs: tx.blobs.map((c) => to0x(c.blob)),
      });
    } finally {
      await chain.close();
    }
  }, 60_000);
});
