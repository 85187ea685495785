/**
 * Differential fuzzing of Base's native precompiles: the fast engine against the reference engine
 * (@ethereumjs/vm), at Beryl (V1) and Cobalt (V2). A driver contract creates a token of each
 * variant through the B20Factory and mints itself a balance of each, then makes a random sequence
 * of calls — half of them plain token moves (transfers, approvals, mints), the rest anything: CALL mostly, also
 * STATICCALL, DELEGATECALL, CALLCODE, with or without value, with all or little gas — into the
 * tokens, the factory, the PolicyRegistry, the ActivationRegistry, Cobalt's TxContext and
 * NonceManager and a token address never created, with calldata built from their ABIs (roles,
 * scopes, small and large amounts, a few accounts), truncated, or random; it records each call's
 * success in its storage. Both engines must agree on status, gas, return data, logs and the
 * post-state root. fast-check prints the seed of any difference (test/README.md).
 */
import { createTx } from "@ethereumjs/tx";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID } from "../../../../src/chain/constants.js";
import { OpFork } from "../../../../src/chain/op/forks.js";
import { encodeCall, encodeParams, eventTopic, selectorOf, type AbiValue } from "../../../../src/execution/base/abi.js";
import { ACTIVATION_FEATURES_SLOT, B20_ASSET_FEATURE, B20_STABLECOIN_FEATURE, POLICY_REGISTRY_FEATURE } from "../../../../src/execution/base/activation/index.js";
import {
  ACTIVATION_REGISTRY_ADDRESS,
  B20_FACTORY_ADDRESS,
  NONCE_MANAGER_ADDRESS,
  POLICY_REGISTRY_ADDRESS,
  TX_CONTEXT_ADDRESS,
} from "../../../../src/execution/base/addresses.js";
import { b20TokenAddress } from "../../../../src/execution/base/b20/index.js";
import { basePrecompilesFor } from "../../../../src/execution/base/chainPrecompiles.js";
import { mappingSlotOfBytes32, u256Bytes } from "../../../../src/execution/base/slots.js";
import { keccak256 } from "../../../../src/util/keccak.js";
import { runFast, runReference, testCommon, type PreAccount, type TestEnv } from "../../../helpers/evmRunner.js";

const KEY = Buffer.from("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "hex");
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const DRIVER = "0x00000000000000000000000000000000000c0de0";
const ENV: TestEnv = { hardfork: "osaka", coinbase: "0x2adc25665018aa1fe0e6bc666dac8fc2697ff9ba", number: 10n, timestamp: 100n, gasLimit: 60_000_000n, baseFee: 7n };

const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ""), "hex"));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

const SALT_A = new Uint8Array(32).fill(0xa1);
const SALT_S = new Uint8Array(32).fill(0x51);
/** The tokens the driver creates (the factory derives them from the driver's address). */
const ASSET = b20TokenAddress(0, keccak256(Uint8Array.from([...u256Bytes(BigInt(DRIVER)), ...SALT_A])));
const STABLE = b20TokenAddress(1, keccak256(Uint8Array.from([...u256Bytes(BigInt(DRIVER)), ...SALT_S])));
const NEVER = b20TokenAddress(1, new Uint8Array(32).fill(0x99));
const TARGETS = [ASSET, STABLE, ASSET, STABLE, ASSET, STABLE, POLICY_REGISTRY_ADDRESS, B20_FACTORY_ADDRESS, ACTIVATION_REGISTRY_ADDRESS, TX_CONTEXT_ADDRESS, NONCE_MANAGER_ADDRESS, NEVER];
const ACCOUNTS = [bytes(DRIVER), bytes(DRIVER), bytes(SENDER), bytes("0x00000000000000000000000000000000000000aa"), bytes("0x00000000000000000000000000000000000000bb"), new Uint8Array(20)];

const role = (n: string): Uint8Array => keccak256(ascii(n));
const ROLES = [new Uint8Array(32), role("MINT_ROLE"), role("BURN_ROLE"), role("PAUSE_ROLE"), role("UNPAUSE_ROLE"), role("METADATA_ROLE"), role("SEIZE_ROLE"), role("BURN_BLOCKED_ROLE")];
const SCOPES = ["TRANSFER_SENDER_POLICY", "TRANSFER_RECEIVER_POLICY", "TRANSFER_EXECUTOR_POLICY", "MINT_RECEIVER_POLICY", "SEIZE_EXEMPT_POLICY", "SEIZE_RECEIVER_POLICY"].map(role);

