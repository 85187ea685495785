/**
 * Runs the B-20 golden vectors (../shared/fixtures/base-upgrades/*_golden.json, converted from
 * base/base's `crates/common/precompiles/tests/*_golden.rs`) against basalt's token logic over
 * {@link MemoryBaseHost} with the free (HashMapStorageProvider) gas schedule, the way the Rust
 * goldens drive base/base: `route` (privileged or not) or the full dispatch, raw storage seeding,
 * a separate in-memory policy registry per call (`FakePolicyAccounting`), and the README's
 * storage hash.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { OpFork, type OpForkName } from "../../../../src/chain/op/forks.js";
import { BaseCallContext, type BaseCallEnv } from "../../../../src/execution/base/context.js";
import { FREE_STORAGE_SCHEDULE } from "../../../../src/execution/base/gas.js";
import type { SlotWrite } from "../../../../src/execution/base/host.js";
import { outcomeOf, type BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import { mappingSlotOfAddress, u256Bytes } from "../../../../src/execution/base/slots.js";
import { B20Variant } from "../../../../src/execution/base/b20/address.js";
import { B20PolicyScope, B20Role } from "../../../../src/execution/base/b20/constants.js";
import { dispatchToken, emptyRevert, routeToken, tokenVersionAt } from "../../../../src/execution/base/b20/dispatch.js";
import type { PolicyPort } from "../../../../src/execution/base/b20/policyPort.js";
import { isAuthorized, policyExists, seedExistingPolicy, seedPolicyMember } from "../../../../src/execution/base/policy/index.js";
import { AssetSlot, CoreSlot, STABLECOIN_CURRENCY_SLOT } from "../../../../src/execution/base/b20/storage.js";
import { B20Token } from "../../../../src/execution/base/b20/token.js";
import { keccak256 } from "../../../../src/util/keccak.js";
import { decodeParams } from "../../../../src/execution/base/abi.js";
import { permitDigest } from "../../../../src/execution/base/b20/permit.js";
import { MemoryBaseHost } from "../../../helpers/baseMemoryHost.js";

/** The fixture folder (read-only, shared by every worktree). */
export const FIXTURES = resolve(process.cwd(), "../shared/fixtures/base-upgrades");

export type Json = Record<string, unknown>;

export function loadGolden(file: string): { harness: Json; cases: Json[]; fork: string } {
  return JSON.parse(readFileSync(resolve(FIXTURES, file), "utf8")) as { harness: Json; cases: Json[]; fork: string };
}

export const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
export const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ""), "hex"));
export const addr = (h: string | null | undefined): Uint8Array => (h === null || h === undefined ? new Uint8Array(20) : bytes(h));

/** A MemoryBaseHost that also remembers every slot written (zero values included) and every slot read. */
export class RecordingHost extends MemoryBaseHost {
  readonly written = new Map<string, Set<bigint>>();
  readonly read = new Map<string, Set<bigint>>();

  override sstore(address: Uint8Array, slot: bigint, value: bigint): SlotWrite {
    const key = Buffer.from(address).toString("hex");
    let set = this.written.get(key);
    if (set === undefined) this.written.set(key, (set = new Set()));
    set.add(slot);
    return super.sstore(address, slot, value);
  }

  override sload(address: Uint8Array, slot: bigint): { value: bigint; cold: boolean } {
    const key = Buffer.from(address).toString("hex");
    let set = this.read.get(key);
    if (set === undefined) this.read.set(key, (set = new Set()));
    set.add(slot);
    return super.sload(address, slot);
  }
}

/**
 * The README's storage hash: for each address in `scope`, its logs in order (topics ‖ data),
 * then every (address, slot, value) triple of those addresses sorted by (address, slot):
 * address ‖ slot ‖ value. `withZeros` includes slots written to zero (a HashMap provider keeps
 * them as entries).
 */
export function storageHash(host: RecordingHost, scope: readonly Uint8Array[], withZeros: boolean): string {
  const parts: Uint8Array[] = [];
  for (const a of scope) for (const log of host.logsOf(a)) parts.push(...log.topics, log.data);
  const triples: { a: string; slot: bigint; value: bigint }[] = [];
  for (const a of scope) {
    const key = Buffer.from(a).toString("hex");
    const slots = new Set<bigint>(host.storage.get(key)?.keys() ?? []);
    if (withZeros) for (const s of host.written.get(key) ?? []) slots.add(s);
    for (const slot of slots) triples.push({ a: key, slot, value: host.get(a, slot) });
  }
  triples.sort((x, y) => (x.a < y.a ? -1 : x.a > y.a ? 1 : x.slot < y.slot ? -1 : x.slot > y.slot ? 1 : 0));
  for (const t of triples) parts.push(bytes(t.a), u256Bytes(t.slot), u256Bytes(t.value));
  return hex(keccak256(Buffer.concat(parts)));
}

