/**
 * src/util/foreignErrorText.ts: the readings of foreign error texts, on the texts the libraries
 * and nodes write (@ethereumjs 10, geth, anvil, fastify, Go's net/http).
 */
import { describe, expect, it } from "vitest";
import {
  ethereumjsBlockFull,
  ethereumjsEip7825Decode,
  ethereumjsNonceMismatch,
  ethereumjsTxRefusal,
  isMissingRouteText,
  isRevertText,
  sendRefusal,
} from "../../../src/util/foreignErrorText.js";

describe("foreign error texts", () => {
  it("names @ethereumjs's transaction refusals with geth's reasons", () => {
    expect(ethereumjsTxRefusal("sender doesn't have enough funds to send tx. The upfront cost is: 5 and the sender's balance is: 0")).toBe("insufficient-funds");
    expect(ethereumjsTxRefusal("The gasLimit of the tx (20000) is lower than the intrinsic gas cost of 21000")).toBe("intrinsic-gas");
    expect(ethereumjsTxRefusal("maxFeePerGas cannot be less than the block's baseFeePerGas (1 < 7)")).toBe("fee-cap-below-base-fee");
    expect(ethereumjsTxRefusal("maxPriorityFeePerGas cannot be greater than maxFeePerGas")).toBe("tip-above-fee-cap");
    expect(ethereumjsTxRefusal("invalid sender address, address is not EOA (EIP-3607)")).toBe("sender-not-eoa");
    expect(ethereumjsTxRefusal("Transaction gas limit 16777217 exceeds the maximum allowed by EIP-7825 (16777216)")).toBe("gas-limit-too-high");
    expect(ethereumjsTxRefusal("tx has a higher gas limit than the block")).toBe("gas-limit");
    expect(ethereumjsTxRefusal("invalid signature")).toBe("rejected");
  });

  it("reads the nonces of a nonce refusal, a full block and the EIP-7825 decode refusal", () => {
    expect(ethereumjsNonceMismatch("the tx doesn't have the correct nonce. account has nonce of: 5 tx has nonce of: 3")).toEqual({ state: 5n, given: 3n });
    expect(ethereumjsNonceMismatch("invalid signature")).toBeUndefined();
    expect(ethereumjsBlockFull("tx has a higher gas limit than the remaining gas in the block gas limit")).toBe(true);
    expect(ethereumjsBlockFull("invalid signature")).toBe(false);
    expect(ethereumjsEip7825Decode("Transaction gas limit 30000000 exceeds the maximum allowed by EIP-7825 (16777216)")).toBe(true);
    expect(ethereumjsEip7825Decode("invalid RLP")).toBe(false);
  });

  it("reads a node's send refusals, a revert without data and a beacon node's unknown route", () => {
    expect(sendRefusal("already known")).toBe("known");
    expect(sendRefusal("Known transaction: 0xab")).toBe("known");
    expect(sendRefusal("nonce too low: next nonce 7, tx nonce 6")).toBe("nonce_too_low");
    expect(sendRefusal("replacement transaction underpriced")).toBe("underpriced");
    expect(sendRefusal("insufficient funds for gas * price + value")).toBe("other");
    expect(isRevertText("execution reverted")).toBe(true);
    expect(isRevertText("insufficient funds")).toBe(false);
    expect(isMissingRouteText("Route GET:/eth/v1/beacon/blobs/1 not found")).toBe(true);
    expect(isMissingRouteText("Block not found")).toBe(false);
  });
});
