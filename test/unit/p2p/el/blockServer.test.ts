/**
 * GetBlockHeaders / GetBlockBodies / GetReceipts answers of the block server on a real devnet
 * chain store: by number and by hash, skip and reverse, the 1024-header cap on an absurd amount
 * (u64 max), walks that stop at the head or below genesis, unknown origins and hashes; receipts
 * in eth/68 and eth/69 form, the eth/69 ones checked the way a receiving peer checks them (blooms
 * recomputed, receipts root and logs bloom of the header); the served range.
 */
import { RLP } from "@ethereumjs/rlp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ETH_MAX_HEADERS_SERVE } from "../../../../src/p2p/constants.js";
import { BlockServer } from "../../../../src/p2p/el/blockServer.js";
import { decodeReceipt69, verifyReceipts } from "../../../../src/p2p/el/receipts.js";
import { keccak256 } from "../../../../src/util/keccak.js";
import { openDevChain, type DevChain } from "../../../helpers/devChain.js";

const U64_MAX = 2n ** 64n - 1n;
const numberOf = (rlp: Uint8Array): bigint => {
  const n = (RLP.decode(rlp) as Uint8Array[])[8]!;
  return n.length === 0 ? 0n : BigInt("0x" + Buffer.from(n).toString("hex"));
};

describe("block server", () => {
  let dev: DevChain;
  let server: BlockServer;
  const HEAD = 6n;

  beforeAll(async () => {
    dev = await openDevChain("basalt-blockserver-");
    for (let i = 0n; i < HEAD; i++) await dev.traffic.block();
    server = new BlockServer(dev.chain.store);
  }, 60_000);
  afterAll(async () => dev?.close());

  const hashAt = (n: bigint): Uint8Array => dev.chain.store.getCanonicalHash(n)!;

  it("reads the head", () => {
    expect(server.head().number).toBe(HEAD);
    expect(Buffer.from(server.head().hash).equals(Buffer.from(hashAt(HEAD)))).toBe(true);
  });

  it("walks by number forward with skip and stops at the head", () => {
    expect(server.headers({ origin: 1n, amount: 3n, skip: 1n, reverse: false }).map(numberOf)).toEqual([1n, 3n, 5n]);
    expect(server.headers({ origin: 4n, amount: 10n, skip: 0n, reverse: false }).map(numberOf)).toEqual([4n, 5n, 6n]);
  });

  it("walks by hash in reverse and stops below genesis", () => {
    const out = server.headers({ origin: hashAt(5n), amount: 10n, skip: 1n, reverse: true });
    expect(out.map(numberOf)).toEqual([5n, 3n, 1n]);
    expect(Buffer.from(keccak256(out[0]!)).equals(Buffer.from(hashAt(5n)))).toBe(true);
  });

  it("caps an absurd amount at the serve limit and survives a u64 skip", () => {
    const all = server.headers({ origin: 0n, amount: U64_MAX, skip: 0n, reverse: false });
    expect(all.length).toBe(Number(HEAD) + 1);
    expect(all.length).toBeLessThanOrEqual(ETH_MAX_HEADERS_SERVE);
    expect(server.headers({ origin: 2n, amount: 5n, skip: U64_MAX, reverse: false }).map(numberOf)).toEqual([2n]);
    expect(server.headers({ origin: 2n, amount: 5n, skip: U64_MAX, reverse: true }).map(numberOf)).toEqual([2n]);
    expect(server.headers({ origin: 0n, amount: 0n, skip: 0n, reverse: false })).toEqual([]);
  });

  it("answers nothing for unknown origins and skips unknown hashes", () => {
    expect(server.headers({ origin: new Uint8Array(32), amount: 5n, skip: 0n, reverse: false })).toEqual([]);
    expect(server.headers({ origin: 100n, amount: 5n, skip: 0n, reverse: false })).toEqual([]);
    const bodies = server.bodies([hashAt(1n), new Uint8Array(32), hashAt(2n)]);
    expect(bodies).toHaveLength(2);
    const receipts = server.receipts([new Uint8Array(32), hashAt(3n)], 68);
    expect(receipts).toHaveLength(1);
    // Each block's receipt list holds as many receipts as its body holds transactions.
    const body = RLP.decode(server.bodies([hashAt(3n)])[0]!) as unknown[][];
    expect((RLP.decode(receipts[0]!) as unknown[]).length).toBe(body[0]!.length);
  });

  it("serves eth/69 receipts that a peer verifies against the header (root and bloom), deposits included", () => {
    for (let n = 1n; n <= HEAD; n++) {
      const header = RLP.decode(server.headers({ origin: n, amount: 1n, skip: 0n, reverse: false })[0]!) as Uint8Array[];
      const [item68] = server.receipts([hashAt(n)], 68);
      const [item69] = server.receipts([hashAt(n)], 69);
      expect(item69!.length).toBeLessThan(item68!.length);
      const list = RLP.decode(item69!) as unknown[];
      const receipts = list.map(decodeReceipt69);
      // Every devnet block opens with its L1-info deposit, whose receipt carries nonce and version (Canyon+).
      expect(receipts[0]).toMatchObject({ type: 0x7e, depositReceiptVersion: 1 });
      expect(typeof receipts[0]!.depositNonce).toBe("bigint");
      expect(() => verifyReceipts(receipts, { receiptsRoot: header[5]!, logsBloom: header[6]!, stripDepositNonce: false })).not.toThrow();
      // The same receipts against Regolith's root rule (nonce left out) do not match.
      expect(() => verifyReceipts(receipts, { receiptsRoot: header[5]!, logsBloom: header[6]!, stripDepositNonce: true })).toThrow(/root/);
    }
  });

  it("says which blocks it serves: genesis to head", () => {
    const r = server.range();
    expect(r.earliest).toBe(0n);
    expect(r.latest).toBe(HEAD);
    expect(Buffer.from(r.latestHash).equals(Buffer.from(hashAt(HEAD)))).toBe(true);
  });
});
