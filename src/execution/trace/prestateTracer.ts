/**
 * geth's `prestateTracer` (eth/tracers/native/prestate.go): the accounts and storage slots a
 * transaction touches, as they were before it; with `diffMode`, `{pre, post}` holding only what
 * changed (unchanged accounts and slots dropped, zero slots left out, self-destructed accounts
 * absent from `post`). Touched means: sender, recipient (or created contract) and fee recipient
 * at the start, then accounts named by BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH, SELFDESTRUCT, the CALL family, CREATE and CREATE2, and
 * slots read or written by SLOAD/SSTORE.
 */
import { bigIntToBytes, bytesToHex, generateAddress2, setLengthLeft } from "@ethereumjs/util";
import { createAddress } from "../../chain/json/receipt.js";
import { goBool } from "./config.js";
import { NO_HOOKS, type AccountView, type StateView, type Step, type Tracer, type TxEnd, type TxStart } from "./tracer.js";

/** prestateTracer options (geth `prestateTracerConfig`). */
interface PrestateOptions {
  diffMode: boolean;
  disableCode: boolean;
  disableStorage: boolean;
}

/** Parses a prestateTracer `tracerConfig`. */
export function parsePrestateConfig(c: Record<string, unknown>): PrestateOptions {
  return {
    diffMode: goBool(c, "prestateTracerConfig", "diffMode"),
    disableCode: goBool(c, "prestateTracerConfig", "disableCode"),
    disableStorage: goBool(c, "prestateTracerConfig", "disableStorage"),
  };
}

interface PreAccount {
  address: Uint8Array;
  account: AccountView | undefined;
  storage: Map<string, { slot: Uint8Array; value: Uint8Array }>;
}

const EMPTY_CODE_HASH = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
const ZERO_WORD = "0x" + "00".repeat(32);

/** A stack word as 32 bytes. */
function word(v: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(v), 32);
}

const addressOf = (v: bigint): Uint8Array => word(v).slice(12);

/** The prestate recorder of one transaction. */
export class PrestateTracer implements Tracer {
  readonly wantsSteps = true;
  private readonly pre = new Map<string, PreAccount>();
  private readonly created = new Set<string>();
  private state: StateView | undefined;
  private post: string | undefined;
  private stopped: Error | undefined;

  constructor(private readonly opts: PrestateOptions) {}

  onEnter = NO_HOOKS.onEnter;
  onExit = NO_HOOKS.onExit;
  onStepError = NO_HOOKS.onStepError;
  onLog = NO_HOOKS.onLog;

  private lookup(address: Uint8Array): PreAccount {
    const key = bytesToHex(address);
    let p = this.pre.get(key);
    if (p === undefined) {
      p = { address, account: this.state!.account(address), storage: new Map() };
      this.pre.set(key, p);
    }
    return p;
  }

  private lookupStorage(address: Uint8Array, slot: Uint8Array): void {
    if (this.opts.disableStorage) return;
    const p = this.lookup(address);
    const k = bytesToHex(slot);
    if (!p.storage.has(k)) p.storage.set(k, { slot, value: this.state!.storage(address, slot) });
  }

  /** A native precompile's storage access: listed as an SLOAD/SSTORE of that slot would be. */
  onPrecompileStorage(address: Uint8Array, slot: Uint8Array): void {
    if (this.stopped !== undefined) return;
    this.lookupStorage(address, slot);
  }

  onTxStart(t: TxStart): void {
    this.state = t.state;
    this.lookup(t.from);
    if (t.to !== undefined) this.lookup(t.to);
    else {
      const created = createAddress(t.from, t.nonce);
      this.lookup(created);
      this.created.add(bytesToHex(created));
    }
    this.lookup(t.coinbase);
  }

