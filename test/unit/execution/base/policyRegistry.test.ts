/**
 * The PolicyRegistry precompile beyond the goldens: its gas under the EVM's prices
 * (EIP-2929 cold/warm, EIP-2200/3529 set/reset/refund, the 2,300-gas SSTORE stipend, out of gas
 * at every charge), static calls, DELEGATECALL, bad input (malformed/short calldata, unknown
 * selectors, nonexistent ids, value), V2 composites, and the token-facing reads and seeding.
 */
import { describe, expect, it } from "vitest";
import { OpFork } from "../../../../src/chain/op/forks.js";
import { encodeCall, selectorOf, type AbiValue } from "../../../../src/execution/base/abi.js";
import { POLICY_REGISTRY_FEATURE } from "../../../../src/execution/base/activation/index.js";
import { ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS } from "../../../../src/execution/base/addresses.js";
import { BaseCallContext, type BaseCallEnv } from "../../../../src/execution/base/context.js";
import { EVM_SCHEDULE, FREE_STORAGE_SCHEDULE } from "../../../../src/execution/base/gas.js";
import { DELEGATE_CALL_NOT_ALLOWED, outcomeOf, runBasePrecompile, type BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import {
  ALWAYS_ALLOW_ID,
  ALWAYS_BLOCK_ID,
  COUNTER_MASK,
  NEXT_COUNTER_SLOT,
  PolicyType,
  isAuthorized,
  makePolicyId,
  memberSlot,
  policyExists,
  policyRegistryHandler,
  policyWordSlot,
  seedExistingPolicy,
  seedPolicyMember,
} from "../../../../src/execution/base/policy/index.js";
import { mappingSlotOfBytes32 } from "../../../../src/execution/base/slots.js";
import { AccessTrackingHost, MemoryBaseHost } from "../../../helpers/baseMemoryHost.js";
import { addr, callEnv, expectReturn, expectRevertData, hex, runFrame, type CallOpts } from "../../../helpers/basePrecompileCall.js";

const ADMIN = addr(0xad);
const ALICE = addr(0xa1);
const BOB = addr(0xb0);
const OUTSIDER = addr(0x0f);
const utf8hex = (s: string): string => Buffer.from(s, "utf8").toString("hex");

const call = (signature: string, types: string[], values: AbiValue[]): Uint8Array => encodeCall(selectorOf(signature), types, values);
const createPolicy = (type: number, admin = ADMIN) => call("createPolicy(address,uint8)", ["address", "uint8"], [admin, BigInt(type)]);
const updateAllowlist = (id: bigint, allowed: boolean, accounts: Uint8Array[]) => call("updateAllowlist(uint64,bool,address[])", ["uint64", "bool", "address[]"], [id, allowed, accounts]);
const updateBlocklist = (id: bigint, blocked: boolean, accounts: Uint8Array[]) => call("updateBlocklist(uint64,bool,address[])", ["uint64", "bool", "address[]"], [id, blocked, accounts]);
const isAuthorizedCall = (id: bigint, account: Uint8Array) => call("isAuthorized(uint64,address)", ["uint64", "address"], [id, account]);
const createComposite = (type: number, children: bigint[], admin = ADMIN) => call("createCompositePolicy(address,uint8,uint64[])", ["address", "uint8", "uint64[]"], [admin, BigInt(type), children]);
const errorData = (signature: string, types: string[] = [], values: AbiValue[] = []) => hex(call(signature, types, values));

const ALLOWLIST_2 = makePolicyId(PolicyType.ALLOWLIST, 2n);
const BLOCKLIST_3 = makePolicyId(PolicyType.BLOCKLIST, 3n);

/**
 * The in-memory host with EIP-2929 access tracking: a slot or account is cold until first
 * touched in the transaction ({@link endTransaction} starts a new one).
 */
class AccessListHost extends AccessTrackingHost {
  // The registry is the call's target: warm from the call's start, as the EVM warms a call target.
  override endTransaction(): void {
    super.endTransaction();
    this.warmAccount(POLICY_REGISTRY_ADDRESS);
  }
}

const env = (o: CallOpts): BaseCallEnv => callEnv(POLICY_REGISTRY_ADDRESS, o, ADMIN);

/** A host whose policy-registry feature is on (written directly, as genesis state would be). */
function activatedHost(): AccessListHost {
  const host = new AccessListHost();
  host.set(ACTIVATION_REGISTRY_ADDRESS, mappingSlotOfBytes32(POLICY_REGISTRY_FEATURE, 0x43ee1bbe25e988521cccd8b2c8fbd38c8287ebff8e074e825a70dfd3885cce00n), 1n);
  host.endTransaction();
  return host;
}

/** One call frame (undone unless it succeeds), under `o.schedule` (the EVM's prices by default). */
function run(host: MemoryBaseHost, input: Uint8Array, o: CallOpts = {}): BasePrecompileOutcome {
  return runFrame(host, policyRegistryHandler, input, env(o), o);
}

/** The same call in a new transaction. */
function runTx(host: MemoryBaseHost, input: Uint8Array, o: CallOpts = {}): BasePrecompileOutcome {
  host.endTransaction();
  return run(host, input, o);
}

const expectOk = (out: BasePrecompileOutcome): Uint8Array => expectReturn(out);
const expectRevert = expectRevertData;

// EIP-2929/2200/3529 prices used below.
const COLD_SLOAD = 2100;
const WARM = 100;
const SSTORE_SET_COLD = 20_000 + 2100;
const LOG = (topics: number, dataBytes: number) => 375 + 375 * topics + 8 * dataBytes;
const CALLDATA = (bytes: number) => 6 * Math.ceil(bytes / 32);

describe("PolicyRegistry gas under the EVM's prices", () => {
  it("first createPolicy: calldata, gate SLOAD, counter SLOAD, 0xef marker (CREATE + deposit + hash), built-ins, counter twice, the word, two logs", () => {
    const host = activatedHost();
    const out = runTx(host, createPolicy(PolicyType.ALLOWLIST));
    expect(hex(expectOk(out))).toBe(hex(new Uint8Array([...new Uint8Array(24), 1, 0, 0, 0, 0, 0, 0, 2])));
    const expected =
      CALLDATA(68) +
      COLD_SLOAD + // features[base.policy_registry]
      COLD_SLOAD + // nextCounter (0)
      (200 + 32_000 + 30 + 6) + // setCode(0xef) on an empty account
      SSTORE_SET_COLD + // ALWAYS_ALLOW word
      SSTORE_SET_COLD + // ALWAYS_BLOCK word
      20_000 + // nextCounter 0 → 2 (warm after the read)
      WARM + // nextCounter 2 → 3 (dirty)
      SSTORE_SET_COLD + // the new policy word
      LOG(3, 32) + // PolicyCreated(uint64 indexed, address indexed, uint8)
      LOG(4, 0); // PolicyAdminUpdated(uint64 indexed, address indexed, address indexed)
    expect(out.gasUsed).toBe(expected);
    expect(out.status === "success" && out.refund).toBe(0);
    expect(hex(host.accounts.get(Buffer.from(POLICY_REGISTRY_ADDRESS).toString("hex"))!.code)).toBe("0xef");
  });

  it("second createPolicy: no initialization, the counter is reset 3 → 4 (2,900 after its warming read)", () => {
    const host = activatedHost();
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST)));
    const out = runTx(host, createPolicy(PolicyType.BLOCKLIST));
    expect(out.gasUsed).toBe(CALLDATA(68) + COLD_SLOAD + COLD_SLOAD + 2900 + SSTORE_SET_COLD + LOG(3, 32) + LOG(4, 0));
  });

  it("isAuthorized: one cold membership SLOAD, warm when repeated in the same transaction; built-ins read nothing", () => {
    const host = activatedHost();
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST)));
    host.endTransaction();
    expect(run(host, isAuthorizedCall(ALLOWLIST_2, ALICE)).gasUsed).toBe(CALLDATA(68) + COLD_SLOAD);
    expect(run(host, isAuthorizedCall(ALLOWLIST_2, ALICE)).gasUsed).toBe(CALLDATA(68) + WARM);
    expect(run(host, isAuthorizedCall(ALWAYS_BLOCK_ID, ALICE)).gasUsed).toBe(CALLDATA(68));
  });

  it("membership writes: set 0 → 1 (22,100 cold), reset 1 → 0 in a later transaction (5,000, refund 4,800), and 0 → 1 → 0 in one transaction (refund 19,900)", () => {
    const host = activatedHost();
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST)));
    const input = updateAllowlist(ALLOWLIST_2, true, [ALICE]);
    const event = LOG(3, 128); // AllowlistUpdated data: bool, offset, length, one address
    const add = runTx(host, input);
    expect(add.gasUsed).toBe(CALLDATA(input.length) + COLD_SLOAD + COLD_SLOAD + SSTORE_SET_COLD + event);
    const remove = runTx(host, updateAllowlist(ALLOWLIST_2, false, [ALICE]));
    expect(remove.gasUsed).toBe(CALLDATA(input.length) + COLD_SLOAD + COLD_SLOAD + (2900 + 2100) + event);
    expect(remove.status === "success" && remove.refund).toBe(4800);

    host.endTransaction();
    expectOk(run(host, input));
    const undo = run(host, updateAllowlist(ALLOWLIST_2, false, [ALICE]));
    expect(undo.gasUsed).toBe(CALLDATA(input.length) + WARM + WARM + WARM + event);
    expect(undo.status === "success" && undo.refund).toBe(20_000 - 100);
  });

  it("an SSTORE with 2,300 gas or less left halts out of gas before writing (the EIP-2200 stipend rule)", () => {
    const host = activatedHost();
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST)));
    const input = updateAllowlist(ALLOWLIST_2, true, [ALICE]);
    host.endTransaction();
    expectOk(run(host, input)); // warms the gate, the word and the member slot
    const before = CALLDATA(input.length) + WARM + WARM; // charged before the member SSTORE
    const measure = (gasLimit: number) => {
      const ctx = new BaseCallContext(host, env({ gasLimit }), EVM_SCHEDULE);
      const out = outcomeOf(ctx, () => policyRegistryHandler(ctx, input));
      return { out, sstores: ctx.counters.sstore };
    };
    const atStipend = measure(before + 2300);
    expect(atStipend.out).toMatchObject({ status: "halt", reason: "outOfGas", gasUsed: before + 2300 });
    expect(atStipend.sstores).toBe(0);
    const aboveStipend = measure(before + 2301);
    expect(aboveStipend.sstores).toBe(1); // the write went through; the event then ran out
    expect(aboveStipend.out).toMatchObject({ status: "halt", reason: "outOfGas" });
    expect(measure(before + WARM + LOG(3, 128)).out.status).toBe("success");
  });

  it("out of gas at every charge of a first createPolicy halts with all gas used and leaves no state behind", () => {
    const input = createPolicy(PolicyType.ALLOWLIST);
    // The cumulative gas after each charge, from a run with plenty of gas.
    const marks: number[] = [];
    class Recording extends BaseCallContext {
      override deductGas(gas: number): void {
        super.deductGas(gas);
        marks.push(this.gasUsed);
      }
    }
    const probe = activatedHost();
    const ctx = new Recording(probe, env({}), EVM_SCHEDULE);
    expect(outcomeOf(ctx, () => policyRegistryHandler(ctx, input)).status).toBe("success");
    const total = marks.at(-1)!;
    expect(marks.length).toBeGreaterThanOrEqual(12);
    for (const mark of marks) {
      for (const gasLimit of [mark - 1, mark]) {
        if (gasLimit >= total) continue;
        const host = activatedHost();
        const out = runTx(host, input, { gasLimit });
        expect(out, `gas limit ${gasLimit}`).toMatchObject({ status: "halt", reason: "outOfGas", gasUsed: gasLimit });
        expect(host.get(POLICY_REGISTRY_ADDRESS, NEXT_COUNTER_SLOT), `gas limit ${gasLimit}`).toBe(0n);
        expect(host.logsOf(POLICY_REGISTRY_ADDRESS)).toHaveLength(0);
      }
    }
    expect(runTx(activatedHost(), input, { gasLimit: total }).status).toBe("success");
  });

  it("a write inside a STATICCALL reverts with empty data; views still answer", () => {
    const host = activatedHost();
    expectRevert(runTx(host, createPolicy(PolicyType.ALLOWLIST), { isStatic: true }), "0x");
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST)));
    expectRevert(runTx(host, updateAllowlist(ALLOWLIST_2, true, [ALICE]), { isStatic: true }), "0x");
    expectOk(runTx(host, isAuthorizedCall(ALLOWLIST_2, ALICE), { isStatic: true }));
  });

  it("a DELEGATECALL reverts DelegateCallNotAllowed() at no gas", () => {
    const out = runBasePrecompile(policyRegistryHandler, createPolicy(PolicyType.ALLOWLIST), env({}), activatedHost(), EVM_SCHEDULE, false);
    expect(out).toMatchObject({ status: "revert", gasUsed: 0 });
    expect(out.status === "revert" && hex(out.output)).toBe(hex(DELEGATE_CALL_NOT_ALLOWED));
  });
});