/** The OpFork of a golden's fork name. */
export function forkOf(name: string): OpFork {
  return OpFork[name as OpForkName];
}

/** Builds the policy registry a call sees from a step's `policyRegistry` (members, existing policies), at `fork`. */
export type PolicyFactory = (spec: Json | undefined, fork: OpFork) => PolicyPort;

/**
 * base/base's `FakePolicyAccounting`: the real registry logic (V1 below Cobalt, V2 from) over its
 * own in-memory registry storage — not the token's provider, so its reads are neither counted in
 * the token's footprint nor part of the token's storage hash. `members` are `allow(id, account)`,
 * `existingPolicies` are `create_existing_policy(id)`; absent means empty.
 */
export const fakePolicyRegistry: PolicyFactory = (spec, fork) => {
  const host = new MemoryBaseHost();
  for (const m of (spec?.members as Json[] | undefined) ?? []) seedPolicyMember(host, BigInt(m.policyId as string), addr(m.account as string));
  for (const id of (spec?.existingPolicies as string[] | undefined) ?? []) seedExistingPolicy(host, BigInt(id));
  const registry = new BaseCallContext(host, callEnv({ caller: new Uint8Array(20), address: new Uint8Array(20), fork, timestamp: 0n }), FREE_STORAGE_SCHEDULE);
  return {
    isAuthorized: (_ctx, policyId, account) => isAuthorized(registry, policyId, account),
    policyExists: (_ctx, policyId) => policyExists(registry, policyId),
  };
};

export interface CallEnvOptions {
  caller: Uint8Array;
  address: Uint8Array;
  value?: bigint;
  fork: OpFork;
  timestamp: bigint;
  isStatic?: boolean;
  gasLimit?: number;
}

/** Environment of one golden call (chain id 8453, block 1). */
export function callEnv(o: CallEnvOptions): BaseCallEnv {
  return {
    caller: o.caller,
    address: o.address,
    value: o.value ?? 0n,
    isStatic: o.isStatic ?? false,
    gasLimit: o.gasLimit ?? 1_000_000_000,
    origin: o.caller,
    block: { number: 1n, timestamp: o.timestamp, coinbase: new Uint8Array(20), chainId: 8453n },
    fork: o.fork,
  };
}

/** Result of comparing one step. */
export interface StepResult {
  ok: boolean;
  detail?: string;
}

/** Compares an outcome with a golden `expect`. */
export function checkExpect(outcome: BasePrecompileOutcome, expect: Json): StepResult {
  const out = outcome.status === "halt" ? `(${outcome.error.message})` : hex(outcome.output);
  if (expect.success === true) {
    if (outcome.status !== "success") return { ok: false, detail: `expected success, got ${outcome.status} ${out}` };
    if (expect.output !== undefined && out !== (expect.output as string).toLowerCase()) return { ok: false, detail: `output ${out} != ${expect.output as string}` };
    return { ok: true };
  }
  if (outcome.status !== "revert") return { ok: false, detail: `expected revert, got ${outcome.status} ${out}` };
  if (expect.revert !== undefined && out !== (expect.revert as string).toLowerCase()) return { ok: false, detail: `revert ${out} != ${expect.revert as string}` };
  if (expect.error === "UnknownFunctionSelector" && out !== (expect.selector as string).toLowerCase()) return { ok: false, detail: `unknown selector revert ${out} != ${expect.selector as string}` };
  if (expect.error === "AbiDecodeFailed") {
    const prefix = ((expect.selector ?? expect.revertPrefix ?? (expect.revert as string).slice(0, 10)) as string).toLowerCase();
    if (!out.startsWith(prefix) || out.length <= prefix.length) return { ok: false, detail: `decode-failure revert ${out} does not start with ${prefix} plus a message` };
    if (expect.errorText !== undefined && Buffer.from(out.slice(10), "hex").toString("utf8") !== expect.errorText) return { ok: false, detail: `decode-failure text of ${out} != ${expect.errorText as string}` };
  }
  return { ok: true };
}

