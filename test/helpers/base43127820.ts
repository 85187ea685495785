/**
 * The real derivation output of Base mainnet block 43,127,820 (shared/fixtures/op/derivation):
 * the context file (L1 origin, L2 parent, expected L1 block info), the payload attributes'
 * transactions, and the SystemConfig and L1-info inputs of that block.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SystemConfig } from "../../src/chain/op/systemConfig.js";
import type { L1InfoInputs } from "../../src/derivation/attributesL1.js";
import { fromHex } from "../../src/util/bytes.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DIR = path.join(REPO, "..", "shared", "fixtures", "op", "derivation");

export interface Context {
  l2_target_block: number;
  l2_target_timestamp: number;
  l2_parent: { timestamp: number; l1info_sequence_number: number };
  l1_origin: { number: number; timestamp: number; hash: string; base_fee_per_gas: number; excess_blob_gas: number };
  expected_l1_block_info_jovian: {
    sequence_number: number;
    blob_base_fee: number;
    blob_base_fee_scalar: number;
    base_fee_scalar: number;
    operator_fee_scalar: number;
    operator_fee_constant: number;
    da_footprint_gas_scalar: number;
    batcher_address: string;
  };
  expected_payload_attributes_extras: {
    gas_limit: number;
    eip_1559_params: string;
    min_base_fee: number;
    transaction_count: number;
    prev_randao: string;
    parent_beacon_block_root: string;
    suggested_fee_recipient: string;
  };
}

export const CONTEXT = JSON.parse(readFileSync(path.join(DIR, "base-mainnet-43127820-context.json"), "utf8")) as Context;

/** The transactions of the payload-attributes dump: the hex lines between `transactions: Some(` and `no_tx_pool`. */
export function payloadTransactions(): Uint8Array[] {
  const text = readFileSync(path.join(DIR, "base-mainnet-43127820-payload-attributes.txt"), "utf8");
  const section = text.slice(text.indexOf("transactions: Some("), text.indexOf("no_tx_pool:"));
  return [...section.matchAll(/^\s+(0x[0-9a-f]+),?$/gm)].map((m) => fromHex(m[1]!));
}

const info = CONTEXT.expected_l1_block_info_jovian;
const extras = CONTEXT.expected_payload_attributes_extras;

/** The SystemConfig of Base mainnet when block 43,127,820 was derived (context file values). */
export const BASE_SYSTEM_CONFIG: SystemConfig = {
  batcherAddress: fromHex(info.batcher_address),
  overhead: 0n,
  scalar: (1n << 248n) | (BigInt(info.blob_base_fee_scalar) << 32n) | BigInt(info.base_fee_scalar),
  gasLimit: BigInt(extras.gas_limit),
  eip1559Denominator: 125,
  eip1559Elasticity: 6,
  operatorFeeScalar: BigInt(info.operator_fee_scalar),
  operatorFeeConstant: BigInt(info.operator_fee_constant),
  minBaseFee: BigInt(extras.min_base_fee),
  daFootprintGasScalar: BigInt(info.da_footprint_gas_scalar),
};

export const INPUTS_43127820: L1InfoInputs = {
  l1Origin: {
    number: BigInt(CONTEXT.l1_origin.number),
    timestamp: BigInt(CONTEXT.l1_origin.timestamp),
    hash: fromHex(CONTEXT.l1_origin.hash),
    baseFeePerGas: BigInt(CONTEXT.l1_origin.base_fee_per_gas),
    excessBlobGas: BigInt(CONTEXT.l1_origin.excess_blob_gas),
  },
  sequenceNumber: BigInt(info.sequence_number),
  systemConfig: BASE_SYSTEM_CONFIG,
  timestamp: BigInt(CONTEXT.l2_target_timestamp),
  parentTimestamp: BigInt(CONTEXT.l2_parent.timestamp),
};

