/**
 * basalt's lean EIP-1153 transient storage behaves as @ethereumjs's TransientStorage: random
 * sequences of put / checkpoint / commit / revert / clear over a few addresses and slots give the
 * same `get` answers for every slot and the same non-zero entries in `toJSON`.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createAddressFromString, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leanTransientStorageMethods } from "../../../src/execution/leanTransientStorage.js";

/** The transient storage interface both implement. */
interface Storage {
  get(addr: ReturnType<typeof createAddressFromString>, key: Uint8Array): Uint8Array;
  put(addr: ReturnType<typeof createAddressFromString>, key: Uint8Array, value: Uint8Array): void;
  commit(): void;
  checkpoint(): void;
  revert(): void;
  clear(): void;
  toJSON(): Record<string, Record<string, string>>;
}

/** @ethereumjs's own class (this test process never installs the speedups). */
async function original(): Promise<new () => Storage> {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve("@ethereumjs/evm")), "..", "esm");
  return ((await import(pathToFileURL(path.join(dir, "transientStorage.js")).href)) as { TransientStorage: new () => Storage }).TransientStorage;
}

/** A lean instance: the fields @ethereumjs's constructor sets, the lean methods. */
function lean(): Storage {
  return Object.assign(Object.create(leanTransientStorageMethods) as Storage, { _storage: new Map(), _changeJournal: [], _indices: [0] });
}

const ADDRESSES = ["0x00000000000000000000000000000000000000a1", "0x00000000000000000000000000000000000000b2"].map(createAddressFromString);
const SLOTS = [0n, 1n, 2n ** 255n].map((n) => setLengthLeft(hexToBytes(`0x${n.toString(16).padStart(2, "0")}`), 32));

type Op = { op: "put"; a: number; s: number; v: number } | { op: "checkpoint" | "commit" | "revert" | "clear" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("put" as const), a: fc.nat(ADDRESSES.length - 1), s: fc.nat(SLOTS.length - 1), v: fc.nat(300) }) },
  { weight: 2, arbitrary: fc.constant({ op: "checkpoint" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "commit" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "revert" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
);

/** A value as the TSTORE opcode passes it: empty for zero, else the minimal big-endian bytes. */
const valueBytes = (v: number): Uint8Array => (v === 0 ? new Uint8Array(0) : hexToBytes(`0x${v.toString(16).padStart(v < 256 ? 2 : 4, "0")}`));

/** toJSON without the zero entries @ethereumjs leaves behind after a revert. */
const nonZero = (j: Record<string, Record<string, string>>): Record<string, Record<string, string>> =>
  Object.fromEntries(
    Object.entries(j)
      .map(([a, slots]) => [a, Object.fromEntries(Object.entries(slots).filter(([, v]) => /[1-9a-f]/.test(v.slice(2))))] as const)
      .filter(([, slots]) => Object.keys(slots).length > 0),
  );

describe("lean transient storage", () => {
  it("answers as @ethereumjs's TransientStorage after any sequence of operations", async () => {
    const Original = await original();
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const a = new Original();
        const b = lean();
        let depth = 1;
        for (const o of ops) {
          if (o.op === "put") {
            a.put(ADDRESSES[o.a]!, SLOTS[o.s]!, valueBytes(o.v));
            b.put(ADDRESSES[o.a]!, SLOTS[o.s]!, valueBytes(o.v));
          } else if (o.op === "checkpoint") {
            a.checkpoint();
            b.checkpoint();
            depth++;
          } else if (o.op === "commit" || o.op === "revert") {
            if (depth === 0) continue; // both throw "Nothing to …" here; checked below
            a[o.op]();
            b[o.op]();
            depth--;
          } else {
            a.clear();
            b.clear();
          }
          for (const addr of ADDRESSES) for (const slot of SLOTS) expect(b.get(addr, slot)).toEqual(a.get(addr, slot));
        }
        expect(nonZero(b.toJSON())).toEqual(nonZero(a.toJSON()));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses what @ethereumjs refuses: a short key, a long value, commit or revert with no frame open", () => {
    const s = lean();
    expect(() => s.put(ADDRESSES[0]!, new Uint8Array(31), new Uint8Array(1))).toThrow("Transient storage key must be 32 bytes long");
    expect(() => s.put(ADDRESSES[0]!, SLOTS[0]!, new Uint8Array(33))).toThrow("Transient storage value cannot be longer than 32 bytes");
    s.commit();
    expect(() => s.commit()).toThrow("Nothing to commit");
    expect(() => s.revert()).toThrow("Nothing to revert");
  });
});