const account = fc.constantFrom(...ACCOUNTS);
const amount = fc.oneof({ weight: 8, arbitrary: fc.bigInt({ min: 0n, max: 300n }) }, { weight: 1, arbitrary: fc.constant((1n << 128n) - 1n) }, { weight: 1, arbitrary: fc.constant((1n << 256n) - 1n) });
const policyId = fc.oneof(fc.constant(0n), fc.constant((1n << 56n) | 1n), fc.bigInt({ min: 2n, max: 5n }), fc.bigInt({ min: 2n, max: 5n }).map((c) => (1n << 56n) | c));
const memo = fc.uint8Array({ minLength: 32, maxLength: 32 });

/** One function of the surfaces, with an arbitrary of its arguments. */
function f(sig: string, types: string[], args: fc.Arbitrary<AbiValue[]>): fc.Arbitrary<Uint8Array> {
  return args.map((a) => encodeCall(selectorOf(sig), types, a));
}

/** The moves most sequences should contain (weighted up: each must often succeed for the fuzz to reach deep states). */
const moves: fc.Arbitrary<Uint8Array> = fc.oneof(
  f("transfer(address,uint256)", ["address", "uint256"], fc.tuple(account, amount)),
  f("transferWithMemo(address,uint256,bytes32)", ["address", "uint256", "bytes32"], fc.tuple(account, amount, memo)),
  f("transferFrom(address,address,uint256)", ["address", "address", "uint256"], fc.tuple(account, account, amount)),
  f("approve(address,uint256)", ["address", "uint256"], fc.tuple(account, amount)),
  f("mint(address,uint256)", ["address", "uint256"], fc.tuple(account, amount)),
);

const tokenCalls: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 8, arbitrary: moves },
  f("mintWithMemo(address,uint256,bytes32)", ["address", "uint256", "bytes32"], fc.tuple(account, amount, memo)),
  f("burn(uint256)", ["uint256"], fc.tuple(amount)),
  f("burnBlocked(address,uint256)", ["address", "uint256"], fc.tuple(account, amount)),
  f("grantRole(bytes32,address)", ["bytes32", "address"], fc.tuple(fc.constantFrom(...ROLES), account)),
  f("revokeRole(bytes32,address)", ["bytes32", "address"], fc.tuple(fc.constantFrom(...ROLES), account)),
  f("pause(uint8[])", ["uint8[]"], fc.tuple(fc.array(fc.bigInt({ min: 0n, max: 4n }), { maxLength: 3 }))),
  f("unpause(uint8[])", ["uint8[]"], fc.tuple(fc.array(fc.bigInt({ min: 0n, max: 4n }), { maxLength: 3 }))),
  f("updatePolicy(bytes32,uint64)", ["bytes32", "uint64"], fc.tuple(fc.constantFrom(...SCOPES), policyId)),
  f("updateSupplyCap(uint256)", ["uint256"], fc.tuple(amount)),
  f("updateName(string)", ["string"], fc.tuple(fc.string({ maxLength: 40 }))),
  f("updateContractURI(string)", ["string"], fc.tuple(fc.string({ maxLength: 70 }))),
  f("seizeWithMemo(address,address,uint256,bytes32)", ["address", "address", "uint256", "bytes32"], fc.tuple(account, account, amount, memo)),
  f("balanceOf(address)", ["address"], fc.tuple(account)),
  f("renounceLastAdmin()", [], fc.constant([])),
  f("permit(address,address,uint256,uint256,uint8,bytes32,bytes32)", ["address", "address", "uint256", "uint256", "uint8", "bytes32", "bytes32"], fc.tuple(account, account, amount, amount, fc.bigInt({ min: 27n, max: 28n }), memo, memo)),
  f("currency()", [], fc.constant([])),
  f("updateUIMultiplier(uint256,uint256)", ["uint256", "uint256"], fc.tuple(amount, amount)),
);