/** A token golden file's driver: fresh states, seeds, calls, checks. */
export class TokenGolden {
  readonly token: Uint8Array;
  readonly variant: B20Variant;
  readonly fork: OpFork;
  host!: RecordingHost;
  timestamp = 0n;
  /** The fork the current case runs at (a case may override the file's). */
  caseFork: OpFork;

  constructor(
    readonly file: { harness: Json; fork: string },
    readonly policies: PolicyFactory,
  ) {
    const fresh = file.harness.fresh as Json;
    this.token = addr(fresh.token as string);
    this.variant = fresh.variant === "asset" ? B20Variant.asset : B20Variant.stablecoin;
    this.fork = forkOf(file.fork);
    this.caseFork = this.fork;
  }

  private ctx(caller: Uint8Array, fork = this.caseFork, value = 0n): BaseCallContext {
    return new BaseCallContext(this.host, callEnv({ caller, address: this.token, fork, timestamp: this.timestamp, value }), FREE_STORAGE_SCHEDULE);
  }

  /** A token object over a fresh context (seeding, reads). */
  tokenAt(caller: Uint8Array, fork = this.caseFork): B20Token {
    const version = tokenVersionAt(fork) ?? 1;
    return new B20Token(this.ctx(caller, fork), this.token, this.variant, version, this.policies(undefined, fork), fork >= OpFork.cobalt);
  }

  /** `fresh()`: an initialized token (or none when `initialized` is false), timestamp 0. */
  reset(initialized = true): void {
    this.host = new RecordingHost();
    this.timestamp = 0n;
    if (!initialized) return;
    const fresh = this.file.harness.fresh as Json;
    const st = this.tokenAt(this.token).st;
    st.writeString(CoreSlot.name, fresh.name as string);
    st.writeString(CoreSlot.symbol, fresh.symbol as string);
    st.setSupplyCap(BigInt(fresh.supplyCap as string));
    if (this.variant === B20Variant.asset) {
      st.setAssetDecimals(Number(fresh.decimals));
      st.setMultiplier(0n);
    } else st.writeString(STABLECOIN_CURRENCY_SLOT, fresh.currency as string);
  }

  /** A `seed` op: raw storage setup as base/base's accessors write it. */
  seed(op: Json): void {
    const st = this.tokenAt(this.token).st;
    switch (op.op) {
      case "fund": {
        const who = addr(op.account as string);
        const amount = BigInt(op.amount as string);
        st.setBalance(who, st.balanceOf(who) + amount);
        st.setTotalSupply(st.totalSupply() + amount);
        return;
      }
      case "giveRole": {
        const role = BigInt(op.role as string);
        st.setRole(role, addr(op.account as string), true);
        st.setRoleMemberCount(role, st.roleMemberCount(role) + 1n);
        return;
      }
      case "setPolicyId": {
        // The pre-rename SEIZE_HOLDER_POLICY scope keys the same lane as SEIZE_EXEMPT_POLICY (README).
        const scope = BigInt(op.scope as string) === SEIZE_HOLDER_SCOPE ? B20PolicyScope.seizeExempt : BigInt(op.scope as string);
        st.setPolicyId(scope, BigInt(op.policyId as string));
        return;
      }
      case "setAllowance":
        st.setAllowance(addr(op.owner as string), addr(op.spender as string), BigInt(op.amount as string));
        return;
      case "setSupplyCap":
        st.setSupplyCap(BigInt((op.cap ?? op.value ?? op.amount) as string));
        return;
      case "setMultiplier":
        st.setMultiplier(BigInt((op.value ?? op.multiplier) as string));
        return;
      case "markAnnouncementIdUsed":
        st.markAnnouncementIdUsed(new TextEncoder().encode(op.id as string));
        return;
      case "setExtraMetadataValue":
        st.setExtraMetadata(new TextEncoder().encode(op.key as string), new TextEncoder().encode(op.value as string));
        return;
      case "setPendingAndEffectiveAt":
        st.setPending(BigInt(op.pendingMultiplier as string), BigInt(op.effectiveAt as string));
        return;
      case "setTimestamp":
        this.timestamp = BigInt(op.timestamp as string);
        return;
      default:
        throw new Error(`unknown seed op ${String(op.op)}`);
    }
  }

