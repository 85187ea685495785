/**
 * OverlayStateManager.changes() remembers each address's result between calls (the flashblocks
 * worker asks after every frame) and recomputes only addresses written, undone or re-rooted
 * since: after any sequence of writes, checkpoints, reverts and calls, it must equal the
 * changes of a fresh overlay given the same operations and asked once.
 */
import fc from "fast-check";
import { Address, bytesToHex, createAccount } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { OverlayStateManager } from "../../../../src/execution/state/overlayStateManager.js";
import { hashAddress } from "../../../../src/storage/hashedKeys.js";
import type { StateReader } from "../../../../src/execution/state/stateReader.js";
import { keccak256 } from "../../../../src/util/keccak.js";

const ADDRS = [1, 2, 3, 4].map((i) => new Uint8Array(20).fill(i));
const SLOTS = [1, 2, 3].map((i) => new Uint8Array(32).fill(i));

/** A base with accounts 1 and 2 (2 with storage in slot 1). */
const base: StateReader = {
  stateRoot: new Uint8Array(32),
  account: (a) => (a[0]! <= 2 ? createAccount({ nonce: 1n, balance: 100n * BigInt(a[0]!) }) : undefined),
  storage: (a, s) => (a[0] === 2 && s[0] === 1 ? new Uint8Array([7]) : new Uint8Array(0)),
  code: () => undefined,
};
/** The base's slots by hashed address and hashed slot (account 2's slot 1). */
const enumerate = (h: Uint8Array): { hashedSlot: Uint8Array; value: Uint8Array }[] =>
  bytesToHex(h) === bytesToHex(hashAddress(ADDRS[1]!)) ? [{ hashedSlot: keccak256(SLOTS[0]!), value: new Uint8Array([7]) }] : [];

type Op =
  | { k: "account"; a: number; balance: number }
  | { k: "slot"; a: number; s: number; v: number }
  | { k: "delete"; a: number }
  | { k: "wipe"; a: number }
  | { k: "checkpoint" }
  | { k: "commit" }
  | { k: "revert" }
  | { k: "changes" };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant("account" as const), a: fc.nat(2), balance: fc.nat(5) }),
  fc.record({ k: fc.constant("slot" as const), a: fc.nat(2), s: fc.nat(2), v: fc.nat(3) }),
  fc.record({ k: fc.constant("delete" as const), a: fc.nat(2) }),
  fc.record({ k: fc.constant("wipe" as const), a: fc.nat(2) }),
  fc.constant({ k: "checkpoint" as const }),
  fc.constant({ k: "commit" as const }),
  fc.constant({ k: "revert" as const }),
  fc.constant({ k: "changes" as const }),
);

/** Runs `ops`; `ask`: "never" calls changes(), "ops" at the "changes" operations, "always" after every operation. */
async function run(sm: OverlayStateManager, ops: Op[], ask: "never" | "ops" | "always"): Promise<void> {
  let depth = 0;
  for (const o of ops) {
    if (ask === "always") sm.changes();
    if (o.k === "account") await sm.putAccount(new Address(ADDRS[o.a]!), createAccount({ nonce: 2n, balance: BigInt(o.balance) }));
    else if (o.k === "slot") await sm.putStorage(new Address(ADDRS[o.a]!), SLOTS[o.s]!, o.v === 0 ? new Uint8Array(0) : new Uint8Array([o.v]));
    else if (o.k === "delete") await sm.deleteAccount(new Address(ADDRS[o.a]!));
    else if (o.k === "wipe") sm.wipeStorageSync(ADDRS[o.a]!);
    else if (o.k === "checkpoint") {
      await sm.checkpoint();
      depth++;
    } else if (o.k === "commit" && depth > 0) {
      await sm.commit();
      depth--;
    } else if (o.k === "revert" && depth > 0) {
      await sm.revert();
      depth--;
    } else if (o.k === "changes" && ask) sm.changes();
  }
}

const show = (c: ReturnType<OverlayStateManager["changes"]>): unknown => JSON.parse(JSON.stringify(c, (_k, v: unknown) => (v instanceof Uint8Array ? bytesToHex(v) : v)));

describe("overlay changes, remembered between calls", () => {
  it("equal a fresh overlay's after any operations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const fresh = new OverlayStateManager(base, undefined as never, enumerate);
        await run(fresh, ops, "never");
        const want = show(fresh.changes());
        for (const ask of ["ops", "always"] as const) {
          const asked = new OverlayStateManager(base, undefined as never, enumerate);
          await run(asked, ops, ask);
          expect(show(asked.changes())).toEqual(want);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
