/**
 * evm_mine (src/rpc/methods/dev.ts) on an in-process devnet sequencer with a block time of 0:
 * seals exactly one block with the pooled transactions and answers "0x0" like anvil; a
 * timestamp/options parameter is refused as invalid params (-32602).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devnetGenesis } from "../../src/chain/devnet.js";
import { DEPOSIT_TX_TYPE } from "../../src/chain/op/depositTx.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { devMethods } from "../../src/rpc/methods/dev.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { buildWorkload } from "../../bench/workload/workload.js";

const CTX = { transport: "http" } as const;

describe("evm_mine", () => {
  let datadir = "";
  let chain: Chain;
  let pool: TxPool;
  let methods: MethodTable;

  beforeAll(async () => {
    datadir = mkdtempSync(join(tmpdir(), "basalt-devmine-test-"));
    await Chain.init(datadir, devnetGenesis(), { archive: true });
    chain = Chain.open(datadir, { archive: true });
    pool = new TxPool(chain);
    methods = devMethods(new OpDevSequencer(chain, pool, 0, pino({ level: "silent" })));
  });

  afterAll(async () => {
    await chain?.close();
    rmSync(datadir, { recursive: true, force: true });
  });

  it("seals one block with the pooled transactions and answers 0x0", async () => {
    const round = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 0, txsPerBlock: 1 }).setup[0]!;
    for (const raw of round) await pool.addRaw(raw);
    const before = chain.head.header.number;
    expect(await methods.evm_mine!([], CTX)).toBe("0x0");
    expect(chain.head.header.number).toBe(before + 1n);
    const receipts = chain.getReceipts(chain.head.hash())!;
    const user = receipts.filter((r) => r.type !== DEPOSIT_TX_TYPE);
    expect(user.length).toBe(round.length);
    expect(user.every((r) => r.status === 1)).toBe(true);
    expect(pool.size).toBe(0);
  });

  it("seals an empty block (L1-attributes deposit only) when the pool is empty; null counts as no parameter", async () => {
    const before = chain.head.header.number;
    expect(await methods.evm_mine!([null], CTX)).toBe("0x0");
    expect(chain.head.header.number).toBe(before + 1n);
    expect(chain.head.transactions.length).toBe(1);
  });

  it("refuses a timestamp or options parameter with -32602", async () => {
    for (const params of [[1_800_000_000], [{ timestamp: 1_800_000_000 }], ["0x10"]]) {
      const e = await Promise.resolve(methods.evm_mine!(params, CTX)).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(toJsonRpcError(e).code).toBe(-32602);
    }
    const tooMany = await Promise.resolve(methods.evm_mine!([null, null], CTX)).catch((err: unknown) => err);
    expect(toJsonRpcError(tooMany).code).toBe(-32602);
  });
});