  /** Runs one call step (route, privileged or not, or the full dispatch) in a journaled frame; returns the outcome and the context. */
  call(step: Json, full: boolean): { outcome: BasePrecompileOutcome; ctx: BaseCallContext } {
    const fork = step.fork !== undefined ? forkOf(step.fork as string) : this.caseFork;
    const ctx = this.ctx(addr(step.caller as string | null), fork, BigInt((step.value as string | undefined) ?? "0"));
    const policy = this.policies(step.policyRegistry as Json | undefined, fork);
    const input = bytes(step.input as string);
    const cp = this.host.checkpoint();
    const outcome = outcomeOf(ctx, () => {
      if (full) return dispatchToken(ctx, input, this.variant, policy);
      const version = tokenVersionAt(fork);
      if (version === undefined) throw emptyRevert();
      return routeToken(new B20Token(ctx, this.token, this.variant, version, policy, fork >= OpFork.cobalt), input, step.privileged === true);
    });
    if (outcome.status === "success") this.host.commit(cp);
    else this.host.revert(cp);
    return { outcome, ctx };
  }

  /** A `state` post-condition: an ABI view (through the unprivileged route) or a raw accessor. */
  checkState(entry: Json): StepResult {
    if (entry.view !== undefined) {
      const { outcome } = this.call({ caller: null, input: entry.input, privileged: false }, false);
      if (outcome.status !== "success") return { ok: false, detail: `view ${entry.view as string} ${outcome.status}` };
      const got = hex(outcome.output);
      return got === (entry.output as string).toLowerCase() ? { ok: true } : { ok: false, detail: `view ${entry.view as string}: ${got} != ${entry.output as string}` };
    }
    const st = this.tokenAt(this.token).st;
    let got: bigint;
    switch (entry.accessor) {
      case "role_member_count":
        got = st.roleMemberCount(BigInt((entry.args as string[])[0]!));
        break;
      case "pending_multiplier":
        got = st.pendingMultiplier();
        break;
      case "pending_effective_at":
        got = st.pendingEffectiveAt();
        break;
      case "raw multiplier slot":
        got = this.host.get(this.token, AssetSlot.multiplier);
        break;
      default:
        return { ok: false, detail: `unknown accessor ${String(entry.accessor)}` };
    }
    return got === BigInt(entry.value as string) ? { ok: true } : { ok: false, detail: `${String(entry.accessor)} ${got} != ${String(entry.value)}` };
  }

  /** The `events` post-conditions of a case. */
  checkEvents(events: Json): StepResult {
    const logs = this.host.logsOf(this.token);
    if (events.lastEventTopic0s !== undefined) {
      const want = (events.lastEventTopic0s as string[]).map((t) => t.toLowerCase());
      const got = logs.slice(-want.length).map((l) => hex(l.topics[0]!));
      if (got.join() !== want.join()) return { ok: false, detail: `last topics ${got.join()} != ${want.join()}` };
    }
    const full = events.lastEvents ?? (events.lastEvent !== undefined ? [events.lastEvent] : undefined);
    if (full !== undefined) {
      const want = full as Json[];
      const got = logs.slice(-want.length);
      if (got.length !== want.length) return { ok: false, detail: `expected ${want.length} events, have ${got.length}` };
      for (let i = 0; i < want.length; i++) {
        const w = want[i]!;
        const g = got[i]!;
        if (w.topic0 !== undefined) {
          if (hex(g.topics[0]!) !== (w.topic0 as string).toLowerCase()) return { ok: false, detail: `event ${i} topic0 ${hex(g.topics[0]!)} != ${w.topic0 as string}` };
          continue;
        }
        const topics = g.topics.map(hex).join();
        if (topics !== (w.topics as string[]).map((t) => t.toLowerCase()).join() || hex(g.data) !== (w.data as string).toLowerCase() || hex(g.address) !== (w.address as string).toLowerCase())
          return { ok: false, detail: `event ${i}: ${topics} ${hex(g.data)} != ${(w.topics as string[]).join()} ${w.data as string}` };
      }
    }
    return { ok: true };
  }

  /** The README's hash over the token (zero-written slots included, as the HashMap provider keeps them). */
  storageHash(): string {
    return storageHash(this.host, [this.token], true);
  }
}

