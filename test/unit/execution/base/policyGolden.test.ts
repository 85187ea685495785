/**
 * Every case of base/base's PolicyRegistry golden tests (`../shared/fixtures/base-upgrades/
 * b20_policy_v{1,2}_golden.json`, README there): call steps with their exact return/revert bytes,
 * events, the pinned `storageHash`, storage-access footprints and the fork → version map, run over
 * the in-memory host with base/base's HashMapStorageProvider prices (FREE_STORAGE_SCHEDULE).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OpFork, type OpForkName } from "../../../../src/chain/op/forks.js";
import { activationRegistryHandler, POLICY_REGISTRY_FEATURE, staticActivationAdmin } from "../../../../src/execution/base/activation/index.js";
import { ACTIVATION_REGISTRY_ADDRESS, POLICY_REGISTRY_ADDRESS } from "../../../../src/execution/base/addresses.js";
import { BaseCallContext, type BaseCallEnv } from "../../../../src/execution/base/context.js";
import { FREE_STORAGE_SCHEDULE } from "../../../../src/execution/base/gas.js";
import { outcomeOf, runBasePrecompile, type BasePrecompileOutcome } from "../../../../src/execution/base/outcome.js";
import { policyRegistryHandler, policyVersionAt } from "../../../../src/execution/base/policy/index.js";
import { keccak256 } from "../../../../src/util/keccak.js";
import { REPO_ROOT } from "../../../helpers/basaltProcess.js";
import { MemoryBaseHost } from "../../../helpers/baseMemoryHost.js";

const FIXTURES = path.join(REPO_ROOT, "..", "shared", "fixtures", "base-upgrades");

interface Expect {
  success: boolean;
  output?: string;
  revert?: string;
  error?: string;
}
interface CallStep {
  caller: string | null;
  value: string;
  fn: string;
  input: string;
  returnsPolicyId?: string;
  lastEventTopic0AfterThisStep?: string;
  expect: Expect;
}
interface Footprint {
  label: string;
  setup: string[];
  caller: string;
  input: string;
  expect: { sload: number; sstore: number; keccak256: number };
}
interface GoldenCase {
  name: string;
  kind?: string;
  fork?: OpForkName;
  activated?: boolean;
  independentSteps?: boolean;
  steps?: CallStep[];
  events?: { lastEventTopic0s?: string[]; lastEvent?: { address: string; topics: string[]; data: string } };
  storageHash?: string;
  footprints?: Footprint[];
  expect?: Record<string, string | null>;
}
interface GoldenFile {
  fork: OpForkName;
  harness: { accounts: Record<string, string> };
  caseCount: number;
  cases: GoldenCase[];
}

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ""), "hex"));
const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
const ZERO20 = new Uint8Array(20);

function env(fork: OpFork, caller: Uint8Array, value: bigint, address: Uint8Array): BaseCallEnv {
  return {
    caller,
    address,
    value,
    isStatic: false,
    gasLimit: 30_000_000,
    origin: caller,
    block: { number: 1n, timestamp: 1n, coinbase: ZERO20, chainId: 8453n },
    fork,
  };
}

/**
 * base/base's HashMapStorageProvider keeps a slot once written, even with zero (a `delete`
 * writes a zero entry), and its `hash_state` covers every entry: this host remembers the slots
 * written by committed calls so the hash can include their zero values.
 */
class RecordingHost extends MemoryBaseHost {
  /** address hex → slots written by committed calls. */
  readonly written = new Map<string, Set<bigint>>();
  private pending: [string, bigint][] = [];

  override sstore(address: Uint8Array, slot: bigint, value: bigint) {
    this.pending.push([Buffer.from(address).toString("hex"), slot]);
    return super.sstore(address, slot, value);
  }

  /** Keeps (`keep`) or forgets the writes of the call that just ended. */
  settle(keep: boolean): void {
    if (keep) {
      for (const [a, slot] of this.pending) {
        let set = this.written.get(a);
        if (set === undefined) this.written.set(a, (set = new Set()));
        set.add(slot);
      }
    }
    this.pending = [];
  }
}

