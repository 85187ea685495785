/**
 * eth_simulateV1's `traceTransfers` (geth internal/ethapi/logtracer.go): every value transfer —
 * the transaction's value, CALL and CREATE values, SELFDESTRUCT balances; not DELEGATECALL or
 * CALLCODE — appears among the call's logs as an ERC-20 `Transfer(from, to, value)` event from
 * the ERC-7528 native-asset address, in execution order; a reverted frame drops its transfers
 * with its logs. The synthetic logs go through the EVM state's log journal (so reverts drop them)
 * and are told apart from real logs here: they never enter receipts or the block's bloom.
 */
import { fromHex } from "../../util/bytes.js";
import type { EvmLog, EvmState } from "../evm/state.js";

/** ERC-7528: the address native-asset transfers are reported from. */
const NATIVE_TRANSFER_ADDRESS: Uint8Array = fromHex("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC: Uint8Array = fromHex("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");

function word(bytes: Uint8Array): Uint8Array {
  const w = new Uint8Array(32);
  w.set(bytes, 32 - bytes.length);
  return w;
}

function valueWord(v: bigint): Uint8Array {
  return fromHex("0x" + v.toString(16).padStart(64, "0"));
}

/** Records transfers of the transactions of one block as synthetic logs. */
export class TransferTracer {
  private readonly synthetic = new WeakSet<EvmLog>();

  constructor(readonly enabled: boolean) {}

  /** The interpreter's transfer hook over `state`, or undefined when transfers are not traced. */
  hook(state: EvmState): ((from: Uint8Array, to: Uint8Array, value: bigint) => void) | undefined {
    if (!this.enabled) return undefined;
    return (from, to, value) => {
      const log: EvmLog = { address: NATIVE_TRANSFER_ADDRESS, topics: [TRANSFER_TOPIC, word(from), word(to)], data: valueWord(value) };
      this.synthetic.add(log);
      state.addLog(log);
    };
  }

  /** True for a log this tracer made. */
  isSynthetic(log: EvmLog): boolean {
    return this.synthetic.has(log);
  }
}
