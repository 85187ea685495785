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
import type { TypedTransaction } from "@ethereumjs/tx";
import { decodeL1InfoCalldata } from "../../chain/op/l1InfoTx.js";
import { l1InfoSourceHash } from "../../chain/op/sourceHash.js";
import { Account, Address, bigIntToBytes, bytesToBigInt, bytesToHex, equalsBytes, setLengthLeft, hexToBytes, KECCAK256_RLP } from "@ethereumjs/util";
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
import { senderOf } from "../../chain/sender.js";
import type { OverlayStateManager } from "../state/overlayStateManager.js";
import { stateRootSeconds } from "../state/metrics.js";
import { applyBeaconRootCall, applyHistoryStorageCall } from "../systemCalls.js";
import { OpExecutionError, OpExecutionErrorCode } from "./errors.js";
import { blockEnvOf, defaultEvmEngine, FastEvm, type EvmEngineName } from "../evm/engine.js";
import { FastEvmUnsupported, TxInvalidError } from "../evm/errors.js";
import { evmTransactionOf } from "../evm/fromEthereumjs.js";
import { createAddress, Halt, type BlockEnv } from "../evm/interpreter.js";
import { overlaySink } from "../evm/overlaySink.js";
import { EvmState, type EvmLog, type StateSink } from "../evm/state.js";
import { runTransaction, warmDelegate, warmTransaction, type TxContext } from "../evm/transaction.js";
import { envelopeOf } from "../../chain/envelope.js";
import { LazyOpVm } from "./opVm.js";
import { encodeReceiptFields } from "../../chain/receiptRlp.js";

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
const DEPOSIT_RECEIPT_VERSION = 1;
/** EIP-4844 blob transactions are not allowed on OP chains (specs ecotone/derivation.md). */
const BLOB_TX_TYPE = 3;

/** The L1-derived fees of a user transaction, computed before either engine runs it. */
interface UserTxFees {
  l1Fee: bigint;
  operatorUpfront: bigint;
  info: L1BlockInfo;
}

const L1_FEE_VAULT_BYTES = hexToBytes(L1_FEE_VAULT as `0x${string}`);
const BASE_FEE_VAULT_BYTES = hexToBytes(BASE_FEE_VAULT as `0x${string}`);
const OPERATOR_FEE_VAULT_BYTES = hexToBytes(OPERATOR_FEE_VAULT as `0x${string}`);

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

/** Options of an {@link OpBlockExecutor}. */
export interface OpBlockExecutorOptions {
  /** The engine transactions run on first (default: `--evm`, see evm/engine.ts). */
  engine?: EvmEngineName;
  /**
   * The L1 attributes are already in the state (the block's L1Block predeploy holds them): user
   * transactions may come first, with no L1-attributes deposit. For metering a bundle on top of
   * a sealed block (base_meterBundle), never for a block that is imported or sealed.
   */
  l1InfoInState?: boolean;
}

/** The fast engine's state for one block: the engine context and where its changes go after each transaction. */
interface FastBlock {
  ctx: TxContext;
  state: EvmState;
  sink: StateSink;
}

/** What executing one transaction produced (either engine). */
interface TxExecution {
  status: 0 | 1;
  gasUsed: bigint;
  logs: Log[];
  createdAddress?: Uint8Array;
}

function logsOf(logs: EvmLog[]): Log[] {
  return logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data }));
}

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
  const extra: bigint[] = [];
  if (r.type === DEPOSIT_TX_TYPE && r.depositNonce !== undefined && !forRoot.stripDepositNonce) {
    extra.push(r.depositNonce);
    if (r.depositReceiptVersion !== undefined) extra.push(BigInt(r.depositReceiptVersion));
  }
  return encodeReceiptFields({
    type: r.type,
    statusOrRoot: r.root ?? (r.status === 1 ? STATUS_SUCCESS : STATUS_FAILURE),
    cumulativeGasUsed: r.cumulativeGasUsed,
    bloom: r.bloom,
    logs: r.logs,
    extra,
  });
}

const STATUS_SUCCESS = Uint8Array.of(1);
const STATUS_FAILURE = new Uint8Array(0);