describe("PolicyRegistry bad input", () => {
  const free = { schedule: FREE_STORAGE_SCHEDULE };
  const isAuthSel = hex(selectorOf("isAuthorized(uint64,address)"));

  it("value sent to any function reverts NonPayable() before the calldata charge", () => {
    for (const input of [createPolicy(PolicyType.ALLOWLIST), isAuthorizedCall(0n, ALICE), Uint8Array.of(1, 2)]) {
      const out = runTx(activatedHost(), input, { value: 1n });
      expectRevert(out, errorData("NonPayable()"));
      expect(out.gasUsed).toBe(0);
    }
  });

  it("fewer than 4 bytes → 0x00000000; unknown or later-version selectors → the raw selector (after the calldata charge)", () => {
    expectRevert(runTx(activatedHost(), Uint8Array.of(0x55, 0xa1, 0x17)), "0x00000000");
    const out = runTx(activatedHost(), Uint8Array.of(0xde, 0xad, 0xbe, 0xef, 1));
    expectRevert(out, "0xdeadbeef");
    expect(out.gasUsed).toBe(CALLDATA(5));
    expectRevert(runTx(activatedHost(), createComposite(PolicyType.UNION, [2n, 3n]), { fork: OpFork.beryl }), hex(selectorOf("createCompositePolicy(address,uint8,uint64[])")));
    expectRevert(runTx(activatedHost(), call("invertedPolicyId(uint64)", ["uint64"], [2n]), { fork: OpFork.cobalt }), hex(selectorOf("invertedPolicyId(uint64)")));
  });

  it("below Beryl the dispatcher reverts with empty data", () => {
    expectRevert(runTx(activatedHost(), isAuthorizedCall(0n, ALICE), { fork: OpFork.azul }), "0x");
  });

  it("short calldata: V1 fails the interface's 32-byte minimum (type check naming IPolicyRegistryCalls), V2 overruns", () => {
    const short = isAuthorizedCall(0n, ALICE).subarray(0, 14);
    expectRevert(runTx(activatedHost(), short), `${isAuthSel}${utf8hex(`type check failed for "IPolicyRegistryCalls" with data: ${Buffer.from(short).toString("hex")}`)}`);
    expectRevert(runTx(activatedHost(), short, { fork: OpFork.cobalt }), `${isAuthSel}${utf8hex("ABI decoding failed: buffer overrun while deserializing")}`);
    // Past V1's minimum but short of the second argument: an overrun at both versions.
    const half = isAuthorizedCall(0n, ALICE).subarray(0, 40);
    expectRevert(runTx(activatedHost(), half), `${isAuthSel}${utf8hex("ABI decoding failed: buffer overrun while deserializing")}`);
  });

  it("malformed arguments fail alloy's type check of the argument tuple (dirty address bits, a uint64 overflow, an out-of-range PolicyType)", () => {
    const dirty = isAuthorizedCall(0n, ALICE);
    dirty[4 + 32 + 11] = 1;
    const args = Buffer.from(dirty.subarray(4)).toString("hex");
    expectRevert(runTx(activatedHost(), dirty), `${isAuthSel}${utf8hex(`type check failed for "(uint64,address)" with data: ${args}`)}`);
    const wide = isAuthorizedCall(0n, ALICE);
    wide[4 + 23] = 1; // 2^64
    expectRevert(runTx(activatedHost(), wide), `${isAuthSel}${utf8hex(`type check failed for "(uint64,address)" with data: ${Buffer.from(wide.subarray(4)).toString("hex")}`)}`);
    const sel = hex(selectorOf("createPolicy(address,uint8)"));
    const v2Type4 = createPolicy(4);
    expectRevert(runTx(activatedHost(), v2Type4, { fork: OpFork.cobalt }), `${sel}${utf8hex(`type check failed for "(address,uint8)" with data: ${Buffer.from(v2Type4.subarray(4)).toString("hex")}`)}`);
  });

  it("a write's arguments are validated before the activation gate; then an inactive registry reverts FeatureNotActivated(base.policy_registry)", () => {
    const host = new AccessListHost();
    const out = runTx(host, createPolicy(2), free);
    expect(out.status === "revert" && Buffer.from(out.output.subarray(4)).toString("utf8")).toMatch(/^type check failed/);
    expectRevert(runTx(host, createPolicy(PolicyType.ALLOWLIST), free), errorData("FeatureNotActivated(bytes32)", ["bytes32"], [POLICY_REGISTRY_FEATURE]));
  });

  it("nonexistent ids: writes revert PolicyNotFound(); views answer false/zero", () => {
    const host = activatedHost();
    const missing = makePolicyId(PolicyType.ALLOWLIST, 77n);
    expectRevert(runTx(host, updateAllowlist(missing, true, [ALICE]), free), errorData("PolicyNotFound()"));
    expectRevert(runTx(host, updateBlocklist(7n, true, [ALICE]), free), errorData("PolicyNotFound()"));
    expectRevert(runTx(host, call("stageUpdateAdmin(uint64,address)", ["uint64", "address"], [missing, BOB]), free), errorData("PolicyNotFound()"));
    expectRevert(runTx(host, call("finalizeUpdateAdmin(uint64)", ["uint64"], [missing]), free), errorData("PolicyNotFound()"));
    expectRevert(runTx(host, call("renounceAdmin(uint64)", ["uint64"], [missing]), free), errorData("PolicyNotFound()"));
    expectRevert(runTx(host, call("updateComposite(uint64,uint64[])", ["uint64", "uint64[]"], [makePolicyId(PolicyType.UNION, 9n), [2n, 3n]]), { ...free, fork: OpFork.cobalt }), errorData("PolicyNotFound()"));
    expect(hex(expectOk(runTx(host, call("policyExists(uint64)", ["uint64"], [missing]), free)))).toBe(`0x${"0".repeat(64)}`);
    expect(hex(expectOk(runTx(host, call("policyAdmin(uint64)", ["uint64"], [missing]), free)))).toBe(`0x${"0".repeat(64)}`);
  });

  it("the 56-bit counter's end reverts Panic(0x11)", () => {
    const host = activatedHost();
    host.set(POLICY_REGISTRY_ADDRESS, NEXT_COUNTER_SLOT, COUNTER_MASK);
    expectRevert(runTx(host, createPolicy(PolicyType.ALLOWLIST), free), errorData("Panic(uint256)", ["uint256"], [0x11n]));
  });

  it("batches above 64 accounts revert BatchSizeTooLarge(64)", () => {
    const host = activatedHost();
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST), free));
    const accounts = Array.from({ length: 65 }, (_, i) => addr(i + 1));
    expectRevert(runTx(host, updateAllowlist(ALLOWLIST_2, true, accounts), free), errorData("BatchSizeTooLarge(uint256)", ["uint256"], [64n]));
    expectOk(runTx(host, updateAllowlist(ALLOWLIST_2, true, accounts.slice(1)), free));
  });
});

