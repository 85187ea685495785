/**
 * Helpers of the fault tests: a continuous transaction load on a devnet node (signed EIP-1559
 * transfers between the dev accounts, with the receipts the node acknowledged), and the checks a
 * restarted node must pass (chain linked back to genesis, acknowledged receipts still in place,
 * the head state provable against the head's state root and equal to the flat state).
 */
import type { Common } from "@ethereumjs/common";
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToBigInt, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { pollUntil, settle } from "../helpers/poll.js";
import { rpcCall, rpcResult, type Json } from "../helpers/rpc.js";

/** Devnet chain id 845337 ("8453" + "37"). */
export const DEVNET_CHAIN_ID = 845337n;
/** Fee caps far above the devnet base fee (≈1 gwei at genesis, falling when blocks are empty). */
const MAX_FEE_PER_GAS = 10_000_000_000n;
const MAX_PRIORITY_FEE_PER_GAS = 1_000_000_000n;
/** Intrinsic gas of a plain transfer. */
const TRANSFER_GAS = 21_000n;
/** Per-request timeout of the load's own RPC calls: short, a killed node must not stall the load. */
const LOAD_RPC_TIMEOUT_MS = 2_000;
/** Receipts fetched per poll of the acknowledgement tracker (bounds each poll's work). */
const RECEIPT_POLL_BATCH = 64;

const common: Common = commonFromGenesis(devnetGenesis(), "devnet");

/** A receipt the node returned: the block it was in. */
export interface AckedReceipt {
  blockHash: string;
  blockNumber: bigint;
}

/** Options of {@link TxLoad}. */
export interface TxLoadOptions {
  /** transfers sent per second (all accounts together) */
  txPerSecond: number;
  /** dev accounts used as senders (default all ten) */
  accounts?: number;
}

/**
 * Sends signed transfers to a node at a fixed rate until {@link stop}; polls their receipts and
 * records the acknowledged ones. Survives the node going away (errors are counted, nonces are
 * re-read from the node after a failure), so it can run across kills and restarts; point it at a
 * new URL with {@link setUrl}.
 */
export class TxLoad {
  /** tx hash → the receipt's block, for every receipt the node returned */
  readonly acked = new Map<string, AckedReceipt>();
  /** highest block number seen in an acknowledged receipt or eth_blockNumber answer */
  highestSeen = 0n;
  sent = 0;
  sendErrors = 0;
  private readonly pending = new Set<string>();
  private readonly keys: Uint8Array[];
  private readonly addresses: string[];
  private readonly nonces: (bigint | undefined)[];
  private running = false;
  private loops: Promise<void>[] = [];
  private next = 0;

  constructor(private url: string, private readonly opts: TxLoadOptions) {
    const accts = devAccounts().slice(0, opts.accounts ?? 10);
    this.keys = accts.map((a) => hexToBytes(a.privateKey as `0x${string}`));
    this.addresses = accts.map((a) => a.address);
    this.nonces = accts.map(() => undefined);
  }

  /** Points the load at another URL (a restarted node) and forgets cached nonces. */
  setUrl(url: string): void {
    this.url = url;
    this.nonces.fill(undefined);
  }

  /** Starts the send and receipt loops. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = [this.sendLoop(), this.receiptLoop()];
  }

  /** Stops both loops and waits for them. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** Number of transactions sent but not yet acknowledged by a receipt. */
  get unacknowledged(): number {
    return this.pending.size;
  }

  private async sendLoop(): Promise<void> {
    const intervalMs = 1000 / this.opts.txPerSecond;
    let due = performance.now();
    while (this.running) {
      await this.sendOne();
      due += intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await settle(wait, "the load's pace: the next transfer is due then");
      else if (wait < -1000) due = performance.now();
    }
  }

  /** Sends `n` transfers back to back (round-robin over the accounts), e.g. to fill blocks mined on demand. */
  async burst(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.sendOne();
  }

