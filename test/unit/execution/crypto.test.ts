import { ecrecover } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadNative } from "../../../src/chain/crypto.js";

const native = loadNative();

describe("native crypto bindings agree with the pure-JS fallback", () => {
  it("load on this machine (linux-x64 prebuilds)", () => {
    expect(native).toBeDefined();
  });

  it("keccak256 matches @noble/hashes for 0..300-byte and 4 KiB inputs", () => {
    for (const len of [0, 1, 31, 32, 33, 135, 136, 137, 300, 4096]) {
      const m = randomBytes(len);
      const sub = new Uint8Array(m.buffer, m.byteOffset, m.byteLength);
      expect(Buffer.from(native!.keccak256(sub)).toString("hex"), `length ${len}`).toBe(Buffer.from(keccak_256(sub)).toString("hex"));
    }
  });

  it("ecrecover matches @ethereumjs/util for legacy, EIP-155 and typed v values", () => {
    for (let i = 0; i < 20; i++) {
      const priv = secp256k1.utils.randomSecretKey();
      const hash = keccak_256(randomBytes(40));
      const sig = secp256k1.sign(hash, priv, { prehash: false, format: "recovered" });
      const rec = BigInt(sig[0]);
      const r = sig.subarray(1, 33);
      const s = sig.subarray(33, 65);
      const cases: [bigint, bigint | undefined][] = [
        [rec, undefined],
        [rec + 27n, undefined],
        [rec + 1337n * 2n + 35n, 1337n],
      ];
      for (const [v, chainId] of cases) {
        const expected = ecrecover(hash, v, r, s, chainId);
        expect(Buffer.from(native!.ecrecover(hash, v, r, s, chainId)).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
      }
    }
  });

  it("rejects an invalid recovery id like the fallback", () => {
    const hash = keccak_256(new Uint8Array([1]));
    expect(() => native!.ecrecover(hash, 5n, new Uint8Array(32).fill(1), new Uint8Array(32).fill(1))).toThrow();
  });
});
