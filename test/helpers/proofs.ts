/**
 * Helpers of the historical-proofs tests:
 * - reference proofs: what the main store's `eth_getProof` path computes for a canonical block
 *   (walked down the block's tries; an older block's are the latest with the later blocks
 *   reverted, so within the kept state history), with values read from the walk (no history
 *   index), as hex strings in the EIP-1186 answer's form;
 * - {@link ProofsTraffic}: mixed traffic on a devnet node, one block at a time;
 * - {@link writeProofsMeta}: raw `meta` records written into a closed store (to corrupt it).
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, createAccountFromRLP, createAddressFromString, createContractAddress, hexToBytes, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { balanceSlot, tokenInitCode, transferCalldata } from "../../bench/workload/contracts.js";
import type { Chain } from "../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { walkKey } from "../../src/storage/trie/walk.js";
import { AtomicBatch, rocksOpen } from "../../src/proofs/rocks.js";
import { PROOFS_COLUMN_FAMILIES } from "../../src/proofs/store.js";
import { keccak256 } from "../../src/util/keccak.js";
import { rpcResult } from "./rpc.js";

/**
 * The main store's proof of `address` and `slots` at canonical block `number`: walked down the
 * block's tries (the store's path-keyed tries, with the later blocks reverted for an older block),
 * values read from the leaves walked (not the history index).
 */
export async function mainStoreProof(chain: Chain, number: bigint, address: Uint8Array, slots: Uint8Array[]) {
  const header = chain.getHeaderByHash(chain.getCanonicalHash(number)!)!;
  const tries = chain.trieSourceAt(header);
  const hashed = keccak256(address);
  const account = walkKey(tries.account, header.stateRoot, hashed);
  const acc = account.value === undefined ? undefined : createAccountFromRLP(account.value);
  const storageRoot = acc?.storageRoot ?? KECCAK256_RLP;
  const storageProof = [];
  for (const slot of slots) {
    const walk = walkKey(tries.storage(hashed), storageRoot, keccak256(slot));
    const v = walk.value === undefined ? new Uint8Array(0) : (RLP.decode(walk.value) as Uint8Array);
    storageProof.push({ value: "0x" + (v.length === 0 ? 0n : BigInt(bytesToHex(v))).toString(16), proof: walk.proof.map(bytesToHex) });
  }
  return {
    stateRoot: header.stateRoot,
    accountProof: account.proof.map(bytesToHex),
    balance: "0x" + (acc?.balance ?? 0n).toString(16),
    codeHash: bytesToHex(acc?.codeHash ?? KECCAK256_NULL),
    nonce: "0x" + (acc?.nonce ?? 0n).toString(16),
    storageHash: bytesToHex(storageRoot),
    storageProof,
  };
}

const accounts = devAccounts();
const common = commonFromGenesis(devnetGenesis());
const CHAIN_ID = 845337n;
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): Uint8Array => hexToBytes(accounts[i]!.address as `0x${string}`);
/** Initcode that self-destructs to the caller during its own creation (CALLER SELFDESTRUCT). */
const SELF_DESTRUCT_INIT = Uint8Array.of(0x33, 0xff);

/** Where {@link ProofsTraffic} hands its transactions in and how it seals the block holding them. */
export interface TrafficTarget {
  /** Takes a signed transaction (eth_sendRawTransaction, or a pool). */
  submit(raw: Uint8Array): Promise<void>;
  /** Seals a block of what was submitted (evm_mine, or the sequencer). */
  seal(): Promise<void>;
}

/** A devnet node (`--dev.block-time 0`) as a {@link TrafficTarget}: `url` is read at each call, since a restarted node may move. */
export function rpcTarget(url: () => string): TrafficTarget {
  return {
    submit: async (raw) => void (await rpcResult(url(), "eth_sendRawTransaction", [bytesToHex(raw)])),
    seal: async () => void (await rpcResult(url(), "evm_mine", [])),
  };
}

/**
 * Mixed traffic on the devnet, one block per {@link block}: ETH transfers to new accounts, an
 * ERC-20 whose balances are written and cleared, and creations that self-destruct. Keeps the
 * addresses it touched and storage slots worth proving.
 */
