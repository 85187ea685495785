/**
 * Mempool administration and Base's transaction status through the method table, on a devnet
 * chain's real pool: admin_dropTransaction / txpool_removeTransaction, admin_dropSenderTransactions
 * / txpool_removeSender (hashes in nonce order), admin_clearTxpool / txpool_removeAll (a count),
 * base_transactionStatus from the pool and, with a sequencer, the sequencer's answer or Base's
 * -32603; none of the administration methods on a public endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { poolAdminMethods } from "../../src/rpc/methods/poolAdmin.js";
import { txpoolMethods } from "../../src/rpc/methods/txpool.js";
import { PublicPolicy } from "../../src/rpc/publicPolicy.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { SequencerStatusError, type TxForwarder } from "../../src/sync/sequencerForward.js";
import { to0x } from "../../src/util/bytes.js";
import { keccak256 } from "../../src/util/keccak.js";
import { buildWorkload } from "../../bench/workload/workload.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-pool-admin-");

describe("mempool administration and base_transactionStatus", () => {
  let dev: SealingDevnet;
  let m: MethodTable;
  let backend: RpcBackend;
  /** Raw transactions of one sender (nonce order) and of others, pooled but not sealed. */
  let mine: Uint8Array[];
  let others: Uint8Array[];
  let sender: string;

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    const w = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 3, txsPerBlock: 10 });
    for (const round of w.setup) {
      for (const raw of round) await dev.pool.addRaw(raw);
      await dev.seq.sealOne();
    }
    // One sender's transactions of the three blocks (consecutive nonces), and the others of the first block.
    sender = to0x(w.senders[0]!);
    const senderOf = (raw: Uint8Array): string => to0x(dev.pool.get(keccak256(raw))!.sender);
    const all = w.blocks.flat();
    for (const raw of all) await dev.pool.addRaw(raw);
    mine = all.filter((raw) => senderOf(raw) === sender);
    others = all.filter((raw) => senderOf(raw) !== sender);
    expect(mine.length).toBeGreaterThanOrEqual(3);
    backend = devBackend(dev);
    m = { ...poolAdminMethods(backend), ...txpoolMethods(backend) };
  }, 60_000);

  afterAll(async () => {
    await dev?.close();
  });

  const hashOf = (raw: Uint8Array): string => to0x(keccak256(raw));

  it("base_transactionStatus: Known while pooled, Unknown otherwise", async () => {
    expect(await callTable(m, "base_transactionStatus", [hashOf(mine[0]!)])).toEqual({ status: "Known" });
    expect(await callTable(m, "base_transactionStatus", ["0x" + "ab".repeat(32)])).toEqual({ status: "Unknown" });
    expect((await callTableError(m, "base_transactionStatus", ["0x12"])).code).toBe(-32602);
  });

  it("drops one transaction, then a sender's (nonce order), then everything", async () => {
    const last = mine.at(-1)!;
    expect(await callTable(m, "admin_dropTransaction", [hashOf(last)])).toBe(true);
    expect(await callTable(m, "txpool_removeTransaction", [hashOf(last)])).toBe(false);
    expect(await callTable(m, "base_transactionStatus", [hashOf(last)])).toEqual({ status: "Unknown" });
    expect(await callTable(m, "admin_dropSenderTransactions", [sender])).toEqual(mine.slice(0, -1).map(hashOf));
    expect(await callTable(m, "txpool_removeSender", [sender])).toEqual([]);
    const left = others.length;
    expect(left).toBeGreaterThan(0);
    const status = (await callTable(m, "txpool_status", [])) as { pending: string; queued: string };
    expect(Number(status.pending) + Number(status.queued)).toBe(left);
    expect(await callTable(m, "admin_clearTxpool", [])).toBe(left);
    expect(await callTable(m, "txpool_removeAll", [])).toBe(0);
    expect(await callTable(m, "txpool_status", [])).toEqual({ pending: "0x0", queued: "0x0" });
    // The pool takes transactions again after being cleared.
    await dev.pool.addRaw(others[0]!);
    expect(await callTable(m, "base_transactionStatus", [hashOf(others[0]!)])).toEqual({ status: "Known" });
  });

  it("with a sequencer: its answer, or -32603 when it cannot say", async () => {
    const asked: string[] = [];
    const forwarder: TxForwarder = {
      forward: () => Promise.reject(new Error("not used")),
      transactionStatus: (hash) => {
        asked.push(hash);
        if (hash.endsWith("ff")) return Promise.reject(new SequencerStatusError("failed to fetch transaction status: connection refused", "http://sequencer"));
        return Promise.resolve({ status: "Known" });
      },
    };
    const viaSequencer = poolAdminMethods({ ...backend, forwarder });
    const h = "0x" + "12".repeat(32);
    expect(await callTable(viaSequencer, "base_transactionStatus", [h])).toEqual({ status: "Known" });
    expect(await callTableError(viaSequencer, "base_transactionStatus", ["0x" + "ff".repeat(32)])).toEqual({ code: -32603, message: "failed to fetch transaction status: connection refused" });
    expect(asked).toEqual([h, "0x" + "ff".repeat(32)]);
  });

  it("is not served on public endpoints, except base_transactionStatus", async () => {
    const pub = new PublicPolicy({ rate: 100, burst: 100, maxConnections: 10 }).filterMethods(m);
    for (const method of ["admin_clearTxpool", "admin_dropTransaction", "admin_dropSenderTransactions", "txpool_removeAll", "txpool_removeSender", "txpool_removeTransaction"]) {
      expect((await callTableError(pub, method, [])).code, method).toBe(-32601);
    }
    expect(await callTable(pub, "base_transactionStatus", ["0x" + "ab".repeat(32)])).toEqual({ status: "Unknown" });
  });
});
