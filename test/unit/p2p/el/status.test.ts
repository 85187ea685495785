/**
 * The eth/68 Status message: encoding (decoded back field by field), the checks a peer's Status
 * goes through (version, network id, genesis, fork id) and malformed Status messages.
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { ForkFilter } from "../../../../src/p2p/el/forkId.js";
import { checkStatus, decodeStatus, encodeStatus, ETH_VERSION, type EthStatus } from "../../../../src/p2p/el/status.js";

const genesis = new Uint8Array(32).fill(0xab);
const forks = ForkFilter.create(genesis, 100n, [], [200n]);
const head = { number: 10n, timestamp: 150n };
const local = { networkId: 8453n, genesis, forks };
const status: EthStatus = { version: ETH_VERSION, networkId: 8453n, totalDifficulty: 0n, head: new Uint8Array(32).fill(1), genesis, forkId: forks.forkId(head) };

describe("eth Status", () => {
  it("encodes [version, networkid, td, blockhash, genesis, [forkhash, forknext]]", () => {
    const fields = RLP.decode(encodeStatus(status)) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array[]];
    expect(Buffer.from(fields[0]).toString("hex")).toBe("44");
    expect(Buffer.from(fields[1]).toString("hex")).toBe("2105");
    expect(fields[2]).toEqual(new Uint8Array(0));
    expect(fields[3]).toEqual(status.head);
    expect(fields[4]).toEqual(genesis);
    expect(fields[5][0]).toEqual(forks.forkId(head).hash);
    expect(Buffer.from(fields[5][1]!).toString("hex")).toBe("c8");
    expect(decodeStatus(encodeStatus(status))).toEqual(status);
  });

  it("accepts a matching Status and refuses other versions, networks, genesis and fork ids", () => {
    expect(() => checkStatus(local, head, status)).not.toThrow();
    expect(() => checkStatus(local, head, { ...status, version: 67 })).toThrow(/eth version 67/);
    expect(() => checkStatus(local, head, { ...status, networkId: 10n })).toThrow(/network id 10/);
    expect(() => checkStatus(local, head, { ...status, genesis: new Uint8Array(32) })).toThrow(/genesis/);
    expect(() => checkStatus(local, head, { ...status, forkId: { hash: Uint8Array.of(0, 0, 0, 0), next: 0n } })).toThrow(/fork/);
  });

  it("refuses malformed Status messages", () => {
    expect(() => decodeStatus(Uint8Array.of(0xff, 0x00))).toThrow(/not valid RLP/);
    expect(() => decodeStatus(RLP.encode([Uint8Array.of(68)]))).toThrow(/6 items/);
    const badFork = RLP.encode([Uint8Array.of(68), Uint8Array.of(1), new Uint8Array(0), new Uint8Array(32), new Uint8Array(32), [Uint8Array.of(1, 2), new Uint8Array(0)]]);
    expect(() => decodeStatus(badFork)).toThrow(/fork id/);
  });
});
