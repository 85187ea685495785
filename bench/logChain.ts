/**
 * A devnet datadir with a long chain of log-heavy blocks, written straight through the store
 * (no EVM: the blocks carry unexecuted legacy transactions with placeholder signatures and the
 * receipts their logs; the state stays the genesis'). For eth_getLogs benches and the log index's
 * differential tests: what matters is realistic log density and key distribution.
 *
 * Each block: `txsPerBlock` transactions, each an ERC-20 transfer (60%: Transfer), an approval
 * (10%: Approval), a swap (28%: Transfer out, Transfer in, Sync, Swap at a pool) or a mint (2%:
 * Transfer + Mint at a pool): ~1.9 logs a transaction. Tokens and pools are drawn with a few hot
 * ones (30% of draws go to the first 5 tokens / 3 pools), the rest uniform; holders from a pool
 * of users. Deterministic for a seed.
 */
import { createBlockHeader } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { Chain } from "../src/blockchain/chain.js";
import { devnetGenesis } from "../src/chain/devnet.js";
import { emptyStateTries } from "../src/storage/trie/stateTries.js";
import type { StoredReceipt, Log } from "../src/storage/types.js";
import { rlpListItems } from "../src/chain/rlpFile.js";
import { keccak256 } from "../src/util/keccak.js";

/** Event signatures (topic 0). */
export const TOPICS = {
  transfer: keccak256(new TextEncoder().encode("Transfer(address,address,uint256)")),
  approval: keccak256(new TextEncoder().encode("Approval(address,address,uint256)")),
  sync: keccak256(new TextEncoder().encode("Sync(uint112,uint112)")),
  swap: keccak256(new TextEncoder().encode("Swap(address,uint256,uint256,uint256,uint256,address)")),
  mint: keccak256(new TextEncoder().encode("Mint(address,uint256,uint256)")),
};

/** Options of {@link writeLogChain}. */
export interface LogChainOptions {
  blocks: number;
  txsPerBlock: number;
  tokens: number;
  pools: number;
  users: number;
  seed: number;
  /** Blocks per LMDB write transaction. */
  batch?: number;
  onProgress?: (written: number) => void;
}

