/**
 * The fast engine (src/execution/evm) run the way basalt runs it: on the same committed
 * pre-state overlay, Common and block as the reference adapter builds (referenceEngine.ts), the
 * transaction decoded from `txbytes` by @ethereumjs/tx (as blocks are), executed by
 * `runTransaction` with every validation on, its changes flushed into the overlay, which
 * computes the root. What the fast engine does not support (forks before London, transactions
 * with more than 2^53 gas) it hands to the reference engine, as the node does; such cases are
 * reported as fallbacks, and must pass there too.
 */
import { RLP } from "@ethereumjs/rlp";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { blockEnvOf, FastEvm } from "../../../src/execution/evm/engine.js";
import { FastEvmUnsupported, TxInvalidError } from "../../../src/execution/evm/errors.js";
import { evmTransactionOf } from "../../../src/execution/evm/fromEthereumjs.js";
import { overlaySink } from "../../../src/execution/evm/overlaySink.js";
import { EvmState } from "../../../src/execution/evm/state.js";
import { runTransaction } from "../../../src/execution/evm/transaction.js";
import { keccak256 } from "../../../src/util/keccak.js";
import type { StateTestEngine, StateTestOutcome } from "./engine.js";
import { blockFor, commonFor, preState, referenceEngine, stateTestBlockHash } from "./referenceEngine.js";

/** keccak256(rlp([])): the logs hash of a transaction without logs. */
const EMPTY_LOGS_HASH = keccak256(RLP.encode([]));

export const fastEngine: StateTestEngine = {
  name: "fast",
  async run(c): Promise<StateTestOutcome> {
    const common = commonFor(c.fork, c.config).copy();
    const { state, preRoot } = await preState(c);
    const rejected = (reason: string): StateTestOutcome => ({ stateRoot: preRoot, logsHash: EMPTY_LOGS_HASH, rejected: reason });
    let tx: TypedTransaction;
    try {
      tx = createTxFromRLP(c.txbytes, { common });
    } catch (e) {
      return rejected(`decode: ${(e as Error).message}`);
    }
    const errors = tx.getValidationErrors();
    if (errors.length > 0) return rejected(`invalid: ${errors.join("; ")}`);
    const fallback = async (why: string): Promise<StateTestOutcome> => ({ ...(await referenceEngine.run(c)), fellBackTo: `${referenceEngine.name} (${why})` });
    let evm: FastEvm;
    try {
      evm = FastEvm.of(common);
    } catch (e) {
      if (e instanceof FastEvmUnsupported) return fallback(e.type.detail);
      throw e;
    }
    const est = new EvmState(state);
    const env = blockEnvOf(blockFor(c, common).header, stateTestBlockHash);
    try {
      const r = runTransaction(evm.context(est, env), evmTransactionOf(tx));
      est.flush(overlaySink(state));
      const logsHash = r.logs.length === 0 ? EMPTY_LOGS_HASH : keccak256(RLP.encode(r.logs.map((l) => [l.address, l.topics, l.data]) as never));
      return { stateRoot: await state.getStateRoot(), logsHash };
    } catch (e) {
      if (e instanceof TxInvalidError) return { stateRoot: await state.getStateRoot(), logsHash: EMPTY_LOGS_HASH, rejected: e.message };
      if (e instanceof FastEvmUnsupported) return fallback(e.type.detail);
      throw e;
    }
  },
};
