/**
 * The shared benchmark workload: a deterministic, pre-signed chain of realistic blocks (ETH
 * transfers, ERC-20 transfers, swap-like storage-heavy pool calls) from the anvil/hardhat
 * mnemonic accounts, replayable on any node that prefunds those accounts (basalt's devnet,
 * anvil). The same options always give the same bytes (RFC 6979 signatures).
 *
 * Gas determinism across nodes: every storage slot a block transaction writes is nonzero before
 * and after it (token balances and pool balances are granted in setup, pool counters start at
 * 1, amounts never drain a balance), and no transaction sends to itself, so each transaction's
 * gasUsed is the same whatever order a node puts the transactions of a block in.
 */
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address, createContractAddress, hexToBytes } from "@ethereumjs/util";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { DEV_HD_PATH, devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { DEV_ACCOUNT_COUNT, DEV_MNEMONIC } from "../../src/chain/constants.js";
import { TXPOOL_MAX_PER_SENDER } from "../../src/txpool/constants.js";
import { BasaltError } from "../../src/util/errors.js";
import { WorkloadError } from "./errors.js";
import { poolInitCode, poolMintCalldata, swapCalldata, tokenInitCode, transferCalldata } from "./contracts.js";

/** A generated workload: setup rounds and blocks of raw signed transactions, and the accounts and contracts they use. */
export interface Workload {
  chainId: bigint;
  /** setup rounds: raw signed txs (deploys, funding of extra senders, mints/approvals); each round must be mined before the next */
  setup: Uint8Array[][];
  /** raw signed txs per block, in nonce order per sender */
  blocks: Uint8Array[][];
  /** ERC-20 token addresses */
  tokens: Uint8Array[];
  /** swap pool addresses */
  pools: Uint8Array[];
  /** addresses of every account sending block transactions */
  senders: Uint8Array[];
  /** a holder with token balance and a recipient, for eth_call / eth_estimateGas of an ERC-20 transfer */
  probe: { token: Uint8Array; from: Uint8Array; to: Uint8Array };
  /** accounts funded in setup with `HOLDER_FUNDING_WEI + i` wei and nothing else ({@link WorkloadOptions.holders}) */
  holders: Uint8Array[];
}

/** Relative weights of the transaction kinds in a block (any nonnegative numbers, not all 0). */
export interface WorkloadMix {
  transfers: number;
  erc20: number;
  swaps: number;
}

/** Options of {@link buildWorkload}. */
export interface WorkloadOptions {
  chainId: bigint;
  /** blocks to generate */
  blocks: number;
  /** user transactions per block */
  txsPerBlock: number;
  /** kind weights; default {@link DEFAULT_MIX} */
  mix?: WorkloadMix;
  /** default {@link DEFAULT_MAX_FEE_PER_GAS} */
  maxFeePerGas?: bigint;
  /** default {@link DEFAULT_MAX_PRIORITY_FEE_PER_GAS} */
  maxPriorityFeePerGas?: bigint;
  /**
   * Most transactions one sender has in a block; more senders (derived from the dev mnemonic and
   * funded in setup) are used as needed. Default {@link DEFAULT_TXS_PER_SENDER_PER_BLOCK}; at most
   * {@link MAX_TXS_PER_SENDER_PER_ROUND}.
   */
  txsPerSenderPerBlock?: number;
  /**
   * Extra accounts funded by the dev accounts in setup stage 1 (distinct existing accounts for
   * eth_getBalance corpora); default 0. Their addresses: {@link holderAddress}.
   */
  holders?: number;
}

/** Wei sent to holder `i` (plus `i`): any positive balance. */
export const HOLDER_FUNDING_WEI = 1_000_000_000n;

/** The address of the `i`-th holder of {@link WorkloadOptions.holders}: keccak256("basalt-bench-holder-i")[12:], an address no key controls. */
export function holderAddress(i: number): Uint8Array {
  return keccak_256(new TextEncoder().encode(`basalt-bench-holder-${i}`)).subarray(12);
}

/** Default kind weights: 30 % ETH transfers, 40 % ERC-20 transfers, 30 % swaps (a DeFi-heavy L2 block). */
export const DEFAULT_MIX: WorkloadMix = { transfers: 30, erc20: 40, swaps: 30 };
/** Default fee cap: 50 gwei, far above both nodes' base fees (basalt devnet and anvil start at 1 gwei and fall when blocks are under target). */
export const DEFAULT_MAX_FEE_PER_GAS = 50_000_000_000n;
/** Default priority fee: 1 gwei (anvil's default suggested tip; basalt's devnet has no minimum). */
export const DEFAULT_MAX_PRIORITY_FEE_PER_GAS = 1_000_000_000n;
/**
 * Default per-sender transactions in one block: 16, geth's `AccountSlots` (the executable
 * transactions a pool guarantees per account); a 200-transaction block then has 13 senders.
 */
export const DEFAULT_TXS_PER_SENDER_PER_BLOCK = 16;
/** Most transactions one sender has queued at once (a block or a setup round): below basalt's `TXPOOL_MAX_PER_SENDER` (80) with margin. */
export const MAX_TXS_PER_SENDER_PER_ROUND = Math.min(64, TXPOOL_MAX_PER_SENDER - 1);
/** Sum of the gas limits of one setup round: half the devnet/anvil block gas limit (60M), so a round always fits one block. */
const SETUP_ROUND_GAS = 30_000_000n;

/** ERC-20 tokens deployed (by dev accounts 0..3). */
export const WORKLOAD_TOKENS = 4;
/** Swap pools deployed (by dev accounts 4..5). */
export const WORKLOAD_POOLS = 2;
/** Supply of each token, minted to its deployer: 10^9 tokens of 18 decimals. */
const TOKEN_SUPPLY = 10n ** 27n;
/** Tokens each sender gets of every token in setup: 10^6 tokens; block transfers move ~10^-15 of that. */
const TOKEN_GRANT = 10n ** 24n;
/** Initial reserves of both sides of each pool: 10^9 tokens, so amountOut stays positive and close to amountIn. */
const POOL_RESERVE = 10n ** 27n;
/** Internal balance of both pool tokens each sender mints itself in setup: 10^6 tokens. */
const POOL_GRANT = 10n ** 24n;
/** ETH each extra (derived) sender gets in setup: 10 ETH pays > 10^4 swaps at the 50 gwei fee cap. */
const EXTRA_SENDER_FUNDING_WEI = 10n ** 19n;
/** Base amounts of block transactions (wei / token units); a per-kind counter is added so every tx differs. */
const ETH_TRANSFER_VALUE = 1_000_000_000n;
const ERC20_TRANSFER_AMOUNT = 1_000n;
const SWAP_AMOUNT_IN = 10n ** 15n;

/** Gas limit of an ETH transfer: the intrinsic 21000. */
export const TRANSFER_GAS = 21_000n;
/** Gas limit of a token transfer: ~30k execution (2 SSTOREs, cold SLOADs, LOG3) + 21k + calldata, with margin. */
export const ERC20_TRANSFER_GAS = 100_000n;
/** Gas limit of a swap: 7 cold slots read and written (~35k) + hashing, LOG2, 21k + calldata ≈ 60k, with margin. */
export const SWAP_GAS = 150_000n;
/** Gas limit of a pool mint (3 slots set from zero ≈ 66k + 21k), with margin. */
const POOL_MINT_GAS = 150_000n;
/** Gas limit of a token deployment: init code + 2 SSTOREs + ~200 bytes of code deposit, with margin. */
const TOKEN_DEPLOY_GAS = 500_000n;
/** Gas limit of a pool deployment: 5 SSTOREs + ~500 bytes of code deposit (~100k), with margin. */
const POOL_DEPLOY_GAS = 1_000_000n;

/** A bad workload option. */
export class WorkloadOptionError extends BasaltError<{ option: string }> {
  constructor(option: string, message: string) {
    super("BENCH_WORKLOAD_OPTION", message, { option });
  }
}

/** A signing account with its next nonce. */
interface Sender {
  address: Uint8Array;
  key: Uint8Array;
  nonce: bigint;
}

/** One transaction to sign. */
interface TxSpec {
  from: number;
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
}

/** Keys of the mnemonic accounts beyond the ten dev accounts, by index (derivation is slow: memoized). */
const derived = new Map<number, Uint8Array>();
let hdRoot: HDKey | undefined;

/** Private key of mnemonic account `i` (BIP-44 `m/44'/60'/0'/0/i`, as anvil and the devnet derive them). */
function mnemonicKey(i: number): Uint8Array {
  let key = derived.get(i);
  if (key === undefined) {
    hdRoot ??= HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC));
    const k = hdRoot.derive(`${DEV_HD_PATH}/${i}`).privateKey;
    if (k === null) throw new WorkloadError({ code: "BENCH_WORKLOAD_KEY", account: i }, `mnemonic account ${i}: no private key derived`);
    key = k;
    derived.set(i, key);
  }
  return key;
}

