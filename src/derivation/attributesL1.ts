/**
 * What the L1 contributes to an L2 block's payload attributes (specs derivation.md "Deriving
 * Payload Attributes"; kona / base crates/…/derive/src/attributes/stateful.rs):
 * - the L1-info deposit, first transaction of every block: the L1 origin's number, time, base fee,
 *   blob base fee and hash, the block's sequence number in its epoch, and the SystemConfig's
 *   batcher and fee parameters, in the calldata layout of the block's fork;
 * - the user deposits of the L1 origin (`TransactionDeposited` logs of the deposit contract in its
 *   successful receipts), included in the first block of each epoch only;
 * - the SystemConfig updates of an L1 block (`ConfigUpdate` logs of the SystemConfig contract),
 *   applied when the epoch changes.
 */
import { bytesToHex } from "@ethereumjs/util";
import type { ConfigUpdateDecoding } from "../chain/op/configUpdate.js";
import { CONFIG_UPDATE_TOPIC_BYTES, decodeConfigUpdateLog, isEcotoneAtL1Time } from "../chain/op/configUpdate.js";
import { DepositLogError, decodeDepositLog, isTransactionDepositedLog } from "../chain/op/depositLog.js";
import type { DepositTransaction } from "../chain/op/depositTx.js";
import { OpFork, opForkAt, type OpForkSchedule } from "../chain/op/forks.js";
import { l1BlobBaseFee, l1BlobScheduleOf } from "../chain/op/l1BlobFee.js";
import {
  batcherHashFromAddress,
  ecotoneScalarsFromSystemConfig,
  l1InfoDepositTx,
  l1InfoVariantFor,
  type L1InfoValues,
  type L1InfoVariant,
} from "../chain/op/l1InfoTx.js";
import type { SystemConfig } from "../chain/op/systemConfig.js";
import { MIN_BLOB_BASE_FEE } from "../chain/constants.js";
import type { Log, StoredReceipt } from "../storage/types.js";
import { bytesEqual } from "../util/bytes.js";
import { L1InputError, L1InputErrorCode } from "./l1InputErrors.js";

/** The L1 origin header fields the L1-info deposit reads. */
interface L1OriginHeader {
  number: bigint;
  timestamp: bigint;
  /** The L1 block hash (32 bytes). */
  hash: Uint8Array;
  /** London+ base fee; read as 0 when absent. */
  baseFeePerGas?: bigint;
  /** Cancun+ excess blob gas; the blob base fee is 1 when absent. */
  excessBlobGas?: bigint;
}

/** What the L1-info deposit reads of the rollup config (a built-in `OpNetwork` fits). */
export interface L1InfoRollupConfig extends OpForkSchedule {
  /** Chain id of the L1: selects the L1 blob fee schedule. */
  l1ChainId: bigint;
  /** Sepolia-era OP chains only: when the L1-info blob base fee switched to Prague's update fraction. */
  pectraBlobScheduleTime?: bigint;
}

/** The inputs of one L2 block's L1-info deposit. */
export interface L1InfoInputs {
  /** The block's L1 origin. */
  l1Origin: L1OriginHeader;
  /** Position of the block in its epoch (0 for the first block on a new L1 origin). */
  sequenceNumber: bigint;
  /** The SystemConfig in force for the block (updated from the origin's receipts on an epoch change). */
  systemConfig: SystemConfig;
  /** The L2 block's timestamp: selects the calldata layout. */
  timestamp: bigint;
  /** The parent L2 block's timestamp (activation blocks keep the previous layout); undefined only for genesis. */
  parentTimestamp: bigint | undefined;
}

/** The blob base fee of `l1Origin`: 1 without blob fields, else EIP-4844's formula with the L1 fork's update fraction. */
function blobBaseFeeOf(l1Origin: L1OriginHeader, cfg: L1InfoRollupConfig): bigint {
  if (l1Origin.excessBlobGas === undefined) return MIN_BLOB_BASE_FEE;
  const schedule = l1BlobScheduleOf(cfg.l1ChainId);
  if (schedule === undefined) {
    const message = `L1 chain ${cfg.l1ChainId} has no known blob fee schedule, so the blob base fee of L1 block ${l1Origin.number} cannot be computed`;
    throw new L1InputError({ code: L1InputErrorCode.UNKNOWN_L1_BLOB_SCHEDULE, l1ChainId: cfg.l1ChainId.toString() }, message);
  }
  return l1BlobBaseFee(l1Origin, schedule, cfg.pectraBlobScheduleTime);
}

/**
 * The L1-info calldata layout and values of an L2 block (kona info/variant.rs `try_new`): Bedrock
 * layout (raw overhead and scalar) before Ecotone and on the Ecotone activation block; from then on
 * the packed layout with the scalars decoded from the SystemConfig's versioned scalar and the L1
 * origin's blob base fee; operator fee (Isthmus) and DA footprint gas scalar (Jovian; 0/unset → 400)
 * from the block after each fork's activation block.
 * @throws L1InputError when the origin has blob fields on an L1 whose blob schedule is unknown.
 */
