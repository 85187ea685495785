/**
 * Re-executes a block on its parent's state with tracers attached to chosen transactions
 * (geth's traceBlock / traceTx semantics): the block's pre-transaction system calls first
 * (EIP-4788 beacon root, EIP-2935 history storage; on OP chains also Canyon's create2 deployer),
 * then every transaction in order, each one traced or not, on the reference engine (the fast
 * engine has no step hooks). On OP chains transactions run through the OP block executor, so
 * deposits and the L1-attributes transaction are traced as op-reth runs them (mint first, no
 * fees, no refund) and user transactions pay the L1 and operator fees.
 */
import type { Block, BlockHeader } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { runTx } from "@ethereumjs/vm";
import { bytesToHex } from "@ethereumjs/util";
import { isDeposit, type DepositTransaction } from "../../chain/op/depositTx.js";
import { senderOf } from "../../chain/sender.js";
import { envelopeOf } from "../../chain/envelope.js";
import { keccak256 } from "../../util/keccak.js";
import { BasaltError } from "../../util/errors.js";
import { ChainErrorCode } from "../../chain/errors.js";
import type { CallChain } from "../callExecutor.js";
import { OpBlockExecutor, type OpTransaction } from "../op/opBlockExecutor.js";
import type { OverlayStateManager } from "../state/overlayStateManager.js";
import { applyBeaconRootCall, applyHistoryStorageCall } from "../systemCalls.js";
import type { TraceConfig } from "./config.js";
import { TraceError, TraceErrorCode } from "./errors.js";
import { attachTracer, stateViewOf } from "./hooks.js";
import { createTracer } from "./tracers.js";
import type { Tracer } from "./tracer.js";

/** One transaction's trace in a block (geth `txTraceResult`): the result's JSON text or the error's message. */
export interface TxTrace {
  txHash: string;
  result?: string;
  error?: string;
  /** The typed error behind `error` (not sent: debug_traceTransaction rethrows it). */
  failure?: Error;
}

/** geth's error when a trace runs past its timeout. */
export function timeoutError(timeoutMs: number): TraceError {
  return new TraceError({ code: TraceErrorCode.TIMEOUT, timeoutMs }, "execution timeout");
}

/** How one transaction is run, whatever the chain: returns the receipt's gas. */
type TxRunner = (tx: OpTransaction) => Promise<bigint>;

/** The runner of `block`'s transactions over `vm`'s state, its system calls already applied. */
async function blockRunner(chain: CallChain, block: Block, parent: BlockHeader, state: OverlayStateManager): Promise<{ run: TxRunner; evm: import("@ethereumjs/evm").EVM }> {
  const vm = await chain.makeVM(block.common, state, block.header.parentHash, block.header.timestamp);
  if (chain.op !== undefined) {
    const ex = new OpBlockExecutor(vm, block, chain.op, parent.timestamp, { engine: "reference" });
    await ex.begin();
    return { evm: vm.evm as never, run: async (tx) => (await ex.apply(tx)).gasUsed };
  }
  const h = block.header;
  if (block.common.isActivatedEIP(4788) && h.parentBeaconBlockRoot !== undefined) await applyBeaconRootCall(state, h.timestamp, h.parentBeaconBlockRoot);
  if (block.common.isActivatedEIP(2935)) await applyHistoryStorageCall(state, h.number, h.parentHash);
  let gasUsed = 0n;
  return {
    evm: vm.evm as never,
    run: async (tx) => {
      const r = await runTx(vm, { tx: tx as TypedTransaction, block, skipHardForkValidation: true, skipBlockGasLimitValidation: true, blockGasUsed: gasUsed });
      gasUsed += r.totalGasSpent;
      return r.totalGasSpent;
    },
  };
}

/** A test for the precompiles of `evm`'s fork (OP precompiles included). */
export function precompileTest(evm: import("@ethereumjs/evm").EVM): (address: Uint8Array) => boolean {
  const keys = new Set<string>();
  for (const k of (evm as unknown as { precompiles: Map<string, unknown> }).precompiles.keys()) keys.add(k.toLowerCase().replace(/^0x/, ""));
  return (address) => keys.has(Buffer.from(address).toString("hex"));
}

