/**
 * The eth Status message of eth/68 and eth/69 (EIP-7642): encodings against reth's vectors
 * (crates/net/eth-wire-types/src/status.rs `encode_eth_status_message` for eth/67–68's layout,
 * `encode_eth69_status_message` for eth/69), the checks a peer's Status goes through (negotiated
 * version, network id, genesis, fork id, eth/69 range), malformed Status messages, the
 * BlockRangeUpdate codec and when basalt sends one (at most once per 32 blocks, never backwards).
 */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { decodeBlockRangeUpdate, encodeBlockRangeUpdate } from "../../../../src/p2p/el/ethMessages.js";
import { ForkFilter } from "../../../../src/p2p/el/forkId.js";
import { checkRange, checkStatus, decodeStatus, encodeStatus, rangeUpdateDue, type EthStatus } from "../../../../src/p2p/el/status.js";

const h = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, "hex"));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const MAINNET_GENESIS = h("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");
const BLOCKHASH = h("feb27336ca7923f8fab3bd617fcb6e75841538f71c1bcfc267d7838489d9e13d");

const genesis = new Uint8Array(32).fill(0xab);
const forks = ForkFilter.create(genesis, 100n, [], [200n]);
const head = { number: 10n, timestamp: 150n };
const local = { networkId: 8453n, genesis, forks };
const status68: EthStatus = { version: 68, networkId: 8453n, genesis, forkId: forks.forkId(head), legacy: { totalDifficulty: 0n, head: new Uint8Array(32).fill(1) } };
const status69: EthStatus = { version: 69, networkId: 8453n, genesis, forkId: forks.forkId(head), range: { earliest: 0n, latest: 10n, latestHash: new Uint8Array(32).fill(1) } };

describe("eth/69 Status", () => {
  it("encodes [version, networkid, genesis, forkid, earliest, latest, latestHash] as reth's vector", () => {
    const s: EthStatus = { version: 69, networkId: 1n, genesis: MAINNET_GENESIS, forkId: { hash: h("b715077d"), next: 0n }, range: { earliest: 15_537_394n, latest: 18_000_000n, latestHash: BLOCKHASH } };
    const vector = "f8544501a0d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3c684b715077d8083ed14f2840112a880a0feb27336ca7923f8fab3bd617fcb6e75841538f71c1bcfc267d7838489d9e13d";
    expect(hex(encodeStatus(s))).toBe(vector);
    expect(decodeStatus(h(vector), 69)).toEqual(s);
  });

  it("keeps eth/68's layout on eth/68, as reth's eth/67 vector", () => {
    const s: EthStatus = { version: 67, networkId: 1n, genesis: MAINNET_GENESIS, forkId: { hash: h("b715077d"), next: 0n }, legacy: { totalDifficulty: 36206751599115524359527n, head: BLOCKHASH } };
    const vector = "f85643018a07aac59dabcdd74bc567a0feb27336ca7923f8fab3bd617fcb6e75841538f71c1bcfc267d7838489d9e13da0d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3c684b715077d80";
    expect(hex(encodeStatus(s))).toBe(vector);
    expect(decodeStatus(h(vector), 68)).toEqual(s);
    expect(decodeStatus(encodeStatus(status68), 68)).toEqual(status68);
  });

  it("reads a Status in the negotiated version's layout only", () => {
    // An eth/68 Status on an eth/69 session has 6 items: refused.
    expect(() => decodeStatus(encodeStatus(status68), 69)).toThrow(/7 items/);
    // An eth/69 Status read as eth/68: its third item (the genesis) is no total difficulty… but the fork id is no hash.
    expect(() => decodeStatus(encodeStatus(status69), 68)).toThrow();
    expect(() => encodeStatus({ ...status69, range: undefined })).toThrow(/range/);
  });

  it("accepts a matching Status and refuses other versions, networks, genesis, fork ids and ranges", () => {
    expect(() => checkStatus(local, head, status69, 69)).not.toThrow();
    expect(() => checkStatus(local, head, status68, 68)).not.toThrow();
    expect(() => checkStatus(local, head, status68, 69)).toThrow(/eth version 68: expected 69/);
    expect(() => checkStatus(local, head, { ...status69, networkId: 10n }, 69)).toThrow(/network id 10/);
    expect(() => checkStatus(local, head, { ...status69, genesis: new Uint8Array(32) }, 69)).toThrow(/genesis/);
    expect(() => checkStatus(local, head, { ...status69, forkId: { hash: Uint8Array.of(0, 0, 0, 0), next: 0n } }, 69)).toThrow(/fork/);
    expect(() => checkStatus(local, head, { ...status69, range: { earliest: 11n, latest: 10n, latestHash: new Uint8Array(32).fill(1) } }, 69)).toThrow(/earliest block 11 is above latest block 10/);
    expect(() => checkStatus(local, head, { ...status69, range: { earliest: 0n, latest: 10n, latestHash: new Uint8Array(32) } }, 69)).toThrow(/hash is zero/);
  });

  it("refuses malformed Status messages", () => {
    expect(() => decodeStatus(Uint8Array.of(0xff, 0x00), 69)).toThrow(/not valid RLP/);
    expect(() => decodeStatus(RLP.encode([Uint8Array.of(68)]), 68)).toThrow(/6 items/);
    const badFork = RLP.encode([Uint8Array.of(68), Uint8Array.of(1), new Uint8Array(0), new Uint8Array(32), new Uint8Array(32), [Uint8Array.of(1, 2), new Uint8Array(0)]]);
    expect(() => decodeStatus(badFork, 68)).toThrow(/fork id/);
    const bigLatest = RLP.encode([Uint8Array.of(69), Uint8Array.of(1), new Uint8Array(32), [h("b715077d"), new Uint8Array(0)], new Uint8Array(0), new Uint8Array(9).fill(1), new Uint8Array(32)]);
    expect(() => decodeStatus(bigLatest, 69)).toThrow(/64-bit/);
  });
});

