/**
 * Bench: execution speed of the OP devnet, in-process (no HTTP). Builds blocks exactly as the
 * devnet sequencer does (`OpDevSequencer.sealOne`: L1-attributes deposit, then mempool
 * transactions, executed, sealed and committed) from a TxPool filled with pre-signed
 * transactions of the ten dev accounts, for two workloads:
 * - ETH transfers between the dev accounts;
 * - ERC-20 `transfer(address,uint256)` calls on a minimal hand-assembled token (balance mapping
 *   updates + a `Transfer` event), one token per account, minted to its deployer.
 * Reports transactions/s and Mgas/s of sealing (wall time of `sealOne`, including commit), plus
 * the machine. Signing and pool admission are outside the timed region.
 *
 * Usage: node dist/bench/opDevnet.js [transactionsPerWorkload=2000] [transactionsPerBlock=500]
 */
import { cpus, totalmem, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { Address, bigIntToBytes, createContractAddress, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { pino } from "pino";
import { Chain } from "../src/chain/chain.js";
import { commonFromGenesis } from "../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../src/chain/devnet.js";
import { DEPOSIT_TX_TYPE } from "../src/chain/op/depositTx.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import { TxPool } from "../src/txpool/txpool.js";
import { BasaltError } from "../src/util/errors.js";
import { to0x } from "../src/util/bytes.js";

/** Default transactions per workload: enough for several full-ish blocks, well under a minute. */
const DEFAULT_TXS_PER_WORKLOAD = 2000;
/**
 * Default user transactions per block: 500 (50 per dev account), under the mempool's 80-per-sender
 * cap (`TXPOOL_MAX_PER_SENDER`) and the Jovian DA-footprint limit (60M gas / (100 × 400) = 1500 txs).
 */
const DEFAULT_TXS_PER_BLOCK = 500;
/** Unmeasured warm-up transfers (JIT, caches) before the first workload. */
const WARMUP_TXS = 200;
/** Fee caps of the benchmark transactions: far above the devnet base fee (≈1 gwei), so none is priced out. */
const MAX_FEE_PER_GAS = 10_000_000_000n;
const MAX_PRIORITY_FEE_PER_GAS = 1_000_000_000n;
/** Gas limit of an ETH transfer (intrinsic gas). */
const TRANSFER_GAS = 21_000n;
/** Gas limit of a token transfer: ~30k execution (2 SSTOREs, cold SLOADs, LOG3) + 21k + calldata, with margin. */
const ERC20_TRANSFER_GAS = 100_000n;
/** Gas limit of a token deployment: init code + 2 SSTOREs + ~200 bytes of code deposit, with margin. */
const ERC20_DEPLOY_GAS = 500_000n;
/** Token supply minted to each deployer: 10^9 tokens of 18 decimals. */
const ERC20_SUPPLY = 10n ** 27n;

/** Function selectors (first 4 bytes of keccak256 of the signature). */
const SEL_TRANSFER = selector("transfer(address,uint256)");
const SEL_BALANCE_OF = selector("balanceOf(address)");
const SEL_TOTAL_SUPPLY = selector("totalSupply()");
/** topic0 of `Transfer(address indexed from, address indexed to, uint256 value)`. */
const TRANSFER_TOPIC = keccak_256(new TextEncoder().encode("Transfer(address,address,uint256)"));
/** Storage slot of `totalSupply`; the balance mapping is at slot 0 (Solidity layout: keccak256(key ++ slot)). */
const TOTAL_SUPPLY_SLOT = 2;

function selector(signature: string): Uint8Array {
  return keccak_256(new TextEncoder().encode(signature)).subarray(0, 4);
}

// ---- a tiny EVM assembler --------------------------------------------------------------------

/** EVM opcodes used by the token (yellow paper appendix H). */
const OP = {
  STOP: 0x00, ADD: 0x01, SUB: 0x03, LT: 0x10, EQ: 0x14, AND: 0x16, SHR: 0x1c, SHA3: 0x20, CALLER: 0x33, CALLDATALOAD: 0x35,
  CODECOPY: 0x39, POP: 0x50, MSTORE: 0x52, SLOAD: 0x54, SSTORE: 0x55, JUMPI: 0x57, JUMPDEST: 0x5b, PUSH1: 0x60,
  DUP1: 0x80, DUP2: 0x81, DUP4: 0x83, SWAP1: 0x90, LOG3: 0xa3, RETURN: 0xf3, REVERT: 0xfd,
} as const;

/** One assembly item: an opcode, a push of bytes/number, a jump target label, or a push of a label's offset. */
type Asm = number | { push: Uint8Array | bigint | number } | { label: string } | { ref: string };

const push = (v: Uint8Array | bigint | number): Asm => ({ push: v });
const label = (name: string): Asm => ({ label: name });
const ref = (name: string): Asm => ({ ref: name });

function pushBytes(v: Uint8Array | bigint | number): Uint8Array {
  if (v instanceof Uint8Array) return v;
  const n = BigInt(v);
  return n === 0n ? new Uint8Array([0]) : bigIntToBytes(n);
}

/**
 * Assembles `items` into bytecode: labels become JUMPDESTs, `ref`s become PUSH2 of the label's
 * offset (two passes; every ref is 3 bytes so offsets are known after the first).
 */
function assemble(items: Asm[]): Uint8Array {
  const labels = new Map<string, number>();
  const emit = (resolve: boolean): number[] => {
    const out: number[] = [];
    for (const it of items) {
      if (typeof it === "number") out.push(it);
      else if ("label" in it) {
        labels.set(it.label, out.length);
        out.push(OP.JUMPDEST);
      } else if ("ref" in it) {
        const at = resolve ? labels.get(it.ref) : 0;
        if (at === undefined) throw new BasaltError("BENCH_ASM_LABEL", `undefined label ${it.ref}`);
        out.push(0x61, at >> 8, at & 0xff);
      } else {
        const b = pushBytes(it.push);
        if (b.length > 32) throw new BasaltError("BENCH_ASM_PUSH", `push of ${b.length} bytes, at most 32 expected`);
        out.push(OP.PUSH1 + b.length - 1, ...b);
      }
    }
    return out;
  };
  emit(false);
  return new Uint8Array(emit(true));
}

/** `keccak256(mem[0..64))` with mem[0] = the address on the stack top, mem[32] = 0: the balance slot of it. */
const BALANCE_SLOT_OF_TOP: Asm[] = [push(0), OP.MSTORE, push(0), push(0x20), OP.MSTORE, push(0x40), push(0), OP.SHA3];
/** Returns the stack top as one 32-byte word. */
const RETURN_TOP: Asm[] = [push(0), OP.MSTORE, push(0x20), push(0), OP.RETURN];

/**
 * Runtime of the minimal ERC-20: `transfer(address,uint256)` (reverts on insufficient balance,
 * moves the amount between the balance-mapping slots, emits Transfer, returns true),
 * `balanceOf(address)`, `totalSupply()`; anything else reverts.
 */
const TOKEN_RUNTIME = assemble([
  push(0), OP.CALLDATALOAD, push(0xe0), OP.SHR,
  OP.DUP1, push(SEL_TRANSFER), OP.EQ, ref("transfer"), OP.JUMPI,
  OP.DUP1, push(SEL_BALANCE_OF), OP.EQ, ref("balanceOf"), OP.JUMPI,
  OP.DUP1, push(SEL_TOTAL_SUPPLY), OP.EQ, ref("totalSupply"), OP.JUMPI,
  label("fail"), push(0), OP.DUP1, OP.REVERT,

  label("transfer"),
  push(0x24), OP.CALLDATALOAD, // amount
  push(0x04), OP.CALLDATALOAD, push(new Uint8Array(20).fill(0xff)), OP.AND, // to, amount
  OP.CALLER, ...BALANCE_SLOT_OF_TOP, // fromSlot, to, amount
  OP.DUP1, OP.SLOAD, // bal, fromSlot, to, amount
  OP.DUP4, OP.DUP2, OP.LT, ref("fail"), OP.JUMPI, // bal < amount → revert
  OP.DUP4, OP.SWAP1, OP.SUB, OP.SWAP1, OP.SSTORE, // balances[from] = bal - amount; to, amount
  OP.DUP1, ...BALANCE_SLOT_OF_TOP, // toSlot, to, amount
  OP.DUP1, OP.SLOAD, OP.DUP4, OP.ADD, OP.SWAP1, OP.SSTORE, // balances[to] += amount; to, amount
  OP.DUP2, push(0), OP.MSTORE, // mem[0] = amount
  OP.CALLER, push(TRANSFER_TOPIC), push(0x20), push(0), OP.LOG3, // Transfer(caller, to, amount)
  OP.POP, push(1), ...RETURN_TOP,

  label("balanceOf"),
  push(0x04), OP.CALLDATALOAD, ...BALANCE_SLOT_OF_TOP, OP.SLOAD, ...RETURN_TOP,

  label("totalSupply"),
  push(TOTAL_SUPPLY_SLOT), OP.SLOAD, ...RETURN_TOP,
]);

/** Init code: totalSupply = balances[msg.sender] = supply, emit Transfer(0, msg.sender, supply), return the runtime. */
function tokenInitCode(supply: bigint): Uint8Array {
  const ctor = (runtimeOffset: number): Asm[] => [
    push(supply), OP.DUP1, push(TOTAL_SUPPLY_SLOT), OP.SSTORE, // totalSupply = supply; supply
    OP.CALLER, ...BALANCE_SLOT_OF_TOP, // slot, supply
    OP.DUP2, OP.SWAP1, OP.SSTORE, // balances[caller] = supply; supply
    push(0), OP.MSTORE, // mem[0] = supply
    OP.CALLER, push(0), push(TRANSFER_TOPIC), push(0x20), push(0), OP.LOG3, // Transfer(0, caller, supply)
    push(setLengthLeft(bigIntToBytes(BigInt(TOKEN_RUNTIME.length)), 2)), OP.DUP1,
    push(setLengthLeft(bigIntToBytes(BigInt(runtimeOffset)), 2)), push(0), OP.CODECOPY, // mem[0..len) = runtime
    push(0), OP.RETURN,
  ];
  const len = assemble(ctor(0)).length;
  const code = assemble(ctor(len));
  const out = new Uint8Array(code.length + TOKEN_RUNTIME.length);
  out.set(code);
  out.set(TOKEN_RUNTIME, code.length);
  return out;
}

function transferCalldata(to: Uint8Array, amount: bigint): Uint8Array {
  const out = new Uint8Array(4 + 64);
  out.set(SEL_TRANSFER);
  out.set(setLengthLeft(to, 32), 4);
  out.set(setLengthLeft(bigIntToBytes(amount), 32), 36);
  return out;
}

// ---- the benchmark ---------------------------------------------------------------------------

interface Signer {
  address: Uint8Array;
  key: Uint8Array;
  nonce: bigint;
}

interface TxSpec {
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
  gasLimit: bigint;
}

interface WorkloadResult {
  workload: string;
  blocks: number;
  transactions: number;
  gasUsed: bigint;
  seconds: number;
}

class Bench {
  private readonly signers: Signer[];

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly sequencer: OpDevSequencer,
    private readonly common: Common,
  ) {
    this.signers = devAccounts().map((a) => ({
      address: hexToBytes(a.address as `0x${string}`),
      key: hexToBytes(a.privateKey as `0x${string}`),
      nonce: 0n,
    }));
  }

  get accounts(): readonly Signer[] {
    return this.signers;
  }

  private sign(s: Signer, spec: TxSpec): Uint8Array {
    const tx = createFeeMarket1559Tx(
      {
        chainId: this.chain.chainId,
        nonce: s.nonce++,
        maxFeePerGas: MAX_FEE_PER_GAS,
        maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS,
        gasLimit: spec.gasLimit,
        to: spec.to === undefined ? undefined : new Address(spec.to),
        value: spec.value,
        data: spec.data,
      },
      { common: this.common },
    );
    return tx.sign(s.key).serialize();
  }

  /**
   * Runs `total` transactions (`make(sender index, k-th tx of that sender)`), `perBlock` per block
   * (split evenly over the accounts): pre-signs all of them, then per block adds them to the pool
   * (untimed) and seals (timed) until the pool is empty. Checks every transaction succeeded.
   */
  async run(workload: string, total: number, perBlock: number, make: (sender: number, k: number) => TxSpec, expectLogs = 0): Promise<WorkloadResult> {
    const n = this.signers.length;
    const perSender = Math.max(1, Math.floor(perBlock / n));
    const rounds = Math.ceil(total / (perSender * n));
    const batches: Uint8Array[][] = [];
    let made = 0;
    for (let r = 0; r < rounds; r++) {
      const batch: Uint8Array[] = [];
      for (let k = 0; k < perSender; k++) {
        for (let i = 0; i < n && made < total; i++, made++) batch.push(this.sign(this.signers[i]!, make(i, r * perSender + k)));
      }
      batches.push(batch);
    }
    let seconds = 0;
    let blocks = 0;
    let transactions = 0;
    let gasUsed = 0n;
    for (const batch of batches) {
      for (const raw of batch) await this.pool.addRaw(raw);
      while (this.pool.size > 0) {
        const t0 = performance.now();
        const number = await this.sequencer.sealOne();
        seconds += (performance.now() - t0) / 1000;
        const { txs, gas } = this.check(number, workload, expectLogs);
        if (txs === 0) throw new BasaltError("BENCH_STALLED", `${workload}: block ${number} took none of the ${this.pool.size} pooled transactions`);
        blocks++;
        transactions += txs;
        gasUsed += gas;
      }
    }
    if (transactions !== total) throw new BasaltError("BENCH_COUNT", `${workload}: ${transactions} transactions included, ${total} expected`);
    return { workload, blocks, transactions, gasUsed, seconds };
  }

  /** User transactions and their gas in block `number`; throws if one failed or logged unexpectedly. */
  private check(number: bigint, workload: string, expectLogs: number): { txs: number; gas: bigint } {
    const block = this.chain.getBlockByNumber(number);
    const receipts = block === undefined ? undefined : this.chain.getReceipts(block.hash());
    if (block === undefined || receipts === undefined) {
      throw new BasaltError("BENCH_BLOCK_MISSING", `block ${number} or its receipts missing after sealing`);
    }
    let txs = 0;
    let gas = 0n;
    let prev = 0n;
    for (const r of receipts) {
      const used = r.cumulativeGasUsed - prev;
      prev = r.cumulativeGasUsed;
      if (r.type === DEPOSIT_TX_TYPE) continue;
      if (r.status !== 1) {
        throw new BasaltError("BENCH_TX_FAILED", `${workload}: a transaction of block ${number} failed (status ${r.status}), success expected`);
      }
      if (r.logs.length !== expectLogs) {
        throw new BasaltError("BENCH_TX_LOGS", `${workload}: a transaction of block ${number} emitted ${r.logs.length} logs, ${expectLogs} expected`);
      }
      txs++;
      gas += used;
    }
    return { txs, gas };
  }
}

/** Storage slot of `balances[holder]` (mapping at slot 0): keccak256(pad32(holder) ++ pad32(0)). */
function balanceSlot(holder: Uint8Array): Uint8Array {
  const key = new Uint8Array(64);
  key.set(setLengthLeft(holder, 32));
  return keccak_256(key);
}

/**
 * Checks the token state after the workload: totalSupply unchanged, each deployer's balance is the
 * supply minus what it sent, and the balances of the accounts add up to the supply (nothing lost).
 */
function verifyTokens(chain: Chain, tokens: Uint8Array[], holders: Uint8Array[], sent: bigint[]): void {
  const state = chain.stateAt(chain.head.header);
  const word = (token: Uint8Array, slot: Uint8Array): bigint => {
    const v = state.storage(token, slot);
    return v.length === 0 ? 0n : BigInt(to0x(v));
  };
  tokens.forEach((token, i) => {
    const supply = word(token, setLengthLeft(bigIntToBytes(BigInt(TOTAL_SUPPLY_SLOT)), 32));
    const own = word(token, balanceSlot(holders[i]!));
    const sum = holders.reduce((acc, h) => acc + word(token, balanceSlot(h)), 0n);
    if (supply !== ERC20_SUPPLY || own !== ERC20_SUPPLY - sent[i]! || sum !== ERC20_SUPPLY) {
      throw new BasaltError(
        "BENCH_TOKEN_STATE",
        `token ${to0x(token)}: totalSupply ${supply}, deployer balance ${own}, sum of balances ${sum}; ` +
          `expected ${ERC20_SUPPLY}, ${ERC20_SUPPLY - sent[i]!}, ${ERC20_SUPPLY}`,
      );
    }
  });
}

function fmt(n: number, digits: number): string {
  return n.toFixed(digits);
}

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? DEFAULT_TXS_PER_WORKLOAD);
  const perBlock = Number(process.argv[3] ?? DEFAULT_TXS_PER_BLOCK);
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-opdevnet-"));
  const started = performance.now();
  try {
    const genesis = devnetGenesis();
    // The devnet runs as an archive node (the `archive` default of `--network devnet`).
    await Chain.init(datadir, genesis, { archive: true });
    const chain = Chain.open(datadir, { archive: true });
    const pool = new TxPool(chain);
    const sequencer = new OpDevSequencer(chain, pool, 0, pino({ level: "silent" }));
    const bench = new Bench(chain, pool, sequencer, commonFromGenesis(genesis));
    const accts = bench.accounts;
    const n = accts.length;
    const peer = (i: number, k: number): Uint8Array => accts[(i + 1 + (k % (n - 1))) % n]!.address;

    const transfer = (i: number, k: number): TxSpec => ({
      to: peer(i, k),
      value: 1_000_000_000n + BigInt(k),
      data: new Uint8Array(0),
      gasLimit: TRANSFER_GAS,
    });
    await bench.run("warm-up", WARMUP_TXS, WARMUP_TXS, transfer);
    const results: WorkloadResult[] = [];
    results.push(await bench.run("eth-transfer", total, perBlock, transfer));

    // One token per account, minted to its deployer; then transfers of each account's own token.
    const tokens = accts.map((a) => createContractAddress(new Address(a.address), a.nonce).bytes);
    const initCode = tokenInitCode(ERC20_SUPPLY);
    await bench.run("erc20-deploy", n, n, () => ({ value: 0n, data: initCode, gasLimit: ERC20_DEPLOY_GAS }), 1);
    const state = chain.stateAt(chain.head.header);
    for (const t of tokens) {
      if (state.account(t) === undefined) throw new BasaltError("BENCH_DEPLOY", `token ${to0x(t)} was not deployed`);
    }
    const sent = accts.map(() => 0n);
    const tokenTransfer = (i: number, k: number): TxSpec => {
      const amount = 1_000n + BigInt(k);
      sent[i]! += amount;
      return { to: tokens[i]!, value: 0n, data: transferCalldata(peer(i, k), amount), gasLimit: ERC20_TRANSFER_GAS };
    };
    results.push(await bench.run("erc20-transfer", total, perBlock, tokenTransfer, 1));
    verifyTokens(chain, tokens, accts.map((a) => a.address), sent);
    await chain.close();

    const cpu = cpus()[0]?.model ?? "unknown";
    const memGiB = (totalmem() / 2 ** 30).toFixed(1);
    console.log(`machine: ${cpu} × ${cpus().length}, ${memGiB} GiB, node ${process.version}, ${process.platform}-${process.arch}`);
    console.log(`OP devnet block building (OpDevSequencer.sealOne, execution + commit), ${perBlock} txs/block`);
    console.log("workload        blocks    txs      Mgas   seconds      tx/s    Mgas/s");
    for (const r of results) {
      const mgas = Number(r.gasUsed) / 1e6;
      const cells = [
        r.workload.padEnd(14),
        String(r.blocks).padStart(6),
        String(r.transactions).padStart(6),
        fmt(mgas, 2).padStart(9),
        fmt(r.seconds, 3).padStart(9),
        fmt(r.transactions / r.seconds, 1).padStart(9),
        fmt(mgas / r.seconds, 2).padStart(9),
      ];
      console.log(cells.join(" "));
    }
    for (const r of results) {
      console.log(
        JSON.stringify({
          bench: "op-devnet",
          workload: r.workload,
          blocks: r.blocks,
          transactions: r.transactions,
          gasUsed: r.gasUsed.toString(),
          seconds: Number(r.seconds.toFixed(3)),
          txPerSecond: Number((r.transactions / r.seconds).toFixed(1)),
          mgasPerSecond: Number((Number(r.gasUsed) / 1e6 / r.seconds).toFixed(2)),
        }),
      );
    }
    console.log(`total run time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
