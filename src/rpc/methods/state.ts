/**
 * Account and storage state at a block: eth_getBalance, eth_getTransactionCount, eth_getCode,
 * eth_getStorageAt, eth_getStorageValues, eth_getProof, and reth's eth_getAccount and
 * eth_getAccountInfo. Reads come from flat state (latest)
 * or the history index (older blocks), never from a trie walk — except eth_getProof, which
 * walks the tries of the block's state by definition (the store's for the head, with the later
 * blocks reverted for an older block: storage/stateRevert.ts).
 *
 * With the `pending` tag and a pending snapshot, reads see the pre-confirmed state (the
 * snapshot's diff over the head state); eth_getProof answers `pending` from `latest` (there is
 * no pending trie). Without a snapshot, `pending` is `latest`.
 */
import { keccak256 } from "../../util/keccak.js";
import { KECCAK256_NULL, KECCAK256_RLP, equalsBytes } from "@ethereumjs/util";
import { walkKey } from "../../storage/trie/walk.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveStateBlock } from "../blockParam.js";
import { InvalidParamsError } from "../errors.js";
import { toData, toFixedData, toQuantity } from "../../chain/json/quantity.js";
import { parseAddress } from "../hexParams.js";
import { maxParams, parseStorageKey, required } from "../params.js";
import type { MethodTable } from "../types.js";
import type { StateReader } from "../../execution/state/stateReader.js";
import { pendingFor, pendingState, positionFor } from "./pending.js";
import { PendingStateReader } from "../../flashblocks/pendingView.js";
import { MAX_STORAGE_VALUES_KEYS, PROOFS_MAX_KEYS } from "../constants.js";

function word(v: Uint8Array): string {
  return toFixedData(v.length === 0 ? 0n : BigInt("0x" + Buffer.from(v).toString("hex")), 32);
}

