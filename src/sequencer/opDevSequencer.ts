/**
 * The OP devnet sequencer: seals a block every `blockTimeS` seconds the way an OP Stack
 * sequencer does — the L1-attributes deposit first (from a simulated L1 origin), then the
 * user deposits of a new L1 origin, then mempool transactions — through the same
 * payload-attributes path as the Engine API (`buildOpOnHead`).
 *
 * The simulated L1 is deterministic: L1 block `n` has hash
 * `keccak256("basalt devnet L1" ++ uint64(n))`, base fee {@link DEVNET_L1_BASE_FEE_WEI} and
 * blob base fee 1. The origin advances when {@link DEVNET_L1_BLOCK_TIME_S} seconds have passed
 * since it, or at once when deposits are waiting (as if they had been mined in the next L1
 * block). After a restart the origin is read back from the head's L1-attributes deposit.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { Address, bigIntToBytes, concatBytes, hexToBytes, setLengthLeft, utf8ToBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import { DepositTransaction, isDeposit } from "../chain/op/depositTx.js";
import { decodeL1InfoCalldata, encodeL1InfoCalldata, l1InfoVariantFor, L1_INFO_DEPOSIT_GAS, batcherHashFromAddress } from "../chain/op/l1InfoTx.js";
import { L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR_ADDRESS, SEQUENCER_FEE_VAULT_ADDRESS } from "../chain/op/predeploys.js";
import { l1InfoSourceHash, userDepositSourceHash } from "../chain/op/sourceHash.js";
import { upgradeTransactionsForBlock } from "../chain/op/upgrades.js";
import {
  DEVNET_BATCHER_ADDRESS,
  DEVNET_BLOB_BASE_FEE_SCALAR,
  DEVNET_BASE_FEE_SCALAR,
  DEVNET_L1_BASE_FEE_WEI,
  DEVNET_L1_BLOCK_TIME_S,
  DEVNET_MIN_BASE_FEE_WEI,
  DEVNET_OPERATOR_FEE_CONSTANT,
  DEVNET_OPERATOR_FEE_SCALAR,
  DEVNET_DA_FOOTPRINT_GAS_SCALAR,
} from "../config/constants.js";
import type { TxPool } from "../txpool/txpool.js";
import { BasaltError } from "../util/errors.js";
import { to0x } from "../util/bytes.js";
import { buildOpOnHead } from "./opBuilder.js";

/** An L1 block the devnet's L2 blocks reference. */
export interface DevL1Origin {
  number: bigint;
  hash: Uint8Array;
  timestamp: bigint;
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

/** Hash of simulated L1 block `n`. */
export function devL1BlockHash(n: bigint): Uint8Array {
  return keccak_256(concatBytes(utf8ToBytes("basalt devnet L1"), setLengthLeft(bigIntToBytes(n), 8)));
}

/** Periodic OP block production on the devnet. */
export class OpDevSequencer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private origin: DevL1Origin;
  private sequenceNumber: bigint;
  /** Deposits waiting for the next L1 origin, with their final transaction. */
  private pending: DepositTransaction[] = [];

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly blockTimeS: number,
    private readonly log: Logger,
  ) {
    const recovered = this.originOfHead();
    this.origin = recovered.origin;
    this.sequenceNumber = recovered.sequenceNumber;
  }

  /** The L1 origin (and sequence number) of the head block, from its L1-attributes deposit. */
  private originOfHead(): { origin: DevL1Origin; sequenceNumber: bigint } {
    const head = this.chain.head;
    const first = head.transactions[0] as unknown as { type: number } | undefined;
    if (first !== undefined && isDeposit(first)) {
      const { values } = decodeL1InfoCalldata(first.data);
      return { origin: { number: values.number, hash: values.hash, timestamp: values.timestamp }, sequenceNumber: values.sequenceNumber };
    }
    // Genesis: L1 block 0 at the genesis time.
    return { origin: { number: 0n, hash: devL1BlockHash(0n), timestamp: head.header.timestamp }, sequenceNumber: -1n };
  }

  start(): void {
    if (this.blockTimeS <= 0) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sealOne()
        .then(() => undefined)
        .catch((e: unknown) => this.log.error({ err: (e as Error).message }, "devnet block production failed"))
        .finally(() => this.schedule());
    }, this.blockTimeS * 1000);
  }

  /**
   * Queues a user deposit for the next L1 origin (the next sealed block) and returns its
   * L2 transaction. Its source hash is that of log `i` of the next simulated L1 block.
   */
  injectDeposit(req: DevDepositRequest): DepositTransaction {
    if (req.gasLimit < 21_000n) throw new BasaltError("DEV_DEPOSIT_INVALID", `deposit gas ${req.gasLimit} is below the 21000 intrinsic minimum`);
    const l1Number = this.origin.number + 1n;
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

  /** Seals one block now; returns its number. */
  async sealOne(): Promise<bigint> {
    const head = this.chain.head;
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
    const calldata = encodeL1InfoCalldata(
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
    const l1Info = new DepositTransaction({
      sourceHash: l1InfoSourceHash(origin.hash, seq),
      from: new Address(hexToBytes(L1_INFO_DEPOSITOR_ADDRESS)),
      to: new Address(hexToBytes(L1_BLOCK_ADDRESS)),
      mint: 0n,
      value: 0n,
      gasLimit: L1_INFO_DEPOSIT_GAS,
      isSystemTx: false,
      data: calldata,
    });
    const included = seq === 0n ? deposits : [];
    const ex = await buildOpOnHead(
      this.chain,
      this.pool,
      {
        timestamp,
        prevRandao: keccak_256(origin.hash),
        suggestedFeeRecipient: hexToBytes(SEQUENCER_FEE_VAULT_ADDRESS),
        parentBeaconBlockRoot: keccak_256(concatBytes(utf8ToBytes("basalt devnet beacon"), origin.hash)),
        // L1 info, the origin's user deposits, then any fork's upgrade deposits (specs derivation.md).
        transactions: [...[l1Info, ...included].map((t) => t.serialize()), ...upgradeTransactionsForBlock(op, timestamp, head.header.timestamp)],
        noTxPool: false,
        gasLimit: head.header.gasLimit,
        eip1559Params: new Uint8Array(8),
        minBaseFee: DEVNET_MIN_BASE_FEE_WEI,
      },
      this.log,
    );
    this.chain.commitCanonical(ex, { safe: ex.block.hash(), finalized: ex.block.hash() });
    this.origin = origin;
    this.sequenceNumber = seq;
    if (included.length > 0) this.pending = this.pending.slice(included.length);
    this.pool.prune();
    this.log.debug({ number: ex.block.header.number.toString(), hash: to0x(ex.block.hash()), txs: ex.block.transactions.length, l1Origin: origin.number.toString() }, "sealed block");
    return ex.block.header.number;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }
}
