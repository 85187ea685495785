/**
 * The reference engine: @ethereumjs/vm 10.1.3 run the way basalt runs it.
 *
 * - State: basalt's {@link OverlayStateManager}. The pre-state is written into one over an
 *   {@link EmptyStateReader} and in-memory tries (`emptyStateTries`), as `Chain.buildGenesis`
 *   writes a genesis alloc; the transaction then runs in a second overlay over that committed
 *   state, as a block runs over the flat state (see {@link preState}). Roots come from the
 *   overlay's own incremental trie.
 * - Rules: a Common built by basalt's `commonFromGenesis` from a geth-style config that
 *   activates Ethereum mainnet's forks up to the case's fork at genesis, with the fixture's
 *   chain id and blob schedule and basalt's crypto (KZG, native keccak and secp256k1), primed
 *   like `Chain.commonAt`; basalt's EVM caches installed.
 * - Block: the header from `env` (no block reward, no system calls: state tests apply the
 *   transaction only). BLOCKHASH(n) is keccak256 of n as a decimal string, as geth's state-test
 *   runner defines it (`vmTestBlockHash`); @ethereumjs's own runner answers zero. No case of
 *   the v5.4.0 fixtures reads a hash inside the 256-block window, so none depends on the choice.
 * - Transaction: decoded from `txbytes` (a decoding error or an invalid transaction is a
 *   rejection) and run by `runTx` with every validation on (anything it throws is a rejection).
 * - One Common copy and one VM per case, as basalt takes per block.
 */
import { createBlock, type Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, KECCAK256_RLP, hexToBytes } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { primeCommon } from "../../../src/chain/commonSpeedups.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";
import { installEvmCaches } from "../../../src/execution/evmSpeedups.js";
import { OverlayStateManager } from "../../../src/execution/state/overlayStateManager.js";
import { EmptyStateReader, type StateReader } from "../../../src/execution/state/stateReader.js";
import { emptyStateTries } from "../../../src/storage/trie/stateTries.js";
import { accountFromSlim } from "../../../src/execution/state/stateReader.js";
import type { AccountChange, StorageChange } from "../../../src/storage/store.js";
import { keccak256 } from "../../../src/util/keccak.js";
import type { StateTestEngine, StateTestOutcome } from "./engine.js";
import { FORKS, toHex, type Fork, type StateTestCase, type StateTestConfig } from "./fixtures.js";

/** geth genesis config keys that activate each fork (at block 0 or time 0), in fork order. */
export const FORK_KEYS: Record<Fork, string[]> = {
  Berlin: [
    "homesteadBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
    "berlinBlock",
  ],
  London: ["londonBlock"],
  Paris: ["arrowGlacierBlock", "grayGlacierBlock", "mergeNetsplitBlock"],
  Shanghai: ["shanghaiTime"],
  Cancun: ["cancunTime"],
  Prague: ["pragueTime"],
  Osaka: ["osakaTime"],
};

/** @ethereumjs hardfork names of the fixture forks. */
const HARDFORK: Record<Fork, string> = {
  Berlin: "berlin",
  London: "london",
  Paris: "paris",
  Shanghai: "shanghai",
  Cancun: "cancun",
  Prague: "prague",
  Osaka: "osaka",
};

const EMPTY = new Uint8Array(0);

/** EIP-4844 gas per blob. */
const GAS_PER_BLOB = 131_072n;

/** keccak256(rlp([])): the logs hash of a transaction without logs. */
const EMPTY_LOGS_HASH = keccak256(RLP.encode([]));

/** The geth-style genesis config of a chain with mainnet's forks up to `fork` active from genesis. */
export function genesisConfigFor(fork: Fork, config: StateTestConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { chainId: Number(config.chainId) };
  for (const f of FORKS) {
    for (const key of FORK_KEYS[f]) out[key] = 0;
    if (f === "Paris") {
      out.terminalTotalDifficulty = 0;
      out.terminalTotalDifficultyPassed = true;
    }
    if (f === fork) break;
  }
  const schedule: Record<string, unknown> = {};
  for (const [name, e] of Object.entries(config.blobSchedule)) schedule[name.toLowerCase()] = e;
  if (Object.keys(schedule).length > 0) out.blobSchedule = schedule;
  return out;
}

