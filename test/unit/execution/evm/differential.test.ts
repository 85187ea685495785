/**
 * Differential fuzzing of the fast EVM against the reference engine (@ethereumjs/vm): random
 * bytecode (biased towards runnable programs: small pushes, known addresses, calls, creates,
 * storage, logs, memory and returndata edge cases), random calldata, value and gas, random
 * pre-states of several contracts — executed by both engines, which must agree on whether the
 * transaction is valid, its status, receipt gas, return data, logs and the post-state root.
 * fast-check prints the seed and the shrunk counterexample of any difference.
 */
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runFast, runReference, testCommon, type PreAccount, type TestEnv } from "../../../helpers/evmRunner.js";

/** The sender's key (anvil/hardhat account 0) and address. */
const KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
/** The called contract and the other contracts its code may call. */
const TARGET = "0x00000000000000000000000000000000000c0de0";
const OTHERS = ["0x00000000000000000000000000000000000c0de1", "0x00000000000000000000000000000000000c0de2", "0x00000000000000000000000000000000000c0de3"];
const EMPTY_ACCOUNT = "0x00000000000000000000000000000000000e0001";
const MISSING = "0x00000000000000000000000000000000000d0000";
const COINBASE = "0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba";
const KNOWN = [TARGET, ...OTHERS, EMPTY_ACCOUNT, MISSING, COINBASE, SENDER, "0x0000000000000000000000000000000000000001", "0x0000000000000000000000000000000000000002", "0x0000000000000000000000000000000000000004", "0x0000000000000000000000000000000000000005", "0x0000000000000000000000000000000000000009"];

/** Opcodes the generator draws from (every defined opcode of Osaka plus a few undefined ones). */
const OPS = [
  0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e,
  0x20, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
  0x4a, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x80, 0x81, 0x82, 0x83, 0x84, 0x8f, 0x90, 0x91, 0x92, 0x9f,
  0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xfa, 0xfd, 0xfe, 0xff, 0x0c, 0x21, 0x4b, 0xef,
];

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** One instruction: a push (small values, addresses, big words) or an opcode. */
const instruction: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 64 }).map((v) => "60" + v.toString(16).padStart(2, "0")) },
  { weight: 2, arbitrary: fc.constantFrom(...KNOWN).map((a) => "73" + a.slice(2)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((v) => "61" + v.toString(16).padStart(4, "0")) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => "7f" + hex(b)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => (0x5f + n).toString(16) + hex(b))) },
  { weight: 6, arbitrary: fc.constantFrom(...OPS).map((o) => o.toString(16).padStart(2, "0")) },
  // A call with small gas and args to a known address: gas, addr, value, in, insize, out, outsize.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(0xf1, 0xf2, 0xf4, 0xfa), fc.constantFrom(...KNOWN), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 0xffff }))
      .map(([op, a, value, gas]) => {
        const v = op === 0xf1 || op === 0xf2 ? "60" + value.toString(16).padStart(2, "0") : "";
        return "6020" + "6000" + "6020" + "6000" + v + "73" + a.slice(2) + "61" + gas.toString(16).padStart(4, "0") + op.toString(16);
      }),
  },
);

const program: fc.Arbitrary<Uint8Array> = fc
  .array(instruction, { minLength: 1, maxLength: 60 })
  .map((ins) => Uint8Array.from(Buffer.from(ins.join("") + "00", "hex")));

const slotEntry: fc.Arbitrary<[Uint8Array, Uint8Array]> = fc.tuple(
  fc.oneof(fc.integer({ min: 0, max: 4 }).map((i) => Uint8Array.from(Buffer.from(i.toString(16).padStart(64, "0"), "hex"))), fc.uint8Array({ minLength: 32, maxLength: 32 })),
  fc.uint8Array({ minLength: 1, maxLength: 32 }),
);

const account = (code: fc.Arbitrary<Uint8Array>): fc.Arbitrary<PreAccount> =>
  fc.record({
    nonce: fc.constantFrom(0n, 1n, 5n),
    balance: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 18n })),
    code,
    storage: fc.array(slotEntry, { maxLength: 4 }),
  });

