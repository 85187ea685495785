/**
 * A plain Ethereum genesis for tests: every block fork through the merge at block 0 (the keys
 * basalt's own genesis files use, `ETHEREUM_GENESIS_BLOCK_KEYS`), the timestamp forks and blob
 * schedule given, a 30M gas limit and no accounts unless given.
 */
import { ETHEREUM_GENESIS_BLOCK_KEYS } from "../../src/chain/chainSpec.js";
import type { GenesisJson } from "../../src/chain/genesis.js";

/** The genesis of chain `chainId` with `config` (timestamp forks, `blobSchedule`, anything else) over the block forks at 0. */
export function ethereumGenesis(chainId: number, config: Record<string, unknown>, alloc: GenesisJson["alloc"] = {}): GenesisJson {
  const blockForks = Object.fromEntries(ETHEREUM_GENESIS_BLOCK_KEYS.map((k) => [k, 0]));
  return {
    config: { chainId, ...blockForks, terminalTotalDifficulty: 0, ...config },
    nonce: "0x0",
    timestamp: "0x0",
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    baseFeePerGas: "0x7",
    alloc,
  };
}
