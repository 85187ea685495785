/**
 * Deterministic mixed traffic for in-process devnet chains (tests of the proofs store and of
 * execution witnesses): ETH transfers to new accounts, an ERC-20 deployment and transfers that
 * write and clear storage, creations that self-destruct, and creations that read BLOCKHASH.
 * Transactions go to a real {@link TxPool}; the caller seals blocks.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, createContractAddress, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import type { Chain } from "../../src/blockchain/chain.js";
import { devAccounts } from "../../src/chain/devnet.js";
import type { TxPool } from "../../src/txpool/txpool.js";
import { keccak256 } from "../../src/util/keccak.js";
import { balanceSlot, tokenInitCode, transferCalldata } from "../../bench/workload/contracts.js";

const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): Uint8Array => hexToBytes(accounts[i]!.address as `0x${string}`);
/** Initcode that self-destructs to the caller during its own creation (CALLER SELFDESTRUCT). */
export const SELF_DESTRUCT_INIT = Uint8Array.of(0x33, 0xff);

/** A deterministic traffic generator over the devnet's dev accounts. */
export class Traffic {
  private readonly nonces = accounts.map(() => 0n);
  readonly addresses: Uint8Array[] = [];
  readonly slots: Uint8Array[] = [];
  token: Uint8Array | undefined;
  private step = 0;

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
  ) {
    for (let i = 0; i < 4; i++) this.addresses.push(addr(i));
  }

  private async send(from: number, to: Uint8Array | undefined, data: Uint8Array, value: bigint): Promise<void> {
    const common = this.chain.commonAt(this.chain.head.header.number + 1n, this.chain.head.header.timestamp + 1n);
    const nonce = this.nonces[from]!++;
    const tx = createFeeMarket1559Tx({ chainId: this.chain.chainId, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 1_000_000n, to, data, value }, { common }).sign(key(from));
    if (to === undefined) this.addresses.push(createContractAddress(createAddressFromString(bytesToHex(addr(from))), nonce).bytes);
    await this.pool.addRaw(tx.serialize());
  }

  /** One block's worth of transactions. */
  async block(): Promise<void> {
    const s = this.step++;
    if (this.token === undefined) {
      this.token = createContractAddress(createAddressFromString(bytesToHex(addr(0))), this.nonces[0]!).bytes;
      await this.send(0, undefined, tokenInitCode(1_000_000n), 0n);
      this.slots.push(balanceSlot(addr(0)), balanceSlot(addr(1)), balanceSlot(addr(2)), new Uint8Array(32).fill(7));
      return;
    }
    // A transfer to a new account; token moves: account 1's balance only grows, account 2 receives
    // 50 in odd steps and sends it back in the next (its slot is written, then cleared).
    const fresh = keccak256(Uint8Array.of(s, 1)).subarray(12);
    this.addresses.push(fresh);
    await this.send(1, fresh, new Uint8Array(0), 1000n + BigInt(s));
    await this.send(0, this.token, transferCalldata(addr(1), 10n + BigInt(s)), 0n);
    if (s % 2 === 1) await this.send(0, this.token, transferCalldata(addr(2), 50n), 0n);
    else await this.send(2, this.token, transferCalldata(addr(0), 50n), 0n);
    if (s % 4 === 1) await this.send(3, undefined, SELF_DESTRUCT_INIT, 5n);
  }

  /** A creation whose initcode stores BLOCKHASH(NUMBER − `back`) in its slot 0 (a read `back` blocks into the past). */
  async blockHashProbe(back: number): Promise<void> {
    await this.send(3, undefined, Uint8Array.of(0x60, back, 0x43, 0x03, 0x40, 0x60, 0x00, 0x55, 0x00), 0n);
  }
}
