/**
 * Payload attributes from L1 and a batch: Base mainnet block 43,127,820's real derivation output
 * rebuilt whole — every field and all 182 transactions, byte for byte — from its context (L1
 * origin, parent, SystemConfig) and its 181 batched transactions; the first block of an epoch
 * (sequence number 0, the origin's deposits after the L1-info deposit); an activation block
 * (upgrade deposits before the batch); and the resets: an origin that skips an L1 block, an
 * origin whose parent is not the parent's origin (an L1 reorg), L2 time before L1 time.
 */
import { Address, bytesToHex } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { DepositTransaction } from "../../../src/chain/op/depositTx.js";
import { OP_NETWORKS } from "../../../src/chain/op/networks.js";
import { upgradeTransactions } from "../../../src/chain/op/upgrades.js";
import type { L1BlockInfo } from "../../../src/derivation/l1Source.js";
import { buildPayloadAttributes, type AttributesParent, type AttributesRules } from "../../../src/derivation/payloadAttributes.js";
import { fromHex } from "../../../src/util/bytes.js";
import { BASE_SYSTEM_CONFIG, CONTEXT, payloadTransactions } from "../../helpers/base43127820.js";

const BASE = OP_NETWORKS["base-mainnet"];
const extras = CONTEXT.expected_payload_attributes_extras;

const ORIGIN: L1BlockInfo = {
  number: BigInt(CONTEXT.l1_origin.number),
  hash: fromHex(CONTEXT.l1_origin.hash),
  parentHash: new Uint8Array(32).fill(0x44),
  timestamp: BigInt(CONTEXT.l1_origin.timestamp),
  baseFeePerGas: BigInt(CONTEXT.l1_origin.base_fee_per_gas),
  mixHash: fromHex(extras.prev_randao),
  excessBlobGas: BigInt(CONTEXT.l1_origin.excess_blob_gas),
  parentBeaconBlockRoot: fromHex(extras.parent_beacon_block_root),
};
const PARENT: AttributesParent = {
  number: BigInt(CONTEXT.l2_target_block - 1),
  hash: new Uint8Array(32).fill(0xfa),
  timestamp: BigInt(CONTEXT.l2_parent.timestamp),
  l1Origin: { number: ORIGIN.number, hash: ORIGIN.hash },
  sequenceNumber: BigInt(CONTEXT.l2_parent.l1info_sequence_number),
};

describe("payload attributes", () => {
  it("rebuilds Base mainnet block 43,127,820's attributes whole, byte for byte", () => {
    const txs = payloadTransactions();
    const { attributes: a, sequenceNumber } = buildPayloadAttributes(BASE, { parent: PARENT, l1Origin: ORIGIN, systemConfig: BASE_SYSTEM_CONFIG, deposits: [], transactions: txs.slice(1) });
    expect(sequenceNumber).toBe(4n);
    expect(a.timestamp).toBe(BigInt(CONTEXT.l2_target_timestamp));
    expect(bytesToHex(a.prevRandao)).toBe(extras.prev_randao);
    expect(bytesToHex(a.parentBeaconBlockRoot!)).toBe(extras.parent_beacon_block_root);
    expect(bytesToHex(a.suggestedFeeRecipient)).toBe(extras.suggested_fee_recipient);
    expect(a.gasLimit).toBe(BigInt(extras.gas_limit));
    expect(bytesToHex(a.eip1559Params!)).toBe(extras.eip_1559_params);
    expect(a.minBaseFee).toBe(BigInt(extras.min_base_fee));
    expect(a.noTxPool).toBe(true);
    expect(a.transactions.map(bytesToHex)).toEqual(txs.map(bytesToHex));
  });

  it("starts an epoch with sequence number 0 and the origin's deposits after the L1-info deposit", () => {
    const next: L1BlockInfo = { ...ORIGIN, number: ORIGIN.number + 1n, hash: new Uint8Array(32).fill(0x55), parentHash: ORIGIN.hash, timestamp: PARENT.timestamp - 10n };
    const deposit = new DepositTransaction({ sourceHash: new Uint8Array(32).fill(9), from: new Address(new Uint8Array(20).fill(1)), to: new Address(new Uint8Array(20).fill(2)), mint: 5n, value: 5n, gasLimit: 21_000n, isSystemTx: false, data: new Uint8Array(0) });
    const batchTx = Uint8Array.of(0x02, 0xc0);
    const { attributes: a, sequenceNumber } = buildPayloadAttributes(BASE, { parent: PARENT, l1Origin: next, systemConfig: BASE_SYSTEM_CONFIG, deposits: [deposit], transactions: [batchTx] });
    expect(sequenceNumber).toBe(0n);
    expect(a.transactions.length).toBe(3);
    expect(bytesToHex(a.transactions[1]!)).toBe(bytesToHex(deposit.serialize()));
    expect(bytesToHex(a.transactions[2]!)).toBe(bytesToHex(batchTx));
    // The same origin's deposits are not repeated in the epoch's later blocks.
    expect(buildPayloadAttributes(BASE, { parent: PARENT, l1Origin: ORIGIN, systemConfig: BASE_SYSTEM_CONFIG, deposits: [deposit], transactions: [] }).attributes.transactions.length).toBe(1);
  });

  it("puts a fork's upgrade deposits before the batch on its activation block", () => {
    const jovian = BASE.forkTimes.jovian!;
    const rules: AttributesRules = BASE;
    const parent = { ...PARENT, timestamp: jovian - 2n };
    const { attributes: a } = buildPayloadAttributes(rules, { parent, l1Origin: { ...ORIGIN, timestamp: jovian - 100n }, systemConfig: BASE_SYSTEM_CONFIG, deposits: [], transactions: [] });
    expect(a.timestamp).toBe(jovian);
    expect(a.transactions.slice(1).map(bytesToHex)).toEqual(upgradeTransactions("jovian").map(bytesToHex));
  });

  it("refuses origins that do not follow the parent's, and L2 time before L1 time (derivation resets)", () => {
    const build = (l1Origin: L1BlockInfo) => () => buildPayloadAttributes(BASE, { parent: PARENT, l1Origin, systemConfig: BASE_SYSTEM_CONFIG, deposits: [], transactions: [] });
    expect(build({ ...ORIGIN, number: ORIGIN.number + 2n })).toThrow(expect.objectContaining({ code: "ATTRIBUTES_ORIGIN_NOT_NEXT" }));
    expect(build({ ...ORIGIN, number: ORIGIN.number + 1n, parentHash: new Uint8Array(32) })).toThrow(expect.objectContaining({ code: "ATTRIBUTES_ORIGIN_PARENT_MISMATCH" }));
    expect(build({ ...ORIGIN, hash: new Uint8Array(32).fill(1) })).toThrow(expect.objectContaining({ code: "ATTRIBUTES_ORIGIN_PARENT_MISMATCH" }));
    expect(build({ ...ORIGIN, number: ORIGIN.number + 1n, parentHash: ORIGIN.hash, timestamp: PARENT.timestamp + 3n })).toThrow(expect.objectContaining({ code: "ATTRIBUTES_BEFORE_ORIGIN" }));
  });
});
