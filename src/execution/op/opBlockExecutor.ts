/**
 * OP Stack block execution on @ethereumjs/vm, transaction by transaction, with the rules
 * op-revm / op-reth apply on top of Ethereum's:
 *
 * - deposits (type 0x7e) run without fees or signature: `mint` is credited first and kept
 *   even when execution fails, the nonce is bumped, gas is accounted per Regolith (a halted
 *   deposit uses its whole gas limit), and no coinbase reward is paid;
 * - every other transaction pays, on top of Ethereum's gas: the L1 data fee (into the
 *   L1FeeVault) and from Isthmus the operator fee (into the OperatorFeeVault, unused gas
 *   refunded), both charged up front; the base fee is credited to the BaseFeeVault instead of
 *   being burned; the priority fee goes to the coinbase (the SequencerFeeVault);
 * - the block's pre-execution system calls are the Ethereum ones that OP adopted (EIP-4788
 *   from Ecotone, EIP-2935 from Isthmus; no EIP-7002/7251 requests), plus the Canyon
 *   create2-deployer code at Canyon's activation block;
 * - the header commits to OP values: Isthmus `withdrawalsRoot` = the L2ToL1MessagePasser's
 *   storage root, Jovian `blobGasUsed` = the block's DA footprint, deposit receipts carry
 *   `depositNonce` (Regolith) and `depositReceiptVersion` (Canyon).
 *
 * The executor is used both to import blocks (every transaction must apply) and to build
 * them (the sequencer skips pool transactions that do not apply), hence the per-transaction
 * API. It only touches the state through the VM's state manager.
 */
import type { Block } from "@ethereumjs/block";
import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import { decodeL1InfoCalldata } from "../../chain/op/l1InfoTx.js";
import { l1InfoSourceHash } from "../../chain/op/sourceHash.js";
import { Account, Address, bigIntToBytes, bytesToBigInt, bytesToHex, equalsBytes, concatBytes, setLengthLeft, hexToBytes, intToBytes, KECCAK256_RLP } from "@ethereumjs/util";
import { runTx, type VM } from "@ethereumjs/vm";
import { EVMError } from "@ethereumjs/evm";
import { keccak256 } from "../../util/keccak.js";
import { DEPOSIT_TX_TYPE, isDeposit, type DepositTransaction } from "../../chain/op/depositTx.js";
import { OpFork, isActivationBlock, opForkAt, type OpChainConfig } from "../../chain/op/forks.js";
import { loadL1BlockInfo, type L1BlockInfo } from "../../chain/op/l1BlockInfo.js";
import { l1Cost, operatorFeeCharge, operatorFeeRefund } from "../../chain/op/l1Cost.js";
import { txDaFootprint } from "../../chain/op/daFootprint.js";
import {
  BASE_FEE_VAULT_ADDRESS as BASE_FEE_VAULT,
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  L1_BLOCK_ADDRESS,
  L1_FEE_VAULT_ADDRESS as L1_FEE_VAULT,
  L1_INFO_DEPOSITOR_ADDRESS as L1_INFO_DEPOSITOR,
  L2_TO_L1_MESSAGE_PASSER_ADDRESS as L2_TO_L1_MESSAGE_PASSER,
  OPERATOR_FEE_VAULT_ADDRESS as OPERATOR_FEE_VAULT,
} from "../../chain/op/predeploys.js";
import type { Log, StoredReceipt } from "../../storage/types.js";
import { orderedTrieRoot } from "../../chain/orderedTrie.js";
import type { OverlayStateManager } from "../state/overlayStateManager.js";
import { applyBeaconRootCall, applyHistoryStorageCall } from "../systemCalls.js";
import { OpExecutionError, OpExecutionErrorCode } from "./errors.js";