/** What the chain holds: its contracts and users (20-byte addresses). */
export interface LogChain {
  tokens: Uint8Array[];
  pools: Uint8Array[];
  users: Uint8Array[];
  head: bigint;
  logs: number;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

function addr(tag: string, i: number): Uint8Array {
  return keccak256(new TextEncoder().encode(`${tag}:${i}`)).subarray(12);
}

/** A quantity as RLP wants it: big-endian, no leading zeros (0 = empty). */
function qty(n: number): Uint8Array {
  if (n === 0) return new Uint8Array();
  const h = n.toString(16);
  return Buffer.from(h.length % 2 === 1 ? "0" + h : h, "hex");
}

function word(a: Uint8Array): Uint8Array {
  const w = new Uint8Array(32);
  w.set(a, 32 - a.length);
  return w;
}

/** Initializes `datadir` with the devnet genesis and appends `opts.blocks` log-heavy canonical blocks. */
export async function writeLogChain(datadir: string, opts: LogChainOptions): Promise<LogChain> {
  await Chain.init(datadir, devnetGenesis(), { archive: true });
  const chain = Chain.open(datadir, { archive: true });
  const r = rng(opts.seed);
  const tokens = Array.from({ length: opts.tokens }, (_, i) => addr("token", i));
  const pools = Array.from({ length: opts.pools }, (_, i) => addr("pool", i));
  const users = Array.from({ length: opts.users }, (_, i) => addr("user", i));
  const pick = <T>(xs: T[], hot: number): T => (r() < 0.3 ? xs[Math.floor(r() * Math.min(hot, xs.length))]! : xs[Math.floor(r() * xs.length)]!);
  // Topic words built once per address, so the bloom bits below are computed once per item.
  const userWords = users.map(word);
  const poolWords = pools.map(word);
  const zeroWord = word(new Uint8Array(20));
  const bits = new Map<Uint8Array, number[]>();
  const setBits = (bloom: Uint8Array, item: Uint8Array): void => {
    let b = bits.get(item);
    if (b === undefined) {
      const h = keccak256(item);
      b = [0, 2, 4].map((i) => ((h[i]! << 8) | h[i + 1]!) & 2047);
      bits.set(item, b);
    }
    for (const bit of b) bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
  };
  const amount = (): Uint8Array => word(Buffer.from(Math.floor(r() * 2 ** 48).toString(16).padStart(12, "0"), "hex"));
  let parent = chain.head;
  const stateRoot = parent.header.stateRoot;
  const base = parent.header.toJSON();
  let nonce = 0;
  let total = 0;
  const batch = opts.batch ?? 200;
  try {
    for (let first = 1; first <= opts.blocks; first += batch) {
      const last = Math.min(first + batch - 1, opts.blocks);
      chain.store.root.transactionSync(() => {
        for (let n = first; n <= last; n++) {
          const txs: Uint8Array[][] = [];
          const receipts: StoredReceipt[] = [];
          const bloom = new Uint8Array(256);
          let gas = 0n;
          for (let t = 0; t < opts.txsPerBlock; t++) {
            const k = r();
            const ui = r() < 0.3 ? Math.floor(r() * Math.min(50, users.length)) : Math.floor(r() * users.length);
            const from = userWords[ui]!;
            const other = (): Uint8Array => pick(userWords, 50);
            const logs: Log[] = [];
            if (k < 0.6) {
              logs.push({ address: pick(tokens, 5), topics: [TOPICS.transfer, from, other()], data: amount() });
            } else if (k < 0.7) {
              logs.push({ address: pick(tokens, 5), topics: [TOPICS.approval, from, pick(poolWords, 3)], data: amount() });
            } else if (k < 0.98) {
              const pi = r() < 0.3 ? Math.floor(r() * Math.min(3, pools.length)) : Math.floor(r() * pools.length);
              const pool = pools[pi]!;
              logs.push({ address: pick(tokens, 5), topics: [TOPICS.transfer, poolWords[pi]!, from], data: amount() });
              logs.push({ address: pick(tokens, 5), topics: [TOPICS.transfer, from, poolWords[pi]!], data: amount() });
              logs.push({ address: pool, topics: [TOPICS.sync], data: Buffer.concat([amount(), amount()]) });
              logs.push({ address: pool, topics: [TOPICS.swap, from, from], data: Buffer.concat([amount(), amount(), amount(), amount()]) });
            } else {
              const pool = pick(pools, 3);
              logs.push({ address: pool, topics: [TOPICS.transfer, zeroWord, from], data: amount() });
              logs.push({ address: pool, topics: [TOPICS.mint, from], data: Buffer.concat([amount(), amount()]) });
            }
            gas += 60_000n;
            const to = logs[0]!.address;
            // Legacy transaction with a placeholder signature (v 27, r = s = 1): decodable, never executed.
            txs.push([qty(nonce), Buffer.from([1]), Buffer.from([0xea, 0x60]), to, new Uint8Array(), keccak256(Buffer.from(`${n}:${t}`)).subarray(0, 4 + (t % 64)), Buffer.from([27]), Buffer.from([1]), Buffer.from([1])]);
            nonce++;
            receipts.push({ type: 0, status: 1, cumulativeGasUsed: gas, logs, bloom: new Uint8Array(256) });
            for (const l of logs) {
              setBits(bloom, l.address);
              for (const t of l.topics) setBits(bloom, t);
            }
            total += logs.length;
          }
          const timestamp = parent.header.timestamp + 2n;
          const header = createBlockHeader(
            { ...base, parentHash: parent.hash(), number: BigInt(n), timestamp, logsBloom: bloom, gasUsed: gas },
            { common: chain.commonAt(BigInt(n), timestamp), skipConsensusFormatValidation: true },
          );
          const hash = header.hash();
          const body = RLP.encode([txs, [], []] as never);
          chain.store.commitBlock(
            {
              hash,
              number: BigInt(n),
              headerRlp: header.serialize(),
              bodyRlp: body,
              senders: txs.map(() => new Uint8Array(20)),
              receipts,
              txHashes: rlpListItems(rlpListItems(body)[0]!.bytes).map((t) => keccak256(t.bytes)),
              canonical: true,
              accountChanges: [],
              storageChanges: [],
              code: new Map(),
              parentStateRoot: stateRoot,
              stateRoot,
              tries: emptyStateTries(),
            },
            { head: hash },
          );
          parent = { header, hash: () => hash } as unknown as typeof parent;
        }
      });
      opts.onProgress?.(last);
    }
  } finally {
    await chain.close();
  }
  return { tokens, pools, users, head: BigInt(opts.blocks), logs: total };
}