/** The address of a private key. */
function addressOf(key: Uint8Array): Uint8Array {
  return keccak_256(secp256k1.getPublicKey(key, false).subarray(1)).subarray(12);
}

/** The `n` senders: the ten dev accounts, then mnemonic accounts 10, 11, … */
function makeSenders(n: number): Sender[] {
  const out: Sender[] = devAccounts().map((a) => ({
    address: hexToBytes(a.address as `0x${string}`),
    key: hexToBytes(a.privateKey as `0x${string}`),
    nonce: 0n,
  }));
  for (let i = DEV_ACCOUNT_COUNT; i < n; i++) {
    const key = mnemonicKey(i);
    out.push({ address: addressOf(key), key, nonce: 0n });
  }
  return out;
}

/** Per-kind counts of a block of `total` transactions: largest-remainder apportionment of the weights. */
export function mixCounts(total: number, mix: WorkloadMix): WorkloadMix {
  const weights = [mix.transfers, mix.erc20, mix.swaps];
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.some((w) => !Number.isFinite(w) || w < 0) || sum <= 0) {
    throw new WorkloadOptionError("mix", `mix ${JSON.stringify(mix)}: weights must be finite, nonnegative and not all 0`);
  }
  const exact = weights.map((w) => (w / sum) * total);
  const counts = exact.map(Math.floor);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; k < total - counts.reduce((a, b) => a + b, 0); k++) counts[order[k]!.i]!++;
  return { transfers: counts[0]!, erc20: counts[1]!, swaps: counts[2]! };
}

