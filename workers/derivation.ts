/**
 * The derivation worker: runs the L1 derivation pipeline (`src/derivation/driver.ts`) against the
 * L1 RPC and beacon API, reading the L2 chain from the datadir's LMDB store (read-only). It never
 * writes the chain: attributes go to the main thread (`src/derivation/service.ts`), which applies
 * them through the engine and answers. Messages both ways are msgpack bytes (`protocol.ts`).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Block } from "@ethereumjs/block";
import { Chain } from "../src/blockchain/chain.js";
import { parseRollupConfig } from "../src/chain/op/rollupConfig.js";
import { DERIVATION_STATUS_INTERVAL_MS } from "../src/config/constants.js";
import { BeaconClient } from "../src/derivation/beaconClient.js";
import { DerivationDriver, type DriverStatus } from "../src/derivation/driver.js";
import { L1Source } from "../src/derivation/l1Source.js";
import type { PipelineL2 } from "../src/derivation/pipeline.js";
import {
  attributesToWire,
  decodeMessage,
  encodeMessage,
  l1RefToWire,
  type AppliedResult,
  type MainMessage,
  type StatusWire,
  type WorkerMessage,
} from "../src/derivation/protocol.js";
import { HttpRpcClient } from "../src/sync/rpcClient.js";
import { BasaltError } from "../src/util/errors.js";
import type { LogFormat, LogLevel } from "../src/config/options.js";
import { createLogger } from "../src/util/logger.js";

/** What the main thread gives the worker. */
export interface DerivationWorkerData {
  datadir: string;
  /** The rollup configuration as op-node rollup.json text. */
  rollupConfig: string;
  l1Rpc: string;
  l1Beacon?: string;
  l1BlockTimeS: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

const data = workerData as DerivationWorkerData;
const log = createLogger(data.logLevel, data.logFormat).child({ thread: "derivation" });
const cfg = parseRollupConfig(JSON.parse(data.rollupConfig));
const chain = Chain.open(data.datadir, { readOnly: true, logger: log });
const post = (m: WorkerMessage): void => parentPort!.postMessage(encodeMessage(m));

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

// Status: at most every DERIVATION_STATUS_INTERVAL_MS, the last one always sent.
let pendingStatus: StatusWire | undefined;
let statusTimer: NodeJS.Timeout | undefined;
const flushStatus = (): void => {
  statusTimer = undefined;
  if (pendingStatus !== undefined) post({ t: "status", status: pendingStatus });
  pendingStatus = undefined;
};
const onStatus = (s: DriverStatus, counters: { snapshot(): Record<string, number> }): void => {
  const all = counters.snapshot();
  for (const [method, n] of l1Source.requests) all[`l1:${method}`] = n;
  if (beacon !== undefined) for (const [endpoint, n] of Object.entries(beacon.counter.requests)) all[`beacon:${endpoint}`] = n;
  const status: StatusWire = { counters: all };
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
      post({
        t: "attributes",
        id,
        parentHash: step.parent.hash,
        parentNumber: step.parent.number.toString(),
        attributes: attributesToWire(step.built.attributes),
        derivedFrom: l1RefToWire(step.derivedFrom),
        empty: step.empty,
      });
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    rewind: (hash, number) => post({ t: "rewind", safeHash: hash, number: number.toString() }),
    finalize: (hash, number) => post({ t: "finalized", hash, number: number.toString() }),
  },
  { l1BlockTimeS: data.l1BlockTimeS, logger: log, onStatus, l1ChainId: () => l1Source.chainId() },
);

parentPort!.on("message", (bytes: Uint8Array) => {
  const m = decodeMessage<MainMessage>(bytes);
  if (m.t === "applied") {
    const resolve = waiting.get(m.id);
    waiting.delete(m.id);
    resolve?.(m.safeHash === undefined ? { result: m.result } : { result: m.result, safeHash: m.safeHash });
  } else if (m.t === "reset") driver.requestReset();
  else if (m.t === "stop") {
    // An attributes message the main thread will not answer any more: its step is dropped.
    for (const resolve of waiting.values()) resolve({ result: "reset" });
    waiting.clear();
    void driver
      .stop()
      .then(() => {
        if (statusTimer !== undefined) clearTimeout(statusTimer);
        flushStatus();
        return chain.close();
      })
      .finally(() => post({ t: "stopped" }));
  }
});

driver.start().then(
  () => post({ t: "ready" }),
  (e: unknown) => post({ t: "fatal", message: (e as Error).message, ...(e instanceof BasaltError ? { code: e.code } : {}) }),
);
