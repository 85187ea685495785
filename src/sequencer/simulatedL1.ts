/**
 * The built-in devnet's simulated L1, as an {@link L1OriginSource}: L1 block `n` has hash
 * `keccak256("basalt devnet L1" ++ uint64(n))`, base fee {@link DEVNET_L1_BASE_FEE_WEI} and blob
 * base fee 1. The origin advances when {@link DEVNET_L1_BLOCK_TIME_S} seconds have passed since
 * it, or at once when deposits are waiting (as if they had been mined in the next L1 block).
 * Each block takes the wall clock's second (or its parent's + 1). After a restart the origin is
 * read back from the head's L1-attributes deposit. Deposits come from `dev_sendDeposit`
 * ({@link SimulatedL1Origins.injectDeposit}).
 */
import type { Block } from "@ethereumjs/block";
import { Address, bigIntToBytes, concatBytes, hexToBytes, setLengthLeft, utf8ToBytes } from "@ethereumjs/util";
import type { Chain } from "../blockchain/chain.js";
import { DepositTransaction, isDeposit } from "../chain/op/depositTx.js";
import { batcherHashFromAddress, decodeL1InfoCalldata, l1InfoDepositTx, l1InfoVariantFor } from "../chain/op/l1InfoTx.js";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "../chain/op/predeploys.js";
import { userDepositSourceHash } from "../chain/op/sourceHash.js";
import { upgradeTransactionsForBlock } from "../chain/op/upgrades.js";
import { DEVNET_BASE_FEE_SCALAR, DEVNET_BLOB_BASE_FEE_SCALAR, DEVNET_MIN_BASE_FEE_WEI } from "../chain/constants.js";
import { DEVNET_BATCHER_ADDRESS, DEVNET_DA_FOOTPRINT_GAS_SCALAR, DEVNET_L1_BASE_FEE_WEI, DEVNET_L1_BLOCK_TIME_S, DEVNET_OPERATOR_FEE_CONSTANT, DEVNET_OPERATOR_FEE_SCALAR } from "./constants.js";
import type { OpPayloadAttributes } from "../execution/op/opPayload.js";
import { TypedError } from "../util/errors.js";
import { keccak256 } from "../util/keccak.js";
import type { L1OriginSource, PlannedBlock, SequencerOrigin } from "./l1Origins.js";

/** Stable code of {@link DevDepositError}. */
const DevDepositErrorCode = { INVALID: "DEV_DEPOSIT_INVALID" } as const;
/** A {@link DevDepositError}'s code with its metadata (`gasLimit` given, `minimum` needed; decimal). */
type DevDepositErrorType = { code: typeof DevDepositErrorCode.INVALID; gasLimit: string; minimum: string };

/** A user deposit the simulated L1 cannot queue (its gas is below the intrinsic minimum). */
class DevDepositError extends TypedError<DevDepositErrorType> {}

/** Hash of simulated L1 block `n`. */
export function devL1BlockHash(n: bigint): Uint8Array {
  return keccak256(concatBytes(utf8ToBytes("basalt devnet L1"), setLengthLeft(bigIntToBytes(n), 8)));
}

/** A user deposit to inject (as if emitted by the L1 OptimismPortal). */
export interface DevDepositRequest {
  /** L2 sender (already aliased if it stands for an L1 contract). */
  from: Uint8Array;
  /** Recipient; undefined for a contract creation. */
  to?: Uint8Array;
  mint: bigint;
  value: bigint;
  gasLimit: bigint;
  data: Uint8Array;
}

/** The L1 origin (and sequence number) of `head`, from its L1-attributes deposit; the genesis is simulated L1 block 0 at its time. */
function originOfHead(head: Block): { origin: SequencerOrigin; sequenceNumber: bigint } {
  const first = head.transactions[0] as unknown as { type: number; data: Uint8Array } | undefined;
  if (first !== undefined && isDeposit(first)) {
    const { values } = decodeL1InfoCalldata(first.data);
    return { origin: { number: values.number, hash: values.hash, timestamp: values.timestamp }, sequenceNumber: values.sequenceNumber };
  }
  return { origin: { number: 0n, hash: devL1BlockHash(0n), timestamp: head.header.timestamp }, sequenceNumber: -1n };
}

/** The devnet's simulated L1 (see the module comment). */
export class SimulatedL1Origins implements L1OriginSource {
  /** Blocks take the wall clock's time. */
  readonly blockTime = undefined;
  /** Nothing derives the devnet: each block is safe and finalized when committed. */
  readonly sealsFinal = true;
  /** L1 origin and sequence number of the head block. */
  private origin: SequencerOrigin;
  private sequenceNumber: bigint;
  /** Deposits waiting for the next L1 origin, with their final transaction. */
  private pending: DepositTransaction[] = [];
  /** The block planned and not yet committed or abandoned (its deposits are out of `pending`). */
  private inFlight: PlannedBlock | undefined;