const commons = new Map<string, Common>();

/**
 * The Common of a fork and chain config (built once per distinct config; take a copy per case,
 * see {@link run}). Checks that the fork and blob schedule took effect.
 */
export function commonFor(fork: Fork, config: StateTestConfig): Common {
  const key = `${fork}/${config.chainId}/${JSON.stringify(config.blobSchedule)}`;
  const hit = commons.get(key);
  if (hit !== undefined) return hit;
  const g: GenesisJson = {
    config: genesisConfigFor(fork, config) as GenesisJson["config"],
    nonce: "0x0",
    timestamp: "0x0",
    gasLimit: "0x0",
    difficulty: "0x0",
    alloc: {},
  };
  const common = primeCommon(commonFromGenesis(g, "eest"));
  common.setHardfork(HARDFORK[fork]);
  const hardfork = common.hardfork();
  if (hardfork !== HARDFORK[fork]) throw new Error(`Common for ${fork} is at ${hardfork}`);
  if (common.chainId() !== config.chainId) throw new Error(`Common chain id ${common.chainId()}, fixture ${config.chainId}`);
  const blob = config.blobSchedule[fork];
  if (blob !== undefined) {
    const s = common.getBlobGasSchedule();
    const want = { target: BigInt(blob.target) * GAS_PER_BLOB, max: BigInt(blob.max) * GAS_PER_BLOB, fraction: BigInt(blob.baseFeeUpdateFraction) };
    if (s.targetBlobGasPerBlock !== want.target || s.maxBlobGasPerBlock !== want.max || s.blobGasPriceUpdateFraction !== want.fraction) {
      throw new Error(`Common for ${fork} has blob schedule ${JSON.stringify(s, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}, fixture ${JSON.stringify(blob)}`);
    }
  }
  commons.set(key, common);
  return common;
}

/** BLOCKHASH of the state-test environment: keccak256 of the block number in decimal. */
export function stateTestBlockHash(n: bigint): Uint8Array {
  return keccak256(new TextEncoder().encode(n.toString(10)));
}

/** The EVM's block source: hashes by {@link stateTestBlockHash}. */
const blockchain = {
  async getBlock(n: number | bigint): Promise<{ hash(): Uint8Array }> {
    const h = stateTestBlockHash(BigInt(n));
    return { hash: () => h };
  },
  async putBlock(): Promise<void> {},
  shallowCopy(): unknown {
    return blockchain;
  },
};

/** The block a case's transaction runs in, built from `env` under the case's fork. */
export function blockFor(c: StateTestCase, common: Common): Block {
  const e = c.env;
  const header: Record<string, unknown> = {
    coinbase: e.coinbase,
    number: e.number,
    timestamp: e.timestamp,
    gasLimit: e.gasLimit,
    difficulty: e.difficulty,
  };
  if (e.prevRandao !== undefined) header.mixHash = e.prevRandao;
  if (common.isActivatedEIP(1559)) {
    if (e.baseFee === undefined) throw new Error("env.currentBaseFee missing for a London+ fork");
    header.baseFeePerGas = e.baseFee;
  }
  if (common.isActivatedEIP(4844)) {
    if (e.excessBlobGas === undefined) throw new Error("env.currentExcessBlobGas missing for a Cancun+ fork");
    header.excessBlobGas = e.excessBlobGas;
    header.blobGasUsed = 0n;
  }
  if (common.isActivatedEIP(4895)) header.withdrawalsRoot = KECCAK256_RLP;
  if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = new Uint8Array(32);
  return createBlock({ header, withdrawals: common.isActivatedEIP(4895) ? [] : undefined }, { common, skipConsensusFormatValidation: true });
}

/**
 * The committed pre-state as a {@link StateReader}: what basalt's flat-state readers give the
 * overlay of a block (accounts with their real storage roots, storage, code by hash).
 */
