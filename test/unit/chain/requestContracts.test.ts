/**
 * The EIP-7002 / EIP-7251 runtime codes basalt deploys (devnet-l1) are the ones every Prague case
 * of the EEST v5.4.0 blockchain tests holds at those addresses before its blocks (the fixtures'
 * standard pre-state: the contracts as deployed on Ethereum mainnet).
 */
import { describe, expect, it } from "vitest";
import { CONSOLIDATION_REQUEST_CONTRACT, EIP7002_RUNTIME_CODE, EIP7251_RUNTIME_CODE, WITHDRAWAL_REQUEST_CONTRACT } from "../../../src/chain/requestContracts.js";
import { casesOfFile } from "../../conformance/eestBlockchain/fixtures.js";

/** A fixture file whose cases start from the standard Prague pre-state (deposit requests only; the request contracts untouched). */
const FIXTURE = "prague/eip6110_deposits/test_deposit_negative.json";

describe("request contract codes", () => {
  it("are the EEST fixtures' pre-state codes at the EIP-7002 and EIP-7251 addresses", () => {
    const cases = casesOfFile(FIXTURE);
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      expect(c.genesis.alloc[WITHDRAWAL_REQUEST_CONTRACT.toLowerCase()]?.code, c.id).toBe(EIP7002_RUNTIME_CODE);
      expect(c.genesis.alloc[CONSOLIDATION_REQUEST_CONTRACT.toLowerCase()]?.code, c.id).toBe(EIP7251_RUNTIME_CODE);
    }
  });
});