/** A golden's shared state: the host and the fork its calls run at. */
class Harness {
  readonly host = new RecordingHost();
  constructor(
    readonly fork: OpFork,
    activationAdmin: Uint8Array,
    activated: boolean,
  ) {
    if (activated) {
      // ActivationRegistry.activate(keccak256("base.policy_registry")) by the static fallback admin.
      const input = new Uint8Array([...Buffer.from("59db6e85", "hex"), ...POLICY_REGISTRY_FEATURE]);
      const out = this.run(activationRegistryHandler(staticActivationAdmin(activationAdmin)), activationAdmin, 0n, input, ACTIVATION_REGISTRY_ADDRESS);
      if (out.status !== "success") throw new Error("activating the policy registry failed");
    }
  }

  /** One call; its state changes stay only on success (a reverted or halted frame is undone). */
  run(handler: typeof policyRegistryHandler, caller: Uint8Array, value: bigint, input: Uint8Array, address = POLICY_REGISTRY_ADDRESS): BasePrecompileOutcome {
    this.host.endTransaction();
    const cp = this.host.checkpoint();
    const out = runBasePrecompile(handler, input, env(this.fork, caller, value, address), this.host, FREE_STORAGE_SCHEDULE, true);
    if (out.status === "success") this.host.commit(cp);
    else this.host.revert(cp);
    this.host.settle(out.status === "success");
    return out;
  }

  /** A call with its storage-access counts (the footprint of base/base's counters). */
  measure(caller: Uint8Array, input: Uint8Array): { outcome: BasePrecompileOutcome; counters: BaseCallContext["counters"] } {
    this.host.endTransaction();
    const ctx = new BaseCallContext(this.host, env(this.fork, caller, 0n, POLICY_REGISTRY_ADDRESS), FREE_STORAGE_SCHEDULE);
    const outcome = outcomeOf(ctx, () => policyRegistryHandler(ctx, input));
    this.host.settle(false);
    return { outcome, counters: ctx.counters };
  }

  registryLogs() {
    return this.host.logsOf(POLICY_REGISTRY_ADDRESS);
  }