  private async sendOne(): Promise<void> {
    const i = this.next++ % this.keys.length;
    try {
      let nonce = this.nonces[i];
      if (nonce === undefined) {
        nonce = BigInt((await rpcResult(this.url, "eth_getTransactionCount", [this.addresses[i] as string, "pending"], { timeoutMs: LOAD_RPC_TIMEOUT_MS })) as string);
      }
      const to = this.addresses[(i + 1) % this.addresses.length] as `0x${string}`;
      const tx = createFeeMarket1559Tx(
        { chainId: DEVNET_CHAIN_ID, nonce, maxFeePerGas: MAX_FEE_PER_GAS, maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS, gasLimit: TRANSFER_GAS, to, value: 1n + BigInt(this.sent) },
        { common },
      ).sign(this.keys[i] as Uint8Array);
      const raw = `0x${Buffer.from(tx.serialize()).toString("hex")}`;
      const res = await rpcCall(this.url, "eth_sendRawTransaction", [raw], { timeoutMs: LOAD_RPC_TIMEOUT_MS });
      if (res.error !== undefined) throw new Error(res.error.message);
      this.nonces[i] = nonce + 1n;
      this.pending.add(res.result as string);
      this.sent++;
    } catch {
      this.sendErrors++;
      this.nonces[i] = undefined;
    }
  }

  private async receiptLoop(): Promise<void> {
    while (this.running) {
      await this.pollReceipts();
      await settle(200, "the pace of the receipt sweeps while the load runs");
    }
  }

  /** Fetches the receipts of up to RECEIPT_POLL_BATCH unacknowledged transactions (one batch request). */
  async pollReceipts(): Promise<void> {
    const hashes = [...this.pending].slice(0, RECEIPT_POLL_BATCH);
    if (hashes.length === 0) return;
    const body = JSON.stringify(hashes.map((h, id) => ({ jsonrpc: "2.0", id, method: "eth_getTransactionReceipt", params: [h] })));
    try {
      const res = await fetch(this.url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(LOAD_RPC_TIMEOUT_MS) });
      const answers = (await res.json()) as { id: number; result?: { blockHash: string; blockNumber: string } | null }[];
      for (const a of answers) {
        const r = a.result;
        const h = hashes[a.id];
        if (r === undefined || r === null || h === undefined) continue;
        const n = BigInt(r.blockNumber);
        this.acked.set(h, { blockHash: r.blockHash, blockNumber: n });
        this.pending.delete(h);
        if (n > this.highestSeen) this.highestSeen = n;
      }
    } catch {
      // node down: retried on the next poll
    }
  }

  /** Forgets unacknowledged transactions (a crash may have dropped them with the mempool). */
  forgetPending(): void {
    this.pending.clear();
  }
}

/** Hex quantity of a bigint. */
export function hexQ(n: bigint): string {
  return `0x${n.toString(16)}`;
}

/**
 * Checks that every canonical block 0..head is served and links to its predecessor
 * (parentHash = previous hash): the restarted store holds a complete chain. Returns the head.
 */
export async function checkChainLinked(url: string, fromBlock = 0n): Promise<{ head: bigint; hashes: Map<bigint, string> }> {
  const head = BigInt((await rpcResult(url, "eth_blockNumber")) as string);
  const hashes = new Map<bigint, string>();
  let prev: string | undefined;
  const BATCH = 100;
  for (let start = fromBlock; start <= head; start += BigInt(BATCH)) {
    const nums: bigint[] = [];
    for (let n = start; n <= head && n < start + BigInt(BATCH); n++) nums.push(n);
    const body = JSON.stringify(nums.map((n, id) => ({ jsonrpc: "2.0", id, method: "eth_getBlockByNumber", params: [hexQ(n), false] })));
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(10_000) });
    const answers = ((await res.json()) as { id: number; result: { hash: string; parentHash: string; number: string } | null }[]).sort((a, b) => a.id - b.id);
    for (const a of answers) {
      const n = nums[a.id] as bigint;
      if (a.result === null) throw new Error(`block ${n} (≤ head ${head}) is missing`);
      if (BigInt(a.result.number) !== n) throw new Error(`block ${n}: answered number ${a.result.number}`);
      if (prev !== undefined && a.result.parentHash !== prev) throw new Error(`block ${n}: parentHash ${a.result.parentHash} != hash of block ${n - 1n} ${prev}`);
      prev = a.result.hash;
      hashes.set(n, a.result.hash);
    }
  }
  return { head, hashes };
}