/** Intrinsic gas constants (Ethereum yellow paper / EIPs; OP chains start after Istanbul and Shanghai rules apply from Canyon). */
const TX_GAS = 21_000n;
/** Contract-creation surcharge (EIP-2). */
const TX_CREATE_GAS = 32_000n;
/** Per zero calldata byte. */
const TX_DATA_ZERO_GAS = 4n;
/** Per non-zero calldata byte (EIP-2028, Istanbul). */
const TX_DATA_NONZERO_GAS = 16n;
/** Per 32-byte word of initcode (EIP-3860, Shanghai = Canyon). */
const INITCODE_WORD_GAS = 2n;
/** Largest initcode (EIP-3860): 2 × 24,576. */
const MAX_INITCODE_SIZE = 49_152;
/** EIP-7623 (Prague = Isthmus) calldata floor per token. */
const FLOOR_GAS_PER_TOKEN = 10n;
/** London's refund cap divisor (EIP-3529). */
const MAX_REFUND_QUOTIENT = 5n;
/** Version written into deposit receipts from Canyon (specs deposits.md "Deposit Receipt"). */
export const DEPOSIT_RECEIPT_VERSION = 1;
/** EIP-4844 blob transactions are not allowed on OP chains (specs ecotone/derivation.md). */
const BLOB_TX_TYPE = 3;

/** A transaction of an OP block. */
export type OpTransaction = TypedTransaction | DepositTransaction;

/** The outcome of one applied transaction. */
export interface AppliedTx {
  receipt: StoredReceipt;
  /** Gas the transaction used (receipt gas). */
  gasUsed: bigint;
  /** Address of a created contract. */
  createdAddress?: Uint8Array;
  /** Sender (recovered or the deposit's `from`). */
  sender: Uint8Array;
}

/** Totals of an executed block, what its header commits to. */
export interface OpBlockTotals {
  receipts: StoredReceipt[];
  senders: Uint8Array[];
  gasUsed: bigint;
  /** Jovian: DA footprint (the header's `blobGasUsed`); 0 before. */
  blobGasUsed: bigint;
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  /** Canyon+: empty-list root; Isthmus+: the L2ToL1MessagePasser storage root. */
  withdrawalsRoot?: Uint8Array;
}

const ZERO = 0n;

function txIntrinsicGas(data: Uint8Array, isCreate: boolean, fork: OpFork): { intrinsic: bigint; floor: bigint } {
  let zeros = 0n;
  for (const b of data) if (b === 0) zeros++;
  const nonZeros = BigInt(data.length) - zeros;
  let intrinsic = TX_GAS + zeros * TX_DATA_ZERO_GAS + nonZeros * TX_DATA_NONZERO_GAS;
  if (isCreate) {
    intrinsic += TX_CREATE_GAS;
    if (fork >= OpFork.canyon) intrinsic += INITCODE_WORD_GAS * ((BigInt(data.length) + 31n) / 32n);
  }
  const floor = fork >= OpFork.isthmus ? TX_GAS + FLOOR_GAS_PER_TOKEN * (zeros + nonZeros * 4n) : 0n;
  return { intrinsic, floor };
}

function bloomOf(logs: Log[]): Uint8Array {
  const bloom = new Uint8Array(256);
  const add = (v: Uint8Array): void => {
    const h = keccak256(v);
    for (let i = 0; i < 6; i += 2) {
      const bit = ((h[i] << 8) | h[i + 1]) & 2047;
      bloom[256 - 1 - (bit >> 3)] |= 1 << (bit & 7);
    }
  };
  for (const l of logs) {
    add(l.address);
    for (const t of l.topics) add(t);
  }
  return bloom;
}

function toLogs(raw: [Uint8Array, Uint8Array[], Uint8Array][] | undefined): Log[] {
  return (raw ?? []).map(([address, topics, data]) => ({ address, topics, data }));
}

/**
 * The EIP-2718 receipt encoding an OP chain commits to. Deposit receipts append
 * `depositNonce` and `depositReceiptVersion` when present; `forRoot` drops the nonce for
 * Regolith-to-Canyon blocks, whose receipt roots op-geth computed without it (op-reth keeps
 * that quirk so those historical roots verify).
 */
export function encodeOpReceipt(r: StoredReceipt, forRoot: { stripDepositNonce: boolean } = { stripDepositNonce: false }): Uint8Array {
  const fields: (Uint8Array | Uint8Array[] | unknown[])[] = [
    r.root ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0)),
    bigIntToBytes(r.cumulativeGasUsed).length === 1 && r.cumulativeGasUsed === 0n ? new Uint8Array(0) : bigIntToBytes(r.cumulativeGasUsed),
    r.bloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ];
  if (r.type === DEPOSIT_TX_TYPE && r.depositNonce !== undefined && !forRoot.stripDepositNonce) {
    fields.push(r.depositNonce === 0n ? new Uint8Array(0) : bigIntToBytes(r.depositNonce));
    if (r.depositReceiptVersion !== undefined) fields.push(intToBytes(r.depositReceiptVersion));
  }
  const body = RLP.encode(fields as never);
  return r.type === 0 ? body : concatBytes(Uint8Array.of(r.type), body);
}

