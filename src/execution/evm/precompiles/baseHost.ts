/**
 * The fast engine's {@link BaseStateHost}: Base native precompiles read and write the same
 * {@link EvmState} as the opcodes, with its EIP-2929 warm sets, EIP-2200 original values, transient
 * storage, logs and journal — so a precompile's writes revert with the frame that called it, and
 * cold/warm costs carry across opcodes and precompile calls within the transaction.
 */
import { KECCAK256_NULL } from "@ethereumjs/util";
import { keccak256 } from "../../../util/keccak.js";
import type { AccountRead, BaseLog, BaseStateHost, SlotRead, SlotWrite } from "../../base/host.js";
import { u256Bytes } from "../../base/slots.js";
import type { EvmState } from "../state.js";
import { fromBig, toBig, wordKey } from "../u256.js";

/** A word (8 limbs) as a bigint. */
function wordToBig(w: Uint32Array): bigint {
  return toBig(w, 0);
}

/** A bigint as a fresh word. */
function bigToWord(v: bigint): Uint32Array {
  const w = new Uint32Array(8);
  fromBig(w, 0, v);
  return w;
}

/** Checkpoints inside a precompile call: the journal and log lengths to return to. */
interface Mark {
  journal: number;
  logs: number;
}

/** {@link BaseStateHost} over the fast engine's state. */
export class FastBaseHost implements BaseStateHost {
  private readonly marks: Mark[] = [];

  constructor(private readonly st: EvmState) {}

  sload(address: Uint8Array, slot: bigint): SlotRead {
    const e = this.st.account(address);
    const sl = this.st.slotByBytes(e, u256Bytes(slot));
    const cold = this.st.warmSlot(e, sl);
    return { value: wordToBig(sl.current), cold };
  }

  sstore(address: Uint8Array, slot: bigint, value: bigint): SlotWrite {
    const e = this.st.account(address);
    const sl = this.st.slotByBytes(e, u256Bytes(slot));
    const cold = this.st.warmSlot(e, sl);
    const w: SlotWrite = { original: wordToBig(sl.committed), present: wordToBig(sl.current), cold };
    this.st.setSlot(e, sl, bigToWord(value));
    return w;
  }

  tload(address: Uint8Array, slot: bigint): bigint {
    const k = wordKey(bigToWord(slot), 0);
    return wordToBig(this.st.tload(this.st.account(address), k));
  }

  tstore(address: Uint8Array, slot: bigint, value: bigint): void {
    const k = wordKey(bigToWord(slot), 0);
    this.st.tstore(this.st.account(address), k, bigToWord(value));
  }

  account(address: Uint8Array): AccountRead {
    const e = this.st.account(address);
    const cold = this.st.warmAccount(e);
    return { nonce: e.nonce, balance: e.balance, codeHash: e.exists ? e.codeHash : KECCAK256_NULL, empty: !e.exists || e.isEmpty(), cold };
  }

  setCode(address: Uint8Array, code: Uint8Array): void {
    this.st.setCode(this.st.account(address), keccak256(code), code);
  }

  log(log: BaseLog): void {
    this.st.addLog({ address: log.address, topics: log.topics, data: log.data });
  }

  checkpoint(): number {
    this.marks.push({ journal: this.st.journalLength, logs: this.st.logs.length });
    return this.marks.length - 1;
  }

  commit(checkpoint: number): void {
    this.marks.length = checkpoint;
  }

  revert(checkpoint: number): void {
    const m = this.marks[checkpoint]!;
    this.marks.length = checkpoint;
    this.st.revertTo(m.journal, m.logs, this.st.refund);
  }
}
