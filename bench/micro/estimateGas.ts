/**
 * Micro-benchmarks of eth_estimateGas through `CallExecutor.estimateGas` (the geth/reth gas
 * search, src/execution/estimateGas.ts) against the benchmark chain's head: a plain ETH
 * transfer (the 21000 shortcut), an ERC-20 transfer of the workload's probe holder, a swap on
 * one of the workload's pools (the call of a swap transaction of the benchmark block), and a
 * call that reverts (the error path: one run at the cap, then the revert error).
 */
import type { BlockHeader } from "@ethereumjs/block";
import { hexToBytes } from "@ethereumjs/util";
import { devAccounts } from "../../src/chain/devnet.js";
import { isDeposit } from "../../src/chain/op/depositTx.js";
import { CallExecutor } from "../../src/execution/callExecutor.js";
import type { CallArgs } from "../../src/execution/callArgs.js";
import { TX_GAS } from "../../src/execution/estimateGas.js";
import { bytesEqual, to0x } from "../../src/util/bytes.js";
import { transferCalldata } from "../workload/contracts.js";
import type { MicroFixture } from "./fixture.js";
import { expectThat, type MicroCase } from "./harness.js";

/** An address that never holds tokens: the sender of the reverting transfer. */
const EMPTY_HOLDER = hexToBytes("0x000000000000000000000000000000000000dEaD");
/** Upper bound of a sane token-transfer or swap estimate (the workload signs such transactions with 100k–150k gas limits). */
const MAX_SANE_ESTIMATE = 1_000_000n;

/** Names of the estimateGas cases. */
export const ESTIMATE_CASE_NAMES = {
  transfer: "estimateGas.transfer",
  erc20: "estimateGas.erc20",
  swap: "estimateGas.swap",
  revert: "estimateGas.revert",
} as const;

/** The estimateGas cases (the swap only when the block holds a swap). */
export function estimateGasCases(fx: MicroFixture): MicroCase[] {
  const exec = new CallExecutor(fx.chain);
  const head = (): BlockHeader => fx.chain.head.header;
  const [a0, a1] = devAccounts().map((a) => hexToBytes(a.address as `0x${string}`));
  const { probe } = fx.workload;

  /** A successful estimate: within bounds, and the call succeeds with exactly that gas. */
  const success = (name: string, args: CallArgs, exact?: bigint): MicroCase<bigint> => ({
    name,
    run: () => exec.estimateGas(head(), args),
    async check(out) {
      if (exact !== undefined) {
        expectThat(out === exact, name, () => `estimate ${out}, expected ${exact}`);
        return;
      }
      expectThat(out > TX_GAS && out < MAX_SANE_ESTIMATE, name, () => `estimate ${out}, expected between ${TX_GAS} and ${MAX_SANE_ESTIMATE}`);
      try {
        await exec.call(head(), { ...args, gas: out });
      } catch (e) {
        expectThat(false, name, () => `the call fails with the estimated gas ${out}: ${(e as Error).message}`);
      }
    },
  });

  const cases: MicroCase<unknown>[] = [
    success(ESTIMATE_CASE_NAMES.transfer, { from: a0!, to: a1!, value: 1n }, TX_GAS),
    success(ESTIMATE_CASE_NAMES.erc20, { from: probe.from, to: probe.token, data: transferCalldata(probe.to, 1n) }),
  ];

  const pools = fx.workload.pools;
  const swapIndex = fx.block.transactions.findIndex((tx) => !isDeposit(tx) && tx.to !== undefined && pools.some((p) => bytesEqual(p, tx.to!.bytes)));
  if (swapIndex >= 0) {
    const tx = fx.block.transactions[swapIndex]!;
    cases.push(success(ESTIMATE_CASE_NAMES.swap, { from: fx.senders[swapIndex]!, to: tx.to!.bytes, data: tx.data, value: tx.value }));
  }

  const revertName = ESTIMATE_CASE_NAMES.revert;
  const revertArgs: CallArgs = { from: EMPTY_HOLDER, to: probe.token, data: transferCalldata(probe.from, 1n) };
  const revert: MicroCase<unknown> = {
    name: revertName,
    // The error is the output: returned, so only a wrong outcome fails the case.
    run: () => exec.estimateGas(head(), revertArgs).then((g) => g, (e: unknown) => e),
    check(out) {
      expectThat(out instanceof Error, revertName, () => `estimate ${String(out)}, a revert error expected (${to0x(EMPTY_HOLDER)} holds no tokens)`);
      expectThat(/execution reverted/.test(out.message), revertName, () => `error "${out.message}", "execution reverted" expected`);
    },
  };
  cases.push(revert);
  return cases as MicroCase[];
}