/** The kind of each position of a block: smooth weighted round-robin over the counts, so kinds interleave evenly. */
function kindSequence(counts: WorkloadMix): Array<keyof WorkloadMix> {
  const kinds: Array<keyof WorkloadMix> = ["transfers", "erc20", "swaps"];
  const total = counts.transfers + counts.erc20 + counts.swaps;
  const current = [0, 0, 0];
  const out: Array<keyof WorkloadMix> = [];
  for (let p = 0; p < total; p++) {
    let best = -1;
    for (let k = 0; k < 3; k++) {
      current[k]! += counts[kinds[k]!];
      if (counts[kinds[k]!] > 0 && (best < 0 || current[k]! > current[best]!)) best = k;
    }
    current[best]! -= total;
    out.push(kinds[best]!);
  }
  return out;
}

/**
 * Splits one setup stage into rounds (each mined before the next) so that no sender has more
 * than {@link MAX_TXS_PER_SENDER_PER_ROUND} transactions in a round and a round's gas limits
 * sum to at most {@link SETUP_ROUND_GAS}; keeps each sender's order.
 */
function packRounds(stage: TxSpec[]): TxSpec[][] {
  const rounds: TxSpec[][] = [];
  let round: TxSpec[] = [];
  let gas = 0n;
  let perSender = new Map<number, number>();
  for (const spec of stage) {
    const mine = perSender.get(spec.from) ?? 0;
    if (round.length > 0 && (mine >= MAX_TXS_PER_SENDER_PER_ROUND || gas + spec.gasLimit > SETUP_ROUND_GAS)) {
      rounds.push(round);
      round = [];
      gas = 0n;
      perSender = new Map();
    }
    round.push(spec);
    gas += spec.gasLimit;
    perSender.set(spec.from, (perSender.get(spec.from) ?? 0) + 1);
  }
  if (round.length > 0) rounds.push(round);
  return rounds;
}