export class ProofsTraffic {
  /** Dev accounts 0–3, one never-funded address, then every token, recipient and creation. */
  readonly addresses: Uint8Array[] = [addr(0), addr(1), addr(2), addr(3), keccak256(Uint8Array.of(0xde, 0xad)).subarray(12)];
  /** The token balances of accounts 0–2 and a slot never written. */
  readonly slots: Uint8Array[] = [balanceSlot(addr(0)), balanceSlot(addr(1)), balanceSlot(addr(2)), new Uint8Array(32).fill(7)];
  /** The new account the last block sent ETH to. */
  lastRecipient: Uint8Array | undefined;
  private readonly nonces = accounts.map(() => 0n);
  private token: Uint8Array | undefined;
  private step = 0;

  constructor(private readonly target: TrafficTarget) {}

  /** Dev account `i`'s address. */
  static account(i: number): Uint8Array {
    return addr(i);
  }

  private async send(from: number, to: Uint8Array | undefined, data: Uint8Array, value: bigint): Promise<void> {
    const nonce = this.nonces[from]!++;
    const tx = createFeeMarket1559Tx({ chainId: CHAIN_ID, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 1_000_000n, to, data, value }, { common }).sign(key(from));
    if (to === undefined) this.addresses.push(createContractAddress(createAddressFromString(bytesToHex(addr(from))), nonce).bytes);
    await this.target.submit(tx.serialize());
  }

  /**
   * Submits (without sealing) a creation whose initcode stores BLOCKHASH(NUMBER − `back`) in its
   * slot 0: the next sealed block reads `back` blocks into the past.
   */
  async blockHashProbe(back: number): Promise<void> {
    await this.send(3, undefined, Uint8Array.of(0x60, back, 0x43, 0x03, 0x40, 0x60, 0x00, 0x55, 0x00), 0n);
  }

  /** Sets each dev account's next nonce from `nonceOf` (after the chain was unwound under the traffic). */
  async resyncNonces(nonceOf: (address: Uint8Array) => Promise<bigint>): Promise<void> {
    for (let i = 0; i < this.nonces.length; i++) this.nonces[i] = await nonceOf(addr(i));
  }

  /** One block of mixed traffic, sealed (the first deploys the token). */
  async block(): Promise<void> {
    const s = this.step++;
    if (this.token === undefined) {
      this.token = createContractAddress(createAddressFromString(bytesToHex(addr(0))), this.nonces[0]!).bytes;
      this.addresses.push(this.token);
      await this.send(0, undefined, tokenInitCode(1_000_000n), 0n);
    } else {
      const fresh = keccak256(Uint8Array.of(s & 0xff, s >> 8, 2)).subarray(12);
      this.addresses.push(fresh);
      this.lastRecipient = fresh;
      await this.send(1, fresh, new Uint8Array(0), 1000n + BigInt(s));
      await this.send(0, this.token, transferCalldata(addr(1), 10n + BigInt(s)), 0n);
      // Account 2's balance slot is written in odd steps and cleared in the next.
      if (s % 2 === 1) await this.send(0, this.token, transferCalldata(addr(2), 50n), 0n);
      else await this.send(2, this.token, transferCalldata(addr(0), 50n), 0n);
      if (s % 4 === 1) await this.send(3, undefined, SELF_DESTRUCT_INIT, 5n);
    }
    await this.target.seal();
  }
}

/** Writes raw `meta` records (by key name; null deletes) into the closed proofs store at `dir`. */
export async function writeProofsMeta(dir: string, records: Record<string, Uint8Array | null>): Promise<void> {
  const db = rocksOpen(dir, { columnFamilies: Object.values(PROOFS_COLUMN_FAMILIES) });
  await db.ready();
  const meta = db.columnFamily(PROOFS_COLUMN_FAMILIES.meta);
  const batch = new AtomicBatch(meta);
  for (const [k, v] of Object.entries(records)) {
    if (v) batch.put(meta, Buffer.from(k), v);
    else batch.delete(meta, Buffer.from(k));
  }
  await batch.commit();
  await db.close();
}
