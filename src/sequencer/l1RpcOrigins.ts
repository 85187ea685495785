/**
 * The sequencer's L1 origins from a real L1 (`--sequencer` with `--l1.rpc` and `--rollup.config`),
 * as an {@link L1OriginSource}. Block `n` has the timestamp `genesis.l2_time + n × block_time`.
 * For each block, from the head:
 * - the parent's origin and sequence number are read from the head's L1-attributes deposit (the
 *   rollup genesis's L1 anchor for the L2 genesis), the origin's header from L1 by hash;
 * - the SystemConfig is rebuilt from the head (`systemConfigFromL2Block`, as op-node's attributes
 *   builder does for every block), so nothing needs remembering across a restart;
 * - the next origin is chosen by {@link selectOrigin}, from the L1 head (read at most every
 *   {@link SEQUENCER_L1_POLL_INTERVAL_MS}) and the L1 block after the origin;
 * - when the origin moves, its receipts give the user deposits (the OptimismPortal's
 *   `TransactionDeposited` logs) and the SystemConfig updates (`ConfigUpdate` logs) applied from
 *   that block on;
 * - the attributes are built with `buildPayloadAttributes`, exactly as derivation builds them from
 *   the same L1 data, with `noTxPool` set past the drift and on the activation blocks of the forks
 *   whose upgrade blocks take no mempool transaction (op-node: Ecotone, Fjord, Isthmus, Jovian).
 *
 * An L1 that reorganized under the origin (the next L1 block's parent is not the origin, or the
 * origin is gone) leaves no block to build on the head: {@link plan} answers undefined, logged at
 * warn once per origin, until the head is moved (derivation replaces the unsafe blocks) or the L1
 * comes back. An L1 RPC that does not answer is logged and the origin stays while it can.
 */
import type { Block } from "@ethereumjs/block";
import type { Logger } from "pino";
import { applyConfigUpdates, systemConfigFromL2Block } from "../chain/op/systemConfig.js";
import { isActivationBlock, type OpForkName } from "../chain/op/forks.js";
import { decodeL1InfoCalldata } from "../chain/op/l1InfoTx.js";
import type { RollupConfig } from "../chain/op/rollupConfig.js";
import { SEQUENCER_L1_POLL_INTERVAL_MS } from "./constants.js";
import { configUpdatesOf, l1OriginDeposits, type L1Receipt } from "../derivation/attributesL1.js";
import type { L1BlockInfo, L1ReceiptLogs, L1Source } from "../derivation/l1Source.js";
import { buildPayloadAttributes, type AttributesParent } from "../derivation/payloadAttributes.js";
import { bytesEqual, fromHex, to0x } from "../util/bytes.js";
import { selectOrigin, type L1OriginSource, type PlannedBlock } from "./l1Origins.js";
import { sequencerL1OriginLagBlocks, sequencerL1ReorgsTotal, sequencerL1RequestsTotal } from "./metrics.js";

/** Forks whose activation block takes no mempool transaction (op-node sequencer.go `startBuildingBlock`). */
const NO_TX_POOL_ACTIVATIONS: readonly Exclude<OpForkName, "bedrock">[] = ["ecotone", "fjord", "isthmus", "jovian"];

/** Options of {@link L1RpcOrigins}. */
interface L1RpcOriginsOptions {
  /** The rollup (`--rollup.config`). */
  rollup: RollupConfig;
  /** The L1 (`--l1.rpc`). */
  l1: L1Source;
  /** L1 blocks that must be on top of an L1 block before it becomes an origin (`--sequencer.l1-confs`). */
  confs: number;
  /** Least milliseconds between two reads of the L1 head; default {@link SEQUENCER_L1_POLL_INTERVAL_MS}. */
  pollIntervalMs?: number;
  log: Logger;
}

/** The head's parent reference for the attributes builder: its hash, time, origin and place in the epoch. */
function parentRefOf(head: Block, rollup: RollupConfig): AttributesParent {
  const h = head.header;
  const ref = { number: h.number, hash: head.hash(), timestamp: h.timestamp };
  if (h.number === rollup.genesis.l2.number) return { ...ref, l1Origin: { number: rollup.genesis.l1.number, hash: fromHex(rollup.genesis.l1.hash) }, sequenceNumber: 0n };
  const first = head.transactions[0] as unknown as { type: number; data: Uint8Array } | undefined;
  // systemConfigFromL2Block (run first) has refused a block without an L1-attributes deposit.
  const { values } = decodeL1InfoCalldata(first!.data);
  return { ...ref, l1Origin: { number: values.number, hash: values.hash }, sequenceNumber: values.sequenceNumber };
}

