/**
 * Runs one transaction on an in-memory pre-state with either EVM engine, the way basalt runs
 * them (the flat-state overlay, basalt's Commons and crypto), and reports everything a
 * differential test compares: status, receipt gas, return data, logs and the post-state root.
 */
import { createBlock, createBlockHeader, type BlockHeader } from "@ethereumjs/block";
import { Common, Mainnet } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, KECCAK256_RLP, bytesToHex, createAddressFromString } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { customCrypto } from "../../src/chain/crypto.js";
import { blockEnvOf, FastEvm } from "../../src/execution/evm/engine.js";
import { FastEvmUnsupported, TxInvalidError } from "../../src/execution/evm/errors.js";
import { evmTransactionOf } from "../../src/execution/evm/fromEthereumjs.js";
import { overlaySink } from "../../src/execution/evm/overlaySink.js";
import { EvmState } from "../../src/execution/evm/state.js";
import { runTransaction } from "../../src/execution/evm/transaction.js";
import { withBasePrecompiles } from "../../src/execution/evm/precompiles/index.js";
import type { BasePrecompiles } from "../../src/execution/base/registry.js";
import { baseWarmPrecompiles, installBasePrecompiles } from "../../src/execution/op/basePrecompiles.js";
import { installEvmCaches } from "../../src/execution/evmSpeedups.js";
import { OverlayStateManager } from "../../src/execution/state/overlayStateManager.js";
import { EmptyStateReader, type StateReader } from "../../src/execution/state/stateReader.js";
import { emptyStateTries } from "../../src/storage/trie/stateTries.js";
import { accountFromSlim } from "../../src/execution/state/stateReader.js";
import { keccak256 } from "../../src/util/keccak.js";

/** An account of a pre-state. */
export interface PreAccount {
  nonce?: bigint;
  balance?: bigint;
  code?: Uint8Array;
  /** 32-byte keys → values (leading zeros allowed, zero values ignored). */
  storage?: [Uint8Array, Uint8Array][];
}

/** The block a test transaction runs in. */
export interface TestEnv {
  hardfork: "cancun" | "prague" | "osaka";
  coinbase: string;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  excessBlobGas?: bigint;
}

/** What running a transaction gave. */
export interface RunOutcome {
  /** Set when the engine refused the transaction as invalid. */
  rejected?: string;
  status: 0 | 1;
  gasUsed: bigint;
  output: string;
  logs: string;
  stateRoot: string;
}

const commons = new Map<string, Common>();

/** A mainnet-rules Common at `hardfork` with basalt's crypto (copied per use, as basalt does). */
export function testCommon(hardfork: string): Common {
  let c = commons.get(hardfork);
  if (c === undefined) {
    c = new Common({ chain: Mainnet, hardfork, customCrypto: customCrypto() });
    commons.set(hardfork, c);
  }
  return c.copy();
}

/** BLOCKHASH of the test chain: keccak256 of the number's decimal string (geth's state-test rule). */
export function testBlockHash(n: bigint): Uint8Array {
  return keccak256(new TextEncoder().encode(n.toString()));
}

/** The header of `env`. */
export function testHeader(env: TestEnv, common: Common): BlockHeader {
  return createBlockHeader(
    {
      coinbase: env.coinbase as `0x${string}`,
      gasLimit: env.gasLimit,
      number: env.number,
      timestamp: env.timestamp,
      difficulty: 0n,
      mixHash: new Uint8Array(32).fill(7),
      baseFeePerGas: env.baseFee,
      excessBlobGas: env.excessBlobGas ?? 0n,
      blobGasUsed: 0n,
      parentBeaconBlockRoot: new Uint8Array(32),
      withdrawalsRoot: KECCAK256_RLP,
      requestsHash: common.isActivatedEIP(7685) ? new Uint8Array(32) : undefined,
    },
    { common, skipConsensusFormatValidation: true },
  );
}

/**
 * An overlay whose base is `pre`: accounts written, the root computed, then read back through
 * an in-memory reader over the same trie nodes (so storage roots and collision checks are real).
 */