  /** The goldens' `hash_state`: registry logs (topics ‖ data), then the registry's slots sorted (slot ‖ value). */
  storageHash(): string {
    const parts: Uint8Array[] = [];
    for (const log of this.registryLogs()) parts.push(...log.topics, log.data);
    const written = [...(this.host.written.get(Buffer.from(POLICY_REGISTRY_ADDRESS).toString("hex")) ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const slot of written) parts.push(u256(slot), u256(this.host.get(POLICY_REGISTRY_ADDRESS, slot)));
    return hex(keccak256(Buffer.concat(parts)));
  }
}

function u256(x: bigint): Uint8Array {
  return bytes(x.toString(16).padStart(64, "0"));
}

/** Checks one step's outcome against its `expect`. */
function checkStep(label: string, step: CallStep, out: BasePrecompileOutcome): void {
  const e = step.expect;
  if (e.success) {
    expect(out.status, `${label}: ${step.fn} should succeed (${out.status} ${"output" in out ? hex(out.output) : ""})`).toBe("success");
    if (e.output !== undefined && out.status === "success") expect(hex(out.output), `${label}: ${step.fn} output`).toBe(e.output);
    if (step.returnsPolicyId !== undefined && out.status === "success") expect(BigInt(hex(out.output)), `${label}: ${step.fn} returned id`).toBe(BigInt(step.returnsPolicyId));
    return;
  }
  expect(out.status, `${label}: ${step.fn} should revert`).toBe("revert");
  if (out.status !== "revert") return;
  if (e.revert !== undefined) expect(hex(out.output), `${label}: ${step.fn} revert data`).toBe(e.revert);
  else if (e.error === "UnknownFunctionSelector") expect(hex(out.output), `${label}: ${step.fn} unknown-selector data`).toBe(step.input.slice(0, 10));
}

const counts = { cases: 0, steps: 0, hashes: 0, footprints: 0 };
const perFile: string[] = [];

for (const file of ["b20_policy_v1_golden.json", "b20_policy_v2_golden.json"]) {
  const golden = JSON.parse(readFileSync(path.join(FIXTURES, file), "utf8")) as GoldenFile;
  const activationAdmin = bytes(golden.harness.accounts.ACTIVATION_ADMIN!);
  const tally = { cases: 0, steps: 0 };

  describe(`PolicyRegistry golden ${file} (base/base, ${golden.caseCount} cases)`, () => {
    it("holds every case the file announces", () => {
      expect(golden.cases.length).toBe(golden.caseCount);
    });

    for (const c of golden.cases) {
      it(c.name, () => {
        const fork = OpFork[c.fork ?? golden.fork];
        const fresh = () => new Harness(fork, activationAdmin, c.activated !== false);

        if (c.kind === "versionMap") {
          for (const [name, version] of Object.entries(c.expect!)) {
            const v = policyVersionAt(OpFork[name as OpForkName]);
            expect(v === undefined ? null : `V${v}`, name).toBe(version);
          }
        } else if (c.kind === "storageAccessFootprint") {
          for (const fp of c.footprints!) {
            const h = fresh();
            for (const s of fp.setup) {
              expect(s, "only the ALLOWLIST-creation setup is used").toBe("createPolicy(ADMIN, ALLOWLIST) by ADMIN");
              const admin = bytes(golden.harness.accounts.ADMIN!);
              const input = bytes(`ca5d55f6${"0".repeat(24)}${Buffer.from(admin).toString("hex")}${"0".repeat(63)}1`);
              expect(h.run(policyRegistryHandler, admin, 0n, input).status).toBe("success");
            }
            const { outcome, counters } = h.measure(bytes(fp.caller), bytes(fp.input));
            expect(outcome.status, fp.label).toBe("success");
            expect(counters, fp.label).toEqual(fp.expect);
            counts.footprints++;
            tally.steps++;
          }
        } else {
          let h = fresh();
          for (const step of c.steps!) {
            if (c.independentSteps) h = fresh();
            const out = h.run(policyRegistryHandler, step.caller === null ? ZERO20 : bytes(step.caller), BigInt(step.value), bytes(step.input));
            checkStep(c.name, step, out);
            if (step.lastEventTopic0AfterThisStep !== undefined) expect(hex(h.registryLogs().at(-1)!.topics[0]!), `${c.name}: last event after ${step.fn}`).toBe(step.lastEventTopic0AfterThisStep);
            tally.steps++;
          }
          const logs = h.registryLogs();
          if (c.events?.lastEventTopic0s !== undefined) {
            const n = c.events.lastEventTopic0s.length;
            expect(logs.slice(-n).map((l) => hex(l.topics[0]!)), `${c.name}: last events`).toEqual(c.events.lastEventTopic0s);
          }
          if (c.events?.lastEvent !== undefined) {
            const last = logs.at(-1)!;
            expect({ address: hex(last.address), topics: last.topics.map(hex), data: hex(last.data) }, `${c.name}: last event`).toEqual(c.events.lastEvent);
          }
          if (c.storageHash !== undefined) {
            expect(h.storageHash(), `${c.name}: storageHash`).toBe(c.storageHash);
            counts.hashes++;
          }
        }
        tally.cases++;
        counts.cases++;
      });
    }

    afterAll(() => {
      perFile.push(`${file}: ${tally.cases}/${golden.caseCount} cases, ${tally.steps} call steps passed`);
    });
  });
}

afterAll(() => {
  console.log(`PolicyRegistry goldens — ${perFile.join("; ")}; ${counts.hashes} storage hashes, ${counts.footprints} footprints matched`);
});
