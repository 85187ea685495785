/**
 * eth_getTransactionReceipt reads one receipt of its block (decodeReceiptAt) instead of the
 * block's whole list: its answer for every transaction of a sealed block — the L1-info deposit,
 * plain transfers, calls that log, a creation — is byte for byte the block's eth_getBlockReceipts
 * entry (which formats every receipt of the block together).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccounts } from "../../src/chain/devnet.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { devAccountMethods } from "../../src/rpc/methods/devAccounts.js";
import { RawJson, type MethodTable, type RpcContext } from "../../src/rpc/types.js";
import { createAddress } from "../../src/chain/json/receipt.js";
import { to0x } from "../../src/util/bytes.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { callTable } from "../helpers/methodTable.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-tx-receipt-at-");
const accounts = devAccounts();
const CTX: RpcContext = { transport: "http" };
/** Runtime: LOG1(topic 0x2a) of its calldata. */
const LOGGER_RUNTIME = "366000600037602a366000a100";
/** Init code returning {@link LOGGER_RUNTIME} (13 bytes at offset 12). */
const LOGGER_INIT = `0x600d600c600039600d6000f3${LOGGER_RUNTIME}`;

/** The JSON text a method's answer is written as. */
async function jsonOf(m: MethodTable, method: string, params: unknown[]): Promise<string> {
  const r = await m[method]!(params, CTX);
  return r instanceof RawJson ? r.json : JSON.stringify(r ?? null);
}

describe("eth_getTransactionReceipt from one decoded receipt", () => {
  let dev: SealingDevnet;
  let m: MethodTable;

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    const backend = devBackend(dev);
    m = { ...blockMethods(backend), ...devAccountMethods(backend, accounts) };
  }, 60_000);

  afterAll(async () => {
    await dev?.close();
  });

  it("answers each transaction's receipt byte for byte as the block's eth_getBlockReceipts entry", async () => {
    const [a0, a1, a2] = accounts.map((a) => a.address.toLowerCase());
    await callTable(m, "eth_sendTransaction", [{ from: a0, data: LOGGER_INIT, gas: "0x30000" }]);
    await dev.seq.sealOne();
    const logger = to0x(createAddress(Buffer.from(a0!.slice(2), "hex"), 0n));
    // One block: transfers (no logs), logging calls of 0–3 words, interleaved from three senders.
    for (let i = 0; i < 12; i++) {
      const from = [a0, a1, a2][i % 3]!;
      const tx = i % 4 === 0 ? { from, to: a1, value: `0x${(i + 1).toString(16)}` } : { from, to: logger, data: `0x${"ab".repeat(32 * (i % 4))}`, gas: "0x20000" };
      await callTable(m, "eth_sendTransaction", [tx]);
    }
    await dev.seq.sealOne();
    const block = (await callTable(m, "eth_getBlockByNumber", ["latest", false])) as { number: string; transactions: string[] };
    expect(block.transactions.length).toBe(13); // the L1-info deposit, then the 12
    const entries = JSON.parse(await jsonOf(m, "eth_getBlockReceipts", [block.number])) as unknown[];
    let logs = 0;
    for (const [i, hash] of block.transactions.entries()) {
      const one = await jsonOf(m, "eth_getTransactionReceipt", [hash]);
      expect(one).toBe(JSON.stringify(entries[i]));
      logs += (JSON.parse(one) as { logs: unknown[] }).logs.length;
    }
    // Logs on both sides of transfers: the block-wide logIndex is exercised.
    expect(logs).toBe(9);
  });

  it("answers null for a hash the chain does not hold", async () => {
    expect(await jsonOf(m, "eth_getTransactionReceipt", [`0x${"11".repeat(32)}`])).toBe("null");
  });
});
