/**
 * Shared OP test material: Base mainnet's OP config (from basalt's built-in network table, which
 * its own tests check against the registry), a small all-forks-at-genesis OP genesis for
 * building headers and decoding transactions, and the OP fee vectors of ../shared/fixtures.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Common } from "@ethereumjs/common";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devnetGenesis } from "../../src/chain/devnet.js";
import type { GenesisJson } from "../../src/chain/genesis.js";
import { opConfigFromGenesisConfig, type OpChainConfig } from "../../src/chain/op/forks.js";
import { opGenesisConfig } from "../../src/chain/op/networks.js";
import { REPO_ROOT } from "./basaltProcess.js";

/** Base mainnet's OP configuration (fork times incl. Azul, EIP-1559 parameters). */
export const BASE_MAINNET_OP: OpChainConfig = opConfigFromGenesisConfig(opGenesisConfig("base-mainnet"))!;

/** An OP genesis with every OP fork (and so every mapped Ethereum fork) at 0, Base mainnet's chain id. */
export function allForksGenesis(opts: { azul?: boolean } = {}): GenesisJson {
  const config: Record<string, unknown> = {
    chainId: 8453,
    regolithTime: 0,
    canyonTime: 0,
    deltaTime: 0,
    ecotoneTime: 0,
    fjordTime: 0,
    graniteTime: 0,
    holoceneTime: 0,
    isthmusTime: 0,
    jovianTime: 0,
    optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
  };
  if (opts.azul !== false) config.azulTime = 0;
  return { config: config as GenesisJson["config"], gasLimit: "0x1c9c380", difficulty: "0x0", nonce: "0x0", extraData: "0x", timestamp: "0x0", alloc: {} };
}

/** The Common of {@link allForksGenesis}. */
export function allForksCommon(name = "op-test"): Common {
  return commonFromGenesis(allForksGenesis(), name);
}

/** `../shared/fixtures/op/op-fee-vectors.json`, parsed. */
export function opFeeVectors<T = Record<string, unknown>>(): T {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, "..", "shared", "fixtures", "op", "op-fee-vectors.json"), "utf8")) as T;
}

/**
 * The devnet genesis as it was before Base's own upgrades (through Jovian; no Azul, Beryl or
 * Cobalt): for tests that need a transaction or a call above EIP-7825's 2^24 gas cap, which Azul
 * brought (a block-filling transaction, a call that runs until a timeout rather than out of gas).
 */
export function jovianDevnetGenesis(): GenesisJson {
  const g = devnetGenesis();
  const config = g.config as Record<string, unknown>;
  delete config.azulTime;
  delete config.berylTime;
  delete config.cobaltTime;
  return g;
}