/** keccak256("SEIZE_HOLDER_POLICY"): the pre-rename name of the seize-exempt scope (stablecoin goldens @289d9f5a). */
export const SEIZE_HOLDER_SCOPE = BigInt(hex(keccak256(new TextEncoder().encode("SEIZE_HOLDER_POLICY"))));

/** Pass counts of one golden file. */
export interface Tally {
  cases: number;
  casesPassed: number;
  steps: number;
  stepsPassed: number;
  footprints: number;
  footprintsPassed: number;
  hashes: number;
  hashesPassed: number;
}

export function newTally(): Tally {
  return { cases: 0, casesPassed: 0, steps: 0, stepsPassed: 0, footprints: 0, footprintsPassed: 0, hashes: 0, hashesPassed: 0 };
}


/**
 * Runs one token golden case; returns its failures (empty when it passes) and adds to `tally`.
 * `adapt` may rewrite a step or footprint the release changed (see docs/base-precompiles-goldens.md).
 */
export function runTokenCase(g: TokenGolden, c: Json, tally: Tally, adapt: (c: Json, step: Json) => Json = (_c, s) => s): string[] {
  const failures: string[] = [];
  const kind = c.kind as string | undefined;
  g.caseFork = c.fork !== undefined ? forkOf(c.fork as string) : g.fork;
  tally.cases++;
  if (kind === "versionMap") {
    const expect = c.expect as Record<string, string | null>;
    for (const [fork, v] of Object.entries(expect)) {
      const got = tokenVersionAt(forkOf(fork));
      if ((got === undefined ? null : `V${got}`) !== v) failures.push(`version at ${fork}: ${String(got)} != ${String(v)}`);
    }
  } else if (kind === "storageAccessFootprint") {
    for (const rawFp of c.footprints as Json[]) {
      const fp = adapt(c, rawFp);
      tally.footprints++;
      g.reset();
      for (const op of (fp.setup as Json[] | undefined) ?? []) g.seed(op);
      const { outcome, ctx } = g.call(fp, false);
      const want = fp.expect as Record<string, number>;
      const got = ctx.counters;
      if (outcome.status !== "success" && fp.label !== undefined && !(fp.label as string).includes("revert") && !(fp.label as string).includes("zero_receiver")) failures.push(`footprint ${fp.label as string}: call ${outcome.status} ${outcome.status === "halt" ? outcome.error.message : hex(outcome.output)}`);
      else if (got.sload !== want.sload || got.sstore !== want.sstore || got.keccak256 !== want.keccak256) failures.push(`footprint ${fp.label as string}: (${got.sload},${got.sstore},${got.keccak256}) != (${want.sload},${want.sstore},${want.keccak256})`);
      else tally.footprintsPassed++;
    }
  } else if (kind === "storageAccessFootprintRelation") {
    failures.push(...footprintRelation(g, c));
  } else if (kind === "internal" && c.internalOp !== undefined) {
    g.reset();
    const op = c.internalOp as Json;
    g.tokenAt(addr(op.sender as string)).grantRoleUnchecked(BigInt(op.role as string), addr(op.account as string), addr(op.sender as string));
  } else if (kind === "internal") {
    failures.push(...transferHintSlots(g));
  } else {
    const independent = c.independentSteps === true;
    g.reset(c.fresh !== false);
    for (const raw of (c.steps as Json[] | undefined) ?? []) {
      if (independent) g.reset(c.fresh !== false);
      if (raw.seed !== undefined) {
        for (const op of raw.seed as Json[]) g.seed(op);
        continue;
      }
      const step = adapt(c, raw);
      tally.steps++;
      const { outcome, ctx } = g.call(step, c.envelope !== undefined);
      const r = checkExpect(outcome, step.expect as Json);
      if (!r.ok) failures.push(`step ${step.fn as string}: ${r.detail!}`);
      else if (step.expect !== undefined && (step.expect as Json).outputDecoded !== undefined) {
        const d = checkEip712(outcome, (step.expect as Json).outputDecoded as Json);
        if (d !== undefined) failures.push(d);
        else tally.stepsPassed++;
      } else tally.stepsPassed++;
      if (c.expectGasDeducted !== undefined && ctx.gasUsed !== c.expectGasDeducted) failures.push(`gas deducted ${ctx.gasUsed} != ${String(c.expectGasDeducted)}`);
    }
  }
  if (c.permitSigning !== undefined) failures.push(...checkPermitSigning(g, c));
  for (const entry of (c.state as Json[] | undefined) ?? []) {
    const r = g.checkState(entry);
    if (!r.ok) failures.push(`state: ${r.detail!}`);
  }
  if (c.events !== undefined) {
    const r = g.checkEvents(c.events as Json);
    if (!r.ok) failures.push(`events: ${r.detail!}`);
  }
  if (c.storageHash !== undefined) {
    tally.hashes++;
    const got = g.storageHash();
    if (got !== (c.storageHash as string).toLowerCase()) failures.push(`storage hash ${got} != ${c.storageHash as string}`);
    else tally.hashesPassed++;
  }
  if (failures.length === 0) tally.casesPassed++;
  return failures;
}

