/**
 * Micro-benchmarks of the fast core's precompiles (src/execution/evm/precompiles/) on typical
 * inputs, each next to the reference engine's implementation of the same call (@ethereumjs/evm's
 * precompile function, awaited). Every case is checked once against the reference result
 * before it is timed, so a fast but wrong precompile fails instead of reporting a number.
 *
 * Names: `precompile.<name>.fast` and `precompile.<name>.reference`. Not part of the default
 * `bench micro` run (the reference BLS MSMs alone take seconds); run it on its own after a build:
 * `node dist/bench/micro/precompiles.js [--filter bn254] [--time <ms per case, default 1000>] [--cpu]`
 * (`--cpu`: CPU time per call instead of wall-clock latency, for a machine shared with other work).
 */
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, getActivePrecompiles, type EVM, type PrecompileFunc } from "@ethereumjs/evm";
import { ecrecover as jsEcrecover } from "@ethereumjs/util";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { bn254 } from "@noble/curves/bn254.js";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { KZG } from "micro-eth-signer/kzg.js";
import { pathToFileURL } from "node:url";
import { customCrypto } from "../../src/chain/crypto.js";
import { createEcrecover } from "../../src/execution/evm/precompiles/ecrecover.js";
import { precompilesFor } from "../../src/execution/evm/precompiles/index.js";
import type { Precompile, PrecompileResult } from "../../src/execution/evm/precompiles/types.js";
import { bytesEqual, to0x } from "../../src/util/bytes.js";
import { expectThat, runCase, type MicroCase } from "./harness.js";

/** The gas every benchmarked call gets: above each price below. */
const GAS = 30_000_000;

/** `v` as `n` big-endian bytes. */
function be(v: bigint, n = 32): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(2 * n, "0"), "hex"));
}

/** Concatenation. */
function cat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

/** Deterministic pseudo-random bytes. */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A benchmarked call: a label, the precompile address and its input (built when the case runs). */
interface Workload {
  name: string;
  address: number;
  input(): Uint8Array;
  /** The fast precompile to time instead of the fork's own (the pure-JS ECRECOVER). */
  fast?(): Precompile;
}

/** An ECRECOVER input of a real signature. */
function ecrecoverInput(): Uint8Array {
  const hash = keccak_256(new TextEncoder().encode("basalt"));
  const sk = keccak_256(new TextEncoder().encode("key"));
  const sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, sk, { prehash: false, format: "recovered" }), "recovered");
  return cat(hash, be(27n + BigInt(sig.recovery!)), be(sig.r), be(sig.s));
}

/** A MODEXP input with `n`-byte base, exponent and (odd, full-length) modulus. */
function modexpInput(n: number, seed: number): Uint8Array {
  const m = bytes(n, seed + 2);
  m[n - 1]! |= 1;
  m[0]! |= 0x80;
  return cat(be(BigInt(n)), be(BigInt(n)), be(BigInt(n)), bytes(n, seed), bytes(n, seed + 1), m);
}

/** BN254 points k·G as EIP-196/197 encodings. */
function bnG1(k: bigint): Uint8Array {
  const { x, y } = bn254.G1.Point.BASE.multiply(k).toAffine();
  return cat(be(x), be(y));
}
function bnG2(k: bigint): Uint8Array {
  const { x, y } = bn254.G2.Point.BASE.multiply(k).toAffine();
  return cat(be(x.c1), be(x.c0), be(y.c1), be(y.c0));
}

/** A BLAKE2F input of 12 rounds (one BLAKE2b block). */
function blake2fInput(): Uint8Array {
  const input = new Uint8Array(213);
  new DataView(input.buffer).setUint32(0, 12);
  input.set(bytes(208, 9), 4);
  input[212] = 1;
  return input;
}

/** A valid point-evaluation input (a blob of i² + 7 opened at 0x1234) from the node's KZG. */
function kzgInput(): Uint8Array {
  const kzg = customCrypto().kzg as unknown as KZG;
  const blob = Array.from({ length: 4096 }, (_, i) => BigInt(i * i + 7));
  const unhex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), "hex"));
  const commitment = unhex(kzg.blobToKzgCommitment(blob));
  const [proof, y] = kzg.computeProof(blob, 0x1234n);
  const versioned = sha256(commitment);
  versioned[0] = 1;
  return cat(versioned, be(0x1234n), unhex(y), commitment, unhex(proof));
}