/** An RPC receipt as the deposit and config-update scans read it. */
function asL1Receipt(r: L1ReceiptLogs): L1Receipt {
  return { status: r.status ? 1 : 0, logs: r.logs };
}

/** A real L1's origins for the sequencer (see the module comment). */
export class L1RpcOrigins implements L1OriginSource {
  readonly blockTime: bigint;
  /** Derivation decides what is safe. */
  readonly sealsFinal = false;
  private readonly rollup: RollupConfig;
  private readonly l1: L1Source;
  private readonly confs: bigint;
  private readonly pollIntervalMs: number;
  private readonly log: Logger;
  private readonly portal: Uint8Array;
  private readonly systemConfigAddress: Uint8Array;
  /** The L1 head last read, and when (performance.now()). */
  private l1Head: L1BlockInfo | undefined;
  private polledAt = Number.NEGATIVE_INFINITY;
  /** The L1 block after an origin, with the L1 head hash it was read under (re-read when the head changes). */
  private next: { block: L1BlockInfo; underHead: string } | undefined;
  /** The origin of the head block, as read from L1 (`optimism_syncStatus`). */
  private headOrigin: L1BlockInfo | undefined;
  /** The last block planned and its origin's header. */
  private planned: { block: PlannedBlock; origin: L1BlockInfo } | undefined;
  /** The origin hash a reorg (or a missing origin) was last reported for: reported once each. */
  private reorgReported: string | undefined;
  /** The origin past whose drift blocks were last reported at warn: reported once each. */
  private driftReported: string | undefined;
  /** The last L1 read failure logged at warn (a recurring one goes to debug). */
  private lastL1Fault: string | undefined;
  /** `l1.requestCount` per method already added to the requests counter. */
  private readonly countedRequests = new Map<string, number>();

  constructor(o: L1RpcOriginsOptions) {
    this.rollup = o.rollup;
    this.l1 = o.l1;
    this.confs = BigInt(o.confs);
    this.blockTime = o.rollup.blockTime;
    this.pollIntervalMs = o.pollIntervalMs ?? SEQUENCER_L1_POLL_INTERVAL_MS;
    this.log = o.log.child({ subsystem: "sequencer" });
    this.portal = fromHex(o.rollup.depositContractAddress);
    this.systemConfigAddress = fromHex(o.rollup.l1SystemConfigAddress);
  }

  /** The L1 block the head names as its origin, when it has been read (`head_l1`/`current_l1` of `optimism_syncStatus`). */
  originOfHead(): L1BlockInfo | undefined {
    return this.headOrigin;
  }

  /** The L1 head last read. */
  latestL1(): L1BlockInfo | undefined {
    return this.l1Head;
  }

  async plan(head: Block): Promise<PlannedBlock | undefined> {
    try {
      return await this.planOn(head);
    } finally {
      this.countRequests();
    }
  }