/**
 * `permitSigning`: the domain separator and the EIP-712 digest the converter signed must be what
 * the token derives (its domain at the case's fork, the permit step's arguments at `nonce`).
 */
function checkPermitSigning(g: TokenGolden, c: Json): string[] {
  const signing = c.permitSigning as Json;
  const step = (c.steps as Json[]).find((s) => typeof s.fn === "string" && (s.fn as string).startsWith("permit("));
  if (step === undefined) return ["permitSigning without a permit step"];
  const separator = g.tokenAt(g.token).domainSeparator();
  const [owner, spender, value, deadline, v, r, sig] = decodeParams(["address", "address", "uint256", "uint256", "uint8", "bytes32", "bytes32"], bytes(step.input as string).subarray(4)) as [Uint8Array, Uint8Array, bigint, bigint, bigint, Uint8Array, Uint8Array];
  const digest = permitDigest(keccak256, separator, { owner, spender, value, deadline, v, r, s: sig }, BigInt(signing.nonce as string));
  const out: string[] = [];
  if (signing.domainSeparator !== undefined && hex(separator) !== (signing.domainSeparator as string).toLowerCase()) out.push(`domain separator ${hex(separator)} != ${signing.domainSeparator as string}`);
  if (hex(digest) !== (signing.digest as string).toLowerCase()) out.push(`permit digest ${hex(digest)} != ${signing.digest as string}`);
  return out;
}

/** `outputDecoded` of `eip712Domain()`: the five asserted fields. */
function checkEip712(outcome: BasePrecompileOutcome, want: Json): string | undefined {
  if (outcome.status !== "success") return "eip712Domain failed";
  const out = outcome.output;
  const wordAt = (i: number): Uint8Array => out.subarray(i * 32, i * 32 + 32);
  const stringAt = (i: number): string => {
    const off = Number(BigInt(hex(wordAt(i))));
    const len = Number(BigInt(hex(out.subarray(off, off + 32))));
    return new TextDecoder().decode(out.subarray(off + 32, off + 32 + len));
  };
  const got = {
    fields: hex(wordAt(0).subarray(0, 1)),
    name: stringAt(1),
    version: stringAt(2),
    chainId: BigInt(hex(wordAt(3))).toString(),
    verifyingContract: hex(wordAt(4).subarray(12)),
  };
  for (const [k, v] of Object.entries(want)) if ((got as Record<string, string>)[k] !== String(v).toLowerCase() && (got as Record<string, string>)[k] !== String(v)) return `eip712Domain ${k} ${(got as Record<string, string>)[k]} != ${String(v)}`;
  return undefined;
}

/** Footprint of one call on a fresh state after `setup`. */
function footprintOf(g: TokenGolden, setup: Json[], step: Json): { sload: number; sstore: number; keccak256: number; ok: boolean } {
  g.reset();
  for (const op of setup) g.seed(op);
  const { outcome, ctx } = g.call(step, false);
  return { ...ctx.counters, ok: outcome.status === "success" };
}

const MEMO = "7777777777777777777777777777777777777777777777777777777777777777";
const ALICE = "0xa1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const BOB = "0xb0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0";
const ADMIN = "0xadadadadadadadadadadadadadadadadadadadad";
const word = (v: bigint | string): string => (typeof v === "bigint" ? v.toString(16) : v.replace(/^0x/, "")).padStart(64, "0");