const registryCalls: fc.Arbitrary<Uint8Array> = fc.oneof(
  f("createPolicy(address,uint8)", ["address", "uint8"], fc.tuple(account, fc.bigInt({ min: 0n, max: 3n }))),
  f("createPolicyWithAccounts(address,uint8,address[])", ["address", "uint8", "address[]"], fc.tuple(account, fc.bigInt({ min: 0n, max: 1n }), fc.array(account, { maxLength: 3 }))),
  f("updateBlocklist(uint64,bool,address[])", ["uint64", "bool", "address[]"], fc.tuple(policyId, fc.boolean(), fc.array(account, { maxLength: 3 }))),
  f("updateAllowlist(uint64,bool,address[])", ["uint64", "bool", "address[]"], fc.tuple(policyId, fc.boolean(), fc.array(account, { maxLength: 3 }))),
  f("isAuthorized(uint64,address)", ["uint64", "address"], fc.tuple(policyId, account)),
  f("createCompositePolicy(address,uint8,uint64[])", ["address", "uint8", "uint64[]"], fc.tuple(account, fc.bigInt({ min: 2n, max: 3n }), fc.array(policyId, { maxLength: 3 }))),
  f("activate(bytes32)", ["bytes32"], fc.tuple(fc.oneof(fc.constantFrom(POLICY_REGISTRY_FEATURE, B20_ASSET_FEATURE), memo))),
  f("createB20(uint8,bytes32,bytes,bytes[])", ["uint8", "bytes32", "bytes", "bytes[]"], fc.tuple(fc.bigInt({ min: 0n, max: 2n }), memo, fc.uint8Array({ maxLength: 64 }), fc.constant([]))),
  f("getNonce(address,uint256)", ["address", "uint256"], fc.tuple(account, amount)),
  f("getTransactionSender()", [], fc.constant([])),
);

/** Calldata: a function of the surfaces, cut short, or random bytes. */
const calldata: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 6, arbitrary: tokenCalls },
  { weight: 2, arbitrary: registryCalls },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(tokenCalls, registryCalls), fc.nat()).map(([d, n]) => d.subarray(0, n % (d.length + 1))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }) },
);

interface Call {
  op: number;
  target: Uint8Array;
  value: number;
  gas: number | undefined;
  data: Uint8Array;
}

/** A random call: any target, kind, value, gas and calldata. */
const anyCall: fc.Arbitrary<Call> = fc.record({
  op: fc.constantFrom(0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xfa, 0xf4, 0xf2),
  target: fc.constantFrom(...TARGETS),
  value: fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 1),
  gas: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 120_000 }) }),
  data: calldata,
});

/** A plain token move (CALL, no value, all gas): half the calls, so sequences reach deep token states. */
const moveCall: fc.Arbitrary<Call> = fc.record({
  op: fc.constant(0xf1),
  target: fc.constantFrom(ASSET, STABLE),
  value: fc.constant(0),
  gas: fc.constant(undefined),
  data: moves,
});

const callArb: fc.Arbitrary<Call> = fc.oneof(anyCall, moveCall);

/** The factory calls that create the two tokens, owned by the driver (its initial admin). */
const CREATE_ASSET = encodeCall(selectorOf("createB20(uint8,bytes32,bytes,bytes[])"), ["uint8", "bytes32", "bytes", "bytes[]"], [
  0n,
  SALT_A,
  encodeParams(["(uint8,string,string,address,uint8)"], [[1n, "Fuzz Asset", "FZA", bytes(DRIVER), 18n]]),
  [encodeCall(selectorOf("grantRole(bytes32,address)"), ["bytes32", "address"], [role("MINT_ROLE"), bytes(DRIVER)])],
]);
const CREATE_STABLE = encodeCall(selectorOf("createB20(uint8,bytes32,bytes,bytes[])"), ["uint8", "bytes32", "bytes", "bytes[]"], [
  1n,
  SALT_S,
  encodeParams(["(uint8,string,string,address,string)"], [[1n, "Fuzz Dollar", "FZD", bytes(DRIVER), "USD"]]),
  [encodeCall(selectorOf("grantRole(bytes32,address)"), ["bytes32", "address"], [role("MINT_ROLE"), bytes(DRIVER)])],
]);

