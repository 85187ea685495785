/**
 * Differential-test support for the fast core's precompiles: the reference engine's results
 * (@ethereumjs/evm's own precompile functions, `getActivePrecompiles(common)` plus basalt's
 * `opPrecompiles(fork, common)`, exactly what basalt's reference EVM runs), Commons built the
 * way basalt builds them, the EEST fixture inputs, and the comparison of {ok, gasUsed, output}.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Common, Hardfork, Mainnet, type CustomCrypto } from "@ethereumjs/common";
import { createEVM, getActivePrecompiles, type EVM, type PrecompileFunc } from "@ethereumjs/evm";
import { expect } from "vitest";
import { allForksCommon } from "../../../../helpers/opFixtures.js";
import { OP_FORK_NAMES, OpFork } from "../../../../../src/chain/op/forks.js";
import { customCrypto } from "../../../../../src/chain/crypto.js";
import { opPrecompiles } from "../../../../../src/execution/op/precompiles.js";
import { precompilesFor, type PrecompileSet } from "../../../../../src/execution/evm/precompiles/index.js";
import type { Precompile, PrecompileResult } from "../../../../../src/execution/evm/precompiles/types.js";
import { toHex } from "../../../../../src/util/bytes.js";

/** Repository root (six levels above this directory). */
const REPO_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));

/**
 * A gas limit above every price the tests mean to pay: 100 M, more than any single call gets on
 * Base or Ethereum. Not higher: with more gas, MODEXP inputs whose exponent length is ~2^29
 * bytes pass the price check and the reference allocates the whole exponent and crashes the
 * process (V8 "invalid size" fatal error); the fast core returns the EIP result (modexp.test.ts).
 */
export const AMPLE_GAS = 100_000_000;

/** The Ethereum forks the differential tests cover, with the OP forks that run on each. */
export const ETH_FORKS = [Hardfork.Cancun, Hardfork.Prague, Hardfork.Osaka] as const;

/** The Ethereum fork each OP fork from Fjord on runs on (src/chain/chainSpec.ts `ethereumConfigOfOpChain`). */
export const OP_ETH_FORK: Readonly<Record<number, Hardfork>> = {
  [OpFork.fjord]: Hardfork.Cancun,
  [OpFork.granite]: Hardfork.Cancun,
  [OpFork.holocene]: Hardfork.Cancun,
  [OpFork.isthmus]: Hardfork.Prague,
  [OpFork.jovian]: Hardfork.Prague,
  [OpFork.azul]: Hardfork.Osaka,
};
/** OP forks Fjord … Azul. */
export const OP_FORKS: readonly OpFork[] = [OpFork.fjord, OpFork.granite, OpFork.holocene, OpFork.isthmus, OpFork.jovian, OpFork.azul];

/** A Mainnet Common at `hardfork` with basalt's custom crypto (KZG, native keccak/ecrecover), as src/chain/chainSpec.ts gives every Common. */
export function mainnetCommon(hardfork: string, crypto: CustomCrypto = customCrypto()): Common {
  return new Common({ chain: Mainnet, hardfork, customCrypto: crypto });
}

/** An OP chain Common (basalt's `commonFromGenesis` of an all-forks genesis) set to the Ethereum fork of `fork`. */
export function opCommon(fork: OpFork): Common {
  const common = allForksCommon(`op-${OP_FORK_NAMES[fork]}`);
  common.setHardfork(OP_ETH_FORK[fork]!);
  return common;
}

/** A fork under test: a label, the Common builder, and the OP fork (undefined on Ethereum). */
export interface ForkCase {
  label: string;
  common: () => Common;
  opFork: OpFork | undefined;
}

/** Cancun, Prague and Osaka on Mainnet, then Fjord … Azul on an OP chain. */
export const ALL_FORK_CASES: readonly ForkCase[] = [
  ...ETH_FORKS.map((hf): ForkCase => ({ label: hf, common: () => mainnetCommon(hf), opFork: undefined })),
  ...OP_FORKS.map((f): ForkCase => ({ label: `op-${OP_FORK_NAMES[f]}`, common: () => opCommon(f), opFork: f })),
];

/** The reference engine's precompiles at one fork. */
export class ReferencePrecompiles {
  private constructor(
    private readonly evm: EVM,
    private readonly map: Map<string, PrecompileFunc | undefined>,
  ) {}

  /** The reference precompiles of `common` (given to an EVM, which adds its parameters to it) at `opFork`. */
  static async create(common: Common, opFork: OpFork | undefined): Promise<ReferencePrecompiles> {
    const evm = await createEVM({ common });
    const custom = opFork === undefined ? [] : opPrecompiles(opFork, common);
    return new ReferencePrecompiles(evm, getActivePrecompiles(common, custom));
  }

  /** Addresses (as numbers) with a precompile, sorted. */
  addresses(): number[] {
    return [...this.map.entries()]
      .filter(([, f]) => f !== undefined)
      .map(([a]) => Number.parseInt(a, 16))
      .sort((a, b) => a - b);
  }

  /** Whether `address` has a precompile. */
  has(address: number): boolean {
    return this.map.get(hexAddress(address)) !== undefined;
  }

  /** The reference result of running the precompile at `address`. */
  async run(address: number, input: Uint8Array, gasLimit: number): Promise<PrecompileResult> {
    const f = this.map.get(hexAddress(address));
    if (f === undefined) throw new Error(`no reference precompile at 0x${address.toString(16)}`);
    // A copy: some reference precompiles return shared constants or views of the input.
    const res = await f({ data: input.slice(), gasLimit: BigInt(gasLimit), common: this.evm.common, _EVM: this.evm });
    return { ok: res.exceptionError === undefined, gasUsed: Number(res.executionGasUsed), output: res.returnValue };
  }
}