/** The stablecoin V2 relationship cases (no pinned numbers). */
function footprintRelation(g: TokenGolden, c: Json): string[] {
  const fund = { op: "fund", account: ALICE, amount: "100" };
  const burnRole = { op: "giveRole", role: `0x${word(B20Role.burn)}`, account: ALICE };
  const call = (caller: string, input: string, policyRegistry?: Json): Json => ({ caller, input, privileged: true, policyRegistry });
  const member0 = { members: [{ policyId: "0", account: BOB }], existingPolicies: [] };
  const out: string[] = [];
  const same = (label: string, a: ReturnType<typeof footprintOf>, b: ReturnType<typeof footprintOf>): void => {
    if (!a.ok || !b.ok || a.sload !== b.sload || a.sstore !== b.sstore || a.keccak256 !== b.keccak256) out.push(`${label}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  };
  if ((c.name as string).includes("memo_variants")) {
    same("transferWithMemo", footprintOf(g, [fund], call(ALICE, `0x95777d59${word(BOB)}${word(30n)}${MEMO}`)), footprintOf(g, [fund], call(ALICE, `0xa9059cbb${word(BOB)}${word(30n)}`)));
    same("mintWithMemo", footprintOf(g, [], call(ADMIN, `0xe44f0b12${word(BOB)}${word(100n)}${MEMO}`, member0)), footprintOf(g, [], call(ADMIN, `0x40c10f19${word(BOB)}${word(100n)}`, member0)));
    same("burnWithMemo", footprintOf(g, [fund, burnRole], call(ALICE, `0x38f23b0b${word(40n)}${MEMO}`)), footprintOf(g, [fund, burnRole], call(ALICE, `0x42966c68${word(40n)}`)));
  } else {
    const seizeSetup = [fund, { op: "giveRole", role: `0x${word(B20Role.seize)}`, account: ADMIN }, { op: "setPolicyId", scope: `0x${word(B20PolicyScope.seizeExempt)}`, policyId: "72057594037927943" }, { op: "setPolicyId", scope: `0x${word(B20PolicyScope.seizeReceiver)}`, policyId: "72057594037927944" }];
    const seize = footprintOf(g, seizeSetup, call(ADMIN, `0xf916d81b${word(ALICE)}${word(BOB)}${word(30n)}${MEMO}`, { members: [{ policyId: "72057594037927944", account: BOB }], existingPolicies: [] }));
    const transfer = footprintOf(g, [fund], call(ALICE, `0xa9059cbb${word(BOB)}${word(30n)}`));
    if (!seize.ok || !transfer.ok || seize.sstore !== transfer.sstore || seize.sload < transfer.sload) out.push(`seize ${JSON.stringify(seize)} vs transfer ${JSON.stringify(transfer)}`);
  }
  return out;
}

/** `golden_transfer_hint_slots_match_sload_footprint`: the distinct token slots an unprivileged transfer/transferFrom loads. */
function transferHintSlots(g: TokenGolden): string[] {
  const out: string[] = [];
  const setup = [{ op: "fund", account: ALICE, amount: "100" }, { op: "setAllowance", owner: ALICE, spender: BOB, amount: "40" }];
  const expected = (spender: boolean): bigint[] => {
    const slots = [CoreSlot.paused, CoreSlot.transferPolicies, balanceSlot(addr(ALICE)), balanceSlot(addr(BOB))];
    if (spender) slots.push(allowanceSlot(addr(ALICE), addr(BOB)));
    return slots.sort((a, b) => (a < b ? -1 : 1));
  };
  for (const [input, spender] of [
    [`0xa9059cbb${word(BOB)}${word(30n)}`, false],
    [`0x23b872dd${word(ALICE)}${word(BOB)}${word(30n)}`, true],
  ] as const) {
    g.reset();
    for (const op of setup) g.seed(op);
    g.host.read.clear();
    const { outcome } = g.call({ caller: spender ? BOB : ALICE, input, privileged: false }, false);
    const got = [...(g.host.read.get(Buffer.from(g.token).toString("hex")) ?? [])].sort((a, b) => (a < b ? -1 : 1));
    const want = expected(spender);
    if (outcome.status !== "success" || got.join() !== want.join()) out.push(`hint slots ${spender ? "transferFrom" : "transfer"}: ${outcome.status}, ${got.length} slots vs ${want.length}`);
  }
  return out;
}

const balanceSlot = (a: Uint8Array): bigint => mappingSlotOfAddress(a, CoreSlot.balances);
const allowanceSlot = (o: Uint8Array, s: Uint8Array): bigint => mappingSlotOfAddress(s, mappingSlotOfAddress(o, CoreSlot.allowances));