/** Root of the receipts trie (key = rlp(index)). */
export async function opReceiptsRoot(receipts: StoredReceipt[], fork: OpFork): Promise<Uint8Array> {
  const strip = fork >= OpFork.regolith && fork < OpFork.canyon;
  return orderedTrieRoot(receipts.map((r) => encodeOpReceipt(r, { stripDepositNonce: strip })));
}

/**
 * Executes the transactions of one OP block on a VM whose state manager holds the parent
 * state. Create one per block; call {@link begin}, then {@link apply} per transaction, then
 * {@link finish}.
 */
export class OpBlockExecutor {
  readonly fork: OpFork;
  private l1Info: L1BlockInfo | undefined;
  private readonly receipts: StoredReceipt[] = [];
  private readonly senders: Uint8Array[] = [];
  private gasUsed = ZERO;
  private daFootprint = ZERO;
  private sawNonDeposit = false;

  constructor(
    private readonly vm: VM,
    /** The block being executed (for building: a template with the final env fields). */
    private readonly block: Block,
    private readonly op: OpChainConfig,
    private readonly parentTimestamp: bigint | undefined,
  ) {
    this.fork = opForkAt(op, block.header.timestamp);
  }

  private get state(): OverlayStateManager {
    return this.vm.stateManager as unknown as OverlayStateManager;
  }

  private fail(code: OpExecutionErrorCode, why: string, txIndex?: number): never {
    const n = this.block.header.number;
    const where = txIndex === undefined ? `block ${n}` : `block ${n}, transaction ${txIndex}`;
    throw new OpExecutionError(code, `${where}: ${why}`, { number: n, txIndex });
  }

  /** Pre-transaction work: Canyon's create2 deployer, EIP-4788 and EIP-2935 system calls. */
  async begin(): Promise<void> {
    const h = this.block.header;
    const common = this.vm.common;
    if (isActivationBlock(this.op, "canyon", h.timestamp, this.parentTimestamp)) {
      // op-geth `EnsureCreate2Deployer`: the code is set (not deployed) at Canyon's activation.
      await this.state.putCode(new Address(hexToBytes(CREATE2_DEPLOYER_ADDRESS)), hexToBytes(CREATE2_DEPLOYER_CODE as `0x${string}`));
    }
    if (common.isActivatedEIP(4788) && h.parentBeaconBlockRoot !== undefined) {
      await applyBeaconRootCall(this.state, h.timestamp, h.parentBeaconBlockRoot);
    }
    if (common.isActivatedEIP(2935)) {
      await applyHistoryStorageCall(this.state, h.number, h.parentHash);
    }
  }

  /** Gas still available in the block. */
  get gasLeft(): bigint {
    return this.block.header.gasLimit - this.gasUsed;
  }

  /** Number of transactions applied so far. */
  get count(): number {
    return this.receipts.length;
  }

  /**
   * Applies one transaction. Throws {@link OpExecutionError} when the transaction cannot be
   * included (the state is then unchanged): an importer rejects the block, a builder skips it.
   */
  async apply(tx: OpTransaction): Promise<AppliedTx> {
    const index = this.receipts.length;
    if (index === 0 && !(isDeposit(tx) && tx.from.toString().toLowerCase() === L1_INFO_DEPOSITOR.toLowerCase() && tx.to?.toString().toLowerCase() === L1_BLOCK_ADDRESS.toLowerCase())) {
      this.fail(OpExecutionErrorCode.MISSING_L1_INFO, "the first transaction must be the L1-attributes deposit (from the L1-info depositor to the L1Block predeploy)", 0);
    }
    if (index === 0) this.checkL1InfoDeposit(tx as DepositTransaction);
    if (isDeposit(tx)) {
      if (this.sawNonDeposit) this.fail(OpExecutionErrorCode.DEPOSIT_ORDER, "deposit after a non-deposit transaction; deposits must come first", index);
      return this.applyDeposit(tx, index);
    }
    this.sawNonDeposit = true;
    return this.applyUserTx(tx, index);
  }