  constructor(private readonly chain: Chain) {
    const recovered = originOfHead(chain.head);
    this.origin = recovered.origin;
    this.sequenceNumber = recovered.sequenceNumber;
  }

  /**
   * Queues a user deposit for the next L1 origin (the block after the one being built, else the
   * next block) and returns its L2 transaction. Its source hash is that of log `i` of that
   * simulated L1 block.
   */
  injectDeposit(req: DevDepositRequest): DepositTransaction {
    if (req.gasLimit < 21_000n) throw new DevDepositError({ code: DevDepositErrorCode.INVALID, gasLimit: req.gasLimit.toString(), minimum: "21000" }, `deposit gas ${req.gasLimit} is below the 21000 intrinsic minimum`);
    const l1Number = (this.inFlight?.origin ?? this.origin).number + 1n;
    const tx = new DepositTransaction({
      sourceHash: userDepositSourceHash(devL1BlockHash(l1Number), this.pending.length),
      from: new Address(req.from),
      to: req.to === undefined ? undefined : new Address(req.to),
      mint: req.mint,
      value: req.value,
      gasLimit: req.gasLimit,
      isSystemTx: false,
      data: req.data,
    });
    this.pending.push(tx);
    return tx;
  }

  /** The block after `head` with every waiting deposit (nothing consumed). */
  private build(head: Block): PlannedBlock {
    const op = this.chain.op!;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const timestamp = now > head.header.timestamp ? now : head.header.timestamp + 1n;
    const deposits = this.pending.slice();
    let origin = this.origin;
    let seq = this.sequenceNumber + 1n;
    if (deposits.length > 0 || timestamp - origin.timestamp >= BigInt(DEVNET_L1_BLOCK_TIME_S)) {
      const number = origin.number + 1n;
      origin = { number, hash: devL1BlockHash(number), timestamp };
      seq = 0n;
    }
    const variant = l1InfoVariantFor(op, timestamp, head.header.timestamp);
    const l1Info = l1InfoDepositTx(
      {
        number: origin.number,
        timestamp: origin.timestamp,
        baseFee: DEVNET_L1_BASE_FEE_WEI,
        hash: origin.hash,
        sequenceNumber: seq,
        batcherHash: batcherHashFromAddress(hexToBytes(DEVNET_BATCHER_ADDRESS)),
        l1FeeOverhead: 0n,
        l1FeeScalar: DEVNET_BASE_FEE_SCALAR,
        baseFeeScalar: DEVNET_BASE_FEE_SCALAR,
        blobBaseFeeScalar: DEVNET_BLOB_BASE_FEE_SCALAR,
        blobBaseFee: 1n,
        operatorFeeScalar: DEVNET_OPERATOR_FEE_SCALAR,
        operatorFeeConstant: DEVNET_OPERATOR_FEE_CONSTANT,
        daFootprintGasScalar: DEVNET_DA_FOOTPRINT_GAS_SCALAR,
      },
      variant,
    );
    const included = seq === 0n ? deposits : [];
    const attrs: OpPayloadAttributes = {
      timestamp,
      prevRandao: keccak256(origin.hash),
      suggestedFeeRecipient: hexToBytes(SEQUENCER_FEE_VAULT_ADDRESS),
      parentBeaconBlockRoot: keccak256(concatBytes(utf8ToBytes("basalt devnet beacon"), origin.hash)),
      // L1 info, the origin's user deposits, then any fork's upgrade deposits (specs derivation.md).
      transactions: [...[l1Info, ...included].map((t) => t.serialize()), ...upgradeTransactionsForBlock(op, timestamp, head.header.timestamp)],
      noTxPool: false,
      gasLimit: head.header.gasLimit,
      eip1559Params: new Uint8Array(8),
      minBaseFee: DEVNET_MIN_BASE_FEE_WEI,
    };
    return { attrs, origin, sequenceNumber: seq, deposits: included, pastDrift: false };
  }

  /**
   * The payload attributes the next block on `head` would get (L1-attributes deposit, waiting
   * user deposits of a new origin, upgrade deposits), without consuming anything.
   */
  preview(head: Block): OpPayloadAttributes {
    return this.build(head).attrs;
  }

  /** Plans the block after `head`; its deposits leave the queue (they return if it is abandoned). */
  plan(head: Block): Promise<PlannedBlock> {
    const block = this.build(head);
    this.pending = this.pending.slice(block.deposits.length);
    this.inFlight = block;
    return Promise.resolve(block);
  }

  committed(block: PlannedBlock): void {
    this.origin = block.origin;
    this.sequenceNumber = block.sequenceNumber;
    if (this.inFlight === block) this.inFlight = undefined;
  }

  abandoned(block: PlannedBlock): void {
    this.pending = [...block.deposits, ...this.pending];
    if (this.inFlight === block) this.inFlight = undefined;
  }
}
