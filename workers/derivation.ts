/**
 * The derivation worker: runs the L1 derivation pipeline (`src/derivation/driver.ts`) against the
 * L1 RPC and beacon API, reading the L2 chain from the datadir's LMDB store (read-only, through
 * {@link ChainReader}). It never writes the chain: attributes go to the main thread
 * (`src/derivation/service.ts`) as events through the worker host, which applies them through the
 * engine and answers with an "applied" note (`src/derivation/protocol.ts`). Its counters are
 * prom-client metrics of this thread, scraped by the host.
 */
import { workerData } from "node:worker_threads";
import type { Block } from "@ethereumjs/block";
import { Chain } from "../src/blockchain/chain.js";
import type { ChainReader } from "../src/blockchain/chainReader.js";
import { parseRollupConfig } from "../src/chain/op/rollupConfig.js";
import { DERIVATION_STATUS_INTERVAL_MS } from "../src/derivation/constants.js";
import { BeaconClient } from "../src/derivation/beaconClient.js";
import { DerivationDriver, type DriverStatus } from "../src/derivation/driver.js";
import { L1Source } from "../src/derivation/l1Source.js";
import { bindDerivationCounters } from "../src/derivation/metrics.js";
import type { PipelineL2 } from "../src/derivation/pipeline.js";
import { attributesToWire, DerivationStartError, l1RefToWire, type AppliedResult, type DerivationEvents, type DerivationNotes, type StatusWire } from "../src/derivation/protocol.js";
import { HttpRpcClient } from "../src/util/rpcClient.js";
import { BasaltError } from "../src/util/errors.js";
import type { LogFormat, LogLevel } from "../src/config/options.js";
import { createLogger } from "../src/util/logger.js";
import { serveWorker } from "../src/util/workerServe.js";

/** What the main thread gives the worker. */
interface DerivationWorkerData {
  datadir: string;
  /** The rollup configuration as op-node rollup.json text. */
  rollupConfig: string;
  l1Rpc: string;
  l1Beacon?: string;
  l1BlockTimeS: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

serveWorker(async (outbox) => {
  const data = workerData as DerivationWorkerData;
  const log = createLogger(data.logLevel, data.logFormat).child({ thread: "derivation" });
  const cfg = parseRollupConfig(JSON.parse(data.rollupConfig));
  const store = Chain.open(data.datadir, { readOnly: true, logger: log });
  const chain: ChainReader = store;
  const emit = <K extends keyof DerivationEvents>(name: K, payload: DerivationEvents[K]): void => outbox.emit(name, payload);

  const l2: PipelineL2 = {
    safeBlock(): Block {
      chain.refreshHeadHeader();
      return chain.pointer("safe") ?? chain.getBlockByNumber(0n)!;
    },
    getBlockByNumber(n: bigint): Block | undefined {
      chain.refreshHeadHeader();
      return chain.getBlockByNumber(n);
    },
    getBlockByHash: (h) => chain.getBlockByHash(h),
  };

  const l1Source = new L1Source(new HttpRpcClient(data.l1Rpc), { l1ChainId: cfg.l1ChainId, batchInbox: cfg.batchInboxAddress });
  const beacon = data.l1Beacon === undefined ? undefined : new BeaconClient({ url: data.l1Beacon });
  const blobs = beacon === undefined ? undefined : { blobsForBlock: (t: bigint, h: Parameters<BeaconClient["blobsForBlock"]>[1]) => beacon.blobsForBlock(t, h) };

  let nextId = 1;
  const waiting = new Map<number, (r: { result: AppliedResult; safeHash?: Uint8Array }) => void>();

  // Status (optimism_syncStatus, the status gauges): at most every DERIVATION_STATUS_INTERVAL_MS, the last one always sent.
  let pendingStatus: StatusWire | undefined;
  let statusTimer: NodeJS.Timeout | undefined;
  const flushStatus = (): void => {
    statusTimer = undefined;
    if (pendingStatus !== undefined) emit("status", pendingStatus);
    pendingStatus = undefined;
  };
  const onStatus = (s: DriverStatus, counters: { snapshot(): Record<string, number> }): void => {
    const safeNumber = counters.snapshot().safeNumber;
    const status: StatusWire = safeNumber === undefined ? {} : { safeNumber };
    if (s.currentL1 !== undefined) status.currentL1 = l1RefToWire(s.currentL1);
    if (s.headL1 !== undefined) status.headL1 = l1RefToWire(s.headL1);
    if (s.safeL1 !== undefined) status.safeL1 = l1RefToWire(s.safeL1);
    if (s.finalizedL1 !== undefined) status.finalizedL1 = l1RefToWire(s.finalizedL1);
    if (s.stalled !== undefined) status.stalled = s.stalled;
    pendingStatus = status;
    statusTimer ??= setTimeout(flushStatus, DERIVATION_STATUS_INTERVAL_MS);
  };

  const driver = new DerivationDriver(
    cfg,
    l1Source,
    blobs,
    l2,
    {
      apply(step) {
        const id = nextId++;
        emit("attributes", {
          id,
          parentHash: step.parent.hash,
          parentNumber: step.parent.number.toString(),
          attributes: attributesToWire(step.built.attributes),
          derivedFrom: l1RefToWire(step.derivedFrom),
          empty: step.empty,
        });
        return new Promise((resolve) => waiting.set(id, resolve));
      },
      rewind: (hash, number) => emit("rewind", { safeHash: hash, number: number.toString() }),
      finalize: (hash, number) => emit("finalized", { hash, number: number.toString() }),
    },
    { l1BlockTimeS: data.l1BlockTimeS, logger: log, onStatus, l1ChainId: () => l1Source.chainId() },
  );

  // The counter families, read from the pipeline's tally and the L1 / beacon request counts at scrape time.
  bindDerivationCounters(() => {
    const all = driver.counters.snapshot();
    for (const [method, n] of l1Source.requests) all[`l1:${method}`] = n;
    if (beacon !== undefined) for (const [endpoint, n] of Object.entries(beacon.counter.requests)) all[`beacon:${endpoint}`] = n;
    return all;
  });

  try {
    await driver.start();
  } catch (e) {
    await store.close().catch(() => undefined);
    throw new DerivationStartError(`derivation cannot start: ${(e as Error).message}`, e instanceof BasaltError ? e.code : "unknown");
  }

  return {
    notes: {
      applied: (p) => {
        const m = p as DerivationNotes["applied"];
        const resolve = waiting.get(m.id);
        waiting.delete(m.id);
        resolve?.(m.safeHash === undefined ? { result: m.result } : { result: m.result, safeHash: m.safeHash });
      },
      reset: () => driver.requestReset(),
    },
    stop: async () => {
      // An attributes event the main thread will not answer any more: its step is dropped.
      for (const resolve of waiting.values()) resolve({ result: "reset" });
      waiting.clear();
      await driver.stop();
      if (statusTimer !== undefined) clearTimeout(statusTimer);
      flushStatus();
      await store.close();
    },
  };
});
