/**
 * basalt's native addon (native/): its public-key recovery (the machine's libsecp256k1, linked
 * when the addon was built; runs where it is, and where BASALT_REQUIRE_NATIVE names it, as in
 * CI's second pass after installing Debian's libsecp256k1-dev) equals
 * @noble/curves on random keys and messages (both recovery ids, high and low s), and refuses
 * what @noble refuses: r or s zero or not below the group order, recovery ids outside 0–3,
 * signatures no key produces. Arguments of the wrong type or length throw a TypeError.
 */
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadNative } from "../../../src/chain/crypto.js";
import { nativeAddon } from "../../../src/util/nativeAddon.js";
import { testsNative } from "../../helpers/native.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const N = secp256k1.Point.CURVE().n;

function be32(x: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(x.toString(16).padStart(64, "0"), "hex"));
}

/** @noble's recovery as the reference: the 64-byte key, or undefined when it refuses. */
function nobleRecover(sig64: Uint8Array, recid: number, msg: Uint8Array): Uint8Array | undefined {
  try {
    const sig = secp256k1.Signature.fromBytes(sig64, "compact").addRecoveryBit(recid);
    return sig.recoverPublicKey(msg).toBytes(false).subarray(1);
  } catch {
    return undefined;
  }
}

const addon = nativeAddon();
/** Without libsecp256k1 at build time the addon has no recovery and basalt uses the secp256k1 package. */
const hasRecovery = addon?.secp256k1Recover !== undefined;

describe.runIf(testsNative("secp256k1Recover"))("native secp256k1Recover", () => {
  it("is built on this machine", () => {
    expect(addon).toBeDefined();
    expect(addon!.secp256k1Recover).toBeTypeOf("function");
  });

  it("recovers the signer's key like @noble/curves, low and high s", () => {
    for (let i = 0; i < 50; i++) {
      const priv = secp256k1.utils.randomSecretKey();
      const msg = new Uint8Array(randomBytes(32));
      const rec = secp256k1.sign(msg, priv, { prehash: false, format: "recovered" });
      const recid = rec[0]!;
      const sig = rec.slice(1);
      const expected = hex(secp256k1.getPublicKey(priv, false).subarray(1));
      expect(hex(addon!.secp256k1Recover!(sig, recid, msg)!)).toBe(expected);
      // The high-s twin (s' = n - s, flipped recovery id) recovers the same key: recovery does not normalize.
      const s = BigInt("0x" + hex(sig.subarray(32)));
      const high = new Uint8Array(64);
      high.set(sig.subarray(0, 32));
      high.set(be32(N - s), 32);
      expect(hex(addon!.secp256k1Recover!(high, recid ^ 1, msg)!)).toBe(expected);
    }
  });

  it("agrees with @noble/curves on arbitrary (r, s, recid, msg), refusals included", () => {
    const scalar = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      fc.constantFrom(0n, 1n, N - 1n, N, N + 1n, 2n ** 256n - 1n),
    );
    fc.assert(
      fc.property(scalar, scalar, fc.integer({ min: -1, max: 5 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (r, s, recid, msg) => {
        const sig = new Uint8Array(64);
        sig.set(be32(r));
        sig.set(be32(s), 32);
        const got = addon!.secp256k1Recover!(sig, recid, msg);
        const want = recid >= 0 && recid <= 3 ? nobleRecover(sig, recid, msg) : undefined;
        expect(got === undefined ? undefined : hex(got)).toBe(want === undefined ? undefined : hex(want));
      }),
      { numRuns: 300 },
    );
  });

  it("throws a TypeError on arguments of the wrong type or length", () => {
    const msg = new Uint8Array(32);
    expect(() => addon!.secp256k1Recover!(new Uint8Array(63), 0, msg)).toThrow(TypeError);
    expect(() => addon!.secp256k1Recover!(new Uint8Array(64), 0, new Uint8Array(31))).toThrow(TypeError);
    expect(() => addon!.secp256k1Recover!("x" as unknown as Uint8Array, 0, msg)).toThrow(TypeError);
  });
});

describe.runIf(!hasRecovery)("without libsecp256k1 in the addon", () => {
  it("recovers senders through the secp256k1 package's binding, as @noble does", () => {
    const native = loadNative();
    expect(native).toBeDefined();
    const key = secp256k1.utils.randomSecretKey();
    const msg = randomBytes(32);
    const sig = secp256k1.sign(msg, key, { prehash: false, format: "recovered" });
    const recid = sig[0]!;
    const rs = sig.subarray(1);
    const expected = hex(secp256k1.getPublicKey(key, false).subarray(1));
    expect(hex(native!.ecrecover(msg, BigInt(recid), rs.subarray(0, 32), rs.subarray(32)))).toBe(expected);
  });
});