describe("BlockRangeUpdate", () => {
  const r = { earliest: 1n, latest: 300n, latestHash: BLOCKHASH };

  it("encodes [earliestBlock, latestBlock, latestBlockHash] and reads it back", () => {
    expect(hex(encodeBlockRangeUpdate(r))).toBe(`e50182012ca0${hex(BLOCKHASH)}`);
    expect(decodeBlockRangeUpdate(encodeBlockRangeUpdate(r))).toEqual(r);
    // Trailing items are ignored (EIP-8).
    expect(decodeBlockRangeUpdate(RLP.encode([Uint8Array.of(1), Uint8Array.of(1, 0x2c), BLOCKHASH, Uint8Array.of(9)]))).toEqual(r);
  });

  it("refuses malformed updates and ranges that are no range", () => {
    expect(() => decodeBlockRangeUpdate(RLP.encode([Uint8Array.of(1), Uint8Array.of(2)]))).toThrow(/expected \[earliestBlock/);
    expect(() => decodeBlockRangeUpdate(RLP.encode([Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)]))).toThrow(/32-byte/);
    expect(() => checkRange({ ...r, earliest: 301n }, "BlockRangeUpdate")).toThrow(/earliest block 301 is above latest block 300/);
  });

  it("is due once the served latest block is 32 blocks past the announced one, never backwards", () => {
    const at = (latest: bigint) => ({ earliest: 0n, latest, latestHash: BLOCKHASH });
    expect(rangeUpdateDue(undefined, at(1_000n))).toBe(false);
    expect(rangeUpdateDue(at(100n), at(131n))).toBe(false);
    expect(rangeUpdateDue(at(100n), at(132n))).toBe(true);
    expect(rangeUpdateDue(at(100n), at(90n))).toBe(false);
  });
});