  onStep(s: Step): void {
    if (this.stopped !== undefined) return;
    const st = s.stack;
    const n = st.length;
    switch (s.op) {
      case 0x54: // SLOAD
      case 0x55: // SSTORE
        if (n >= 1) this.lookupStorage(s.address, word(st[n - 1]!));
        break;
      case 0x31: // BALANCE
      case 0x3b: // EXTCODESIZE
      case 0x3c: // EXTCODECOPY
      case 0x3f: // EXTCODEHASH
      case 0xff: // SELFDESTRUCT
        if (n >= 1) this.lookup(addressOf(st[n - 1]!));
        break;
      case 0xf1: // CALL
      case 0xf2: // CALLCODE
      case 0xf4: // DELEGATECALL
      case 0xfa: // STATICCALL
        if (n >= 2) this.lookup(addressOf(st[n - 2]!));
        break;
      case 0xf0: {
        // CREATE: the executing contract's nonce names the address
        const a = createAddress(s.address, s.state.account(s.address)?.nonce ?? 0n);
        this.lookup(a);
        this.created.add(bytesToHex(a));
        break;
      }
      case 0xf5: {
        // CREATE2: value, offset, size, salt (top first)
        if (n < 4) break;
        const offset = Number(st[n - 2]!);
        const size = Number(st[n - 3]!);
        const init = new Uint8Array(size);
        if (offset < s.memory.length) init.set(s.memory.subarray(offset, Math.min(offset + size, s.memory.length)));
        const a = generateAddress2(s.address, word(st[n - 4]!), init);
        this.lookup(a);
        this.created.add(bytesToHex(a));
        break;
      }
    }
  }

  onTxEnd(e: TxEnd): void {
    if (this.stopped !== undefined) return;
    if (this.opts.diffMode) this.post = this.diff(e.state);
    // Contracts created by the transaction had no prestate.
    for (const a of this.created) {
      const p = this.pre.get(a);
      if (p !== undefined && isEmpty(p.account)) this.pre.delete(a);
    }
  }

  /** geth `processDiffState`: keeps in `pre` only what changed, returns `post`'s JSON. */
  private diff(state: StateView): string {
    const post: Record<string, unknown> = {};
    for (const [key, p] of this.pre) {
      const now = state.account(p.address);
      if (now === undefined && p.account !== undefined) continue; // deleted: kept in pre, absent from post
      const before = p.account;
      const out: Record<string, unknown> = {};
      let modified = false;
      if ((now?.balance ?? 0n) !== (before?.balance ?? 0n)) {
        modified = true;
        out.balance = "0x" + (now?.balance ?? 0n).toString(16);
      }
      if ((now?.nonce ?? 0n) !== (before?.nonce ?? 0n)) {
        modified = true;
        out.nonce = Number(now?.nonce ?? 0n);
      }
      const codeNow = bytesToHex(now?.code ?? new Uint8Array());
      if (codeNow !== bytesToHex(before?.code ?? new Uint8Array())) {
        modified = true;
        if (!this.opts.disableCode && codeNow !== "0x") out.code = codeNow;
        const h = now === undefined ? undefined : bytesToHex(now.codeHash);
        if (h !== undefined && h !== EMPTY_CODE_HASH) out.codeHash = h;
      }
      const storage: Record<string, string> = {};
      for (const [k, s] of [...p.storage]) {
        const was = bytesToHex(s.value);
        const is = bytesToHex(state.storage(p.address, s.slot));
        if (was === ZERO_WORD || was === is) p.storage.delete(k);
        if (was !== is) {
          modified = true;
          if (is !== ZERO_WORD) storage[k] = is;
        }
      }
      if (Object.keys(storage).length > 0) out.storage = storage;
      if (modified) post[key] = out;
      else this.pre.delete(key);
    }
    return JSON.stringify(post);
  }

  stop(reason: Error): void {
    this.stopped ??= reason;
  }

  private accountJson(p: PreAccount): Record<string, unknown> {
    const a = p.account;
    const o: Record<string, unknown> = { balance: "0x" + (a?.balance ?? 0n).toString(16) };
    if (a !== undefined && a.code.length > 0 && !this.opts.disableCode) o.code = bytesToHex(a.code);
    if (a !== undefined && a.codeHash.length === 32 && bytesToHex(a.codeHash) !== EMPTY_CODE_HASH) o.codeHash = bytesToHex(a.codeHash);
    if (a !== undefined && a.nonce > 0n) o.nonce = Number(a.nonce);
    if (p.storage.size > 0) o.storage = Object.fromEntries([...p.storage].map(([k, s]) => [k, bytesToHex(s.value)]));
    return o;
  }

  result(): string {
    if (this.stopped !== undefined) throw this.stopped;
    const pre = JSON.stringify(Object.fromEntries([...this.pre].map(([k, p]) => [k, this.accountJson(p)])));
    return this.opts.diffMode ? `{"post":${this.post ?? "{}"},"pre":${pre}}` : pre;
  }
}

function isEmpty(a: AccountView | undefined): boolean {
  return a === undefined || (a.nonce === 0n && a.balance === 0n && a.code.length === 0);
}
