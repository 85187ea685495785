/**
 * L1→L2 address aliasing (specs deposits.md "Address Aliasing"): +0x1111000000000000000000000000000000001111
 * mod 2^160, and its inverse; plus the devnet rollup's role constants.
 */
import { describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID } from "../../../src/chain/constants.js";
import { DEVNET_ROLLUP_BATCH_INBOX, DEVNET_ROLLUP_BATCHER_ACCOUNT, DEVNET_ROLLUP_DEPLOYER_ACCOUNT, DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT } from "../../../src/devnet/constants.js";
import { applyL1ToL2Alias, undoL1ToL2Alias } from "../../../src/devnet/aliasing.js";
import { DevnetErrorCode } from "../../../src/devnet/errors.js";

describe("L1→L2 aliasing", () => {
  it("adds the offset, wrapping past 2^160, and undoes it", () => {
    expect(applyL1ToL2Alias("0x0000000000000000000000000000000000000000")).toBe("0x1111000000000000000000000000000000001111");
    expect(applyL1ToL2Alias("0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF")).toBe("0xefbebeefdeadbeefdeadbeefdeadbeefdeadd000");
    expect(applyL1ToL2Alias("0xffffffffffffffffffffffffffffffffffffffff")).toBe("0x1111000000000000000000000000000000001110");
    for (const a of ["0x0000000000000000000000000000000000000000", "0xeeeeffffffffffffffffffffffffffffffffeeef", "0x5fbdb2315678afecb367f032d93f642f64180aa3"]) {
      expect(undoL1ToL2Alias(applyL1ToL2Alias(a))).toBe(a);
    }
  });

  it("refuses what is not a 20-byte address", () => {
    expect(() => applyL1ToL2Alias("0x1234")).toThrow(expect.objectContaining({ code: DevnetErrorCode.INVALID_ARGUMENT }));
  });
});

describe("devnet rollup roles", () => {
  it("keeps the deployer, the SystemConfig owner and the batcher off the users' accounts 0–7, the batcher on its own", () => {
    expect(DEVNET_ROLLUP_DEPLOYER_ACCOUNT).toBeGreaterThan(7);
    expect(DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT).toBeGreaterThan(7);
    expect(DEVNET_ROLLUP_BATCHER_ACCOUNT).toBeGreaterThan(7);
    expect(DEVNET_ROLLUP_BATCHER_ACCOUNT).not.toBe(DEVNET_ROLLUP_DEPLOYER_ACCOUNT);
  });

  it("posts batches to 0xff00…00 followed by the L2 chain id (OP's convention)", () => {
    expect(DEVNET_ROLLUP_BATCH_INBOX).toMatch(/^0x[0-9a-f]{40}$/);
    expect(DEVNET_ROLLUP_BATCH_INBOX).toBe(`0xff${DEVNET_CHAIN_ID.toString().padStart(38, "0")}`);
  });
});