/** Handlers of the state family. */
export function stateMethods(b: RpcBackend): MethodTable {
  const { chain } = b;
  /** The state named by the block parameter at `params[index]`, for `method`; `pending` is the pre-confirmed state when there is one. */
  const stateFor = (method: string, params: unknown[], index: number): { state: StateReader; pending: boolean } => {
    const p = parseBlockParam(params[index], index, { allowHash: true, allowFlashblock: true, optional: true });
    if (p.kind === "flashblock") {
      // As of a flashblock: that point's state, without the mempool (a point in the block, not "pending now").
      const answer = positionFor(b, method, p);
      if (answer.kind === "pending") return { state: new PendingStateReader(chain.stateAt(chain.head.header), answer.at.state), pending: false };
    }
    if (isPendingParam(p)) {
      const s = pendingFor(b, method);
      if (s !== undefined) return { state: pendingState(b, s), pending: true };
    }
    const block = resolveStateBlock(chain, p);
    return { state: chain.stateAt(block.header), pending: isPendingParam(p) };
  };

  return {
    /** eth_getBalance(address, block) */
    eth_getBalance: (params) => {
      maxParams(params, 2);
      const addr = parseAddress(required(params, 0), 0);
      return toQuantity(stateFor("eth_getBalance", params, 1).state.account(addr)?.balance ?? 0n);
    },
    /**
     * eth_getTransactionCount(address, block). `pending`: the larger of the pre-confirmed nonce
     * and this node's mempool nonce (the reference node counts pre-confirmed transactions only).
     */
    eth_getTransactionCount: (params) => {
      maxParams(params, 2);
      const addr = parseAddress(required(params, 0), 0);
      const { state, pending } = stateFor("eth_getTransactionCount", params, 1);
      const nonce = state.account(addr)?.nonce ?? 0n;
      if (pending) {
        const p = b.pool.pendingNonce(addr);
        if (p !== undefined && p > nonce) return toQuantity(p);
      }
      return toQuantity(nonce);
    },
    /** eth_getCode(address, block) */
    eth_getCode: (params) => {
      maxParams(params, 2);
      const addr = parseAddress(required(params, 0), 0);
      const { state } = stateFor("eth_getCode", params, 1);
      const acc = state.account(addr);
      if (acc === undefined || equalsBytes(acc.codeHash, KECCAK256_NULL)) return "0x";
      return toData(state.code(acc.codeHash) ?? new Uint8Array());
    },
    /** eth_getStorageAt(address, key, block) */
    eth_getStorageAt: (params) => {
      maxParams(params, 3);
      const addr = parseAddress(required(params, 0), 0);
      const key = parseStorageKey(required(params, 1));
      return word(stateFor("eth_getStorageAt", params, 2).state.storage(addr, key));
    },
    /** eth_getStorageValues({address: [keys]}, block) */
    eth_getStorageValues: (params) => {
      maxParams(params, 2);
      const req = required(params, 0);
      if (typeof req !== "object" || req === null || Array.isArray(req)) throw new InvalidParamsError("invalid argument 0: object of address to storage keys expected");
      const entries = Object.entries(req as Record<string, unknown>);
      if (entries.length === 0) throw new InvalidParamsError("empty request");
      let total = 0;
      const parsed = entries.map(([a, keys]) => {
        if (!Array.isArray(keys)) throw new InvalidParamsError(`invalid argument 0: storage keys of ${a} must be an array`);
        total += keys.length;
        return { a, addr: parseAddress(a, 0), keys: keys.map((k) => parseStorageKey(k)) };
      });
      if (total > MAX_STORAGE_VALUES_KEYS) throw new InvalidParamsError(`too many storage keys requested (max ${MAX_STORAGE_VALUES_KEYS}, got ${total})`);
      const { state } = stateFor("eth_getStorageValues", params, 1);
      const out: Record<string, string[]> = {};
      for (const { a, addr, keys } of parsed) out[a.toLowerCase()] = keys.map((k) => word(state.storage(addr, k)));
      return out;
    },
    /**
     * eth_getAccount(address, block) (reth): the account as the trie holds it — nonce, balance,
     * storageRoot, codeHash in reth's key order — or null when it does not exist. The block is
     * required and, as eth_getProof, within `--rpc.eth-proof-window`; `pending` answers from
     * `latest` (the pre-confirmed state has no storage roots).
     */
    eth_getAccount: (params) => {
      maxParams(params, 2);
      const addr = parseAddress(required(params, 0), 0);
      const block = resolveStateBlock(chain, parseBlockParam(required(params, 1), 1, { allowHash: true }));
      const window = b.settings.ethProofWindow ?? 0;
      if (b.proofs === undefined && window > 0 && chain.head.header.number - block.header.number > BigInt(window)) {
        throw new InvalidParamsError("distance to target block exceeds maximum proof window");
      }
      const acc = chain.stateAt(block.header).account(addr);
      if (acc === undefined) return null;
      return { nonce: toQuantity(acc.nonce), balance: toQuantity(acc.balance), storageRoot: toData(acc.storageRoot), codeHash: toData(acc.codeHash) };
    },
    /**
     * eth_getAccountInfo(address, block) (reth, anvil): balance, nonce and code in one answer;
     * an absent account answers zeros and empty code. `pending` reads the pre-confirmed state.
     */
    eth_getAccountInfo: (params) => {
      maxParams(params, 2);
      const addr = parseAddress(required(params, 0), 0);
      const { state } = stateFor("eth_getAccountInfo", params, 1);
      const acc = state.account(addr);
      const code = acc === undefined || equalsBytes(acc.codeHash, KECCAK256_NULL) ? new Uint8Array() : (state.code(acc.codeHash) ?? new Uint8Array());
      return { balance: toQuantity(acc?.balance ?? 0n), nonce: toQuantity(acc?.nonce ?? 0n), code: toData(code) };
    },
    /** eth_getProof(address, keys, block): EIP-1186 account and storage proofs. */
    eth_getProof: async (params) => {
      maxParams(params, 3);
      const addr = parseAddress(required(params, 0), 0);
      const rawKeys = required(params, 1);
      if (!Array.isArray(rawKeys)) throw new InvalidParamsError("invalid argument 1: storage keys array expected");
      if (rawKeys.length > PROOFS_MAX_KEYS) throw new InvalidParamsError(`too many storage keys: max ${PROOFS_MAX_KEYS}, got ${rawKeys.length}`);
      const keys = rawKeys.map((k) => parseStorageKey(k));
      // `pending` answers from `latest`: the pre-confirmed state has no trie to prove against.
      const block = resolveStateBlock(chain, parseBlockParam(params[2], 2, { allowHash: true, optional: true }));
      const keyOf = (i: number): string => {
        const raw = rawKeys[i] as string;
        return raw.length === 66 ? raw.toLowerCase() : toQuantity(BigInt("0x" + Buffer.from(keys[i]!).toString("hex")));
      };
      const proofs = b.proofs;
      const n = block.header.number;
      // With the extension, the window answers: below it Base's node's error; above it (the store
      // still catching up) the main store's trie answers rather than "no state found" at `latest`.
      const latestProven = proofs?.status().latest;
      if (proofs !== undefined && latestProven !== null && latestProven !== undefined && n <= BigInt(latestProven)) {
        const p = await proofs.proof(toData(addr), keys.map(toData), n);
        return {
          address: toData(addr),
          accountProof: p.accountProof,
          balance: p.balance,
          codeHash: p.codeHash,
          nonce: p.nonce,
          storageHash: p.storageHash,
          storageProof: p.storageProof.map((s, i) => ({ key: keyOf(i), value: s.value, proof: s.proof })),
        };
      }
      const window = b.settings.ethProofWindow ?? 0;
      if (proofs === undefined && window > 0 && chain.head.header.number - n > BigInt(window)) {
        throw new InvalidParamsError("distance to target block exceeds maximum proof window");
      }
      const state = chain.stateAt(block.header);
      const tries = chain.trieSourceAt(block.header);
      const hashedAddress = keccak256(addr);
      const accountProof = walkKey(tries.account, block.header.stateRoot, hashedAddress).proof;
      const acc = state.account(addr);
      const storageRoot = acc?.storageRoot ?? KECCAK256_RLP;
      const storageTrie = tries.storage(hashedAddress);
      const storageProof = [];
      for (let i = 0; i < keys.length; i++) {
        const proof = walkKey(storageTrie, storageRoot, keccak256(keys[i]!)).proof;
        const v = state.storage(addr, keys[i]);
        storageProof.push({ key: keyOf(i), value: toQuantity(v.length === 0 ? 0n : BigInt("0x" + Buffer.from(v).toString("hex"))), proof: proof.map(toData) });
      }
      return {
        address: toData(addr),
        accountProof: accountProof.map(toData),
        balance: toQuantity(acc?.balance ?? 0n),
        codeHash: toData(acc?.codeHash ?? KECCAK256_NULL),
        nonce: toQuantity(acc?.nonce ?? 0n),
        storageHash: toData(storageRoot),
        storageProof,
      };
    },
  };
}