/**
 * Checks that every acknowledged receipt is still served with the same block hash.
 * Returns the number checked.
 */
export async function checkAckedReceipts(url: string, acked: Map<string, AckedReceipt>): Promise<number> {
  const entries = [...acked];
  for (let i = 0; i < entries.length; i += 100) {
    const slice = entries.slice(i, i + 100);
    const body = JSON.stringify(slice.map(([h], id) => ({ jsonrpc: "2.0", id, method: "eth_getTransactionReceipt", params: [h] })));
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(10_000) });
    const answers = (await res.json()) as { id: number; result: { blockHash: string } | null }[];
    for (const a of answers) {
      const [h, want] = slice[a.id] as [string, AckedReceipt];
      if (a.result === null) throw new Error(`acknowledged receipt of ${h} (block ${want.blockNumber}) is gone`);
      if (a.result.blockHash !== want.blockHash) throw new Error(`receipt of ${h}: block ${a.result.blockHash}, acknowledged in ${want.blockHash}`);
    }
  }
  return entries.length;
}

/**
 * Verifies the head state: for each dev account, `eth_getProof` at the head (a walk of the state
 * trie from the head block's stateRoot) must verify against that root, and the proven nonce and
 * balance must equal `eth_getBalance`/`eth_getTransactionCount` (answered from the flat state).
 * A torn write would leave either a missing trie node or flat state that differs from the trie.
 */
export async function checkHeadState(url: string): Promise<{ number: bigint; stateRoot: string }> {
  const block = (await rpcResult(url, "eth_getBlockByNumber", ["latest", false])) as { number: string; stateRoot: string };
  const tag = block.number;
  const root = hexToBytes(block.stateRoot as `0x${string}`);
  for (const a of devAccounts()) {
    const proof = (await rpcResult(url, "eth_getProof", [a.address, [], tag])) as { accountProof: string[]; balance: string; nonce: string };
    const nodes = proof.accountProof.map((p) => hexToBytes(p as `0x${string}`));
    const first = nodes[0];
    if (first === undefined || !Buffer.from(keccak_256(first)).equals(Buffer.from(root))) {
      throw new Error(`eth_getProof(${a.address}) at block ${tag}: the proof does not start at the state root ${block.stateRoot}`);
    }
    const value = await verifyMerkleProof(keccak_256(hexToBytes(a.address as `0x${string}`)), nodes);
    if (value === null) throw new Error(`eth_getProof(${a.address}) at block ${tag}: proof of absence for a prefunded account`);
    const [nonce, balance] = RLP.decode(value) as Uint8Array[];
    const flatBalance = BigInt((await rpcResult(url, "eth_getBalance", [a.address, tag])) as string);
    const flatNonce = BigInt((await rpcResult(url, "eth_getTransactionCount", [a.address, tag])) as string);
    if (bytesToBigInt(balance as Uint8Array) !== flatBalance || bytesToBigInt(nonce as Uint8Array) !== flatNonce) {
      throw new Error(
        `${a.address} at block ${tag}: trie says nonce ${bytesToBigInt(nonce as Uint8Array)} balance ${bytesToBigInt(balance as Uint8Array)}, ` +
          `flat state says nonce ${flatNonce} balance ${flatBalance}`,
      );
    }
  }
  return { number: BigInt(block.number), stateRoot: block.stateRoot };
}

/** Polls until the node's block number exceeds `after` (or throws after `timeoutMs`). */
export async function waitForBlockAbove(url: string, after: bigint, timeoutMs: number): Promise<bigint> {
  return pollUntil(`a block above ${after}`, timeoutMs, async () => {
    try {
      const n = BigInt((await rpcResult(url, "eth_blockNumber", [], { timeoutMs: 2000 })) as string);
      return n > after ? n : undefined;
    } catch {
      return undefined; // not up yet
    }
  }, 200);
}

/** Seeded PRNG (mulberry32): reproducible "random" delays for the fault tests. */
export { seededRandom } from "../helpers/random.js";

/** The JSON value type of the RPC helpers (re-exported for the fault tests). */
export type { Json };