/** BLS12-381 encodings (EIP-2537). */
const fp = (v: bigint): Uint8Array => be(v, 64);
function blsG1(k: bigint): Uint8Array {
  const { x, y } = bls12_381.G1.Point.BASE.multiply(k).toAffine();
  return cat(fp(x), fp(y));
}
function blsG2(k: bigint): Uint8Array {
  const { x, y } = bls12_381.G2.Point.BASE.multiply(k).toAffine();
  return cat(fp(x.c0), fp(x.c1), fp(y.c0), fp(y.c1));
}
const scalar = (i: number): Uint8Array => bytes(32, 100 + i);
const g1msm = (n: number): Uint8Array => cat(...Array.from({ length: n }, (_, i) => cat(blsG1(BigInt(3 + i)), scalar(i))));
const g2msm = (n: number): Uint8Array => cat(...Array.from({ length: n }, (_, i) => cat(blsG2(BigInt(3 + i)), scalar(i))));

/** A valid P256VERIFY input. */
function p256Input(): Uint8Array {
  const sk = sha256(new TextEncoder().encode("p256"));
  const hash = sha256(new TextEncoder().encode("message"));
  return cat(hash, p256.sign(hash, sk, { prehash: false }), p256.getPublicKey(sk, false).subarray(1));
}

/** The benchmarked calls. */
const WORKLOADS: readonly Workload[] = [
  { name: "ecrecover.native", address: 0x01, input: ecrecoverInput },
  { name: "ecrecover.js", address: 0x01, input: ecrecoverInput, fast: () => createEcrecover(3000, (h, v, r, s) => jsEcrecover(h, v, r, s), keccak_256) },
  { name: "sha256.32B", address: 0x02, input: () => bytes(32, 1) },
  { name: "sha256.1KiB", address: 0x02, input: () => bytes(1024, 1) },
  { name: "ripemd160.32B", address: 0x03, input: () => bytes(32, 1) },
  { name: "identity.32B", address: 0x04, input: () => bytes(32, 1) },
  { name: "identity.1KiB", address: 0x04, input: () => bytes(1024, 1) },
  { name: "modexp.32B", address: 0x05, input: () => modexpInput(32, 1) },
  { name: "modexp.128B", address: 0x05, input: () => modexpInput(128, 2) },
  { name: "modexp.256B", address: 0x05, input: () => modexpInput(256, 3) },
  { name: "bn254.add", address: 0x06, input: () => cat(bnG1(5n), bnG1(7n)) },
  { name: "bn254.mul", address: 0x07, input: () => cat(bnG1(5n), scalar(1)) },
  {
    name: "bn254.pairing2",
    address: 0x08,
    input: () => {
      const neg = bn254.G1.Point.BASE.multiply(5n).negate().toAffine();
      return cat(bnG1(5n), bnG2(3n), be(neg.x), be(neg.y), bnG2(3n));
    },
  },
  { name: "blake2f.12rounds", address: 0x09, input: blake2fInput },
  { name: "kzg.pointEvaluation", address: 0x0a, input: kzgInput },
  { name: "bls.g1add", address: 0x0b, input: () => cat(blsG1(3n), blsG1(11n)) },
  { name: "bls.g1msm1", address: 0x0c, input: () => g1msm(1) },
  { name: "bls.g1msm8", address: 0x0c, input: () => g1msm(8) },
  { name: "bls.g1msm32", address: 0x0c, input: () => g1msm(32) },
  { name: "bls.g2add", address: 0x0d, input: () => cat(blsG2(3n), blsG2(11n)) },
  { name: "bls.g2msm1", address: 0x0e, input: () => g2msm(1) },
  { name: "bls.g2msm8", address: 0x0e, input: () => g2msm(8) },
  {
    name: "bls.pairing2",
    address: 0x0f,
    input: () => {
      const neg = bls12_381.G1.Point.BASE.multiply(3n).negate().toAffine();
      return cat(blsG1(3n), blsG2(5n), fp(neg.x), fp(neg.y), blsG2(5n));
    },
  },
  { name: "bls.mapFpToG1", address: 0x10, input: () => fp(0x123456789n) },
  { name: "bls.mapFp2ToG2", address: 0x11, input: () => cat(fp(0x123456789n), fp(0x987654321n)) },
  { name: "p256verify", address: 0x100, input: p256Input },
];

/** The reference precompiles of an Osaka (or `hardfork`) Mainnet Common with basalt's crypto, as basalt's EVM runs them. */
async function reference(hardfork: Hardfork, jsCrypto: boolean): Promise<{ evm: EVM; map: Map<string, PrecompileFunc | undefined> }> {
  const crypto = jsCrypto ? { kzg: customCrypto().kzg } : customCrypto();
  const common = new Common({ chain: Mainnet, hardfork, customCrypto: crypto });
  const evm = await createEVM({ common });
  return { evm, map: getActivePrecompiles(common) };
}

