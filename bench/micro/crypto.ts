/**
 * Micro-benchmarks of the crypto hot paths, native bindings against the pure-JS fallback
 * (src/chain/crypto.ts): keccak256 of 32 B (a trie node key / storage slot), 1 KiB and
 * 100 KiB, and decoding + sender recovery of the benchmark block's transactions.
 *
 * The JS variant of recovery runs in this process: the crypto basalt plugs into @ethereumjs is
 * the Common's `customCrypto` (`customCrypto()`, native keccak256/ecrecover plus KZG), and with
 * `BASALT_NATIVE_CRYPTO=0` it is the KZG alone so @ethereumjs uses its own @noble
 * implementations. The JS variant decodes with a copy of the chain whose Commons carry exactly
 * that KZG-only crypto; nothing else differs from the native run.
 */
import type { Block } from "@ethereumjs/block";
import type { Common, CustomCrypto } from "@ethereumjs/common";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Chain } from "../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../src/chain/blockCodec.js";
import { isDeposit } from "../../src/chain/op/depositTx.js";
import { loadNative } from "../../src/chain/crypto.js";
import { bytesEqual, to0x } from "../../src/util/bytes.js";
import type { MicroFixture } from "./fixture.js";
import { expectThat, type MicroCase } from "./harness.js";

/** keccak256 input sizes: a 32-byte word (slot/key hashing), 1 KiB (a big trie node/calldata), 100 KiB (contract code, a block body). */
const KECCAK_SIZES: readonly { label: string; bytes: number }[] = [
  { label: "32B", bytes: 32 },
  { label: "1KiB", bytes: 1024 },
  { label: "100KiB", bytes: 100 * 1024 },
];

/** A deterministic, non-trivial input of `n` bytes. */
function input(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 131 + 7) & 255;
  return out;
}

/** MB/s (10^6 bytes) of hashing `bytes` in `meanMs`. */
function mbPerSecond(bytes: number): (meanMs: number) => { value: number; unit: string } {
  return (meanMs) => ({ value: meanMs > 0 ? bytes / 1e3 / meanMs : 0, unit: "MB/s" });
}

/** A view of `chain` whose Commons use the pure-JS keccak256 and ecrecover of @ethereumjs (the `BASALT_NATIVE_CRYPTO=0` crypto). */
export function jsCryptoChain(chain: Chain): Chain {
  const jsCrypto: CustomCrypto = { kzg: chain.common.customCrypto.kzg };
  const view = Object.create(chain) as Chain;
  Object.defineProperty(view, "commonAt", {
    value: (number: bigint, timestamp: bigint): Common => {
      // An own enumerable property, as the constructor sets it, so `Common.copy()` (every transaction's) keeps it.
      const c = chain.commonAt(number, timestamp) as Common & { customCrypto: CustomCrypto };
      c.customCrypto = jsCrypto;
      return c;
    },
  });
  return view;
}

/** Decodes the block and recovers every transaction's sender (what import and the sync paths do per block). */
function decodeAndRecover(chain: Chain, rlp: Uint8Array): { block: Block; senders: Uint8Array[] } {
  const block = decodeBlockFromRlp(chain, rlp);
  return { block, senders: block.transactions.map((tx) => tx.getSenderAddress().bytes) };
}

/** Names of the recovery cases (the keccak ones need no benchmark chain). */
export const RECOVERY_CASE_NAMES = { native: "tx.decodeRecover.native", js: "tx.decodeRecover.js" } as const;

/** The keccak and recovery cases; the native ones only where the native bindings load. */
export function cryptoCases(fx: MicroFixture | undefined): MicroCase[] {
  const native = loadNative();
  const cases: MicroCase[] = [];
  for (const { label, bytes } of KECCAK_SIZES) {
    const data = input(bytes);
    const reference = keccak_256(data);
    const other = native?.keccak256(data);
    const variants: [string, (m: Uint8Array) => Uint8Array][] = [["js", keccak_256]];
    if (native !== undefined) variants.unshift(["native", native.keccak256]);
    for (const [impl, hash] of variants) {
      const name = `keccak256.${label}.${impl}`;
      const c: MicroCase<Uint8Array> = {
        name,
        derived: mbPerSecond(bytes),
        run: () => hash(data),
        check(out) {
          // Each implementation against @noble/hashes and, when it loads, the native binding.
          expectThat(bytesEqual(out, reference), name, () => `digest ${to0x(out)}, @noble/hashes gives ${to0x(reference)}`);
          if (other !== undefined) expectThat(bytesEqual(out, other), name, () => `digest ${to0x(out)}, the native binding gives ${to0x(other)}`);
        },
      };
      cases.push(c);
    }
  }
  if (fx === undefined) return cases;

  const perTx = { count: fx.txCount, unit: "tx" };
  const recovery = (impl: "native" | "js", chain: Chain): MicroCase<{ block: Block; senders: Uint8Array[] }> => {
    const name = RECOVERY_CASE_NAMES[impl];
    return {
      name,
      perItem: perTx,
      run: () => decodeAndRecover(chain, fx.rlp),
      check(out) {
        const signed = out.block.transactions.find((tx) => !isDeposit(tx));
        const ecrecover = signed?.common.customCrypto.ecrecover;
        const used = ecrecover === undefined ? "JS" : "native";
        expectThat((impl === "native") === (ecrecover !== undefined), name, () => `decoded with ${used} recovery`);
        expectThat(out.senders.length === fx.senders.length, name, () => `${out.senders.length} senders, ${fx.senders.length} stored`);
        out.senders.forEach((s, i) => {
          const want = fx.senders[i]!;
          expectThat(bytesEqual(s, want), name, () => `transaction ${i}: sender ${to0x(s)}, stored ${to0x(want)}`);
        });
      },
    };
  };
  if (native !== undefined) cases.push(recovery("native", fx.chain) as MicroCase);
  cases.push(recovery("js", jsCryptoChain(fx.chain)) as MicroCase);
  return cases;
}