export function l1InfoFor(inputs: L1InfoInputs, cfg: L1InfoRollupConfig): { variant: L1InfoVariant; values: L1InfoValues } {
  const { l1Origin, systemConfig: sc } = inputs;
  const variant = l1InfoVariantFor(cfg, inputs.timestamp, inputs.parentTimestamp);
  const values: L1InfoValues = {
    number: l1Origin.number,
    timestamp: l1Origin.timestamp,
    baseFee: l1Origin.baseFeePerGas ?? 0n,
    hash: l1Origin.hash,
    sequenceNumber: inputs.sequenceNumber,
    batcherHash: batcherHashFromAddress(sc.batcherAddress),
  };
  if (variant === "bedrock") return { variant, values: { ...values, l1FeeOverhead: sc.overhead, l1FeeScalar: sc.scalar } };
  const scalars = ecotoneScalarsFromSystemConfig(sc.scalar);
  values.baseFeeScalar = scalars.baseFeeScalar;
  values.blobBaseFeeScalar = scalars.blobBaseFeeScalar;
  values.blobBaseFee = blobBaseFeeOf(l1Origin, cfg);
  if (variant === "ecotone") return { variant, values };
  values.operatorFeeScalar = sc.operatorFeeScalar ?? 0n;
  values.operatorFeeConstant = sc.operatorFeeConstant ?? 0n;
  if (variant === "jovian") values.daFootprintGasScalar = sc.daFootprintGasScalar;
  return { variant, values };
}

/**
 * The L1-info deposit transaction of an L2 block: {@link l1InfoFor}'s calldata in the deposit
 * from the L1-info depositor to the L1Block predeploy (gas 1,000,000 from Regolith on).
 * @throws L1InputError when the origin has blob fields on an L1 whose blob schedule is unknown.
 */
export function l1InfoDeposit(inputs: L1InfoInputs, cfg: L1InfoRollupConfig): DepositTransaction {
  const { variant, values } = l1InfoFor(inputs, cfg);
  return l1InfoDepositTx(values, variant, opForkAt(cfg, inputs.timestamp) >= OpFork.regolith);
}

/** What the L1 deposit and config-update scans read of an L1 receipt (an RPC or stored receipt fits). */
export type L1Receipt = Pick<StoredReceipt, "status" | "logs">;

/** The logs of `address` in the successful receipts (status 1), in order, with their index in the whole block (every log of every receipt counts). */
function* successfulLogsOf(receipts: readonly L1Receipt[], address: Uint8Array): Generator<{ log: Log; logIndex: number }> {
  let logIndex = 0;
  for (const receipt of receipts) {
    for (const log of receipt.logs) {
      const index = logIndex++;
      if (receipt.status === 1 && bytesEqual(log.address, address)) yield { log, logIndex: index };
    }
  }
}

/**
 * The user deposits of L1 block `l1BlockHash` (kona stateful.rs `derive_deposits`; op-node
 * deposits.go `UserDeposits`): every `TransactionDeposited` log of `portalAddress` in a
 * successful receipt (status 1), in log order, decoded with the log's index in the whole block
 * (every log of every receipt counts, as the block's `logIndex` does).
 * @throws L1InputError (`BAD_DEPOSIT_LOG`, critical) when such a log does not decode.
 */
export function l1OriginDeposits(receipts: readonly L1Receipt[], portalAddress: Uint8Array, l1BlockHash: Uint8Array): DepositTransaction[] {
  const out: DepositTransaction[] = [];
  for (const { log, logIndex } of successfulLogsOf(receipts, portalAddress)) {
    if (!isTransactionDepositedLog(log)) continue;
    try {
      out.push(decodeDepositLog(log, l1BlockHash, logIndex));
    } catch (e) {
      if (!(e instanceof DepositLogError)) throw e;
      const hash = bytesToHex(l1BlockHash);
      throw new L1InputError(
        { code: L1InputErrorCode.BAD_DEPOSIT_LOG, l1BlockHash: hash, logIndex, reason: e.code, critical: true },
        `deposit log ${logIndex} of L1 block ${hash} is malformed: ${e.message}`,
        { cause: e },
      );
    }
  }
  return out;
}

/** A decoded (or skipped) `ConfigUpdate` log and its index in the L1 block. */
export type L1ConfigUpdate = ConfigUpdateDecoding & { logIndex: number };

/**
 * The SystemConfig updates of an L1 block at `l1Timestamp` (kona genesis system/config.rs
 * `update_with_receipts`; op-node system_config.go `UpdateSystemConfigWithL1Receipts`): every log
 * of `systemConfigAddress` whose topic 0 is `ConfigUpdate`, in successful receipts, in log order,
 * each decoded or skipped with its reason (fee scalars follow Ecotone rules when Ecotone is active
 * at the L1 timestamp). Apply them with `applyConfigUpdates` (chain/op/systemConfig.ts).
 */
export function configUpdatesOf(receipts: readonly L1Receipt[], systemConfigAddress: Uint8Array, cfg: OpForkSchedule, l1Timestamp: bigint): L1ConfigUpdate[] {
  const ecotone = isEcotoneAtL1Time(cfg, l1Timestamp);
  const out: L1ConfigUpdate[] = [];
  for (const { log, logIndex } of successfulLogsOf(receipts, systemConfigAddress)) {
    const topic0 = log.topics[0];
    if (topic0 !== undefined && bytesEqual(topic0, CONFIG_UPDATE_TOPIC_BYTES)) out.push({ ...decodeConfigUpdateLog(log, ecotone), logIndex });
  }
  return out;
}
