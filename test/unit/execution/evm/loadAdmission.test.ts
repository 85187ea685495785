/**
 * The call contexts' cache admission (execution/evm/loadAdmission.ts) and EvmState.evictLoads:
 * what one call loaded is kept only when it was loaded before, recently; the cache stays bounded
 * while the head stands still; reads after an eviction come from the source again, unchanged.
 */
import { createAccount, type Account } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { LoadAdmission } from "../../../../src/execution/evm/loadAdmission.js";
import { addressKey, EvmState, type StateSource } from "../../../../src/execution/evm/state.js";
import { wordFromBytes } from "../../../../src/execution/evm/u256.js";

const address = (i: number): Uint8Array => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  a[0] = 0xaa;
  return a;
};
const slotKey = (i: number): Uint8Array => {
  const k = new Uint8Array(32);
  new DataView(k.buffer).setUint32(28, i);
  return k;
};

/** A source with one account per index (balance = index + 1), storage value = slot index + 7, counting reads. */
function countingSource(): StateSource & { accountReads: number; slotReads: number } {
  const src = {
    accountReads: 0,
    slotReads: 0,
    getAccountSync(a: Uint8Array): Account | undefined {
      src.accountReads++;
      const i = new DataView(a.buffer, a.byteOffset).getUint32(16);
      return createAccount({ nonce: 0n, balance: BigInt(i + 1) });
    },
    getStorageSync(_a: Uint8Array, slot: Uint8Array): Uint8Array {
      src.slotReads++;
      return Uint8Array.of(new DataView(slot.buffer, slot.byteOffset).getUint32(28) + 7);
    },
    codeByHash: (): Uint8Array | undefined => undefined,
  };
  return src;
}

/** One "call": loads account `i` (and slot `s` of it), then ends as a call context does. */
function call(state: EvmState, admission: LoadAdmission, i: number, s?: number, max = { accounts: 1_000, slots: 1_000 }): { balance: bigint; slot?: number } {
  const e = state.account(address(i));
  const out: { balance: bigint; slot?: number } = { balance: e.balance };
  if (s !== undefined) {
    const w = wordFromBytes(slotKey(s));
    out.slot = state.slot(e, w, 0).current[0];
  }
  state.discardTransaction();
  state.evictLoads(admission, max.accounts, max.slots);
  return out;
}

describe("LoadAdmission", () => {
  it("admits a key on its second sighting, not its first", () => {
    const a = new LoadAdmission(1024);
    expect(a.admit("alpha")).toBe(false);
    expect(a.admit("beta")).toBe(false);
    expect(a.admit("alpha")).toBe(true);
    expect(a.admit("beta")).toBe(true);
    // A salt makes a different key (a slot of another account).
    expect(a.admit("alpha", "owner")).toBe(false);
    expect(a.admit("alpha", "owner")).toBe(true);
  });

  it("rejects a table size that is not a power of two", () => {
    expect(() => new LoadAdmission(1000)).toThrow(/power of two/);
    expect(() => new LoadAdmission(1)).toThrow(/power of two/);
  });
});

describe("EvmState.evictLoads", () => {
  it("drops an account read once and keeps one read twice", () => {
    const src = countingSource();
    const state = new EvmState(src, true);
    const admission = new LoadAdmission(1024);
    expect(call(state, admission, 5).balance).toBe(6n);
    expect(state.loaded(addressKey(address(5)))).toBeUndefined();
    expect(call(state, admission, 5).balance).toBe(6n);
    expect(state.loaded(addressKey(address(5)))).toBeDefined();
    // Cached now: the third call reads nothing from the source.
    const reads = src.accountReads;
    expect(call(state, admission, 5).balance).toBe(6n);
    expect(src.accountReads).toBe(reads);
  });

  it("keeps a hot account's slots only once each is read twice", () => {
    const src = countingSource();
    const state = new EvmState(src, true);
    const admission = new LoadAdmission(1024);
    call(state, admission, 1);
    call(state, admission, 1); // account 1 admitted
    for (let s = 0; s < 50; s++) expect(call(state, admission, 1, s).slot).toBe(s + 7);
    const e = state.loaded(addressKey(address(1)))!;
    expect(e.slots.size).toBe(0);
    const reads = src.slotReads;
    expect(call(state, admission, 1, 3).slot).toBe(10);
    expect(e.slots.size).toBe(1);
    expect(src.slotReads).toBe(reads + 1);
    expect(call(state, admission, 1, 3).slot).toBe(10);
    expect(src.slotReads).toBe(reads + 1);
  });

  it("stays bounded under a stream of distinct reads, and answers stay the source's", () => {
    const src = countingSource();
    const state = new EvmState(src, true);
    const admission = new LoadAdmission(4096);
    const max = { accounts: 64, slots: 32 };
    for (let i = 0; i < 5_000; i++) {
      // Every account twice in a row (admitted), a hot account 0 with a new slot each time.
      const r = call(state, admission, i, undefined, max);
      expect(r.balance).toBe(BigInt(i + 1));
      expect(call(state, admission, i, undefined, max).balance).toBe(BigInt(i + 1));
      expect(call(state, admission, 0, i % 100, max).slot).toBe((i % 100) + 7);
      expect(call(state, admission, 0, i % 100, max).slot).toBe((i % 100) + 7);
      const hot = state.loaded(addressKey(address(0)));
      if (hot !== undefined) expect(hot.slots.size).toBeLessThanOrEqual(max.slots + 1);
    }
    let cached = 0;
    for (let i = 0; i < 5_000; i++) if (state.loaded(addressKey(address(i))) !== undefined) cached++;
    expect(cached).toBeLessThanOrEqual(max.accounts + 1);
  });

  it("keeps everything when loads are not tracked (a block's state)", () => {
    const state = new EvmState(countingSource());
    const admission = new LoadAdmission(1024);
    call(state, admission, 9);
    expect(state.loaded(addressKey(address(9)))).toBeDefined();
  });
});
