/**
 * Micro-benchmarks of the block's ordered tries: the transactions root and the receipts root of
 * the benchmark block, with basalt's hash-builder `orderedTrieRoot` (src/chain/orderedTrie.ts,
 * what block building, import and flashblocks use) against a general @ethereumjs/mpt trie.
 * Both must give the block header's root. The leaves (serialized transactions, EIP-2718
 * receipts as the receipts root commits to them) are encoded once, outside the timing.
 */
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { orderedTrieRoot } from "../../src/chain/orderedTrie.js";
import { opForkAt, OpFork } from "../../src/chain/op/forks.js";
import { encodeOpReceipt } from "../../src/execution/op/opBlockExecutor.js";
import { bytesEqual, to0x } from "../../src/util/bytes.js";
import type { MicroFixture } from "./fixture.js";
import { expectThat, type MicroCase } from "./harness.js";

/** Root of rlp(i) → values[i] through a general trie (one insertion per leaf). */
async function mptRoot(values: readonly Uint8Array[]): Promise<Uint8Array> {
  const t = new MerklePatriciaTrie();
  for (const [i, v] of values.entries()) await t.put(RLP.encode(i), v);
  return t.root();
}

/** The tries of a block and the implementations compared. */
const TRIES = ["transactionsRoot", "receiptsRoot"] as const;
const IMPLS = ["ordered", "mpt"] as const;
/** Names of the trie cases. */
export const TRIE_CASE_NAMES: readonly string[] = TRIES.flatMap((t) => IMPLS.map((i) => `trie.${t}.${i}`));

/** The four trie cases: {transactions, receipts} × {ordered, mpt}. */
export function trieCases(fx: MicroFixture): MicroCase[] {
  const { block } = fx;
  const op = fx.chain.op;
  // Regolith..Canyon receipt roots leave out the deposit nonce (as opReceiptsRoot does).
  const fork = op === undefined ? undefined : opForkAt(op, block.header.timestamp);
  const strip = fork !== undefined && fork >= OpFork.regolith && fork < OpFork.canyon;
  const tries: { label: (typeof TRIES)[number]; values: Uint8Array[]; root: Uint8Array }[] = [
    { label: "transactionsRoot", values: block.transactions.map((tx) => tx.serialize()), root: block.header.transactionsTrie },
    { label: "receiptsRoot", values: fx.receipts.map((r) => encodeOpReceipt(r, { stripDepositNonce: strip })), root: block.header.receiptTrie },
  ];
  const perLeaf = { count: fx.txCount, unit: "leaf" };
  const cases: MicroCase[] = [];
  for (const { label, values, root } of tries) {
    const check = (name: string) => (out: Uint8Array) => {
      expectThat(bytesEqual(out, root), name, () => `root ${to0x(out)}, the header has ${to0x(root)}`);
    };
    const run: Record<(typeof IMPLS)[number], () => Uint8Array | Promise<Uint8Array>> = {
      ordered: () => orderedTrieRoot(values),
      mpt: () => mptRoot(values),
    };
    for (const impl of IMPLS) {
      const name = `trie.${label}.${impl}`;
      const c: MicroCase<Uint8Array> = { name, perItem: perLeaf, run: run[impl], check: check(name) };
      cases.push(c as MicroCase);
    }
  }
  return cases;
}
