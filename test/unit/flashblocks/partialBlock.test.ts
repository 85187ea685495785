/**
 * `PartialHeaderSeries` (the flashblocks worker's per-frame header: one RLP item list edited in
 * place) against `assemblePartialBlock` (an ethereumjs header built per frame, what the devnet
 * producer uses): the same RLP, hash and JSON for every header layout Base has had — Bedrock
 * (no withdrawals), Canyon (withdrawals root), Ecotone (blob gas, beacon root), Isthmus
 * (requests hash), Jovian (DA footprint as blob gas used).
 */
import { createBlock } from "@ethereumjs/block";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { formatHeader } from "../../../src/chain/json/block.js";
import { opGenesisConfig } from "../../../src/chain/op/networks.js";
import type { FlashblockBase } from "../../../src/flashblocks/codec.js";
import { assemblePartialBlock, headerTemplateFromBase, PartialHeaderSeries, type PartialBlockTotals } from "../../../src/flashblocks/partialBlock.js";
import { allForksGenesis } from "../../helpers/opFixtures.js";

const base = commonFromGenesis({ ...allForksGenesis(), config: opGenesisConfig("base-mainnet") }, "base-partial-header");

/** Base mainnet timestamps inside each header layout. */
const LAYOUTS: [string, bigint][] = [
  ["bedrock/regolith", 1_700_000_000n],
  ["canyon", 1_705_000_000n],
  ["ecotone", 1_711_000_000n],
  ["isthmus", 1_747_000_000n],
  ["jovian", 1_765_000_000n],
];

function bytes(n: number): Uint8Array {
  return new Uint8Array(randomBytes(n));
}

describe("PartialHeaderSeries", () => {
  for (const [name, timestamp] of LAYOUTS) {
    it(`gives assemblePartialBlock's RLP, hash and JSON at every frame (${name})`, async () => {
      const common = base.copy();
      common.setHardforkBy({ blockNumber: 20_000_000n, timestamp });
      const fb: FlashblockBase = {
        parentBeaconBlockRoot: bytes(32),
        parentHash: bytes(32),
        feeRecipient: bytes(20),
        prevRandao: bytes(32),
        blockNumber: 20_000_000n,
        gasLimit: 150_000_000n,
        timestamp,
        extraData: common.isActivatedEIP(7685) ? Uint8Array.of(1, 0, 0, 0, 250, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0) : new Uint8Array(0),
        baseFeePerGas: 1_000_123n,
      };
      const template = headerTemplateFromBase(fb, common);
      const env = createBlock({ header: template }, { common, skipConsensusFormatValidation: true });
      const series = new PartialHeaderSeries(env.header);
      for (const [i, gas] of [0n, 21_000n, 4_567_890n].entries()) {
        const totals: PartialBlockTotals = { receiptsRoot: bytes(32), logsBloom: bytes(256), gasUsed: gas, blobGasUsed: BigInt(i) * 1_600n };
        const roots = { stateRoot: i === 2 ? bytes(32) : new Uint8Array(32), withdrawalsRoot: bytes(32), transactionsRoot: bytes(32) };
        const expected = await assemblePartialBlock(common, template, [], totals, roots);
        const got = series.at(totals, roots);
        expect(got.rlp).toEqual(expected.header.serialize());
        expect(got.hash).toEqual(expected.hash());
        expect(got.gasUsed).toBe(expected.header.gasUsed);
        expect(JSON.stringify(got.json())).toBe(JSON.stringify(formatHeader(expected.header)));
      }
    });
  }
});