  /**
   * The L1-attributes deposit must carry well-formed calldata for the L1Block predeploy and
   * the source hash derived from it (`keccak256(1 ++ keccak256(l1BlockHash ++ seqNumber))`).
   */
  private checkL1InfoDeposit(tx: DepositTransaction): void {
    let values;
    try {
      values = decodeL1InfoCalldata(tx.data).values;
    } catch (e) {
      this.fail(OpExecutionErrorCode.MISSING_L1_INFO, `malformed L1-attributes calldata: ${(e as Error).message}`, 0);
    }
    const expected = l1InfoSourceHash(values.hash, values.sequenceNumber);
    if (!equalsBytes(expected, tx.sourceHash)) {
      this.fail(
        OpExecutionErrorCode.BAD_SOURCE_HASH,
        `L1-attributes deposit has source hash ${bytesToHex(tx.sourceHash)}, but its L1 origin ${bytesToHex(values.hash)} and sequence number ${values.sequenceNumber} give ${bytesToHex(expected)}`,
        0,
      );
    }
  }

  private async applyDeposit(tx: DepositTransaction, index: number): Promise<AppliedTx> {
    const fork = this.fork;
    if (tx.isSystemTx && fork >= OpFork.regolith) this.fail(OpExecutionErrorCode.SYSTEM_TX, "system deposits are invalid from Regolith on", index);
    if (tx.gasLimit > this.gasLeft) {
      this.fail(OpExecutionErrorCode.BLOCK_GAS, `deposit gas limit ${tx.gasLimit} exceeds the ${this.gasLeft} gas left in the block`, index);
    }
    const vm = this.vm;
    const journal = vm.evm.journal;
    const caller = tx.from;
    const before = (await this.state.getAccount(caller)) ?? new Account();
    const depositNonce = before.nonce;
    const h = this.block.header;

    await journal.cleanup();
    await journal.checkpoint();
    let status: 0 | 1 = 0;
    let gasUsed = tx.gasLimit;
    let logs: Log[] = [];
    let createdAddress: Uint8Array | undefined;
    let failed = false;
    try {
      const acct = (await this.state.getAccount(caller)) ?? new Account();
      acct.balance += tx.mint;
      acct.nonce += 1n;
      await journal.putAccount(caller, acct);
      const isCreate = tx.to === undefined;
      const { intrinsic, floor } = txIntrinsicGas(tx.data, isCreate, fork);
      if (tx.gasLimit < intrinsic || tx.gasLimit < floor || (isCreate && fork >= OpFork.canyon && tx.data.length > MAX_INITCODE_SIZE)) {
        failed = true;
      } else {
        if (vm.common.isActivatedEIP(2929)) {
          for (const [a] of vm.evm.precompiles.entries()) journal.addAlwaysWarmAddress(a);
          journal.addAlwaysWarmAddress(caller.toString());
          if (tx.to !== undefined) journal.addAlwaysWarmAddress(tx.to.toString());
          if (vm.common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(h.coinbase.toString());
        }
        const res = await vm.evm.runCall({
          block: this.block as never,
          gasPrice: 0n,
          caller,
          origin: caller,
          gasLimit: tx.gasLimit - intrinsic,
          to: tx.to,
          value: tx.value,
          data: tx.data,
          skipNonceIncrement: true,
        });
        const err = res.execResult.exceptionError;
        if (err !== undefined && err.error !== EVMError.errorMessages.REVERT) {
          failed = true; // a halted deposit (Regolith): all effects but mint and nonce are dropped
        } else {
          const spent = intrinsic + res.execResult.executionGasUsed;
          let used = spent;
          if (err === undefined) {
            status = 1;
            const refund = res.execResult.gasRefund ?? 0n;
            const cap = spent / MAX_REFUND_QUOTIENT;
            used = spent - (refund < cap ? refund : cap);
            logs = toLogs(res.execResult.logs as never);
            createdAddress = res.createdAddress?.bytes;
            await this.processSelfdestructs(res.execResult.selfdestruct, res.execResult.createdAddresses);
          }
          gasUsed = used < floor ? floor : used;
        }
      }
      if (failed) {
        await journal.revert();
        await journal.checkpoint();
        const a = (await this.state.getAccount(caller)) ?? new Account();
        a.balance += tx.mint;
        a.nonce += 1n;
        await journal.putAccount(caller, a);
        gasUsed = fork >= OpFork.regolith || !tx.isSystemTx ? tx.gasLimit : 0n;
        status = 0;
        logs = [];
        createdAddress = undefined;
      }
      await journal.cleanup();
      await journal.commit();
    } catch (e) {
      await journal.revert();
      throw e;
    } finally {
      this.state.originalStorageCache.clear();
    }
    this.gasUsed += gasUsed;
    const receipt: StoredReceipt = { type: DEPOSIT_TX_TYPE, status, cumulativeGasUsed: this.gasUsed, logs, bloom: bloomOf(logs) };
    if (fork >= OpFork.regolith) receipt.depositNonce = depositNonce;
    if (fork >= OpFork.canyon) receipt.depositReceiptVersion = DEPOSIT_RECEIPT_VERSION;
    this.receipts.push(receipt);
    this.senders.push(caller.bytes);
    return { receipt, gasUsed, createdAddress, sender: caller.bytes };
  }

  private async processSelfdestructs(selfdestruct: Set<string> | Map<string, unknown> | undefined, created: Set<string> | undefined): Promise<void> {
    if (selfdestruct === undefined) return;
    for (const key of selfdestruct.keys()) {
      const address = new Address(hexToBytes(key as `0x${string}`));
      if (this.vm.common.isActivatedEIP(6780) && created?.has(address.toString()) !== true) continue;
      await this.vm.evm.journal.deleteAccount(address);
    }
  }

  private async loadL1Info(): Promise<L1BlockInfo> {
    if (this.l1Info === undefined) {
      const addr = new Address(hexToBytes(L1_BLOCK_ADDRESS));
      this.l1Info = await loadL1BlockInfo(async (slot) => bytesToBigInt(await this.state.getStorage(addr, setLengthLeft(bigIntToBytes(slot), 32))), this.fork);
    }
    return this.l1Info;
  }

  private async credit(address: string, amount: bigint): Promise<void> {
    if (amount === 0n) return; // a zero credit only touches the account: no state change (EIP-161)
    const a = new Address(hexToBytes(address as `0x${string}`));
    const acct = (await this.state.getAccount(a)) ?? new Account();
    acct.balance += amount;
    await this.state.putAccount(a, acct);
  }

  private async applyUserTx(tx: TypedTransaction, index: number): Promise<AppliedTx> {
    const fork = this.fork;
    if (tx.type === BLOB_TX_TYPE) this.fail(OpExecutionErrorCode.BLOB_TX, "blob transactions (type 3) are not allowed on OP chains", index);
    if (tx.gasLimit > this.gasLeft) {
      this.fail(OpExecutionErrorCode.BLOCK_GAS, `transaction gas limit ${tx.gasLimit} exceeds the ${this.gasLeft} gas left in the block`, index);
    }
    const envelope = tx.serialize();
    let da = 0n;
    const info = await this.loadL1Info();
    if (fork >= OpFork.jovian) {
      da = txDaFootprint(envelope, info.daFootprintGasScalar ?? 0n);
      if (this.daFootprint + da > this.block.header.gasLimit) {
        this.fail(OpExecutionErrorCode.DA_FOOTPRINT, `DA footprint ${this.daFootprint + da} would exceed the block gas limit ${this.block.header.gasLimit}`, index);
      }
    }
    let sender: Address;
    try {
      sender = tx.getSenderAddress();
    } catch (e) {
      this.fail(OpExecutionErrorCode.INVALID_TX, `invalid signature: ${(e as Error).message}`, index);
    }
    const l1Fee = l1Cost(info, envelope, fork);
    const operatorUpfront = operatorFeeCharge(info, tx.gasLimit, fork);
    const upfront = l1Fee + operatorUpfront;
    const acct = (await this.state.getAccount(sender)) ?? new Account();
    const balanceBefore = acct.balance;
    if (upfront > 0n) {
      if (acct.balance < upfront) {
        this.fail(OpExecutionErrorCode.INSUFFICIENT_FUNDS, `insufficient funds for L1 fee and operator fee: balance ${acct.balance}, need ${upfront}`, index);
      }
      acct.balance -= upfront;
      await this.state.putAccount(sender, acct);
    }
    let result;
    try {
      result = await runTx(this.vm, {
        tx,
        block: this.block,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
        blockGasUsed: this.gasUsed,
      });
    } catch (e) {
      if (upfront > 0n) {
        const restore = (await this.state.getAccount(sender)) ?? new Account();
        restore.balance = balanceBefore;
        await this.state.putAccount(sender, restore);
      }
      this.fail(OpExecutionErrorCode.INVALID_TX, (e as Error).message.replace(/ -> .*$/s, ""), index);
    }
    const gasUsed = result.totalGasSpent;
    const baseFee = this.block.header.baseFeePerGas ?? 0n;
    if (fork >= OpFork.isthmus) {
      await this.credit(sender.toString(), operatorFeeRefund(info, tx.gasLimit, gasUsed, fork));
    }
    await this.credit(L1_FEE_VAULT, l1Fee);
    await this.credit(BASE_FEE_VAULT, baseFee * gasUsed);
    await this.credit(OPERATOR_FEE_VAULT, fork >= OpFork.isthmus ? operatorFeeCharge(info, gasUsed, fork) : 0n);
    this.gasUsed += gasUsed;
    this.daFootprint += da;
    const logs = toLogs(result.execResult.logs as never);
    const receipt: StoredReceipt = { type: tx.type, status: result.execResult.exceptionError === undefined ? 1 : 0, cumulativeGasUsed: this.gasUsed, logs, bloom: bloomOf(logs) };
    this.receipts.push(receipt);
    this.senders.push(sender.bytes);
    return { receipt, gasUsed, createdAddress: result.createdAddress?.bytes, sender: sender.bytes };
  }

  /** Computes what the header commits to. */
  /**
   * Totals of the transactions applied so far, without any root: receipts, senders, gas, DA
   * footprint and the logs bloom (callers that keep their own incremental receipts trie).
   */
  runningTotals(): Omit<OpBlockTotals, "stateRoot" | "withdrawalsRoot" | "receiptsRoot"> {
    const logsBloom = new Uint8Array(256);
    for (const r of this.receipts) for (let i = 0; i < 256; i++) logsBloom[i] |= r.bloom[i];
    return {
      receipts: this.receipts,
      senders: this.senders,
      gasUsed: this.gasUsed,
      blobGasUsed: this.fork >= OpFork.jovian ? this.daFootprint : 0n,
      logsBloom,
    };
  }

  /**
   * Totals of the transactions applied so far, without the state root: what a flashblock's
   * partial header commits to (receipts root, bloom, gas, DA footprint) mid-block.
   */
  async partialTotals(): Promise<Omit<OpBlockTotals, "stateRoot" | "withdrawalsRoot">> {
    return { ...this.runningTotals(), receiptsRoot: await opReceiptsRoot(this.receipts, this.fork) };
  }

  async finish(): Promise<OpBlockTotals> {
    const stateRoot = await this.state.getStateRoot();
    const logsBloom = new Uint8Array(256);
    for (const r of this.receipts) for (let i = 0; i < 256; i++) logsBloom[i] |= r.bloom[i];
    let withdrawalsRoot: Uint8Array | undefined;
    if (this.fork >= OpFork.isthmus) withdrawalsRoot = this.state.storageRootOf(hexToBytes(L2_TO_L1_MESSAGE_PASSER));
    else if (this.fork >= OpFork.canyon) withdrawalsRoot = KECCAK256_RLP;
    return {
      receipts: this.receipts,
      senders: this.senders,
      gasUsed: this.gasUsed,
      blobGasUsed: this.fork >= OpFork.jovian ? this.daFootprint : 0n,
      stateRoot,
      receiptsRoot: await opReceiptsRoot(this.receipts, this.fork),
      logsBloom,
      withdrawalsRoot,
    };
  }
}

/** Whether a transaction type may appear in an OP block body. */
export function isAllowedOpTxType(tx: { type: number; supports?(c: number): boolean }): boolean {
  return tx.type !== BLOB_TX_TYPE && (tx.type === DEPOSIT_TX_TYPE || tx.supports?.(Capability.EIP2718TypedTransaction) !== undefined);
}