describe("PolicyRegistry V2 composites (Cobalt)", () => {
  const cobalt = { fork: OpFork.cobalt, schedule: FREE_STORAGE_SCHEDULE };

  /** ALLOWLIST 2 {ALICE, BOB}, BLOCKLIST 3 {BOB}. */
  function twoLists(): AccessListHost {
    const host = activatedHost();
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST), cobalt));
    expectOk(runTx(host, createPolicy(PolicyType.BLOCKLIST), cobalt));
    expectOk(runTx(host, updateAllowlist(ALLOWLIST_2, true, [ALICE, BOB]), cobalt));
    expectOk(runTx(host, updateBlocklist(BLOCKLIST_3, true, [BOB]), cobalt));
    return host;
  }
  const authorized = (host: MemoryBaseHost, id: bigint, who: Uint8Array) => hex(expectOk(runTx(host, isAuthorizedCall(id, who), cobalt))).endsWith("1");

  it("INTERSECT authorizes only accounts every child authorizes; UNION any", () => {
    const host = twoLists();
    const intersect = makePolicyId(PolicyType.INTERSECT, 4n);
    expect(BigInt(hex(expectOk(runTx(host, createComposite(PolicyType.INTERSECT, [ALLOWLIST_2, BLOCKLIST_3]), cobalt))))).toBe(intersect);
    expect(authorized(host, intersect, ALICE)).toBe(true);
    expect(authorized(host, intersect, BOB)).toBe(false);
    expect(authorized(host, intersect, OUTSIDER)).toBe(false);
    const union = makePolicyId(PolicyType.UNION, 5n);
    expectOk(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, BLOCKLIST_3]), cobalt));
    expect(authorized(host, union, OUTSIDER)).toBe(true);
    expect(authorized(host, union, BOB)).toBe(true);
  });

  it("child rules: 2–4 children, each existing (PolicyNotFound first), custom and simple (InvalidChildPolicy(id))", () => {
    const host = twoLists();
    expectRevert(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, BLOCKLIST_3, ALLOWLIST_2, BLOCKLIST_3, ALLOWLIST_2]), cobalt), errorData("ChildPoliciesOutsideOfRange()"));
    expectRevert(runTx(host, createComposite(PolicyType.UNION, [ALWAYS_ALLOW_ID, 99n]), cobalt), errorData("PolicyNotFound()"));
    // The built-ins exist once the first policy was created, so they fail the second pass.
    expectRevert(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, ALWAYS_ALLOW_ID]), cobalt), errorData("InvalidChildPolicy(uint64)", ["uint64"], [ALWAYS_ALLOW_ID]));
    expectOk(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, BLOCKLIST_3]), cobalt));
    const composite = makePolicyId(PolicyType.UNION, 4n);
    expectRevert(runTx(host, createComposite(PolicyType.INTERSECT, [ALLOWLIST_2, composite]), cobalt), errorData("InvalidChildPolicy(uint64)", ["uint64"], [composite]));
    expectRevert(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, BLOCKLIST_3], addr(0)), cobalt), errorData("ZeroAddress()"));
    expectRevert(runTx(host, createComposite(PolicyType.ALLOWLIST, [ALLOWLIST_2, BLOCKLIST_3]), cobalt), errorData("IncompatiblePolicyType()"));
  });

  it("updateComposite refuses a non-composite id (IncompatiblePolicyType) and a non-admin (Unauthorized)", () => {
    const host = twoLists();
    const update = (id: bigint) => call("updateComposite(uint64,uint64[])", ["uint64", "uint64[]"], [id, [ALLOWLIST_2, BLOCKLIST_3]]);
    expectRevert(runTx(host, update(ALLOWLIST_2), cobalt), errorData("IncompatiblePolicyType()"));
    expectOk(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, BLOCKLIST_3]), cobalt));
    expectRevert(runTx(host, update(makePolicyId(PolicyType.UNION, 4n)), { ...cobalt, caller: OUTSIDER }), errorData("Unauthorized()"));
  });
});