/**
 * Builds the workload: setup rounds, then `blocks` blocks of `txsPerBlock` transactions each.
 *
 * Setup: (1) dev accounts 0..3 deploy the tokens (supply to the deployer), dev accounts 4..5 the
 * pools, and the dev accounts fund the extra senders (10 ETH each); (2) each token's deployer
 * transfers 10^24 units to every other sender, and every sender mints itself 10^24 of both
 * sides in every pool. Blocks: the kinds interleave per the mix; position p is sent by sender
 * p mod S (S = max(10, ceil(txsPerBlock / txsPerSenderPerBlock))); transfers and ERC-20
 * transfers go to another sender, tokens and pools rotate, swaps alternate direction.
 * Deterministic: the same options give the same bytes.
 */
export function buildWorkload(opts: WorkloadOptions): Workload {
  const { chainId, blocks, txsPerBlock } = opts;
  if (!Number.isInteger(blocks) || blocks < 0) throw new WorkloadOptionError("blocks", `blocks ${blocks}: a nonnegative integer expected`);
  if (!Number.isInteger(txsPerBlock) || txsPerBlock < 1) {
    throw new WorkloadOptionError("txsPerBlock", `txsPerBlock ${txsPerBlock}: a positive integer expected`);
  }
  const perSender = opts.txsPerSenderPerBlock ?? DEFAULT_TXS_PER_SENDER_PER_BLOCK;
  if (!Number.isInteger(perSender) || perSender < 1 || perSender > MAX_TXS_PER_SENDER_PER_ROUND) {
    const want = `an integer in 1..${MAX_TXS_PER_SENDER_PER_ROUND} expected`;
    throw new WorkloadOptionError("txsPerSenderPerBlock", `txsPerSenderPerBlock ${perSender}: ${want}`);
  }
  const counts = mixCounts(txsPerBlock, opts.mix ?? DEFAULT_MIX);
  const maxFeePerGas = opts.maxFeePerGas ?? DEFAULT_MAX_FEE_PER_GAS;
  const maxPriorityFeePerGas = opts.maxPriorityFeePerGas ?? DEFAULT_MAX_PRIORITY_FEE_PER_GAS;
  if (maxPriorityFeePerGas > maxFeePerGas) {
    throw new WorkloadOptionError("maxPriorityFeePerGas", `maxPriorityFeePerGas ${maxPriorityFeePerGas} exceeds maxFeePerGas ${maxFeePerGas}`);
  }

  const genesis = devnetGenesis();
  const common: Common = commonFromGenesis({ ...genesis, config: { ...genesis.config, chainId: Number(chainId) } });
  const senders = makeSenders(Math.max(DEV_ACCOUNT_COUNT, Math.ceil(txsPerBlock / perSender)));
  const n = senders.length;
  const sign = (spec: TxSpec): Uint8Array => {
    const s = senders[spec.from]!;
    const tx = createFeeMarket1559Tx(
      {
        chainId,
        nonce: s.nonce++,
        maxFeePerGas,
        maxPriorityFeePerGas,
        gasLimit: spec.gasLimit,
        to: spec.to === undefined ? undefined : new Address(spec.to),
        value: spec.value,
        data: spec.data,
      },
      { common },
    );
    return tx.sign(s.key).serialize();
  };

  // Setup stage 1: deployments and funding.
  const deploys: TxSpec[] = [];
  const tokens: Uint8Array[] = [];
  const pools: Uint8Array[] = [];
  // Nonces the queued stage-1 transactions will get (signing happens after packing, in the same order).
  const planned = senders.map(() => 0n);
  const deploy = (from: number, data: Uint8Array, gasLimit: bigint): Uint8Array => {
    deploys.push({ from, value: 0n, data, gasLimit });
    return createContractAddress(new Address(senders[from]!.address), planned[from]!++).bytes;
  };
  const tokenCode = tokenInitCode(TOKEN_SUPPLY);
  for (let i = 0; i < WORKLOAD_TOKENS; i++) tokens.push(deploy(i % DEV_ACCOUNT_COUNT, tokenCode, TOKEN_DEPLOY_GAS));
  const poolCode = poolInitCode(POOL_RESERVE, POOL_RESERVE);
  for (let j = 0; j < WORKLOAD_POOLS; j++) pools.push(deploy((WORKLOAD_TOKENS + j) % DEV_ACCOUNT_COUNT, poolCode, POOL_DEPLOY_GAS));
  for (let e = DEV_ACCOUNT_COUNT; e < n; e++) {
    const from = e % DEV_ACCOUNT_COUNT;
    deploys.push({ from, to: senders[e]!.address, value: EXTRA_SENDER_FUNDING_WEI, data: new Uint8Array(0), gasLimit: TRANSFER_GAS });
    planned[from]!++;
  }
  const holders = Array.from({ length: opts.holders ?? 0 }, (_, i) => holderAddress(i));
  for (const [i, to] of holders.entries()) {
    const from = i % DEV_ACCOUNT_COUNT;
    deploys.push({ from, to, value: HOLDER_FUNDING_WEI + BigInt(i), data: new Uint8Array(0), gasLimit: TRANSFER_GAS });
    planned[from]!++;
  }
  // Setup stage 2: token grants and pool mints.
  const grants: TxSpec[] = [];
  for (let i = 0; i < WORKLOAD_TOKENS; i++) {
    const owner = i % DEV_ACCOUNT_COUNT;
    for (let s = 0; s < n; s++) {
      if (s === owner) continue;
      grants.push({ from: owner, to: tokens[i]!, value: 0n, data: transferCalldata(senders[s]!.address, TOKEN_GRANT), gasLimit: ERC20_TRANSFER_GAS });
    }
  }
  for (const pool of pools) {
    const data = poolMintCalldata(POOL_GRANT, POOL_GRANT);
    for (let s = 0; s < n; s++) grants.push({ from: s, to: pool, value: 0n, data, gasLimit: POOL_MINT_GAS });
  }
  const setup = [...packRounds(deploys), ...packRounds(grants)].map((round) => round.map(sign));

  // Blocks.
  const kinds = kindSequence(counts);
  const seen = { transfers: 0, erc20: 0, swaps: 0 };
  const other = (s: number, k: number): Uint8Array => senders[(s + 1 + (k % (n - 1))) % n]!.address;
  const out: Uint8Array[][] = [];
  for (let b = 0; b < blocks; b++) {
    const block: Uint8Array[] = [];
    for (let p = 0; p < txsPerBlock; p++) {
      const from = p % n;
      const kind = kinds[p]!;
      const k = seen[kind]++;
      if (kind === "transfers") {
        block.push(sign({ from, to: other(from, k), value: ETH_TRANSFER_VALUE + BigInt(k), data: new Uint8Array(0), gasLimit: TRANSFER_GAS }));
      } else if (kind === "erc20") {
        const data = transferCalldata(other(from, k), ERC20_TRANSFER_AMOUNT + BigInt(k));
        block.push(sign({ from, to: tokens[k % tokens.length]!, value: 0n, data, gasLimit: ERC20_TRANSFER_GAS }));
      } else {
        const data = swapCalldata(SWAP_AMOUNT_IN + BigInt(k), Math.floor(k / pools.length) % 2 === 0);
        block.push(sign({ from, to: pools[k % pools.length]!, value: 0n, data, gasLimit: SWAP_GAS }));
      }
    }
    out.push(block);
  }

  return {
    chainId,
    setup,
    blocks: out,
    tokens,
    pools,
    senders: senders.map((s) => s.address),
    probe: { token: tokens[0]!, from: senders[0]!.address, to: senders[1]!.address },
    holders,
  };
}
