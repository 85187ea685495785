/**
 * Checks a proofs store against the main chain it serves (`basalt snapshot export` before it
 * writes a store into a snapshot, `basalt snapshot import` before it puts one in place):
 *
 * - the window is set, its latest block is at or below the chain's head, and the hashes the store
 *   records for its earliest and latest blocks are the chain's canonical hashes;
 * - at each end of the window, the proofs of a few accounts ({@link PROOFS_CHECK_ACCOUNTS}: the
 *   block's coinbase, the fee vaults and L1Block, then its senders and recipients) and of their
 *   storage slot 0 are walked from the store and checked against the header's state root: by the
 *   walk itself (every node against its parent's reference, `proofs/proof.ts`) and again by
 *   @ethereumjs/mpt's `verifyMerkleProof`.
 *
 * The chain id and genesis hash are checked by {@link ProofsStore.open}.
 */
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP, hexToBytes } from "@ethereumjs/util";
import type { Chain } from "../blockchain/chain.js";
import { BASE_FEE_VAULT_ADDRESS, L1_BLOCK_ADDRESS, L1_FEE_VAULT_ADDRESS } from "../chain/op/predeploys.js";
import { PROOFS_CHECK_ACCOUNTS } from "./constants.js";
import { bytesEqual, to0x } from "../util/bytes.js";
import { keccak256 } from "../util/keccak.js";
import { chainMismatch } from "./errors.js";
import { accountProof } from "./proof.js";
import type { ProofsStore } from "./store.js";
import type { BlockRef } from "./types.js";

/** Accounts every OP block writes: fee vaults and the L1 attributes contract. */
const OP_ACCOUNTS: readonly Uint8Array[] = [BASE_FEE_VAULT_ADDRESS, L1_FEE_VAULT_ADDRESS, L1_BLOCK_ADDRESS].map((a) => hexToBytes(a as `0x${string}`));
/** The storage slot proven of each account. */
const SLOT_ZERO = new Uint8Array(32);

/** What {@link checkAgainstChain} checked. */
interface ProofsCheck {
  earliest: BlockRef;
  latest: BlockRef;
  /** Account proofs walked and verified, both ends together. */
  accounts: number;
}

/**
 * Checks `store` against `chain` (module comment); throws PROOFS_CHAIN_MISMATCH saying what
 * disagrees: the window, an end's hash, or the proof that does not verify (block, account, why).
 */
export async function checkAgainstChain(store: ProofsStore, chain: Chain): Promise<ProofsCheck> {
  const { earliest, latest } = store.window();
  if (earliest === undefined || latest === undefined) throw chainMismatch(store.dir, "it has no window: its baseline was never committed");
  const head = chain.refreshHeadHeader().header.number;
  if (latest.number > head) throw chainMismatch(store.dir, `its window ends at block ${latest.number}, above the chain's head ${head}: expected at most the head`);
  let accounts = 0;
  for (const [end, ref] of [
    ["earliest", earliest],
    ["latest", latest],
  ] as const) {
    const canonical = chain.getCanonicalHash(ref.number);
    if (canonical === undefined || !bytesEqual(canonical, ref.hash)) {
      throw chainMismatch(
        store.dir,
        `its ${end} block ${ref.number} is ${to0x(ref.hash)}, the chain's block ${ref.number} is ${canonical === undefined ? "missing" : to0x(canonical)}: expected the same block`,
      );
    }
    accounts += await checkProofsAt(store, chain, ref);
  }
  return { earliest, latest, accounts };
}

/** Walks and verifies the proofs of the accounts of block `ref` against its state root; returns how many. */
async function checkProofsAt(store: ProofsStore, chain: Chain, ref: BlockRef): Promise<number> {
  const header = chain.getHeaderByHash(ref.hash);
  if (header === undefined) throw chainMismatch(store.dir, `the chain has no header for block ${ref.number} ${to0x(ref.hash)}`);
  const addresses = accountsOf(chain, ref.hash, header.coinbase.bytes);
  for (const address of addresses) {
    const fail = (why: string): never => {
      throw chainMismatch(store.dir, `the proof of account ${to0x(address)} at block ${ref.number} does not verify against its state root ${to0x(header.stateRoot)}: ${why}`);
    };
    const p = await accountProof(
      (path) => store.node({ kind: "account" }, path, ref.number),
      (hashedAddress) => (path) => store.node({ kind: "storage", hashedAddress }, path, ref.number),
      header.stateRoot,
      address,
      [SLOT_ZERO],
    ).catch((e: unknown) => fail((e as Error).message));
    // Again, independently of the walk: @ethereumjs/mpt rebuilds the path from the proof's nodes and the state root.
    const leaf = await verifyMerkleProof(keccak256(address), p.accountProof, { root: header.stateRoot }).catch((e: unknown) => fail(`@ethereumjs/mpt: ${(e as Error).message}`));
    const storageRoot = leaf === null ? KECCAK256_RLP : (RLP.decode(leaf) as Uint8Array[])[2];
    if (storageRoot === undefined || !bytesEqual(storageRoot, p.storageRoot)) fail(`the account's leaf names storage root ${to0x(storageRoot ?? new Uint8Array(0))}, the walk ${to0x(p.storageRoot)}`);
    if (!bytesEqual(p.storageRoot, KECCAK256_RLP)) {
      await verifyMerkleProof(keccak256(SLOT_ZERO), p.storageProof[0]!.proof, { root: p.storageRoot }).catch((e: unknown) =>
        fail(`storage slot 0 under storage root ${to0x(p.storageRoot)}: @ethereumjs/mpt: ${(e as Error).message}`),
      );
    }
  }
  return addresses.length;
}

/** The block's coinbase, the OP accounts, then its senders and recipients: distinct, at most {@link PROOFS_CHECK_ACCOUNTS}. */
function accountsOf(chain: Chain, hash: Uint8Array, coinbase: Uint8Array): Uint8Array[] {
  const out = new Map<string, Uint8Array>();
  const add = (a: Uint8Array | undefined): void => {
    if (a !== undefined && out.size < PROOFS_CHECK_ACCOUNTS) out.set(to0x(a), a);
  };
  add(coinbase);
  OP_ACCOUNTS.forEach(add);
  chain.getSenders(hash).forEach(add);
  for (const tx of chain.getBlockByHash(hash)?.transactions ?? []) add(tx.to?.bytes);
  return [...out.values()];
}