export async function preStateOverlay(pre: ReadonlyMap<string, PreAccount>): Promise<OverlayStateManager> {
  const tries = emptyStateTries();
  const build = new OverlayStateManager(new EmptyStateReader(KECCAK256_RLP), tries);
  for (const [addr, a] of pre) {
    const address = createAddressFromString(addr);
    await build.putAccount(address, new Account(a.nonce ?? 0n, a.balance ?? 0n));
    if (a.code !== undefined && a.code.length > 0) await build.putCode(address, a.code);
    for (const [k, v] of a.storage ?? []) if (v.some((b) => b !== 0)) await build.putStorage(address, k, v);
  }
  const root = await build.getStateRoot();
  const changes = build.changes();
  const accounts = new Map<string, Account>();
  for (const a of changes.accounts) if (a.after !== undefined) accounts.set(bytesToHex(a.address!), accountFromSlim(a.after)!);
  const storage = new Map<string, Uint8Array>();
  const byHash = new Map<string, { hashedSlot: Uint8Array; value: Uint8Array }[]>();
  for (const s of changes.storage) {
    storage.set(bytesToHex(s.address!) + bytesToHex(s.slot!), s.after);
    const k = bytesToHex(s.hashedAddress);
    byHash.set(k, [...(byHash.get(k) ?? []), { hashedSlot: s.hashedSlot, value: s.after }]);
  }
  const codes = build.writtenCode();
  const reader: StateReader = {
    stateRoot: root,
    account: (a) => accounts.get(bytesToHex(a)),
    storage: (a, s) => storage.get(bytesToHex(a) + bytesToHex(s)) ?? new Uint8Array(0),
    code: (h) => codes.get(Buffer.from(h).toString("hex")),
  };
  return new OverlayStateManager(reader, tries, (hashedAddress) => byHash.get(bytesToHex(hashedAddress)) ?? []);
}

function logsHash(logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[]): string {
  const enc = logs.map((l) => [bytesToHex(l.address), l.topics.map(bytesToHex), bytesToHex(l.data)]);
  return JSON.stringify(enc);
}

/** Options of a run: Base's native precompiles to add to the fork's set. */
export interface RunOptions {
  base?: BasePrecompiles;
}

/** Runs `tx` on the reference engine (@ethereumjs/vm runTx). */
export async function runReference(pre: ReadonlyMap<string, PreAccount>, env: TestEnv, tx: TypedTransaction, opts: RunOptions = {}): Promise<RunOutcome> {
  const common = testCommon(env.hardfork);
  const state = await preStateOverlay(pre);
  await installEvmCaches();
  const blockchain = { getBlock: async (n: number) => ({ hash: () => testBlockHash(BigInt(n)) }), shallowCopy: () => blockchain };
  const vm = await createVM({ common, stateManager: state as never, blockchain: blockchain as never, evmOpts: { customPrecompiles: baseWarmPrecompiles(opts.base) } });
  if (opts.base !== undefined) installBasePrecompiles(vm.evm as never, opts.base);
  const header = testHeader(env, common);
  try {
    const r = await runTx(vm, { tx, block: createBlock({ header }, { common, skipConsensusFormatValidation: true }) });
    const logs = (r.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
    return {
      status: r.execResult.exceptionError === undefined ? 1 : 0,
      gasUsed: r.totalGasSpent,
      output: bytesToHex(r.execResult.exceptionError === undefined || r.execResult.exceptionError.error === "revert" ? r.execResult.returnValue : new Uint8Array(0)),
      logs: logsHash(r.execResult.exceptionError === undefined ? logs : []),
      stateRoot: bytesToHex(await state.getStateRoot()),
    };
  } catch (e) {
    return { rejected: (e as Error).message, status: 0, gasUsed: 0n, output: "0x", logs: "[]", stateRoot: bytesToHex(await state.getStateRoot()) };
  }
}

/** Runs `tx` on the fast engine; "unsupported" when it hands the transaction to the reference engine. */
export async function runFast(pre: ReadonlyMap<string, PreAccount>, env: TestEnv, tx: TypedTransaction, opts: RunOptions = {}): Promise<RunOutcome | "unsupported"> {
  const common = testCommon(env.hardfork);
  const state = await preStateOverlay(pre);
  const header = testHeader(env, common);
  const est = new EvmState(state);
  try {
    const evm = FastEvm.of(common);
    const ctx = { ...evm.context(est, blockEnvOf(header, testBlockHash)), precompiles: withBasePrecompiles(evm.precompiles, opts.base) };
    const r = runTransaction(ctx, evmTransactionOf(tx));
    est.flush(overlaySink(state));
    return {
      status: r.status,
      gasUsed: r.gasUsed,
      output: bytesToHex(r.output),
      logs: logsHash(r.logs),
      stateRoot: bytesToHex(await state.getStateRoot()),
    };
  } catch (e) {
    if (e instanceof FastEvmUnsupported) return "unsupported";
    if (e instanceof TxInvalidError) return { rejected: e.message, status: 0, gasUsed: 0n, output: "0x", logs: "[]", stateRoot: bytesToHex(await state.getStateRoot()) };
    throw e;
  }
}
