/**
 * EIP-2124 fork ids of Base mainnet and Base Sepolia against op-reth's test vectors
 * (base/base crates/execution/chainspec/src/spec.rs `base_mainnet_forkids`,
 * `base_sepolia_forkids`, `latest_base_mainnet_fork_id`), built from basalt's own network
 * tables, and the EIP-2124 validation rules.
 */
import { describe, expect, it } from "vitest";
import { commonFromGenesis, opConfigOf } from "../../../../src/chain/chainSpec.js";
import { opGenesisConfig, OP_NETWORKS } from "../../../../src/chain/op/networks.js";
import type { OpNetworkName } from "../../../../src/config/networks.js";
import { ForkFilter } from "../../../../src/p2p/el/forkId.js";
import { forkFilterOf } from "../../../../src/p2p/el/forkSchedule.js";
import { fromHex as hexToBytes } from "../../../../src/util/bytes.js";

function filterOf(name: OpNetworkName): ForkFilter {
  const n = OP_NETWORKS[name];
  const genesis = { config: opGenesisConfig(name), gasLimit: "0x1c9c380", difficulty: "0x0", nonce: "0x0", extraData: "0x", alloc: {}, timestamp: "0x" + n.genesis.l2Time.toString(16) };
  return forkFilterOf({ common: commonFromGenesis(genesis), op: opConfigOf(genesis), genesisHash: hexToBytes(n.genesisHash), genesisTime: n.genesis.l2Time });
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** The fork id of `name` with the head at `timestamp`, as [hash hex, next]. */
function idAt(name: OpNetworkName): (timestamp: bigint) => [string, bigint] {
  const f = filterOf(name);
  return (timestamp) => {
    const id = f.forkId({ number: 0n, timestamp });
    return [hex(id.hash), id.next];
  };
}

describe("fork id", () => {
  it("Base mainnet matches op-reth's vectors", () => {
    const at = idAt("base-mainnet");
    expect(at(0n)).toEqual(["67da0260", 1704992401n]);
    expect(at(1704992400n)).toEqual(["67da0260", 1704992401n]);
    expect(at(1704992401n)).toEqual(["3c283cb3", 1710374401n]);
    expect(at(1710374400n)).toEqual(["3c283cb3", 1710374401n]);
    expect(at(1710374401n)).toEqual(["51cc98b3", 1720627201n]);
    expect(at(1720627200n)).toEqual(["51cc98b3", 1720627201n]);
    expect(at(1720627201n)).toEqual(["e4010eb9", 1726070401n]);
    expect(at(1726070401n)).toEqual(["bc38f9ca", 1736445601n]);
    expect(at(1736445601n)).toEqual(["3a2af183", 1746806401n]);
    const jovian = OP_NETWORKS["base-mainnet"].forkTimes.jovian!;
    expect(at(1746806401n)).toEqual(["86728b4e", jovian]);
    // op-reth's latest Base mainnet fork id (Jovian, no Base V1 scheduled there): the hash; basalt schedules Azul next.
    expect(at(jovian)).toEqual(["1cfeafc9", OP_NETWORKS["base-mainnet"].forkTimes.azul]);
    // Base's own upgrades (research note base-upgrades.md §1; Cobalt's is what Base's nodes report in eth_config since 2026-09-30).
    expect(at(1779991200n)).toEqual(["a26d9e96", 1782410400n]);
    expect(at(1782410400n)).toEqual(["ea0159eb", 1790791200n]);
    expect(at(1790791199n)).toEqual(["ea0159eb", 1790791200n]);
    expect(at(1790791200n)).toEqual(["68647e86", 0n]);
  });

  it("Base Sepolia matches op-reth's vectors", () => {
    const at = idAt("base-sepolia");
    expect(at(0n)).toEqual(["b959b9f7", 1699981200n]);
    expect(at(1699981199n)).toEqual(["b959b9f7", 1699981200n]);
    expect(at(1699981200n)).toEqual(["607cd5a1", 1708534800n]);
    expect(at(1708534799n)).toEqual(["607cd5a1", 1708534800n]);
    expect(at(1708534800n)).toEqual(["be969b17", 1716998400n]);
    expect(at(1716998399n)).toEqual(["be969b17", 1716998400n]);
    expect(at(1716998400n)).toEqual(["4e457a49", 1723478400n]);
    expect(at(1723478399n)).toEqual(["4e457a49", 1723478400n]);
    expect(at(1723478400n)).toEqual(["5edfa3b6", 1732633200n]);
    expect(at(1732633200n)).toEqual(["8b5e7629", 1744905600n]);
    expect(at(1744905600n)).toEqual(["060a4d1d", OP_NETWORKS["base-sepolia"].forkTimes.jovian]);
    expect(at(1776708000n)).toEqual(["a419b1da", 1781805600n]);
    expect(at(1781805600n)).toEqual(["7464b53e", 1790186400n]);
    expect(at(1790186400n)).toEqual(["39ea56b3", 0n]);
  });

  describe("validation (EIP-2124 rules)", () => {
    // A chain with block forks 10 and 20 and a time fork at 2_000_000_000.
    const g = new Uint8Array(32).fill(7);
    const f = ForkFilter.create(g, 0n, [0n, 10n, 20n, 20n], [2_000_000_000n]);
    const head = { number: 15n, timestamp: 1_500_000_000n };
    const local = f.forkId(head);
    const past = f.forkId({ number: 5n, timestamp: 0n });
    const future = f.forkId({ number: 25n, timestamp: 2_000_000_000n });

    it("dedupes forks and skips block 0", () => {
      expect(f.activations().map((a) => a.at)).toEqual([10n, 20n, 2_000_000_000n]);
      expect(local.next).toBe(20n);
    });
    it("accepts the same fork id and a peer that has not seen the next fork yet", () => {
      expect(() => f.validate(head, local)).not.toThrow();
      expect(() => f.validate(head, { hash: local.hash, next: 0n })).not.toThrow();
    });
    it("refuses the same hash with a next fork already passed locally", () => {
      expect(() => f.validate(head, { hash: local.hash, next: 12n })).toThrow(/already active/);
    });
    it("accepts a syncing peer (past hash, right next) and refuses a stale one", () => {
      expect(() => f.validate(head, past)).not.toThrow();
      expect(() => f.validate(head, { hash: past.hash, next: 11n })).toThrow(/software update/);
    });
    it("accepts a peer ahead of us (a local future hash)", () => {
      expect(() => f.validate(head, future)).not.toThrow();
    });
    it("refuses an unknown hash (another chain)", () => {
      expect(() => f.validate(head, { hash: Uint8Array.of(1, 2, 3, 4), next: 0n })).toThrow(/not a fork hash/);
      const other = ForkFilter.create(new Uint8Array(32).fill(8), 0n, [10n], []);
      expect(() => f.validate(head, other.forkId(head))).toThrow(/P2P|fork/);
    });
  });
});