/** A precompile result in a comparable form. */
function same(a: PrecompileResult, b: PrecompileResult): boolean {
  return a.ok === b.ok && a.gasUsed === b.gasUsed && bytesEqual(a.output, b.output);
}

/** The fast and reference cases of every workload (all at Osaka's rules). */
export function precompileCases(): MicroCase[] {
  const cases: MicroCase[] = [];
  for (const w of WORKLOADS) {
    const fastName = `precompile.${w.name}.fast`;
    const refName = `precompile.${w.name}.reference`;
    let input: Uint8Array = new Uint8Array(0);
    let fast: Precompile | undefined;
    let runRef: (() => Promise<PrecompileResult>) | undefined;
    let want: PrecompileResult | undefined;
    const prepare = async (): Promise<void> => {
      if (want !== undefined) return;
      input = w.input();
      fast = w.fast?.() ?? precompilesFor(new Common({ chain: Mainnet, hardfork: Hardfork.Osaka, customCrypto: customCrypto() })).get(w.address);
      const ref = await reference(Hardfork.Osaka, w.fast !== undefined);
      const fn = ref.map.get(w.address.toString(16).padStart(40, "0"));
      expectThat(fast !== undefined && fn !== undefined, fastName, () => `no precompile at 0x${w.address.toString(16)}`);
      runRef = async () => {
        const r = await fn({ data: input, gasLimit: BigInt(GAS), common: ref.evm.common, _EVM: ref.evm });
        return { ok: r.exceptionError === undefined, gasUsed: Number(r.executionGasUsed), output: r.returnValue };
      };
      want = await runRef();
      expectThat(want.ok, fastName, () => "the reference rejects the benchmark input");
    };
    const check = (label: string) => (out: unknown): void => {
      const got = out as PrecompileResult;
      const ref = want!;
      expectThat(same(got, ref), label, () => `got ${got.ok}/${got.gasUsed}/${to0x(got.output)}, reference ${ref.ok}/${ref.gasUsed}/${to0x(ref.output)}`);
    };
    cases.push({ name: fastName, prepare, run: () => fast!(input, GAS), check: check(fastName) });
    cases.push({ name: refName, prepare, run: () => runRef!(), check: check(refName) });
  }
  return cases;
}

/** Default timed budget per case (ms). */
const DEFAULT_TIME_MS = 1000;

/**
 * CPU time (user + system) per call of `c`, in µs, over at least `budgetMs` of CPU time: robust
 * to a machine shared with other work, where wall-clock latency includes time spent descheduled.
 */
async function cpuMicrosPerCall(c: MicroCase, budgetMs: number): Promise<number> {
  await c.prepare?.();
  const isAsync = c.run() instanceof Promise;
  for (let i = 0; i < 3; i++) await c.run();
  // Sync calls in batches (no await, and the clock read amortised over the batch).
  const batch = isAsync ? 1 : 100;
  let calls = 0;
  const start = process.cpuUsage();
  let used = 0;
  while (used < budgetMs * 1000 || calls < 10) {
    if (isAsync) await c.run();
    else for (let i = 0; i < batch; i++) c.run();
    calls += batch;
    const d = process.cpuUsage(start);
    used = d.user + d.system;
  }
  return used / calls;
}

/**
 * Runs the cases whose name contains `--filter` (default all) for `--time` ms each and prints
 * mean / p50 / p99 latency in µs (tinybench), or with `--cpu` the CPU time per call; exits 1
 * when a case fails its check.
 */
async function main(argv: readonly string[]): Promise<void> {
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const filter = arg("filter") ?? "";
  const timeMs = Number(arg("time") ?? DEFAULT_TIME_MS);
  const fmt = (us: number): string => us.toFixed(us < 10 ? 2 : us < 1000 ? 1 : 0).padStart(10);
  let failed = false;
  for (const c of precompileCases().filter((x) => x.name.includes(filter))) {
    const r = await runCase(c, { timeMs });
    if (!r.ok) {
      failed = true;
      process.stdout.write(`${c.name.padEnd(42)} FAILED: ${r.error}\n`);
    } else if (argv.includes("--cpu")) {
      process.stdout.write(`${c.name.padEnd(42)} cpu ${fmt(await cpuMicrosPerCall(c, timeMs))} µs/call\n`);
    } else {
      process.stdout.write(`${c.name.padEnd(42)} mean ${fmt(r.meanUs)} µs  p50 ${fmt(r.p50Us)}  p99 ${fmt(r.p99Us)}  n=${r.samples}\n`);
    }
  }
  if (failed) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
