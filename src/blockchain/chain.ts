/**
 * The chain: genesis, block import and execution, the canonical head and forkchoice
 * (including reorgs), and state views at any kept block. One writer (the thread that owns
 * the Chain); readers anywhere open the same LMDB store.
 */
import { createBlockHeaderFromBytesArray, type Block, type BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { rlpListItems } from "../chain/rlpFile.js";
import { keccak256 } from "../util/keccak.js";
import { KECCAK256_RLP_ARRAY, equalsBytes } from "@ethereumjs/util";
import { createVM, runBlock, type VM } from "@ethereumjs/vm";
import { existsSync } from "node:fs";
import type { SenderRecovery } from "../execution/senderRecovery.js";
import type { Logger } from "pino";
import { DEFAULT_STATE_HISTORY_BLOCKS } from "../config/constants.js";
import { BLOCK_CACHE_BLOCKS, HEADER_CACHE_HEADERS, EXECUTED_BLOCKS_KEPT, HISTORY_PRUNE_INTERVAL_BLOCKS, REVERTED_STATES_KEPT } from "./constants.js";
import { OverlayStateManager } from "../execution/state/overlayStateManager.js";
import { HistoricalStateReader, LatestStateReader, type StateReader } from "../execution/state/stateReader.js";
import { ChainStore, MetaKey, type BlockWrite } from "../storage/store.js";
import type { ReceiptAt } from "../storage/receiptCodec.js";
import type { BulkAccount, BulkLoadProgress } from "../storage/bulkLoad.js";
import { buildGenesis, initChain, initChainWithState } from "./genesisInit.js";
import { StoreTrieSource } from "../storage/stateTrieSource.js";
import { revertState, revertedSource, type RevertedState } from "../storage/stateRevert.js";
import { StateTries, type StateTrieSource } from "../storage/trie/stateTries.js";
import type { TrieSource } from "../storage/trie/source.js";
import { primeCommon } from "../chain/commonSpeedups.js";
import { LruMap } from "../util/lru.js";
import { to0x, toHex } from "../util/bytes.js";
import { opNetworkByGenesisHash, withCurrentNetworkConfig } from "../chain/op/networks.js";
import { announcedFindings } from "../chain/op/upgradeSchedule.js";
import { blockFromValues, encodeBody } from "../chain/blockCodec.js";
import { txHashOf } from "../chain/envelope.js";
import { commonFromGenesis, opConfigOf } from "../chain/chainSpec.js";
import { opForkAt, OpFork, type OpChainConfig } from "../chain/op/forks.js";
import { decodeOpExtraData, opNextBaseFee } from "../chain/op/eip1559.js";
import { createOpVM } from "../execution/op/opVm.js";
import { installEvmCaches } from "../execution/evmSpeedups.js";
import { watchRequestSystemCalls } from "../execution/systemCalls.js";
import { verifyOpBlock } from "../execution/op/opPayload.js";
import { defaultEvmEngine, type EvmEngineName } from "../execution/evm/engine.js";
import { evmFallbacksTotal } from "../execution/evm/metrics.js";
import { ChainError, ChainErrorCode } from "../chain/errors.js";
import { type GenesisJson } from "../chain/genesis.js";
import type { Log, StoredReceipt } from "../storage/types.js";
import { UnknownUpgradeGuard } from "./upgradeGuard.js";

/** Options of an opened chain. */
interface ChainOptions {
  /** Keep state history of every block (archive node). */
  archive?: boolean;
  /** Blocks of state history kept when not archive. */
  historyBlocks?: number;
  logger?: Logger;
  /** Open read-only (worker threads). */
  readOnly?: boolean;
  /** Kernel readahead on the store's map (default true; the node turns it off unless `--db.read-ahead`: see ChainStore.open). */
  readAhead?: boolean;
  /** The EVM engine blocks run on first (default: `defaultEvmEngine()`, i.e. `--evm` / `BASALT_EVM`). */
  evmEngine?: EvmEngineName;
}

/** The result of executing a block on top of its parent's state. */
export interface ExecutedBlock {
  block: Block;
  write: BlockWrite;
  gasUsed: bigint;
}

/** Listener of canonical head changes. */
export type HeadListener = (head: Block, reorged: Block[]) => void;

/** A minimal blockchain for the EVM's BLOCKHASH opcode. */
interface EvmBlockchain {
  getBlock(n: number): Promise<{ hash(): Uint8Array }>;
  /** The hash of block `n` (zero when unknown), synchronously (the fast EVM). */
  hashSync(n: bigint): Uint8Array;
  shallowCopy(): EvmBlockchain;
}

/** Converts @ethereumjs receipts to stored receipts. */
function toStoredReceipts(block: Block, receipts: unknown[]): StoredReceipt[] {
  return receipts.map((r, i) => {
    const rec = r as {
      status?: 0 | 1;
      stateRoot?: Uint8Array;
      cumulativeBlockGasUsed: bigint;
      bitvector: Uint8Array;
      logs: [Uint8Array, Uint8Array[], Uint8Array][];
    };
    const out: StoredReceipt = {
      type: block.transactions[i].type,
      cumulativeGasUsed: rec.cumulativeBlockGasUsed,
      logs: rec.logs.map(([address, topics, data]): Log => ({ address, topics, data })),
      bloom: rec.bitvector,
    };
    if (rec.stateRoot !== undefined) out.root = rec.stateRoot;
    else out.status = rec.status ?? 0;
    return out;
  });
}

/**
 * The store write of an executed block: its data, receipts and senders, and the state
 * changes, new code and trie changes the execution left in `state` (its state root computed).
 */
export function blockWriteOf(block: Block, receipts: StoredReceipt[], senders: Uint8Array[], state: OverlayStateManager): BlockWrite {
  const changes = state.changes();
  return {
    hash: block.hash(),
    number: block.header.number,
    headerRlp: block.header.serialize(),
    bodyRlp: encodeBody(block),
    senders,
    receipts,
    txHashes: block.transactions.map((tx) => txHashOf(tx)),
    canonical: true,
    accountChanges: changes.accounts,
    storageChanges: changes.storage,
    code: state.writtenCode(),
    parentStateRoot: state.base.stateRoot,
    stateRoot: block.header.stateRoot,
    tries: state.tries,
  };
}

/**
 * The chain of one datadir.
 */
export class Chain {
  readonly store: ChainStore;
  readonly genesis: GenesisJson;
  /** Template Common; copied per use. */
  readonly common: Common;
  readonly chainId: bigint;
  /** OP Stack configuration; undefined for a plain Ethereum chain. */
  readonly op: OpChainConfig | undefined;
  readonly genesisHash: Uint8Array;
  readonly archive: boolean;
  readonly historyBlocks: number;
  private readonly log: Logger | undefined;
  private readonly blocks = new LruMap<string, Block>(BLOCK_CACHE_BLOCKS);
  private readonly headers = new LruMap<string, BlockHeader>(HEADER_CACHE_HEADERS);
  /** A primed Common per hardfork name: {@link commonAt} hands out copies. */
  private readonly primedCommons = new Map<string, Common>();
  /** The head: header and hash always, the block decoded on first use (see {@link refreshHeadHeader}). */
  private headRef!: { header: BlockHeader; hash: Uint8Array; block: Block | undefined };
  private listeners: HeadListener[] = [];
  /** Sender recovery on the execution pool, when the node has one. */
  private senderRecovery: SenderRecovery | undefined;
  /** The EVM engine blocks run on first (`--evm`). */
  readonly evmEngine: EvmEngineName;
  /** A fast-engine mismatch was logged (later ones are only counted). */
  private warnedMismatch = false;
  /** Blocks executed on top of the current head but not yet canonical (Engine API), {@link EXECUTED_BLOCKS_KEPT} at most. */
  private readonly executed = new LruMap<string, ExecutedBlock>(EXECUTED_BLOCKS_KEPT);
  /**
   * Upgrades the network schedules that basalt cannot run past: every import ({@link executeBlock})
   * and every block builder asks it first (blockchain/upgradeGuard.ts). Kept in the datadir.
   */
  readonly upgrades: UnknownUpgradeGuard;

  private constructor(store: ChainStore, genesis: GenesisJson, opts: ChainOptions) {
    this.store = store;
    this.genesis = genesis;
    this.common = commonFromGenesis(genesis);
    this.chainId = this.common.chainId();
    this.op = opConfigOf(genesis);
    const gh = store.getPointer("genesis");
    if (gh === undefined) throw new ChainError(ChainErrorCode.NOT_INITIALIZED, "datadir has no genesis: run `basalt init` first");
    this.genesisHash = gh;
    this.archive = opts.archive ?? store.getMeta<boolean>(MetaKey.archive) ?? false;
    this.historyBlocks = opts.historyBlocks ?? DEFAULT_STATE_HISTORY_BLOCKS;
    this.evmEngine = opts.evmEngine ?? defaultEvmEngine();
    this.log = opts.logger?.child({ subsystem: "chain" });
    // Read-only openers (worker threads, basalt doctor) never import or build: they see what is kept, write nothing and log nothing of it.
    const load = (): string | undefined => store.getMeta<string>(MetaKey.unknownUpgrades);
    this.upgrades = new UnknownUpgradeGuard(
      opts.readOnly === true ? { store: { load, save: () => undefined } } : { logger: opts.logger, store: { load, save: (json) => store.putMetaSync(MetaKey.unknownUpgrades, json) } },
    );
    // Upgrades Base announced for a built-in network that this basalt does not implement (Denim): refused from their time on.
    const network = opNetworkByGenesisHash(to0x(gh));
    if (network !== undefined && opts.readOnly !== true) this.upgrades.report("announced", announcedFindings(network.announcedUpgrades));
    const head = store.getPointer("head") ?? gh;
    const hb = this.getBlockByHash(head);
    if (hb === undefined) throw new ChainError(ChainErrorCode.UNKNOWN_BLOCK, `head block ${to0x(head)} missing from the store`);
    this.headBlock = hb;
  }

  private get headBlock(): Block {
    const ref = this.headRef;
    if (ref.block === undefined) {
      const b = this.getBlockByHash(ref.hash);
      if (b === undefined) throw new ChainError(ChainErrorCode.UNKNOWN_BLOCK, `head block ${to0x(ref.hash)} missing from the store`);
      ref.block = b;
    }
    return ref.block;
  }

  private set headBlock(b: Block) {
    this.headRef = { header: b.header, hash: b.hash(), block: b };
  }

  /** Writes a datadir's genesis from a genesis JSON: see {@link initChain}. */
  static init(datadir: string, genesisJson: unknown, opts: { archive?: boolean } = {}): Promise<{ hash: Uint8Array; created: boolean }> {
    return initChain(datadir, genesisJson, opts);
  }

  /** Writes a datadir's genesis whose state is a stream of hashed accounts: see {@link initChainWithState}. */
  static initWithState(
    datadir: string,
    genesisJson: unknown,
    accounts: Iterable<BulkAccount>,
    opts: { archive?: boolean; onProgress?: (p: BulkLoadProgress) => void } = {},
  ): Promise<{ hash: Uint8Array; stateRoot: Uint8Array; accounts: number; slots: number }> {
    return initChainWithState(datadir, genesisJson, accounts, opts);
  }

  /** The genesis block and its state write: see {@link buildGenesis}. */
  static buildGenesis(g: GenesisJson, common: Common): Promise<{ block: Block; write: BlockWrite }> {
    return buildGenesis(g, common);
  }

  /** Opens the chain of an initialized datadir. */
  static open(datadir: string, opts: ChainOptions = {}): Chain {
    if (!existsSync(datadir)) throw new ChainError(ChainErrorCode.NOT_INITIALIZED, `datadir ${datadir} does not exist: run \`basalt init\` first`);
    const store = ChainStore.open(datadir, { readOnly: opts.readOnly, readAhead: opts.readAhead });
    const gj = store.getMeta<string>(MetaKey.genesisJson);
    if (gj === undefined) {
      void store.close();
      throw new ChainError(ChainErrorCode.NOT_INITIALIZED, `datadir ${datadir} has no genesis: run \`basalt init\` first`);
    }
    const genesisHash = store.getPointer("genesis");
    const stored = JSON.parse(gj) as GenesisJson;
    return new Chain(store, genesisHash === undefined ? stored : withCurrentNetworkConfig(stored, to0x(genesisHash)), opts);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  // ---- reads --------------------------------------------------------------------------

  /** A Common set to the hardfork of (number, timestamp). */
  commonAt(number: bigint, timestamp: bigint): Common {
    const c = this.common.copy();
    c.setHardforkBy({ blockNumber: number, timestamp });
    // Priming rebuilds the parameter cache (~50 µs): once per hardfork, then a copy (a shallow
    // one, as @ethereumjs's own `copy()`: setting a hardfork on it replaces fields, never shares a change).
    const hf = c.hardfork();
    const primed = this.primedCommons.get(hf);
    if (primed !== undefined) return primed.copy();
    primeCommon(c);
    this.primedCommons.set(hf, c.copy());
    return c;
  }

  /**
   * The base fee of the block after `header` (eth_feeHistory, eth_gasPrice): OP chains use
   * their own rule (Canyon denominator, Holocene/Jovian parameters from `extraData`).
   */
  nextBaseFee(header: BlockHeader): bigint {
    if (this.op !== undefined) return opNextBaseFee(header, this.op, header.timestamp + 1n);
    return header.common.isActivatedEIP(1559) ? header.calcNextBaseFee() : 0n;
  }

  get head(): Block {
    return this.headBlock;
  }

  /** The head's header, without decoding its transactions. */
  get headHeader(): BlockHeader {
    return this.headRef.header;
  }

  /** The head's hash. */
  get headHash(): Uint8Array {
    return this.headRef.hash;
  }

  /**
   * Re-reads the head pointer written by another thread (read-only replicas in worker threads):
   * starts a fresh LMDB read transaction so the other thread's commits are visible, and
   * returns the head block.
   */
  refreshHead(): Block {
    this.refreshHeadHeader();
    return this.headBlock;
  }

  /**
   * {@link refreshHead} without decoding the head's transactions (the flashblocks worker needs
   * the head's number and hash at every new block, and its transaction hashes through
   * {@link transactionHashesOf}): the block is decoded only if {@link head} is read.
   */
  refreshHeadHeader(): { header: BlockHeader; hash: Uint8Array } {
    this.store.root.resetReadTxn();
    const hash = this.store.getPointer("head");
    if (hash !== undefined && !equalsBytes(hash, this.headRef.hash)) {
      const cached = this.blocks.get(toHex(hash));
      const header = cached?.header ?? this.getHeaderByHash(hash);
      if (header !== undefined) this.headRef = { header, hash, block: cached };
    }
    return this.headRef;
  }

  /**
   * The transaction hashes of a stored block, in order, from its body's bytes (each typed
   * transaction's envelope, each legacy one's list, hashed as they are: no transaction objects).
   */
  transactionHashesOf(hash: Uint8Array): Uint8Array[] | undefined {
    const body = this.store.getBodyRlp(hash);
    if (body === undefined) return undefined;
    // The body's first item is the transaction list: a legacy transaction is hashed as its list's
    // encoding, a typed one as its envelope (the payload of its byte-string item).
    const txs = rlpListItems(body)[0];
    if (txs === undefined) return [];
    return rlpListItems(txs.bytes).map((t) => keccak256(t.isList ? t.bytes : t.bytes.subarray(t.payloadOffset)));
  }

  /**
   * Recovers the senders of imported blocks on the execution pool (before each block executes,
   * and ahead of time through {@link SenderRecovery.prefetch}).
   */
  useSenderRecovery(recovery: SenderRecovery | undefined): void {
    this.senderRecovery = recovery;
  }

  /** Registers a head listener; returns its removal. */
  onHead(listener: HeadListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Decodes a header from its RLP with the right hardfork. */
  decodeHeader(rlp: Uint8Array): BlockHeader {
    const values = RLP.decode(rlp) as Uint8Array[];
    const number = BigInt("0x" + (toHex(values[8]) || "0"));
    const timestamp = BigInt("0x" + (toHex(values[11]) || "0"));
    return createBlockHeaderFromBytesArray(values, { common: this.commonAt(number, timestamp), skipConsensusFormatValidation: true });
  }

  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined {
    const key = toHex(hash);
    const cached = this.blocks.get(key)?.header ?? this.headers.get(key);
    if (cached !== undefined) return cached;
    const rlp = this.store.getHeaderRlp(hash);
    if (rlp === undefined) return undefined;
    const header = this.decodeHeader(rlp);
    this.headers.set(key, header);
    return header;
  }

  getBlockByHash(hash: Uint8Array): Block | undefined {
    const key = toHex(hash);
    const cached = this.blocks.get(key);
    if (cached !== undefined) return cached;
    const h = this.store.getHeaderRlp(hash);
    const b = this.store.getBodyRlp(hash);
    if (h === undefined || b === undefined) return undefined;
    const block = blockFromValues(this, [RLP.decode(h), ...(RLP.decode(b) as unknown[])]);
    this.blocks.set(key, block);
    return block;
  }

  getCanonicalHash(n: bigint): Uint8Array | undefined {
    if (n > this.headRef.header.number) return undefined;
    return this.store.getCanonicalHash(n);
  }

  getBlockByNumber(n: bigint): Block | undefined {
    const h = this.getCanonicalHash(n);
    return h === undefined ? undefined : this.getBlockByHash(h);
  }

  isCanonical(hash: Uint8Array): boolean {
    const h = this.getHeaderByHash(hash);
    if (h === undefined) return false;
    const c = this.getCanonicalHash(h.number);
    return c !== undefined && equalsBytes(c, hash);
  }

  getSenders(hash: Uint8Array): Uint8Array[] {
    return this.store.getSenders(hash) ?? [];
  }

  getReceipts(hash: Uint8Array): StoredReceipt[] | undefined {
    return this.store.getReceipts(hash);
  }

  /** Receipt `index` of block `hash` with what its JSON needs of the ones before it, decoding no other receipt (eth_getTransactionReceipt). */
  getReceiptAt(hash: Uint8Array, index: number): ReceiptAt | undefined {
    return this.store.getReceiptAt(hash, index);
  }

  /** The recovered sender of transaction `index` of block `hash`. */
  getSenderAt(hash: Uint8Array, index: number): Uint8Array | undefined {
    return this.store.getSenderAt(hash, index);
  }

  /** Pointer block (safe/finalized) or undefined. */
  pointer(name: "safe" | "finalized"): Block | undefined {
    const h = this.store.getPointer(name);
    return h === undefined ? undefined : this.getBlockByHash(h);
  }

  /** Oldest block whose state can still be read. */
  oldestStateBlock(): bigint {
    if (this.archive) return 0n;
    const floor = BigInt(String(this.store.getMeta<string>(MetaKey.historyFloor) ?? "0"));
    return floor;
  }

  /** The state after canonical block `header` (latest flat state or history). */
  stateAt(header: BlockHeader): StateReader {
    const hash = header.hash();
    if (equalsBytes(hash, this.headRef.hash)) return new LatestStateReader(this.store, header.stateRoot);
    if (!this.isCanonical(hash)) {
      throw new ChainError(ChainErrorCode.STATE_UNAVAILABLE, `state of non-canonical block ${to0x(hash)} is not available`, { number: header.number });
    }
    if (header.number < this.oldestStateBlock()) {
      throw new ChainError(
        ChainErrorCode.STATE_UNAVAILABLE,
        `missing trie node: state of block ${header.number} is pruned (history kept from block ${this.oldestStateBlock()}; run with --archive to keep all)`,
        { number: header.number },
      );
    }
    return new HistoricalStateReader(this.store, header.number, header.stateRoot);
  }

  /**
   * A fresh overlay state manager on the state after canonical block `header`: the flat state
   * (latest or historical), and its tries — the store's for the head; for an older block the
   * store's with the later blocks reverted, computed on the first trie read (a call never reads
   * the tries; a state root, a proof or a witness does).
   */
  stateManagerAt(header: BlockHeader): { state: OverlayStateManager } {
    const reader = this.stateAt(header);
    if (equalsBytes(header.hash(), this.headRef.hash)) return { state: this.overlayOn(reader) };
    const source = this.lazyHistoricalTries(header);
    const tries = new StateTries(source.tries);
    const state = new OverlayStateManager(reader, tries, (hashedAddress) => source.storageSlots(hashedAddress));
    return { state };
  }

  /**
   * An overlay over an explicit state (a pending state, overridden state) whose tries are read
   * from the latest state's: state roots over it are the latest tries with its changes applied.
   */
  overlayOn(reader: StateReader): OverlayStateManager {
    return new OverlayStateManager(reader, new StateTries(new StoreTrieSource(this.store)), (h) => this.store.storageSlots(h));
  }

  /**
   * The tries of the state after canonical block `header` (see {@link revertedTries}), as a source
   * reverted on first use, and that state's storage slots of an account.
   */
  private lazyHistoricalTries(header: BlockHeader): {
    tries: StateTrieSource;
    storageSlots(hashedAddress: Uint8Array): Iterable<{ hashedSlot: Uint8Array; value: Uint8Array }>;
  } {
    let reverted: RevertedState | undefined;
    let source: StateTrieSource | undefined;
    const get = (): StateTrieSource => (source ??= revertedSource((reverted = this.revertedTries(header))));
    const account: TrieSource = { node: (path, hash, hint) => get().account.node(path, hash, hint) };
    const store = this.store;
    const block = header.number;
    return {
      tries: { account, storage: (h) => ({ node: (path, hash, hint) => get().storage(h).node(path, hash, hint) }) },
      *storageSlots(hashedAddress) {
        // The slots the account has now, and those changed since `block`, at their values then.
        get();
        const seen = new Set<string>();
        const changed = reverted!.slotsOf(hashedAddress);
        for (const { hashedSlot } of store.storageSlots(hashedAddress)) seen.add(hashedSlot.toString("hex"));
        for (const s of changed) seen.add(Buffer.from(s).toString("hex"));
        for (const k of seen) {
          const hashedSlot = Buffer.from(k, "hex");
          const value = store.getHistoricalStorage(hashedAddress, hashedSlot, block);
          if (value !== undefined && value.length > 0) yield { hashedSlot, value };
        }
      },
    };
  }

  /** Reverted tries kept (by head and target), {@link REVERTED_STATES_KEPT} at most. */
  private readonly reverted = new LruMap<string, RevertedState>(REVERTED_STATES_KEPT);

  /**
   * The tries of the state after canonical block `header`: the store's latest with every later
   * block's changes reverted in memory, checked against the header's state root.
   * @throws StorageError `STORAGE_HISTORY_PRUNED` below the kept history.
   */
  revertedTries(header: BlockHeader): RevertedState {
    const head = this.headRef;
    const key = toHex(head.hash) + toHex(header.hash());
    const hit = this.reverted.get(key);
    if (hit !== undefined) return hit;
    const r = revertState(this.store, { number: head.header.number, stateRoot: head.header.stateRoot }, { number: header.number, stateRoot: header.stateRoot });
    this.reverted.set(key, r);
    return r;
  }

  /**
   * The tries of the state after canonical block `header`: the store's for the head, reverted
   * ones for an older block ({@link revertedTries}).
   * @throws ChainError `STATE_UNAVAILABLE` for a non-canonical or pruned block.
   */
  trieSourceAt(header: BlockHeader): StateTrieSource {
    this.stateAt(header);
    if (equalsBytes(header.hash(), this.headRef.hash)) return new StoreTrieSource(this.store);
    return revertedSource(this.revertedTries(header));
  }

  /** The BLOCKHASH view for a block whose parent is `parentHash`. */
  evmBlockchain(parentHash: Uint8Array): EvmBlockchain {
    const chain = this;
    const parent = this.getHeaderByHash(parentHash);
    const parentCanonical = parent !== undefined && this.isCanonical(parentHash);
    const bc: EvmBlockchain = {
      async getBlock(n: number) {
        const found = bc.hashSync(BigInt(n));
        return { hash: () => found };
      },
      hashSync(num: bigint): Uint8Array {
        let hash: Uint8Array | undefined;
        if (parentCanonical) hash = chain.store.getCanonicalHash(num);
        else {
          let h = parent;
          while (h !== undefined && h.number > num) h = chain.getHeaderByHash(h.parentHash);
          hash = h?.number === num ? h.hash() : undefined;
        }
        return hash ?? new Uint8Array(32);
      },
      shallowCopy() {
        return bc;
      },
    };
    return bc;
  }

  /** Creates a VM over `state` for executing on top of `parentHash` (OP precompile rules on OP chains). */
  async makeVM(common: Common, state: OverlayStateManager, parentHash: Uint8Array, timestamp?: bigint): Promise<VM> {
    if (this.op !== undefined) {
      const ts = timestamp ?? (this.getHeaderByHash(parentHash)?.timestamp ?? 0n);
      return createOpVM(common, state, this.evmBlockchain(parentHash), opForkAt(this.op, ts));
    }
    await installEvmCaches();
    return createVM({ common, stateManager: state, blockchain: this.evmBlockchain(parentHash) as never });
  }

  // ---- import -------------------------------------------------------------------------

  /** Header checks against the parent (seal checks are not done: PoW blocks are accepted). */
  validateHeader(header: BlockHeader, parent: BlockHeader): void {
    const fail = (why: string): never => {
      throw new ChainError(ChainErrorCode.INVALID_HEADER, `invalid header of block ${header.number}: ${why}`, { number: header.number, hash: to0x(header.hash()) });
    };
    if (header.number !== parent.number + 1n) fail(`number ${header.number} does not follow parent ${parent.number}`);
    if (header.timestamp <= parent.timestamp) fail(`timestamp ${header.timestamp} not after parent's ${parent.timestamp}`);
    if (header.gasUsed > header.gasLimit) fail(`gasUsed ${header.gasUsed} above gasLimit ${header.gasLimit}`);
    if (this.op !== undefined) {
      this.validateOpHeader(header, parent, this.op, fail);
      return;
    }
    if (header.extraData.length > 32 && header.common.consensusType() !== "poa") fail(`extraData is ${header.extraData.length} bytes, at most 32 allowed`);
    try {
      header.validateGasLimit(parent);
    } catch (e) {
      fail((e as Error).message);
    }
    if (header.common.isActivatedEIP(1559)) {
      const expected = header.common.hardforkBlock("london") === header.number ? header.common.param("initialBaseFee") : parent.calcNextBaseFee();
      if (header.baseFeePerGas !== expected) fail(`baseFeePerGas ${header.baseFeePerGas} but expected ${expected}`);
    }
    if (header.common.isActivatedEIP(4844)) {
      const expected = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(header.common) : 0n;
      if (header.excessBlobGas !== expected) fail(`excessBlobGas ${header.excessBlobGas} but expected ${expected}`);
    }
  }

  /**
   * OP header rules (op-reth's consensus): base fee from the parent (Canyon denominator,
   * Holocene/Jovian parameters in the parent's extraData, Jovian minimum), extraData format
   * per fork, no blob gas market (excessBlobGas 0); the gas limit is set by the L1 system
   * config, so Ethereum's 1/1024 adjustment bound does not apply.
   */
  private validateOpHeader(header: BlockHeader, parent: BlockHeader, op: OpChainConfig, fail: (why: string) => never): void {
    const fork = opForkAt(op, header.timestamp);
    if (fork >= OpFork.holocene) {
      try {
        decodeOpExtraData(header.extraData, fork);
      } catch (e) {
        fail(`extraData: ${(e as Error).message}`);
      }
    } else if (header.extraData.length > 32) fail(`extraData is ${header.extraData.length} bytes, at most 32 allowed`);
    const expected = opNextBaseFee(parent, op, header.timestamp);
    if (header.baseFeePerGas !== expected) fail(`baseFeePerGas ${header.baseFeePerGas} but expected ${expected}`);
    if (header.excessBlobGas !== undefined && header.excessBlobGas !== 0n) fail(`excessBlobGas ${header.excessBlobGas} but OP chains have no blob market (0 expected)`);
    if (header.uncleHash !== undefined && !equalsBytes(header.uncleHash, KECCAK256_RLP_ARRAY)) fail("OP blocks have no ommers");
  }

  /**
   * Executes `block` on its parent's state and verifies every header root (state,
   * receipts, transactions, uncles, withdrawals, requests, bloom, gas used). Every import goes
   * through here: a block at or after an upgrade basalt does not implement is refused first.
   * @throws UnknownUpgradeError for such a block ({@link upgrades}).
   */
  async executeBlock(block: Block): Promise<ExecutedBlock> {
    this.upgrades.check(block.header.timestamp, { number: block.header.number, action: "import" });
    const parent = this.getHeaderByHash(block.header.parentHash);
    if (parent === undefined) {
      throw new ChainError(ChainErrorCode.UNKNOWN_PARENT, `block ${block.header.number}: unknown parent ${to0x(block.header.parentHash)}`, {
        number: block.header.number,
      });
    }
    this.validateHeader(block.header, parent);
    await this.senderRecovery?.ensure(block);
    if (this.op !== undefined) return this.executeOpBlock(block, parent, this.op);
    const { state } = this.stateManagerAt(parent);
    const common = block.common;
    const vm = await this.makeVM(common, state, block.header.parentHash, block.header.timestamp);
    const requestCalls = watchRequestSystemCalls(vm);
    let result;
    try {
      result = await runBlock(vm, { block, skipHeaderValidation: true, skipHardForkValidation: true });
      await requestCalls.check();
    } catch (e) {
      // A failed request system call is the cause even when runBlock reports its effect (the requests hash).
      const cause = requestCalls.failure() ?? e;
      throw new ChainError(ChainErrorCode.INVALID_BLOCK, `block ${block.header.number} is invalid: ${(cause as Error).message}`, {
        number: block.header.number,
        hash: to0x(block.hash()),
      });
    }
    const write = blockWriteOf(
      block,
      toStoredReceipts(block, result.receipts),
      block.transactions.map((tx) => tx.getSenderAddress().bytes),
      state,
    );
    return { block, write, gasUsed: result.gasUsed };
  }

  /**
   * Executes an OP block on the configured engine. When the fast engine's result does not match
   * the header (or it fails the block), the block is executed again on the reference engine: if
   * that matches, the fast engine was wrong — logged once at warn, counted in
   * `basalt_execution_evm_fallbacks_total{reason="mismatch"}` — and the reference result is
   * used; if it fails too, the block is invalid. A fast path never makes the node accept a
   * wrong state.
   */
  private async executeOpBlock(block: Block, parent: BlockHeader, op: OpChainConfig): Promise<ExecutedBlock> {
    const run = async (engine: EvmEngineName): Promise<ExecutedBlock & { fallbacks: number }> => {
      const { state } = this.stateManagerAt(parent);
      const vm = await this.makeVM(block.common, state, block.header.parentHash, block.header.timestamp);
      const totals = await verifyOpBlock(vm, block, op, parent, { engine });
      return { block, gasUsed: totals.gasUsed, write: blockWriteOf(block, totals.receipts, totals.senders, state), fallbacks: totals.fallbacks };
    };
    const invalid = (e: unknown): ChainError =>
      new ChainError(ChainErrorCode.INVALID_BLOCK, `block ${block.header.number} is invalid: ${(e as Error).message}`, {
        number: block.header.number,
        hash: to0x(block.hash()),
      });
    const engine = this.evmEngine;
    let executed: ExecutedBlock & { fallbacks: number };
    try {
      executed = await run(engine);
    } catch (e) {
      if (engine !== "fast") throw invalid(e);
      let reference: ExecutedBlock & { fallbacks: number };
      try {
        reference = await run("reference");
      } catch (e2) {
        throw invalid(e2);
      }
      evmFallbacksTotal.inc({ reason: "mismatch" });
      if (!this.warnedMismatch) {
        this.warnedMismatch = true;
        this.log?.warn(
          { number: block.header.number.toString(), hash: to0x(block.hash()), err: e },
          "fast EVM result did not match the block; re-executed on the reference engine (further mismatches are only counted)",
        );
      }
      executed = reference;
    }
    if (executed.fallbacks > 0) evmFallbacksTotal.inc({ reason: "unsupported" }, executed.fallbacks);
    return { block: executed.block, gasUsed: executed.gasUsed, write: executed.write };
  }

  /**
   * Imports a block whose parent is the current head: executes, verifies and commits it as
   * the new canonical head in one transaction.
   */
  async importBlock(block: Block): Promise<ExecutedBlock> {
    if (!equalsBytes(block.header.parentHash, this.headBlock.hash())) {
      if (this.store.hasBlock(block.hash()) && this.isCanonical(block.hash())) {
        throw new ChainError(ChainErrorCode.INVALID_BLOCK, `block ${block.header.number} is already imported`, { number: block.header.number });
      }
      throw new ChainError(ChainErrorCode.UNKNOWN_PARENT, `block ${block.header.number}: parent ${to0x(block.header.parentHash)} is not the head`, {
        number: block.header.number,
      });
    }
    const executed = await this.executeBlock(block);
    // Several writers share the chain (follow mode, P2P gossip, derivation, the Engine API): another may
    // have moved the head while this block executed. Committing on a head that is not the parent would
    // put two children of one block on the canonical chain.
    if (!equalsBytes(block.header.parentHash, this.headBlock.hash())) {
      if (this.isCanonical(block.hash())) return executed;
      throw new ChainError(ChainErrorCode.UNKNOWN_PARENT, `block ${block.header.number}: the head moved while it executed; parent ${to0x(block.header.parentHash)} is no longer the head`, {
        number: block.header.number,
      });
    }
    this.commitCanonical(executed);
    return executed;
  }

  /** Commits an executed block whose parent is the head as the new head. */
  commitCanonical(executed: ExecutedBlock, pointers: { safe?: Uint8Array; finalized?: Uint8Array } = {}): void {
    const { block, write } = executed;
    write.canonical = true;
    this.store.commitBlock(write, { head: block.hash(), ...pointers });
    this.blocks.set(toHex(block.hash()), block);
    this.headBlock = block;
    if (!this.archive) {
      const floor = block.header.number - BigInt(this.historyBlocks);
      if (floor > 0n && floor % HISTORY_PRUNE_INTERVAL_BLOCKS === 0n) {
        try {
          this.store.pruneHistory(floor);
        } catch (e) {
          // The block is committed and is the head; pruning is housekeeping the next multiple of the interval retries.
          this.log?.error({ err: e, floor: floor.toString() }, "state history pruning failed");
        }
      }
    }
    for (const l of this.listeners) l(block, []);
  }

  /**
   * Executes a block (Engine API newPayload) without making it canonical. Blocks on top of
   * the head are kept in memory for a cheap forkchoice update; all are stored.
   */
  async insertBlock(block: Block): Promise<void> {
    if (this.store.hasBlock(block.hash())) return;
    const executed = await this.executeBlock(block);
    executed.write.canonical = false;
    this.store.commitBlock(executed.write);
    this.blocks.set(toHex(block.hash()), block);
    this.executed.set(toHex(block.hash()), executed);
  }

  /**
   * Stores a block built locally (Engine API payload) without making it canonical, keeping
   * its execution result for a cheap forkchoice update to it.
   */
  rememberBuilt(executed: ExecutedBlock): void {
    const w = { ...executed.write, canonical: false };
    this.store.commitBlock(w);
    this.blocks.set(toHex(executed.block.hash()), executed.block);
    this.executed.set(toHex(executed.block.hash()), executed);
  }

  /**
   * Sets the canonical head to `headHash` (a stored block): unwinds to the common ancestor
   * and re-applies the new branch. Safe/finalized pointers are updated in the same step.
   * @throws ChainError `CHAIN_REORG_TOO_DEEP` (nothing changed) when the ancestor is below the kept
   *   state history; `CHAIN_UNKNOWN_BLOCK`/`CHAIN_UNKNOWN_PARENT` for a block that is not stored or
   *   does not connect.
   */
  async setHead(headHash: Uint8Array, safe?: Uint8Array, finalized?: Uint8Array): Promise<void> {
    if (!equalsBytes(headHash, this.headBlock.hash())) {
      const target = this.getBlockByHash(headHash);
      if (target === undefined) throw new ChainError(ChainErrorCode.UNKNOWN_BLOCK, `unknown block ${to0x(headHash)}`);
      // Collect the new branch back to a canonical ancestor.
      const branch: Block[] = [];
      let cur: Block | undefined = target;
      while (cur !== undefined && !this.isCanonical(cur.hash())) {
        branch.unshift(cur);
        cur = this.getBlockByHash(cur.header.parentHash);
      }
      if (cur === undefined) throw new ChainError(ChainErrorCode.UNKNOWN_PARENT, `block ${to0x(headHash)} does not connect to the canonical chain`);
      const ancestor = cur;
      // Checked before anything moves: an unwind that would stop half way leaves a head nobody asked for.
      const floor = this.store.historyFloor();
      if (ancestor.header.number < this.headBlock.header.number && ancestor.header.number + 1n < floor) {
        throw new ChainError(
          ChainErrorCode.REORG_TOO_DEEP,
          `moving the head to ${to0x(headHash)} needs unwinding to block ${ancestor.header.number}, but the state history is kept from block ${floor} only (--history.blocks ${this.historyBlocks}; --archive keeps all): the head stays at block ${this.headBlock.header.number}`,
          { number: ancestor.header.number, hash: to0x(headHash) },
        );
      }
      const reorged: Block[] = [];
      while (this.headBlock.header.number > ancestor.header.number) {
        const old = this.headBlock;
        const parent = this.getBlockByHash(old.header.parentHash) as Block;
        // The parent's tries: this block's changes reverted, checked against the parent's state root.
        const revert = revertState(this.store, { number: old.header.number, stateRoot: old.header.stateRoot }, { number: parent.header.number, stateRoot: parent.header.stateRoot });
        this.store.unwindHead(old.header.number, old.transactions.map((t) => t.hash()), parent.hash(), revert);
        reorged.push(old);
        this.headBlock = parent;
      }
      for (const b of branch) {
        // An execution kept from newPayload applies when it ran on the state the store now holds (its parent's).
        const kept = this.executed.get(toHex(b.hash()));
        const cached = kept !== undefined && equalsBytes(kept.write.parentStateRoot, this.headBlock.header.stateRoot) && equalsBytes(b.header.parentHash, this.headBlock.hash()) ? kept : undefined;
        const ex = cached ?? (await this.executeBlock(b));
        ex.write.canonical = true;
        this.store.commitBlock(ex.write, { head: b.hash() });
        this.headBlock = b;
        this.executed.delete(toHex(b.hash()));
      }
      if (reorged.length > 0) this.log?.info({ newHead: to0x(headHash), depth: reorged.length }, "chain reorganized");
      for (const l of this.listeners) l(this.headBlock, reorged);
    }
    if (safe !== undefined || finalized !== undefined) this.store.setPointers({ safe, finalized });
  }
}

