/**
 * Payload attributes of the next L2 block from what L1 and a batch give (specs derivation.md
 * "Deriving Payload Attributes"; kona attributes/stateful.rs): the L1-info deposit, then the L1
 * origin's user deposits (first block of an epoch only), then the network-upgrade deposits of a
 * fork's activation block, then the batch's transactions; the origin's prevRandao and parent
 * beacon block root; the SystemConfig's gas limit, EIP-1559 parameters and minimum base fee;
 * the SequencerFeeVault as fee recipient; no mempool.
 */
import { equalsBytes } from "@ethereumjs/util";
import type { DepositTransaction } from "../chain/op/depositTx.js";
import { OpFork, opForkAt, type OpChainConfig } from "../chain/op/forks.js";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "../chain/op/predeploys.js";
import { systemConfigAttributes, type SystemConfig } from "../chain/op/systemConfig.js";
import { upgradeTransactionsForBlock } from "../chain/op/upgrades.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";
import { TypedError } from "../util/errors.js";
import { fromHex, to0x } from "../util/bytes.js";
import { l1InfoDeposit, type L1InfoRollupConfig } from "./attributesL1.js";
import type { L2BlockRef } from "./batchValidity.js";
import type { L1BlockInfo } from "./l1Source.js";

/** The rollup rules the attributes depend on (an `OpNetwork` has them). */
export interface AttributesRules extends L1InfoRollupConfig {
  blockTime: bigint;
  forkTimes: OpChainConfig["forkTimes"];
}

/** The parent L2 block: its reference and its place in its epoch. */
export interface AttributesParent extends L2BlockRef {
  /** The parent's L1-info sequence number. */
  sequenceNumber: bigint;
}

/** What one block's attributes are built from. */
interface AttributesInputs {
  parent: AttributesParent;
  /** The new block's L1 origin: the parent's, or the L1 block after it. */
  l1Origin: L1BlockInfo;
  /** The SystemConfig in force (updated from the origin's receipts when the epoch changes). */
  systemConfig: SystemConfig;
  /** The origin's user deposits; used only when the epoch changes. */
  deposits: readonly DepositTransaction[];
  /** The batch's transactions (EIP-2718). */
  transactions: readonly Uint8Array[];
}

/** A {@link AttributesError}'s code with its metadata. */
type AttributesErrorType = { code: "ATTRIBUTES_ORIGIN_NOT_NEXT" | "ATTRIBUTES_ORIGIN_PARENT_MISMATCH" | "ATTRIBUTES_BEFORE_ORIGIN"; parent: string; l1Origin: string };

/** Attributes that cannot follow the parent: derivation must reset (kona `ResetError`). */
export class AttributesError extends TypedError<AttributesErrorType> {
  constructor(code: "ATTRIBUTES_ORIGIN_NOT_NEXT" | "ATTRIBUTES_ORIGIN_PARENT_MISMATCH" | "ATTRIBUTES_BEFORE_ORIGIN", message: string, parent: AttributesParent, origin: L1BlockInfo) {
    super({ code, parent: parent.number.toString(), l1Origin: origin.number.toString() }, message);
  }
}

/** The attributes and the new block's sequence number. */
export interface BuiltAttributes {
  attributes: OpPayloadAttributes;
  sequenceNumber: bigint;
}

/** Builds the next block's payload attributes (see the module comment). */
export function buildPayloadAttributes(rules: AttributesRules, inputs: AttributesInputs): BuiltAttributes {
  const { parent, l1Origin: origin } = inputs;
  const timestamp = parent.timestamp + rules.blockTime;
  let sequenceNumber: bigint;
  const epochChange = origin.number !== parent.l1Origin.number;
  if (!epochChange) {
    if (!equalsBytes(origin.hash, parent.l1Origin.hash)) {
      throw new AttributesError("ATTRIBUTES_ORIGIN_PARENT_MISMATCH", `L1 origin ${origin.number} is ${to0x(origin.hash)}, but parent L2 block ${parent.number} names ${to0x(parent.l1Origin.hash)}: expected the same L1 block`, parent, origin);
    }
    sequenceNumber = parent.sequenceNumber + 1n;
  } else {
    if (origin.number !== parent.l1Origin.number + 1n) {
      throw new AttributesError("ATTRIBUTES_ORIGIN_NOT_NEXT", `L1 origin ${origin.number} does not follow parent L2 block ${parent.number}'s origin ${parent.l1Origin.number}: expected the same or the next L1 block`, parent, origin);
    }
    if (!equalsBytes(origin.parentHash, parent.l1Origin.hash)) {
      throw new AttributesError("ATTRIBUTES_ORIGIN_PARENT_MISMATCH", `L1 block ${origin.number}'s parent is ${to0x(origin.parentHash)}, not parent L2 block ${parent.number}'s origin ${to0x(parent.l1Origin.hash)}: the L1 chain reorganized`, parent, origin);
    }
    sequenceNumber = 0n;
  }
  if (timestamp < origin.timestamp) {
    throw new AttributesError("ATTRIBUTES_BEFORE_ORIGIN", `L2 block at ${timestamp} would precede its L1 origin ${origin.number} at ${origin.timestamp}: expected L2 time ≥ L1 time`, parent, origin);
  }
  const l1Info = l1InfoDeposit({ l1Origin: origin, sequenceNumber, systemConfig: inputs.systemConfig, timestamp, parentTimestamp: parent.timestamp }, rules);
  const transactions: Uint8Array[] = [l1Info.serialize()];
  if (epochChange) for (const d of inputs.deposits) transactions.push(d.serialize());
  transactions.push(...upgradeTransactionsForBlock(rules, timestamp, parent.timestamp));
  transactions.push(...inputs.transactions);
  const sc = systemConfigAttributes(inputs.systemConfig, rules, parent.timestamp, timestamp);
  const attributes: OpPayloadAttributes = {
    timestamp,
    prevRandao: origin.mixHash,
    suggestedFeeRecipient: fromHex(SEQUENCER_FEE_VAULT_ADDRESS),
    transactions,
    noTxPool: true,
    gasLimit: sc.gasLimit,
  };
  if (opForkAt(rules, timestamp) >= OpFork.ecotone) attributes.parentBeaconBlockRoot = origin.parentBeaconBlockRoot ?? new Uint8Array(32);
  if (sc.eip1559Params !== undefined) attributes.eip1559Params = sc.eip1559Params;
  if (sc.minBaseFee !== undefined) attributes.minBaseFee = sc.minBaseFee;
  return { attributes, sequenceNumber };
}