/** The unprefixed 40-hex-digit address @ethereumjs keys precompiles by. */
function hexAddress(address: number): string {
  return address.toString(16).padStart(40, "0");
}

/** A result in a comparable, readable form. */
function show(r: PrecompileResult): { ok: boolean; gasUsed: number; output: string } {
  return { ok: r.ok, gasUsed: r.gasUsed, output: toHex(r.output) };
}

/** Both implementations at one fork, for one address. */
export class Differential {
  readonly fast: PrecompileSet;
  private constructor(
    readonly label: string,
    readonly reference: ReferencePrecompiles,
    fast: PrecompileSet,
  ) {
    this.fast = fast;
  }

  /** Reference and fast core at `fork` (two separate Commons, so the fast core meets one without @ethereumjs/evm's parameters). */
  static async create(fork: ForkCase): Promise<Differential> {
    const reference = await ReferencePrecompiles.create(fork.common(), fork.opFork);
    return new Differential(fork.label, reference, precompilesFor(fork.common(), fork.opFork));
  }

  /** The fast core's precompile at `address` (must exist). */
  precompile(address: number): Precompile {
    const p = this.fast.get(address);
    if (p === undefined) throw new Error(`${this.label}: no fast precompile at 0x${address.toString(16)}`);
    return p;
  }

  /** Runs both at `gasLimit` and expects the same {ok, gasUsed, output}; returns the reference result. */
  async expectSame(address: number, input: Uint8Array, gasLimit: number, what = ""): Promise<PrecompileResult> {
    const want = await this.reference.run(address, input, gasLimit);
    const copy = input.slice();
    const got = this.precompile(address)(input, gasLimit);
    expect(show(got), `${this.label} 0x${address.toString(16)} ${what} gas=${gasLimit} input=${toHex(input).slice(0, 200)}`).toEqual(show(want));
    expect(toHex(input), "the precompile must not modify its input").toBe(toHex(copy));
    return want;
  }

  /**
   * Compares at a gas limit above any price; when the reference succeeds, also at exactly its
   * price and one below (out of gas). Returns the reference result at the ample limit.
   */
  async expectSameAtGasEdges(address: number, input: Uint8Array, what = ""): Promise<PrecompileResult> {
    const ample = await this.expectSame(address, input, AMPLE_GAS, what);
    if (ample.ok) {
      await this.expectSame(address, input, ample.gasUsed, `${what} (exact price)`);
      if (ample.gasUsed > 0) await this.expectSame(address, input, ample.gasUsed - 1, `${what} (price - 1)`);
    } else {
      await this.expectSame(address, input, 0, `${what} (no gas)`);
    }
    return ample;
  }
}

/** `../shared/fixtures` beside the checkout (a git worktree under wt/ finds it one level further up). */
export function sharedFixturesDir(): string {
  for (const candidate of [path.join(REPO_ROOT, "..", "shared", "fixtures"), path.join(REPO_ROOT, "..", "..", "shared", "fixtures")]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`shared fixtures not found beside ${REPO_ROOT} (expected ../shared/fixtures)`);
}

/**
 * The distinct transaction `data` entries of the EEST state tests in `dir` (relative to
 * `eest/state_tests/`), optionally only of files whose name matches `files`. In the precompile
 * test suites the transaction calls a contract that forwards its calldata to the precompile, so
 * these are real precompile inputs. With `abiBytes`, the data is a Solidity call with one `bytes`
 * argument (the legacy stZeroKnowledge tests) and that argument is returned.
 */
export function eestInputs(dir: string, files?: RegExp, opts: { abiBytes?: boolean } = {}): Uint8Array[] {
  const root = path.join(sharedFixturesDir(), "eest", "state_tests", dir);
  const seen = new Set<string>();
  for (const name of readdirSync(root).sort()) {
    if (!name.endsWith(".json") || (files !== undefined && !files.test(name))) continue;
    const fixture = JSON.parse(readFileSync(path.join(root, name), "utf8")) as Record<string, { transaction: { data: string[] } }>;
    for (const test of Object.values(fixture)) for (const d of test.transaction.data) seen.add(d.startsWith("0x") ? d.slice(2) : d);
  }
  const inputs = [...seen].map((h) => new Uint8Array(Buffer.from(h, "hex")));
  return opts.abiBytes === true ? inputs.map(abiBytesArgument).filter((x): x is Uint8Array => x !== undefined) : inputs;
}

/** The `bytes` argument of a call `selector ‖ offset ‖ length ‖ data`, or undefined when malformed. */
function abiBytesArgument(call: Uint8Array): Uint8Array | undefined {
  const SELECTOR = 4;
  if (call.length < SELECTOR + 64) return undefined;
  const offset = Number(BigInt("0x" + Buffer.from(call.subarray(SELECTOR, SELECTOR + 32)).toString("hex")));
  const at = SELECTOR + offset;
  if (at + 32 > call.length) return undefined;
  const length = Number(BigInt("0x" + Buffer.from(call.subarray(at, at + 32)).toString("hex")));
  if (at + 32 + length > call.length) return undefined;
  return call.slice(at + 32, at + 32 + length);
}

/** Bytes from hex (with or without 0x). */
export function hex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h.startsWith("0x") ? h.slice(2) : h, "hex"));
}

/** Concatenation of byte strings. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** `v` as `length` big-endian bytes. */
export function word(v: bigint, length = 32): Uint8Array {
  return hex(v.toString(16).padStart(length * 2, "0"));
}