interface Case {
  pre: Map<string, PreAccount>;
  tx: { data: Uint8Array; value: bigint; gasLimit: bigint; type: 0 | 2; create: boolean; accessList: boolean };
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    target: account(program),
    others: fc.tuple(account(program), account(program), account(program)),
    data: fc.uint8Array({ maxLength: 68 }),
    value: fc.constantFrom(0n, 1n, 1000n),
    gasLimit: fc.constantFrom(30_000n, 100_000n, 500_000n, 2_000_000n),
    type: fc.constantFrom(0 as const, 2 as const),
    create: fc.boolean(),
    accessList: fc.boolean(),
  })
  .map((r) => {
    const pre = new Map<string, PreAccount>();
    pre.set(SENDER, { nonce: 3n, balance: 10n ** 21n });
    pre.set(TARGET, r.target);
    OTHERS.forEach((a, i) => pre.set(a, r.others[i]!));
    pre.set(EMPTY_ACCOUNT, {});
    return { pre, tx: { data: r.data, value: r.value, gasLimit: r.gasLimit, type: r.type, create: r.create, accessList: r.accessList } };
  });

function signed(c: Case, env: TestEnv): TypedTransaction {
  const common = testCommon(env.hardfork);
  const base = {
    nonce: 3n,
    gasLimit: c.tx.gasLimit,
    to: c.tx.create ? undefined : TARGET,
    value: c.tx.value,
    // A creation runs the target's code as initcode.
    data: c.tx.create ? (c.pre.get(TARGET)!.code ?? new Uint8Array()) : c.tx.data,
    chainId: 1n,
  };
  const accessList = c.tx.accessList ? [{ address: OTHERS[0]!, storageKeys: ["0x" + "00".repeat(31) + "01"] }] : [];
  const data = c.tx.type === 0 ? { ...base, gasPrice: 10n } : { ...base, type: 2, maxFeePerGas: 20n, maxPriorityFeePerGas: 2n, accessList };
  return createTx(data as never, { common }).sign(KEY);
}

async function compare(c: Case, env: TestEnv): Promise<void> {
  const tx = signed(c, env);
  const fast = await runFast(c.pre, env, tx);
  if (fast === "unsupported") return; // the reference engine runs it in production
  const ref = await runReference(c.pre, env, tx);
  expect(fast.rejected === undefined, `valid: fast ${fast.rejected ?? "ran"}, reference ${ref.rejected ?? "ran"}`).toBe(ref.rejected === undefined);
  if (ref.rejected !== undefined) return;
  expect({ status: fast.status, gasUsed: fast.gasUsed, output: fast.output, logs: fast.logs, stateRoot: fast.stateRoot }).toEqual({
    status: ref.status,
    gasUsed: ref.gasUsed,
    output: ref.output,
    logs: ref.logs,
    stateRoot: ref.stateRoot,
  });
}

const ENV: Omit<TestEnv, "hardfork"> = { coinbase: COINBASE, number: 300n, timestamp: 1_000n, gasLimit: 30_000_000n, baseFee: 7n };

describe("fast EVM vs reference engine, differential fuzzing", () => {
  // A creation whose init code returns 10 bytes of runtime code: the transaction's output is the
  // deployed code (eth_call of init code answers it), while a CREATE opcode's return data is empty.
  it("a creation transaction outputs the deployed code; a CREATE opcode's return data stays empty", async () => {
    const init = Uint8Array.from(Buffer.from("69602a60005260206000f3600052600a6016f3", "hex"));
    // Runs `init` through CREATE (init code stored at 0..19 of memory), then RETURNDATASIZE, stored and returned.
    const creator = Uint8Array.from(Buffer.from("7f" + hex(init).padEnd(64, "0") + "600052" + "6013600060 00f0".replace(/ /g, "") + "3d60005260206000f3", "hex"));
    for (const create of [true, false]) {
      const pre = new Map<string, PreAccount>([
        [SENDER, { nonce: 3n, balance: 10n ** 21n }],
        [TARGET, { code: create ? init : creator }],
      ]);
      const c: Case = { pre, tx: { data: new Uint8Array(), value: 0n, gasLimit: 500_000n, type: 2, create, accessList: false } };
      const fast = await runFast(c.pre, { ...ENV, hardfork: "prague" }, signed(c, { ...ENV, hardfork: "prague" }));
      expect(fast).not.toBe("unsupported");
      if (fast === "unsupported") return;
      expect(fast.status).toBe(1);
      expect(fast.output).toBe(create ? "0x602a60005260206000f3" : "0x" + "00".repeat(32));
      await compare(c, { ...ENV, hardfork: "prague" });
    }
  });

  for (const [hardfork, runs] of [
    ["prague", 300],
    ["osaka", 150],
    ["cancun", 100],
  ] as const) {
    it(`${hardfork}: random programs, calldata and pre-states give identical results (${runs} cases)`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, (c) => compare(c, { ...ENV, hardfork })),
        { numRuns: runs },
      );
    }, 600_000);
  }
});