/**
 * The state inside `block` before its transaction `index` (geth `StateAtTransaction`): the
 * parent's state with the block's system calls and its first `index` transactions applied.
 * @throws TraceError `TX_NOT_FOUND` when the block has fewer transactions
 */
/**
 * The state after `parent` to replay on.
 * @throws TraceError `STATE_UNAVAILABLE` with geth's answer for a pruned state (its default path
 *   scheme: "historical state not available in path scheme yet") where the chain says the state is gone
 */
function parentState(chain: CallChain, parent: BlockHeader): OverlayStateManager {
  try {
    return chain.stateManagerAt(parent).state;
  } catch (e) {
    if (e instanceof BasaltError && e.code === ChainErrorCode.STATE_UNAVAILABLE) {
      throw new TraceError({ code: TraceErrorCode.STATE_UNAVAILABLE, block: parent.number.toString() }, "historical state not available in path scheme yet");
    }
    throw e;
  }
}

export async function stateBeforeTx(chain: CallChain, block: Block, parent: BlockHeader, index: number): Promise<OverlayStateManager> {
  const txs = block.transactions as unknown as OpTransaction[];
  if (!Number.isSafeInteger(index) || index < 0 || index > txs.length) {
    throw new TraceError({ code: TraceErrorCode.TX_NOT_FOUND, hash: bytesToHex(block.hash()) }, `transaction index ${index} out of range`);
  }
  const state = parentState(chain, parent);
  const { run } = await blockRunner(chain, block, parent, state);
  for (let i = 0; i < index; i++) await run(txs[i]!);
  return state;
}

/** The hash of a block's transaction (its EIP-2718 envelope's keccak). */
function txHashOf(tx: OpTransaction): string {
  return bytesToHex(keccak256(envelopeOf(tx)));
}

/**
 * Replays `block` on the state after `parent` and traces the transactions at `indexes` (every
 * transaction when undefined) with tracers built from `cfg`; stops after the last one traced.
 * A tracer failure (timeout, size cap) is that transaction's `error`; the replay goes on.
 * @param make builds each transaction's tracer (default: the tracer `cfg` names)
 * @throws TraceError `STATE_UNAVAILABLE` when the parent's state is pruned
 */
export async function traceBlock(
  chain: CallChain,
  block: Block,
  parent: BlockHeader,
  cfg: TraceConfig,
  indexes?: ReadonlySet<number>,
  make: () => Tracer = () => createTracer(cfg),
): Promise<TxTrace[]> {
  const state = parentState(chain, parent);
  const { run, evm } = await blockRunner(chain, block, parent, state);
  const view = stateViewOf(state);
  const isPrecompile = precompileTest(evm);
  const txs = block.transactions as unknown as OpTransaction[];
  const last = indexes === undefined ? txs.length - 1 : Math.max(-1, ...indexes);
  const out: TxTrace[] = [];
  for (let i = 0; i <= last; i++) {
    const tx = txs[i]!;
    if (indexes !== undefined && !indexes.has(i)) {
      await run(tx);
      continue;
    }
    const tracer = make();
    const from = isDeposit(tx) ? (tx as DepositTransaction).from.bytes : senderOf(tx as TypedTransaction).bytes;
    const to = tx.to?.bytes;
    const txHash = txHashOf(tx);
    tracer.onTxStart({
      from,
      to,
      value: tx.value,
      gasLimit: tx.gasLimit,
      input: tx.data,
      coinbase: block.header.coinbase.bytes,
      nonce: view.account(from)?.nonce ?? 0n,
      state: view,
      isPrecompile,
      blockHash: bytesToHex(block.hash()),
      blockNumber: block.header.number,
      txHash,
      txIndex: i,
    });
    const { detach, top } = attachTracer(evm, tracer, view, from, performance.now() + cfg.timeoutMs, () => timeoutError(cfg.timeoutMs));
    let gasUsed: bigint;
    try {
      gasUsed = await run(tx);
    } finally {
      detach();
    }
    tracer.onTxEnd({ gasUsed, output: top.output, error: top.error, reverted: top.reverted, state: view });
    try {
      out.push({ txHash, result: tracer.result() });
    } catch (e) {
      out.push({ txHash, error: (e as Error).message, failure: e as Error });
    }
  }
  return out;
}