  private async planOn(head: Block): Promise<PlannedBlock | undefined> {
    const rollup = this.rollup;
    // The SystemConfig in force after the head; also refuses a head without an L1-attributes deposit.
    let systemConfig = systemConfigFromL2Block(head, rollup);
    const parent = parentRefOf(head, rollup);
    const current = (await this.l1.blockByHash(parent.l1Origin.hash))?.info;
    if (current === undefined) {
      this.reportReorg(parent.l1Origin.hash, `L1 block ${parent.l1Origin.number} (${to0x(parent.l1Origin.hash)}), the origin of L2 block ${parent.number}, is not on the L1: it was reorganized away`);
      return undefined;
    }
    if (this.headOrigin === undefined || !bytesEqual(this.headOrigin.hash, current.hash)) this.headOrigin = current;
    await this.pollHead();
    const timestamp = parent.timestamp + rollup.blockTime;
    const next = await this.nextAfter(current);
    const nextConfirmed = next !== undefined && this.l1Head !== undefined && this.l1Head.number >= next.number + this.confs;
    const decision = selectOrigin({ rules: rollup, current, next, nextConfirmed, nextL2Timestamp: timestamp });
    if (decision.kind === "reorg") {
      this.next = undefined;
      this.reportReorg(current.hash, `L1 block ${next!.number}'s parent is ${to0x(next!.parentHash)}, not ${to0x(current.hash)}, the origin of L2 block ${parent.number}: the L1 reorganized under it`);
      return undefined;
    }
    this.reorgReported = undefined;
    const origin = decision.kind === "move" ? next! : current;
    let deposits: PlannedBlock["deposits"] = [];
    if (decision.kind === "move") {
      const receipts = (await this.l1.receipts(origin.hash)).map(asL1Receipt);
      deposits = l1OriginDeposits(receipts, this.portal, origin.hash);
      systemConfig = applyConfigUpdates(systemConfig, configUpdatesOf(receipts, this.systemConfigAddress, rollup, origin.timestamp));
    }
    const { attributes, sequenceNumber } = buildPayloadAttributes(rollup, { parent, l1Origin: origin, systemConfig, deposits, transactions: [] });
    const upgradeBlock = NO_TX_POOL_ACTIVATIONS.some((fork) => isActivationBlock(rollup, fork, timestamp, parent.timestamp));
    attributes.noTxPool = decision.pastDrift || upgradeBlock;
    const block: PlannedBlock = {
      attrs: attributes,
      origin: { number: origin.number, hash: origin.hash, timestamp: origin.timestamp },
      sequenceNumber,
      deposits,
      pastDrift: decision.pastDrift,
    };
    this.planned = { block, origin };
    this.log.debug(
      { number: (parent.number + 1n).toString(), timestamp: timestamp.toString(), l1Origin: origin.number.toString(), decision: decision.kind, reason: decision.kind === "stay" ? decision.reason : undefined, deposits: block.deposits.length, noTxPool: attributes.noTxPool },
      "planned block",
    );
    if (decision.pastDrift) {
      // At warn once per origin (an L1 outage would otherwise warn every block), then at debug.
      const key = to0x(origin.hash);
      const fields = { timestamp: timestamp.toString(), l1Origin: origin.number.toString(), l1OriginTime: origin.timestamp.toString() };
      const what = "L2 blocks are past the sequencer drift of their L1 origin: no mempool transactions until the L1 gives the next origin";
      if (this.driftReported === key) this.log.debug(fields, what);
      else this.log.warn(fields, what);
      this.driftReported = key;
    }
    return block;
  }

  committed(block: PlannedBlock): void {
    if (this.planned?.block === block) {
      this.headOrigin = this.planned.origin;
      this.planned = undefined;
    }
    if (this.l1Head !== undefined) sequencerL1OriginLagBlocks.set(Number(this.l1Head.number - block.origin.number));
  }

  abandoned(block: PlannedBlock): void {
    if (this.planned?.block === block) this.planned = undefined;
  }

  /** Reads the L1 head unless it was read less than a poll interval ago; a failure is logged and the last head kept. */
  private async pollHead(): Promise<void> {
    const now = performance.now();
    if (now - this.polledAt < this.pollIntervalMs) return;
    this.polledAt = now;
    try {
      const head = (await this.l1.blockByNumber("latest"))?.info;
      if (head !== undefined) this.l1Head = head;
      this.lastL1Fault = undefined;
    } catch (e) {
      this.l1Fault(e, "reading the L1 head failed; the origin stays while it can");
    }
  }

  /** The L1 block after `current` when the L1 head says it exists (read once per L1 head), else undefined. */
  private async nextAfter(current: L1BlockInfo): Promise<L1BlockInfo | undefined> {
    const head = this.l1Head;
    if (head === undefined || head.number <= current.number) return undefined;
    const under = to0x(head.hash);
    const cached = this.next;
    if (cached !== undefined && cached.block.number === current.number + 1n && cached.underHead === under) return cached.block;
    try {
      const block = (await this.l1.blockByNumber(current.number + 1n))?.info;
      this.next = block === undefined ? undefined : { block, underHead: under };
      return block;
    } catch (e) {
      this.l1Fault(e, "reading the next L1 origin failed; the origin stays while it can");
      return undefined;
    }
  }

  private l1Fault(e: unknown, what: string): void {
    const reason = (e as Error)?.message ?? String(e);
    if (reason === this.lastL1Fault) {
      this.log.debug({ err: e }, what);
      return;
    }
    this.lastL1Fault = reason;
    this.log.warn({ err: e }, what);
  }

  /** Logs (at warn, once per origin) and counts an L1 reorganized under the head's origin. */
  private reportReorg(originHash: Uint8Array, why: string): void {
    const key = to0x(originHash);
    if (this.reorgReported === key) return;
    this.reorgReported = key;
    sequencerL1ReorgsTotal.inc();
    this.log.warn({ l1Origin: key }, `${why}; no block is built on the head until the L2 chain is back on the canonical L1`);
  }

  /** Adds the L1 requests made since the last call to the requests counter, by method. */
  private countRequests(): void {
    for (const [method, n] of this.l1.requests) {
      const before = this.countedRequests.get(method) ?? 0;
      if (n > before) sequencerL1RequestsTotal.inc({ method }, n - before);
      this.countedRequests.set(method, n);
    }
  }
}
