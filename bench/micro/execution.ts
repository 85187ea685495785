/**
 * Micro-benchmark of block execution and commit: the benchmark block imported from its RLP into
 * a second chain (the import path of `basalt import` and bench/importChain.ts: decode with the
 * chain's decoder, `Chain.importBlock` = execute on the parent state, verify every header root
 * — state root included — and commit as the new head). The second chain holds the blocks before
 * it (imported once, untimed); after every timed import the head is set back to the parent
 * (`Chain.setHead`, which unwinds the block's state changes), so each run imports the same block
 * onto the same state. Reports Mgas/s.
 */
import type { Block } from "@ethereumjs/block";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chain, type ExecutedBlock } from "../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../src/chain/blockCodec.js";
import { bytesEqual, to0x } from "../../src/util/bytes.js";
import type { MicroFixture } from "./fixture.js";
import { expectThat, type MicroCase } from "./harness.js";

/** Name of the block-import case. */
export const IMPORT_CASE_NAME = "chain.importBlock";

/** The block-import case. */
export function executionCases(fx: MicroFixture): MicroCase[] {
  const name = IMPORT_CASE_NAME;
  const { block } = fx;
  let datadir: string | undefined;
  let chain: Chain | undefined;
  let parent: Block | undefined;
  const gas = Number(block.header.gasUsed);
  const c: MicroCase<ExecutedBlock> = {
    name,
    perItem: { count: fx.txCount, unit: "tx" },
    derived: (meanMs) => ({ value: meanMs > 0 ? gas / 1e3 / meanMs : 0, unit: "Mgas/s" }),
    async prepare() {
      datadir = mkdtempSync(join(tmpdir(), "basalt-bench-micro-import-"));
      await Chain.init(datadir, fx.chain.genesis, { archive: true });
      chain = Chain.open(datadir, { archive: true });
      for (let n = 1n; n < block.header.number; n++) {
        const b = fx.chain.getBlockByNumber(n);
        if (b === undefined) throw new Error(`block ${n} missing from the benchmark chain`);
        await chain.importBlock(decodeBlockFromRlp(chain, b.serialize()));
      }
      parent = chain.head;
      const head = parent;
      expectThat(bytesEqual(head.hash(), block.header.parentHash), name, () => `import chain head ${to0x(head.hash())} is not the block's parent`);
    },
    run: () => chain!.importBlock(decodeBlockFromRlp(chain!, fx.rlp)),
    async reset() {
      await chain!.setHead(parent!.hash());
    },
    check(out) {
      expectThat(bytesEqual(out.block.hash(), block.hash()), name, () => `imported ${to0x(out.block.hash())}, expected ${to0x(block.hash())}`);
      expectThat(out.gasUsed === block.header.gasUsed, name, () => `executed gas ${out.gasUsed}, the header has ${block.header.gasUsed}`);
      expectThat(out.write.receipts.length === fx.txCount, name, () => `${out.write.receipts.length} receipts, ${fx.txCount} expected`);
      // The head went back to the parent (reset), so the next run imports onto the same state.
      expectThat(bytesEqual(chain!.head.hash(), parent!.hash()), name, () => "the head did not return to the parent after the import");
    },
    async dispose() {
      await chain?.close();
      if (datadir !== undefined) rmSync(datadir, { recursive: true, force: true });
      chain = undefined;
      datadir = undefined;
    },
  };
  return [c as MicroCase];
}