describe("token-facing reads (isAuthorized/policyExists) and the goldens' FakePolicyAccounting seeding", () => {
  function ctxAt(host: MemoryBaseHost, fork: OpFork): BaseCallContext {
    return new BaseCallContext(host, env({ fork }), FREE_STORAGE_SCHEDULE);
  }

  it("seedPolicyMember marks the member and creates the policy word (admin 0, exists bit); seedExistingPolicy only the word", () => {
    const host = new MemoryBaseHost();
    seedPolicyMember(host, ALLOWLIST_2, ALICE);
    seedExistingPolicy(host, 7n);
    expect(host.get(POLICY_REGISTRY_ADDRESS, memberSlot(ALLOWLIST_2, ALICE))).toBe(1n);
    expect(host.get(POLICY_REGISTRY_ADDRESS, policyWordSlot(ALLOWLIST_2))).toBe(1n << 255n);
    expect(host.get(POLICY_REGISTRY_ADDRESS, policyWordSlot(7n))).toBe(1n << 255n);
    expect(host.get(POLICY_REGISTRY_ADDRESS, NEXT_COUNTER_SLOT)).toBe(0n);
  });

  it("isAuthorized reads one membership slot for a list, nothing for built-ins or malformed ids; no activation gate", () => {
    const host = new MemoryBaseHost();
    seedPolicyMember(host, ALLOWLIST_2, ALICE);
    seedPolicyMember(host, 7n, BOB); // BLOCKLIST 7 blocks BOB
    const ctx = ctxAt(host, OpFork.beryl);
    expect(isAuthorized(ctx, ALLOWLIST_2, ALICE)).toBe(true);
    expect(isAuthorized(ctx, ALLOWLIST_2, BOB)).toBe(false);
    expect(isAuthorized(ctx, 7n, BOB)).toBe(false);
    expect(isAuthorized(ctx, 7n, ALICE)).toBe(true);
    expect(ctx.counters.sload).toBe(4);
    expect(isAuthorized(ctx, ALWAYS_ALLOW_ID, BOB)).toBe(true);
    expect(isAuthorized(ctx, ALWAYS_BLOCK_ID, ALICE)).toBe(false);
    expect(isAuthorized(ctx, makePolicyId(2, 5n), ALICE)).toBe(false); // type 2 is malformed at V1
    expect(ctx.counters.sload).toBe(4);
  });

  it("policyExists: built-ins without a read, otherwise the word's exists bit (one SLOAD)", () => {
    const host = new MemoryBaseHost();
    seedExistingPolicy(host, 7n);
    const ctx = ctxAt(host, OpFork.beryl);
    expect(policyExists(ctx, ALWAYS_ALLOW_ID)).toBe(true);
    expect(policyExists(ctx, ALWAYS_BLOCK_ID)).toBe(true);
    expect(ctx.counters.sload).toBe(0);
    expect(policyExists(ctx, 7n)).toBe(true);
    expect(policyExists(ctx, 8n)).toBe(false);
    expect(ctx.counters.sload).toBe(2);
  });

  it("follows the fork: a UNION id is malformed (false) at Beryl and evaluated over its children at Cobalt", () => {
    const host = activatedHost();
    const cobalt = { fork: OpFork.cobalt, schedule: FREE_STORAGE_SCHEDULE };
    expectOk(runTx(host, createPolicy(PolicyType.ALLOWLIST), cobalt));
    expectOk(runTx(host, createPolicy(PolicyType.BLOCKLIST), cobalt));
    expectOk(runTx(host, updateAllowlist(ALLOWLIST_2, true, [ALICE]), cobalt));
    expectOk(runTx(host, createComposite(PolicyType.UNION, [ALLOWLIST_2, BLOCKLIST_3]), cobalt));
    const union = makePolicyId(PolicyType.UNION, 4n);
    expect(isAuthorized(ctxAt(host, OpFork.beryl), union, ALICE)).toBe(false);
    const ctx = ctxAt(host, OpFork.cobalt);
    expect(isAuthorized(ctx, union, ALICE)).toBe(true);
    expect(ctx.counters.sload).toBe(3); // children length, one data word, ALICE in the allowlist
  });
});