class CommittedState implements StateReader {
  private readonly accounts = new Map<string, Account>();
  private readonly slots = new Map<string, Uint8Array>();
  constructor(
    readonly stateRoot: Uint8Array,
    changes: { accounts: AccountChange[]; storage: StorageChange[] },
    private readonly codes: Map<string, Uint8Array>,
  ) {
    for (const a of changes.accounts) if (a.after !== undefined) this.accounts.set(toHex(a.address!), accountFromSlim(a.after)!);
    for (const c of changes.storage) this.slots.set(toHex(c.address!) + toHex(c.slot!), c.after);
  }
  account(address: Uint8Array): Account | undefined {
    return this.accounts.get(toHex(address));
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.slots.get(toHex(address) + toHex(slot)) ?? EMPTY;
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(toHex(codeHash).slice(2));
  }
}

/**
 * The state a case's transaction runs on, built as basalt builds and then executes on a chain:
 * the pre-state written into an overlay over the empty state (as `Chain.buildGenesis` writes a
 * genesis alloc), its root computed and its changes taken as the committed state, and a fresh
 * overlay over that committed state (as a block's execution overlay over the flat state),
 * sharing the in-memory trie nodes. Returns the execution overlay and the pre-state root.
 *
 * Why two layers: an overlay reports the storage root its base gave an account, not one that
 * reflects slots written into the overlay itself, and it records the EIP-2200 original value of
 * a slot when the slot is first written. Running the transaction in the overlay that holds the
 * pre-state would thus see empty storage roots (EIP-7610's create-collision check reads them:
 * 15 Prague cases fail) and zero original values, neither of which a chain ever shows.
 */
export async function preState(c: StateTestCase): Promise<{ state: OverlayStateManager; preRoot: Uint8Array }> {
  const tries = emptyStateTries();
  const genesis = new OverlayStateManager(new EmptyStateReader(KECCAK256_RLP), tries);
  for (const [addr, a] of c.pre) {
    const address = new Address(hexToBytes(addr as `0x${string}`));
    await genesis.putAccount(address, new Account(a.nonce, a.balance));
    if (a.code.length > 0) await genesis.putCode(address, a.code);
    for (const [k, v] of a.storage) await genesis.putStorage(address, k, v);
  }
  const preRoot = await genesis.getStateRoot();
  const committed = new CommittedState(preRoot, genesis.changes(), genesis.writtenCode());
  return { state: new OverlayStateManager(committed, tries), preRoot };
}

function message(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // @ethereumjs appends the block and tx summary in parentheses: keep the reason only.
  return m.replace(/ \((?:block|tx type)[^]*$/, "").slice(0, 300);
}

/** Runs one case with @ethereumjs/vm over basalt's overlay state; also returns that state (for tests). */
export async function executeCase(c: StateTestCase): Promise<{ outcome: StateTestOutcome; state: OverlayStateManager }> {
  await installEvmCaches();
  // A copy per case, as basalt takes one per block (Chain.commonAt): every EVM subscribes to
  // its Common's hardfork events, so a shared Common would keep every case's VM alive.
  const common = commonFor(c.fork, c.config).copy();
  const { state, preRoot } = await preState(c);
  const rejected = (reason: string): { outcome: StateTestOutcome; state: OverlayStateManager } => ({
    outcome: { stateRoot: preRoot, logsHash: EMPTY_LOGS_HASH, rejected: reason },
    state,
  });

  let tx: TypedTransaction;
  try {
    tx = createTxFromRLP(c.txbytes, { common });
  } catch (e) {
    return rejected(`decode: ${message(e)}`);
  }
  const errors = tx.getValidationErrors();
  if (errors.length > 0) return rejected(`invalid: ${errors.join("; ")}`);

  const block = blockFor(c, common);
  const vm = await createVM({ common, stateManager: state, blockchain: blockchain as never });
  let logs: unknown[];
  try {
    const result = await runTx(vm, { tx, block });
    logs = result.execResult.logs ?? [];
  } catch (e) {
    // runTx reverts what it did: the root shows whether anything leaked.
    return { outcome: { stateRoot: await state.getStateRoot(), logsHash: EMPTY_LOGS_HASH, rejected: message(e) }, state };
  }
  const stateRoot = await state.getStateRoot();
  const logsHash = logs.length === 0 ? EMPTY_LOGS_HASH : keccak256(RLP.encode(logs as never));
  return { outcome: { stateRoot, logsHash }, state };
}

/** @ethereumjs/vm 10.1.3 through basalt's state, Common and crypto. */
export const referenceEngine: StateTestEngine = {
  name: "reference",
  run: async (c) => (await executeCase(c)).outcome,
};