/** Root of the receipts trie (key = rlp(index)). */
async function opReceiptsRoot(receipts: StoredReceipt[], fork: OpFork): Promise<Uint8Array> {
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
  /** The fast engine's block state (undefined until first used, null when the block runs on the reference engine). */
  private fast: FastBlock | null | undefined;
  private readonly engine: EvmEngineName;
  private readonly l1InfoInState: boolean;
  /** Transactions the fast engine handed to the reference engine in this block. */
  fallbacks = 0;

  constructor(
    /** The block's VM, or one created only if a transaction needs the reference engine. */
    private readonly vm: VM | LazyOpVm,
    /** The block being executed (for building: a template with the final env fields). */
    private readonly block: Block,
    private readonly op: OpChainConfig,
    private readonly parentTimestamp: bigint | undefined,
    opts: OpBlockExecutorOptions = {},
  ) {
    this.fork = opForkAt(op, block.header.timestamp);
    this.engine = opts.engine ?? defaultEvmEngine();
    this.l1InfoInState = opts.l1InfoInState === true;
  }

  /** The engine this block's transactions run on first. */
  get engineName(): EvmEngineName {
    return this.fast === null ? "reference" : this.engine;
  }

  /**
   * The fast engine's state for this block, created at the first transaction (after
   * {@link begin}'s system calls, which write the overlay directly); undefined when the block
   * runs on the reference engine (the option, an unsupported fork, or a BLOCKHASH source
   * without synchronous reads).
   */
  private fastBlock(): FastBlock | undefined {
    if (this.fast === undefined) {
      this.fast = null;
      const bc = this.vm.blockchain as unknown as { hashSync?: (n: bigint) => Uint8Array };
      if (this.engine === "fast" && typeof bc.hashSync === "function") {
        try {
          const evm = FastEvm.of(this.vm.common, this.fork);
          const state = new EvmState(this.state);
          const env: BlockEnv = blockEnvOf(this.block.header, (n) => bc.hashSync!(n));
          this.fast = { ctx: evm.context(state, env), state, sink: overlaySink(this.state) };
        } catch (e) {
          if (!(e instanceof FastEvmUnsupported)) throw e;
        }
      }
    }
    return this.fast ?? undefined;
  }

  /** The reference engine's VM (created now if the executor was given a {@link LazyOpVm}). */
  private referenceVm(): Promise<VM> | VM {
    return this.vm instanceof LazyOpVm ? this.vm.get() : this.vm;
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
    if (index === 0 && !this.l1InfoInState && !(isDeposit(tx) && tx.from.toString().toLowerCase() === L1_INFO_DEPOSITOR.toLowerCase() && tx.to?.toString().toLowerCase() === L1_BLOCK_ADDRESS.toLowerCase())) {
      this.fail(OpExecutionErrorCode.MISSING_L1_INFO, "the first transaction must be the L1-attributes deposit (from the L1-info depositor to the L1Block predeploy)", 0);
    }
    if (index === 0 && !this.l1InfoInState) this.checkL1InfoDeposit(tx as DepositTransaction);
    if (isDeposit(tx)) {
      if (this.sawNonDeposit) this.fail(OpExecutionErrorCode.DEPOSIT_ORDER, "deposit after a non-deposit transaction; deposits must come first", index);
      if (tx.isSystemTx && this.fork >= OpFork.regolith) this.fail(OpExecutionErrorCode.SYSTEM_TX, "system deposits are invalid from Regolith on", index);
      if (tx.gasLimit > this.gasLeft) {
        this.fail(OpExecutionErrorCode.BLOCK_GAS, `deposit gas limit ${tx.gasLimit} exceeds the ${this.gasLeft} gas left in the block`, index);
      }
      const fast = this.fastBlock();
      const depositNonce = fast !== undefined ? fast.state.account(tx.from.bytes).nonce : ((await this.state.getAccount(tx.from)) ?? new Account()).nonce;
      const exec = (fast !== undefined ? this.fastDeposit(fast, tx) : undefined) ?? (await this.referenceDeposit(tx));
      return this.recordDeposit(tx, exec, depositNonce);
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

  /** A deposit on the reference engine (@ethereumjs/vm), on the overlay. */
  private async referenceDeposit(tx: DepositTransaction): Promise<TxExecution> {
    const fork = this.fork;
    const vm = await this.referenceVm();
    const journal = vm.evm.journal;
    const caller = tx.from;
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
    this.fast?.state.invalidate();
    return { status, gasUsed, logs, createdAddress };
  }

  /**
   * A deposit on the fast engine (the same rules as {@link referenceDeposit}: mint and nonce
   * first and kept even when execution fails; Regolith gas accounting); undefined when the
   * reference engine must run it.
   */
  private fastDeposit(fast: FastBlock, tx: DepositTransaction): TxExecution | undefined {
    const fork = this.fork;
    const { ctx, state } = fast;
    const from = tx.from.bytes;
    const credit = (): void => {
      const c = state.account(from);
      state.setBalance(c, c.balance + tx.mint);
      state.setNonce(c, c.nonce + 1n);
    };
    const caller = state.account(from);
    const depositNonce = caller.nonce;
    credit();
    const isCreate = tx.to === undefined;
    const { intrinsic, floor } = txIntrinsicGas(tx.data, isCreate, fork);
    let failed = tx.gasLimit < intrinsic || tx.gasLimit < floor || (isCreate && fork >= OpFork.canyon && tx.data.length > MAX_INITCODE_SIZE);
    let status: 0 | 1 = 0;
    let gasUsed = tx.gasLimit;
    let logs: Log[] = [];
    let createdAddress: Uint8Array | undefined;
    if (!failed) {
      const to = tx.to?.bytes;
      warmTransaction(ctx, from, to, []);
      warmDelegate(ctx, to);
      const gas = Number(tx.gasLimit - intrinsic);
      ctx.interpreter.configure(ctx.rules, state, ctx.block, { origin: from, gasPrice: 0n, blobHashes: [] }, ctx.precompiles);
      if (tx.value > state.account(from).balance) failed = true;
      else {
        let r;
        try {
          r = ctx.interpreter.execute({ caller: from, to, value: tx.value, data: tx.data, gas, createAddress: isCreate ? createAddress(from, depositNonce) : undefined });
        } catch (e) {
          state.discardTransaction();
          if (e instanceof FastEvmUnsupported) return this.noteFallback();
          throw e;
        }
        if (r.halt > Halt.REVERT) failed = true;
        else {
          const spent = intrinsic + BigInt(gas - r.gasLeft);
          let used = spent;
          if (r.halt <= Halt.RETURN) {
            status = 1;
            const refund = BigInt(state.refund > 0 ? state.refund : 0);
            const cap = spent / MAX_REFUND_QUOTIENT;
            used = spent - (refund < cap ? refund : cap);
            logs = logsOf(state.logs);
            createdAddress = r.createdAddress;
          }
          gasUsed = used < floor ? floor : used;
        }
      }
    }
    if (failed) {
      // A halted deposit (Regolith): everything but the mint and the nonce is dropped.
      state.discardTransaction();
      credit();
      gasUsed = fork >= OpFork.regolith || !tx.isSystemTx ? tx.gasLimit : 0n;
      status = 0;
      logs = [];
      createdAddress = undefined;
    }
    state.endTransaction(ctx.rules.selfdestructOnlyCreated);
    state.flush(fast.sink);
    return { status, gasUsed, logs, createdAddress };
  }

  /** The fast engine could not run a transaction: the reference engine runs it on the overlay. */
  private noteFallback(): undefined {
    this.fallbacks++;
    return undefined;
  }

  private recordDeposit(tx: DepositTransaction, exec: TxExecution, depositNonce: bigint): AppliedTx {
    const fork = this.fork;
    this.gasUsed += exec.gasUsed;
    const receipt: StoredReceipt = { type: DEPOSIT_TX_TYPE, status: exec.status, cumulativeGasUsed: this.gasUsed, logs: exec.logs, bloom: bloomOf(exec.logs) };
    if (fork >= OpFork.regolith) receipt.depositNonce = depositNonce;
    if (fork >= OpFork.canyon) receipt.depositReceiptVersion = DEPOSIT_RECEIPT_VERSION;
    this.receipts.push(receipt);
    this.senders.push(tx.from.bytes);
    return { receipt, gasUsed: exec.gasUsed, createdAddress: exec.createdAddress, sender: tx.from.bytes };
  }

  private async processSelfdestructs(selfdestruct: Set<string> | Map<string, unknown> | undefined, created: Set<string> | undefined): Promise<void> {
    if (selfdestruct === undefined) return;
    for (const key of selfdestruct.keys()) {
      const address = new Address(hexToBytes(key as `0x${string}`));
      if (this.vm.common.isActivatedEIP(6780) && created?.has(address.toString()) !== true) continue;
      await (await this.referenceVm()).evm.journal.deleteAccount(address);
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
    const envelope = envelopeOf(tx);
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
      sender = senderOf(tx);
    } catch (e) {
      this.fail(OpExecutionErrorCode.INVALID_TX, `invalid signature: ${(e as Error).message}`, index);
    }
    const fees: UserTxFees = { l1Fee: l1Cost(info, envelope, fork), operatorUpfront: operatorFeeCharge(info, tx.gasLimit, fork), info };
    const fast = this.fastBlock();
    const exec = (fast !== undefined ? this.fastUserTx(fast, tx, sender, fees, index) : undefined) ?? (await this.referenceUserTx(tx, sender, fees, index));
    this.gasUsed += exec.gasUsed;
    this.daFootprint += da;
    const receipt: StoredReceipt = { type: tx.type, status: exec.status, cumulativeGasUsed: this.gasUsed, logs: exec.logs, bloom: bloomOf(exec.logs) };
    this.receipts.push(receipt);
    this.senders.push(sender.bytes);
    return { receipt, gasUsed: exec.gasUsed, createdAddress: exec.createdAddress, sender: sender.bytes };
  }

  /** A user transaction on the reference engine: L1 and operator fees up front, runTx, refund and vault credits on the overlay. */
  private async referenceUserTx(tx: TypedTransaction, sender: Address, fees: UserTxFees, index: number): Promise<TxExecution> {
    const fork = this.fork;
    const { l1Fee, operatorUpfront, info } = fees;
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
      result = await runTx(await this.referenceVm(), {
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
      this.fast?.state.invalidate();
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
    this.fast?.state.invalidate();
    const logs = toLogs(result.execResult.logs as never);
    return { status: result.execResult.exceptionError === undefined ? 1 : 0, gasUsed, logs, createdAddress: result.createdAddress?.bytes };
  }

  /**
   * A user transaction on the fast engine, with the same fee rules as {@link referenceUserTx};
   * undefined when the reference engine must run it.
   */
  private fastUserTx(fast: FastBlock, tx: TypedTransaction, sender: Address, fees: UserTxFees, index: number): TxExecution | undefined {
    const fork = this.fork;
    const { ctx, state } = fast;
    const { l1Fee, operatorUpfront, info } = fees;
    const upfront = l1Fee + operatorUpfront;
    const from = state.account(sender.bytes);
    if (upfront > 0n) {
      if (from.balance < upfront) {
        this.fail(OpExecutionErrorCode.INSUFFICIENT_FUNDS, `insufficient funds for L1 fee and operator fee: balance ${from.balance}, need ${upfront}`, index);
      }
      state.setBalance(from, from.balance - upfront);
    }
    let r;
    try {
      r = runTransaction(ctx, evmTransactionOf(tx, sender.bytes), { checkBlockGasLimit: false });
    } catch (e) {
      state.discardTransaction();
      if (e instanceof FastEvmUnsupported) return this.noteFallback();
      if (e instanceof TxInvalidError) this.fail(OpExecutionErrorCode.INVALID_TX, e.message, index);
      throw e;
    }
    const gasUsed = r.gasUsed;
    const baseFee = this.block.header.baseFeePerGas ?? 0n;
    const credit = (address: Uint8Array, amount: bigint): void => {
      if (amount === 0n) return; // a zero credit only touches the account: no state change (EIP-161)
      const e = state.account(address);
      state.setBalance(e, e.balance + amount);
    };
    if (fork >= OpFork.isthmus) credit(sender.bytes, operatorFeeRefund(info, tx.gasLimit, gasUsed, fork));
    credit(L1_FEE_VAULT_BYTES, l1Fee);
    credit(BASE_FEE_VAULT_BYTES, baseFee * gasUsed);
    if (fork >= OpFork.isthmus) credit(OPERATOR_FEE_VAULT_BYTES, operatorFeeCharge(info, gasUsed, fork));
    state.endTransaction(ctx.rules.selfdestructOnlyCreated);
    state.flush(fast.sink);
    return { status: r.status, gasUsed, logs: logsOf(r.logs), createdAddress: r.createdAddress };
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
    const endTimer = stateRootSeconds.startTimer();
    const stateRoot = await this.state.getStateRoot();
    endTimer();
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
