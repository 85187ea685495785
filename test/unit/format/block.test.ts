import { describe, expect, it } from "vitest";
import { createBlock } from "@ethereumjs/block";
import { hexToBytes, type PrefixedHexString } from "@ethereumjs/util";
import { formatBlock, formatHeader, toData } from "../../../src/chain/json/index.js";
import { loadChain, loadFixtures, type ChainBlock, type Exchange } from "./chain.js";

/** The wire text geth sent for this exchange, rebuilt around our result. */
function wire(ex: Exchange, result: unknown): string {
  const id = (JSON.parse(ex.responseText) as { id: unknown }).id;
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

function findByHash(chain: ChainBlock[], hash: string): ChainBlock | undefined {
  return chain.find((b) => b.hashHex === hash);
}

/** Builds the genesis block from the fixture's own answer (its state root is not recomputed here). */
function genesisFrom(chain: ChainBlock[], expected: Record<string, string>): ChainBlock {
  const common = chain[0]!.block.common.copy();
  common.setHardfork("homestead");
  const block = createBlock(
    {
      header: {
        number: 0n,
        parentHash: hexToBytes(expected.parentHash as PrefixedHexString),
        stateRoot: hexToBytes(expected.stateRoot as PrefixedHexString),
        difficulty: BigInt(expected.difficulty!),
        gasLimit: BigInt(expected.gasLimit!),
        timestamp: BigInt(expected.timestamp!),
        extraData: hexToBytes(expected.extraData as PrefixedHexString),
        nonce: hexToBytes(expected.nonce as PrefixedHexString),
        mixHash: hexToBytes(expected.mixHash as PrefixedHexString),
      },
    },
    { common },
  );
  return { block, senders: [], hashHex: toData(block.hash()) };
}

describe("formatBlock against execution-apis fixtures", () => {
  const chain = loadChain();
  const compared = new Set<string>();

  it("decodes blocks 1..45 of chain.rlp with their parent links intact", () => {
    expect(chain.length).toBe(45);
    chain.forEach((b, i) => expect(b.block.header.number).toBe(BigInt(i + 1)));
    for (let i = 1; i < chain.length; i++) expect(toData(chain[i]!.block.header.parentHash)).toBe(chain[i - 1]!.hashHex);
  });

  for (const method of ["eth_getBlockByNumber", "eth_getBlockByHash"]) {
    for (const fx of loadFixtures(method)) {
      it(`${fx.name} byte-for-byte`, () => {
        for (const ex of fx.exchanges) {
          const expected = ex.response.result as Record<string, string> | null;
          if (expected === null || expected === undefined) continue;
          const full = ex.request.params[1] === true;
          let entry = findByHash(chain, expected.hash!);
          if (entry === undefined && expected.number === "0x0") {
            entry = genesisFrom(chain, expected);
            expect(entry.hashHex).toBe(expected.hash);
          }
          expect(entry, `block ${expected.hash} in chain.rlp`).toBeDefined();
          const formatted = formatBlock(entry!.block, { fullTransactions: full, senders: entry!.senders });
          expect(formatted).toEqual(expected);
          expect(wire(ex, formatted)).toBe(ex.responseText);
          compared.add(`${expected.number}${full ? "+txs" : ""}`);
        }
      });
    }
  }

  it("covered every fork's block shape", () => {
    // genesis, frontier/homestead (full txs), London (uncle), Paris, Shanghai, Cancun, Prague (full txs)
    for (const k of ["0x0+txs", "0x1+txs", "0x1b", "0x24", "0x27", "0x2a", "0x2d", "0x2d+txs"]) expect(compared).toContain(k);
  });

  it("formatHeader is the block without size/transactions/uncles/withdrawals", () => {
    const b = chain[44]!;
    const block = formatBlock(b.block, { fullTransactions: false, senders: b.senders }) as unknown as Record<string, unknown>;
    const header = formatHeader(b.block.header) as unknown as Record<string, unknown>;
    const { size, transactions, uncles, withdrawals, ...rest } = block;
    void size;
    void transactions;
    void uncles;
    void withdrawals;
    expect(JSON.stringify(header)).toBe(JSON.stringify(rest));
  });

  it("adds totalDifficulty only when asked", () => {
    const b = chain[0]!;
    expect("totalDifficulty" in formatBlock(b.block, { fullTransactions: false, senders: b.senders })).toBe(false);
    const withTd = formatBlock(b.block, { fullTransactions: false, senders: b.senders, totalDifficulty: 0x40000n });
    expect(withTd.totalDifficulty).toBe("0x40000");
    expect(Object.keys(withTd)).toEqual([...Object.keys(withTd)].sort());
  });

  it("requires a sender per transaction for full blocks", () => {
    const b = chain[0]!;
    expect(() => formatBlock(b.block, { fullTransactions: true, senders: [] })).toThrow(/sender/);
    // hashes only: senders unused
    expect(formatBlock(b.block, { fullTransactions: false, senders: [] }).transactions).toHaveLength(4);
  });
});
