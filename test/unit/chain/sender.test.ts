/**
 * Senders from envelope bytes (chain/sender.ts): on random EIP-2930 and EIP-1559 transactions
 * (short and long field lists, data up to 300 bytes, access lists, small r/s with leading zero
 * bytes stripped), the signing hash equals @ethereumjs's `getMessageToVerifySignature`, and the
 * recovered key and sender equal `getSenderPublicKey` / `getSenderAddress`. Signatures the fast
 * path refuses (high s, bad yParity, no key) go to @ethereumjs, which gives its own answer.
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes, bytesToHex, concatBytes, hexToBytes } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastSenderKey, senderKeyOf, senderOf, typedSignature } from "../../../src/chain/sender.js";
import { hasNative } from "../../helpers/native.js";

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
/** The fast path recovers with the addon's libsecp256k1; without it (no libsecp256k1-dev at build, or BASALT_NATIVE_CRYPTO=0) it steps aside. */
const native = hasNative("secp256k1Recover");
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const hexOf = (b: Uint8Array): `0x${string}` => bytesToHex(b);
const keyArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((k) => {
  const x = BigInt(hexOf(k));
  return x > 0n && x < N;
});
const addrArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map(hexOf);
const accessListArb = fc.array(
  fc.record({ address: addrArb, storageKeys: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hexOf), { maxLength: 3 }) }),
  { maxLength: 3 },
);
const big = (max: bigint): fc.Arbitrary<bigint> => fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 127n }), fc.bigInt({ min: 0n, max }));
const txArb = fc.record({
  type: fc.constantFrom(1, 2),
  key: keyArb,
  nonce: big(2n ** 64n - 2n), // @ethereumjs refuses 2^64 - 1 (EIP-2681)
  fee: big(2n ** 128n),
  tip: big(2n ** 64n),
  gasLimit: fc.bigInt({ min: 21_000n, max: 2n ** 63n }),
  to: fc.option(addrArb, { nil: undefined }),
  value: big(2n ** 256n - 1n),
  data: fc.uint8Array({ maxLength: 300 }).map(hexOf),
  accessList: accessListArb,
});

type TxSpec = typeof txArb extends fc.Arbitrary<infer T> ? T : never;

function build(t: TxSpec): TypedTransaction {
  const signed =
    t.type === 1
      ? createAccessList2930Tx({ nonce: t.nonce, gasPrice: t.fee, gasLimit: t.gasLimit, to: t.to, value: t.value, data: t.data, accessList: t.accessList }, { common }).sign(t.key)
      : createFeeMarket1559Tx(
          { nonce: t.nonce, maxFeePerGas: t.fee + t.tip, maxPriorityFeePerGas: t.tip, gasLimit: t.gasLimit, to: t.to, value: t.value, data: t.data, accessList: t.accessList },
          { common },
        ).sign(t.key);
  // As import sees it: decoded from its envelope (frozen, nothing cached).
  return createTxFromRLP(signed.serialize(), { common });
}

describe("senders from envelope bytes", () => {
  it("signing hash, key and sender equal @ethereumjs's on random type-1/2 transactions", () => {
    fc.assert(
      fc.property(txArb, (t) => {
        const tx = build(t);
        const reference = createTxFromRLP(tx.serialize(), { common });
        const parts = typedSignature(tx.serialize());
        expect(parts).toBeDefined();
        expect(hexOf(parts!.hash)).toBe(hexOf(reference.getMessageToVerifySignature()));
        expect(parts!.recid).toBe(Number(reference.v));
        // Without the addon's recovery the fast path steps aside and @ethereumjs recovers: the key and sender are the same either way.
        const key = fastSenderKey(tx.serialize());
        if (native) expect(hexOf(key!)).toBe(hexOf(reference.getSenderPublicKey()));
        else expect(key).toBeUndefined();
        expect(hexOf(senderKeyOf(tx))).toBe(hexOf(reference.getSenderPublicKey()));
        expect(senderOf(tx).toString()).toBe(reference.getSenderAddress().toString());
      }),
      { numRuns: 200 },
    );
  });

  it("handles the long list header (> 55 bytes of fields) and short ones", () => {
    const key = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    for (const data of ["0x", "0x01", `0x${"ab".repeat(20)}`, `0x${"cd".repeat(60)}`, `0x${"ef".repeat(70_000)}`] as const) {
      const tx = createTxFromRLP(createFeeMarket1559Tx({ maxFeePerGas: 1n, gasLimit: 21_000n, to: `0x${"11".repeat(20)}`, data }, { common }).sign(key).serialize(), { common });
      expect(hexOf(typedSignature(tx.serialize())!.hash)).toBe(hexOf(tx.getMessageToVerifySignature()));
      expect(senderOf(tx).toString()).toBe(tx.getSenderAddress().toString());
    }
  });

  it("leaves refused signatures to @ethereumjs: high s, bad yParity, r = 0; other types", () => {
    const key = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const good = createFeeMarket1559Tx({ maxFeePerGas: 1n, gasLimit: 21_000n }, { common }).sign(key);
    // @ethereumjs refuses a high s at construction already; the envelope bytes are made by hand.
    const fields = RLP.decode(good.serialize().subarray(1)) as Uint8Array[];
    const highS = concatBytes(new Uint8Array([2]), RLP.encode([...fields.slice(0, 9), bigIntToUnpaddedBytes(good.v! ^ 1n), fields[10]!, bigIntToUnpaddedBytes(N - good.s!)]));
    expect(typedSignature(highS)).toBeUndefined();
    expect(fastSenderKey(highS)).toBeUndefined();
    const zeroR = createFeeMarket1559Tx({ maxFeePerGas: 1n, gasLimit: 21_000n, v: 0n, r: 0n, s: 1n }, { common });
    expect(fastSenderKey(zeroR.serialize())).toBeUndefined();
    expect(() => senderKeyOf(zeroR)).toThrow(/Invalid Signature/);
    // yParity 2 is refused by @ethereumjs's constructor; a hand-made envelope with it is refused here.
    const bytes = good.serialize();
    const bad = Uint8Array.from(bytes);
    const vAt = bytes.length - 1 - 32 - 1 - 32 - 1;
    expect(bad[vAt]).toBe(good.v === 0n ? 0x80 : 0x01);
    bad[vAt] = 0x02;
    expect(typedSignature(bad)).toBeUndefined();
    const legacy = createLegacyTx({ gasPrice: 1n, gasLimit: 21_000n }, { common }).sign(key);
    expect(typedSignature(legacy.serialize())).toBeUndefined();
    expect(senderOf(legacy).toString()).toBe(legacy.getSenderAddress().toString());
  });
});
