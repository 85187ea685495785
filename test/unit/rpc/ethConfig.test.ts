/**
 * eth_config on OP chains answers as base-reth-node: the OP and Base upgrades are forks,
 * `last` is the fork before `current` (reth), `blobSchedule` is zero, precompiles carry reth's
 * names plus Base's native precompiles from Beryl, and the fork id is the one the execution
 * layer announces — on Base mainnet at Cobalt `0x68647e86`, what Base's nodes answer.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { OP_NETWORKS, withNetworkConfig } from "../../../src/chain/op/networks.js";
import { ethConfig } from "../../../src/rpc/methods/ethConfig.js";

const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");
const MAINNET_GENESIS = join(REPO, "..", "shared", "fixtures", "op", "base-genesis", "base-mainnet-genesis.json");

type ForkConfig = { activationTime: number; forkId: string; blobSchedule: unknown; precompiles: Record<string, string>; systemContracts: Record<string, string>; chainId: string };
type Config = { current: ForkConfig; next: ForkConfig | null; last: ForkConfig | null };

describe("eth_config on Base mainnet", () => {
  let dir: string;
  let chain: Chain;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "basalt-ethconfig-"));
    await Chain.init(dir, withNetworkConfig("base-mainnet", JSON.parse(readFileSync(MAINNET_GENESIS, "utf8"))));
    chain = Chain.open(dir, { readOnly: true });
  }, 120_000);
  afterAll(async () => {
    await chain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const t = OP_NETWORKS["base-mainnet"].forkTimes;

  it("at Cobalt: Base's fork id, zero blob schedule, Base's precompiles, Beryl as `last`", () => {
    const c = ethConfig(chain, t.cobalt! + 100n) as Config;
    expect(c.current.activationTime).toBe(1790791200);
    expect(c.current.forkId).toBe("0x68647e86");
    expect(c.current.chainId).toBe("0x2105");
    expect(c.current.blobSchedule).toEqual({ baseFeeUpdateFraction: 0, max: 0, target: 0 });
    expect(c.current.precompiles).toMatchObject({
      ActivationRegistry: "0x8453000000000000000000000000000000000001",
      B20Factory: "0xb20f000000000000000000000000000000000000",
      PolicyRegistryPrecompile: "0x8453000000000000000000000000000000000002",
      P256_VERIFY: "0x0000000000000000000000000000000000000100",
      KZG_POINT_EVALUATION: "0x000000000000000000000000000000000000000a",
      BLS12_PAIRING_CHECK: "0x000000000000000000000000000000000000000f",
    });
    expect(Object.keys(c.current.precompiles)).toEqual([...Object.keys(c.current.precompiles)].sort());
    expect(c.current.systemContracts).toEqual({
      BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
      HISTORY_STORAGE_ADDRESS: "0x0000f90827f1c53a10cb7a02335b175320002935",
    });
    expect(c.next).toBeNull();
    expect(c.last?.activationTime).toBe(1782410400);
    expect(c.last?.forkId).toBe("0xea0159eb");
  });

  it("before Beryl: no Base precompiles, Beryl next", () => {
    const c = ethConfig(chain, t.azul! + 1n) as Config;
    expect(c.current.activationTime).toBe(1779991200);
    expect(c.current.forkId).toBe("0xa26d9e96");
    expect(c.current.precompiles.ActivationRegistry).toBeUndefined();
    expect(c.next?.activationTime).toBe(1782410400);
    expect(c.next?.precompiles.ActivationRegistry).toBe("0x8453000000000000000000000000000000000001");
    expect(c.last?.activationTime).toBe(Number(t.jovian));
  });

  it("at genesis: Regolith current, no P256 before Fjord, Canyon next", () => {
    const c = ethConfig(chain) as Config;
    // Regolith is scheduled at time 0 on Base (superchain-registry regolith_time, op-reth's Base mainnet spec).
    expect(c.current.activationTime).toBe(0);
    expect(c.current.precompiles.P256_VERIFY).toBeUndefined();
    expect(c.current.systemContracts).toEqual({});
    expect(c.next?.activationTime).toBe(Number(t.canyon));
    expect(c.last).toBeNull();
  });
});

describe("eth_config on the devnet", () => {
  it("moves with --dev.beryl-time: Beryl is next until its time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "basalt-ethconfig-dev-"));
    try {
      await Chain.init(dir, devnetGenesis({ beryl: 1_900_000_000n }));
      const chain = Chain.open(dir, { readOnly: true });
      try {
        const before = ethConfig(chain) as Config;
        expect(before.current.activationTime).toBe(0);
        expect(before.current.precompiles.B20Factory).toBeUndefined();
        expect(before.next?.activationTime).toBe(1_900_000_000);
        expect(before.next?.precompiles.B20Factory).toBe("0xb20f000000000000000000000000000000000000");
        const after = ethConfig(chain, 1_900_000_000n) as Config;
        expect(after.current.activationTime).toBe(1_900_000_000);
        expect(after.current.forkId).toBe(before.next?.forkId);
        expect(after.next).toBeNull();
      } finally {
        await chain.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