/** Driver code: each call's calldata copied from the code's tail, the call made, its success stored at slot i. */
function driver(calls: Call[]): Uint8Array {
  const pieces: string[] = [];
  const blobs: Uint8Array[] = [];
  // Two passes: the first sizes the code with placeholder offsets (PUSH2 each), the second fills them.
  const build = (base: number): string => {
    let code = "";
    let off = base;
    calls.forEach((c, i) => {
      const len = c.data.length;
      code += `61${len.toString(16).padStart(4, "0")}61${off.toString(16).padStart(4, "0")}5f39`; // CODECOPY(0, off, len)
      const value = c.op === 0xf1 || c.op === 0xf2 ? `60${c.value.toString(16).padStart(2, "0")}` : "";
      const gas = c.gas === undefined ? "5a" : `62${c.gas.toString(16).padStart(6, "0")}`;
      code += `5f5f61${len.toString(16).padStart(4, "0")}5f${value}73${hex(c.target)}${gas}${c.op.toString(16)}`;
      code += `61${i.toString(16).padStart(4, "0")}55`; // SSTORE(i, success)
      off += len;
    });
    return code + "00";
  };
  const size = build(0).length / 2;
  pieces.push(build(size));
  for (const c of calls) blobs.push(c.data);
  return Uint8Array.from([...bytes(pieces.join("")), ...blobs.flatMap((b) => [...b])]);
}

/** Activation switched on for every feature, as the activation admin would have done (marker code and the three flags). */
function preState(calls: Call[]): Map<string, PreAccount> {
  const features = [POLICY_REGISTRY_FEATURE, B20_ASSET_FEATURE, B20_STABLECOIN_FEATURE].map((id): [Uint8Array, Uint8Array] => [u256Bytes(mappingSlotOfBytes32(id, ACTIVATION_FEATURES_SLOT)), Uint8Array.of(1)]);
  return new Map<string, PreAccount>([
    [SENDER, { nonce: 0n, balance: 10n ** 22n }],
    [DRIVER, { balance: 10n ** 18n, code: driver(calls) }],
    [`0x${hex(ACTIVATION_REGISTRY_ADDRESS)}`, { code: Uint8Array.of(0xef), storage: features }],
  ]);
}

async function agree(fork: OpFork, random: Call[]): Promise<string> {
  const calls: Call[] = [
    { op: 0xf1, target: B20_FACTORY_ADDRESS, value: 0, gas: undefined, data: CREATE_ASSET },
    { op: 0xf1, target: B20_FACTORY_ADDRESS, value: 0, gas: undefined, data: CREATE_STABLE },
    { op: 0xf1, target: ASSET, value: 0, gas: undefined, data: encodeCall(selectorOf("mint(address,uint256)"), ["address", "uint256"], [bytes(DRIVER), 1000n]) },
    { op: 0xf1, target: STABLE, value: 0, gas: undefined, data: encodeCall(selectorOf("mint(address,uint256)"), ["address", "uint256"], [bytes(DRIVER), 1000n]) },
    ...random,
  ];
  const pre = preState(calls);
  const tx = createTx({ type: 2, nonce: 0n, gasLimit: 16_000_000n, maxFeePerGas: 20n, maxPriorityFeePerGas: 1n, to: DRIVER, data: "0x", chainId: 1n } as never, { common: testCommon(ENV.hardfork) }).sign(KEY);
  const base = basePrecompilesFor(fork, DEVNET_CHAIN_ID);
  const fast = await runFast(pre, ENV, tx, { base });
  const ref = await runReference(pre, ENV, tx, { base });
  expect(fast).toEqual(ref);
  return ref.logs;
}

const CREATED = `0x${hex(eventTopic("B20Created(address,uint8,string,string,uint8,bytes)"))}`;
const TRANSFER = `0x${hex(eventTopic("Transfer(address,address,uint256)"))}`;
const RUNS = 150;

describe("Base precompiles: fast engine against the reference engine", () => {
  for (const [name, fork] of [["Beryl (V1)", OpFork.beryl], ["Cobalt (V2)", OpFork.cobalt]] as const) {
    it(`agree on random call sequences at ${name}`, async () => {
      let created = 0;
      let moved = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 20 }), async (random) => {
          const logs = await agree(fork, random);
          if (logs.split(CREATED).length === 3) created++;
          // Transfer events beyond the driver's own two mints: the random calls moved tokens.
          if (logs.split(TRANSFER).length > 3) moved++;
        }),
        { numRuns: RUNS },
      );
      // The sequences ran against live tokens (both created) in every run, and most moved balances.
      expect(created).toBe(RUNS);
      expect(moved).toBeGreaterThan(RUNS / 2);
    }, 240_000);
  }
});
