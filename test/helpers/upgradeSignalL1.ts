/**
 * An L1 JSON-RPC endpoint on 127.0.0.1 that carries Base's upgrade-signal contract: it answers
 * `eth_chainId`, `eth_getBlockByNumber` (one block per tag, its hash changing with every schedule
 * change) and `eth_call` of `getSchedule()` / `minimumProtocolVersion()` at the contract's address
 * with the ABI encoding Base's `ProtocolVersions` returns (any other call reverts). The schedule
 * can be changed while readers poll; `failing` makes every request answer HTTP 503.
 */
import { createServer, type Server } from "node:http";
import { encodeSchedule, GET_SCHEDULE_CALLDATA, MINIMUM_PROTOCOL_VERSION_CALLDATA } from "../../src/chain/op/upgradeSchedule.js";
import { LOCALHOST } from "./ports.js";

/** The contract address the fake L1 answers for (Base mainnet's registry, as a node would ask). */
export const UPGRADE_SIGNAL_CONTRACT = "0x7480Afc8D99a5c645c247dB5A1e4a4f440e6e095";

/** v1.4.1 packed as the registry stores it (`major << 96 | minor << 64 | patch << 32`). */
export const MIN_PROTOCOL_VERSION_V1_4_1 = (1n << 96n) | (4n << 64n) | (1n << 32n);

/** One request the fake L1 received. */
export interface SeenCall {
  method: string;
  params: unknown[];
}

/** The fake L1 (see the module comment). */
export class UpgradeSignalL1 {
  schedule: bigint[];
  minimumProtocolVersion = MIN_PROTOCOL_VERSION_V1_4_1;
  chainId = 1n;
  /** Answer every request with HTTP 503. */
  failing = false;
  readonly calls: SeenCall[] = [];
  private revision = 1n;
  private server: Server | undefined;
  url = "";

  constructor(schedule: bigint[]) {
    this.schedule = schedule;
  }

  /** Replaces the schedule (a new L1 block carries it). */
  setSchedule(schedule: bigint[]): void {
    this.schedule = schedule;
    this.revision++;
  }

  /** The hash of the L1 block that carries the current schedule. */
  get blockHash(): string {
    return `0x${this.revision.toString(16).padStart(64, "0")}`;
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        if (this.failing) {
          res.writeHead(503).end("unavailable");
          return;
        }
        const r = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
        this.calls.push({ method: r.method, params: r.params ?? [] });
        const reply = (o: Record<string, unknown>): void => {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: r.id, ...o }));
        };
        reply(this.answer(r.method, r.params ?? []));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, LOCALHOST, resolve));
    const addr = this.server.address() as { port: number };
    this.url = `http://${LOCALHOST}:${addr.port}`;
    return this.url;
  }

  private answer(method: string, params: unknown[]): Record<string, unknown> {
    const word = (n: bigint): string => `0x${n.toString(16).padStart(64, "0")}`;
    switch (method) {
      case "eth_chainId":
        return { result: `0x${this.chainId.toString(16)}` };
      case "eth_getBlockByNumber":
        return { result: { number: `0x${(1000n + this.revision).toString(16)}`, hash: this.blockHash, timestamp: "0x0" } };
      case "eth_call": {
        const [tx, at] = params as [{ to?: string; data?: string }, unknown];
        if ((at as { blockHash?: string } | undefined)?.blockHash !== this.blockHash && at !== "latest") {
          return { error: { code: -32000, message: `header not found: ${JSON.stringify(at)}` } };
        }
        if (tx.to?.toLowerCase() !== UPGRADE_SIGNAL_CONTRACT.toLowerCase()) return { result: "0x" };
        if (tx.data === GET_SCHEDULE_CALLDATA) return { result: encodeSchedule(this.schedule) };
        if (tx.data === MINIMUM_PROTOCOL_VERSION_CALLDATA) return { result: word(this.minimumProtocolVersion) };
        return { error: { code: 3, message: "execution reverted", data: "0x" } };
      }
      default:
        return { error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
    }
  }

  async close(): Promise<void> {
    const s = this.server;
    if (s === undefined) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
